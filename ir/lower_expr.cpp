// Lowering, part 3: expressions, assignment targets and name resolution.
// `and`/`or`, chained comparisons and `x if c else y` become branches that
// join through a temporary (to_ssa turns it into a phi); comprehensions are
// inlined as loops with their own names (PEP 709).
// requires: FnLowerer state (lower_state.h). produces: instructions in the open block.
#include "ir/lower_state.h"

namespace tpf::ir {

namespace S = ast::slot;
using ast::NodeId;
using ast::NodeKind;

// -------------------------------------------------------------- names ----

NameKind FnLowerer::classify(Symbol s, VarId& var) const {
  const Scope& sc = scope();
  if (Scope::has(sc.globals, s)) return NameKind::Global;
  if (Scope::has(sc.nonlocals, s)) return NameKind::Free;
  var = sc.local(s);
  if (var.valid()) return NameKind::Local;
  if (sc.kind == FunctionKind::Module) return NameKind::Global;
  if (Scope::has(sc.type_params, s)) return NameKind::Free;
  return L.resolve_enclosing(fid_, s);
}

ValueId FnLowerer::load_name(Symbol s, Span sp) {
  if (VarId cv = comp_vars_.find(s); cv.valid()) return emit0(Op::LoadLocal, sp, cv.v);
  VarId var;
  switch (classify(s, var)) {
    case NameKind::Local:
      return emit0(Op::LoadLocal, sp, var.v);
    case NameKind::Free:
      return emit0(Op::LoadFree, sp, s);
    case NameKind::Global:
      break;
  }
  return emit0(Op::LoadGlobal, sp, s);
}

void FnLowerer::store_name(Symbol s, ValueId v, Span sp, bool skip_comprehension) {
  if (!skip_comprehension)
    if (VarId cv = comp_vars_.find(s); cv.valid()) {
      emit1(Op::StoreLocal, sp, v, cv.v);
      return;
    }
  VarId var;
  switch (classify(s, var)) {
    case NameKind::Local:
      emit1(Op::StoreLocal, sp, v, var.v);
      return;
    case NameKind::Free:
      emit1(Op::StoreFree, sp, v, s);
      return;
    case NameKind::Global:
      if (scope().kind != FunctionKind::Module) L.note_global_store(s);
      emit1(Op::StoreGlobal, sp, v, s);
      return;
  }
}

// ------------------------------------------------------------ targets ----

void FnLowerer::store(NodeId t, ValueId v) {
  const ast::Node& n = a[t];
  switch (n.kind) {
    case NodeKind::Name:
      store_name(n.f[S::Name::id], v, n.span);
      break;
    case NodeKind::Attribute:
      emit2(Op::SetAttr, n.span, expr(a.child(t, S::Attribute::value)), v, n.f[S::Attribute::attr]);
      break;
    case NodeKind::Subscript: {
      ValueId obj = expr(a.child(t, S::Subscript::value));
      ValueId key = expr(a.child(t, S::Subscript::slice));
      emit3(Op::SetItem, n.span, obj, key, v);
      break;
    }
    case NodeKind::Tuple:
    case NodeKind::List: {
      auto elts = a.children(t, n.kind == NodeKind::Tuple ? S::Tuple::elts : S::List::elts);
      uint32_t star = 0xFFFF;
      for (size_t i = 0; i < elts.size(); ++i)
        if (a[elts[i]].kind == NodeKind::Starred) star = static_cast<uint32_t>(i);
      ValueId u = emit1(Op::Unpack, n.span, v, static_cast<uint32_t>(elts.size()) | (star << 16));
      for (size_t i = 0; i < elts.size(); ++i) {
        bool is_star = a[elts[i]].kind == NodeKind::Starred;
        ValueId e = emit1(Op::Element, a[elts[i]].span, u, static_cast<uint32_t>(i),
                          is_star ? kStarElem : 0);
        store(is_star ? a.child(elts[i], S::Starred::value) : elts[i], e);
      }
      break;
    }
    case NodeKind::Starred:
      store(a.child(t, S::Starred::value), v);
      break;
    default:
      break;
  }
}

void FnLowerer::del_target(NodeId t) {
  const ast::Node& n = a[t];
  switch (n.kind) {
    case NodeKind::Name: {
      Symbol s = n.f[S::Name::id];
      VarId var;
      NameKind k = classify(s, var);
      if (k == NameKind::Global) {
        if (scope().kind != FunctionKind::Module) L.note_global_store(s);
        emit0(Op::DelGlobal, n.span, s);
      } else {
        store_name(s, emit0(Op::Undef, n.span), n.span);
      }
      break;
    }
    case NodeKind::Attribute:
      emit1(Op::DelAttr, n.span, expr(a.child(t, S::Attribute::value)), n.f[S::Attribute::attr]);
      break;
    case NodeKind::Subscript: {
      ValueId obj = expr(a.child(t, S::Subscript::value));
      emit2(Op::DelItem, n.span, obj, expr(a.child(t, S::Subscript::slice)));
      break;
    }
    case NodeKind::Tuple:
    case NodeKind::List:
      for (NodeId c : a.children(t, n.kind == NodeKind::Tuple ? S::Tuple::elts : S::List::elts))
        del_target(c);
      break;
    default:
      break;
  }
}

// -------------------------------------------------------- conditions ----

void FnLowerer::cond(NodeId e, BlockId if_true, BlockId if_false) {
  const ast::Node& n = a[e];
  if (n.kind == NodeKind::BoolOp) {
    auto vals = a.children(e, S::BoolOp::values);
    bool is_and = n.op == ast::Op::And;
    for (size_t i = 0; i + 1 < vals.size(); ++i) {
      BlockId mid = new_block();
      if (is_and) cond(vals[i], mid, if_false);
      else cond(vals[i], if_true, mid);
      begin(mid);
    }
    if (!vals.empty()) {
      cond(vals.back(), if_true, if_false);
      return;
    }
  }
  if (n.kind == NodeKind::UnaryOp && n.op == ast::Op::Not) {
    cond(a.child(e, S::UnaryOp::operand), if_false, if_true);
    return;
  }
  branch(expr(e), if_true, if_false, n.span);
}

// ------------------------------------------------------- expressions ----

ValueId FnLowerer::expr(NodeId e) {
  const ast::Node& n = a[e];
  switch (n.kind) {
    case NodeKind::BoolOp:
      return lower_bool_op(e);
    case NodeKind::NamedExpr:
      return lower_named_expr(e);
    case NodeKind::BinOp: {
      ValueId l = expr(a.child(e, S::BinOp::left));
      ValueId r = expr(a.child(e, S::BinOp::right));
      return emit2(Op::BinOp, n.span, l, r, static_cast<uint32_t>(n.op));
    }
    case NodeKind::UnaryOp:
      return emit1(Op::UnaryOp, n.span, expr(a.child(e, S::UnaryOp::operand)),
                   static_cast<uint32_t>(n.op));
    case NodeKind::Lambda:
      return lower_lambda(e);
    case NodeKind::IfExp:
      return lower_if_exp(e);
    case NodeKind::Dict:
      return lower_dict(e);
    case NodeKind::Set:
      return lower_sequence(e, Op::BuildSet);
    case NodeKind::ListComp:
    case NodeKind::SetComp:
    case NodeKind::DictComp:
    case NodeKind::GeneratorExp:
      return lower_comprehension(e);
    case NodeKind::Await:
      return emit1(Op::Await, n.span, expr(a.child(e, S::Await::value)));
    case NodeKind::Yield: {
      f().is_generator = true;
      ValueId v = n.f[S::Yield::value] != UINT32_MAX ? expr(a.child(e, S::Yield::value))
                                                      : const_value(L.m.const_none, n.span);
      return emit1(Op::Yield, n.span, v);
    }
    case NodeKind::YieldFrom:
      f().is_generator = true;
      return emit1(Op::YieldFrom, n.span, expr(a.child(e, S::YieldFrom::value)));
    case NodeKind::Compare:
      return lower_compare(e);
    case NodeKind::Call:
      return lower_call(e);
    case NodeKind::FormattedValue: {
      ValueId v = expr(a.child(e, S::FormattedValue::value));
      uint32_t conv = n.f[S::FormattedValue::conversion];
      if (n.f[S::FormattedValue::format_spec] != UINT32_MAX)
        return emit2(Op::FormatValue, n.span, v, expr(a.child(e, S::FormattedValue::format_spec)),
                     conv);
      return emit1(Op::FormatValue, n.span, v, conv);
    }
    case NodeKind::JoinedStr:
      return lower_joined_str(e);
    case NodeKind::Constant:
      return const_value(n.f[S::Constant::value], n.span);
    case NodeKind::Attribute:
      return emit1(Op::GetAttr, n.span, expr(a.child(e, S::Attribute::value)),
                   n.f[S::Attribute::attr]);
    case NodeKind::Subscript: {
      ValueId obj = expr(a.child(e, S::Subscript::value));
      return emit2(Op::GetItem, n.span, obj, expr(a.child(e, S::Subscript::slice)));
    }
    case NodeKind::Starred:
      return expr(a.child(e, S::Starred::value));
    case NodeKind::Name:
      return load_name(n.f[S::Name::id], n.span);
    case NodeKind::List:
      return lower_sequence(e, Op::BuildList);
    case NodeKind::Tuple:
      return lower_sequence(e, Op::BuildTuple);
    case NodeKind::Slice:
      return lower_slice(e);
    default:
      // Error nodes (and anything not an expression): an unknown value.
      return emit0(Op::Undef, n.span);
  }
}

ValueId FnLowerer::lower_bool_op(NodeId e) {
  const ast::Node& n = a[e];
  auto vals = a.children(e, S::BoolOp::values);
  bool is_and = n.op == ast::Op::And;
  VarId t = new_temp();
  BlockId done = new_block();
  for (size_t i = 0; i < vals.size(); ++i) {
    ValueId v = expr(vals[i]);
    emit1(Op::StoreLocal, a[vals[i]].span, v, t.v);
    if (i + 1 < vals.size()) {
      BlockId next = new_block();
      if (is_and) branch(v, next, done, a[vals[i]].span);
      else branch(v, done, next, a[vals[i]].span);
      begin(next);
    }
  }
  begin(done);
  return emit0(Op::LoadLocal, n.span, t.v);
}

ValueId FnLowerer::lower_compare(NodeId e) {
  const ast::Node& n = a[e];
  auto ops = a.list(n.f[S::Compare::ops]);
  auto rhs = a.children(e, S::Compare::comparators);
  ValueId lhs = expr(a.child(e, S::Compare::left));
  if (ops.size() == 1 && rhs.size() == 1) return emit2(Op::Compare, n.span, lhs, expr(rhs[0]), ops[0]);
  // a < b < c: each comparison short-circuits the rest.
  VarId t = new_temp();
  BlockId done = new_block();
  for (size_t i = 0; i < ops.size() && i < rhs.size(); ++i) {
    ValueId r = expr(rhs[i]);
    ValueId c = emit2(Op::Compare, n.span, lhs, r, ops[i]);
    emit1(Op::StoreLocal, n.span, c, t.v);
    if (i + 1 < ops.size()) {
      BlockId next = new_block();
      branch(c, next, done, n.span);
      begin(next);
    }
    lhs = r;
  }
  begin(done);
  return emit0(Op::LoadLocal, n.span, t.v);
}

ValueId FnLowerer::lower_if_exp(NodeId e) {
  const ast::Node& n = a[e];
  VarId t = new_temp();
  BlockId tb = new_block(), fb = new_block(), done = new_block();
  cond(a.child(e, S::IfExp::test), tb, fb);
  begin(tb);
  NodeId body = a.child(e, S::IfExp::body), orelse = a.child(e, S::IfExp::orelse);
  emit1(Op::StoreLocal, a[body].span, expr(body), t.v);
  jump(done, Span{});
  begin(fb);
  emit1(Op::StoreLocal, a[orelse].span, expr(orelse), t.v);
  jump(done, Span{});
  begin(done);
  return emit0(Op::LoadLocal, n.span, t.v);
}

ValueId FnLowerer::lower_named_expr(NodeId e) {
  NodeId target = a.child(e, S::NamedExpr::target);
  ValueId v = expr(a.child(e, S::NamedExpr::value));
  // A walrus in a comprehension binds in the enclosing scope (PEP 572).
  if (a[target].kind == NodeKind::Name)
    store_name(a[target].f[S::Name::id], v, a[target].span, /*skip_comprehension=*/true);
  return v;
}

ValueId FnLowerer::lower_call(NodeId e) {
  const ast::Node& n = a[e];
  size_t base = scratch_.size();
  scratch_.push_back(expr(a.child(e, S::Call::func)));
  uint32_t star_mask = 0;
  auto args = a.children(e, S::Call::args);
  for (size_t i = 0; i < args.size(); ++i) {
    NodeId arg = args[i];
    if (a[arg].kind == NodeKind::Starred) {
      if (i < 32) star_mask |= 1u << i;
      arg = a.child(arg, S::Starred::value);
    }
    ValueId v = expr(arg);
    scratch_.push_back(v);
  }
  auto kws = a.children(e, S::Call::keywords);
  for (NodeId k : kws) {
    ValueId v = expr(a.child(k, S::keyword::value));
    scratch_.push_back(v);
  }
  // Keyword names go to the pool after the values: nested calls in the
  // values add their own names first.
  Function& fn = f();
  uint32_t kw_first = static_cast<uint32_t>(fn.kw_names.size());
  for (NodeId k : kws) fn.kw_names.push_back(a[k].f[S::keyword::arg]);
  fn.calls.push_back(CallInfo{static_cast<uint32_t>(args.size()), static_cast<uint32_t>(kws.size()),
                              kw_first, star_mask});
  uint32_t call = static_cast<uint32_t>(fn.calls.size() - 1);
  ValueId r = emit(Op::Call, n.span, top(base), call);
  scratch_.resize(base);
  return r;
}

ValueId FnLowerer::lower_sequence(NodeId e, Op build) {
  const ast::Node& n = a[e];
  int slot = n.kind == NodeKind::Set ? S::Set::elts
             : n.kind == NodeKind::List ? S::List::elts
                                        : S::Tuple::elts;
  auto elts = a.children(e, slot);
  bool starred = false;
  for (NodeId x : elts) starred |= a[x].kind == NodeKind::Starred;
  if (!starred) {
    size_t base = scratch_.size();
    for (NodeId x : elts) {
      ValueId v = expr(x);
      scratch_.push_back(v);
    }
    ValueId r = emit(build, n.span, top(base));
    scratch_.resize(base);
    return r;
  }
  // [*a, b]: build step by step.
  ValueId acc = emit(build == Op::BuildSet ? Op::BuildSet : Op::BuildList, n.span, {});
  for (NodeId x : elts) {
    if (a[x].kind == NodeKind::Starred)
      emit2(Op::ListExtend, a[x].span, acc, expr(a.child(x, S::Starred::value)));
    else
      emit2(build == Op::BuildSet ? Op::SetAdd : Op::ListAppend, a[x].span, acc, expr(x));
  }
  return build == Op::BuildTuple ? emit1(Op::ListToTuple, n.span, acc) : acc;
}

ValueId FnLowerer::lower_dict(NodeId e) {
  const ast::Node& n = a[e];
  auto keys = a.children(e, S::Dict::keys);
  auto vals = a.children(e, S::Dict::values);
  bool splat = false;
  for (NodeId k : keys) splat |= !k.valid();
  size_t count = std::min(keys.size(), vals.size());
  if (!splat) {
    size_t base = scratch_.size();
    for (size_t i = 0; i < count; ++i) {
      ValueId k = expr(keys[i]);
      scratch_.push_back(k);
      ValueId v = expr(vals[i]);
      scratch_.push_back(v);
    }
    ValueId r = emit(Op::BuildDict, n.span, top(base));
    scratch_.resize(base);
    return r;
  }
  ValueId d = emit(Op::BuildDict, n.span, {});
  for (size_t i = 0; i < count; ++i) {
    if (!keys[i].valid()) {
      emit2(Op::DictUpdate, a[vals[i]].span, d, expr(vals[i]));
    } else {
      ValueId k = expr(keys[i]);
      emit3(Op::MapAdd, a[vals[i]].span, d, k, expr(vals[i]));
    }
  }
  return d;
}

ValueId FnLowerer::lower_lambda(NodeId e) {
  const ast::Node& n = a[e];
  NodeId args = a.child(e, S::Lambda::args);
  std::vector<ValueId> defs;
  for (NodeId d : a.nodes_of(a[args].f[S::arguments::defaults])) defs.push_back(expr(d));
  for (NodeId d : a.nodes_of(a[args].f[S::arguments::kw_defaults]))
    if (d.valid()) defs.push_back(expr(d));
  FunctionId nf = L.new_function(e, FunctionKind::Lambda, fid_, L.sym_lambda, ClassId());
  ValueId v = emit(Op::MakeFunction, n.span, defs, nf.v);
  Function& child = L.m.functions[nf.v];
  child.defaults = std::move(defs);
  child.value = v;
  return v;
}

ValueId FnLowerer::lower_joined_str(NodeId e) {
  const ast::Node& n = a[e];
  size_t base = scratch_.size();
  for (NodeId p : a.children(e, S::JoinedStr::values)) {
    ValueId v = expr(p);
    scratch_.push_back(v);
  }
  ValueId r = emit(Op::BuildString, n.span, top(base));
  scratch_.resize(base);
  return r;
}

ValueId FnLowerer::lower_slice(NodeId e) {
  const ast::Node& n = a[e];
  ValueId parts[3];
  const int slots[3] = {S::Slice::lower, S::Slice::upper, S::Slice::step};
  for (int i = 0; i < 3; ++i)
    parts[i] = n.f[slots[i]] != UINT32_MAX ? expr(NodeId{n.f[slots[i]]})
                                           : const_value(L.m.const_none, n.span);
  return emit(Op::BuildSlice, n.span, parts);
}

// ------------------------------------------------------ comprehensions ----

/// Adds a comprehension-scoped variable for every name a target binds.
static void bind_comp_targets(const ast::Module& a, NodeId t, Function& fn,
                              CompNames& out) {
  const ast::Node& n = a[t];
  switch (n.kind) {
    case NodeKind::Name:
      fn.vars.push_back(Var{n.f[S::Name::id], VarKind::CompLocal});
      out.push(n.f[S::Name::id], VarId(static_cast<uint32_t>(fn.vars.size() - 1)));
      break;
    case NodeKind::Tuple:
    case NodeKind::List:
      for (NodeId c : a.children(t, n.kind == NodeKind::Tuple ? S::Tuple::elts : S::List::elts))
        bind_comp_targets(a, c, fn, out);
      break;
    case NodeKind::Starred:
      bind_comp_targets(a, a.child(t, S::Starred::value), fn, out);
      break;
    default:
      break;  // attribute/subscript targets bind no name
  }
}

ValueId FnLowerer::lower_comprehension(NodeId e) {
  const ast::Node& n = a[e];
  int gslot = n.kind == NodeKind::DictComp ? S::DictComp::generators : S::ListComp::generators;
  auto gens = a.children(e, gslot);
  Op build = n.kind == NodeKind::SetComp    ? Op::BuildSet
             : n.kind == NodeKind::DictComp ? Op::BuildDict
                                            : Op::BuildList;
  ValueId result = emit(build, n.span, {});
  if (gens.empty()) return result;
  // The first iterable is evaluated in the enclosing scope, before any
  // comprehension name exists.
  ValueId first = expr(a.child(gens[0], S::comprehension::iter));
  size_t base = comp_vars_.size();
  lower_generator(e, gens, first, result);
  comp_vars_.truncate(base);
  // A generator expression is an iterator over what its loop produces (it
  // runs lazily; we model it as run where it is created).
  if (n.kind == NodeKind::GeneratorExp) return emit1(Op::GetIter, n.span, result, 0);
  return result;
}

void FnLowerer::lower_generator(NodeId e, std::span<const NodeId> gens, ValueId iterable,
                                ValueId result) {
  // One loop per `for` clause, nested: they are opened in one loop and
  // closed in a second, innermost first (one recursion per clause overflowed
  // the stack at 50,000 clauses, issue 20).
  const ast::Node& n = a[e];
  std::vector<std::pair<BlockId, BlockId>> loops;  // (header, exit) per clause
  loops.reserve(gens.size());
  for (size_t i = 0; i < gens.size(); ++i) {
    NodeId g = gens[i];
    if (i > 0) iterable = expr(a.child(g, S::comprehension::iter));
    bool is_async = a[g].f[S::comprehension::is_async] != 0;
    NodeId iter_e = a.child(g, S::comprehension::iter);
    ValueId it = emit1(Op::GetIter, a[iter_e].span, iterable, is_async ? 1 : 0, is_async ? kAsync : 0);
    BlockId header = new_block(), body = new_block(), exit = new_block();
    begin(header);
    ValueId o[1] = {it};
    terminate(Op::ForIter, a[iter_e].span, o, body, exit, is_async ? kAsync : 0);
    begin(body);
    NodeId target = a.child(g, S::comprehension::target);
    ValueId item = emit1(Op::NextItem, a[target].span, it);
    bind_comp_targets(a, target, f(), comp_vars_);
    store(target, item);
    for (NodeId c : a.children(g, S::comprehension::ifs)) {
      BlockId next = new_block();
      cond(c, next, header);
      begin(next);
    }
    loops.emplace_back(header, exit);
  }
  if (n.kind == NodeKind::DictComp) {
    NodeId k = a.child(e, S::DictComp::key), v = a.child(e, S::DictComp::value);
    ValueId kv = expr(k);
    emit3(Op::MapAdd, a[k].span, result, kv, expr(v));
  } else {
    NodeId elt = a.child(e, S::ListComp::elt);
    emit2(n.kind == NodeKind::SetComp ? Op::SetAdd : Op::ListAppend, a[elt].span, result,
          expr(elt));
  }
  jump(loops.back().first, Span{});
  for (size_t i = loops.size(); i-- > 0;) {
    begin(loops[i].second);
    if (i > 0) jump(loops[i - 1].first, Span{});
  }
}

}  // namespace tpf::ir
