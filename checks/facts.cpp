// The rule-facing queries of checks/facts.h over the IR, the resolution and
// the dataflow facts.
// requires: CheckContext. produces: queries only.
#include "checks/facts.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

#include "dataflow/project_facts.h"
#include "ir/project.h"

namespace tpf::checks {

using ir::FunctionId;
using ir::InstId;
using ir::Op;
using ir::ValueId;

// ----------------------------------------------------------- call index ----

std::shared_ptr<const CallIndex> build_call_index(const CheckContext& ctx) {
  const dataflow::FileFacts& ff = ctx.facts;
  auto index = std::make_shared<CallIndex>();
  CallIndex& x = *index;
  size_t n = ctx.ir.functions.size();
  x.fns.resize(n);
  x.first.resize(n + 1);
  size_t total = 0;
  for (uint32_t fi = 0; fi < n; ++fi) {
    x.first[fi] = static_cast<uint32_t>(total);
    total += ctx.ir.functions[fi].insts.size();
  }
  x.first[n] = static_cast<uint32_t>(total);
  x.targets.resize(total);
  // The slots of calls with a target name, holding its PathId until the
  // distinct names are sorted, then 1 + its index among them.
  std::vector<uint32_t> named;
  for (uint32_t fi = 0; fi < n; ++fi) {
    FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    FunctionCalls& fc = x.fns[fi];
    const std::vector<dataflow::TorchCall>& kinds = ff.kinds[fi];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (f.insts[i].op != Op::Call) continue;  // no row (classify_all)
      fc.rows.set(static_cast<size_t>(kinds[i]));
      // call_may / call_must: the row's effects plus the callee's may / must.
      fc.row_effects |= dataflow::info(kinds[i]).effects;
      ir::CallTarget t = ff.res.call_target(fid, InstId(i));
      if (kinds[i] == dataflow::TorchCall::None) {
        if (t.kind == ir::CallTarget::Kind::InstanceCall && t.cls.valid() &&
            ff.res.is_module_class(t.cls))
          fc.module_instance_call = true;
        if (t.kind == ir::CallTarget::Kind::Unknown || t.kind == ir::CallTarget::Kind::ResultCall)
          fc.unresolved_call = true;
      }
      if ((t.kind == ir::CallTarget::Kind::External ||
           t.kind == ir::CallTarget::Kind::ResultCall) &&
          t.name.valid()) {
        named.push_back(x.first[fi] + i);
        x.targets[named.back()] = t.name.v;
        x.names.push_back(t.name);
      }
    }
    fc.effects = fc.row_effects;
    // kSync is also a call's own when it is no row's: a tensor read
    // (`float(t)`, Summaries::tensor_reads) or a method of another module's
    // class that reads; the function's summary has them.
    fc.effects |= ff.summaries.fn[fi].may & dataflow::kSync;
    for (const dataflow::CallEdge& e : ff.summaries.calls[fi])
      fc.effects |= ff.summaries.fn[e.callee.v].may | ff.summaries.fn[e.callee.v].must;
    x.file.effects |= fc.effects;
    x.file.row_effects |= fc.row_effects;
    x.file.module_instance_call |= fc.module_instance_call;
    x.file.unresolved_call |= fc.unresolved_call;
    x.file.rows |= fc.rows;
  }
  std::sort(x.names.begin(), x.names.end());
  x.names.erase(std::unique(x.names.begin(), x.names.end()), x.names.end());
  x.texts.reserve(x.names.size());
  for (ir::PathId p : x.names) x.texts.push_back(ctx.ir.names.str(p));
  for (uint32_t slot : named)
    x.targets[slot] = 1 + static_cast<uint32_t>(std::lower_bound(x.names.begin(), x.names.end(),
                                                                 ir::PathId(x.targets[slot])) -
                                                x.names.begin());
  return index;
}

GraphStates graph_states(const CheckContext& ctx, FunctionId f) {
  // GradState is one byte: memchr looks for Graph and Unknown (the states
  // other than NoGraph and Bottom of its four, lattices/grad_state.h) a
  // word at a time.
  static_assert(sizeof(dataflow::GradState) == 1);
  const std::vector<dataflow::GradState>& states = ctx.facts.grad().of(f).value;
  auto holds = [&](dataflow::GradState g) {
    return !states.empty() && std::memchr(states.data(), static_cast<int>(g), states.size()) != nullptr;
  };
  GraphStates out;
  out.any_graph = holds(dataflow::GradState::Graph);
  out.any_carrier = out.any_graph || holds(dataflow::GradState::Unknown);
  return out;
}

bool file_calls_any(const CheckContext& ctx, const std::function<bool(std::string_view)>& pred) {
  for (std::string_view t : call_index(ctx).texts)
    if (pred(t)) return true;
  return false;
}

bool may_backward(const FunctionCalls& fc) {
  return fc.has(dataflow::TorchCall::Backward) || fc.has(dataflow::TorchCall::AutogradBackward) ||
         fc.may(dataflow::kBackward);
}

bool may_step(const FunctionCalls& fc) {
  return fc.has(dataflow::TorchCall::OptimizerStep) || fc.has(dataflow::TorchCall::ScalerStep) ||
         fc.has(dataflow::TorchCall::ScalerStepAmp) || fc.may(dataflow::kOptimizerStep);
}

// ---------------------------------------------------------------- calls ----

dataflow::TorchCall torch_call(const CheckContext& ctx, FunctionId f, InstId i) {
  return ctx.facts.kinds[f.v][i.v];
}

uint32_t call_effects(const CheckContext& ctx, FunctionId f, InstId i) {
  if (ctx.ir.fn(f).inst(i).op != Op::Call) return 0;
  return ctx.facts.summaries.call_may(f, i, ctx.facts.kinds);
}

uint32_t call_effects_must(const CheckContext& ctx, FunctionId f, InstId i) {
  if (ctx.ir.fn(f).inst(i).op != Op::Call) return 0;
  return ctx.facts.summaries.call_must(f, i, ctx.facts.kinds);
}

bool calls_file_function(const CheckContext& ctx, FunctionId f, InstId i) {
  return ctx.facts.summaries.reaches_project_function(f, i);
}

ValueId call_receiver(const ir::Function& f, const ir::Inst& call) {
  if (call.op != Op::Call || call.nops == 0) return ir::kNoValue;
  const ir::Inst& cd = f.def(f.operands(call)[0]);
  if (cd.op != Op::GetAttr) return ir::kNoValue;
  return f.operands(cd)[0];
}

std::string_view call_method(const CheckContext& ctx, const ir::Function& f,
                             const ir::Inst& call) {
  if (call.op != Op::Call || call.nops == 0) return {};
  const ir::Inst& cd = f.def(f.operands(call)[0]);
  if (cd.op != Op::GetAttr) return {};
  return ctx.ir.names.str(cd.aux);
}

std::string_view call_target_name(const CheckContext& ctx, FunctionId f, InstId i) {
  const CallIndex& x = call_index(ctx);
  uint32_t t = x.targets[x.first[f.v] + i.v];
  return t == 0 ? std::string_view() : x.texts[t - 1];
}

uint32_t positional_count(const ir::Function& f, const ir::Inst& call) {
  return call.op == Op::Call ? f.call_info(call).npos : 0;
}

ValueId call_arg(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call, int pos,
                 std::string_view kw) {
  return dataflow::call_arg(ctx.ir, f, call, pos, kw);
}

bool sum_reduction(const CheckContext& ctx, FunctionId fid, InstId call) {
  auto sums = [&](FunctionId g, const ir::Inst& c) {
    const ir::Function& gf = ctx.ir.fn(g);
    const ir::ConstValue& r = ctx.facts.res.constant(g, call_arg(ctx, gf, c, -1, "reduction"));
    if (r.kind == ir::ConstValue::Kind::Str && r.s == "sum") return true;
    const ir::ConstValue& avg = ctx.facts.res.constant(g, call_arg(ctx, gf, c, -1, "size_average"));
    return avg.kind == ir::ConstValue::Kind::Bool && avg.i == 0;
  };
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(call);
  if (in.op != Op::Call || in.nops == 0) return false;
  if (sums(fid, in)) return true;
  Origin ctor;
  if (!module_constructor(ctx, fid, f.operands(in)[0], ctor)) return false;
  const ir::Function& cf = ctx.ir.fn(ctor.fn);
  return cf.def(ctor.value).op == Op::Call && sums(ctor.fn, cf.def(ctor.value));
}

bool host_device(const CheckContext& ctx, FunctionId fid, ValueId dev) {
  if (!dev.valid()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  auto cpu = [&](ValueId v) {
    const ir::ConstValue& c = ctx.facts.res.constant(fid, v);
    return v.valid() && c.kind == ir::ConstValue::Kind::Str && (c.s == "cpu" || c.s.starts_with("cpu:"));
  };
  if (cpu(dev)) return true;
  const ir::Inst& d = f.def(dev);
  if (d.op != Op::Call || call_target_name(ctx, fid, f.def_id(dev)) != "torch.device") return false;
  return cpu(call_arg(ctx, f, d, 0, "type"));
}

// ------------------------------------------------------- source text ----

std::string_view source_text(const CheckContext& ctx, Span s) {
  std::string_view t = ctx.src.text;
  if (s.begin > t.size() || s.end > t.size() || s.end < s.begin) return {};
  return t.substr(s.begin, s.end - s.begin);
}

namespace {

/// One line, at most `limit` bytes (cut at a UTF-8 boundary, "..." added).
std::string one_line(std::string_view s, size_t limit = 48) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > limit) {
    size_t cut = limit;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out.resize(cut);
    out += "...";
  }
  return out;
}

}  // namespace

std::string call_text(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call) {
  if (call.op != Op::Call || call.nops == 0) return one_line(source_text(ctx, call.span));
  const ir::Inst& cd = f.def(f.operands(call)[0]);
  std::string_view callee = source_text(ctx, cd.span);
  if (callee.empty()) return one_line(source_text(ctx, call.span));
  return one_line(callee) + "()";
}

std::string value_text(const CheckContext& ctx, const ir::Function& f, ValueId v) {
  if (!v.valid()) return {};
  // A phi has no expression of its own (its span is where the branches
  // join): name the variable it merges. A parameter: its name only.
  if (f.def(v).op == Op::Param)  // not its annotation or default
    return std::string(ctx.ir.names.str(f.params[f.def(v).aux].name));
  if (f.def(v).op == Op::Phi) {
    ir::VarId var = f.values[v.v].var;
    if (var.valid() && f.vars[var.v].name != ir::kNoSymbol)
      return std::string(ctx.ir.names.str(f.vars[var.v].name));
  }
  return one_line(source_text(ctx, f.def(v).span));
}

// ------------------------------------------------------------ objects ----

std::string access_key(const CheckContext& ctx, FunctionId fid, ValueId v) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Names& names = ctx.ir.names;
  for (int depth = 0; v.valid() && depth < 16; ++depth) {
    const ir::Inst& d = f.def(v);
    switch (d.op) {
      case Op::GetAttr: {
        std::string base = access_key(ctx, fid, f.operands(d)[0]);
        if (base.empty()) return {};
        return base + "." + std::string(names.str(d.aux));
      }
      case Op::LoadGlobal:
      case Op::LoadFree:
        return std::string(names.str(d.aux));
      case Op::Param:
        return std::string(names.str(f.params[d.aux].name));
      default:
        break;
    }
    ir::VarId var = f.values[v.v].var;
    if (var.valid() && f.vars[var.v].name != ir::kNoSymbol &&
        f.vars[var.v].kind == ir::VarKind::Local)
      return std::string(names.str(f.vars[var.v].name));
    // `model = Net().to(device)`: the receiver of a method returning self.
    if (d.op == Op::Call) {
      std::string_view m = call_method(ctx, f, d);
      if (m == "to" || m == "cuda" || m == "cpu" || m == "train" || m == "eval" || m == "half" ||
          m == "float") {
        v = call_receiver(f, d);
        continue;
      }
    }
    return {};
  }
  return {};
}

bool same_object(std::string_view a, std::string_view b) {
  if (a.empty() || b.empty()) return false;
  if (a == b) return true;
  auto contains = [](std::string_view outer, std::string_view inner) {
    return inner.size() > outer.size() && inner.starts_with(outer) && inner[outer.size()] == '.';
  };
  return contains(a, b) || contains(b, a);
}

// ------------------------------------------------------------- paths ----

namespace {
std::vector<InstId> reachable_where(const ir::Function& f, InstId from,
                                    const std::function<PathStep(InstId, const ir::Inst&)>& visit,
                                    const ir::LoopInfo* li, uint32_t loop,
                                    const std::function<bool(ir::BlockId, ir::BlockId)>* edge = nullptr) {
  std::vector<InstId> found;
  std::vector<uint8_t> seen(f.blocks.size(), 0);
  std::vector<ir::BlockId> work;
  auto scan = [&](ir::BlockId b, uint32_t start) {
    const ir::Block& bl = f.block(b);
    for (uint32_t i = start; i < bl.first + bl.count; ++i) {
      PathStep s = visit(InstId(i), f.insts[i]);
      if (s == PathStep::Kill) return;
      if (s == PathStep::Target) found.push_back(InstId(i));
    }
    for (ir::BlockId s : bl.succ)
      if (s.valid() && !seen[s.v] && (!li || li->contains(loop, s)) && (!edge || (*edge)(b, s))) {
        seen[s.v] = 1;
        work.push_back(s);
      }
  };
  ir::BlockId start = f.block_of(from);
  scan(start, from.v + 1);
  while (!work.empty()) {
    ir::BlockId b = work.back();
    work.pop_back();
    scan(b, f.block(b).first);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}
}  // namespace

std::vector<InstId> reachable(const ir::Function& f, InstId from,
                              const std::function<PathStep(InstId, const ir::Inst&)>& visit) {
  return reachable_where(f, from, visit, nullptr, 0);
}

FlagTest flag_test(const CheckContext& ctx, FunctionId fid, ir::BlockId b) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& t = f.terminator(b);
  FlagTest out;
  if (t.op != Op::Branch) return out;
  ValueId c = f.operands(t)[0];
  bool set_true = true;  // the value is set on the true successor
  for (int depth = 0; depth < 4 && c.valid(); ++depth) {
    const ir::Inst& d = f.def(c);
    if (d.op == Op::UnaryOp && static_cast<ast::Op>(d.aux) == ast::Op::Not) {
      c = f.operands(d)[0];
      set_true = !set_true;
      continue;
    }
    if (d.op == Op::Compare) {
      auto op = static_cast<ast::Op>(d.aux);
      auto ops = f.operands(d);
      if ((op != ast::Op::Is && op != ast::Op::IsNot) || ops.size() != 2 ||
          ctx.facts.res.constant(fid, ops[1]).kind != ir::ConstValue::Kind::None)
        return out;
      c = ops[0];
      if (op == ast::Op::Is) set_true = !set_true;
    }
    break;
  }
  const ir::Inst& d = f.def(c);
  if (d.op != Op::GetAttr && d.op != Op::Param && d.op != Op::LoadGlobal) return out;
  out.key = access_key(ctx, fid, c);
  out.set_arm = set_true ? 0 : 1;
  return out;
}

std::vector<FlagGuard> flag_guards(const CheckContext& ctx, FunctionId fid, InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::DomTree& dom = ctx.facts.dom(ctx.ir, fid);
  std::vector<FlagGuard> out;
  ir::BlockId ib = f.block_of(i);
  for (ir::BlockId d = dom.idom(ib); d.valid(); d = dom.idom(d)) {
    FlagTest t = flag_test(ctx, fid, d);
    if (t.key.empty()) continue;
    const ir::Block& db = f.block(d);
    for (int k = 0; k < 2; ++k)
      if (db.succ[k].valid() && dom.dominates(db.succ[k], ib) && ir::preds(f, db.succ[k]).size() == 1)
        out.push_back({t.key, k == t.set_arm});
  }
  return out;
}

bool guards_rule_out(const CheckContext& ctx, FunctionId fid, const std::vector<FlagGuard>& guards,
                     ir::BlockId from, ir::BlockId to) {
  if (guards.empty()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Block& pb = f.block(from);
  if (pb.succ[0] == pb.succ[1]) return false;
  FlagTest t = flag_test(ctx, fid, from);
  if (t.key.empty()) return false;
  for (int k = 0; k < 2; ++k) {
    if (pb.succ[k] != to) continue;
    bool arm_set = k == t.set_arm;
    for (const FlagGuard& g : guards)
      if (g.key == t.key && g.when_set != arm_set) return true;
  }
  return false;
}

std::vector<InstId> reachable_under(const CheckContext& ctx, FunctionId fid, InstId from,
                                    const std::function<PathStep(InstId, const ir::Inst&)>& visit) {
  std::vector<FlagGuard> guards = flag_guards(ctx, fid, from);
  if (guards.empty()) return reachable(ctx.ir.fn(fid), from, visit);
  std::function<bool(ir::BlockId, ir::BlockId)> edge = [&](ir::BlockId a, ir::BlockId b) {
    return !guards_rule_out(ctx, fid, guards, a, b);
  };
  return reachable_where(ctx.ir.fn(fid), from, visit, nullptr, 0, &edge);
}

std::vector<InstId> reachable_in_loop(const CheckContext& ctx, FunctionId fid, uint32_t loop,
                                      InstId from,
                                      const std::function<PathStep(InstId, const ir::Inst&)>& visit) {
  return reachable_where(ctx.ir.fn(fid), from, visit, &loops_of(ctx, fid), loop);
}

const ir::LoopInfo& loops_of(const CheckContext& ctx, FunctionId f) {
  return ctx.facts.loops(ctx.ir, f);
}

uint32_t common_loop(const CheckContext& ctx, FunctionId fid, InstId a, InstId b) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::LoopInfo& li = loops_of(ctx, fid);
  ir::BlockId bb = f.block_of(b);
  for (uint32_t l = li.loop_of(f.block_of(a)); l != UINT32_MAX; l = li.loops[l].parent)
    if (li.contains(l, bb)) return l;
  return UINT32_MAX;
}

namespace {
/// Phases, modes and splits are a handful of names written out; 8 leaves
/// room for train/val/test and a few extra modes while a longer literal
/// (a sweep over values, a table of cases) is left to what the loop does.
constexpr size_t kFewConstants = 8;
}  // namespace

bool over_constants(const CheckContext& ctx, FunctionId fid, uint32_t loop) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::LoopInfo& li = loops_of(ctx, fid);
  if (loop >= li.loops.size()) return false;
  const ir::Inst& t = f.terminator(li.loops[loop].header);
  if (t.op != Op::ForIter) return false;
  const ir::Inst& it = f.def(f.operands(t)[0]);
  if (it.op != Op::GetIter || it.aux != 0) return false;
  const ir::Inst& src = f.def(f.operands(it)[0]);
  if (src.op != Op::BuildList && src.op != Op::BuildTuple && src.op != Op::BuildSet) return false;
  auto elems = f.operands(src);
  if (elems.empty() || elems.size() > kFewConstants) return false;
  for (ValueId e : elems)
    if (f.def(e).op != Op::Const) return false;
  return true;
}

uint32_t enclosing_data_loop(const CheckContext& ctx, FunctionId fid, uint32_t loop) {
  const ir::LoopInfo& li = loops_of(ctx, fid);
  uint32_t p = loop < li.loops.size() ? li.loops[loop].parent : UINT32_MAX;
  while (p != UINT32_MAX && over_constants(ctx, fid, p)) p = li.loops[p].parent;
  return p;
}

std::vector<InstId> loop_insts(const CheckContext& ctx, FunctionId fid, uint32_t loop) {
  const ir::Function& f = ctx.ir.fn(fid);
  std::vector<InstId> out;
  for (ir::BlockId b : loops_of(ctx, fid).loops[loop].blocks) {
    const ir::Block& bl = f.block(b);
    for (uint32_t i = bl.first; i < bl.first + bl.count; ++i) out.push_back(InstId(i));
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

bool loop_invariant_at(const CheckContext& ctx, FunctionId fid, uint32_t loop, ValueId v, int depth) {
  // Why 6: a flag or a counter's test is a few reads and operators deep.
  if (!v.valid() || depth > 6) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  if (!loops_of(ctx, fid).contains(loop, f.block_of(f.def_id(v)))) return true;
  const ir::Inst& d = f.def(v);
  switch (d.op) {
    case Op::Const:
      return true;
    case Op::GetAttr:
    case Op::Compare:
    case Op::BinOp:
    case Op::UnaryOp:
      for (ValueId o : f.operands(d))
        if (!loop_invariant_at(ctx, fid, loop, o, depth + 1)) return false;
      return true;
    default:
      return false;
  }
}

}  // namespace

bool loop_invariant(const CheckContext& ctx, FunctionId fid, uint32_t loop, ValueId v) {
  return loop_invariant_at(ctx, fid, loop, v, 0);
}

// ----------------------------------------------------------- origins ----

namespace {

// Why these limits: a model's forward calls blocks that call layers; 12
// nested calls covers real models, 64 leaves covers a forward with many
// returns. Past them the answer is "not known" (complete = false).
constexpr int kMaxCallDepth = 12;
constexpr size_t kMaxLeaves = 64;
constexpr size_t kMaxVisits = 4096;

/// Methods and functions whose result holds the same values as their
/// receiver or first argument (views, copies, casts, device moves).
bool keeps_values(std::string_view m) {
  static constexpr std::string_view kKeep[] = {
      "view", "reshape", "squeeze", "unsqueeze", "flatten", "permute", "transpose", "contiguous",
      "float", "double", "half", "bfloat16", "to", "cuda", "cpu", "clone", "view_as",
      "reshape_as", "expand", "expand_as", "t", "type_as", "squeeze_", "unsqueeze_"};
  return std::find(std::begin(kKeep), std::end(kKeep), m) != std::end(kKeep);
}

bool keeps_values_fn(std::string_view name) {
  static constexpr std::string_view kKeep[] = {
      "torch.flatten", "torch.squeeze", "torch.unsqueeze", "torch.reshape",
      "torch.permute", "torch.transpose"};
  return std::find(std::begin(kKeep), std::end(kKeep), name) != std::end(kKeep);
}

struct Tracer {
  const CheckContext& ctx;
  Origins out;
  std::set<std::tuple<uint32_t, uint32_t, std::vector<uint32_t>>> seen;
  size_t visits = 0;

  void leaf(FunctionId f, ValueId v) {
    if (out.leaves.size() >= kMaxLeaves) {
      out.complete = false;
      return;
    }
    for (const Origin& o : out.leaves)
      if (o.fn == f && o.value == v) return;
    out.leaves.push_back({f, v});
  }

  /// `idx`: tuple indices still to apply, innermost last (`f()[0][1]`).
  void trace(FunctionId fid, ValueId v, std::vector<uint32_t>& idx, int depth) {
    if (!v.valid()) {
      out.complete = false;
      return;
    }
    if (++visits > kMaxVisits || depth > kMaxCallDepth) {
      out.complete = false;
      return;
    }
    if (!seen.insert({fid.v, v.v, idx}).second) return;
    const ir::Function& f = ctx.ir.fn(fid);
    const ir::Inst& d = f.def(v);
    auto ops = f.operands(d);
    switch (d.op) {
      case Op::Phi:
        for (ValueId o : ops) {
          if (f.def(o).op == Op::Undef) continue;
          trace(fid, o, idx, depth);
        }
        return;
      case Op::GetItem: {
        const ir::ConstValue& k = ctx.facts.res.constant(fid, ops[1]);
        if (k.kind == ir::ConstValue::Kind::Int && k.i >= 0) {
          idx.push_back(static_cast<uint32_t>(k.i));
          trace(fid, ops[0], idx, depth);
          idx.pop_back();
        } else if (k.kind == ir::ConstValue::Kind::Str) {
          leaf(fid, v);  // outputs["logits"]: a dict we do not model
        } else {
          trace(fid, ops[0], idx, depth);  // slicing / masking keeps the values
        }
        return;
      }
      case Op::Element: {
        if (d.flags & ir::kStarElem) break;
        const ir::Inst& u = f.def(ops[0]);
        if (u.op != Op::Unpack) break;
        idx.push_back(d.aux);
        trace(fid, f.operands(u)[0], idx, depth);
        idx.pop_back();
        return;
      }
      case Op::BuildTuple:
      case Op::BuildList:
        if (idx.empty()) break;
        {
          uint32_t i = idx.back();
          if (i >= ops.size()) break;
          idx.pop_back();
          trace(fid, ops[i], idx, depth);
          idx.push_back(i);
        }
        return;
      case Op::WithEnter:
        break;
      case Op::Call: {
        ir::InstId ci = f.def_id(v);
        std::string_view m = call_method(ctx, f, d);
        ir::CallTarget t = ctx.facts.res.call_target(fid, ci);
        if (t.kind == ir::CallTarget::Kind::Method && keeps_values(m)) {
          trace(fid, call_receiver(f, d), idx, depth);
          return;
        }
        if (t.kind == ir::CallTarget::Kind::External && keeps_values_fn(call_target_name(ctx, fid, ci))) {
          trace(fid, call_arg(ctx, f, d, 0, "input"), idx, depth);
          return;
        }
        if ((t.kind == ir::CallTarget::Kind::Function ||
             t.kind == ir::CallTarget::Kind::InstanceCall) &&
            t.fn.valid()) {
          trace_returns(t.fn, idx, depth + 1);
          return;
        }
        if (t.kind != ir::CallTarget::Kind::Method || m == "module" || m == "forward") {
          // A model behind a phi or a wrapper: `model = DDP(model)` on some
          // path, `torch.compile(model)`, `model.module`; `model.forward(x)`
          // spelled out.
          std::vector<FunctionId> fwd;
          bool all = true;
          collect_forwards(fid, m == "forward" ? call_receiver(f, d) : f.operands(d)[0], fwd, all, 0);
          if (!fwd.empty()) {
            for (FunctionId g : fwd) trace_returns(g, idx, depth + 1);
            if (!all) leaf(fid, v);
            return;
          }
        }
        break;
      }
      default:
        break;
    }
    leaf(fid, v);
  }

  /// The forward methods of the local modules a callee value may denote,
  /// through phis, wrappers (DDP, DataParallel, FSDP, torch.compile) and
  /// `.module`; `all` is cleared when some path denotes something else.
  void collect_forwards(FunctionId fid, ValueId callee, std::vector<FunctionId>& out, bool& all,
                        int depth) {
    if (!callee.valid() || depth > kMaxCallDepth) {
      all = false;
      return;
    }
    const ir::Function& f = ctx.ir.fn(fid);
    const ir::Referent& r = ctx.facts.res.ref(fid, callee);
    if (r.kind == ir::Referent::Kind::Instance) {
      ir::Symbol fwd = ctx.ir.names.find("forward");
      ir::Symbol call = ctx.ir.names.find("__call__");
      FunctionId g;
      if (call != ir::kNoSymbol) g = ctx.facts.res.find_method(r.cls(), call);
      if (!g.valid() && fwd != ir::kNoSymbol && ctx.facts.res.is_module_class(r.cls()))
        g = ctx.facts.res.find_method(r.cls(), fwd);
      if (!g.valid()) {
        all = false;
        return;
      }
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
      return;
    }
    const ir::Inst& d = f.def(callee);
    if (d.op == Op::Phi) {
      for (ValueId o : f.operands(d))
        if (f.def(o).op != Op::Undef && o != callee) collect_forwards(fid, o, out, all, depth + 1);
      return;
    }
    if (d.op == Op::GetAttr && ctx.ir.names.str(d.aux) == "module") {
      collect_forwards(fid, f.operands(d)[0], out, all, depth + 1);
      return;
    }
    if (d.op == Op::Call) {
      ir::InstId ci = f.def_id(callee);
      std::string_view name = call_target_name(ctx, fid, ci);
      if (is_wrapper(name)) {
        collect_forwards(fid, call_arg(ctx, f, d, 0, "module"), out, all, depth + 1);
        return;
      }
      std::string_view m = call_method(ctx, f, d);
      if (m == "to" || m == "cuda" || m == "half" || m == "float" || m == "bfloat16") {
        collect_forwards(fid, call_receiver(f, d), out, all, depth + 1);
        return;
      }
    }
    // A model handed in as a parameter or kept in a field: the objects it
    // may be (dataflow/objects.h), each an instance of a module class of
    // the file.
    const dataflow::Objects& objs = ctx.facts.objects();
    auto os = objs.of(fid, callee);
    if (os.empty()) {
      all = false;
      return;
    }
    ir::Symbol fwd = ctx.ir.names.find("forward");
    for (uint32_t o : os) {
      const dataflow::AbstractObject& a = objs.obj(o);
      FunctionId g;
      if (a.cls.valid() && a.fn.valid() && fwd != ir::kNoSymbol && ctx.facts.res.is_module_class(a.cls))
        g = ctx.facts.res.find_method(a.cls, fwd);
      if (!g.valid()) {
        all = false;
        continue;
      }
      if (std::find(out.begin(), out.end(), g) == out.end()) out.push_back(g);
    }
  }

  static bool is_wrapper(std::string_view name) {
    static constexpr std::string_view kWrappers[] = {
        "torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel",
        "torch.nn.parallel.DataParallel", "torch.compile",
        "torch.distributed.fsdp.FullyShardedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel"};
    return std::find(std::begin(kWrappers), std::end(kWrappers), name) != std::end(kWrappers);
  }

  void trace_returns(FunctionId callee, std::vector<uint32_t>& idx, int depth) {
    const ir::Function& g = ctx.ir.fn(callee);
    if (g.is_generator) {
      out.complete = false;
      return;
    }
    bool any = false;
    for (const ir::Inst& in : g.insts) {
      if (in.op != Op::Return) continue;
      any = true;
      if (in.nops == 0) {
        out.complete = false;  // returns None on some path
        continue;
      }
      trace(callee, g.operands(in)[0], idx, depth);
    }
    if (!any) out.complete = false;
  }
};

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

Producer by_name(std::string_view n) {
  if (is_one_of(n, {"torch.nn.functional.softmax", "torch.softmax", "torch.special.softmax",
                    "torch.nn.Softmax", "torch.nn.modules.activation.Softmax", "torch.nn.Softmax2d"}))
    return Producer::Softmax;
  if (is_one_of(n, {"torch.nn.functional.log_softmax", "torch.log_softmax",
                    "torch.special.log_softmax", "torch.nn.LogSoftmax",
                    "torch.nn.modules.activation.LogSoftmax"}))
    return Producer::LogSoftmax;
  if (is_one_of(n, {"torch.sigmoid", "torch.nn.functional.sigmoid", "torch.special.expit",
                    "torch.nn.Sigmoid", "torch.nn.modules.activation.Sigmoid"}))
    return Producer::Sigmoid;
  if (is_one_of(n, {"torch.nn.functional.linear", "torch.matmul", "torch.mm", "torch.bmm",
                    "torch.addmm", "torch.nn.Linear", "torch.nn.LazyLinear", "torch.nn.Bilinear",
                    "torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d",
                    "torch.nn.modules.linear.Linear"}))
    return Producer::Affine;
  return Producer::Unknown;
}

/// The call that built the module a callee value denotes: a local
/// `m = nn.Sequential(...)`, a module global, `self.m = ...` assigned once
/// in the class, or what a helper of the file returns
/// (`m = build_model()`). Returns false when not known.
bool module_constructor(const CheckContext& ctx, FunctionId fid, ValueId callee, FunctionId& cf,
                        InstId& ci, int depth = 0) {
  if (depth > kMaxCallDepth || !callee.valid()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(callee);
  if (d.op == Op::Call) {
    ir::CallTarget t = ctx.facts.res.call_target(fid, f.def_id(callee));
    if (t.kind == ir::CallTarget::Kind::Function && t.fn.valid()) {
      // A builder function: what its only value-returning `return` returns.
      const ir::Function& g = ctx.ir.fn(t.fn);
      ValueId ret;
      for (const ir::Inst& in : g.insts) {
        if (in.op != Op::Return || in.nops == 0) continue;
        if (ret.valid()) return false;
        ret = g.operands(in)[0];
      }
      return module_constructor(ctx, t.fn, ret, cf, ci, depth + 1);
    }
    // `nn.Sequential(...).to(device)`: the module the method returns is its receiver.
    std::string_view m = call_method(ctx, f, d);
    if (m == "to" || m == "cuda" || m == "cpu" || m == "half" || m == "float" || m == "double" ||
        m == "bfloat16" || m == "train" || m == "eval" || m == "requires_grad_")
      return module_constructor(ctx, fid, call_receiver(f, d), cf, ci, depth + 1);
    cf = fid;
    ci = f.def_id(callee);
    return true;
  }
  if (d.op == Op::LoadGlobal) {
    ValueId g = ctx.ir.global_binding(d.aux);
    if (!g.valid()) return false;
    return module_constructor(ctx, FunctionId(0), g, cf, ci, depth + 1);
  }
  if (d.op == Op::GetAttr) {
    const ir::Referent& base = ctx.facts.res.ref(fid, f.operands(d)[0]);
    if (base.kind != ir::Referent::Kind::Instance) return false;
    const ir::SelfAttr* only = nullptr;
    for (const ir::SelfAttr& a : ctx.facts.res.self_attrs(base.cls())) {
      if (a.attr != d.aux) continue;
      if (only) return false;  // assigned more than once: not known which
      only = &a;
    }
    if (!only) return false;
    return module_constructor(ctx, only->fn, only->value, cf, ci, depth + 1);
  }
  // A module handed in as a parameter (or otherwise not bound here): the
  // one object it denotes, when it was built at a call of the file.
  const dataflow::AbstractObject* a = ctx.facts.objects().single(fid, callee);
  if (a && a->fn.valid() && a->site.valid() && ctx.ir.fn(a->fn).inst(a->site).op == Op::Call) {
    cf = a->fn;
    ci = a->site;
    return true;
  }
  return false;
}

}  // namespace

bool module_constructor(const CheckContext& ctx, FunctionId f, ValueId callee, Origin& ctor) {
  FunctionId cf;
  InstId ci;
  if (!module_constructor(ctx, f, callee, cf, ci)) return false;
  ctor = {cf, ctx.ir.fn(cf).inst(ci).result};
  return ctor.value.valid();
}

Origins trace_origins(const CheckContext& ctx, FunctionId f, ValueId v) {
  Tracer t{ctx, {}, {}, 0};
  std::vector<uint32_t> idx;
  t.trace(f, v, idx, 0);
  return std::move(t.out);
}

namespace {

/// What calling an nn.Sequential the value denotes produces: its last
/// module, given to the constructor (`nn.Sequential(..., last)`) or added
/// last (`seq.add_module("softmax", nn.Softmax())`). `site` is set to that
/// module's construction. Unknown for anything else.
Producer module_output(const CheckContext& ctx, FunctionId fn, ValueId module, Span* site) {
  FunctionId cf;
  InstId cc;
  if (!module_constructor(ctx, fn, module, cf, cc)) return Producer::Unknown;
  if (call_target_name(ctx, cf, cc) != "torch.nn.Sequential") return Producer::Unknown;
  const ir::Function& g = ctx.ir.fn(cf);
  const ir::Inst& ctor = g.inst(cc);
  const ir::CallInfo& info = g.call_info(ctor);
  if (info.star_mask) return Producer::Unknown;
  ValueId last = info.npos ? g.operands(ctor)[info.npos] : ir::kNoValue;
  // Modules added after construction come after the constructor's, on the
  // Sequential itself or on the attribute it was stored in (`self.fc`).
  std::string key;
  for (const ir::Inst& in : g.insts)
    if (in.op == Op::SetAttr && g.operands(in)[1] == ctor.result) {
      std::string base = access_key(ctx, cf, g.operands(in)[0]);
      if (!base.empty()) key = base + "." + std::string(ctx.ir.names.str(in.aux));
    }
  for (uint32_t i = cc.v + 1; i < g.insts.size(); ++i) {
    const ir::Inst& in = g.insts[i];
    if (in.op != Op::Call || call_method(ctx, g, in) != "add_module" || positional_count(g, in) != 2)
      continue;
    ValueId r = call_receiver(g, in);
    if (r != ctor.result && (key.empty() || access_key(ctx, cf, r) != key)) continue;
    last = g.operands(in)[2];
  }
  if (!last.valid()) return Producer::Unknown;
  const ir::Inst& ld = g.def(last);
  if (ld.op != Op::Call) return Producer::Unknown;
  Producer p = by_name(call_target_name(ctx, cf, g.def_id(last)));
  if (site && p != Producer::Unknown) *site = ld.span;
  return p;
}

}  // namespace

namespace {
/// producer_kind within the file (no other module's forward).
Producer local_producer_kind(const CheckContext& ctx, const Origin& o, Span* site);
}  // namespace

const dataflow::ForeignFunction* foreign_forward(const CheckContext& ctx, FunctionId f, ValueId callee) {
  if (!callee.valid() || ctx.facts.summaries.foreign_ctors.empty()) return nullptr;
  const dataflow::ForeignFunction* out = nullptr;
  for (uint32_t o : ctx.facts.objects().of(f, callee)) {
    const dataflow::AbstractObject& a = ctx.facts.objects().obj(o);
    // `DDP(model)`, `torch.compile(model)`: calling it runs the wrapped model.
    if (a.kind == dataflow::ObjKind::Module && a.fn.valid() && a.site.valid() &&
        Tracer::is_wrapper(call_target_name(ctx, a.fn, a.site)))
      continue;
    if (a.kind != dataflow::ObjKind::Module || !a.fn.valid() || !a.site.valid()) return nullptr;
    const dataflow::ForeignFunction* ff = ctx.facts.summaries.foreign_forward(a.fn, a.site);
    if (!ff || (out && (out->module != ff->module || out->fn != ff->fn))) return nullptr;
    out = ff;
  }
  return out;
}

CheckContext foreign_context(const dataflow::ForeignFunction& ff) {
  return CheckContext{*ff.module->src, *ff.module->ast, *ff.module->ir, *ff.facts};
}

Producer foreign_model_output(const CheckContext& ctx, const Origin& o, std::string* where) {
  const ir::Function& f = ctx.ir.fn(o.fn);
  const ir::Inst& d = f.def(o.value);
  if (d.op != Op::Call || d.nops == 0) return Producer::Unknown;
  ValueId callee = call_method(ctx, f, d) == "forward" ? call_receiver(f, d) : f.operands(d)[0];
  const dataflow::ForeignFunction* ff = foreign_forward(ctx, o.fn, callee);
  if (!ff || !ff->module->src || !ff->module->ast) return Producer::Unknown;
  CheckContext fctx = foreign_context(*ff);
  const ir::Function& g = fctx.ir.fn(ff->fn);
  if (g.is_generator) return Producer::Unknown;
  Producer p = Producer::Unknown;
  bool any = false;
  for (const ir::Inst& r : g.insts) {
    if (r.op != Op::Return || r.nops == 0) continue;
    Origins os = trace_origins(fctx, ff->fn, g.operands(r)[0]);
    if (!os.complete || os.leaves.empty()) return Producer::Unknown;
    for (const Origin& l : os.leaves) {
      Span site;
      Producer q = producer_kind(fctx, l, &site);
      if (q == Producer::Unknown || (any && q != p)) return Producer::Unknown;
      p = q;
      any = true;
      if (where)
        *where = "`" + ff->name + "` (" + ff->file.substr(ff->file.rfind('/') + 1) + ":" +
                 std::to_string(fctx.src.pos(site.begin).line) + ")";
    }
  }
  return p;
}

Producer producer_kind(const CheckContext& ctx, const Origin& o, Span* site) {
  Producer p = local_producer_kind(ctx, o, site);
  if (p != Producer::Unknown) return p;
  return foreign_model_output(ctx, o);
}

namespace {

Producer local_producer_kind(const CheckContext& ctx, const Origin& o, Span* site) {
  const ir::Function& f = ctx.ir.fn(o.fn);
  const ir::Inst& d = f.def(o.value);
  if (site) *site = d.span;
  if (d.op == Op::BinOp && static_cast<ast::Op>(d.aux) == ast::Op::MatMult) return Producer::Affine;
  if (d.op != Op::Call) return Producer::Unknown;
  InstId ci = f.def_id(o.value);
  ir::CallTarget t = ctx.facts.res.call_target(o.fn, ci);
  // exp(log_softmax(x)) is softmax(x), written out.
  auto exp_of_log_softmax = [&](ValueId arg) {
    if (!arg.valid()) return false;
    Origins os = trace_origins(ctx, o.fn, arg);
    if (!os.complete || os.leaves.empty()) return false;
    for (const Origin& l : os.leaves)
      if (producer_kind(ctx, l) != Producer::LogSoftmax) return false;
    return true;
  };
  switch (t.kind) {
    case ir::CallTarget::Kind::External: {
      std::string_view name = call_target_name(ctx, o.fn, ci);
      if (name == "torch.exp" && exp_of_log_softmax(call_arg(ctx, f, d, 0, "input")))
        return Producer::Softmax;
      return by_name(name);
    }
    case ir::CallTarget::Kind::Method: {
      std::string_view m = call_method(ctx, f, d);
      if (m == "exp" && positional_count(f, d) == 0 && exp_of_log_softmax(call_receiver(f, d)))
        return Producer::Softmax;
      if (m == "softmax") return Producer::Softmax;
      if (m == "log_softmax") return Producer::LogSoftmax;
      if (m == "sigmoid") return Producer::Sigmoid;
      // `model.forward(x)` spelled out: what calling the model produces.
      if (m == "forward") return module_output(ctx, o.fn, call_receiver(f, d), site);
      return Producer::Unknown;
    }
    case ir::CallTarget::Kind::ResultCall: {
      std::string_view name = call_target_name(ctx, o.fn, ci);
      if (name != "torch.nn.Sequential") return by_name(name);
      return module_output(ctx, o.fn, f.operands(d)[0], site);
    }
    default:
      return Producer::Unknown;
  }
}

}  // namespace

// -------------------------------------------------------------- losses ----

namespace {

/// The qualified name a loss call targets, or, for `criterion(out, y)`
/// with the criterion handed in or built by a helper, the class every
/// object it may be was built as (dataflow/objects.h); "" when unknown.
std::string_view loss_target(const CheckContext& ctx, FunctionId f, InstId call) {
  std::string_view n = call_target_name(ctx, f, call);
  if (!n.empty()) return n;
  const ir::Function& fn = ctx.ir.fn(f);
  const ir::Inst& in = fn.inst(call);
  if (in.op != Op::Call || in.nops == 0) return {};
  const dataflow::Objects& objs = ctx.facts.objects();
  ValueId callee = fn.operands(in)[0];
  // `criterion.forward(out, y)` spelled out: the criterion's.
  if (call_method(ctx, fn, in) == "forward") callee = call_receiver(fn, in);
  // `self.loss_fn(...)`: every value a method stores in the attribute is a
  // criterion, or the loss is not known (`self.loss_fn = CrossEntropyLoss()`
  // in one branch, `= label_smoothed_nll_loss` in the other: the objects
  // fact holds the criterion only, a function is no object).
  if (const ir::Inst& cd = fn.def(callee); cd.op == Op::GetAttr && fn.owner.valid()) {
    const ir::Inst& rd = fn.def(fn.operands(cd)[0]);
    if (rd.op == Op::Param && rd.aux == 0)
      for (const ir::SelfAttr& sa : ctx.facts.res.self_attrs(fn.owner))
        if (sa.attr == static_cast<ir::Symbol>(cd.aux) && !objs.may_be(sa.fn, sa.value, dataflow::ObjKind::Criterion))
          return {};
  }
  for (uint32_t o : objs.of(f, callee)) {
    const dataflow::AbstractObject& a = objs.obj(o);
    if (a.kind != dataflow::ObjKind::Criterion || !a.fn.valid()) return {};
    std::string_view built = call_target_name(ctx, a.fn, a.site);
    if (!n.empty() && built != n) return {};
    n = built;
  }
  return n;
}

}  // namespace

LossKind loss_kind(const CheckContext& ctx, FunctionId f, InstId call) {
  std::string_view n = call_target_name(ctx, f, call);
  if (n.empty()) return named_loss_kind(loss_target(ctx, f, call));
  if (LossKind k = named_loss_kind(n); k != LossKind::None) return k;
  dataflow::TorchCall k = torch_call(ctx, f, call);
  if (k != dataflow::TorchCall::None && (dataflow::info(k).effects & dataflow::kLoss))
    return LossKind::Other;
  return LossKind::None;
}

LossKind named_loss_kind(std::string_view n) {
  // Every name below is under torch. and ends in one of these parts: most
  // names a file calls fail this cheaper test.
  std::string_view last = n.substr(n.rfind('.') + 1);
  if (!n.starts_with("torch.") ||
      !is_one_of(
          last, {"cross_entropy", "CrossEntropyLoss", "nll_loss", "NLLLoss", "binary_cross_entropy",
                 "BCELoss", "binary_cross_entropy_with_logits", "BCEWithLogitsLoss"}))
    return LossKind::None;
  if (is_one_of(n, {"torch.nn.functional.cross_entropy", "torch.nn.CrossEntropyLoss",
                    "torch.nn.modules.loss.CrossEntropyLoss"}))
    return LossKind::CrossEntropy;
  if (is_one_of(n, {"torch.nn.functional.nll_loss", "torch.nn.NLLLoss",
                    "torch.nn.modules.loss.NLLLoss"}))
    return LossKind::Nll;
  if (is_one_of(n, {"torch.nn.functional.binary_cross_entropy", "torch.nn.BCELoss",
                    "torch.nn.modules.loss.BCELoss", "torch.binary_cross_entropy"}))
    return LossKind::Bce;
  if (is_one_of(n, {"torch.nn.functional.binary_cross_entropy_with_logits",
                    "torch.nn.BCEWithLogitsLoss", "torch.nn.modules.loss.BCEWithLogitsLoss",
                    "torch.binary_cross_entropy_with_logits"}))
    return LossKind::BceWithLogits;
  return LossKind::None;
}

ValueId loss_input(const CheckContext& ctx, FunctionId f, InstId call) {
  const ir::Function& fn = ctx.ir.fn(f);
  return call_arg(ctx, fn, fn.inst(call), 0, "input");
}

std::string loss_name(const CheckContext& ctx, FunctionId f, InstId call) {
  std::string_view n = loss_target(ctx, f, call);
  size_t dot = n.rfind('.');
  return std::string(dot == std::string::npos ? n : n.substr(dot + 1));
}


// ---------------------------------------------------- training scripts ----

bool is_dataloader(const CheckContext& ctx, FunctionId f, InstId i) {
  return is_dataloader_name(call_target_name(ctx, f, i));
}

bool is_dataloader_name(std::string_view n) {
  return n == "torch.utils.data.DataLoader" || n == "torch.utils.data.dataloader.DataLoader";
}

bool has_unpacked_args(const ir::Function& f, const ir::Inst& call) {
  if (call.op != Op::Call) return false;
  const ir::CallInfo& c = f.call_info(call);
  if (c.star_mask) return true;
  for (uint32_t k = 0; k < c.nkw; ++k)
    if (f.kw_names[c.kw_first + k] == ir::kNoSymbol) return true;
  return false;
}

bool trained_on(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId lv) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::LoopInfo& li = loops_of(ctx, fid);
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& it = f.insts[i];
    if (it.op == ir::Op::Call && calls_file_function(ctx, fid, ir::InstId(i))) {
      auto ops = f.operands(it);
      if (std::find(ops.begin() + 1, ops.end(), lv) != ops.end() &&
          (call_effects(ctx, fid, ir::InstId(i)) & (dataflow::kBackward | dataflow::kOptimizerStep)))
        return true;
      continue;
    }
    if (it.op != ir::Op::GetIter || !it.result.valid()) continue;
    ir::ValueId src = f.operands(it)[0];
    bool ours = src == lv;
    if (!ours && f.def(src).op == ir::Op::Call) {
      auto ops = f.operands(f.def(src));
      ours = std::find(ops.begin() + 1, ops.end(), lv) != ops.end();
    }
    if (!ours) continue;
    for (uint32_t j = 0; j < f.insts.size(); ++j) {
      const ir::Inst& fi = f.insts[j];
      if (fi.op != ir::Op::ForIter || f.operands(fi)[0] != it.result) continue;
      uint32_t l = li.loop_with_header(f.block_of(ir::InstId(j)));
      if (l == UINT32_MAX) continue;
      for (ir::InstId k : loop_insts(ctx, fid, l))
        if (call_effects(ctx, fid, k) & (dataflow::kBackward | dataflow::kOptimizerStep)) return true;
    }
  }
  return false;
}

bool trains_in_loop(const CheckContext& ctx) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    FunctionId fid(fi);
    // Only a call whose own row backwards or steps counts, and row_effects
    // is the union of those rows' effects.
    if (!(function_calls(ctx, fid).row_effects & (dataflow::kBackward | dataflow::kOptimizerStep)))
      continue;
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      dataflow::TorchCall k = torch_call(ctx, fid, InstId(i));
      if (k == dataflow::TorchCall::None) continue;
      if (!(dataflow::info(k).effects & (dataflow::kBackward | dataflow::kOptimizerStep))) continue;
      if (dataflow::in_loop(ctx.facts, ctx.ir, fid, InstId(i))) return true;
    }
  }
  return false;
}

bool uses_cuda(const CheckContext& ctx) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op != Op::Call) continue;
      dataflow::TorchCall k = torch_call(ctx, fid, InstId(i));
      if (k == dataflow::TorchCall::Cuda || k == dataflow::TorchCall::CudaIsAvailable) return true;
      auto ops = f.operands(in);
      for (size_t a = 1; a < ops.size(); ++a) {
        const ir::ConstValue& c = ctx.facts.res.constant(fid, ops[a]);
        if (c.kind == ir::ConstValue::Kind::Str && c.s.starts_with("cuda")) return true;
      }
    }
  }
  return false;
}

uint32_t outermost_loop(const CheckContext& ctx, FunctionId fid, InstId i) {
  const ir::LoopInfo& li = loops_of(ctx, fid);
  uint32_t l = li.loop_of(ctx.ir.fn(fid).block_of(i));
  while (l != UINT32_MAX && li.loops[l].parent != UINT32_MAX) l = li.loops[l].parent;
  return l;
}

// ------------------------------------------------- programs and names ----

namespace {

/// `__name__ == "__main__"` (either order, `!=` too) at module level: the
/// test of a program. Other uses of `__name__` (`logging.getLogger(__name__)`,
/// the first line of most library modules) say nothing.
bool tests_main(const CheckContext& ctx, ir::Symbol dunder) {
  if (dunder == ir::kNoSymbol) return false;
  const ir::Function& f = ctx.ir.fn(FunctionId(0));
  for (const ir::Inst& in : f.insts) {
    if (in.op != Op::Compare) continue;
    auto ops = f.operands(in);
    bool name = false, main = false;
    for (ValueId o : ops) {
      const ir::Inst& d = f.def(o);
      name = name || (d.op == Op::LoadGlobal && d.aux == dunder);
      const ir::ConstValue& c = ctx.facts.res.constant(FunctionId(0), o);
      main = main || (c.kind == ir::ConstValue::Kind::Str && c.s == "__main__");
    }
    if (name && main) return true;
  }
  return false;
}

}  // namespace

bool is_program(const CheckContext& ctx) {
  if (tests_main(ctx, ctx.ir.names.find("__name__"))) return true;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op != Op::Call) continue;
      if (call_method(ctx, f, in) == "parse_args") return true;
      dataflow::TorchCall k = torch_call(ctx, fid, InstId(i));
      if (fi == 0 && k != dataflow::TorchCall::None &&
          (dataflow::info(k).effects & dataflow::kBackward) &&
          dataflow::in_loop(ctx.facts, ctx.ir, fid, InstId(i)))
        return true;
      // Module code that calls a training function of the file (`train()`
      // as the last line of a script): importing it would train.
      if (fi == 0 && calls_file_function(ctx, fid, InstId(i)) &&
          (call_effects(ctx, fid, InstId(i)) & dataflow::kBackward))
        return true;
    }
  }
  return false;
}

bool test_suite_file(const CheckContext& ctx) {
  std::string_view path = ctx.src.path;
  bool test = false;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('/', b);
    if (e == std::string_view::npos) e = path.size();
    std::string_view part = path.substr(b, e - b);
    if (e < path.size()) {
      test |= part == "tests" || part == "test" || part == "testing";
    } else {
      test |= part.starts_with("test_") || part.ends_with("_test.py") || part.ends_with("_tests.py") ||
              part == "conftest.py";
    }
    b = e + 1;
  }
  return test && !is_program(ctx);
}

namespace {

/// Libraries built on torch: importing one uses torch.
constexpr std::string_view kTorchBased[] = {"lightning", "pytorch_lightning", "transformers", "accelerate",
                                            "deepspeed", "timm", "peft"};

/// The module imports torch or a library built on it, or star-imports
/// anything (which may bring torch: `from utils import *`).
bool imports_torch(const ir::Module& m) {
  for (const ir::Function& f : m.functions)
    for (const ir::Inst& in : f.insts) {
      if (in.op == Op::ImportStar) return true;
      if (in.op != Op::Import) continue;
      std::string p = m.names.str(ir::PathId(in.aux));  // built from the path: keep it
      std::string_view top = std::string_view(p).substr(0, p.find('.'));
      if (top.starts_with("torch") ||
          std::find(std::begin(kTorchBased), std::end(kTorchBased), top) != std::end(kTorchBased))
        return true;
    }
  return false;
}

}  // namespace

bool uses_torch(const CheckContext& ctx) {
  if (imports_torch(ctx.ir)) return true;
  for (const dataflow::ForeignFunction& ff : ctx.facts.summaries.foreign_fns)
    if (!ff.module || !ff.module->ir || imports_torch(*ff.module->ir)) return true;
  return false;
}

bool other_framework(const CheckContext& ctx) {
  static constexpr std::string_view kOther[] = {"mxnet", "jax", "jaxlib", "flax", "optax", "tensorflow", "keras"};
  const auto& kTorch = kTorchBased;
  bool other = false;
  for (const ir::Function& f : ctx.ir.functions)
    for (const ir::Inst& in : f.insts) {
      if (in.op != Op::Import && in.op != Op::ImportStar) continue;
      std::string p = ctx.ir.names.str(ir::PathId(in.aux));  // built from the path: keep it
      std::string_view top = std::string_view(p).substr(0, p.find('.'));
      if (top.starts_with("torch") || std::find(std::begin(kTorch), std::end(kTorch), top) != std::end(kTorch))
        return false;
      other |= std::find(std::begin(kOther), std::end(kOther), top) != std::end(kOther);
    }
  return other;
}

std::vector<InstId> calls_taking(const ir::Function& f, ValueId v) {
  std::vector<InstId> out;
  if (!v.valid()) return out;
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& in = f.insts[i];
    if (in.op != Op::Call) continue;
    auto ops = f.operands(in);
    if (std::find(ops.begin() + 1, ops.end(), v) != ops.end()) out.push_back(InstId(i));
  }
  return out;
}

bool escapes_by_store(const ir::Function& f, ValueId v) {
  if (!v.valid()) return false;
  for (const ir::Inst& in : f.insts) {
    auto ops = f.operands(in);
    switch (in.op) {
      case Op::SetAttr:  // obj.attr = v
        if (ops.size() > 1 && ops[1] == v) return true;
        break;
      case Op::SetItem:  // obj[key] = v
        if (ops.size() > 2 && ops[2] == v) return true;
        break;
      case Op::BuildTuple:
      case Op::BuildList:
      case Op::BuildSet:
      case Op::BuildDict:
      case Op::ListAppend:
      case Op::ListExtend:
      case Op::SetAdd:
      case Op::MapAdd:
      case Op::DictUpdate:
      case Op::Return:
      case Op::Yield:
      case Op::YieldFrom:
      case Op::StoreGlobal:
      case Op::StoreFree:
      case Op::MakeFunction:
        if (std::find(ops.begin(), ops.end(), v) != ops.end()) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

bool name_has_word(std::string_view name, std::initializer_list<std::string_view> words) {
  std::string word;
  auto flush = [&]() {
    bool hit = std::find(words.begin(), words.end(), word) != words.end();
    word.clear();
    return hit;
  };
  char prev = 0;
  for (char c : name) {
    bool upper = c >= 'A' && c <= 'Z';
    bool lower = c >= 'a' && c <= 'z';
    if (!upper && !lower) {
      if (flush()) return true;
    } else {
      if (upper && prev >= 'a' && prev <= 'z' && flush()) return true;
      word += upper ? static_cast<char>(c - 'A' + 'a') : c;
    }
    prev = c;
  }
  return flush();
}

bool key_names(const CheckContext& ctx, FunctionId f, ValueId v, std::initializer_list<std::string_view> words) {
  std::string key = access_key(ctx, f, v);
  return name_has_word(std::string_view(key).substr(key.rfind('.') + 1), words);
}

std::string_view value_var_name(const CheckContext& ctx, const ir::Function& f, ValueId v) {
  if (!v.valid()) return {};
  ir::VarId var = f.values[v.v].var;
  if (!var.valid() || f.vars[var.v].name == ir::kNoSymbol) return {};
  return ctx.ir.names.str(f.vars[var.v].name);
}

// ------------------------------------------------------ tensors, uses ----

bool touches_grad(const CheckContext& ctx, const ir::Function& f, ValueId v) {
  for (int depth = 0; v.valid() && depth < 8; ++depth) {
    const ir::Inst& d = f.def(v);
    if (d.op != Op::GetAttr) return false;
    if (ctx.ir.names.str(d.aux) == "grad") return true;
    v = f.operands(d)[0];
  }
  return false;
}

namespace {

/// Torch functions that always return a tensor.
bool tensor_factory(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "torch.tensor", "torch.as_tensor", "torch.from_numpy", "torch.randn", "torch.rand",
      "torch.randint", "torch.randperm", "torch.zeros", "torch.ones", "torch.empty",
      "torch.full", "torch.arange", "torch.linspace", "torch.logspace", "torch.eye",
      "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
      "torch.randn_like", "torch.rand_like", "torch.randint_like", "torch.stack", "torch.cat",
      "torch.concat", "torch.FloatTensor", "torch.LongTensor", "torch.Tensor",
      "torch.normal", "torch.bernoulli", "torch.multinomial", "torch.matmul",
      "torch.nn.functional.one_hot", "torch.nn.functional.pad", "torch.nn.functional.interpolate"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

/// The DataLoader construction whose batch `v` is a part of: the item of a
/// loop over it (through enumerate / tqdm), its tuple elements and
/// subscripts, and with `through_loops`, the items of loops over those
/// (`for label in target`). Null when v is no such part.
std::optional<std::pair<FunctionId, InstId>> batch_loader(const CheckContext& ctx, FunctionId fid, ValueId v,
                                                          bool through_loops) {
  const ir::Function& f = ctx.ir.fn(fid);
  // Why 8: a batch is unpacked (enumerate, then the tuple) and iterated
  // once or twice; deeper is no batch.
  constexpr int kMaxSteps = 8;
  for (int depth = 0; v.valid() && depth < kMaxSteps; ++depth) {
    PartOf p = whole_of(ctx, f, v, {}, kMaxSteps - depth);
    if (p.starred) return std::nullopt;
    depth += p.steps;
    v = p.whole;
    if (depth >= kMaxSteps) return std::nullopt;
    // `batch = next(data_iter)` with `data_iter = iter(DataLoader(...))`:
    // the loader's next batch, as a loop item is.
    if (f.def(v).op == Op::Call && call_target_name(ctx, fid, f.def_id(v)) == "builtins.next" &&
        positional_count(f, f.def(v)) >= 1) {
      ValueId it = call_arg(ctx, f, f.def(v), 0, "");
      if (it.valid() && f.def(it).op == Op::Call && call_target_name(ctx, fid, f.def_id(it)) == "builtins.iter" &&
          positional_count(f, f.def(it)) == 1)
        it = call_arg(ctx, f, f.def(it), 0, "");
      if (it.valid() && f.def(it).op == Op::Call && is_dataloader(ctx, fid, f.def_id(it)))
        return std::make_pair(fid, f.def_id(it));
      return std::nullopt;
    }
    if (f.def(v).op != Op::NextItem) return std::nullopt;
    ValueId it = loop_iterable(ctx, fid, v);
    FunctionId lf = fid;
    if (!it.valid()) return std::nullopt;
    if (f.def(it).op == Op::LoadGlobal) {
      it = ctx.ir.global_binding(f.def(it).aux);
      lf = FunctionId(0);
      if (!it.valid()) return std::nullopt;
    }
    const ir::Function& g = ctx.ir.fn(lf);
    if (g.def(it).op == Op::Call && is_dataloader(ctx, lf, g.def_id(it))) return std::make_pair(lf, g.def_id(it));
    if (!through_loops || lf != fid) return std::nullopt;
    v = it;  // an item of a loop over a part of the batch
  }
  return std::nullopt;
}

/// `v` is the item (or a part of the item: tuple element, dict value) of a
/// loop over a DataLoader of this file that uses the default collate.
bool default_loader_item(const CheckContext& ctx, FunctionId fid, ValueId v) {
  auto loader = batch_loader(ctx, fid, v, false);
  if (!loader) return false;
  const ir::Function& g = ctx.ir.fn(loader->first);
  const ir::Inst& c = g.inst(loader->second);
  return !has_unpacked_args(g, c) && !call_arg(ctx, g, c, -1, "collate_fn").valid();
}

bool tensor_leaf(const CheckContext& ctx, const Origin& o) {
  const ir::Function& f = ctx.ir.fn(o.fn);
  const ir::Inst& d = f.def(o.value);
  if (d.op == Op::NextItem || d.op == Op::GetItem || d.op == Op::Element)
    return default_loader_item(ctx, o.fn, o.value);
  if (d.op != Op::Call) return false;
  InstId ci = f.def_id(o.value);
  ir::CallTarget t = ctx.facts.res.call_target(o.fn, ci);
  std::string_view name = call_target_name(ctx, o.fn, ci);
  if (t.kind == ir::CallTarget::Kind::External) return tensor_factory(name);
  if (t.kind != ir::CallTarget::Kind::ResultCall) return false;
  // Calling a module built from torch.nn (not a wrapper such as DDP, whose
  // output is the wrapped model's), torchvision or timm.
  dataflow::TorchCall k = torch_call(ctx, o.fn, ci);
  if (k == dataflow::TorchCall::TorchModule)
    return !name.starts_with("torch.nn.parallel") && name != "torch.nn.DataParallel" &&
           name.find("RNN") == std::string::npos && name.find("LSTM") == std::string::npos &&
           name.find("GRU") == std::string::npos && name.find("Attention") == std::string::npos &&
           name.find("Transformer") == std::string::npos;
  return k == dataflow::TorchCall::VisionModel || k == dataflow::TorchCall::TimmModel;
}

}  // namespace

bool is_tensor(const CheckContext& ctx, FunctionId f, ValueId v) {
  if (!v.valid()) return false;
  Origins o = trace_origins(ctx, f, v);
  if (!o.complete || o.leaves.empty()) return false;
  for (const Origin& l : o.leaves)
    if (!tensor_leaf(ctx, l)) return false;
  return true;
}

PartOf whole_of(const CheckContext& ctx, const ir::Function& f, ValueId v,
                std::initializer_list<std::string_view> through, int max_steps) {
  PartOf p{v};
  for (; p.whole.valid() && p.steps < max_steps; ++p.steps) {
    const ir::Inst& d = f.def(p.whole);
    if (d.op == Op::Element || d.op == Op::Unpack || d.op == Op::GetItem) {
      if (d.op == Op::Element && (d.flags & ir::kStarElem)) p.starred = true;
      p.whole = f.operands(d)[0];
      continue;
    }
    if (d.op != Op::Call || through.size() == 0) break;
    std::string_view m = call_method(ctx, f, d);
    if (m.empty() || std::find(through.begin(), through.end(), m) == through.end()) break;
    p.whole = call_receiver(f, d);
  }
  return p;
}

bool loader_host_value(const CheckContext& ctx, FunctionId fid, ValueId v) {
  return batch_loader(ctx, fid, v, true).has_value();
}

namespace {

/// A tensor the script makes itself, with or without requires_grad: a
/// factory's result, through `Variable(x)`, `nn.Parameter(x)`, `x.data`,
/// `.detach()`, `.clone()`, `.requires_grad_()`, device moves and
/// arithmetic on such tensors and constants.
bool free_tensor(const CheckContext& ctx, FunctionId fid, ValueId v, int depth) {
  if (!v.valid() || depth > 8) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op == Op::Const) return true;
  if (d.op == Op::GetAttr) return ctx.ir.names.str(d.aux) == "data" && free_tensor(ctx, fid, f.operands(d)[0], depth + 1);
  if (d.op == Op::BinOp || d.op == Op::UnaryOp) {
    for (ValueId o : f.operands(d))
      if (!free_tensor(ctx, fid, o, depth + 1)) return false;
    return true;
  }
  if (d.op != Op::Call) return false;
  InstId ci = f.def_id(v);
  std::string_view n = call_target_name(ctx, fid, ci);
  if (tensor_factory(n)) return true;
  if (n == "torch.autograd.Variable" || n == "torch.autograd.variable.Variable" ||
      n == "torch.nn.Parameter" || n == "torch.nn.parameter.Parameter")
    return positional_count(f, d) > 0 && free_tensor(ctx, fid, call_arg(ctx, f, d, 0, ""), depth + 1);
  std::string_view m = call_method(ctx, f, d);
  if (m == "detach" || m == "clone" || m == "requires_grad_" || m == "cuda" || m == "to" || m == "cpu" ||
      m == "float" || m == "half")
    return free_tensor(ctx, fid, call_receiver(f, d), depth + 1);
  return false;
}

}  // namespace

bool steps_free_tensors(const CheckContext& ctx, FunctionId fid, InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  ValueId opt = call_receiver(f, f.inst(i));
  if (!opt.valid() || f.def(opt).op != Op::Call) return false;
  const ir::Inst& d = f.def(opt);
  if (!call_target_name(ctx, fid, f.def_id(opt)).starts_with("torch.optim.")) return false;
  ValueId params = call_arg(ctx, f, d, 0, "params");
  if (!params.valid()) return false;
  const ir::Inst& p = f.def(params);
  if (p.op != Op::BuildList && p.op != Op::BuildTuple) return false;
  auto els = f.operands(p);
  if (els.empty()) return false;
  for (ValueId e : els)
    if (!free_tensor(ctx, fid, e, 0)) return false;
  return true;
}

bool steps_other_object(const CheckContext& ctx, FunctionId fid, InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(i);
  if (positional_count(f, in) == 0 || call_method(ctx, f, in) != "step") return false;
  if (torch_call(ctx, fid, i) != dataflow::TorchCall::OptimizerStep) {
    // `envs.step(action)` on a wrapper class of the file (a gym.Wrapper
    // whose step calls `super().step(action)`): other unless the class
    // derives from an optimizer.
    FunctionId g = ctx.facts.summaries.callee(fid, i);
    if (!g.valid() || !ctx.ir.fn(g).owner.valid()) return false;
    const ir::Class& cls = ctx.ir.classes[ctx.ir.fn(g).owner.v];
    for (ValueId b : cls.bases) {
      const ir::Referent& r = ctx.facts.res.ref(cls.defined_in, b);
      if (r.kind != ir::Referent::Kind::External) return false;
      std::string base = ctx.ir.names.str(r.path());  // built from the path: keep it
      if (base.find("optim") != std::string::npos || base.find("Optimizer") != std::string::npos) return false;
    }
    return !cls.bases.empty();
  }
  ValueId recv = call_receiver(f, in);
  return recv.valid() && !optimizer_value(ctx, fid, recv);
}

bool optimizer_value(const CheckContext& ctx, FunctionId fid, ValueId v) {
  if (!v.valid()) return false;
  const ir::Referent& r = ctx.facts.res.ref(fid, v);
  if (r.kind == ir::Referent::Kind::Result && ctx.ir.names.str(r.path()).starts_with("torch.optim.")) return true;
  const dataflow::Objects& objs = ctx.facts.objects();
  return objs.may_be(fid, v, dataflow::ObjKind::Optimizer) || objs.may_be(fid, v, dataflow::ObjKind::Engine);
}

ValueId loop_iterable(const CheckContext& ctx, FunctionId fid, ValueId item) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& next = f.def(item);
  if (next.op != Op::NextItem || next.nops == 0) return ir::kNoValue;
  const ir::Inst& gi = f.def(f.operands(next)[0]);
  if (gi.op != Op::GetIter) return ir::kNoValue;
  ValueId v = f.operands(gi)[0];
  for (int depth = 0; v.valid() && depth < 4; ++depth) {
    const ir::Inst& d = f.def(v);
    if (d.op != Op::Call) break;
    std::string_view n = call_target_name(ctx, fid, f.def_id(v));
    if (n == "builtins.enumerate" || n == "builtins.iter" || n == "builtins.zip" ||
        n.starts_with("tqdm") || n.starts_with("rich.progress")) {
      if (positional_count(f, d) == 0) break;
      v = f.operands(d)[1];
      continue;
    }
    break;
  }
  return v;
}

bool has_users(const ir::Function& f, ValueId v) {
  if (!v.valid()) return false;
  for (const ir::Inst& in : f.insts)
    for (ValueId o : f.operands(in))
      if (o == v) return true;
  return false;
}

std::vector<InstId> users_of(const ir::Function& f, ValueId v) {
  std::vector<InstId> out;
  if (!v.valid()) return out;
  for (uint32_t i = 0; i < f.insts.size(); ++i)
    for (ValueId o : f.operands(f.insts[i]))
      if (o == v) {
        out.push_back(InstId(i));
        break;
      }
  return out;
}

}  // namespace tpf::checks
