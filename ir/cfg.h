// CFG queries over an ir::Function: successors, predecessors, reverse
// post-order, dominators, post-dominators and natural loops. Boost.Graph
// stays behind this header (cfg.cpp): a bidirectionalS adjacency_list whose
// vertex index is the BlockId.
// requires: build_cfg (preds, RPO numbering). produces: DomTree, LoopInfo.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/ir.h"

namespace tpf::ir {

/// A block's successors: the terminator's targets, then the exception
/// handler, without duplicates. At most 3.
struct Succs {
  BlockId b[3];
  uint8_t n = 0;
  const BlockId* begin() const { return b; }
  const BlockId* end() const { return b + n; }
  size_t size() const { return n; }
};
Succs succs(const Function& f, BlockId b);

/// Predecessors, in block order (phi operands follow this order).
inline std::span<const BlockId> preds(const Function& f, BlockId b) {
  return {f.pred_list.data() + f.pred_start[b.v], f.pred_start[b.v + 1] - f.pred_start[b.v]};
}

/// Blocks in reverse post-order. After build_cfg this is 0, 1, ..., n-1.
struct BlockRange {
  uint32_t n;
  struct It {
    uint32_t i;
    BlockId operator*() const { return BlockId(i); }
    It& operator++() { ++i; return *this; }
    bool operator!=(const It& o) const { return i != o.i; }
  };
  It begin() const { return {0}; }
  It end() const { return {n}; }
};
inline BlockRange rpo(const Function& f) { return {static_cast<uint32_t>(f.blocks.size())}; }

/// A (post-)dominator tree with O(1) dominance queries.
class DomTree {
 public:
  /// Immediate dominator; kNoBlock for the root and for blocks it does not reach.
  BlockId idom(BlockId b) const { return idom_[b.v]; }
  /// `a` dominates `b` (reflexive). False when either is unreachable from the root.
  bool dominates(BlockId a, BlockId b) const {
    return pre_[a.v] != UINT32_MAX && pre_[b.v] != UINT32_MAX && pre_[a.v] <= pre_[b.v] &&
           post_[b.v] <= post_[a.v];
  }
  bool strictly_dominates(BlockId a, BlockId b) const { return a != b && dominates(a, b); }
  /// Instruction-level dominance within one function (same block: order).
  bool dominates(const Function& f, InstId a, InstId b) const;
  size_t size() const { return idom_.size(); }

 private:
  friend DomTree make_dom_tree(std::vector<BlockId> idom, BlockId root);
  std::vector<BlockId> idom_;
  std::vector<uint32_t> pre_, post_;
};

/// Dominators (Lengauer-Tarjan, Boost) rooted at the entry.
DomTree compute_dominators(const Function& f);
/// Post-dominators, rooted at a virtual exit every Return/unhandled Raise
/// reaches. Blocks that cannot reach an exit (infinite loops) have no
/// post-dominator and post-dominate nothing.
DomTree compute_post_dominators(const Function& f);

/// One natural loop: the header, every block that reaches a back edge into
/// it without passing the header, nesting.
struct Loop {
  BlockId header;
  uint32_t parent = UINT32_MAX;   // enclosing loop index
  uint32_t depth = 1;             // 1: outermost
  std::vector<BlockId> blocks;    // sorted, header included
  std::vector<BlockId> latches;   // sources of back edges
  std::vector<BlockId> exits;     // blocks outside the loop with a pred inside, sorted
};

class LoopInfo {
 public:
  std::vector<Loop> loops;  // outer loops before the loops they contain
  /// The innermost loop containing `b`, or UINT32_MAX.
  uint32_t loop_of(BlockId b) const { return innermost_[b.v]; }
  bool in_loop(BlockId b) const { return innermost_[b.v] != UINT32_MAX; }
  uint32_t depth(BlockId b) const {
    return in_loop(b) ? loops[innermost_[b.v]].depth : 0;
  }
  bool contains(uint32_t loop, BlockId b) const;
  /// The loop whose header is `b`, or UINT32_MAX.
  uint32_t loop_with_header(BlockId b) const;
  /// The outermost loop containing `b` that does not contain `def_block`:
  /// the loop a value defined in def_block and used in b outlives. UINT32_MAX if none.
  uint32_t loop_between(BlockId def_block, BlockId b) const;

 private:
  friend LoopInfo compute_loops(const Function& f, const DomTree& dom);

/// Blocks are in reverse post-order, so a CFG with no edge to the same or
/// an earlier block has no cycle and no loops: callers skip the dominator
/// tree then (most functions are straight-line or branch-only).
bool may_have_loops(const Function& f);
/// The LoopInfo of a function without loops.
LoopInfo no_loops(const Function& f);
  friend LoopInfo no_loops(const Function& f);
  std::vector<uint32_t> innermost_;
};

/// Natural loops from back edges (an edge whose target dominates its source).
LoopInfo compute_loops(const Function& f, const DomTree& dom);

/// Blocks are in reverse post-order, so a CFG with no edge to the same or
/// an earlier block has no cycle and no loops: callers skip the dominator
/// tree then (most functions are straight-line or branch-only).
bool may_have_loops(const Function& f);
/// The LoopInfo of a function without loops.
LoopInfo no_loops(const Function& f);

}  // namespace tpf::ir
