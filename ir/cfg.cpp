// CFG facts with Boost.Graph: dominators and post-dominators
// (Lengauer-Tarjan), natural loops.
// requires: every reachable block terminated; preds for loops. produces: cfg.h facts.
#include "ir/cfg.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dominator_tree.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/property_map/property_map.hpp>

namespace tpf::ir {

// The edge list is a vector too (the default, a std::list, allocates per edge).
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS,
                                    boost::no_property, boost::no_property, boost::no_property,
                                    boost::vecS>;
using Vertex = boost::graph_traits<Graph>::vertex_descriptor;

Succs succs(const Function& f, BlockId b) {
  Succs s;
  const Block& bl = f.blocks[b.v];
  auto add = [&](BlockId x) {
    if (!x.valid()) return;
    for (uint8_t i = 0; i < s.n; ++i)
      if (s.b[i] == x) return;
    s.b[s.n++] = x;
  };
  add(bl.succ[0]);
  add(bl.succ[1]);
  add(bl.exc);
  return s;
}

/// The CFG as a Boost graph; `extra` more vertices past the blocks.
static Graph make_graph(const Function& f, size_t extra = 0) {
  Graph g(f.blocks.size() + extra);
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    if (f.blocks[b].first == UINT32_MAX) continue;  // never begun: unreachable
    // Added last to first: Boost's DFS follows out-edges in insertion order,
    // so the first successor finishes last and comes first in RPO (a loop
    // body before its exit, `then` before `else`), as a reader expects.
    Succs s = succs(f, BlockId(b));
    for (size_t i = s.size(); i-- > 0;) boost::add_edge(b, s.b[i].v, g);
  }
  return g;
}

DomTree make_dom_tree(std::vector<BlockId> idom, BlockId root) {
  DomTree t;
  size_t n = idom.size();
  t.idom_ = std::move(idom);
  t.pre_.assign(n, UINT32_MAX);
  t.post_.assign(n, UINT32_MAX);
  // Children lists, then an iterative DFS numbering.
  std::vector<uint32_t> first(n, UINT32_MAX), next(n, UINT32_MAX);
  for (size_t b = n; b-- > 0;) {
    BlockId p = t.idom_[b];
    if (p.valid() && p.v < n) {
      next[b] = first[p.v];
      first[p.v] = static_cast<uint32_t>(b);
    }
  }
  if (!root.valid() || root.v >= n) return t;
  uint32_t counter = 0, post_counter = 0;
  std::vector<std::pair<uint32_t, uint32_t>> stack;  // node, next child
  stack.emplace_back(root.v, first[root.v]);
  t.pre_[root.v] = counter++;
  while (!stack.empty()) {
    auto& [node, child] = stack.back();
    if (child == UINT32_MAX) {
      t.post_[node] = post_counter++;
      stack.pop_back();
      continue;
    }
    uint32_t c = child;
    child = next[c];
    t.pre_[c] = counter++;
    stack.emplace_back(c, first[c]);
  }
  return t;
}

template <class G>
static std::vector<BlockId> lengauer_tarjan(const G& g, size_t n, uint32_t root) {
  std::vector<Vertex> dom(boost::num_vertices(g), boost::graph_traits<Graph>::null_vertex());
  auto index = boost::get(boost::vertex_index, g);
  auto dom_map = boost::make_iterator_property_map(dom.begin(), index);
  boost::lengauer_tarjan_dominator_tree(g, root, dom_map);
  std::vector<BlockId> idom(n);
  for (size_t b = 0; b < n; ++b)
    if (dom[b] != boost::graph_traits<Graph>::null_vertex() && dom[b] < n)
      idom[b] = BlockId(static_cast<uint32_t>(dom[b]));
  return idom;
}

DomTree compute_dominators(const Function& f) {
  size_t n = f.blocks.size();
  if (n == 0) return make_dom_tree({}, kNoBlock);
  Graph g = make_graph(f);
  return make_dom_tree(lengauer_tarjan(g, n, 0), BlockId(0));
}

DomTree compute_post_dominators(const Function& f) {
  size_t n = f.blocks.size();
  Graph g = make_graph(f, 1);
  uint32_t exit = static_cast<uint32_t>(n);
  for (uint32_t b = 0; b < n; ++b) {
    if (f.blocks[b].first == UINT32_MAX || f.blocks[b].count == 0) continue;
    Op t = f.terminator(BlockId(b)).op;
    if (t == Op::Return || (t == Op::Raise && !f.blocks[b].exc.valid())) boost::add_edge(b, exit, g);
  }
  auto rg = boost::make_reverse_graph(g);
  std::vector<BlockId> idom = lengauer_tarjan(rg, n + 1, exit);
  // Blocks whose post-dominator is the virtual exit have none among the blocks.
  idom.resize(n + 1);
  DomTree t = make_dom_tree(idom, BlockId(exit));
  return t;
}

bool DomTree::dominates(const Function& f, InstId a, InstId b) const {
  BlockId ba = f.block_of(a), bb = f.block_of(b);
  if (ba == bb) return a.v <= b.v;
  return dominates(ba, bb);
}

// -------------------------------------------------------------- loops ----

bool LoopInfo::contains(uint32_t loop, BlockId b) const {
  if (loop >= loops.size()) return false;
  const auto& bs = loops[loop].blocks;
  return std::binary_search(bs.begin(), bs.end(), b);
}

uint32_t LoopInfo::loop_with_header(BlockId b) const {
  for (uint32_t i = 0; i < loops.size(); ++i)
    if (loops[i].header == b) return i;
  return UINT32_MAX;
}

uint32_t LoopInfo::loop_between(BlockId def_block, BlockId b) const {
  uint32_t found = UINT32_MAX;
  for (uint32_t l = loop_of(b); l != UINT32_MAX; l = loops[l].parent)
    if (!contains(l, def_block)) found = l;
  return found;
}

bool may_have_loops(const Function& f) {
  for (uint32_t b = 0; b < f.blocks.size(); ++b)
    for (BlockId s : succs(f, BlockId(b)))
      if (s.v <= b) return true;
  return false;
}

LoopInfo no_loops(const Function& f) {
  LoopInfo info;
  info.innermost_.assign(f.blocks.size(), UINT32_MAX);
  return info;
}

LoopInfo compute_loops(const Function& f, const DomTree& dom) {
  LoopInfo info;
  size_t n = f.blocks.size();
  info.innermost_.assign(n, UINT32_MAX);
  // Collect back edges per header (headers in block order: RPO, so outer
  // headers come before inner ones).
  std::vector<std::vector<BlockId>> latches(n);
  for (uint32_t b = 0; b < n; ++b)
    for (BlockId s : succs(f, BlockId(b)))
      if (dom.dominates(s, BlockId(b))) latches[s.v].push_back(BlockId(b));
  std::vector<uint8_t> mark(n, 0);
  std::vector<BlockId> work;
  for (uint32_t h = 0; h < n; ++h) {
    if (latches[h].empty()) continue;
    Loop loop;
    loop.header = BlockId(h);
    loop.latches = latches[h];
    std::fill(mark.begin(), mark.end(), 0);
    mark[h] = 1;
    loop.blocks.push_back(BlockId(h));
    work.clear();
    for (BlockId l : latches[h])
      if (!mark[l.v]) {
        mark[l.v] = 1;
        loop.blocks.push_back(l);
        work.push_back(l);
      }
    while (!work.empty()) {
      BlockId x = work.back();
      work.pop_back();
      for (BlockId p : preds(f, x))
        if (!mark[p.v]) {
          mark[p.v] = 1;
          loop.blocks.push_back(p);
          work.push_back(p);
        }
    }
    std::sort(loop.blocks.begin(), loop.blocks.end());
    for (BlockId x : loop.blocks)
      for (BlockId s : succs(f, x))
        if (!mark[s.v]) loop.exits.push_back(s);
    std::sort(loop.exits.begin(), loop.exits.end());
    loop.exits.erase(std::unique(loop.exits.begin(), loop.exits.end()), loop.exits.end());
    info.loops.push_back(std::move(loop));
  }
  // Nesting: a loop's parent is the innermost other loop containing its
  // header. Loops come in header (RPO) order, so containing loops precede.
  for (uint32_t i = 0; i < info.loops.size(); ++i) {
    for (uint32_t j = i; j-- > 0;)
      if (info.contains(j, info.loops[i].header)) {
        info.loops[i].parent = j;
        info.loops[i].depth = info.loops[j].depth + 1;
        break;
      }
  }
  // Innermost loop per block: the deepest containing loop.
  for (uint32_t i = 0; i < info.loops.size(); ++i)
    for (BlockId b : info.loops[i].blocks) {
      uint32_t cur = info.innermost_[b.v];
      if (cur == UINT32_MAX || info.loops[cur].depth < info.loops[i].depth) info.innermost_[b.v] = i;
    }
  return info;
}

}  // namespace tpf::ir
