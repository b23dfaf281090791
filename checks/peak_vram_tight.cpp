// TPF024 peak_vram_tight
//
// What it finds: the projected peak VRAM of the training step is close to the
//   memory of the `--target` GPU: within 10% of it, or under it with the
//   interval's high end over it, or over it by an estimate that rests on
//   guesses putting the interval's low end under it. Runs only with
//   `--target`.
// Why it costs: a run this close goes out of memory on a longer batch, a
//   fragmented allocator or a library upgrade, often hours in.
// Example:
//     tpf-analyze --target t4 --fail-on warning train.py
// Fix: the suggestion in the help (a smaller micro-batch with accumulation,
//   checkpointing, bf16), or a GPU with more memory; pass the script's own
//   arguments after `--` so that fewer values are guessed.
// Not flagged: runs without `--target`, unknown verdicts, estimates that fit
//   with room, and those TPF013 reports.
//
// The diagnostic is memory::tight_on_target's, so the report and the rule
// say the same.
#include "checks/check.h"
#include "memory/memory.h"

namespace tpf::checks::peak_vram_tight {

const std::string_view kExplain = R"(TPF024 peak_vram_tight: projected peak VRAM is close to the --target GPU's memory, or over it only by guesses

What it finds
  the projected peak VRAM of the training step is close to the memory of
  the `--target` GPU: within 10% of it, or under it with the interval's
  high end over it, or over it by an estimate that rests on guesses
  putting the interval's low end under it. Runs only with `--target`.

Why it costs
  a run this close goes out of memory on a longer batch, a fragmented
  allocator or a library upgrade, often hours in.

Example
  tpf-analyze --target t4 --fail-on warning train.py

Fix
  the suggestion in the help (a smaller micro-batch with accumulation,
  checkpointing, bf16), or a GPU with more memory; pass the script's own
  arguments after `--` so that fewer values are guessed.

Not flagged
  runs without `--target`, unknown verdicts, estimates that fit with
  room, and those TPF013 reports.
)";

void check(const CheckContext& ctx, DiagSink& out) {
  if (!ctx.estimate) return;
  if (!ctx.estimate->model_found || ctx.estimate->params == 0) return;
  std::optional<Diagnostic> d = memory::tight_on_target(*ctx.estimate);
  if (d) out.report(std::move(*d));
}

}  // namespace tpf::checks::peak_vram_tight
