// TPF009 device_sync_in_inner_loop (planned: registered and documented, no check yet)
//
// What it finds: a device-to-host copy (`.item()`, `.cpu()`, `.numpy()`, `.tolist()`,
//   `print(tensor)`) per element inside an inner loop of the training step, or
//   `torch.cuda.synchronize()` every step.
// Why it costs: each sync stalls the host until the GPU drains its queue, so the GPU
//   idles between kernels; per-element syncs can make a step many times
//   slower.
// Example:
//     for i in range(len(preds)):
//         if preds[i].item() == labels[i].item():
//             correct += 1
// Fix: compare on the device and sync once: `correct += (preds ==
//   labels).sum().item()`.
// Not flagged: one `.item()` per step for logging, syncs outside the training step,
//   and syncs under a logging-interval condition.
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::device_sync_in_inner_loop {

const std::string_view kExplain = R"(TPF009 device_sync_in_inner_loop: device-to-host sync per element in an inner loop, or cuda synchronize every step (planned: not implemented yet)

What it finds
  a device-to-host copy (`.item()`, `.cpu()`, `.numpy()`, `.tolist()`,
  `print(tensor)`) per element inside an inner loop of the training step, or
  `torch.cuda.synchronize()` every step.

Why it costs
  each sync stalls the host until the GPU drains its queue, so the GPU
  idles between kernels; per-element syncs can make a step many times
  slower.

Example
  for i in range(len(preds)):
      if preds[i].item() == labels[i].item():
          correct += 1

Fix
  compare on the device and sync once: `correct += (preds ==
  labels).sum().item()`.

Not flagged
  one `.item()` per step for logging, syncs outside the training step,
  and syncs under a logging-interval condition.
)";

}  // namespace tpf::checks::device_sync_in_inner_loop
