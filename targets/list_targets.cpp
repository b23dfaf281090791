// list_targets: renders the GPU and instance tables as the `--list-targets` text.
// requires: gpus(), instances() (lookup.cpp).
// produces: list_targets(); the driver prints it verbatim.
#include <fmt/format.h>

#include <string>

#include "targets/targets.h"

namespace tpf::targets {
namespace {

std::string gib(uint64_t bytes) {
  return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / static_cast<double>(kGiB));
}

std::string gpu_notes(const GpuSpec& g) {
  std::string notes(g.display);
  if (!g.note.empty()) notes += fmt::format("; {}", g.note);
  if (!g.aliases.empty()) {
    std::string aliases(g.aliases);
    for (char& c : aliases)
      if (c == '?') c = '*';  // the ambiguity mark reads better as a footnote star
    notes += fmt::format(" (aliases: {})", aliases);
  }
  return notes;
}

}  // namespace

std::string list_targets() {
  std::string out;
  out += "GPUs: usable = what one process can allocate; its CUDA context comes out of it\n";
  out += fmt::format("  {:<15} {:>6}  {:>10}  {:>11}  {:<4}  {}\n", "name", "memory", "total",
                     "usable", "bf16", "notes");
  for (const GpuSpec& g : gpus()) {
    // '~' flags a usable figure derived from a sibling board, not read off one.
    const char* mark = g.provenance == Provenance::Reported ? " " : "~";
    out += fmt::format("  {:<15} {:>3} GB  {:>10}  {}{:>10}  {:<4}  {}\n", g.name, g.memory_gb,
                       gib(g.total_bytes()), mark, gib(g.usable_bytes()), g.bf16 ? "yes" : "no",
                       gpu_notes(g));
  }
  out += "  ~ usable estimated from a board with the same memory; * alias names several boards\n";
  out += "\nCloud instances: per-GPU usable memory; the GPU count is the default world size\n";
  bool first = true;
  Provider current{};
  for (const InstanceSpec& i : instances()) {
    if (first || i.provider != current) {
      out += fmt::format("  {}\n", to_string(i.provider));
      current = i.provider;
      first = false;
    }
    const GpuSpec& g = gpu(i.gpu);
    out += fmt::format("    {:<27} {:>2} x {:<15} {:>10} each\n", i.name, i.count, g.name,
                       gib(g.usable_bytes()));
  }
  out += "\nAlso accepted: \"<N>x<gpu>\" (e.g. 8xh100) and nvidia-smi product names\n";
  return out;
}

}  // namespace tpf::targets
