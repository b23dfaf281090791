// Lowering, part 1: the driver, block/instruction emission and statements.
// Control flow becomes explicit edges; `with` enter/exit and exception
// dispatch are instructions; finally bodies are copied onto every exit path
// (as CPython's compiler does), so each path's cleanup is visible to dataflow.
// requires: a parsed ast::Module. produces: ir::Module, pre-SSA.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "ir/lower_state.h"

namespace tpf::ir {

namespace S = ast::slot;
using ast::NodeId;
using ast::NodeKind;

[[noreturn]] void internal_error(std::string_view what) {
  std::fprintf(stderr,
               "tpf-analyze: internal error: %.*s\n"
               "this is a bug in tpf-analyze; please report it with the input file\n",
               static_cast<int>(what.size()), what.data());
  std::abort();
}

// ------------------------------------------------------------ Lowerer ----

Lowerer::Lowerer(const ast::Module& am, const SourceFile& src, DiagSink& diags)
    : a(am), diags_(diags) {
  m.ast = &am;
  m.src = &src;
  m.names = Names(am);
  sym_module = m.names.intern("<module>");
  sym_lambda = m.names.intern("<lambda>");
  sym_locals = m.names.intern("<locals>");
  sym_self = m.names.intern("self");
  m.extra_constants.push_back(ast::Constant{});  // None
  m.const_none = static_cast<ConstId>(am.constants.size());
}

FunctionId Lowerer::new_function(NodeId node, FunctionKind kind, FunctionId parent, Symbol name,
                                 ClassId owner) {
  FunctionId id(static_cast<uint32_t>(m.functions.size()));
  m.functions.emplace_back();
  Function& fn = m.functions.back();
  fn.name = name;
  fn.kind = kind;
  fn.parent = parent;
  fn.owner = owner;
  fn.node = node;
  fn.span = a[node].span;
  if (!parent.valid()) {
    fn.qualname = m.names.path(kNoPath, name);
  } else {
    // CPython's __qualname__: methods are Class.f, nested functions f.<locals>.g.
    const Function& p = m.functions[parent.v];
    PathId base = p.kind == FunctionKind::Module ? kNoPath
                  : p.kind == FunctionKind::ClassBody
                      ? p.qualname
                      : m.names.path(p.qualname, sym_locals);
    fn.qualname = m.names.path(base, name);
  }
  scopes.emplace_back();
  scopes.back().kind = kind;
  scopes.back().parent = parent;
  if (parent.valid()) pending_.push_back(id);
  return id;
}

ClassId Lowerer::new_class(NodeId node, FunctionId defined_in, Symbol name) {
  ClassId id(static_cast<uint32_t>(m.classes.size()));
  m.classes.emplace_back();
  m.classes.back().name = name;
  m.classes.back().node = node;
  m.classes.back().defined_in = defined_in;
  FunctionId body = new_function(node, FunctionKind::ClassBody, defined_in, name, id);
  m.classes[id.v].body = body;
  m.classes[id.v].qualname = m.functions[body.v].qualname;
  return id;
}

NameKind Lowerer::resolve_enclosing(FunctionId from, Symbol s) const {
  // Class scopes are skipped: methods do not see class-level names.
  for (FunctionId p = scopes[from.v].parent; p.valid(); p = scopes[p.v].parent) {
    const Scope& sc = scopes[p.v];
    if (sc.kind == FunctionKind::Module) return NameKind::Global;
    if (sc.kind == FunctionKind::ClassBody) continue;
    if (Scope::has(sc.globals, s)) return NameKind::Global;
    if (sc.local(s).valid() || Scope::has(sc.nonlocals, s)) return NameKind::Free;
  }
  return NameKind::Global;
}

Module Lowerer::run() {
  new_function(a.root, FunctionKind::Module, FunctionId(), sym_module, ClassId());
  {
    FnLowerer fl(*this, FunctionId(0));
    fl.lower_body_of(a.root);
  }
  for (size_t i = 0; i < pending_.size(); ++i) {
    FnLowerer fl(*this, pending_[i]);
    fl.lower_body_of(m.functions[pending_[i].v].node);
  }
  std::sort(stored_globally_.begin(), stored_globally_.end());
  stored_globally_.erase(std::unique(stored_globally_.begin(), stored_globally_.end()),
                         stored_globally_.end());
  m.stored_globally = std::move(stored_globally_);
  (void)diags_;  // lowering reports nothing: what it does not model becomes Undef
  return std::move(m);
}

Module lower(const ast::Module& a, const SourceFile& src, DiagSink& diags) {
  Lowerer l(a, src, diags);
  return l.run();
}

// ----------------------------------------------------------- emission ----

FnLowerer::FnLowerer(Lowerer& l, FunctionId fid) : L(l), a(l.a), fid_(fid) {}

Function& FnLowerer::f() { return L.m.functions[fid_.v]; }
const Scope& FnLowerer::scope() const { return L.scopes[fid_.v]; }

BlockId FnLowerer::new_block() {
  Function& fn = f();
  fn.blocks.emplace_back();
  return BlockId(static_cast<uint32_t>(fn.blocks.size() - 1));
}

void FnLowerer::begin(BlockId b) {
  if (cur_.valid()) jump(b, Span{});
  Function& fn = f();
  Block& bl = fn.blocks[b.v];
  if (bl.first != UINT32_MAX) internal_error("lower: block begun twice");
  bl.first = static_cast<uint32_t>(fn.insts.size());
  bl.exc = handler_;
  bl.with_region = with_region_;
  cur_ = b;
}

ValueId FnLowerer::emit(Op op, Span sp, std::span<const ValueId> ops, uint32_t aux,
                        uint8_t flags) {
  if (!cur_.valid()) begin(new_block());  // code after return/raise/break: a dead block
  Function& fn = f();
  Inst in;
  in.op = op;
  in.flags = flags;
  in.aux = aux;
  in.span = sp;
  in.nops = static_cast<uint16_t>(ops.size());
  if (ops.size() <= 3) {
    for (size_t i = 0; i < ops.size(); ++i) in.ops[i] = ops[i];
  } else {
    in.ops[0] = ValueId(static_cast<uint32_t>(fn.operand_pool.size()));
    fn.operand_pool.insert(fn.operand_pool.end(), ops.begin(), ops.end());
  }
  InstId id(static_cast<uint32_t>(fn.insts.size()));
  if (has_effect(op, kDef)) {
    in.result = ValueId(static_cast<uint32_t>(fn.values.size()));
    fn.values.push_back(Value{id, VarId()});
  }
  fn.insts.push_back(in);
  return in.result;
}

void FnLowerer::terminate(Op op, Span sp, std::span<const ValueId> ops, BlockId s0, BlockId s1,
                          uint8_t flags) {
  emit(op, sp, ops, UINT32_MAX, flags);
  Function& fn = f();
  Block& bl = fn.blocks[cur_.v];
  bl.count = static_cast<uint32_t>(fn.insts.size()) - bl.first;
  bl.succ[0] = s0;
  bl.succ[1] = s1;
  cur_ = kNoBlock;
}

void FnLowerer::jump(BlockId target, Span sp) {
  if (!cur_.valid()) return;
  terminate(Op::Jump, sp, {}, target);
}

void FnLowerer::branch(ValueId c, BlockId t, BlockId fb, Span sp) {
  ValueId o[1] = {c};
  terminate(Op::Branch, sp, o, t, fb);
}

void FnLowerer::set_context(BlockId handler, uint32_t with_region) {
  if (handler == handler_ && with_region == with_region_) return;
  handler_ = handler;
  with_region_ = with_region;
  if (cur_.valid()) begin(new_block());
}

VarId FnLowerer::new_temp() {
  Function& fn = f();
  fn.vars.push_back(Var{kNoSymbol, VarKind::Temp});
  return VarId(static_cast<uint32_t>(fn.vars.size() - 1));
}

// ----------------------------------------------------------- functions ----

void FnLowerer::lower_body_of(NodeId node) {
  Scope& sc = L.scopes[fid_.v];
  {
    Scope scanned = compute_scope(a, L.m.names, node, sc.kind);
    sc.locals = std::move(scanned.locals);
    sc.globals = std::move(scanned.globals);
    sc.nonlocals = std::move(scanned.nonlocals);
  }
  Function& fn = f();
  fn.vars.reserve(sc.locals.size() + 8);
  for (Symbol s : sc.locals) fn.vars.push_back(Var{s, VarKind::Local});
  fn.local_count = static_cast<uint32_t>(sc.locals.size());
  begin(new_block());
  const ast::Node& n = a[node];
  Span end_span{n.span.end, n.span.end};
  switch (n.kind) {
    case NodeKind::Module:
      stmts(n.f[S::Module::body]);
      break;
    case NodeKind::FunctionDef:
    case NodeKind::AsyncFunctionDef:
      lower_params(NodeId{n.f[S::FunctionDef::args]});
      stmts(n.f[S::FunctionDef::body]);
      break;
    case NodeKind::Lambda: {
      lower_params(NodeId{n.f[S::Lambda::args]});
      NodeId body{n.f[S::Lambda::body]};
      ValueId v = expr(body);
      ValueId o[1] = {v};
      terminate(Op::Return, a[body].span, o);
      break;
    }
    case NodeKind::ClassDef:
      stmts(n.f[S::ClassDef::body]);
      break;
    default:
      break;
  }
  if (cur_.valid()) terminate(Op::Return, end_span, {});
}

void FnLowerer::lower_params(NodeId args) {
  const ast::Node& n = a[args];
  auto add = [&](NodeId p, ParamKind k) {
    Symbol name = a[p].f[S::arg::arg];
    uint32_t index = static_cast<uint32_t>(f().params.size());
    f().params.push_back(Param{name, k, false});
    ValueId v = emit0(Op::Param, a[p].span, index);
    store_name(name, v, a[p].span);
  };
  for (NodeId p : a.nodes_of(n.f[S::arguments::posonlyargs])) add(p, ParamKind::PosOnly);
  for (NodeId p : a.nodes_of(n.f[S::arguments::args])) add(p, ParamKind::Normal);
  if (n.f[S::arguments::vararg] != UINT32_MAX)
    add(NodeId{n.f[S::arguments::vararg]}, ParamKind::VarArgs);
  for (NodeId p : a.nodes_of(n.f[S::arguments::kwonlyargs])) add(p, ParamKind::KwOnly);
  if (n.f[S::arguments::kwarg] != UINT32_MAX)
    add(NodeId{n.f[S::arguments::kwarg]}, ParamKind::KwArgs);
  // Defaults belong to the last positional parameters, then to kw-only ones.
  Function& fn = f();
  size_t npos = a.nodes_of(n.f[S::arguments::posonlyargs]).size() +
                a.nodes_of(n.f[S::arguments::args]).size();
  size_t ndef = a.nodes_of(n.f[S::arguments::defaults]).size();
  size_t pi = 0;
  for (size_t i = 0; i < fn.params.size(); ++i) {
    if (fn.params[i].kind == ParamKind::PosOnly || fn.params[i].kind == ParamKind::Normal) {
      fn.params[i].has_default = pi >= npos - std::min(ndef, npos);
      ++pi;
    }
  }
  auto kwd = a.nodes_of(n.f[S::arguments::kw_defaults]);
  size_t ki = 0;
  for (Param& p : fn.params)
    if (p.kind == ParamKind::KwOnly) {
      p.has_default = ki < kwd.size() && kwd[ki].valid();
      ++ki;
    }
}

void FnLowerer::lower_function_def(NodeId s, bool is_async) {
  const ast::Node& n = a[s];
  size_t base = scratch_.size();
  for (NodeId d : a.nodes_of(n.f[S::FunctionDef::decorator_list])) scratch_.push_back(expr(d));
  size_t ndec = scratch_.size() - base;
  NodeId args{n.f[S::FunctionDef::args]};
  for (NodeId d : a.nodes_of(a[args].f[S::arguments::defaults])) scratch_.push_back(expr(d));
  for (NodeId d : a.nodes_of(a[args].f[S::arguments::kw_defaults]))
    if (d.valid()) scratch_.push_back(expr(d));
  const Scope& sc = scope();
  ClassId owner = sc.kind == FunctionKind::ClassBody ? f().owner : ClassId();
  Symbol name = n.f[S::FunctionDef::name];
  FunctionId nf = L.new_function(s, FunctionKind::Function, fid_, name, owner);
  std::vector<ValueId> decos(scratch_.begin() + base, scratch_.begin() + base + ndec);
  std::vector<ValueId> defs(scratch_.begin() + base + ndec, scratch_.end());
  scratch_.resize(base);
  ValueId v = emit(Op::MakeFunction, n.span, defs, nf.v);
  for (size_t i = decos.size(); i-- > 0;) {
    Function& fn = f();
    fn.calls.push_back(CallInfo{1, 0, static_cast<uint32_t>(fn.kw_names.size()), 0});
    uint32_t call = static_cast<uint32_t>(fn.calls.size() - 1);
    v = emit2(Op::Call, a[NodeId{a.list(n.f[S::FunctionDef::decorator_list])[i]}].span, decos[i],
              v, call, kDecorator);
  }
  Function& child = L.m.functions[nf.v];
  child.is_async = is_async;
  child.defaults = std::move(defs);
  child.decorators = std::move(decos);
  child.value = v;
  if (owner.valid()) L.m.classes[owner.v].methods.emplace_back(name, nf);
  // The name's span: CPython has none; use the statement's.
  store_name(name, v, n.span);
}

void FnLowerer::lower_class_def(NodeId s) {
  const ast::Node& n = a[s];
  size_t base = scratch_.size();
  for (NodeId d : a.nodes_of(n.f[S::ClassDef::decorator_list])) scratch_.push_back(expr(d));
  std::vector<ValueId> decos(scratch_.begin() + base, scratch_.end());
  scratch_.resize(base);
  std::vector<ValueId> bases;
  for (NodeId b : a.nodes_of(n.f[S::ClassDef::bases])) {
    NodeId e = a[b].kind == NodeKind::Starred ? a.child(b, S::Starred::value) : b;
    bases.push_back(expr(e));
  }
  std::vector<Symbol> kwn;
  std::vector<ValueId> kwv;
  for (NodeId k : a.nodes_of(n.f[S::ClassDef::keywords])) {
    kwn.push_back(a[k].f[S::keyword::arg]);
    kwv.push_back(expr(a.child(k, S::keyword::value)));
  }
  Symbol name = n.f[S::ClassDef::name];
  ClassId nc = L.new_class(s, fid_, name);
  std::vector<ValueId> ops(bases);
  ops.insert(ops.end(), kwv.begin(), kwv.end());
  ValueId v = emit(Op::MakeClass, n.span, ops, nc.v);
  for (size_t i = decos.size(); i-- > 0;) {
    Function& fn = f();
    fn.calls.push_back(CallInfo{1, 0, static_cast<uint32_t>(fn.kw_names.size()), 0});
    uint32_t call = static_cast<uint32_t>(fn.calls.size() - 1);
    v = emit2(Op::Call, a[NodeId{a.list(n.f[S::ClassDef::decorator_list])[i]}].span, decos[i], v,
              call, kDecorator);
  }
  Class& c = L.m.classes[nc.v];
  c.bases = std::move(bases);
  c.keyword_names = std::move(kwn);
  c.keyword_values = std::move(kwv);
  c.decorators = std::move(decos);
  c.value = v;
  store_name(name, v, n.span);
}

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
      NodeId target = a.child(s, S::TypeAlias::name);
      ValueId v = expr(a.child(s, S::TypeAlias::value));
      Symbol name = a[target].kind == NodeKind::Name ? a[target].f[S::Name::id] : kNoSymbol;
      store(target, emit1(Op::MakeTypeAlias, n.span, v, name));
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
  if (items.empty()) {
    stmts(a[s].f[S::With::body]);
    return;
  }
  NodeId item = items[0];
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
  lower_with(s, items.subspan(1), is_async);
  frames_.pop_back();
  if (open()) {
    set_context(outer_handler, outer_with);
    emit1(Op::WithExit, a[ctx].span, mgr, region);
    jump(after, Span{});
  }
  // Exceptional exit: __exit__ runs, then the exception propagates (we do not
  // model managers that swallow exceptions, e.g. contextlib.suppress).
  handler_ = outer_handler;
  with_region_ = outer_with;
  begin(on_exc);
  emit1(Op::WithExit, a[ctx].span, mgr, region, kExceptional);
  terminate(Op::Raise, a[ctx].span, {}, kNoBlock, kNoBlock, kReraise);
  begin(after);
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
