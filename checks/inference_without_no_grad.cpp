// TPF002 inference_without_no_grad (planned: registered and documented, no check yet)
//
// What it finds: a loop that iterates a data loader and runs the model's forward pass,
//   with no backward reachable from it, outside `torch.no_grad()` /
//   `torch.inference_mode()` (decided by what the code does, not by the
//   function's name).
// Why it costs: without no_grad, autograd records every forward: activations are kept
//   for a backward that never comes, evaluation uses several times the memory
//   it needs and runs slower.
// Example:
//     model.eval()
//     for x, y in val_loader:
//         correct += (model(x).argmax(1) == y).sum().item()
// Fix: wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`),
//   or decorate the function with `@torch.no_grad()`.
// Not flagged: loops that call backward on purpose (adversarial attacks, input
//   optimization), forwards under no_grad set by a decorator or by every caller
//   in the file.
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::inference_without_no_grad {

const std::string_view kExplain = R"(TPF002 inference_without_no_grad: forward pass in an inference loop without no_grad or inference_mode (planned: not implemented yet)

What it finds
  a loop that iterates a data loader and runs the model's forward pass,
  with no backward reachable from it, outside `torch.no_grad()` /
  `torch.inference_mode()` (decided by what the code does, not by the
  function's name).

Why it costs
  without no_grad, autograd records every forward: activations are kept
  for a backward that never comes, evaluation uses several times the memory
  it needs and runs slower.

Example
  model.eval()
  for x, y in val_loader:
      correct += (model(x).argmax(1) == y).sum().item()

Fix
  wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`),
  or decorate the function with `@torch.no_grad()`.

Not flagged
  loops that call backward on purpose (adversarial attacks, input
  optimization), forwards under no_grad set by a decorator or by every caller
  in the file.
)";

}  // namespace tpf::checks::inference_without_no_grad
