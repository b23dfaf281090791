// Resolution: referents, constants and call targets of every value, by a
// forward pass over each function in id order (parents before the functions
// they create), repeated 3 times so facts flow across functions (a module
// calling a function defined later, self.x set in __init__ read in forward).
// Three rounds cover chains of depth 3 (module -> helper -> helper); deeper
// chains stay Unknown, which is safe.
// requires: ir::build (SSA). produces: Resolution. Interns new paths in Module::names.
#include "ir/resolve.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <unordered_map>

#include "ir/cfg.h"

namespace tpf::ir {

namespace {

constexpr int kRounds = 3;

/// Names Python resolves without an import. Sorted.
constexpr std::string_view kBuiltins[] = {
    "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception",
    "FileNotFoundError", "ImportError", "IndexError", "KeyError", "KeyboardInterrupt",
    "NotImplementedError", "OSError", "RuntimeError", "StopIteration", "TypeError", "ValueError",
    "ZeroDivisionError", "__import__", "abs", "all", "any", "bin", "bool", "breakpoint", "bytearray",
    "bytes", "callable", "chr", "classmethod", "compile", "complex", "delattr", "dict", "dir",
    "divmod", "enumerate", "eval", "exec", "exit", "filter", "float", "format", "frozenset",
    "getattr", "globals", "hasattr", "hash", "hex", "id", "input", "int", "isinstance",
    "issubclass", "iter", "len", "list", "locals", "map", "max", "memoryview", "min", "next",
    "object", "oct", "open", "ord", "pow", "print", "property", "quit", "range", "repr",
    "reversed", "round", "set", "setattr", "slice", "sorted", "staticmethod", "str", "sum",
    "super", "tuple", "type", "vars", "zip",
};

static_assert(std::is_sorted(std::begin(kBuiltins), std::end(kBuiltins)), "kBuiltins is searched by halves");

/// Methods of nn.Module (and Tensor) that return their receiver.
constexpr std::string_view kReturnsSelf[] = {
    "bfloat16", "cpu", "cuda", "double", "eval", "float", "half", "requires_grad_",
    "share_memory", "to", "to_empty", "train", "type",
};

}  // namespace

class Resolver {
 public:
  Resolver(Module& m, const std::vector<StarBinding>& star) : m_(m), star_(star) {
    r_.m_ = &m;
    builtins_ = m.names.intern_path("builtins");
    for (std::string_view s : kReturnsSelf) {
      Symbol sym = m.names.find(s);
      if (sym != kNoSymbol) self_methods_.push_back(sym);
    }
    std::sort(self_methods_.begin(), self_methods_.end());
    r_.s_init_ = m.names.intern("__init__");
    r_.s_forward_ = m.names.intern("forward");
    r_.s_call_ = m.names.intern("__call__");
    staticmethod_ = m.names.path(builtins_, m.names.intern("staticmethod"));
    module_list_ = m.names.intern_path("torch.nn.ModuleList");
    sequential_ = m.names.intern_path("torch.nn.Sequential");
    nn_module_ = m.names.intern_path("torch.nn.Module");
    classmethod_ = m.names.path(builtins_, m.names.intern("classmethod"));
  }

  Resolution run() {
    size_t nf = m_.functions.size();
    r_.refs_.resize(nf);
    r_.consts_.resize(nf);
    r_.returns_.assign(nf, Referent{});
    r_.self_class_.assign(nf, ClassId());
    r_.module_class_.assign(m_.classes.size(), 0);
    r_.self_attrs_.assign(m_.classes.size(), {});
    classmethod_fn_.assign(nf, 0);
    seen_.assign(nf, 0);
    refs_at_.assign(nf, 0);
    ret_at_.assign(nf, 0);
    deps_.assign(nf, {});
    class_fn_.assign(nf, 0);
    loops_.assign(nf, 0);
    for (const Class& c : m_.classes) {
      if (c.defined_in.valid()) class_fn_[c.defined_in.v] = 1;
      if (c.body.valid()) class_fn_[c.body.v] = 1;
    }
    for (uint32_t f = 0; f < nf; ++f)
      if (m_.functions[f].owner.valid()) class_fn_[f] = 1;  // methods: `self.x = v` stores
    for (int round = 0; round < kRounds; ++round) {
      changed_ = false;
      for (uint32_t f = 0; f < nf; ++f)
        if (round == 0 || stale(FunctionId(f))) resolve_function(FunctionId(f));
      if (compute_classes()) {
        changed_ = true;
        classes_at_ = ++clock_;
      }
      // A round that changed no cross-function fact (returns, class facts,
      // self attributes, module bindings) is a fixpoint.
      if (round > 0 && !changed_) break;
    }
    return std::move(r_);
  }

 private:
  // ---- incremental rounds ----
  // A function's resolution is a function of its IR and of the facts it
  // reads from other functions: module bindings (LoadGlobal), an enclosing
  // function's bindings (LoadFree, decorators), callees' returns, and class
  // facts (methods, bases, self attributes, class bodies). Each resolve
  // records which of these it read; a later round resolves a function
  // again only when one of them changed after it last ran, which gives the
  // same result as resolving every function every round (the rounds, and
  // the order within a round, are unchanged) at a fraction of the work.
  struct Deps {
    std::vector<uint32_t> refs;  // functions whose refs were read
    std::vector<uint32_t> rets;  // functions whose returns were read
    bool classes = false;        // class facts were read
  };
  bool stale(FunctionId f) const {
    const Deps& d = deps_[f.v];
    uint64_t t = seen_[f.v];
    if (d.classes && classes_at_ > t) return true;
    for (uint32_t g : d.refs)
      if (refs_at_[g] > t) return true;
    for (uint32_t g : d.rets)
      if (ret_at_[g] > t) return true;
    return false;
  }
  void read_refs(FunctionId g) { add_dep(deps_[cur_.v].refs, g.v); }
  void read_returns(FunctionId g) { add_dep(deps_[cur_.v].rets, g.v); }
  void read_classes() { deps_[cur_.v].classes = true; }
  static void add_dep(std::vector<uint32_t>& v, uint32_t g) {
    if (std::find(v.begin(), v.end(), g) == v.end()) v.push_back(g);
  }

  void resolve_function(FunctionId fid);
  void compute_self_class(FunctionId fid);
  bool compute_classes();
  void transfer(FunctionId fid, const Function& f, InstId id, const Inst& in);
  Referent get_attr(const Referent& base, Symbol attr);
  Referent self_attr(ClassId c, Symbol attr);
  FunctionId subclass_method(ClassId c, Symbol name);
  /// The classes that define a method `name`, in class order (built on
  /// first use: methods do not change during resolution).
  const std::vector<ClassId>& classes_defining(Symbol name);
  ConstValue from_ast(ConstId c);
  bool known_module_base(PathId p);

  Module& m_;
  const std::vector<StarBinding>& star_;
  Resolution r_;
  PathId builtins_, staticmethod_, classmethod_;
  /// classes_defining's index: scanning every class per unresolved
  /// attribute of an instance made resolution quadratic in the classes of a
  /// file (16 MB of small nn.Module classes: 59 s; issue 21).
  std::unordered_map<Symbol, std::vector<ClassId>> classes_defining_;
  bool classes_indexed_ = false;
  PathId module_list_, sequential_, nn_module_;  // the elements of a ModuleList are nn.Modules
  std::vector<Symbol> self_methods_;
  /// Whether a global name is a Python builtin, by Symbol (0: not asked
  /// yet, 1: yes, 2: no): asked per distinct unbound global a file loads,
  /// far fewer than the builtins there are to look up.
  std::vector<uint8_t> builtin_;
  bool is_builtin(Symbol s) {
    if (s >= builtin_.size()) builtin_.resize(m_.names.symbol_count(), 0);
    if (s >= builtin_.size()) return false;
    if (!builtin_[s])
      builtin_[s] = std::binary_search(std::begin(kBuiltins), std::end(kBuiltins), m_.names.str(s)) ? 1 : 2;
    return builtin_[s] == 1;
  }
  /// Module::global_binding by Symbol (kUnasked: not asked yet): a file
  /// loads few distinct globals, each many times and in every round.
  static constexpr ValueId kUnasked{UINT32_MAX - 1};
  std::vector<ValueId> global_;
  ValueId global_binding(Symbol s) {
    if (s >= global_.size()) global_.resize(m_.names.symbol_count(), kUnasked);
    if (s >= global_.size()) return m_.global_binding(s);
    if (global_[s] == kUnasked) global_[s] = m_.global_binding(s);
    return global_[s];
  }
  /// from_ast by ConstId: a literal is converted once, not at every
  /// resolve of its function.
  std::vector<std::optional<ConstValue>> const_;
  const ConstValue& constant(ConstId c) {
    if (c >= const_.size()) const_.resize(c + 1);
    if (!const_[c]) const_[c] = from_ast(c);
    return *const_[c];
  }
  std::vector<uint8_t> done_;
  std::vector<uint8_t> classmethod_fn_;
  bool changed_ = false;
  uint64_t module_sig_ = 0;
  // Incremental rounds: a clock ticks at each resolve and each change.
  uint64_t clock_ = 0;
  std::vector<uint64_t> seen_;     // per function: the tick of its last resolve
  std::vector<uint64_t> refs_at_;  // per function: the tick its refs/consts last changed
  std::vector<uint64_t> ret_at_;   // per function: the tick its returns last changed
  uint64_t classes_at_ = 0;        // the tick class facts last changed
  std::vector<Deps> deps_;
  std::vector<uint8_t> class_fn_;  // functions whose refs feed class facts
  std::vector<uint8_t> loops_;     // functions with a back edge (see resolve_function)
  FunctionId cur_;                 // the function being resolved
  std::vector<Referent> old_refs_;
  ConstTable old_consts_;
  std::unordered_map<uint64_t, Referent> attr_refs_;  // self attribute values' referents last round
};

ConstValue Resolver::from_ast(ConstId c) {
  const ast::Constant& k = m_.constant(c);
  ConstValue v;
  switch (k.kind) {
    case ast::Constant::Kind::None_:
      v.kind = ConstValue::Kind::None;
      break;
    case ast::Constant::Kind::True_:
    case ast::Constant::Kind::False_:
      v.kind = ConstValue::Kind::Bool;
      v.i = k.kind == ast::Constant::Kind::True_;
      v.d = static_cast<double>(v.i);
      break;
    case ast::Constant::Kind::Int: {
      int64_t x = 0;
      auto [p, ec] = std::from_chars(k.text.data(), k.text.data() + k.text.size(), x);
      if (ec == std::errc() && p == k.text.data() + k.text.size()) {
        v.kind = ConstValue::Kind::Int;
        v.i = x;
        v.d = static_cast<double>(x);
      }
      break;
    }
    case ast::Constant::Kind::Float:
      v.kind = ConstValue::Kind::Float;
      v.d = k.number;
      break;
    case ast::Constant::Kind::Str:
      v.kind = ConstValue::Kind::Str;
      v.s = k.text;
      break;
    default:
      break;
  }
  return v;
}

FunctionId Resolution::find_method(ClassId c, Symbol name) const {
  // Depth-first over local bases (the MRO of single-inheritance code);
  // bounded so a cyclic class graph (impossible in Python, possible in our
  // approximate base resolution) cannot loop.
  ClassId stack[16];
  int n = 0;
  stack[n++] = c;
  int steps = 0;
  while (n > 0 && steps++ < 64) {
    ClassId k = stack[--n];
    const Class& cl = m_->cls(k);
    FunctionId f = cl.method(name);
    if (f.valid()) return f;
    for (size_t i = cl.bases.size(); i-- > 0;) {
      if (!cl.bases[i].valid()) continue;
      const Referent& b = ref(cl.defined_in, cl.bases[i]);
      if (b.kind == Referent::Kind::Class && n < 16) stack[n++] = b.cls();
    }
  }
  return FunctionId();
}

bool ConstTable::same(const ConstTable& o) const {
  if (size() != o.size()) return false;
  for (size_t i = 0; i < size(); ++i) {
    const ConstValue &a = (*this)[i], &b = o[i];
    if (a.kind != b.kind || a.i != b.i || a.d != b.d || a.s != b.s) return false;
  }
  return true;
}

PathId Resolution::qualname(FunctionId f, ValueId v) const {
  const Referent& r = ref(f, v);
  return r.kind == Referent::Kind::External ? r.path() : kNoPath;
}

bool Resolution::is_staticmethod(FunctionId fn) const {
  const Function& g = m_->fn(fn);
  if (!g.parent.valid()) return false;
  // By the decorator's name, not its referent: call targets are asked
  // while the enclosing class body may not be resolved yet.
  const Function& p = m_->fn(g.parent);
  for (ValueId d : g.decorators) {
    if (!d.valid()) continue;
    const Inst& di = p.def(d);
    if (di.op == Op::LoadGlobal && m_->names.str(di.aux) == "staticmethod") return true;
  }
  return false;
}

CallTarget Resolution::call_target(FunctionId fid, InstId call) const {
  const Function& f = m_->fn(fid);
  const Inst& in = f.inst(call);
  CallTarget t;
  if (in.op != Op::Call || Function::operand_count(in) == 0) return t;
  ValueId callee = f.operands(in)[0];
  const Referent& rc = ref(fid, callee);
  const Inst& cd = f.def(callee);
  switch (rc.kind) {
    case Referent::Kind::Function:
      t.kind = CallTarget::Kind::Function;
      t.fn = rc.function();
      if (cd.op == Op::GetAttr) {
        ValueId base = f.operands(cd)[0];
        Referent::Kind bk = ref(fid, base).kind;
        // A @staticmethod called on an instance (`self.rescale(x)`) gets
        // no receiver: its first parameter is the first argument.
        t.bound = bk == Referent::Kind::Instance && !is_staticmethod(t.fn);
        t.receiver = base;
        t.method = cd.aux;
      }
      return t;
    case Referent::Kind::Class:
      t.kind = CallTarget::Kind::Constructor;
      t.cls = rc.cls();
      t.fn = find_method(t.cls, s_init_);
      return t;
    case Referent::Kind::Instance: {
      t.kind = CallTarget::Kind::InstanceCall;
      t.cls = rc.cls();
      FunctionId c = find_method(t.cls, s_call_);
      if (is_module_class(t.cls) && !c.valid()) c = find_method(t.cls, s_forward_);
      t.fn = c;
      return t;
    }
    case Referent::Kind::External:
      t.kind = CallTarget::Kind::External;
      t.name = rc.path();
      return t;
    case Referent::Kind::Result:
      t.kind = CallTarget::Kind::ResultCall;
      t.name = rc.path();
      return t;
    case Referent::Kind::Unknown:
      break;
  }
  if (cd.op == Op::GetAttr) {
    t.kind = CallTarget::Kind::Method;
    t.method = cd.aux;
    t.receiver = f.operands(cd)[0];
  }
  return t;
}

Referent Resolver::self_attr(ClassId c, Symbol attr) {
  Referent out;
  bool first = true;
  const auto& all = r_.self_attrs_[c.v];
  auto range = std::equal_range(all.begin(), all.end(), SelfAttr{attr, FunctionId(), kNoValue, InstId()},
                                [](const SelfAttr& x, const SelfAttr& y) { return x.attr < y.attr; });
  for (auto it = range.first; it != range.second; ++it) {
    const SelfAttr& a = *it;
    const Referent& x = r_.refs_[a.fn.v].empty() ? Referent{} : r_.refs_[a.fn.v][a.value.v];
    if (first) {
      out = x;
      first = false;
    } else if (!(out == x)) {
      return Referent{};
    }
  }
  return out;
}

/// The method `name` that class c lacks (with its bases) and that exactly
/// one of its subclasses in the file defines: every instance on which c's
/// code can call it (a subclass's, inheriting it or not overriding it) runs
/// that one; several definitions or none: invalid.
const std::vector<ClassId>& Resolver::classes_defining(Symbol name) {
  if (!classes_indexed_) {
    for (uint32_t k = 0; k < m_.classes.size(); ++k)
      for (const auto& [method, fn] : m_.cls(ClassId(k)).method_index) classes_defining_[method].push_back(ClassId(k));
    classes_indexed_ = true;
  }
  static const std::vector<ClassId> kNone;
  auto it = classes_defining_.find(name);
  return it == classes_defining_.end() ? kNone : it->second;
}

FunctionId Resolver::subclass_method(ClassId c, Symbol name) {
  FunctionId found;
  for (ClassId sub : classes_defining(name)) {
    if (sub == c) continue;
    FunctionId f = m_.cls(sub).method(name);
    if (!f.valid()) continue;
    // sub derives from c (bounded walk over local bases, as find_method).
    ClassId stack[16];
    int n = 0, steps = 0;
    stack[n++] = sub;
    bool derives = false;
    while (n > 0 && steps++ < 64 && !derives) {
      const Class& cl = m_.cls(stack[--n]);
      for (ValueId b : cl.bases) {
        // A class whose defining function is not resolved yet (or is the one
        // being resolved, its refs swapped out) has no base referents yet.
        const std::vector<Referent>& defs = r_.refs_[cl.defined_in.v];
        if (!b.valid() || b.v >= defs.size()) continue;
        const Referent& r = defs[b.v];
        if (r.kind != Referent::Kind::Class) continue;
        if (r.cls() == c) derives = true;
        else if (n < 16) stack[n++] = r.cls();
      }
    }
    if (!derives) continue;
    if (found.valid() && found != f) return FunctionId();
    found = f;
  }
  return found;
}

Referent Resolver::get_attr(const Referent& base, Symbol attr) {
  switch (base.kind) {
    case Referent::Kind::External:
      return Referent{Referent::Kind::External, m_.names.path(base.path(), attr).v};
    case Referent::Kind::Class:
    case Referent::Kind::Instance: {
      read_classes();
      FunctionId fm = r_.find_method(base.cls(), attr);
      if (fm.valid()) return Referent{Referent::Kind::Function, fm.v};
      if (base.kind == Referent::Kind::Instance) {
        Referent s = self_attr(base.cls(), attr);
        if (s.kind != Referent::Kind::Unknown) return s;
        // A template method: the base calls `self._valid_epoch()`, which
        // only its subclasses define.
        fm = subclass_method(base.cls(), attr);
        if (fm.valid()) return Referent{Referent::Kind::Function, fm.v};
      }
      // A class attribute: the class body's binding.
      const Class& c = m_.cls(base.cls());
      const Function& body = m_.fn(c.body);
      VarId v = body.find_var(attr);
      ValueId b = v.valid() ? body.binding(v) : kNoValue;
      if (b.valid() && !r_.refs_[c.body.v].empty()) return r_.refs_[c.body.v][b.v];
      return Referent{};
    }
    default:
      return Referent{};
  }
}

void Resolver::compute_self_class(FunctionId fid) {
  const Function& f = m_.fn(fid);
  r_.self_class_[fid.v] = ClassId();
  if (f.kind != FunctionKind::Function || !f.owner.valid() || f.params.empty()) return;
  if (m_.cls(f.owner).body != f.parent) return;
  for (ValueId d : f.decorators) {
    if (!d.valid()) continue;
    read_refs(f.parent);
    PathId p = r_.qualname(f.parent, d);
    if (p == staticmethod_) return;
    if (p == classmethod_) classmethod_fn_[fid.v] = 1;
  }
  r_.self_class_[fid.v] = f.owner;
}

void Resolver::transfer(FunctionId fid, const Function& f, InstId id, const Inst& in) {
  auto& refs = r_.refs_[fid.v];
  auto& consts = r_.consts_[fid.v];
  auto ops = f.operands(in);
  Referent out;
  ConstValue cv;
  switch (in.op) {
    case Op::Const:
      cv = constant(in.aux);
      break;
    case Op::Import:
      out = Referent{Referent::Kind::External, in.aux};
      break;
    case Op::LoadGlobal: {
      ValueId g = fid.v == 0 ? kNoValue : global_binding(in.aux);
      if (g.valid()) read_refs(FunctionId(0));
      if (g.valid() && !r_.refs_[0].empty()) {
        out = r_.refs_[0][g.v];
        cv = r_.consts_[0][g.v];
      } else if (is_builtin(in.aux)) {
        out = Referent{Referent::Kind::External, m_.names.path(builtins_, in.aux).v};
      } else {
        auto it = std::lower_bound(star_.begin(), star_.end(), Symbol(in.aux),
                                   [](const StarBinding& b, Symbol s) { return b.name < s; });
        if (it != star_.end() && it->name == in.aux) out = Referent{Referent::Kind::External, it->path.v};
      }
      break;
    }
    case Op::LoadFree:
      for (FunctionId p = f.parent; p.valid(); p = m_.fn(p).parent) {
        const Function& pf = m_.fn(p);
        if (pf.kind == FunctionKind::ClassBody) continue;
        VarId v = pf.find_var(in.aux);
        if (!v.valid()) continue;
        ValueId b = pf.binding(v);
        if (b.valid()) read_refs(p);
        if (b.valid() && !r_.refs_[p.v].empty()) {
          out = r_.refs_[p.v][b.v];
          cv = r_.consts_[p.v][b.v];
        }
        break;
      }
      break;
    case Op::Param:
      if (in.aux == 0 && r_.self_class_[fid.v].valid())
        out = Referent{classmethod_fn_[fid.v] ? Referent::Kind::Class : Referent::Kind::Instance,
                       r_.self_class_[fid.v].v};
      break;
    case Op::GetAttr:
      out = get_attr(refs[ops[0].v], in.aux);
      break;
    case Op::MakeFunction:
      out = Referent{Referent::Kind::Function, in.aux};
      break;
    case Op::NextItem:
    case Op::GetItem: {
      // An element of nn.ModuleList / nn.Sequential is some nn.Module: calling
      // it is a forward pass (`for block in self.blocks: x = block(x)`).
      ValueId base = ops[0];
      if (in.op == Op::NextItem && f.def(base).op == Op::GetIter) base = f.operands(f.def(base))[0];
      const Referent& b = refs[base.v];
      if (b.kind == Referent::Kind::Result && (b.id == module_list_.v || b.id == sequential_.v))
        out = Referent{Referent::Kind::Result, nn_module_.v};
      break;
    }
    case Op::MakeClass:
      out = Referent{Referent::Kind::Class, in.aux};
      break;
    case Op::Element: {
      // `TRAIN, EVAL = "train", "eval"`: an element of a literal tuple or
      // list unpacked without a starred target is that element.
      const Inst& u = f.def(ops[0]);
      if (u.op != Op::Unpack || (u.aux >> 16) != 0xFFFF) break;
      const Inst& t = f.def(f.operands(u)[0]);
      if ((t.op != Op::BuildTuple && t.op != Op::BuildList) || t.nops != (u.aux & 0xFFFF) || in.aux >= t.nops) break;
      ValueId e = f.operands(t)[in.aux];
      out = refs[e.v];
      cv = consts[e.v];
      break;
    }
    case Op::Phi: {
      bool first = true, same_ref = true, same_const = true;
      for (ValueId o : ops) {
        if (o == in.result || !done_[o.v] || f.def(o).op == Op::Undef) continue;
        if (first) {
          out = refs[o.v];
          cv = consts[o.v];
          first = false;
          continue;
        }
        same_ref &= out == refs[o.v];
        const ConstValue& c = consts[o.v];
        same_const &= c.kind == cv.kind && c.i == cv.i && c.d == cv.d && c.s == cv.s;
      }
      if (!same_ref) out = Referent{};
      if (!same_const) cv = ConstValue{};
      break;
    }
    case Op::BinOp:
      cv = fold_binop(static_cast<ast::Op>(in.aux), consts[ops[0].v], consts[ops[1].v]);
      break;
    case Op::UnaryOp:
      cv = fold_unary(static_cast<ast::Op>(in.aux), consts[ops[0].v]);
      break;
    case Op::Call: {
      if (ops.size() > 0) {
        Referent::Kind ck = refs[ops[0].v].kind;
        if (ck == Referent::Kind::Class || ck == Referent::Kind::Instance) read_classes();
      }
      CallTarget t = r_.call_target(fid, id);
      if ((in.flags & kDecorator) && ops.size() >= 2) {
        // Decorators are assumed to return the function they wrap, so calls
        // to a decorated function can still be followed.
        out = refs[ops[1].v];
        break;
      }
      switch (t.kind) {
        case CallTarget::Kind::Function:
        case CallTarget::Kind::InstanceCall:
          if (t.fn.valid()) {
            read_returns(t.fn);
            out = r_.returns_[t.fn.v];
          }
          break;
        case CallTarget::Kind::Constructor:
          out = Referent{Referent::Kind::Instance, t.cls.v};
          break;
        case CallTarget::Kind::External:
          if (m_.names.parent(t.name) != builtins_ || m_.names.str(m_.names.last(t.name)) != "super")
            out = Referent{Referent::Kind::Result, t.name.v};
          break;
        case CallTarget::Kind::Method:
          if (std::binary_search(self_methods_.begin(), self_methods_.end(), t.method)) {
            const Referent& rr = refs[t.receiver.v];
            if (rr.kind == Referent::Kind::Instance || rr.kind == Referent::Kind::Result) out = rr;
          }
          break;
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  if (in.result.valid()) {
    refs[in.result.v] = out;
    consts.set(in.result.v, cv);
    done_[in.result.v] = 1;
  }
}

void Resolver::resolve_function(FunctionId fid) {
  const Function& f = m_.fn(fid);
  cur_ = fid;
  seen_[fid.v] = ++clock_;
  deps_[fid.v].refs.clear();
  deps_[fid.v].rets.clear();
  deps_[fid.v].classes = false;
  compute_self_class(fid);
  auto& refs = r_.refs_[fid.v];
  old_refs_.swap(refs);
  std::swap(old_consts_, r_.consts_[fid.v]);
  refs.assign(f.values.size(), Referent{});
  r_.consts_[fid.v].reset(f.values.size());
  done_.assign(f.values.size(), 0);
  // A second sweep gives loop-header phis their back-edge operands (blocks
  // are in RPO, so a back edge is one to a block not after its source).
  // Asked once per function (0: not yet, 1: no loop, 2: loops).
  if (!loops_[fid.v]) {
    bool loops = false;
    for (uint32_t b = 0; b < f.blocks.size() && !loops; ++b)
      for (BlockId s : succs(f, BlockId(b))) loops |= s.v <= b;
    loops_[fid.v] = loops ? 2 : 1;
  }
  bool loops = loops_[fid.v] == 2;
  for (int sweep = 0; sweep < (loops ? 2 : 1); ++sweep)
    for (uint32_t i = 0; i < f.insts.size(); ++i) transfer(fid, f, InstId(i), f.insts[i]);
  // Both tables were another function's before (swapped with old_*_): keep
  // only this function's size.
  refs.shrink_to_fit();
  r_.consts_[fid.v].shrink();
  Referent ret;
  bool first = true, agree = !f.is_generator;
  // A Return ends its block: the terminators are all there is to look at.
  for (uint32_t b = 0; b < f.blocks.size(); ++b) {
    const Inst& in = f.terminator(BlockId(b));
    if (in.op != Op::Return) continue;
    Referent x = in.nops != 0 ? refs[f.operands(in)[0].v] : Referent{};
    if (first) {
      ret = x;
      first = false;
    } else if (!(ret == x)) {
      agree = false;
    }
  }
  Referent now = agree ? ret : Referent{};
  if (!(now == r_.returns_[fid.v])) {
    changed_ = true;
    ret_at_[fid.v] = ++clock_;
  }
  r_.returns_[fid.v] = now;
  bool refs_changed = old_refs_ != refs || !old_consts_.same(r_.consts_[fid.v]);
  if (refs_changed) {
    refs_at_[fid.v] = ++clock_;
    if (class_fn_[fid.v]) classes_at_ = clock_;
  }
  // Module bindings feed every function's LoadGlobal: a change there is a change.
  if (fid.v == 0) {
    uint64_t sig = 0;
    for (const Binding& b : f.bindings) {
      const Referent& r = refs[b.value.v];
      sig = sig * 1000003u + (static_cast<uint64_t>(r.kind) << 32) + r.id;
    }
    if (sig != module_sig_) changed_ = true;
    module_sig_ = sig;
  }
}

bool Resolver::known_module_base(PathId p) {
  std::string s = m_.names.str(p);
  auto starts = [&](std::string_view pre) { return s.compare(0, pre.size(), pre) == 0; };
  return starts("torch.nn.") || s == "pytorch_lightning.LightningModule" ||
         s == "lightning.LightningModule" || s == "lightning.pytorch.LightningModule" ||
         (starts("transformers.") && s.find("PreTrainedModel") != std::string::npos);
}

bool Resolver::compute_classes() {
  size_t nc = m_.classes.size();
  std::vector<uint8_t> old_module = r_.module_class_;
  std::vector<std::vector<SelfAttr>> old_attrs = std::move(r_.self_attrs_);
  r_.self_attrs_.assign(nc, {});
  // Module classes: iterate so a local base's answer reaches its subclasses.
  for (size_t it = 0; it < nc + 1; ++it) {
    bool changed = false;
    for (uint32_t c = 0; c < nc; ++c) {
      if (r_.module_class_[c]) continue;
      const Class& cl = m_.classes[c];
      for (ValueId b : cl.bases) {
        if (!b.valid() || r_.refs_[cl.defined_in.v].empty()) continue;
        const Referent& rb = r_.refs_[cl.defined_in.v][b.v];
        bool yes = (rb.kind == Referent::Kind::External && known_module_base(rb.path())) ||
                   (rb.kind == Referent::Kind::Class && r_.module_class_[rb.id]);
        if (yes) {
          r_.module_class_[c] = 1;
          changed = true;
          break;
        }
      }
    }
    if (!changed) break;
  }
  // self.x = v in methods (stores through the method's first parameter).
  for (uint32_t fi = 0; fi < m_.functions.size(); ++fi) {
    ClassId c = r_.self_class_[fi];
    if (!c.valid() || classmethod_fn_[fi]) continue;
    const Function& f = m_.functions[fi];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const Inst& in = f.insts[i];
      if (in.op != Op::SetAttr) continue;
      const Inst& base = f.def(f.operands(in)[0]);
      if (base.op != Op::Param || base.aux != 0) continue;
      r_.self_attrs_[c.v].push_back(SelfAttr{in.aux, FunctionId(fi), f.operands(in)[1], InstId(i)});
    }
  }
  // Subclasses see their local bases' attributes too.
  for (uint32_t c = 0; c < nc; ++c) {
    const Class& cl = m_.classes[c];
    for (ValueId b : cl.bases) {
      if (!b.valid() || r_.refs_[cl.defined_in.v].empty()) continue;
      const Referent& rb = r_.refs_[cl.defined_in.v][b.v];
      if (rb.kind == Referent::Kind::Class && rb.id != c) {
        const auto& inherited = r_.self_attrs_[rb.id];
        r_.self_attrs_[c].insert(r_.self_attrs_[c].end(), inherited.begin(), inherited.end());
      }
    }
  }
  // Sorted by attribute (stable: fid order within one) for equal_range lookups.
  for (auto& v : r_.self_attrs_)
    std::stable_sort(v.begin(), v.end(),
                     [](const SelfAttr& x, const SelfAttr& y) { return x.attr < y.attr; });
  bool changed = old_module != r_.module_class_ || old_attrs.size() != r_.self_attrs_.size();
  for (size_t c = 0; !changed && c < nc; ++c) {
    const auto& a = old_attrs[c];
    const auto& b = r_.self_attrs_[c];
    changed = a.size() != b.size();
    for (size_t i = 0; !changed && i < a.size(); ++i) {
      changed = a[i].attr != b[i].attr || a[i].fn != b[i].fn || a[i].value != b[i].value;
      // The referent of the stored value may have changed in this round.
      if (!changed && !r_.refs_[b[i].fn.v].empty()) {
        const Referent& x = r_.refs_[b[i].fn.v][b[i].value.v];
        uint64_t key = (uint64_t(b[i].fn.v) << 32) | b[i].value.v;
        auto it = attr_refs_.find(key);
        if (it == attr_refs_.end() || !(it->second == x)) changed = true;
        attr_refs_[key] = x;
      }
    }
  }
  return changed;
}

Resolution compute_resolution(Module& m, const std::vector<StarBinding>& star) {
  Resolver r(m, star);
  return r.run();
}

void print_referent(const Module& m, const Referent& r, std::string& out) {
  switch (r.kind) {
    case Referent::Kind::Unknown:
      out += "?";
      break;
    case Referent::Kind::External:
      m.names.append(r.path(), out);
      break;
    case Referent::Kind::Result:
      out += "result ";
      m.names.append(r.path(), out);
      break;
    case Referent::Kind::Function:
      out += "fn ";
      m.names.append(m.fn(r.function()).qualname, out);
      break;
    case Referent::Kind::Class:
      out += "class ";
      m.names.append(m.cls(r.cls()).qualname, out);
      break;
    case Referent::Kind::Instance:
      out += "instance ";
      m.names.append(m.cls(r.cls()).qualname, out);
      break;
  }
}

void print_call_target(const Module& m, const CallTarget& t, std::string& out) {
  switch (t.kind) {
    case CallTarget::Kind::Unknown:
      out += "?";
      break;
    case CallTarget::Kind::Function:
      out += t.bound ? "method " : "fn ";
      m.names.append(m.fn(t.fn).qualname, out);
      break;
    case CallTarget::Kind::Constructor:
      out += "new ";
      m.names.append(m.cls(t.cls).qualname, out);
      break;
    case CallTarget::Kind::InstanceCall:
      out += "call ";
      if (t.fn.valid()) m.names.append(m.fn(t.fn).qualname, out);
      else m.names.append(m.cls(t.cls).qualname, out);
      break;
    case CallTarget::Kind::External:
      m.names.append(t.name, out);
      break;
    case CallTarget::Kind::ResultCall:
      out += "call result ";
      m.names.append(t.name, out);
      break;
    case CallTarget::Kind::Method:
      out += ".";
      out += m.names.str(t.method);
      break;
  }
}

}  // namespace tpf::ir
