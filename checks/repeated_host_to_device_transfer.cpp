// TPF011 repeated_host_to_device_transfer (planned: registered and documented, no check yet)
//
// What it finds: a host-to-device transfer of a loop-invariant value repeated every
//   iteration: `model.to(device)` in the batch loop, a constant tensor
//   `.cuda()`'d every step.
// Why it costs: each repeat copies the same bytes over PCIe again (and re-checks every
//   parameter for `model.to`), stealing time from every step.
// Example:
//     for x, y in loader:
//         model.to(device)
//         weights = class_weights.cuda()
// Fix: move loop-invariant values once, before the loop.
// Not flagged: batch tensors (they change every iteration), device-to-host copies,
//   and deliberate move-and-restore (offloading).
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::repeated_host_to_device_transfer {

const std::string_view kExplain = R"(TPF011 repeated_host_to_device_transfer: loop-invariant host-to-device transfer repeated every iteration (planned: not implemented yet)

What it finds
  a host-to-device transfer of a loop-invariant value repeated every
  iteration: `model.to(device)` in the batch loop, a constant tensor
  `.cuda()`'d every step.

Why it costs
  each repeat copies the same bytes over PCIe again (and re-checks every
  parameter for `model.to`), stealing time from every step.

Example
  for x, y in loader:
      model.to(device)
      weights = class_weights.cuda()

Fix
  move loop-invariant values once, before the loop.

Not flagged
  batch tensors (they change every iteration), device-to-host copies,
  and deliberate move-and-restore (offloading).
)";

}  // namespace tpf::checks::repeated_host_to_device_transfer
