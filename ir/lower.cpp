// Lowering, part 1: the driver (module first, then every nested scope in
// creation order), block/instruction emission, function and class
// definitions. Statements are in lower_stmt.cpp, expressions in lower_expr.cpp.
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
  // Class scopes are skipped: methods do not see class-level names. They do
  // see a generic class's type parameters (its annotation scope is not a
  // class scope).
  for (FunctionId p = scopes[from.v].parent; p.valid(); p = scopes[p.v].parent) {
    const Scope& sc = scopes[p.v];
    if (sc.kind == FunctionKind::Module) return NameKind::Global;
    if (Scope::has(sc.type_params, s)) return NameKind::Free;
    if (sc.kind == FunctionKind::ClassBody) continue;
    if (Scope::has(sc.globals, s)) return NameKind::Global;
    if (sc.local(s).valid() || Scope::has(sc.nonlocals, s)) return NameKind::Free;
  }
  return NameKind::Global;
}

Module Lowerer::run() {
  // One Function per def, lambda and class body, plus the module: reserved,
  // so growing the vector never holds two copies of it (with 300,000
  // functions that was a third of the file's peak memory).
  size_t functions = 1, classes = 0;
  for (const ast::Node& n : a.nodes) {
    functions += n.kind == NodeKind::FunctionDef || n.kind == NodeKind::AsyncFunctionDef ||
                 n.kind == NodeKind::Lambda || n.kind == NodeKind::ClassDef;
    classes += n.kind == NodeKind::ClassDef;
  }
  own_bytes_of_scopes(functions);
  m.functions.reserve(functions);
  m.classes.reserve(classes);
  new_function(a.root, FunctionKind::Module, FunctionId(), sym_module, ClassId());
  auto lower_one = [&](FunctionId id) {
    size_t first_function = m.functions.size(), first_class = m.classes.size();
    {
      FnLowerer fl(*this, id);
      fl.lower_body_of(m.functions[id.v].node);
    }
    if (on_lowered) on_lowered(id, first_function, first_class);
  };
  lower_one(FunctionId(0));
  for (size_t i = 0; i < pending_.size(); ++i) lower_one(pending_[i]);
  std::sort(stored_globally_.begin(), stored_globally_.end());
  stored_globally_.erase(std::unique(stored_globally_.begin(), stored_globally_.end()),
                         stored_globally_.end());
  m.stored_globally = std::move(stored_globally_);
  for (Class& c : m.classes) c.index_methods();
  (void)diags_;  // lowering reports nothing: what it does not model becomes Undef
  return std::move(m);
}

void Lowerer::own_bytes_of_scopes(size_t count) {
  // Scopes by start, the outer first; a stack of the ones still open. Each
  // scope's text leaves its directly enclosing one's.
  struct Open {
    uint32_t node, begin, end;
  };
  std::vector<Open> scopes_by_start;
  scopes_by_start.reserve(count);
  for (uint32_t i = 0; i < a.nodes.size(); ++i) {
    const ast::Node& n = a.nodes[i];
    if (n.kind == NodeKind::FunctionDef || n.kind == NodeKind::AsyncFunctionDef ||
        n.kind == NodeKind::Lambda || n.kind == NodeKind::ClassDef || i == a.root.v)
      scopes_by_start.push_back(Open{i, n.span.begin, n.span.end});
  }
  std::sort(scopes_by_start.begin(), scopes_by_start.end(), [](const Open& x, const Open& y) {
    return x.begin != y.begin ? x.begin < y.begin : x.end > y.end;
  });
  own_bytes_.clear();
  own_bytes_.reserve(scopes_by_start.size());
  for (const Open& o : scopes_by_start) own_bytes_.push_back({o.node, o.end - o.begin});
  std::sort(own_bytes_.begin(), own_bytes_.end());
  auto own = [&](uint32_t node) -> uint32_t& {
    return std::lower_bound(own_bytes_.begin(), own_bytes_.end(), std::pair{node, 0u})->second;
  };
  std::vector<Open> open;
  for (const Open& o : scopes_by_start) {
    while (!open.empty() && open.back().end <= o.begin) open.pop_back();
    if (!open.empty()) {
      uint32_t& parent = own(open.back().node);
      parent -= std::min(parent, o.end - o.begin);
    }
    open.push_back(o);
  }
}

size_t Lowerer::own_bytes(NodeId node) const {
  auto it = std::lower_bound(own_bytes_.begin(), own_bytes_.end(), std::pair{node.v, 0u});
  if (it != own_bytes_.end() && it->first == node.v) return it->second;
  return a[node].span.end - a[node].span.begin;
}

Module lower(const ast::Module& a, const SourceFile& src, DiagSink& diags) {
  Lowerer l(a, src, diags);
  return l.run();
}

// ----------------------------------------------------------- emission ----

FnLowerer::FnLowerer(Lowerer& l, FunctionId fid)
    : L(l), a(l.a), fid_(fid), frames_(l.frames_), scratch_(l.scratch_) {}

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
  if (ops.size() <= 3) {
    in.nops = static_cast<uint16_t>(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) in.ops[i] = ops[i];
  } else {
    in.ops[0] = ValueId(static_cast<uint32_t>(fn.operand_pool.size()));
    Function::set_operand_count(in, ops.size());
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
    sc.type_params = std::move(scanned.type_params);
  }
  Function& fn = f();
  fn.vars.reserve(sc.locals.size() + 8);
  // Sizes from the scope's own source length (about one instruction per 8
  // bytes of Python, one block per 80), so the vectors rarely regrow. Nested
  // defs, lambdas and classes are not counted: with them, a 16 MB file's
  // top level reserved 64 MB of instructions it never wrote, and each class
  // body as much as its methods.
  size_t bytes = L.own_bytes(node);
  fn.insts.reserve(bytes / 8 + 8);
  fn.values.reserve(bytes / 10 + 8);
  fn.blocks.reserve(bytes / 80 + 4);
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

}  // namespace tpf::ir
