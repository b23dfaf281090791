// compute_timeline: the training step as a sequence of tensor allocations
// and frees (issue 19; DNNMem's approach, and what PyTorch's memory
// snapshots show). The interpreter logs each op's output, each tensor
// autograd saves, the values the script still holds at a backward, every
// backward, zero_grad and optimizer step (Interp::step_log). This replays
// that log:
//   - forward: an op's output is allocated; a tensor no backward saves and
//     the script does not hold is a temporary, freed once the op after its
//     consumer runs (so the last output and the current one are alive);
//   - backward, in reverse: at each saved tensor the gradient flowing into
//     it is allocated and the previous one freed, then the saved tensor is
//     freed; a parameter's gradient appears at the op that saved it: with
//     torch < 2.0's zero_grad (set_to_none=False) .grad stays allocated and
//     the new gradient exists briefly beside it (accumulated in place), with
//     2.x's set_to_none=True it is allocated where it is produced; a
//     checkpointed segment is recomputed when backward reaches it;
//   - optimizer.step(): its temporaries (the for-loop: a few tensors the size
//     of the largest parameter; foreach: one of every parameter; fused: none).
// The peak is the maximum over the replay.
// requires: interp_run. produces: Timeline.
#include "memory/sim/timeline.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace tpf::memory {
namespace {

/// Points kept for --timeline: enough for every op of a large model's step.
constexpr size_t kMaxPoints = 1u << 16;

/// How many tensors the size of the largest parameter the for-loop
/// optimizer step holds at once (torch 1.13 torch/optim/*.py, `_single_tensor_*`;
/// measured in test/memory/ground_truth/peak): Adam's
/// `(exp_avg_sq.sqrt() / bias_correction2_sqrt)` makes two, Adagrad's and
/// RMSprop's `sqrt()` one, SGD's momentum buffer is updated in place; a
/// non-decoupled weight decay adds `grad.add(param)`, Nesterov
/// `grad.add(buf)`.
uint64_t for_loop_temporaries(const OptimizerInfo& o) {
  const uint64_t wd = o.weight_decay && o.kind != OptimizerKind::AdamW ? 1 : 0;
  switch (o.kind) {
    case OptimizerKind::Sgd: return wd + (o.nesterov ? 1 : 0);
    case OptimizerKind::Adagrad:
    case OptimizerKind::Adadelta: return 1 + wd;
    case OptimizerKind::RMSprop: return 1 + wd + (o.centered ? 1 : 0);
    case OptimizerKind::Adam8bit:
    case OptimizerKind::Lion: return 1;
    default: return 2 + wd;
  }
}

struct Replay {
  Interp& in;
  const TimelineInputs& inputs;
  Timeline& tl;
  uint64_t live = 0;
  uint64_t grad_bytes = 0;  // of `grads`
  uint64_t step_temp = 0;   // the optimizer step's temporaries while it runs
  uint32_t next_block = 0;
  std::string_view phase = "forward";
  std::unordered_map<uint32_t, std::pair<uint32_t, uint64_t>> alive = {};  // storage -> (block, bytes)
  std::unordered_map<uint32_t, std::pair<uint32_t, uint64_t>> grads = {};  // param storage -> .grad block

  uint64_t bytes(uint32_t s) { return static_cast<uint64_t>(std::max<int64_t>(0, in.dims.value(in.storage_bytes(s)))); }

  // An empty tensor allocates nothing (and a MemOp of 0 bytes is a free).
  uint32_t alloc(uint64_t b) {
    uint32_t id = next_block++;
    if (b) tl.ops.push_back({id, b});
    live += b;
    return id;
  }
  void release(uint32_t id, uint64_t b) {
    if (b) tl.ops.push_back({id, 0});
    live -= b;
  }
  void alloc_storage(uint32_t s) {
    if (alive.count(s)) return;
    uint64_t b = bytes(s);
    alive[s] = {alloc(b), b};
  }
  void free_storage(uint32_t s) {
    auto it = alive.find(s);
    if (it == alive.end()) return;
    release(it->second.first, it->second.second);
    alive.erase(it);
  }
  void alloc_grad(uint32_t s) {
    if (grads.count(s)) return;
    uint64_t b = bytes(s);
    grads[s] = {alloc(b), b};
    grad_bytes += b;
  }
  void free_grads() {
    for (auto& [s, blk] : grads) release(blk.first, blk.second);
    grads.clear();
    grad_bytes = 0;
  }
  void point(std::string op, uint32_t line) {
    if (live > tl.allocated_peak) {
      tl.allocated_peak = live;
      tl.peak_phase = std::string(phase);
      tl.peak_op = op;
      tl.peak_line = line;
      tl.gradients_at_peak = grad_bytes;
      tl.step_temp_at_peak = step_temp;
    }
    if (tl.points.size() < kMaxPoints) {
      tl.points.push_back({std::string(phase), std::move(op), line, live, 0});
      tl.point_ops.push_back(tl.ops.size());
    }
  }
  std::string module_name(StrId m) { return m == kNone32 ? "<top>" : std::string(in.str(m)); }
  bool counted(uint32_t s) {
    Role r = in.storages[s].role;
    return r == Role::Activation || r == Role::AutocastCopy;
  }
};

}  // namespace

Timeline compute_timeline(Interp& in, const TimelineInputs& inputs) {
  Timeline tl;
  const std::vector<StepEvent>& log = in.step_log;
  using K = StepEvent::Kind;
  // ---- which backward frees what ----
  std::vector<size_t> backwards;  // positions of Backward events
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].kind == K::Backward) backwards.push_back(i);
  if (backwards.empty()) return tl;
  // A save belongs to the first later backward of its graph; one whose
  // graph no backward runs (an evaluation forward) pins nothing. Segment
  // saves belong to the first backward after them, which recomputes them.
  std::vector<std::vector<size_t>> entries(backwards.size());  // per backward: its saves, in log order
  std::unordered_map<uint32_t, size_t> pinned_until;            // storage -> last backward that frees it
  std::unordered_map<uint32_t, size_t> allocated_at;            // storage -> its Alloc event
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].kind == K::Alloc) allocated_at.emplace(log[i].storage, i);
  // Where each backward's forward starts: its first save, or the backward
  // before it. A value the script holds that was made before (a dataset's
  // tensors, built on the host at start-up) is no part of the step.
  std::vector<size_t> forward_start(backwards.size(), SIZE_MAX);
  for (size_t i = 0; i < log.size(); ++i) {
    const StepEvent& e = log[i];
    if (e.kind != K::Save) continue;
    auto after = std::upper_bound(backwards.begin(), backwards.end(), i);
    for (; after != backwards.end(); ++after)
      if (e.segment != kNone32 || in.find_graph(e.graph) == in.find_graph(log[*after].graph)) break;
    if (after == backwards.end()) continue;
    size_t k = static_cast<size_t>(after - backwards.begin());
    entries[k].push_back(i);
    auto at = allocated_at.find(e.storage);
    forward_start[k] = std::min(forward_start[k], at != allocated_at.end() ? at->second : i);
    if (e.segment == kNone32) {
      size_t& u = pinned_until[e.storage];
      u = std::max(u, k + 1);  // 1-based, 0: not pinned
    }
  }
  // The values the script holds at backward k pin only what its own
  // forward made (a Kept event of a storage allocated since that start).
  for (size_t i = 0; i < log.size(); ++i) {
    const StepEvent& e = log[i];
    if (e.kind != K::Kept) continue;
    auto after = std::upper_bound(backwards.begin(), backwards.end(), i);
    if (after == backwards.end()) continue;
    size_t k = static_cast<size_t>(after - backwards.begin());
    size_t start = forward_start[k];
    if (k > 0) start = std::min(start, backwards[k - 1]);
    auto at = allocated_at.find(e.storage);
    if (at == allocated_at.end() || at->second < start) continue;
    size_t& u = pinned_until[e.storage];
    u = std::max(u, k + 1);
  }
  const size_t first_forward = *std::min_element(forward_start.begin(), forward_start.end());
  // ---- the steady state at the step's start ----
  Replay r{in, inputs, tl};
  const bool v2 = !(inputs.torch < TorchVersion{2, 0});
  auto set_to_none = [&](const StepEvent& e) { return e.graph == 1 || (e.graph == -1 && v2); };
  for (uint64_t b : inputs.resident) {
    r.alloc(b);
    tl.resident += b;
  }
  // .grad from the previous step exists, unless zero_grad(set_to_none)
  // runs after the optimizer step (then the step starts without it).
  bool grads_at_start = true;
  for (const StepEvent& e : log) {
    if (e.kind == K::ZeroGrad) break;
    if (e.kind == K::Step) {
      auto z = std::find_if(log.begin(), log.end(), [](const StepEvent& x) { return x.kind == K::ZeroGrad; });
      grads_at_start = z == log.end() || !set_to_none(*z);
      break;
    }
  }
  if (grads_at_start)
    for (uint32_t s : inputs.trainable) r.alloc_grad(s);
  r.point("step start", 0);
  // ---- replay ----
  const std::unordered_set<uint32_t> trainable(inputs.trainable.begin(), inputs.trainable.end());
  std::vector<uint32_t> temps;  // forward temporaries, oldest first
  uint32_t last = kNone32;
  std::unordered_set<uint32_t> recomputed;
  size_t k = 0;  // backwards replayed
  for (size_t i = 0; i < log.size(); ++i) {
    const StepEvent& e = log[i];
    switch (e.kind) {
      case K::Alloc: {
        // What the script makes before its first step's forward (a
        // synthetic dataset, built on the host) is not the step's.
        if (i < first_forward || !r.counted(e.storage) || r.alive.count(e.storage)) break;
        std::erase_if(temps, [&](uint32_t t) {
          if (t == last) return false;
          r.free_storage(t);
          return true;
        });
        r.alloc_storage(e.storage);
        if (!pinned_until.count(e.storage)) temps.push_back(e.storage);
        last = e.storage;
        r.point(r.module_name(e.module), e.line);
        break;
      }
      case K::ZeroGrad:
        if (set_to_none(e)) r.free_grads();
        break;
      case K::Backward: {
        r.phase = "backward";
        for (uint32_t t : temps)
          if (t != last) r.free_storage(t);
        std::erase_if(temps, [&](uint32_t t) { return t != last; });
        uint32_t flowing = r.alloc(4);  // the loss's gradient, a scalar
        uint64_t flowing_bytes = 4;
        // A tensor two ops save (log_softmax's output, which nll_loss
        // saves as its input) gets a gradient at each op's backward and is
        // freed after the first op in forward order that saved it.
        const std::vector<size_t>& mine = entries[k];
        std::unordered_map<uint32_t, uint32_t> saves_left;
        for (size_t j : mine) ++saves_left[log[j].storage];
        std::unordered_set<uint32_t> param_done;
        for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
          const StepEvent& s = log[*it];
          const bool last_use = --saves_left[s.storage] == 0;
          if (s.segment != kNone32 && recomputed.insert(s.segment).second) {
            // Backward reaches a checkpointed segment: its forward runs
            // again and keeps what it saves until its own backward.
            for (size_t j : mine)
              if (log[j].segment == s.segment && r.counted(log[j].storage)) r.alloc_storage(log[j].storage);
            r.point("recompute " + r.module_name(s.module), s.line);
          }
          Role role = in.storages[s.storage].role;
          if (role == Role::Param) {
            // A frozen parameter (a LoRA base weight) gets no gradient.
            if (!trainable.count(s.storage) || !param_done.insert(s.storage).second) continue;
            if (r.grads.count(s.storage)) {
              // .grad exists: the new gradient is computed, then added in place.
              uint64_t b = r.bytes(s.storage);
              uint32_t g = r.alloc(b);
              r.point("backward " + r.module_name(s.module), log[backwards[k]].line);
              r.release(g, b);
            } else {
              r.alloc_grad(s.storage);
              r.point("backward " + r.module_name(s.module), log[backwards[k]].line);
            }
            continue;
          }
          if (!r.counted(s.storage)) continue;
          // The gradient with respect to this tensor, while the one flowing
          // in is still alive; then the saved tensor is no longer needed.
          uint64_t b = r.bytes(s.storage);
          uint32_t g = r.alloc(b);
          r.point("backward " + r.module_name(s.module), log[backwards[k]].line);
          r.release(flowing, flowing_bytes);
          flowing = g, flowing_bytes = b;
          auto pin = pinned_until.find(s.storage);
          if (last_use && (pin == pinned_until.end() || pin->second <= k + 1)) r.free_storage(s.storage);
        }
        r.release(flowing, flowing_bytes);
        // Parameters no op saved (biases, embeddings) get their gradient
        // by the end of backward: those the next optimizer steps, else all.
        std::vector<uint32_t> rest = inputs.trainable;
        for (size_t j = i + 1; j < log.size() && log[j].kind != K::Backward; ++j)
          if (log[j].kind == K::Step && log[j].storage < in.cfg.optimizers.size()) {
            rest = in.cfg.optimizers[log[j].storage].storages;
            break;
          }
        for (uint32_t s : rest)
          if (!r.grads.count(s) && trainable.count(s)) r.alloc_grad(s);
        r.point("end of backward", e.line);
        // What the script held through this backward is released with it.
        for (auto& [s, until] : pinned_until)
          if (until == k + 1) r.free_storage(s);
        ++k;
        r.phase = "forward";
        tl.simulated = true;
        break;
      }
      case K::Step: {
        if (e.storage >= in.cfg.optimizers.size()) break;
        const OptimizerInfo& o = in.cfg.optimizers[e.storage];
        uint64_t largest = 0, all = 0;
        for (uint32_t s : o.storages) {
          if (!r.grads.count(s)) continue;  // torch skips a parameter without .grad
          largest = std::max(largest, r.bytes(s));
          all += r.bytes(s);
        }
        // foreach is the default on CUDA from torch 2.0 (torch/optim/optimizer.py
        // _default_to_fused_or_foreach); 1.13 and the CPU run the for-loop.
        bool foreach = !o.foreach_off && (o.foreach || (v2 && inputs.cuda));
        uint64_t temp = o.fused || inputs.fused_step || o.kind == OptimizerKind::Adam8bit ? 0
                        : foreach && o.kind != OptimizerKind::Sgd   ? all
                                                                    : largest * for_loop_temporaries(o);
        r.phase = "step";
        uint32_t b = r.alloc(temp);
        r.step_temp = temp;
        r.point(o.name.substr(o.name.rfind('.') + 1) + ".step", e.line);
        r.release(b, temp);
        r.step_temp = 0;
        r.phase = "forward";
        break;
      }
      case K::Save:
      case K::Kept: break;
    }
  }
  return tl;
}

}  // namespace tpf::memory
