// Dtype table lookups and spelling parser (see memory/dtypes.def).
// requires: nothing. produces: dtype_size, dtype_name, parse_dtype.
#include "memory/dtypes.h"

#include <array>
#include <string>

namespace tpf::memory {
namespace {

struct Row {
  std::string_view name;
  uint32_t bytes;
  bool fp;
};
constexpr std::array kRows = {
#define TPF_DTYPE(id, name, bytes, fp) Row{name, bytes, fp},
#include "memory/dtypes.def"
#undef TPF_DTYPE
};

struct Alias {
  std::string_view spelling;
  Dtype dtype;
};
// torch attribute aliases (torch.float is float32, torch.half float16, ...)
// and the short forms people pass on command lines and in configs.
constexpr Alias kAliases[] = {
    {"float", Dtype::Float32},     {"fp32", Dtype::Float32},    {"32", Dtype::Float32},
    {"float32", Dtype::Float32},   {"tf32", Dtype::Float32},    {"double", Dtype::Float64},
    {"fp64", Dtype::Float64},      {"half", Dtype::Float16},    {"fp16", Dtype::Float16},
    {"16", Dtype::Float16},        {"16-mixed", Dtype::Float16}, {"float16", Dtype::Float16},
    {"bf16", Dtype::BFloat16},     {"bfloat16", Dtype::BFloat16}, {"bf16-mixed", Dtype::BFloat16},
    {"long", Dtype::Int64},        {"int", Dtype::Int32},       {"short", Dtype::Int16},
    {"fp8", Dtype::Float8},        {"float8_e5m2", Dtype::Float8},
    {"cfloat", Dtype::Complex64},  {"cdouble", Dtype::Complex128},
};

}  // namespace

uint32_t dtype_size(Dtype d) { return kRows[static_cast<size_t>(d)].bytes; }
std::string_view dtype_name(Dtype d) { return kRows[static_cast<size_t>(d)].name; }
bool is_floating(Dtype d) { return kRows[static_cast<size_t>(d)].fp; }
bool is_complex(Dtype d) { return d == Dtype::Complex64 || d == Dtype::Complex128; }

std::optional<Dtype> parse_dtype(std::string_view s) {
  if (s.starts_with("torch.")) s.remove_prefix(6);
  std::string low(s);
  for (char& c : low)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  for (size_t i = 0; i < kRows.size(); ++i)
    if (kRows[i].name == low) return static_cast<Dtype>(i);
  for (const Alias& a : kAliases)
    if (a.spelling == low) return a.dtype;
  return std::nullopt;
}

}  // namespace tpf::memory
