// The step's timeline (issue 19): replays the interpreter's step log
// (allocations, saves, kept values, backwards, optimizer steps) as tensor
// allocations and frees, op by op, and takes the peak as its maximum.
// requires: interp_run (Interp::step_log). produces: Timeline.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory/interp/interp.h"
#include "memory/memory.h"

namespace tpf::memory {

/// One allocation or free of the simulated step, for the allocator replay.
struct MemOp {
  uint32_t block;   ///< a block id, unique per allocation
  uint64_t bytes;   ///< 0: the free of `block`
};

/// What stays resident through the step, and the version's defaults.
struct TimelineInputs {
  /// Each resident tensor's bytes: weights, buffers, optimizer state,
  /// master weights, the batch.
  std::vector<uint64_t> resident;
  bool fused_step = false;  ///< every optimizer steps fused (a suggestion's what-if)
  std::vector<uint32_t> trainable;  ///< trainable parameter storages (their .grad)
  TorchVersion torch;
  bool cuda = true;        ///< CUDA kernels and defaults (foreach Adam from 2.0 on)
};

struct Timeline {
  uint64_t allocated_peak = 0;  ///< bytes of live tensors at the peak, resident included
  std::string peak_phase;       ///< "forward", "backward" or "step"
  std::string peak_op;
  uint32_t peak_line = 0;
  uint64_t gradients_at_peak = 0;  ///< .grad bytes alive at the peak
  uint64_t step_temp_at_peak = 0;  ///< the optimizer step's temporaries at the peak
  std::vector<TimelinePoint> points;  ///< live bytes after each event (bounded)
  std::vector<size_t> point_ops;      ///< per point: how many of `ops` precede it
  std::vector<MemOp> ops;             ///< every allocation and free, in order
  uint64_t resident = 0;              ///< the resident bytes (one block each in `ops`' prefix)
  bool simulated = false;             ///< a backward was replayed
};

/// Replays the step log of `in`. An empty log (no backward followed)
/// gives a Timeline with simulated == false.
Timeline compute_timeline(Interp& in, const TimelineInputs& inputs);

/// PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp),
/// replayed over `ops`: the peak of reserved segment bytes. `after_each`,
/// when given, receives the reserved bytes after each op.
uint64_t compute_reserved_peak(const std::vector<MemOp>& ops, std::vector<uint64_t>* after_each = nullptr);

}  // namespace tpf::memory
