// verify: the IR invariants every pass may rely on. Run after each transform
// in debug and test builds (ir::build with check=true). Checks: block layout
// and terminators, successor counts per terminator, predecessor lists, phi
// placement and arity, operand and aux ranges (ops.def arity), SSA
// dominance (each use is dominated by its definition).
// requires: build_cfg (and to_ssa for the SSA checks). produces: an error text or "".
#include <algorithm>
#include <string>

#include "ir/cfg.h"

namespace tpf::ir {

namespace {

std::string at(const Function& f, uint32_t inst, std::string what) {
  std::string s = "inst " + std::to_string(inst);
  if (inst < f.insts.size()) {
    s += " (";
    s += op_info(f.insts[inst].op).name;
    s += ")";
  }
  return s + ": " + what;
}

std::string check_aux(const Module& m, const Function& f, const Inst& in) {
  const OpInfo& info = op_info(in.op);
  switch (info.aux) {
    case AuxKind::Var:
      if (in.aux >= f.vars.size()) return "variable out of range";
      break;
    case AuxKind::Sym:
      if (in.aux != kNoSymbol && in.aux >= m.names.symbol_count()) return "symbol out of range";
      break;
    case AuxKind::Path:
      if (in.aux >= m.names.path_count()) return "path out of range";
      break;
    case AuxKind::Const:
      if (m.ast && in.aux >= m.ast->constants.size() + m.extra_constants.size())
        return "constant out of range";
      break;
    case AuxKind::Call: {
      if (in.aux >= f.calls.size()) return "call info out of range";
      const CallInfo& c = f.calls[in.aux];
      if (Function::operand_count(in) != 1u + c.npos + c.nkw) return "call operand count does not match its info";
      if (c.kw_first + c.nkw > f.kw_names.size()) return "keyword names out of range";
      break;
    }
    case AuxKind::Func:
      if (in.aux >= m.functions.size()) return "function out of range";
      break;
    case AuxKind::Class:
      if (in.aux >= m.classes.size()) return "class out of range";
      break;
    default:
      break;
  }
  return {};
}

}  // namespace

std::string verify(const Module& m, const Function& f) {
  size_t nb = f.blocks.size();
  if (nb == 0) return "function has no blocks";
  if (f.pred_start.size() != nb + 1) return "predecessor lists missing (build_cfg not run)";
  // Layout and terminators.
  uint32_t expect_first = 0;
  for (uint32_t b = 0; b < nb; ++b) {
    const Block& bl = f.blocks[b];
    std::string where = "bb" + std::to_string(b) + ": ";
    if (bl.count == 0 || bl.first == UINT32_MAX) return where + "empty block";
    if (bl.first + bl.count > f.insts.size()) return where + "instructions out of range";
    if (f.in_ssa && bl.first != expect_first) return where + "blocks not laid out in order";
    expect_first = bl.first + bl.count;
    for (uint32_t i = bl.first; i + 1 < bl.first + bl.count; ++i)
      if (is_terminator(f.insts[i].op)) return where + at(f, i, "terminator before the block end");
    const Inst& t = f.insts[bl.first + bl.count - 1];
    if (!is_terminator(t.op)) return where + "block does not end in a terminator";
    int want = t.op == Op::Jump ? 1 : (t.op == Op::Branch || t.op == Op::ForIter) ? 2 : 0;
    int have = bl.succ[0].valid() + bl.succ[1].valid();
    if (have != want || (want == 1 && !bl.succ[0].valid()))
      return where + "successor count does not match " + std::string(op_info(t.op).name);
    for (BlockId s : {bl.succ[0], bl.succ[1], bl.exc})
      if (s.valid() && s.v >= nb) return where + "successor out of range";
    if (b != 0 && preds(f, BlockId(b)).empty()) return where + "unreachable block kept";
  }
  // Predecessors match successors: each pred list is strictly increasing
  // (no duplicates), each entry has the block among its successors, and the
  // counts agree. Linear in the edges (a join may have 10^5 predecessors).
  {
    std::vector<uint32_t> count(nb, 0);
    for (uint32_t b = 0; b < nb; ++b)
      for (BlockId s : succs(f, BlockId(b))) ++count[s.v];
    for (uint32_t b = 0; b < nb; ++b) {
      auto ps = preds(f, BlockId(b));
      if (count[b] != ps.size())
        return "bb" + std::to_string(b) + ": predecessor list does not match the edges";
      for (size_t k = 0; k < ps.size(); ++k) {
        if (k > 0 && !(ps[k - 1] < ps[k]))
          return "bb" + std::to_string(b) + ": predecessors not in block order";
        Succs ss = succs(f, ps[k]);
        if (std::find(ss.begin(), ss.end(), BlockId(b)) == ss.end())
          return "bb" + std::to_string(b) + ": bb" + std::to_string(ps[k].v) +
                 " is a predecessor without the edge";
      }
    }
  }
  // Instructions.
  for (uint32_t b = 0; b < nb; ++b) {
    const Block& bl = f.blocks[b];
    bool head = true;
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      const Inst& in = f.insts[i];
      const OpInfo& info = op_info(in.op);
      if (in.op == Op::Phi) {
        if (!head) return at(f, i, "phi after a non-phi instruction");
        if (Function::operand_count(in) != preds(f, BlockId(b)).size())
          return at(f, i, "phi arity != predecessors");
      } else if (in.op != Op::Undef) {
        head = false;
      }
      if (f.in_ssa && (in.op == Op::LoadLocal || in.op == Op::StoreLocal))
        return at(f, i, "local load/store left after to_ssa");
      if (info.arity >= 0 && Function::operand_count(in) != uint32_t(info.arity))
        return at(f, i, "wrong operand count");
      if (in.nops > 3 && size_t(in.ops[0].v) + Function::operand_count(in) > f.operand_pool.size())
        return at(f, i, "operand pool out of range");
      std::string aux = check_aux(m, f, in);
      if (!aux.empty()) return at(f, i, aux);
      bool defines = (info.effects & kDef) != 0;
      if (defines != in.result.valid()) return at(f, i, "result does not match the op");
      if (in.result.valid() &&
          (in.result.v >= f.values.size() || f.values[in.result.v].def.v != i))
        return at(f, i, "value's definition does not point back");
      for (ValueId o : f.operands(in))
        if (!o.valid() || o.v >= f.values.size()) return at(f, i, "operand out of range");
    }
  }
  if (!f.in_ssa) return {};
  // SSA dominance.
  DomTree dom = compute_dominators(f);
  for (uint32_t b = 0; b < nb; ++b) {
    const Block& bl = f.blocks[b];
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) {
      const Inst& in = f.insts[i];
      auto ops = f.operands(in);
      for (size_t k = 0; k < ops.size(); ++k) {
        InstId d = f.def_id(ops[k]);
        if (in.op == Op::Phi) {
          BlockId pred = preds(f, BlockId(b))[k];
          if (!dom.dominates(f.block_of(d), pred))
            return at(f, i, "phi operand %" + std::to_string(ops[k].v) +
                                " does not dominate its predecessor");
        } else if (!dom.dominates(f, d, InstId(i)) || d.v == i) {
          return at(f, i, "operand %" + std::to_string(ops[k].v) + " does not dominate its use");
        }
      }
    }
  }
  return {};
}

}  // namespace tpf::ir
