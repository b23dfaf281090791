// TPF013 peak_vram_exceeds_target (planned: registered and documented, no check yet)
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
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::peak_vram_exceeds_target {

const std::string_view kExplain = R"(TPF013 peak_vram_exceeds_target: projected peak VRAM exceeds the --target GPU (planned: not implemented yet)

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

}  // namespace tpf::checks::peak_vram_exceeds_target
