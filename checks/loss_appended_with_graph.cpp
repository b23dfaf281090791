// TPF001 loss_appended_with_graph (planned: registered and documented, no check yet)
//
// What it finds: a tensor that carries an autograd graph is stored in something that
//   outlives the loop iteration: `losses.append(loss)`, `total += loss`,
//   `history[k] = out`, `self.hist.append(...)`. Error when no backward has run
//   on it yet (the activations of every step stay alive); warning when its
//   backward already ran (the graph's nodes stay alive).
// Why it costs: each stored tensor keeps its whole autograd graph alive, so memory grows
//   every step until the run dies with CUDA out of memory, often hours in.
// Example:
//     losses = []
//     for x, y in loader:
//         loss = criterion(model(x), y)
//         loss.backward()
//         losses.append(loss)
// Fix: store a number or a detached tensor: `losses.append(loss.item())` or
//   `losses.append(loss.detach())`.
// Not flagged: detached values (`.item()`, `.detach()`), values computed under
//   `torch.no_grad()`, containers created fresh each iteration, and losses that
//   are stored to be summed and backwarded later (chunked losses, pipeline
//   schedules).
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::loss_appended_with_graph {

const std::string_view kExplain = R"(TPF001 loss_appended_with_graph: a graph-carrying tensor is stored across loop iterations (planned: not implemented yet)

What it finds
  a tensor that carries an autograd graph is stored in something that
  outlives the loop iteration: `losses.append(loss)`, `total += loss`,
  `history[k] = out`, `self.hist.append(...)`. Error when no backward has run
  on it yet (the activations of every step stay alive); warning when its
  backward already ran (the graph's nodes stay alive).

Why it costs
  each stored tensor keeps its whole autograd graph alive, so memory grows
  every step until the run dies with CUDA out of memory, often hours in.

Example
  losses = []
  for x, y in loader:
      loss = criterion(model(x), y)
      loss.backward()
      losses.append(loss)

Fix
  store a number or a detached tensor: `losses.append(loss.item())` or
  `losses.append(loss.detach())`.

Not flagged
  detached values (`.item()`, `.detach()`), values computed under
  `torch.no_grad()`, containers created fresh each iteration, and losses that
  are stored to be summed and backwarded later (chunked losses, pipeline
  schedules).
)";

}  // namespace tpf::checks::loss_appended_with_graph
