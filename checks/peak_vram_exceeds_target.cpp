// TPF013 peak_vram_exceeds_target
//
// What it finds: the projected peak VRAM of the training step (parameters, gradients,
//   optimizer state, activations) exceeds the memory of the GPU named with
//   `--target`. Runs only with `--target`; the estimate comes from the memory
//   estimator.
// Why it costs: the run dies with CUDA out of memory at the first step, after the
//   queue wait and the data loading.
// Example:
//     tpf-analyze --target t4 train.py   # a 7B model in fp32 with AdamW
// Fix: lower the batch size or sequence length, use bf16/fp16 autocast,
//   activation checkpointing, or a GPU with more memory; `--breakdown` shows
//   where the memory goes.
// Not flagged: runs without `--target`, estimates that are not known (no
//   model found), and estimates that rest on guesses (an input synthesized
//   from the first layer, a step synthesized because none of the script's
//   could be followed) unless even the low end of their interval is over the
//   target.
//
// The driver estimates before the rules run when --target is given and
// hands the estimate over in CheckContext::estimate; the diagnostic itself
// (message, notes with the components, help with the best suggestion) is
// memory::exceeds_target's, so the report and the rule say the same.
#include "checks/check.h"
#include "memory/memory.h"

namespace tpf::checks::peak_vram_exceeds_target {

const std::string_view kExplain = R"(TPF013 peak_vram_exceeds_target: projected peak VRAM exceeds the --target GPU

What it finds
  the projected peak VRAM of the training step (parameters, gradients,
  optimizer state, activations) exceeds the memory of the GPU named with
  `--target`. Runs only with `--target`; the estimate comes from the memory
  estimator.

Why it costs
  the run dies with CUDA out of memory at the first step, after the
  queue wait and the data loading.

Example
  tpf-analyze --target t4 train.py   # a 7B model in fp32 with AdamW

Fix
  lower the batch size or sequence length, use bf16/fp16 autocast,
  activation checkpointing, or a GPU with more memory; `--breakdown` shows
  where the memory goes.

Not flagged
  runs without `--target`, unknown verdicts (no model found, a component
  that cannot be estimated), and estimates that rest on guesses (an input
  synthesized from the first layer, a step synthesized because the
  interpreter could follow none of the script's) unless even the low end
  of their interval is over the target; TPF024 reports those. The message
  names the guesses an estimate rests on.
)";

void check(const CheckContext& ctx, DiagSink& out) {
  if (!ctx.estimate) return;
  // An error gates a build: an estimate that rests on guesses (an input
  // synthesized from the first layer, a synthesized step) raises it only
  // when even the low end of its interval is over the target
  // (memory::oom_for_certain); the message names the guesses. An unknown verdict raises nothing.
  // Nor does one without a model it could name and count (a subclass of a
  // built-in layer, say): its activations are not grounded in parameters.
  if (!ctx.estimate->model_found || ctx.estimate->params == 0) return;
  std::optional<Diagnostic> d = memory::exceeds_target(*ctx.estimate);
  if (d) out.report(std::move(*d));
}

}  // namespace tpf::checks::peak_vram_exceeds_target
