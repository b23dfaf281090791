// targets: the GPU and cloud-instance tables behind `--target`, and name lookup.
// requires: nothing (a leaf library; the tables are gpus.def and instances.def).
// produces: GpuSpec / InstanceSpec tables, lookup_target() with close-match
//           suggestions, list_targets() for `--list-targets`.
//
// Memory split (what the estimator compares against, per GPU):
//
//   total_bytes   what the driver reports (nvidia-smi / rocm-smi total)
//     - driver reservation (nvidia-smi -q "Reserved"; ECC is already out of total)
//   = usable_bytes  cudaMemGetInfo total == torch's total_memory
//     - CUDA context      } charged by memory/ as components of the peak,
//     - allocator slack   } never folded into usable_bytes here
//     - tensors
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tpf::targets {

inline constexpr uint64_t kMiB = uint64_t{1} << 20;
inline constexpr uint64_t kGiB = uint64_t{1} << 30;

enum class Vendor : uint8_t { Nvidia, Amd };
enum class Provider : uint8_t { Aws, Gcp, Azure };

/// How a row's memory numbers were obtained; see the legend in gpus.def.
enum class Provenance : uint8_t { Reported, UsableEstimated, Estimated };

/// One id per row of gpus.def, in table order.
enum class GpuId : uint16_t {
#define TPF_GPU(id, ...) id,
#include "targets/gpus.def"
#undef TPF_GPU
};

/// One row of gpus.def. All views point into static storage.
struct GpuSpec {
  GpuId id;
  std::string_view name;     ///< canonical, lowercase: "h100"
  std::string_view display;  ///< "NVIDIA H100 SXM5 80GB"
  Vendor vendor;
  uint32_t memory_gb;   ///< marketing capacity, display only
  uint32_t total_mib;   ///< driver-reported total
  uint32_t usable_mib;  ///< allocatable by one process (before its CUDA context)
  Provenance provenance;
  uint32_t bandwidth_gbs;    ///< peak DRAM bandwidth, 10^9 B/s
  bool bf16;                 ///< native bf16 math
  std::string_view aliases;  ///< space-separated
  std::string_view note;

  uint64_t total_bytes() const { return uint64_t{total_mib} * kMiB; }
  uint64_t usable_bytes() const { return uint64_t{usable_mib} * kMiB; }
  /// The driver's reservation the process can never allocate.
  uint64_t reserved_bytes() const { return total_bytes() - usable_bytes(); }
};

/// One row of instances.def: a cloud instance type is `count` x `gpu`.
struct InstanceSpec {
  std::string_view name;  ///< as the provider spells it: "p4d.24xlarge"
  Provider provider;
  GpuId gpu;
  uint32_t count;
  double usd_per_hour;       ///< indicative on-demand price; 0: none found
  std::string_view price_date;    ///< "2024-09-28" (empty without a price)
  std::string_view price_source;  ///< where it was published (instances.def)
  bool priced() const { return usd_per_hour > 0; }
};

/// The whole GPU table, in gpus.def order.
std::span<const GpuSpec> gpus();
/// The whole instance table, in instances.def order.
std::span<const InstanceSpec> instances();
/// The row for `id`.
const GpuSpec& gpu(GpuId id);

/// What a `--target` name resolved to: `count` GPUs of one kind, each its own
/// device. A bare GPU name gives count 1; an instance or "8xh100" gives more.
struct Target {
  std::string name;                        ///< canonical: "h100", "p4d.24xlarge", "8xh100"
  const GpuSpec* gpu = nullptr;            ///< never null in a returned Target
  uint32_t count = 1;                      ///< GPUs; the default world size
  const InstanceSpec* instance = nullptr;  ///< set when an instance name matched
  /// Set when the name was an alias for several boards ("a100"): says which
  /// one was assumed, for the report to show. Empty otherwise.
  std::string assumption;

  uint64_t usable_bytes_per_gpu() const { return gpu->usable_bytes(); }
  uint64_t total_usable_bytes() const { return uint64_t{count} * gpu->usable_bytes(); }
};

/// An unknown `--target` name. Passes never print: the caller turns this into
/// a Diagnostic (or a CLI error) using message().
struct LookupError {
  std::string query;                     ///< as the user wrote it
  std::vector<std::string> suggestions;  ///< canonical names, best first, at most 5
  /// "unknown target `h1000`; did you mean `h100`, `h200`?" (STYLE: lowercase,
  /// code in backticks, no final period).
  std::string message() const;
};

/// Exactly one of `target` / `error` is meaningful: `error` only when
/// `target` is empty.
struct LookupResult {
  std::optional<Target> target;
  LookupError error;
  bool ok() const { return target.has_value(); }
};

/// Resolves a GPU name, alias, cloud instance type or "<N>x<gpu>" (e.g.
/// "8xh100", "4 x A100-80GB"). Case, '-', '_', spaces, vendor words (NVIDIA,
/// GeForce, Tesla, AMD, Instinct) and Azure's `Standard_` prefix are ignored,
/// so nvidia-smi product names resolve ("NVIDIA H100 80GB HBM3" -> h100).
LookupResult lookup_target(std::string_view name);

/// Up to `max` canonical names close to `name`: within a small edit distance
/// of a name or alias, or in a prefix relation with one. Best first.
std::vector<std::string> close_matches(std::string_view name, size_t max = 5);

/// Levenshtein distance between two short names (memory's zoo tables use it
/// for their close names too).
size_t edit_distance(std::string_view a, std::string_view b);

/// The lookup key for a name: see lookup_target() for what it ignores.
std::string normalize_name(std::string_view name);

/// The `--list-targets` table: GPUs (name, memory, total, usable, bf16,
/// notes), then instances grouped by provider. Ends with a newline.
std::string list_targets();

std::string_view to_string(Vendor v);
std::string_view to_string(Provider p);

}  // namespace tpf::targets
