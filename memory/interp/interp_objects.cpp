// The object model of the interpreter: strings, heap objects, truth and
// equality, attribute lookup along class bases, items and iteration
// (operators are in py_operators.cpp, calls in interp_calls.cpp).
// requires: interp.h. produces: Python semantics for interp.cpp.
#include <algorithm>
#include <cmath>

#include "memory/interp/config_files.h"
#include "memory/interp/interp.h"

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
  charge(1);  // objects are work too: a model of 100,000 cloned layers meets the budget
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
          // What a torch.load'ed file holds is unknown, and a numpy array's
          // truth is its one element's (file_arrays.cpp).
          if (ob.type != kNone32 && str(ob.type) == "data.file_array") return std::nullopt;
          return true;
        default: return true;
      }
    }
    default: return std::nullopt;
  }
}

bool Interp::same(Value a, Value b) {
  auto numeric = [](VKind k) { return k == VKind::Int || k == VKind::Float || k == VKind::Bool; };
  // Numbers compare by value across int, float and bool (1 == 1.0 == True).
  if (numeric(a.kind) && numeric(b.kind)) {
    auto na = as_number(a), nb = as_number(b);
    return na && nb && *na == *nb;
  }
  // Other values of one kind compare by their payload (string, qualified
  // name and object keys: the whole work of a dict key scan); an unknown
  // value equals nothing.
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case VKind::Str:
    case VKind::Ext:
    case VKind::Obj:
    case VKind::Dtype: return a.a == b.a;
    case VKind::None:
    case VKind::Ellipsis: return true;
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
StrId ext_base(Interp& in, ObjId cls) {
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

std::string_view type_of(Interp& in, Value v) {
  Obj* ob = in.instance(v);
  return ob && ob->cls == kNone32 && ob->type != kNone32 ? in.str(ob->type) : std::string_view();
}

Value new_instance(Interp& in, std::string_view type) {
  ObjId io = in.alloc(OKind::Instance);
  in.o(io).type = in.intern(type);
  return Value::obj(io);
}

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
      if (base == "sys" && n == "argv") {
        // The run's command line: the script's name, then what follows
        // `--` on tpf-analyze's (EstimateOptions::argv).
        const SourceFile* src = units[0]->ir->src;
        std::vector<Value> items{str_value(src ? std::string_view(src->path) : std::string_view("script.py"))};
        for (const std::string& t : opt.argv) items.push_back(str_value(t));
        if (!opt.argv.empty()) argv_read = true;
        return make_list(std::move(items));
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
      // `self.__dict__`: its attributes as a dict whose writes set them
      // (minGPT's CfgNode: self.__dict__.update(kwargs)).
      if (n == "__dict__" && ob.cls != kNone32) {
        Value d = make_dict();
        std::vector<std::pair<StrId, Value>> items = ob.attrs.items;
        for (auto& [k, a] : items) setitem(d, Value::str(k), a);
        o(d).flags |= kAttrsDict;
        o(d).index = v.a;
        return d;
      }
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
            if (!is_obj(getter, OKind::Function)) return Value::unknown();
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
    case OKind::Module: {
      // A project module: its top-level names, else a submodule the
      // script imports (`import pkg.sub`, then `pkg.sub.f`).
      uint16_t mu = static_cast<uint16_t>(ob.index);
      std::string qual = unit(mu).name;
      if (qual.ends_with(".__init__")) qual.resize(qual.size() - 9);
      qual += "." + std::string(n);
      if (modelled_over_project(qual)) return Value::ext(intern(qual));
      if (auto g = unit_global(mu, n)) return *g;
      if (n == "__name__") return str_value(unit(mu).name);
      if (auto sm = package_submodule(mu, n)) return *sm;
      std::string sub = unit(mu).name + "." + std::string(n);
      Value r = import_value(0, sub);
      return r.kind == VKind::Ext ? Value::unknown() : r;
    }
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
    // A property with a setter on the class runs it (a data descriptor
    // comes before the instance's own attributes).
    if (ob->cls != kNone32)
      if (const Value* c = class_lookup(ob->cls, name); c && is_obj(*c, OKind::Property)) {
        const std::vector<Value>& fns = o(*c).items;
        if (fns.size() > 1 && is_obj(fns[1], OKind::Function)) {
          Args a;
          a.pos.push_back(v);
          call_function(fns[1].a, a, obj);
          return;
        }
      }
    ob->attrs.set(name, v);
    return;
  }
  if (is_obj(obj, OKind::Class)) o(obj).attrs.set(name, v);
}

// ------------------------------------------------------------------ items

Value Interp::getitem(Value c, Value key) {
  // os.environ["RANK"]: the same launcher view as os.environ.get (a
  // torchrun launch of rank 0), so `int(os.environ["WORLD_SIZE"])` in a
  // DDP branch is a number, not an unknown loop bound.
  if (c.kind == VKind::Ext && str(c.a) == "os.environ") {
    Handler h = builtin.function("os.environ.get");
    Args a;
    a.pos = {key};
    return h ? h(*this, a) : Value::unknown();
  }
  // `models.__dict__[args.arch]` (pytorch/examples imagenet): the module's
  // attribute of that name.
  if (c.kind == VKind::Ext && str(c.a).ends_with(".__dict__")) {
    if (auto k = as_str(key)) {
      std::string q(str(c.a).substr(0, str(c.a).size() - std::string_view(".__dict__").size()));
      return getattr(Value::ext(intern(q)), intern(*k));
    }
    return Value::unknown();
  }
  // A string's character or slice (`key[2:]` of a `--key=value` argument).
  if (c.kind == VKind::Str) {
    const std::string s(str(c.a));
    const int64_t n = static_cast<int64_t>(s.size());
    if (auto i = as_int(key)) {
      int64_t k = *i < 0 ? *i + n : *i;
      return k < 0 || k >= n ? Value::unknown() : str_value(s.substr(static_cast<size_t>(k), 1));
    }
    if (!is_obj(key, OKind::Slice)) return Value::unknown();
    const std::vector<Value>& sl = o(key).items;
    if (sl[2].kind != VKind::None && as_int(sl[2]).value_or(0) != 1) return Value::unknown();
    auto bound = [&](Value v, int64_t dflt) -> std::optional<int64_t> {
      if (v.kind == VKind::None) return dflt;
      auto b = as_int(v);
      if (!b) return std::nullopt;
      return std::clamp<int64_t>(*b < 0 ? *b + n : *b, 0, n);
    };
    auto lo = bound(sl[0], 0), hi = bound(sl[1], n);
    if (!lo || !hi) return Value::unknown();
    return str_value(*hi > *lo ? s.substr(static_cast<size_t>(*lo), static_cast<size_t>(*hi - *lo)) : std::string());
  }
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
        charge(static_cast<uint64_t>(n));
        std::vector<Value> out;
        std::vector<Value> src = o(c).items;
        for (int64_t k = lo; st > 0 ? k < hi : k > hi; k += st)
          if (k >= 0 && k < n) out.push_back(src[static_cast<size_t>(k)]);
        // A slice of a list of guessed length (grown over data the
        // interpreter could not read) has a guessed length too.
        const bool inexact = o(c).flags & kInexactLen;
        Value r = make_list(std::move(out), o(c).kind);
        if (inexact) o(r).flags |= kInexactLen;
        return r;
      }
      return Value::unknown();
    }
    case OKind::Dict: {
      charge(ob.items.size() / 2);
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
    if (ob.flags & kGlobalsDict) globals_write(*this, c, key, v);
    if (ob.flags & kAttrsDict)
      if (auto k = as_str(key)) o(Value::obj(ob.index)).attrs.set(intern(*k), v);
    charge(ob.items.size() / 2);
    for (size_t k = 0; k + 1 < ob.items.size(); k += 2) {
      if (same(ob.items[k], key)) {
        ob.items[k + 1] = v;
        return;
      }
    }
    ob.items.push_back(key);
    ob.items.push_back(v);
    grown(c);
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
    charge(str(v.a).size());
    std::vector<Value> out;
    for (char ch : std::string(str(v.a))) out.push_back(str_value(std::string(1, ch)));
    return out;
  }
  if (v.kind != VKind::Obj) return std::nullopt;
  Obj& ob = o(v);
  switch (ob.kind) {
    case OKind::List:
    case OKind::Tuple:
    case OKind::Set: charge(ob.items.size()); return ob.items;
    case OKind::Dict: {
      charge(ob.items.size());
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
        charge(1);
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
      // An iterator object of the script's (`__iter__` returns one whose
      // class defines `__next__`: litgpt's CycleIterator over a loader):
      // its first item, as a loader gives its first batch; the rest would
      // repeat the step.
      if (Obj* it = instance(r); it && it->cls != kNone32 && class_lookup(it->cls, intern("__next__"))) {
        Args na;
        na.pos = {r};
        Value first = call_method(r, intern("__next__"), na);
        if (first.known()) return std::vector<Value>{first};
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

}  // namespace tpf::memory
