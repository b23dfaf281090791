// The one dataflow solver: a worklist over blocks in reverse post-order
// (post-order for backward analyses), joining at merges and widening at loop
// headers, with a visit budget so a buggy lattice or transfer function can
// never hang the tool (Clang's TypeErasedDataflowAnalysis.cpp). Clients read
// the final states through `replay` (a post-visit callback per instruction)
// once the solver has converged; they never report from a transfer function.
//
// SSA values are immutable, so facts *about values* (autograd provenance,
// constants) need no per-block state: `solve_values` is the sparse mode of the
// same solver, sweeping instructions in RPO until no value's fact grows,
// under the same budget.
// requires: ir::build (blocks numbered in RPO, preds). produces: Solution<D>.
#pragma once

#include <algorithm>
#include <optional>
#include <queue>
#include <vector>

#include "dataflow/lattice.h"
#include "ir/cfg.h"
#include "ir/ir.h"

namespace tpf::dataflow {

enum class Direction : uint8_t { Forward, Backward };
enum class Converged : uint8_t { Yes, No };

/// Visits allowed per block, on average over the function. Each revisit of
/// a block is caused by a change at a loop header; lattices of height h
/// converge in about (loop nesting + h) sweeps, and a worklist revisits only
/// the blocks that changed, so 4 per block on average leaves room for the
/// nesting of real training loops (epoch > batch > micro-batch) while still
/// cutting off a lattice that never stabilizes.
inline constexpr uint32_t kVisitsPerBlock = 4;
/// Small functions get at least this many visits (a 3-block loop nested in
/// a 3-block loop needs more than 4 per block).
inline constexpr uint32_t kMinVisits = 64;
/// Hard cap per function: 2^16 block visits, whatever its size.
inline constexpr uint32_t kMaxVisits = 65536;
/// solve_values sweeps at least this many times (within kMaxVisits): a
/// value fact of height h in a loop nest of depth d can need about h*(d+1)
/// sweeps, since each sweep carries a change across one back edge; 16
/// covers height-3 facts in nests of depth 4 (the stdlib's deepest test
/// loops nest 6 deep and may stop early, which the caller sees as Converged::No).
inline constexpr uint32_t kMinSweeps = 16;

inline uint32_t visit_budget(const ir::Function& f) {
  uint64_t b = static_cast<uint64_t>(f.blocks.size()) * kVisitsPerBlock;
  return static_cast<uint32_t>(std::clamp<uint64_t>(b, kMinVisits, kMaxVisits));
}

/// An analysis supplies:
///   using Domain = ...;                        a Lattice
///   static constexpr Direction kDirection;
///   Domain initial(const ir::Function&);       state at the entry (forward) or at
///                                              every exit block (backward)
///   void transfer(const ir::Inst&, ir::InstId, Domain&);
/// and optionally
///   void transfer_edge(ir::BlockId from, ir::BlockId to, Domain&);
///       facts learned on an edge (a branch's condition; `from`'s exc is `to`
///       on exceptional edges).
template <class A>
concept Analysis = Lattice<typename A::Domain> &&
                   requires(A& a, const ir::Function& f, const ir::Inst& in, ir::InstId id,
                            typename A::Domain& d) {
                     { A::kDirection } -> std::convertible_to<Direction>;
                     { a.initial(f) } -> std::same_as<typename A::Domain>;
                     a.transfer(in, id, d);
                   };

template <class A>
concept HasEdgeTransfer = requires(A& a, ir::BlockId b, typename A::Domain& d) {
  a.transfer_edge(b, b, d);
};

/// Block states: `in[b]` is the state where the analysis enters b (its start
/// for forward analyses, its end for backward ones); empty if never reached.
template <class D>
struct Solution {
  std::vector<std::optional<D>> in;
  Converged converged = Converged::Yes;
  uint32_t visits = 0;
};

template <Analysis A>
Solution<typename A::Domain> solve(A& a, const ir::Function& f) {
  using D = typename A::Domain;
  constexpr bool fwd = A::kDirection == Direction::Forward;
  const uint32_t n = static_cast<uint32_t>(f.blocks.size());
  Solution<D> s;
  s.in.resize(n);
  if (n == 0) return s;
  std::vector<uint8_t> queued(n, 0);
  std::vector<uint16_t> visits(n, 0);
  // Forward: smallest RPO number first; backward: largest first.
  auto cmp = [](uint32_t x, uint32_t y) { return fwd ? x > y : x < y; };
  std::priority_queue<uint32_t, std::vector<uint32_t>, decltype(cmp)> work(cmp);
  auto push = [&](uint32_t b) {
    if (!queued[b]) {
      queued[b] = 1;
      work.push(b);
    }
  };
  if constexpr (fwd) {
    s.in[0] = a.initial(f);
    push(0);
  } else {
    for (uint32_t b = 0; b < n; ++b)
      if (ir::succs(f, ir::BlockId(b)).size() == 0) {
        s.in[b] = a.initial(f);
        push(b);
      }
  }
  const uint32_t budget = visit_budget(f);
  auto propagate = [&](uint32_t from, uint32_t to, const D& state) {
    D edge = state;
    if constexpr (HasEdgeTransfer<A>) {
      if constexpr (fwd) a.transfer_edge(ir::BlockId(from), ir::BlockId(to), edge);
      else a.transfer_edge(ir::BlockId(to), ir::BlockId(from), edge);
    }
    if (!s.in[to]) {
      s.in[to] = std::move(edge);
      push(to);
      return;
    }
    Effect e;
    bool loop_head = fwd ? to <= from : to >= from;
    if constexpr (Widenable<D>) {
      e = loop_head && visits[to] >= 2 ? s.in[to]->widen(edge) : s.in[to]->join(edge);
    } else {
      (void)loop_head;
      e = s.in[to]->join(edge);
    }
    if (e == Effect::Changed) push(to);
  };
  while (!work.empty()) {
    uint32_t b = work.top();
    work.pop();
    queued[b] = 0;
    if (++s.visits > budget) {
      s.converged = Converged::No;
      return s;
    }
    if (visits[b] < UINT16_MAX) ++visits[b];
    D state = *s.in[b];
    const ir::Block& bl = f.blocks[b];
    if constexpr (fwd) {
      for (uint32_t i = bl.first; i < bl.first + bl.count; ++i)
        a.transfer(f.insts[i], ir::InstId(i), state);
      for (ir::BlockId t : ir::succs(f, ir::BlockId(b))) propagate(b, t.v, state);
    } else {
      for (uint32_t i = bl.first + bl.count; i-- > bl.first;)
        a.transfer(f.insts[i], ir::InstId(i), state);
      for (ir::BlockId p : ir::preds(f, ir::BlockId(b))) propagate(b, p.v, state);
    }
  }
  return s;
}

/// Replays the final states: calls `visit(InstId, const Domain& before)` for
/// every instruction of every reached block, with the state just before the
/// instruction in the analysis direction. Blocks in RPO (reversed for
/// backward analyses).
template <Analysis A, class Visit>
void replay(A& a, const ir::Function& f, const Solution<typename A::Domain>& s, Visit&& visit) {
  using D = typename A::Domain;
  constexpr bool fwd = A::kDirection == Direction::Forward;
  const uint32_t n = static_cast<uint32_t>(f.blocks.size());
  for (uint32_t k = 0; k < n; ++k) {
    uint32_t b = fwd ? k : n - 1 - k;
    if (!s.in[b]) continue;
    D state = *s.in[b];
    const ir::Block& bl = f.blocks[b];
    if constexpr (fwd) {
      for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
        visit(ir::InstId(i), static_cast<const D&>(state));
        a.transfer(f.insts[i], ir::InstId(i), state);
      }
    } else {
      for (uint32_t i = bl.first + bl.count; i-- > bl.first;) {
        visit(ir::InstId(i), static_cast<const D&>(state));
        a.transfer(f.insts[i], ir::InstId(i), state);
      }
    }
  }
}

/// The state just before `at` (in the analysis direction), or empty when its
/// block was never reached. Replays only `at`'s block.
template <Analysis A>
std::optional<typename A::Domain> state_at(A& a, const ir::Function& f,
                                           const Solution<typename A::Domain>& s, ir::InstId at) {
  constexpr bool fwd = A::kDirection == Direction::Forward;
  ir::BlockId b = f.block_of(at);
  if (!s.in[b.v]) return std::nullopt;
  typename A::Domain state = *s.in[b.v];
  const ir::Block& bl = f.blocks[b.v];
  if constexpr (fwd) {
    for (uint32_t i = bl.first; i < at.v; ++i) a.transfer(f.insts[i], ir::InstId(i), state);
  } else {
    for (uint32_t i = bl.first + bl.count; i-- > at.v + 1;)
      a.transfer(f.insts[i], ir::InstId(i), state);
  }
  return state;
}

/// Sparse mode: `facts` (one per ValueId, initially bottom) only grow.
/// `transfer(inst, id, facts)` joins what it learns into the facts it
/// affects (its result; a container it stores into) and returns Changed if
/// any grew. Sweeps the function in RPO until a sweep changes nothing; each
/// sweep costs one visit per block against the same budget as `solve`.
template <Lattice Fact, class Transfer>
Converged solve_values(const ir::Function& f, std::vector<Fact>& facts, Transfer&& transfer) {
  // Without back edges (blocks are in RPO) one sweep sees every operand
  // before its use: it is the fixpoint.
  bool back_edge = false;
  for (uint32_t b = 0; b < f.blocks.size() && !back_edge; ++b)
    for (ir::BlockId s : ir::succs(f, ir::BlockId(b))) back_edge |= s.v <= b;
  auto sweep = [&] {
    bool changed = false;
    for (uint32_t i = 0; i < f.insts.size(); ++i)
      changed |= transfer(f.insts[i], ir::InstId(i), facts) == Effect::Changed;
    return changed;
  };
  if (!back_edge) {
    sweep();
    return Converged::Yes;
  }
  const uint32_t per_sweep = std::max<uint32_t>(1, static_cast<uint32_t>(f.blocks.size()));
  const uint32_t budget = std::max({visit_budget(f), 2 * per_sweep,
                                    std::min<uint32_t>(kMaxVisits, per_sweep * kMinSweeps)});
  for (uint32_t used = per_sweep;; used += per_sweep) {
    if (used > budget) return Converged::No;
    if (!sweep()) return Converged::Yes;
  }
}

}  // namespace tpf::dataflow
