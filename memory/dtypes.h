// Dtypes: the table in memory/dtypes.def (name, element size), plus parsing
// of the spellings scripts and the CLI use (torch.bfloat16, "bf16", "half").
// requires: nothing. produces: Dtype, dtype_size(), parse_dtype().
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tpf::memory {

enum class Dtype : uint8_t {
#define TPF_DTYPE(id, name, bytes, fp) id,
#include "memory/dtypes.def"
#undef TPF_DTYPE
};

/// Bytes per element (torch.Tensor.element_size()).
uint32_t dtype_size(Dtype d);
/// The torch name without the `torch.` prefix ("bfloat16").
std::string_view dtype_name(Dtype d);
bool is_floating(Dtype d);
/// complex64 / complex128 (torch.is_complex).
bool is_complex(Dtype d);
/// Parses a dtype spelling: torch attribute names and their aliases
/// (float, half, bfloat16, long, ...) and the CLI's short forms
/// (fp32, fp16, bf16, 32, 16). std::nullopt when unknown.
std::optional<Dtype> parse_dtype(std::string_view s);

}  // namespace tpf::memory
