// The object model of the interpreter: strings, heap objects, attribute
// lookup along class bases, items, operators on Python scalars and
// containers (tensors go to tensor_ops.cpp), iteration, and calls: user
// functions (argument binding as CPython does it), classes, bound methods,
// built-in callables by qualified name.
// requires: interp.h. produces: Python semantics for interp.cpp.
#include <algorithm>
#include <cmath>

#include "memory/interp.h"

namespace tpf::memory {

StrId Interp::intern(std::string_view s) {
  auto it = str_index.find(s);
  if (it != str_index.end()) return it->second;
  StrId id = static_cast<StrId>(strs.size());
  strs.emplace_back(s);
  str_index.emplace(strs.back(), id);
  return id;
}

StrId Interp::sym(uint16_t u, ir::Symbol s) {
  Unit& un = unit(u);
  if (un.sym.size() <= s) un.sym.resize(s + 1, kNone32);
  if (un.sym[s] == kNone32) un.sym[s] = intern(un.ir->names.str(s));
  return un.sym[s];
}

ObjId Interp::alloc(OKind k) {
  heap.emplace_back();
  heap.back().kind = k;
  return static_cast<ObjId>(heap.size() - 1);
}

Value Interp::make_list(std::vector<Value> items, OKind k) {
  ObjId id = alloc(k);
  o(id).items = std::move(items);
  return Value::obj(id);
}

Value Interp::make_dict() { return Value::obj(alloc(OKind::Dict)); }

std::vector<Value>* Interp::seq(Value v) {
  if (v.kind != VKind::Obj) return nullptr;
  Obj& ob = o(v);
  if (ob.kind == OKind::List || ob.kind == OKind::Tuple || ob.kind == OKind::Set) return &ob.items;
  return nullptr;
}

std::optional<int64_t> Interp::as_int(Value v) const {
  if (v.kind == VKind::Int) return dims.value(v.dim());
  if (v.kind == VKind::Bool) return static_cast<int64_t>(v.a);
  if (v.kind == VKind::Float && std::floor(v.f) == v.f && std::fabs(v.f) < 9e15)
    return static_cast<int64_t>(v.f);
  return std::nullopt;
}

std::optional<double> Interp::as_number(Value v) const {
  if (v.kind == VKind::Float) return v.f;
  if (auto i = as_int(v)) return static_cast<double>(*i);
  return std::nullopt;
}

std::optional<std::string_view> Interp::as_str(Value v) const {
  if (v.kind == VKind::Str) return std::string_view(strs[v.a]);
  return std::nullopt;
}

std::optional<bool> Interp::truth(Value v) {
  switch (v.kind) {
    case VKind::None: return false;
    case VKind::Bool: return v.a != 0;
    case VKind::Int: return dims.value(v.dim()) != 0;
    case VKind::Float: return v.f != 0;
    case VKind::Str: return !strs[v.a].empty();
    case VKind::Dtype:
    case VKind::Ext:
    case VKind::Ellipsis: return true;
    case VKind::Obj: {
      Obj& ob = o(v);
      switch (ob.kind) {
        case OKind::List:
        case OKind::Tuple:
        case OKind::Set:
        case OKind::Dict: return !ob.items.empty();
        case OKind::Tensor: return std::nullopt;
        case OKind::Instance:
          if (ob.flags & kIsModule) {
            // An nn container is falsy when empty (len 0), like Python's.
            if (const Value* n = ob.attrs.find(intern("__len__"))) return truth(*n);
          }
          return true;
        default: return true;
      }
    }
    default: return std::nullopt;
  }
}

bool Interp::same(Value a, Value b) {
  if (a.kind == VKind::Str && b.kind == VKind::Str) return a.a == b.a;
  auto na = as_number(a), nb = as_number(b);
  if (na && nb && a.kind != VKind::Str && b.kind != VKind::Str) return *na == *nb;
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case VKind::None:
    case VKind::Ellipsis: return true;
    case VKind::Dtype:
    case VKind::Ext:
    case VKind::Obj: return a.a == b.a;
    default: return false;
  }
}

std::string Interp::repr(Value v) {
  switch (v.kind) {
    case VKind::None: return "None";
    case VKind::Bool: return v.a ? "True" : "False";
    case VKind::Int: return std::to_string(dims.value(v.dim()));
    case VKind::Float: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", v.f);
      return buf;
    }
    case VKind::Str: return std::string(strs[v.a]);
    case VKind::Dtype: return "torch." + std::string(dtype_name(static_cast<Dtype>(v.a)));
    case VKind::Ext: return std::string(strs[v.a]);
    default: return "?";
  }
}

// ---------------------------------------------------------------- classes

const Value* Interp::class_lookup(ObjId cls, StrId name, ObjId after) {
  // Depth-first, left to right: the MRO of every hierarchy training
  // scripts use (single inheritance plus mixins without diamonds).
  bool searching = after == kNone32;
  std::vector<ObjId> todo{cls};
  std::vector<ObjId> seen;
  while (!todo.empty()) {
    ObjId c = todo.front();
    todo.erase(todo.begin());
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    Obj& co = o(c);
    if (searching) {
      if (const Value* v = co.attrs.find(name)) return v;
    }
    if (c == after) searching = true;
    std::vector<ObjId> bases;
    for (Value b : co.items)
      if (is_obj(b, OKind::Class)) bases.push_back(b.a);
    todo.insert(todo.begin(), bases.begin(), bases.end());
  }
  return nullptr;
}

bool Interp::class_derives(ObjId cls, std::string_view ext_base) {
  for (Value b : o(cls).items) {
    if (b.kind == VKind::Ext) {
      std::string_view n = str(b.a);
      if (n == ext_base) return true;
      // Every torch.nn layer class is an nn.Module.
      if (ext_base == "torch.nn.Module" &&
          (n.starts_with("torch.nn.") || n.ends_with("LightningModule") ||
           n.starts_with("transformers.") || n == "builtins.Module"))
        return true;
    }
    if (is_obj(b, OKind::Class) && class_derives(b.a, ext_base)) return true;
  }
  return false;
}

/// The first external base of a class chain (torch.nn.Linear for
/// `class MyLinear(nn.Linear)`), or kNone32.
static StrId ext_base(Interp& in, ObjId cls) {
  for (Value b : in.o(cls).items) {
    if (b.kind == VKind::Ext) return b.a;
    if (in.is_obj(b, OKind::Class)) {
      StrId s = ext_base(in, b.a);
      if (s != kNone32) return s;
    }
  }
  return kNone32;
}

// -------------------------------------------------------------- attributes

Value Interp::getattr(Value v, StrId name) {
  std::string_view n = str(name);
  switch (v.kind) {
    case VKind::Ext: {
      std::string_view base = str(v.a);
      if (base == "torch") {
        if (auto d = parse_dtype(n); d && n != "int" && n != "32" && n != "16") return Value::dtype(*d);
        if (n == "int") return Value::dtype(Dtype::Int32);
      }
      if (base == "math" || base == "numpy" || base == "np") {
        if (n == "pi") return Value::real(3.14159265358979323846);
        if (n == "e") return Value::real(2.71828182845904523536);
        if (n == "inf") return Value::real(HUGE_VAL);
      }
      if (n == "__name__") {
        size_t dot = base.rfind('.');
        return str_value(dot == std::string_view::npos ? base : base.substr(dot + 1));
      }
      std::string q(base);
      q += '.';
      q += n;
      return Value::ext(intern(q));
    }
    case VKind::Obj: break;
    case VKind::Dtype:
      if (n == "itemsize") return int_value(dtype_size(static_cast<Dtype>(v.a)));
      if (n == "is_floating_point") return Value::boolean(is_floating(static_cast<Dtype>(v.a)));
      return Value::unknown();
    case VKind::Str:
    case VKind::Int:
    case VKind::Float:
    case VKind::Bool: {
      if (n == "real" || n == "numerator") return v;
      ObjId mo = alloc(OKind::Method);
      o(mo).items = {v};
      o(mo).type = name;
      return Value::obj(mo);
    }
    default: return Value::unknown();
  }
  Obj& ob = o(v);
  auto method = [&](Value self) {
    ObjId mo = alloc(OKind::Method);
    o(mo).items = {self};
    o(mo).type = name;
    return Value::obj(mo);
  };
  switch (ob.kind) {
    case OKind::Tensor: {
      bool handled = false;
      Value r = tensor_attr(*this, v, n, handled);
      return handled ? r : method(v);
    }
    case OKind::Instance: {
      if (const Value* a = ob.attrs.find(name)) return *a;
      if (ob.cls != kNone32) {
        if (const Value* c = class_lookup(ob.cls, name)) {
          Value cv = *c;
          if (is_obj(cv, OKind::Function)) {
            uint32_t fl = o(cv).flags;
            if (fl & kStatic) return cv;
            ObjId bo = alloc(OKind::Bound);
            o(bo).items = {(fl & kClassMethod) ? Value::obj(o(v).cls) : v, cv};
            return Value::obj(bo);
          }
          if (is_obj(cv, OKind::Property)) {
            Args a;
            Value getter = o(cv).items[0];
            return call_function(getter.a, a, v);
          }
          return cv;
        }
      }
      if (n == "__class__" && ob.cls != kNone32) return Value::obj(ob.cls);
      if (ob.flags & kIsModule) {
        if (n == "training") return Value::boolean(ob.flags & kTraining);
      }
      if (ob.type != kNone32 && ob.cls == kNone32 && n == "__class__") return Value::ext(ob.type);
      return method(v);
    }
    case OKind::Class: {
      if (n == "__name__") return Value::str(ob.type);
      if (const Value* c = class_lookup(v.a, name)) {
        Value cv = *c;
        if (is_obj(cv, OKind::Function) && (o(cv).flags & kClassMethod)) {
          ObjId bo = alloc(OKind::Bound);
          o(bo).items = {v, cv};
          return Value::obj(bo);
        }
        return cv;
      }
      return method(v);
    }
    case OKind::Super: {
      Value self = ob.items[0];
      ObjId start = ob.items[1].a;
      Obj* inst = instance(self);
      ObjId cls = inst && inst->cls != kNone32 ? inst->cls : start;
      if (const Value* c = class_lookup(cls, name, start)) {
        Value cv = *c;
        if (is_obj(cv, OKind::Function)) {
          if (o(cv).flags & kStatic) return cv;
          ObjId bo = alloc(OKind::Bound);
          o(bo).items = {self, cv};
          return Value::obj(bo);
        }
        return cv;
      }
      // Reached the external base (nn.Module, nn.Linear, Dataset): its
      // method, run on `self` (super().__init__(...) of a layer subclass).
      ObjId mo = alloc(OKind::Method);
      o(mo).items = {self};
      o(mo).type = name;
      o(mo).flags = 1;  // a super() call
      o(mo).index = ext_base(*this, start);
      return Value::obj(mo);
    }
    case OKind::Function:
      if (n == "__name__") return Value::unknown();
      return Value::unknown();
    default: return method(v);
  }
}

void Interp::setattr(Value obj, StrId name, Value v) {
  if (TensorObj* t = tensor(obj)) {
    std::string_view n = str(name);
    if (n == "requires_grad") {
      if (auto b = truth(v)) t->requires_grad = *b;
    } else if (n == "grad" && v.kind == VKind::None) {
      t->grad = kNone32;
    }
    return;
  }
  if (Obj* ob = instance(obj)) {
    ob->attrs.set(name, v);
    return;
  }
  if (is_obj(obj, OKind::Class)) o(obj).attrs.set(name, v);
}

// ------------------------------------------------------------------ items

Value Interp::getitem(Value c, Value key) {
  if (c.kind != VKind::Obj) return Value::unknown();
  Obj& ob = o(c);
  switch (ob.kind) {
    case OKind::List:
    case OKind::Tuple: {
      if (auto i = as_int(key)) {
        int64_t n = static_cast<int64_t>(ob.items.size());
        int64_t k = *i < 0 ? *i + n : *i;
        if (k < 0 || k >= n) return Value::unknown();
        return ob.items[static_cast<size_t>(k)];
      }
      if (is_obj(key, OKind::Slice)) {
        std::vector<Value> sl = o(key).items;
        int64_t n = static_cast<int64_t>(ob.items.size());
        auto st = as_int(sl[2]).value_or(1);
        if (st == 0) return Value::unknown();
        int64_t lo, hi;
        if (st > 0) {
          lo = sl[0].kind == VKind::None ? 0 : as_int(sl[0]).value_or(0);
          hi = sl[1].kind == VKind::None ? n : as_int(sl[1]).value_or(n);
          if (lo < 0) lo += n;
          if (hi < 0) hi += n;
          lo = std::clamp<int64_t>(lo, 0, n);
          hi = std::clamp<int64_t>(hi, 0, n);
        } else {
          lo = sl[0].kind == VKind::None ? n - 1 : as_int(sl[0]).value_or(n - 1);
          hi = sl[1].kind == VKind::None ? -1 : as_int(sl[1]).value_or(-1);
          if (lo < 0 && sl[0].kind != VKind::None) lo += n;
          if (hi < -1 || (hi < 0 && sl[1].kind != VKind::None)) hi += n;
          lo = std::clamp<int64_t>(lo, -1, n - 1);
        }
        std::vector<Value> out;
        std::vector<Value> src = o(c).items;
        for (int64_t k = lo; st > 0 ? k < hi : k > hi; k += st)
          if (k >= 0 && k < n) out.push_back(src[static_cast<size_t>(k)]);
        return make_list(std::move(out), o(c).kind);
      }
      return Value::unknown();
    }
    case OKind::Dict: {
      for (size_t k = 0; k + 1 < ob.items.size(); k += 2)
        if (same(ob.items[k], key)) return ob.items[k + 1];
      return Value::unknown();
    }
    case OKind::Range: {
      auto i = as_int(key);
      auto lo = as_int(ob.items[0]), st = as_int(ob.items[2]);
      if (i && lo && st) return int_value(*lo + *i * *st);
      return Value::unknown();
    }
    case OKind::Tensor:
    case OKind::Instance: {
      Args a;
      a.pos = {c, key};
      return call_method(c, intern("__getitem__"), a);
    }
    default: return Value::unknown();
  }
}

void Interp::setitem(Value c, Value key, Value v) {
  if (c.kind != VKind::Obj) return;
  Obj& ob = o(c);
  if (ob.kind == OKind::Dict) {
    for (size_t k = 0; k + 1 < ob.items.size(); k += 2) {
      if (same(ob.items[k], key)) {
        ob.items[k + 1] = v;
        return;
      }
    }
    ob.items.push_back(key);
    ob.items.push_back(v);
    return;
  }
  if (ob.kind == OKind::List) {
    if (auto i = as_int(key)) {
      int64_t n = static_cast<int64_t>(ob.items.size());
      int64_t k = *i < 0 ? *i + n : *i;
      if (k >= 0 && k < n) ob.items[static_cast<size_t>(k)] = v;
    }
    return;
  }
  if (ob.kind == OKind::Instance || ob.kind == OKind::Tensor) {
    Args a;
    a.pos = {c, key, v};
    call_method(c, intern("__setitem__"), a);
  }
}

// --------------------------------------------------------------- iteration

std::optional<std::vector<Value>> Interp::iterate(Value v) {
  // Enough for any layer list; a range this long is a training loop bound
  // the first step leaves early anyway.
  constexpr int64_t kMaxRange = 100000;
  if (v.kind == VKind::Str) {
    std::vector<Value> out;
    for (char ch : std::string(str(v.a))) out.push_back(str_value(std::string(1, ch)));
    return out;
  }
  if (v.kind != VKind::Obj) return std::nullopt;
  Obj& ob = o(v);
  switch (ob.kind) {
    case OKind::List:
    case OKind::Tuple:
    case OKind::Set: return ob.items;
    case OKind::Dict: {
      std::vector<Value> keys;
      for (size_t k = 0; k < ob.items.size(); k += 2) keys.push_back(ob.items[k]);
      return keys;
    }
    case OKind::Iter: {
      std::vector<Value> rest(ob.items.begin() + ob.index, ob.items.end());
      ob.index = static_cast<uint32_t>(ob.items.size());
      return rest;
    }
    case OKind::Range: {
      auto lo = as_int(ob.items[0]), hi = as_int(ob.items[1]), st = as_int(ob.items[2]);
      if (!lo || !hi || !st || *st == 0) return std::nullopt;
      std::vector<Value> out;
      Value start = ob.items[0], step = ob.items[2];
      int64_t count = 0;
      for (int64_t k = *lo; *st > 0 ? k < *hi : k > *hi; k += *st) {
        if (++count > kMaxRange) break;
        // Keep symbolic bounds symbolic: start + i*step.
        out.push_back(Value::integer(
            dims.add(start.dim(), dims.mul(step.dim(), dims.constant(count - 1)))));
      }
      return out;
    }
    case OKind::Tensor:
    case OKind::Instance: {
      Args a;
      a.pos = {v};
      Value r = call_method(v, intern("__iter__"), a);
      if (is_obj(r, OKind::Iter) || seq(r)) return iterate(r);
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

// ------------------------------------------------------------------ calls

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
  Value r = run(u, ir::FunctionId(o(fid).index), std::move(bound), closure, self_class);
  grad_enabled = saved_grad;
  return r;
}

/// @dataclass __init__: fields in declaration order (annotated class-body
/// names), defaults from the class attributes.
static void dataclass_init(Interp& in, ObjId cls, Value self, Args& args) {
  const Obj& co = in.o(cls);
  const ir::Module& m = *in.unit(co.module).ir;
  const ir::Class& c = m.cls(ir::ClassId(co.index));
  std::vector<StrId> fields;
  const ast::Module& a = *m.ast;
  for (ast::NodeId st : a.children(c.node, ast::slot::ClassDef::body)) {
    const ast::Node& n = a[st];
    if (n.kind != ast::NodeKind::AnnAssign) continue;
    ast::NodeId t = a.child(st, ast::slot::AnnAssign::target);
    if (a[t].kind != ast::NodeKind::Name) continue;
    fields.push_back(in.intern(a.name(a[t].f[ast::slot::Name::id])));
  }
  Obj* inst = in.instance(self);
  for (size_t k = 0; k < fields.size(); ++k) {
    std::optional<Value> v = args.get(in, k, in.str(fields[k]));
    if (!v) {
      const Value* d = in.class_lookup(cls, fields[k]);
      v = d ? *d : Value::unknown();
    }
    inst->attrs.set(fields[k], *v);
  }
}

Value Interp::construct(ObjId cls, Args& args) {
  ObjId io = alloc(OKind::Instance);
  o(io).cls = cls;
  o(io).type = o(cls).type;
  o(io).module = o(cls).module;
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
  auto it = functions.find(std::string(q));
  if (it != functions.end()) return it->second(*this, args);
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
    auto it = tensor_methods.find(std::string(n));
    if (it != tensor_methods.end()) return it->second(*this, args);
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
