// Lowering, part 2: statements. Control flow becomes explicit edges; `with`
// enter/exit and exception dispatch are instructions; finally bodies are
// copied onto every exit path (as CPython's compiler does), so each path's
// cleanup is visible to dataflow.
// requires: FnLowerer state (lower_state.h). produces: blocks and instructions.
#include "ir/lower_state.h"

namespace tpf::ir {

namespace S = ast::slot;
using ast::NodeId;
using ast::NodeKind;

// ---------------------------------------------------------- statements ----

void FnLowerer::stmts(ast::ListId body) {
  for (NodeId s : a.nodes_of(body))
    if (s.valid()) stmt(s);
}

void FnLowerer::stmt(NodeId s) {
  const ast::Node& n = a[s];
  switch (n.kind) {
    case NodeKind::FunctionDef:
      lower_function_def(s, false);
      break;
    case NodeKind::AsyncFunctionDef:
      lower_function_def(s, true);
      break;
    case NodeKind::ClassDef:
      lower_class_def(s);
      break;
    case NodeKind::Return:
      lower_return(s);
      break;
    case NodeKind::Delete:
      for (NodeId t : a.children(s, S::Delete::targets)) del_target(t);
      break;
    case NodeKind::Assign: {
      ValueId v = expr(a.child(s, S::Assign::value));
      for (NodeId t : a.children(s, S::Assign::targets)) store(t, v);
      break;
    }
    case NodeKind::TypeAlias: {
      // `type X[T] = v` binds X to a TypeAliasType; v (and T's bounds and
      // defaults) are evaluated lazily, on X.__value__, in an annotation
      // scope: nothing of them runs here.
      NodeId target = a.child(s, S::TypeAlias::name);
      Symbol name = a[target].kind == NodeKind::Name ? a[target].f[S::Name::id] : kNoSymbol;
      store(target, emit0(Op::MakeTypeAlias, n.span, name));
      break;
    }
    case NodeKind::AugAssign:
      lower_aug_assign(s);
      break;
    case NodeKind::AnnAssign:
      // Annotations are not evaluated (we model no types); a bare `x: int`
      // binds nothing.
      if (n.f[S::AnnAssign::value] != UINT32_MAX)
        store(a.child(s, S::AnnAssign::target), expr(a.child(s, S::AnnAssign::value)));
      break;
    case NodeKind::For:
      lower_for(s, false);
      break;
    case NodeKind::AsyncFor:
      lower_for(s, true);
      break;
    case NodeKind::While:
      lower_while(s);
      break;
    case NodeKind::If:
      lower_if(s);
      break;
    case NodeKind::With:
    case NodeKind::AsyncWith:
      lower_with(s, a.children(s, S::With::items), n.kind == NodeKind::AsyncWith);
      break;
    case NodeKind::Match:
      lower_match(s);
      break;
    case NodeKind::Raise: {
      ValueId ops[2];
      uint16_t k = 0;
      if (n.f[S::Raise::exc] != UINT32_MAX) ops[k++] = expr(a.child(s, S::Raise::exc));
      if (n.f[S::Raise::cause] != UINT32_MAX) ops[k++] = expr(a.child(s, S::Raise::cause));
      terminate(Op::Raise, n.span, std::span<const ValueId>(ops, k), kNoBlock, kNoBlock,
                k == 0 ? kReraise : 0);
      break;
    }
    case NodeKind::Try:
      lower_try(s, false);
      break;
    case NodeKind::TryStar:
      lower_try(s, true);
      break;
    case NodeKind::Assert: {
      BlockId ok = new_block(), fail = new_block();
      cond(a.child(s, S::Assert::test), ok, fail);
      begin(fail);
      if (n.f[S::Assert::msg] != UINT32_MAX) {
        ValueId o[1] = {expr(a.child(s, S::Assert::msg))};
        terminate(Op::Raise, n.span, o, kNoBlock, kNoBlock, kAssert);
      } else {
        terminate(Op::Raise, n.span, {}, kNoBlock, kNoBlock, kAssert);
      }
      begin(ok);
      break;
    }
    case NodeKind::Import:
      lower_import(s);
      break;
    case NodeKind::ImportFrom:
      lower_import_from(s);
      break;
    case NodeKind::Expr:
      expr(a.child(s, S::Expr::value));
      break;
    case NodeKind::Break:
      lower_break_continue(s, true);
      break;
    case NodeKind::Continue:
      lower_break_continue(s, false);
      break;
    case NodeKind::Global:
    case NodeKind::Nonlocal:
    case NodeKind::Pass:
    default:
      // Scope declarations emit nothing: they changed how names resolve.
      break;
  }
}

void FnLowerer::lower_return(NodeId s) {
  const ast::Node& n = a[s];
  ValueId v;
  if (n.f[S::Return::value] != UINT32_MAX) v = expr(a.child(s, S::Return::value));
  unwind_to(0);
  if (v.valid()) {
    ValueId o[1] = {v};
    terminate(Op::Return, n.span, o);
  } else {
    terminate(Op::Return, n.span, {});
  }
}

void FnLowerer::lower_break_continue(NodeId s, bool is_break) {
  size_t i = frames_.size();
  while (i > 0 && frames_[i - 1].kind != Frame::Loop) --i;
  if (i == 0) return;  // outside a loop: a SyntaxError CPython's compiler reports; nothing to do
  Frame loop = frames_[i - 1];
  unwind_to(i);
  jump(is_break ? loop.brk : loop.cont, a[s].span);
}

void FnLowerer::unwind_to(size_t depth) {
  BlockId saved_handler = handler_;
  uint32_t saved_with = with_region_;
  for (size_t i = frames_.size(); i-- > depth;) {
    Frame fr = frames_[i];
    if (fr.kind == Frame::Finally) {
      std::vector<Frame> saved(frames_.begin() + static_cast<long>(i), frames_.end());
      frames_.resize(i);
      set_context(fr.outer_handler, fr.outer_with);
      stmts(fr.finalbody);
      frames_.insert(frames_.end(), saved.begin(), saved.end());
    } else if (fr.kind == Frame::With) {
      set_context(fr.outer_handler, fr.outer_with);
      emit1(Op::WithExit, fr.span, fr.mgr, fr.region);
    }
  }
  // The exit terminator that follows keeps the innermost context it ran in;
  // restore the statement's own for any (dead) code after it.
  handler_ = saved_handler;
  with_region_ = saved_with;
}

void FnLowerer::lower_aug_assign(NodeId s) {
  const ast::Node& n = a[s];
  NodeId t = a.child(s, S::AugAssign::target);
  uint32_t op = static_cast<uint32_t>(n.op);
  const ast::Node& tn = a[t];
  switch (tn.kind) {
    case NodeKind::Name: {
      Symbol name = tn.f[S::Name::id];
      ValueId old = load_name(name, tn.span);
      ValueId rhs = expr(a.child(s, S::AugAssign::value));
      store_name(name, emit2(Op::BinOp, n.span, old, rhs, op, kInplaceOp), tn.span);
      break;
    }
    case NodeKind::Attribute: {
      ValueId obj = expr(a.child(t, S::Attribute::value));
      Symbol attr = tn.f[S::Attribute::attr];
      ValueId old = emit1(Op::GetAttr, tn.span, obj, attr);
      ValueId rhs = expr(a.child(s, S::AugAssign::value));
      emit2(Op::SetAttr, tn.span, obj, emit2(Op::BinOp, n.span, old, rhs, op, kInplaceOp), attr);
      break;
    }
    case NodeKind::Subscript: {
      ValueId obj = expr(a.child(t, S::Subscript::value));
      ValueId key = expr(a.child(t, S::Subscript::slice));
      ValueId old = emit2(Op::GetItem, tn.span, obj, key);
      ValueId rhs = expr(a.child(s, S::AugAssign::value));
      emit3(Op::SetItem, tn.span, obj, key, emit2(Op::BinOp, n.span, old, rhs, op, kInplaceOp));
      break;
    }
    default:
      expr(a.child(s, S::AugAssign::value));
      break;
  }
}

void FnLowerer::lower_if(NodeId s) {
  BlockId then_b = new_block(), else_b = new_block(), join = new_block();
  bool has_else = !a.children(s, S::If::orelse).empty();
  cond(a.child(s, S::If::test), then_b, has_else ? else_b : join);
  begin(then_b);
  stmts(a[s].f[S::If::body]);
  jump(join, Span{});
  if (has_else) {
    begin(else_b);
    stmts(a[s].f[S::If::orelse]);
    jump(join, Span{});
  }
  begin(join);
}

/// `while True:` (or any truthy constant): no exit edge from the header, as
/// CPython compiles it; only `break` leaves the loop.
static bool is_true_constant(const ast::Module& a, NodeId e) {
  const ast::Node& n = a[e];
  if (n.kind != NodeKind::Constant) return false;
  const ast::Constant& c = a.constants[n.f[S::Constant::value]];
  return c.kind == ast::Constant::Kind::True_ ||
         (c.kind == ast::Constant::Kind::Int && c.text != "0");
}

void FnLowerer::lower_while(NodeId s) {
  BlockId header = new_block(), body = new_block(), orelse = new_block(), exit = new_block();
  begin(header);
  NodeId test = a.child(s, S::While::test);
  if (is_true_constant(a, test)) {
    jump(body, a[test].span);
  } else {
    cond(test, body, orelse);
  }
  frames_.push_back(Frame{Frame::Loop, header, exit});
  begin(body);
  stmts(a[s].f[S::While::body]);
  jump(header, Span{});
  frames_.pop_back();
  begin(orelse);
  stmts(a[s].f[S::While::orelse]);
  jump(exit, Span{});
  begin(exit);
}

void FnLowerer::lower_for(NodeId s, bool is_async) {
  const ast::Node& n = a[s];
  NodeId iter_e = a.child(s, S::For::iter);
  ValueId it = emit1(Op::GetIter, a[iter_e].span, expr(iter_e), is_async ? 1 : 0,
                     is_async ? kAsync : 0);
  BlockId header = new_block(), body = new_block(), orelse = new_block(), exit = new_block();
  begin(header);
  ValueId o[1] = {it};
  terminate(Op::ForIter, n.span, o, body, orelse, is_async ? kAsync : 0);
  frames_.push_back(Frame{Frame::Loop, header, exit});
  begin(body);
  NodeId target = a.child(s, S::For::target);
  store(target, emit1(Op::NextItem, a[target].span, it));
  stmts(n.f[S::For::body]);
  jump(header, Span{});
  frames_.pop_back();
  begin(orelse);
  stmts(a[s].f[S::For::orelse]);
  jump(exit, Span{});
  begin(exit);
}

void FnLowerer::lower_with(NodeId s, std::span<const NodeId> items, bool is_async) {
  // `with a, b: body` is `with a: with b: body`. Items are entered in one
  // loop and left in a second, innermost first: one recursion per item
  // overflowed the stack at 50,000 items (issue 20).
  struct Entered {
    NodeId ctx;
    BlockId on_exc, after;
  };
  std::vector<Entered> entered_items;
  entered_items.reserve(items.size());
  size_t frame_base = frames_.size();
  for (NodeId item : items) {
    NodeId ctx = a.child(item, S::withitem::context_expr);
    ValueId mgr = expr(ctx);
    Function& fn = f();
    uint32_t region = static_cast<uint32_t>(fn.withs.size());
    fn.withs.push_back(WithRegion{with_region_, mgr, InstId(), is_async});
    f().withs[region].enter = InstId(static_cast<uint32_t>(f().insts.size()));
    ValueId entered = emit1(Op::WithEnter, a[ctx].span, mgr, region, is_async ? kAsync : 0);
    BlockId outer_handler = handler_;
    uint32_t outer_with = with_region_;
    BlockId on_exc = new_block(), after = new_block();
    set_context(on_exc, region);
    if (a[item].f[S::withitem::optional_vars] != UINT32_MAX)
      store(a.child(item, S::withitem::optional_vars), entered);
    Frame fr{Frame::With, kNoBlock, kNoBlock};
    fr.outer_handler = outer_handler;
    fr.outer_with = outer_with;
    fr.mgr = mgr;
    fr.region = region;
    fr.span = a[ctx].span;
    frames_.push_back(fr);
    entered_items.push_back(Entered{ctx, on_exc, after});
  }
  stmts(a[s].f[S::With::body]);
  for (size_t k = entered_items.size(); k-- > 0;) {
    const Entered& en = entered_items[k];
    Frame fr = frames_[frame_base + k];
    frames_.pop_back();
    if (open()) {
      set_context(fr.outer_handler, fr.outer_with);
      emit1(Op::WithExit, a[en.ctx].span, fr.mgr, fr.region);
      jump(en.after, Span{});
    }
    // Exceptional exit: __exit__ runs, then the exception propagates (we do
    // not model managers that swallow exceptions, e.g. contextlib.suppress).
    handler_ = fr.outer_handler;
    with_region_ = fr.outer_with;
    begin(en.on_exc);
    emit1(Op::WithExit, a[en.ctx].span, fr.mgr, fr.region, kExceptional);
    terminate(Op::Raise, a[en.ctx].span, {}, kNoBlock, kNoBlock, kReraise);
    begin(en.after);
  }
}

void FnLowerer::lower_try(NodeId s, bool star) {
  const ast::Node& n = a[s];
  auto handlers = a.children(s, S::Try::handlers);
  bool has_final = !a.children(s, S::Try::finalbody).empty();
  BlockId outer_h = handler_;
  uint32_t outer_w = with_region_;
  BlockId fin_exc = has_final ? new_block() : kNoBlock;
  BlockId prot_h = has_final ? fin_exc : outer_h;  // protects handlers and else
  BlockId dispatch = handlers.empty() ? kNoBlock : new_block();
  BlockId body_h = dispatch.valid() ? dispatch : prot_h;
  if (has_final) {
    Frame fr{Frame::Finally, kNoBlock, kNoBlock};
    fr.finalbody = n.f[S::Try::finalbody];
    fr.outer_handler = outer_h;
    fr.outer_with = outer_w;
    fr.span = n.span;
    frames_.push_back(fr);
  }
  // An empty entry block whose handler edge carries the state at `try:`.
  handler_ = body_h;
  begin(new_block());
  begin(new_block());
  stmts(n.f[S::Try::body]);
  set_context(prot_h, outer_w);
  stmts(n.f[S::Try::orelse]);
  BlockId normal_end = new_block();
  jump(normal_end, Span{});
  if (dispatch.valid()) {
    handler_ = prot_h;
    with_region_ = outer_w;
    begin(dispatch);
    ValueId exc = emit0(Op::CurrentExc, n.span);
    bool last_typed = true;
    for (NodeId h : handlers) {
      const ast::Node& hn = a[h];
      BlockId next = kNoBlock;
      last_typed = hn.f[S::ExceptHandler::type] != UINT32_MAX;
      if (last_typed) {
        ValueId t = expr(a.child(h, S::ExceptHandler::type));
        ValueId m = emit2(Op::ExceptMatch, hn.span, exc, t, UINT32_MAX, star ? kStarElem : 0);
        BlockId hb = new_block();
        next = new_block();
        branch(m, hb, next, hn.span);
        begin(hb);
      }
      Symbol name = hn.f[S::ExceptHandler::name];
      if (name != kNoSymbol) store_name(name, exc, hn.span);
      stmts(hn.f[S::ExceptHandler::body]);
      // CPython deletes the `as` name when the handler ends.
      if (name != kNoSymbol && open()) store_name(name, emit0(Op::Undef, hn.span), hn.span);
      jump(normal_end, Span{});
      if (next.valid()) begin(next);
      else break;  // a bare except catches everything; later handlers are dead
    }
    if (last_typed) terminate(Op::Raise, n.span, {}, kNoBlock, kNoBlock, kReraise);
  }
  handler_ = prot_h;
  with_region_ = outer_w;
  begin(normal_end);
  if (has_final) {
    frames_.pop_back();
    set_context(outer_h, outer_w);
    stmts(n.f[S::Try::finalbody]);
    BlockId after = new_block();
    jump(after, Span{});
    handler_ = outer_h;
    with_region_ = outer_w;
    begin(fin_exc);
    stmts(n.f[S::Try::finalbody]);
    if (open()) terminate(Op::Raise, n.span, {}, kNoBlock, kNoBlock, kReraise);
    begin(after);
  } else {
    set_context(outer_h, outer_w);
  }
}

// ---- match statement ----

void FnLowerer::lower_match(NodeId s) {
  ValueId subject = expr(a.child(s, S::Match::subject));
  BlockId end = new_block();
  for (NodeId c : a.children(s, S::Match::cases)) {
    const ast::Node& cn = a[c];
    BlockId next = new_block();
    lower_pattern(a.child(c, S::match_case::pattern), subject, next);
    if (cn.f[S::match_case::guard] != UINT32_MAX) {
      BlockId body = new_block();
      cond(a.child(c, S::match_case::guard), body, next);
      begin(body);
    }
    stmts(cn.f[S::match_case::body]);
    jump(end, Span{});
    begin(next);
  }
  jump(end, Span{});
  begin(end);
}

void FnLowerer::lower_pattern(NodeId p, ValueId subject, BlockId fail) {
  const ast::Node& n = a[p];
  auto test = [&](ValueId ok) {
    BlockId cont = new_block();
    branch(ok, cont, fail, n.span);
    begin(cont);
  };
  switch (n.kind) {
    case NodeKind::MatchValue:
      test(emit2(Op::Compare, n.span, subject, expr(a.child(p, S::MatchValue::value)),
                 static_cast<uint32_t>(ast::Op::Eq)));
      break;
    case NodeKind::MatchSingleton:
      test(emit2(Op::Compare, n.span, subject,
                 const_value(n.f[S::MatchSingleton::value], n.span),
                 static_cast<uint32_t>(ast::Op::Is)));
      break;
    case NodeKind::MatchSequence: {
      auto pats = a.children(p, S::MatchSequence::patterns);
      uint32_t star = 0xFFFF;
      for (size_t i = 0; i < pats.size(); ++i)
        if (a[pats[i]].kind == NodeKind::MatchStar) star = static_cast<uint32_t>(i);
      uint32_t shape = static_cast<uint32_t>(pats.size()) | (star << 16);
      test(emit1(Op::MatchSeq, n.span, subject, shape));
      for (size_t i = 0; i < pats.size(); ++i) {
        const ast::Node& pn = a[pats[i]];
        bool is_star = pn.kind == NodeKind::MatchStar;
        ValueId e = emit1(Op::Element, pn.span, subject, static_cast<uint32_t>(i),
                          is_star ? kStarElem : 0);
        if (is_star) {
          if (pn.f[S::MatchStar::name] != kNoSymbol)
            store_name(pn.f[S::MatchStar::name], e, pn.span);
        } else {
          lower_pattern(pats[i], e, fail);
        }
      }
      break;
    }
    case NodeKind::MatchMapping: {
      auto keys = a.children(p, S::MatchMapping::keys);
      auto pats = a.children(p, S::MatchMapping::patterns);
      size_t base = scratch_.size();
      scratch_.push_back(subject);
      for (NodeId k : keys) scratch_.push_back(expr(k));
      std::vector<ValueId> ops(scratch_.begin() + base, scratch_.end());
      scratch_.resize(base);
      test(emit(Op::MatchMap, n.span, ops));
      for (size_t i = 0; i < pats.size() && i + 1 < ops.size(); ++i)
        lower_pattern(pats[i], emit2(Op::GetItem, a[pats[i]].span, subject, ops[i + 1]), fail);
      if (n.f[S::MatchMapping::rest] != kNoSymbol)
        store_name(n.f[S::MatchMapping::rest], emit(Op::MatchMapRest, n.span, ops), n.span);
      break;
    }
    case NodeKind::MatchClass: {
      ValueId cls = expr(a.child(p, S::MatchClass::cls));
      auto pats = a.children(p, S::MatchClass::patterns);
      test(emit2(Op::MatchCls, n.span, subject, cls, static_cast<uint32_t>(pats.size())));
      for (size_t i = 0; i < pats.size(); ++i)
        lower_pattern(pats[i],
                      emit2(Op::MatchClsArg, a[pats[i]].span, subject, cls,
                            static_cast<uint32_t>(i)),
                      fail);
      auto attrs = a.list(n.f[S::MatchClass::kwd_attrs]);
      auto kpats = a.children(p, S::MatchClass::kwd_patterns);
      for (size_t i = 0; i < kpats.size() && i < attrs.size(); ++i)
        lower_pattern(kpats[i], emit1(Op::GetAttr, a[kpats[i]].span, subject, attrs[i]), fail);
      break;
    }
    case NodeKind::MatchStar:
      if (n.f[S::MatchStar::name] != kNoSymbol) store_name(n.f[S::MatchStar::name], subject, n.span);
      break;
    case NodeKind::MatchAs:
      if (n.f[S::MatchAs::pattern] != UINT32_MAX)
        lower_pattern(a.child(p, S::MatchAs::pattern), subject, fail);
      if (n.f[S::MatchAs::name] != kNoSymbol) store_name(n.f[S::MatchAs::name], subject, n.span);
      break;
    case NodeKind::MatchOr: {
      auto alts = a.children(p, S::MatchOr::patterns);
      BlockId matched = new_block();
      for (size_t i = 0; i < alts.size(); ++i) {
        BlockId alt_fail = i + 1 < alts.size() ? new_block() : fail;
        lower_pattern(alts[i], subject, alt_fail);
        jump(matched, Span{});
        if (i + 1 < alts.size()) begin(alt_fail);
      }
      begin(matched);
      break;
    }
    default:
      break;
  }
}

// ---- imports ----

void FnLowerer::lower_import(NodeId s) {
  Names& names = L.m.names;
  for (NodeId al : a.children(s, S::Import::names)) {
    const ast::Node& an = a[al];
    std::string_view dotted = names.str(an.f[S::alias::name]);
    Symbol as = an.f[S::alias::asname];
    if (as != kNoSymbol) {
      // `import a.b as c` binds c to the module a.b.
      ValueId v = emit0(Op::Import, an.span, names.intern_path(dotted).v);
      store_name(as, v, an.span);
    } else {
      // `import a.b` binds a (and loads a.b, which a.b.f later reaches through a).
      size_t dot = dotted.find('.');
      std::string_view first = dotted.substr(0, dot);
      ValueId v = emit0(Op::Import, an.span, names.intern_path(first).v);
      store_name(names.intern(first), v, an.span);
    }
  }
}

void FnLowerer::lower_import_from(NodeId s) {
  Names& names = L.m.names;
  const ast::Node& n = a[s];
  std::string mod(static_cast<size_t>(n.f[S::ImportFrom::level]), '.');
  if (n.f[S::ImportFrom::module] != kNoSymbol) mod += names.str(n.f[S::ImportFrom::module]);
  PathId base = names.intern_path(mod);
  for (NodeId al : a.children(s, S::ImportFrom::names)) {
    const ast::Node& an = a[al];
    Symbol name = an.f[S::alias::name];
    if (names.str(name) == "*") {
      emit0(Op::ImportStar, an.span, base.v);
      continue;
    }
    ValueId v = emit0(Op::Import, an.span, names.path(base, name).v, kImportFrom);
    Symbol as = an.f[S::alias::asname];
    store_name(as != kNoSymbol ? as : name, v, an.span);
  }
}

}  // namespace tpf::ir
