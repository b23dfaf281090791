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
// Not flagged: runs without `--target`, and estimates that are not known.
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
  runs without `--target`, and estimates that are not known.
)";

void check(const CheckContext& ctx, DiagSink& out) {
  if (!ctx.estimate) return;
  std::optional<Diagnostic> d = memory::exceeds_target(*ctx.estimate);
  if (d) out.report(std::move(*d));
}

}  // namespace tpf::checks::peak_vram_exceeds_target
