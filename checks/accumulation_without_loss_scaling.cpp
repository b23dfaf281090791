// TPF004 accumulation_without_loss_scaling (planned: registered and documented, no check yet)
//
// What it finds: gradient accumulation (the optimizer step guarded by `i % N`,
//   `(i + 1) % N == 0` or a counter) where the loss is not divided by N (or an
//   equivalent scale) before `backward()`.
// Why it costs: the accumulated gradient is N times the mean gradient, so the effective
//   learning rate is N times the configured one: training diverges or needs a
//   retuned learning rate that no longer transfers.
// Example:
//     for i, (x, y) in enumerate(loader):
//         loss = criterion(model(x), y)
//         loss.backward()
//         if (i + 1) % accum_steps == 0:
//             optimizer.step()
//             optimizer.zero_grad()
// Fix: divide before backward: `(loss / accum_steps).backward()`.
// Not flagged: losses divided by the accumulation count (or multiplied by its inverse),
//   reduction='sum' losses normalized by a token count, and accumulation done
//   by a framework (`accelerator.accumulate`).
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::accumulation_without_loss_scaling {

const std::string_view kExplain = R"(TPF004 accumulation_without_loss_scaling: gradient accumulation without dividing the loss by the number of steps (planned: not implemented yet)

What it finds
  gradient accumulation (the optimizer step guarded by `i % N`,
  `(i + 1) % N == 0` or a counter) where the loss is not divided by N (or an
  equivalent scale) before `backward()`.

Why it costs
  the accumulated gradient is N times the mean gradient, so the effective
  learning rate is N times the configured one: training diverges or needs a
  retuned learning rate that no longer transfers.

Example
  for i, (x, y) in enumerate(loader):
      loss = criterion(model(x), y)
      loss.backward()
      if (i + 1) % accum_steps == 0:
          optimizer.step()
          optimizer.zero_grad()

Fix
  divide before backward: `(loss / accum_steps).backward()`.

Not flagged
  losses divided by the accumulation count (or multiplied by its inverse),
  reduction='sum' losses normalized by a token count, and accumulation done
  by a framework (`accelerator.accumulate`).
)";

}  // namespace tpf::checks::accumulation_without_loss_scaling
