// compute_facts (the fixed order of the dataflow passes), the queries rules
// ask, and the --dump-facts printers (deterministic: functions in id order,
// instructions in layout order, positions as line:col).
// requires: ir::build. produces: FileFacts, dump text.
#include "dataflow/facts.h"

#include <algorithm>

namespace tpf::dataflow {

FileFacts compute_facts(ir::Module& m, const ProjectView* project, ir::Resolution* res) {
  FileFacts ff;
  ff.res = res ? std::move(*res)
               : ir::compute_resolution(m, project ? project->star_bindings(m) : std::vector<ir::StarBinding>{});
  ff.calls = TorchCalls(m);
  ff.kinds = classify_all(m, ff.res, ff.calls);
  ff.summaries = compute_summaries(m, ff.res, ff.kinds, project);
  ff.m_ = &m;
  return ff;
}

bool FileFacts::may_create_graph() const {
  auto l = lock();
  if (!may_create_graph_) may_create_graph_ = dataflow::may_create_graph(*m_, res, calls, kinds);
  return *may_create_graph_;
}

const Objects& FileFacts::objects() const {
  auto l = lock();
  if (!objects_) objects_ = std::make_unique<const Objects>(compute_objects(*m_, res, &summaries));
  return *objects_;
}

const GradProvenance& FileFacts::grad() const {
  auto l = lock();
  if (!grad_) {
    // Under the same lock as objects(): computed here when no rule asked first.
    if (!objects_) objects_ = std::make_unique<const Objects>(compute_objects(*m_, res, &summaries));
    grad_ = compute_grad_provenance(*m_, res, calls, kinds, &summaries, objects_.get());
  }
  return *grad_;
}

const ir::DomTree& FileFacts::dom(const ir::Module& m, ir::FunctionId f) const {
  auto l = lock();
  if (dom_.size() < m.functions.size()) dom_.resize(m.functions.size());
  if (!dom_[f.v]) dom_[f.v] = std::make_unique<const ir::DomTree>(ir::compute_dominators(m.fn(f)));
  return *dom_[f.v];
}

const ir::DomTree& FileFacts::postdom(const ir::Module& m, ir::FunctionId f) const {
  auto l = lock();
  if (postdom_.size() < m.functions.size()) postdom_.resize(m.functions.size());
  if (!postdom_[f.v]) postdom_[f.v] = std::make_unique<const ir::DomTree>(ir::compute_post_dominators(m.fn(f)));
  return *postdom_[f.v];
}

const ir::LoopInfo& FileFacts::loops(const ir::Module& m, ir::FunctionId f) const {
  auto l = lock();
  if (loops_.size() < m.functions.size()) loops_.resize(m.functions.size());
  if (!loops_[f.v])
    loops_[f.v] = std::make_unique<const ir::LoopInfo>(
        ir::may_have_loops(m.fn(f)) ? ir::compute_loops(m.fn(f), dom(m, f)) : ir::no_loops(m.fn(f)));
  return *loops_[f.v];
}

bool in_loop(const FileFacts& ff, const ir::Module& m, ir::FunctionId fid, ir::InstId i) {
  return ff.loops(m, fid).in_loop(m.fn(fid).block_of(i));
}

std::vector<uint32_t> with_regions_at(const ir::Function& f, ir::InstId i) {
  std::vector<uint32_t> out;
  for (uint32_t r = f.block(f.block_of(i)).with_region; r != UINT32_MAX; r = f.withs[r].parent)
    out.push_back(r);
  return out;
}

uint32_t outlived_loop(const FileFacts& ff, const ir::Module& m, ir::FunctionId fid,
                       ir::ValueId container, ir::InstId use) {
  const ir::Function& f = m.fn(fid);
  const ir::LoopInfo& loops = ff.loops(m, fid);
  ir::BlockId ub = f.block_of(use);
  uint32_t inner = loops.loop_of(ub);
  if (inner == UINT32_MAX) return UINT32_MAX;
  // A phi at the header of a loop containing `use` carries the container
  // from one iteration to the next: it outlives that loop. Otherwise the
  // container outlives the loops its definition lies outside of.
  const ir::Inst& d = f.def(container);
  ir::BlockId db = f.block_of(f.def_id(container));
  if (d.op == ir::Op::Phi) {
    uint32_t l = loops.loop_with_header(db);
    if (l != UINT32_MAX && loops.contains(l, ub)) {
      // Re-created in the body (hist = [] each iteration) if no operand
      // from outside the loop reaches the header's back edges unchanged:
      // every operand on a latch edge is defined inside the loop by a builder.
      auto ps = ir::preds(f, db);
      auto ops = f.operands(d);
      bool fresh = true;
      for (size_t k = 0; k < ops.size() && k < ps.size(); ++k) {
        if (!loops.contains(l, ps[k])) continue;
        const ir::Inst& od = f.def(ops[k]);
        bool builder = od.op == ir::Op::BuildList || od.op == ir::Op::BuildDict ||
                       od.op == ir::Op::BuildSet || od.op == ir::Op::BuildTuple;
        if (!builder || !loops.contains(l, f.block_of(f.def_id(ops[k])))) fresh = false;
      }
      if (!fresh) return l;
    }
  }
  return loops.loop_between(db, ub);
}

ir::ValueId value_at(const ir::Module& m, const ir::Function& f, std::string_view name,
                     uint32_t offset) {
  auto it = std::lower_bound(f.local_refs.begin(), f.local_refs.end(), offset,
                             [](const ir::LocalRef& r, uint32_t o) { return r.offset < o; });
  ir::ValueId load;
  for (; it != f.local_refs.end() && it->offset == offset; ++it) {
    const ir::Var& v = f.vars[it->var.v];
    if (v.name == ir::kNoSymbol || m.names.str(v.name) != name) continue;
    if (it->store) return it->value;
    load = it->value;
  }
  return load;
}

// ------------------------------------------------------------- dumps ----

namespace {

constexpr std::string_view kFactNames[] = {"grad", "calls", "summaries", "loops", "resolve", "objects", "imports", "all"};

void pad_to(std::string& out, size_t col) {
  size_t line = out.size() - (out.rfind('\n') + 1);
  if (line < col) out.append(col - line, ' ');
  else out += ' ';
}

void loc(const ir::Module& m, Span s, std::string& out) {
  LineCol lc = m.pos(s);
  out += std::to_string(lc.line);
  out += ':';
  out += std::to_string(lc.col);
}

void header(const ir::Module& m, ir::FunctionId fid, std::string& out) {
  out += "function ";
  m.names.append(m.fn(fid).qualname, out);
  out += '\n';
}

void value_name(const ir::Module& m, const ir::Function& f, ir::ValueId v, std::string& out) {
  ir::VarId var = f.values[v.v].var;
  if (var.valid() && f.vars[var.v].name != ir::kNoSymbol) {
    out += "  ; ";
    out += m.names.str(f.vars[var.v].name);
  }
}

void dump_grad(const ir::Module& m, const FileFacts& ff, ir::FunctionId fid, std::string& out) {
  const ir::Function& f = m.fn(fid);
  const FunctionGrad& g = ff.grad().of(fid);
  header(m, fid, out);
  out += "  entry ";
  out += name(g.entry);
  out += ", returns ";
  out += name(g.returns);
  if (g.called) out += ", called in file";
  if (g.converged == Converged::No) out += ", did not converge";
  out += '\n';
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& in = f.insts[i];
    bool shown = in.result.valid() && in.op != ir::Op::Const && in.op != ir::Op::Import &&
                 in.op != ir::Op::MakeFunction && in.op != ir::Op::MakeClass &&
                 in.op != ir::Op::Undef;
    GradMode mode = g.mode[i];
    if (!shown) continue;
    out += "  %";
    out += std::to_string(in.result.v);
    out += ' ';
    out += name(g.value[in.result.v]);
    pad_to(out, 20);
    out += ir::op_info(in.op).name;
    pad_to(out, 34);
    loc(m, in.span, out);
    if (mode != GradMode::Enabled) {
      out += "  mode ";
      out += name(mode);
    }
    value_name(m, f, in.result, out);
    out += '\n';
  }
}

void dump_calls(const ir::Module& m, const FileFacts& ff, ir::FunctionId fid, std::string& out) {
  const ir::Function& f = m.fn(fid);
  header(m, fid, out);
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& in = f.insts[i];
    if (in.op != ir::Op::Call) continue;
    out += "  ";
    loc(m, in.span, out);
    out += " %";
    out += std::to_string(in.result.v);
    pad_to(out, 16);
    ir::print_call_target(m, ff.res.call_target(fid, ir::InstId(i)), out);
    TorchCall k = ff.kinds[fid.v][i];
    if (k != TorchCall::None) {
      pad_to(out, 52);
      out += info(k).name;
    }
    if (const ForeignFunction* fc = ff.summaries.foreign_callee(fid, ir::InstId(i))) {
      out += " -> ";
      out += fc->name;
      out += " (line ";
      out += std::to_string(fc->line);
      out += ')';
    }
    uint32_t eff = ff.summaries.call_may(fid, ir::InstId(i), ff.kinds);
    if (eff) {
      out += " [";
      out += effect_names(eff);
      out += ']';
    }
    out += '\n';
  }
}

void dump_summary(const ir::Module& m, const FileFacts& ff, ir::FunctionId fid, std::string& out) {
  const FunctionSummary& s = ff.summaries.of(fid);
  header(m, fid, out);
  out += "  may ";
  out += effect_names(s.may);
  out += "\n  must ";
  out += effect_names(s.must);
  out += "\n  returns ";
  ir::print_referent(m, s.returns, out);
  out += ", result ";
  out += name(ff.grad().of(fid).returns);
  out += ", entry ";
  out += name(ff.grad().of(fid).entry);
  if (s.recursive) out += ", recursive";
  if (s.called) out += ", called in file";
  if (s.saves_to) {
    out += ", torch.save to";
    const ir::Function& f = m.fn(fid);
    for (uint32_t p = 0; p < 32 && p < f.params.size(); ++p)
      if ((s.saves_to >> p) & 1) (out += ' ') += m.names.str(f.params[p].name);
  }
  out += '\n';
  const auto& cs = ff.summaries.calls[fid.v];
  for (const CallEdge& e : cs) {
    out += "  calls ";
    m.names.append(m.fn(e.callee).qualname, out);
    out += " at ";
    loc(m, m.fn(fid).inst(e.call).span, out);
    out += '\n';
  }
}

void dump_loops(const ir::Module& m, const FileFacts& ff, ir::FunctionId fid, std::string& out) {
  const ir::LoopInfo& li = ff.loops(m, fid);
  if (li.loops.empty()) return;
  const ir::Function& f = m.fn(fid);
  header(m, fid, out);
  for (size_t i = 0; i < li.loops.size(); ++i) {
    const ir::Loop& l = li.loops[i];
    out += "  loop " + std::to_string(i) + ": header bb" + std::to_string(l.header.v) + " at ";
    loc(m, f.terminator(l.header).span, out);
    out += ", depth " + std::to_string(l.depth);
    if (l.parent != UINT32_MAX) out += ", in loop " + std::to_string(l.parent);
    out += ", blocks";
    for (ir::BlockId b : l.blocks) out += " bb" + std::to_string(b.v);
    out += ", exits";
    for (ir::BlockId b : l.exits) out += " bb" + std::to_string(b.v);
    out += '\n';
  }
}

void dump_resolve(const ir::Module& m, const FileFacts& ff, ir::FunctionId fid, std::string& out) {
  const ir::Function& f = m.fn(fid);
  header(m, fid, out);
  for (const ir::Inst& in : f.insts) {
    if (!in.result.valid() || in.op == ir::Op::Const) continue;
    const ir::Referent& r = ff.res.ref(fid, in.result);
    const ir::ConstValue& c = ff.res.constant(fid, in.result);
    if (r.kind == ir::Referent::Kind::Unknown && !c.known()) continue;
    out += "  %";
    out += std::to_string(in.result.v);
    out += ' ';
    if (r.kind != ir::Referent::Kind::Unknown) ir::print_referent(m, r, out);
    if (c.known()) {
      out += r.kind != ir::Referent::Kind::Unknown ? " = " : "= ";
      switch (c.kind) {
        case ir::ConstValue::Kind::Int: out += std::to_string(c.i); break;
        case ir::ConstValue::Kind::Float: {
          ast::Constant k;
          k.kind = ast::Constant::Kind::Float;
          k.number = c.d;
          ir::print_constant(k, out);
          break;
        }
        case ir::ConstValue::Kind::Bool: out += c.i ? "True" : "False"; break;
        case ir::ConstValue::Kind::None: out += "None"; break;
        case ir::ConstValue::Kind::Str: {
          ast::Constant k;
          k.kind = ast::Constant::Kind::Str;
          k.text = std::string(c.s);
          ir::print_constant(k, out);
          break;
        }
        default: break;
      }
    }
    pad_to(out, 48);
    loc(m, in.span, out);
    value_name(m, f, in.result, out);
    out += '\n';
  }
  if (f.kind == ir::FunctionKind::ClassBody && f.owner.valid()) {
    ir::ClassId c = f.owner;
    out += "  class ";
    m.names.append(m.cls(c).qualname, out);
    if (ff.res.is_module_class(c)) out += " (nn.Module)";
    out += '\n';
    for (const ir::SelfAttr& a : ff.res.self_attrs(c)) {
      out += "    self.";
      out += m.names.str(a.attr);
      out += " = %" + std::to_string(a.value.v) + " in ";
      m.names.append(m.fn(a.fn).qualname, out);
      out += ": ";
      ir::print_referent(m, ff.res.ref(a.fn, a.value), out);
      out += '\n';
    }
  }
}

}  // namespace

bool is_fact_name(std::string_view name) {
  return std::find(std::begin(kFactNames), std::end(kFactNames), name) != std::end(kFactNames);
}

void dump_facts(const ir::Module& m, const FileFacts& ff, std::string_view which, std::string& out) {
  bool all = which == "all";
  auto section = [&](std::string_view name, auto&& fn) {
    if (!all && which != name) return;
    if (all) {
      out += "== ";
      out += name;
      out += " ==\n";
    }
    for (uint32_t i = 0; i < m.functions.size(); ++i) fn(m, ff, ir::FunctionId(i), out);
  };
  section("grad", dump_grad);
  section("calls", dump_calls);
  section("summaries", dump_summary);
  section("loops", dump_loops);
  section("resolve", dump_resolve);
  if (all || which == "objects") {
    if (all) out += "== objects ==\n";
    dump_objects(m, ff.objects(), out);
  }
}

}  // namespace tpf::dataflow
