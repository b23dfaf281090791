// build_cfg: drops blocks the entry cannot reach (code after return/raise,
// loop exits of `while True` without break), renumbers blocks in reverse
// post-order and computes predecessor lists.
// requires: lowering done (every begun block terminated). produces: Function::pred_*.
#include <algorithm>

#include "ir/cfg.h"

namespace tpf::ir {

namespace {

struct Frame {
  Succs s;
  uint32_t b;
};

/// Scratch arrays kept per thread between calls, so that a file's hundreds
/// of functions do not each allocate them. `blocks` is swapped with the
/// function's: it then holds the old array, whose capacity the next reuses.
struct Scratch {
  std::vector<uint8_t> seen;
  std::vector<Frame> stack;
  std::vector<BlockId> order;
  std::vector<uint32_t> renumber;
  std::vector<uint32_t> fill;
  std::vector<Block> blocks;
};
thread_local Scratch scratch;

void compute_preds(Function& f) {
  size_t n = f.blocks.size();
  f.pred_start.assign(n + 1, 0);
  for (uint32_t b = 0; b < n; ++b)
    for (BlockId s : succs(f, BlockId(b))) ++f.pred_start[s.v + 1];
  for (size_t i = 0; i < n; ++i) f.pred_start[i + 1] += f.pred_start[i];
  f.pred_list.assign(f.pred_start[n], BlockId());
  std::vector<uint32_t>& fill = scratch.fill;
  fill.assign(f.pred_start.begin(), f.pred_start.end() - 1);
  for (uint32_t b = 0; b < n; ++b)
    for (BlockId s : succs(f, BlockId(b))) f.pred_list[fill[s.v]++] = BlockId(b);
}

/// The post-order of the blocks reachable from the entry, by a depth-first
/// search that follows a block's successors last to first (so the first
/// successor finishes last and comes first in RPO: a loop body before its
/// exit, `then` before `else`, as a reader expects); a block never begun
/// has none. Its own search: a Boost graph per function cost more than the
/// rest of build_cfg.
void post_order(const Function& f, std::vector<BlockId>& order) {
  std::vector<uint8_t>& seen = scratch.seen;
  std::vector<Frame>& stack = scratch.stack;
  seen.assign(f.blocks.size(), 0);
  stack.clear();
  auto enter = [&](uint32_t b) {
    seen[b] = 1;
    Frame fr{Succs{}, b};
    if (f.blocks[b].first != UINT32_MAX) fr.s = succs(f, BlockId(b));
    stack.push_back(fr);
  };
  enter(0);
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.s.n == 0) {
      order.push_back(BlockId(top.b));
      stack.pop_back();
      continue;
    }
    uint32_t next = top.s.b[--top.s.n].v;
    if (!seen[next]) enter(next);
  }
}

}  // namespace

void build_cfg(Function& f) {
  std::vector<BlockId>& order = scratch.order;
  order.clear();
  if (!f.blocks.empty()) post_order(f, order);
  std::reverse(order.begin(), order.end());
  std::vector<uint32_t>& renumber = scratch.renumber;
  renumber.assign(f.blocks.size(), UINT32_MAX);
  for (uint32_t i = 0; i < order.size(); ++i) renumber[order[i].v] = i;
  std::vector<Block>& blocks = scratch.blocks;
  blocks.clear();
  blocks.reserve(order.size());
  auto map = [&](BlockId b) { return b.valid() ? BlockId(renumber[b.v]) : b; };
  for (BlockId old : order) {
    Block bl = f.blocks[old.v];
    if (bl.first == UINT32_MAX || bl.count == 0 || !is_terminator(f.insts[bl.first + bl.count - 1].op))
      internal_error("build_cfg: a reachable block was never terminated");
    bl.succ[0] = map(bl.succ[0]);
    bl.succ[1] = map(bl.succ[1]);
    bl.exc = map(bl.exc);
    blocks.push_back(bl);
  }
  f.blocks.swap(blocks);
  compute_preds(f);
}

}  // namespace tpf::ir
