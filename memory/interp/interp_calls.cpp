// Calls in the interpreter: argument binding for the script's functions
// (positional, keyword, defaults, *args, **kwargs as CPython binds them),
// class construction (__init__, @dataclass fields, an external base's
// constructor), bound and built-in methods, and external callables by
// qualified name.
// requires: interp.h. produces: call results.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"

namespace tpf::memory {

/// The first external base of a class chain (interp_objects.cpp).
StrId ext_base(Interp& in, ObjId cls);

std::optional<Value> Args::get(const Interp& in, size_t i, std::string_view name) const {
  if (i < pos.size()) return pos[i];
  return kwarg(in, name);
}

std::optional<Value> Args::kwarg(const Interp& in, std::string_view name) const {
  for (const auto& [k, v] : kw)
    if (in.str(k) == name) return v;
  return std::nullopt;
}

Value Interp::call(Value callee, Args& args) {
  switch (callee.kind) {
    case VKind::Ext: return call_external(callee.a, args);
    case VKind::Obj: break;
    default: return Value::unknown();
  }
  Obj& ob = o(callee);
  switch (ob.kind) {
    case OKind::Function: return call_function(callee.a, args, std::nullopt);
    case OKind::Bound: {
      Value self = ob.items[0], fn = ob.items[1];
      return call_function(fn.a, args, self);
    }
    case OKind::Method: {
      Value self = ob.items[0];
      StrId name = ob.type;
      if (ob.flags & 1) {
        // super().name(...): the external base's behaviour on self.
        Args a = args;
        a.pos.insert(a.pos.begin(), self);
        bool handled = false;
        if (str(name) == "__init__" && ob.index != kNone32) {
          Args init = args;
          construct_external(*this, ob.index, init, handled, self);
          return Value::none();
        }
        Value r = call_module_method(*this, self, str(name), a, handled);
        return handled ? r : Value::unknown();
      }
      Args a = args;
      a.pos.insert(a.pos.begin(), self);
      return call_method(self, name, a);
    }
    case OKind::Class: return construct(callee.a, args);
    case OKind::Partial: {
      Args a;
      a.span = args.span;
      a.pos.assign(ob.items.begin() + 1, ob.items.end());
      a.pos.insert(a.pos.end(), args.pos.begin(), args.pos.end());
      a.kw = ob.attrs.items;
      a.kw.insert(a.kw.end(), args.kw.begin(), args.kw.end());
      return call(o(callee).items[0], a);
    }
    case OKind::Instance: {
      Args a = args;
      a.pos.insert(a.pos.begin(), callee);
      return call_method(callee, intern("__call__"), a);
    }
    default: return Value::unknown();
  }
}

Value Interp::call_function(ObjId fid, Args& args, std::optional<Value> self) {
  const Obj& fo = o(fid);
  uint16_t u = fo.module;
  const ir::Function& f = unit(u).ir->fn(ir::FunctionId(fo.index));
  std::vector<Value> bound(f.params.size(), Value{VKind::Unbound, 0, 0});
  std::vector<Value> pos;
  if (self) pos.push_back(*self);
  pos.insert(pos.end(), args.pos.begin(), args.pos.end());
  size_t pi = 0;
  int varargs = -1, kwargs = -1;
  for (size_t k = 0; k < f.params.size(); ++k) {
    const ir::Param& p = f.params[k];
    if (p.kind == ir::ParamKind::VarArgs) varargs = static_cast<int>(k);
    if (p.kind == ir::ParamKind::KwArgs) kwargs = static_cast<int>(k);
    if ((p.kind == ir::ParamKind::PosOnly || p.kind == ir::ParamKind::Normal) && pi < pos.size())
      bound[k] = pos[pi++];
  }
  if (varargs >= 0) {
    bound[static_cast<size_t>(varargs)] =
        make_list(std::vector<Value>(pos.begin() + static_cast<long>(pi), pos.end()), OKind::Tuple);
  }
  Value kwdict = kwargs >= 0 ? make_dict() : Value::unknown();
  for (const auto& [k, v] : args.kw) {
    bool placed = false;
    for (size_t j = 0; j < f.params.size(); ++j) {
      const ir::Param& p = f.params[j];
      if ((p.kind == ir::ParamKind::Normal || p.kind == ir::ParamKind::KwOnly) &&
          sym(u, p.name) == k) {
        bound[j] = v;
        placed = true;
        break;
      }
    }
    if (!placed && kwargs >= 0) setitem(kwdict, Value::str(k), v);
  }
  if (kwargs >= 0) bound[static_cast<size_t>(kwargs)] = kwdict;
  // Defaults: positional ones first, then keyword-only, in parameter order.
  size_t di = 0;
  for (size_t k = 0; k < f.params.size(); ++k) {
    if (!f.params[k].has_default) continue;
    if (bound[k].kind == VKind::Unbound && di < fo.items.size()) bound[k] = fo.items[di];
    ++di;
  }
  for (Value& b : bound)
    if (b.kind == VKind::Unbound) b = Value::unknown();
  ObjId self_class = kNone32;
  if (f.owner.valid()) {
    auto it = class_objs.find((uint64_t{u} << 32) | f.owner.v);
    if (it != class_objs.end()) self_class = it->second;
  }
  bool saved_grad = grad_enabled;
  if (fo.flags & kNoGradFn) grad_enabled = false;
  std::shared_ptr<Frame> closure = o(fid).closure;
  Value r;
  if (f.is_generator) {
    // Calling a generator function gives an iterator over its first item
    // (one item is all a training step needs), whoever calls it: a `for`,
    // `next()`, a builtin, a method.
    try {
      run(u, ir::FunctionId(o(fid).index), std::move(bound), closure, self_class);
      r = make_list({}, OKind::Iter);
    } catch (const YieldStop& y) {
      r = make_list({y.item}, OKind::Iter);
    }
  } else {
    const size_t roots0 = roots.size(), opts0 = optimizers.size();
    const std::vector<Value> passed = bound;  // the caller still holds them
    r = run(u, ir::FunctionId(o(fid).index), std::move(bound), closure, self_class);
    if (roots.size() > roots0 || optimizers.size() > opts0) retire_unreachable(*this, roots0, opts0, r, passed);
  }
  grad_enabled = saved_grad;
  return r;
}

/// The fields a class body annotates itself (not its bases').
static std::vector<DataclassField> own_dataclass_fields(Interp& in, ObjId cls) {
  const Obj& co = in.o(cls);
  const ir::Module& m = *in.unit(co.module).ir;
  const ir::Class& c = m.cls(ir::ClassId(co.index));
  std::vector<DataclassField> fields;
  const ast::Module& a = *m.ast;
  for (ast::NodeId st : a.children(c.node, ast::slot::ClassDef::body)) {
    const ast::Node& n = a[st];
    if (n.kind != ast::NodeKind::AnnAssign) continue;
    ast::NodeId t = a.child(st, ast::slot::AnnAssign::target);
    if (a[t].kind != ast::NodeKind::Name) continue;
    DataclassField f;
    f.name = in.intern(a.name(a[t].f[ast::slot::Name::id]));
    f.line = m.pos(n.span).line;
    // The annotation's text: `int`, `Optional[int]`, `bool`, "str"...
    ast::NodeId ann = a.child(st, ast::slot::AnnAssign::annotation);
    if (ann.valid() && m.src) {
      const Span sp = a[ann].span;
      std::string_view text(m.src->text.data() + sp.begin, sp.end - sp.begin);
      f.annotation = text;
      for (std::string_view k : {"bool", "int", "float", "str"})
        if (text.find(k) != std::string_view::npos) {
          f.type = k;
          break;
        }
    }
    // `x: int = 3` has a default; `x: str = field(metadata=...)` has none.
    ast::NodeId value = a.child(st, ast::slot::AnnAssign::value);
    f.has_default = value.valid();
    if (value.valid() && a[value].kind == ast::NodeKind::Call && m.src) {
      const Span sp = a[value].span;
      std::string_view text(m.src->text.data() + sp.begin, sp.end - sp.begin);
      // dataclasses.field, and simple_parsing's field (`simple_parsing.field`,
      // `helpers.field`), which also takes the default as its first positional.
      std::string_view callee = text.substr(0, text.find('('));
      if ((callee == "field" || callee.ends_with(".field")) && text.find("default") == std::string_view::npos &&
          a.children(value, ast::slot::Call::args).empty())
        f.has_default = false;
      for (ast::NodeId kw : a.children(value, ast::slot::Call::keywords)) {
        const ast::Node& k = a[kw];
        if (k.f[ast::slot::keyword::arg] == ast::kNoSymbol || a.name(k.f[ast::slot::keyword::arg]) != "alias") continue;
        ast::NodeId v = a.child(kw, ast::slot::keyword::value);
        auto take = [&](ast::NodeId e) {
          if (a[e].kind != ast::NodeKind::Constant) return;
          const ast::Constant& c = a.constants[a[e].f[ast::slot::Constant::value]];
          if (c.kind == ast::Constant::Kind::Str) f.aliases.push_back(c.text);
        };
        if (a[v].kind == ast::NodeKind::List || a[v].kind == ast::NodeKind::Tuple)
          for (ast::NodeId e : a.children(v, ast::slot::List::elts)) take(e);
        else
          take(v);
      }
    }
    fields.push_back(f);
  }
  return fields;
}

/// A dataclass's fields as `dataclasses.fields()` orders them: the base
/// dataclasses' first (last base first, as _process_class walks the MRO in
/// reverse), then the class's own; a field the class annotates again keeps
/// its base's place (litgpt's lora.Config(litgpt.Config) adds lora_r, ...
/// after every field of Config).
static std::vector<DataclassField> dataclass_fields_at(Interp& in, ObjId cls, int depth) {
  std::vector<DataclassField> fields;
  if (depth < 16) {
    const std::vector<Value> bases = in.o(cls).items;
    for (size_t k = bases.size(); k-- > 0;) {
      if (!in.is_obj(bases[k], OKind::Class) || !(in.o(bases[k].a).flags & kDataclass)) continue;
      for (const DataclassField& f : dataclass_fields_at(in, bases[k].a, depth + 1)) {
        auto same = std::find_if(fields.begin(), fields.end(), [&](const DataclassField& g) { return g.name == f.name; });
        if (same == fields.end()) fields.push_back(f);
      }
    }
  }
  for (const DataclassField& f : own_dataclass_fields(in, cls)) {
    auto same = std::find_if(fields.begin(), fields.end(), [&](const DataclassField& g) { return g.name == f.name; });
    if (same != fields.end()) *same = f;
    else fields.push_back(f);
  }
  return fields;
}

std::vector<DataclassField> dataclass_fields(Interp& in, ObjId cls) { return dataclass_fields_at(in, cls, 0); }

/// @dataclass __init__: fields in declaration order (annotated class-body
/// names), defaults from the class attributes.
static void dataclass_init(Interp& in, ObjId cls, Value self, Args& args) {
  std::vector<DataclassField> fields = dataclass_fields(in, cls);
  Obj* inst = in.instance(self);
  for (size_t k = 0; k < fields.size(); ++k) {
    std::optional<Value> v = args.get(in, k, in.str(fields[k].name));
    if (!v) {
      const Value* d = in.class_lookup(cls, fields[k].name);
      v = d ? *d : Value::unknown();
    }
    inst->attrs.set(fields[k].name, *v);
  }
}

Value Interp::construct(ObjId cls, Args& args) {
  ObjId io = alloc(OKind::Instance);
  o(io).cls = cls;
  o(io).type = o(cls).type;
  o(io).module = o(cls).module;
  o(io).line = user_line();
  if (o(cls).flags & kModuleClass) o(io).flags |= kIsModule | kTraining;
  Value self = Value::obj(io);
  const Value* init = class_lookup(cls, intern("__init__"));
  if (init && is_obj(*init, OKind::Function)) {
    call_function(init->a, args, self);
  } else if (o(cls).flags & kDataclass) {
    dataclass_init(*this, cls, self, args);
  } else if (StrId base = ext_base(*this, cls); base != kNone32) {
    // No __init__ of its own: the external base's constructor (a subclass
    // of nn.Sequential, nn.Linear, ...).
    bool handled = false;
    construct_external(*this, base, args, handled, self);
  }
  if (const Value* post = class_lookup(cls, intern("__post_init__"));
      post && is_obj(*post, OKind::Function)) {
    Args a;
    call_function(post->a, a, self);
  }
  return self;
}

Value Interp::call_external(StrId qualname, Args& args) {
  std::string_view q = str(qualname);
  if (Handler h = builtin.function(q)) {
    // `torch.flatten(x)`, `torch.transpose(x, ...)`: these functions share
    // the tensor methods' handlers, which take a tensor receiver.
    if (q.starts_with("torch.") && builtin.method(q.substr(6)) == h &&
        (args.pos.empty() || !tensor(args.pos[0])))
      return Value::unknown();
    return h(*this, args);
  }
  bool handled = false;
  Value r = construct_external(*this, qualname, args, handled, Value::unknown());
  if (handled) return r;
  return Value::unknown();
}

Value Interp::call_method(Value self, StrId name, Args& args) {
  std::string_view n = str(name);
  bool handled = false;
  if (TensorObj* t = tensor(self)) {
    (void)t;
    if (Handler h = builtin.method(n)) return h(*this, args);
    return Value::unknown();
  }
  if (Obj* ob = instance(self)) {
    if (ob->cls != kNone32) {
      if (const Value* m = class_lookup(ob->cls, name); m && is_obj(*m, OKind::Function)) {
        Args a = args;
        a.pos.erase(a.pos.begin());
        return call_function(m->a, a, self);
      }
    }
    if (ob->flags & kIsModule) {
      Value r = call_module_method(*this, self, n, args, handled);
      if (handled) return r;
    }
    Value r = instance_method(*this, self, n, args, handled);
    if (handled) return r;
    return Value::unknown();
  }
  Value r = call_builtin_method(*this, self, n, args, handled);
  return handled ? r : Value::unknown();
}

}  // namespace tpf::memory
