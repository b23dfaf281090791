// TPF012 dataloader_without_workers (planned: registered and documented, no check yet)
//
// What it finds: a `DataLoader` with `num_workers=0` (or unset) or without
//   `pin_memory=True` in a script that trains on CUDA.
// Why it costs: loading then runs in the training process between steps, so the GPU
//   waits for every batch; unpinned memory makes host-to-device copies slower
//   and synchronous.
// Example:
//     loader = DataLoader(dataset, batch_size=64, shuffle=True)
// Fix: `DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4,
//   pin_memory=True)`.
// Not flagged: scripts that do not use CUDA, and datasets already on the GPU.
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::dataloader_without_workers {

const std::string_view kExplain = R"(TPF012 dataloader_without_workers: DataLoader without worker processes or pinned memory in a CUDA training script (planned: not implemented yet)

What it finds
  a `DataLoader` with `num_workers=0` (or unset) or without
  `pin_memory=True` in a script that trains on CUDA.

Why it costs
  loading then runs in the training process between steps, so the GPU
  waits for every batch; unpinned memory makes host-to-device copies slower
  and synchronous.

Example
  loader = DataLoader(dataset, batch_size=64, shuffle=True)

Fix
  `DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4,
  pin_memory=True)`.

Not flagged
  scripts that do not use CUDA, and datasets already on the GPU.
)";

}  // namespace tpf::checks::dataloader_without_workers
