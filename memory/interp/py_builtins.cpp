// The builtins training scripts call: len, range, enumerate, zip,
// isinstance, getattr, min, max, sorted, super, ... (operators are in
// py_operators.cpp, str/list/dict methods in py_stdlib.cpp).
// requires: interp.h. produces: builtins.* handlers.
#include <algorithm>
#include <cmath>

#include "memory/interp/interp.h"

namespace tpf::memory {

// ---------------------------------------------------------------- builtins

namespace {

Value b_len(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  Value v = a.pos[0];
  if (v.kind == VKind::Str) return in.int_value(static_cast<int64_t>(in.str(v.a).size()));
  // Grown in a loop over data the interpreter could not read: one pass's length.
  if (v.kind == VKind::Obj && (in.o(v).flags & kInexactLen)) return Value::unknown();
  if (auto* s = in.seq(v)) return in.int_value(static_cast<int64_t>(s->size()));
  if (in.is_obj(v, OKind::Dict)) return in.int_value(static_cast<int64_t>(in.o(v).items.size() / 2));
  if (in.is_obj(v, OKind::Range)) {
    if (auto items = in.iterate(v)) return in.int_value(static_cast<int64_t>(items->size()));
  }
  if (TensorObj* t = in.tensor(v)) {
    if (!t->shape.empty()) return Value::integer(t->shape[0]);
  }
  if (in.instance(v)) {
    Args args;
    args.pos = {v};
    return in.call_method(v, in.intern("__len__"), args);
  }
  return Value::unknown();
}

Value b_range(Interp& in, Args& a) {
  Value lo = in.int_value(0), hi, st = in.int_value(1);
  if (a.pos.size() == 1) {
    hi = a.pos[0];
  } else if (a.pos.size() >= 2) {
    lo = a.pos[0];
    hi = a.pos[1];
    if (a.pos.size() >= 3) st = a.pos[2];
  }
  if (hi.kind == VKind::Bool) hi = in.int_value(hi.a);
  if (lo.kind != VKind::Int || hi.kind != VKind::Int || st.kind != VKind::Int) return Value::unknown();
  return in.make_list({lo, hi, st}, OKind::Range);
}

Value b_enumerate(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  int64_t start = a.npos() > 1 ? in.as_int(a.pos[1]).value_or(0)
                               : in.as_int(a.kwarg(in, "start").value_or(in.int_value(0))).value_or(0);
  auto items = in.iterate(a.pos[0]);
  const bool guessed = !items || (a.pos[0].kind == VKind::Obj && (in.o(a.pos[0]).flags & kInexactLen));
  if (!items) items = std::vector<Value>{Value::unknown()};
  std::vector<Value> out;
  for (size_t k = 0; k < items->size(); ++k)
    out.push_back(in.make_list({in.int_value(start + static_cast<int64_t>(k)), (*items)[k]},
                               OKind::Tuple));
  Value it = in.make_list(std::move(out), OKind::Iter);
  // Over data the interpreter could not read, or a guessed length: one pass.
  if (guessed) in.o(it).flags |= kUnknownIter;
  return it;
}

Value b_zip(Interp& in, Args& a) {
  std::vector<std::vector<Value>> cols;
  size_t n = SIZE_MAX;
  for (Value v : a.pos) {
    auto items = in.iterate(v);
    if (!items) items = std::vector<Value>{Value::unknown()};
    n = std::min(n, items->size());
    cols.push_back(std::move(*items));
  }
  if (cols.empty()) n = 0;
  std::vector<Value> out;
  for (size_t k = 0; k < n; ++k) {
    std::vector<Value> row;
    for (auto& c : cols) row.push_back(c[k]);
    out.push_back(in.make_list(std::move(row), OKind::Tuple));
  }
  return in.make_list(std::move(out), OKind::Iter);
}

/// `out`, a copy of `src`'s items, keeps its guessed length (kInexactLen).
Value same_length(Interp& in, Value src, Value out) {
  if (src.kind == VKind::Obj && out.kind == VKind::Obj && (in.o(src).flags & kInexactLen))
    in.o(out).flags |= kInexactLen;
  return out;
}

Value b_list(Interp& in, Args& a) {
  if (a.pos.empty()) return in.make_list({});
  auto items = in.iterate(a.pos[0]);
  return items ? same_length(in, a.pos[0], in.make_list(std::move(*items))) : Value::unknown();
}

Value b_tuple(Interp& in, Args& a) {
  if (a.pos.empty()) return in.make_list({}, OKind::Tuple);
  auto items = in.iterate(a.pos[0]);
  return items ? same_length(in, a.pos[0], in.make_list(std::move(*items), OKind::Tuple)) : Value::unknown();
}

Value b_set(Interp& in, Args& a) {
  if (a.pos.empty()) return in.make_list({}, OKind::Set);
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  std::vector<Value> out;
  for (Value v : *items) {
    bool dup = false;
    for (Value x : out) dup = dup || in.same(x, v);
    if (!dup) out.push_back(v);
  }
  return same_length(in, a.pos[0], in.make_list(std::move(out), OKind::Set));
}

Value b_dict(Interp& in, Args& a) {
  Value d = in.make_dict();
  if (!a.pos.empty()) {
    if (in.is_obj(a.pos[0], OKind::Dict)) {
      std::vector<Value> items = in.o(a.pos[0]).items;
      for (size_t k = 0; k + 1 < items.size(); k += 2) in.setitem(d, items[k], items[k + 1]);
    } else if (auto items = in.iterate(a.pos[0])) {
      for (Value pair : *items)
        if (auto* s = in.seq(pair); s && s->size() == 2) in.setitem(d, (*s)[0], (*s)[1]);
    }
  }
  for (auto& [k, v] : a.kw) in.setitem(d, Value::str(k), v);
  return d;
}

}  // namespace

std::optional<Value> number_word(Interp& in, const std::string& t, bool ints) {
  if (t.empty()) return std::nullopt;
  char* end = nullptr;
  long long i = std::strtoll(t.c_str(), &end, 10);
  if (ints && end && *end == '\0') return in.int_value(i);
  double d = std::strtod(t.c_str(), &end);
  if (end && *end == '\0') return Value::real(d);
  return std::nullopt;
}

namespace {

Value b_int(Interp& in, Args& a) {
  if (a.pos.empty()) return in.int_value(0);
  Value v = a.pos[0];
  if (v.kind == VKind::Int) return v;
  if (v.kind == VKind::Bool) return in.int_value(v.a);
  if (v.kind == VKind::Float) return in.int_value(static_cast<int64_t>(v.f));
  if (auto s = in.as_str(v))
    if (auto n = number_word(in, std::string(*s)); n && n->kind == VKind::Int) return *n;
  if (TensorObj* t = in.tensor(v)) (void)t;
  return Value::unknown();
}

Value b_float(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::real(0);
  if (auto x = in.as_number(a.pos[0]); x && a.pos[0].kind != VKind::Str) return Value::real(*x);
  if (auto s = in.as_str(a.pos[0])) {
    std::string t(*s);
    if (t == "inf" || t == "+inf") return Value::real(HUGE_VAL);
    if (t == "-inf") return Value::real(-HUGE_VAL);
    if (t == "nan") return Value::real(NAN);
    char* end = nullptr;
    double x = std::strtod(t.c_str(), &end);
    if (end && *end == 0 && !t.empty()) return Value::real(x);
  }
  return Value::unknown();
}

Value b_str(Interp& in, Args& a) {
  if (a.pos.empty()) return in.str_value("");
  Value v = a.pos[0];
  if (v.kind == VKind::Str) return v;
  if (auto p = fspath(in, v)) return in.str_value(*p);  // str(pathlib.Path)
  if (v.kind == VKind::Int || v.kind == VKind::Float || v.kind == VKind::Bool ||
      v.kind == VKind::None)
    return in.str_value(in.repr(v));
  return Value::unknown();
}

Value b_bool(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::boolean(false);
  auto t = in.truth(a.pos[0]);
  return t ? Value::boolean(*t) : Value::unknown();
}

Value minmax(Interp& in, Args& a, bool want_max) {
  std::vector<Value> items;
  if (a.pos.size() == 1) {
    auto it = in.iterate(a.pos[0]);
    if (!it) return Value::unknown();
    items = *it;
  } else {
    items = a.pos;
  }
  if (items.empty()) return a.kwarg(in, "default").value_or(Value::unknown());
  Value best = items[0];
  for (Value v : items) {
    if (!in.as_number(v) || !in.as_number(best)) return Value::unknown();
    if (v.kind == VKind::Int && best.kind == VKind::Int) {
      best = Value::integer(want_max ? in.dims.max(best.dim(), v.dim()) : in.dims.min(best.dim(), v.dim()));
      continue;
    }
    if (want_max ? *in.as_number(v) > *in.as_number(best) : *in.as_number(v) < *in.as_number(best))
      best = v;
  }
  return best;
}

Value b_max(Interp& in, Args& a) { return minmax(in, a, true); }
Value b_min(Interp& in, Args& a) { return minmax(in, a, false); }

Value b_sum(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  Value acc = a.npos() > 1 ? a.pos[1] : in.int_value(0);
  for (Value v : *items) acc = in.binop(ast::Op::Add, acc, v, false);
  return acc;
}

Value b_abs(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  if (auto i = in.as_int(a.pos[0]); i && a.pos[0].kind != VKind::Float) return in.int_value(std::llabs(*i));
  if (a.pos[0].kind == VKind::Float) return Value::real(std::fabs(a.pos[0].f));
  return Value::unknown();
}

Value b_round(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  auto x = in.as_number(a.pos[0]);
  if (!x) return Value::unknown();
  if (a.npos() > 1) {
    auto nd = in.as_int(a.pos[1]).value_or(0);
    double p = std::pow(10.0, static_cast<double>(nd));
    return Value::real(std::nearbyint(*x * p) / p);
  }
  return in.int_value(static_cast<int64_t>(std::nearbyint(*x)));
}

Value b_sorted(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  bool all_str = true, all_num = true;
  for (Value v : *items) {
    all_str = all_str && v.kind == VKind::Str;
    all_num = all_num && in.as_number(v).has_value() && v.kind != VKind::Str;
  }
  if (all_str) {
    std::stable_sort(items->begin(), items->end(),
                     [&](Value x, Value y) { return in.str(x.a) < in.str(y.a); });
  } else if (all_num) {
    std::stable_sort(items->begin(), items->end(),
                     [&](Value x, Value y) { return *in.as_number(x) < *in.as_number(y); });
  }
  if (auto r = a.kwarg(in, "reverse"); r && in.truth(*r).value_or(false))
    std::reverse(items->begin(), items->end());
  return same_length(in, a.pos[0], in.make_list(std::move(*items)));
}

Value b_reversed(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  std::reverse(items->begin(), items->end());
  return in.make_list(std::move(*items), OKind::Iter);
}

Value b_isinstance(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  Value v = a.pos[0], t = a.pos[1];
  std::vector<Value> types;
  if (auto* s = in.seq(t)) types = *s;
  else types = {t};
  for (Value ty : types) {
    if (ty.kind == VKind::Ext) {
      std::string_view n = in.str(ty.a);
      if (n == "builtins.int" && v.kind == VKind::Int) return Value::boolean(true);
      if (n == "builtins.float" && v.kind == VKind::Float) return Value::boolean(true);
      if (n == "builtins.str" && v.kind == VKind::Str) return Value::boolean(true);
      if (n == "builtins.bool" && v.kind == VKind::Bool) return Value::boolean(true);
      if ((n == "builtins.list") && in.is_obj(v, OKind::List)) return Value::boolean(true);
      if ((n == "builtins.tuple") && in.is_obj(v, OKind::Tuple)) return Value::boolean(true);
      if ((n == "builtins.dict") && in.is_obj(v, OKind::Dict)) return Value::boolean(true);
      if (n == "torch.Tensor" && in.tensor(v)) return Value::boolean(true);
      if (Obj* ob = in.instance(v)) {
        if (ob->type != kNone32 && in.str(ob->type) == n) return Value::boolean(true);
        if (n == "torch.nn.Module" && (ob->flags & kIsModule)) return Value::boolean(true);
        if (ob->cls != kNone32 && in.class_derives(ob->cls, n)) return Value::boolean(true);
        if (ob->cls == kNone32 && ob->type != kNone32) continue;
      }
      if (!v.known()) return Value::unknown();
      continue;
    }
    if (in.is_obj(ty, OKind::Class)) {
      if (Obj* ob = in.instance(v); ob && ob->cls != kNone32) {
        if (ob->cls == ty.a) return Value::boolean(true);
        // walk bases
        std::vector<ObjId> todo{ob->cls};
        while (!todo.empty()) {
          ObjId c = todo.back();
          todo.pop_back();
          if (c == ty.a) return Value::boolean(true);
          for (Value b : in.o(c).items)
            if (in.is_obj(b, OKind::Class)) todo.push_back(b.a);
        }
      }
    }
  }
  return v.known() ? Value::boolean(false) : Value::unknown();
}

/// What torch.nn.Module itself defines (dir(nn.Module), torch 1.13 to 2.5,
/// public names and the wrappers' `_orig_mod` left out): the attributes a
/// module of the script's own class has without setting them.
bool module_api(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "add_module", "apply", "bfloat16", "buffers", "children", "compile", "cpu", "cuda", "double",
      "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer", "get_extra_state",
      "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia",
      "named_buffers", "named_children", "named_modules", "named_parameters", "parameters",
      "register_backward_hook", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
      "register_full_backward_hook", "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
      "register_load_state_dict_pre_hook", "register_module", "register_parameter",
      "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_", "set_extra_state",
      "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "training", "type", "xpu",
      "zero_grad"};
  for (std::string_view k : kNames)
    if (k == n) return true;
  return n.starts_with("__");
}

Value b_getattr(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  auto n = in.as_str(a.pos[1]);
  if (!n) return Value::unknown();
  Value r = in.getattr(a.pos[0], in.intern(*n));
  if (in.is_obj(r, OKind::Method) && a.pos.size() > 2) {
    // getattr(obj, "x", default) on a missing plain attribute of an
    // instance of the script's own class; for its nn.Module subclasses,
    // a name nn.Module does not define either (`getattr(model, "flag",
    // False)`: nn.Module.__getattr__ raises, so the default is the value).
    Obj* ob = in.instance(a.pos[0]);
    if (!in.tensor(a.pos[0]) && ob && ob->cls != kNone32 && (!in.is_module(a.pos[0]) || !module_api(*n)))
      return a.pos[2];
  }
  return r;
}

/// __import__(name, fromlist=[...]) and importlib.import_module(name) of a
/// name the run knows: the module `import name` binds (the top package
/// for `__import__` without a fromlist), the project's own or a library's.
Value import_by_name(Interp& in, Args& a, bool top_package) {
  auto n = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  if (!n || n->empty() || n->starts_with('.') || in.stack.empty()) return Value::unknown();
  std::string q(*n);
  if (top_package) {
    Value from = a.get(in, 3, "fromlist").value_or(Value::none());
    std::vector<Value>* names = in.seq(from);
    if (!names || names->empty()) q = q.substr(0, q.find('.'));
  }
  Value m = in.import_value(in.stack.back()->module, q);
  // Named by a value the run gives it here (a literal, an argument's or an
  // environment variable's default): the static note on this line says
  // which module was followed, not that none was.
  if (m.known()) {
    const uint32_t line = in.user_line();
    for (TrainingConfig::Unknown& u : in.cfg.unknowns) {
      size_t at = u.what.find(kDynamicImportNote);
      if (u.line == line && at != std::string::npos)
        u.what = u.what.substr(0, at) + " names its module at run time: followed as `" + q +
                 "`, the name this run gives it";
    }
  }
  return m;
}
Value b_import(Interp& in, Args& a) { return import_by_name(in, a, true); }
Value b_import_module(Interp& in, Args& a) { return import_by_name(in, a, false); }

Value b_hasattr(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  auto n = in.as_str(a.pos[1]);
  if (!n) return Value::unknown();
  if (a.pos[0].kind == VKind::Ext) return Value::boolean(true);
  if (Obj* ob = in.instance(a.pos[0])) {
    if (ob->attrs.find(in.intern(*n))) return Value::boolean(true);
    if (ob->cls != kNone32 && in.class_lookup(ob->cls, in.intern(*n))) return Value::boolean(true);
    return Value::boolean(false);
  }
  return Value::unknown();
}

/// callable(x): functions, methods, classes, partials; an instance when
/// its class (or nn.Module, which every layer is) defines `__call__`; plain
/// data is not. Anything else (a library object) is unknown.
Value b_callable(Interp& in, Args& a) {
  if (a.pos.size() != 1) return Value::unknown();
  const Value v = a.pos[0];
  switch (v.kind) {
    case VKind::Int: case VKind::Float: case VKind::Bool: case VKind::Str: case VKind::None: case VKind::Dtype:
      return Value::boolean(false);
    case VKind::Obj: break;
    default: return Value::unknown();
  }
  if (in.tensor(v)) return Value::boolean(false);
  const Obj& ob = in.o(v);
  switch (ob.kind) {
    case OKind::Function: case OKind::Bound: case OKind::Method: case OKind::Class: case OKind::Partial:
      return Value::boolean(true);
    case OKind::List: case OKind::Tuple: case OKind::Dict: case OKind::Set: case OKind::Range: case OKind::Slice:
    case OKind::Module:
      return Value::boolean(false);
    case OKind::Instance:
      if (ob.cls != kNone32 && in.class_lookup(ob.cls, in.intern("__call__"))) return Value::boolean(true);
      return Value::unknown();
    default: return Value::unknown();
  }
}

Value b_setattr(Interp& in, Args& a) {
  if (a.pos.size() < 3) return Value::none();
  if (auto n = in.as_str(a.pos[1])) in.setattr(a.pos[0], in.intern(*n), a.pos[2]);
  return Value::none();
}

Value b_super(Interp& in, Args& a) {
  Value self, cls;
  if (a.pos.size() >= 2) {
    cls = a.pos[0];
    self = a.pos[1];
  } else {
    // Zero-argument super(): the method's class and its first argument.
    Frame* fr = in.stack.empty() ? nullptr : in.stack.back();
    if (!fr || fr->self_class == kNone32) return Value::unknown();
    cls = Value::obj(fr->self_class);
    const ir::Function& f = in.unit(fr->module).ir->fn(fr->fn);
    for (const ir::Inst& inst : f.insts_of(f.entry()))
      if (inst.op == ir::Op::Param && inst.aux == 0) self = fr->vals[inst.result.v];
  }
  if (!in.is_obj(cls, OKind::Class)) return Value::unknown();
  ObjId so = in.alloc(OKind::Super);
  in.o(so).items = {self, cls};
  return Value::obj(so);
}

Value b_iter(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  if (in.is_obj(a.pos[0], OKind::Iter)) return a.pos[0];
  auto items = in.iterate(a.pos[0]);
  return in.make_list(items ? std::move(*items) : std::vector<Value>{Value::unknown()}, OKind::Iter);
}

Value b_next(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  Value it = a.pos[0];
  if (!in.is_obj(it, OKind::Iter)) {
    auto items = in.iterate(it);
    return items && !items->empty() ? (*items)[0] : Value::unknown();
  }
  Obj& io = in.o(it);
  if (io.index < io.items.size()) return io.items[io.index++];
  return a.npos() > 1 ? a.pos[1] : Value::unknown();
}

Value b_map(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  auto items = in.iterate(a.pos[1]);
  if (!items) return Value::unknown();
  std::vector<Value> out;
  for (Value v : *items) {
    Args args;
    args.pos = {v};
    out.push_back(in.call(a.pos[0], args));
  }
  return in.make_list(std::move(out), OKind::Iter);
}

Value b_filter(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  auto items = in.iterate(a.pos[1]);
  if (!items) return Value::unknown();
  std::vector<Value> out;
  for (Value v : *items) {
    bool keep;
    if (a.pos[0].kind == VKind::None) {
      keep = in.truth(v).value_or(true);
    } else {
      Args args;
      args.pos = {v};
      keep = in.truth(in.call(a.pos[0], args)).value_or(true);
    }
    if (keep) out.push_back(v);
  }
  return in.make_list(std::move(out), OKind::Iter);
}

Value b_anyall(Interp& in, Args& a, bool any) {
  if (a.pos.empty()) return Value::unknown();
  auto items = in.iterate(a.pos[0]);
  if (!items) return Value::unknown();
  for (Value v : *items) {
    auto t = in.truth(v);
    if (!t) return Value::unknown();
    if (*t == any) return Value::boolean(any);
  }
  return Value::boolean(!any);
}
Value b_any(Interp& in, Args& a) { return b_anyall(in, a, true); }
Value b_all(Interp& in, Args& a) { return b_anyall(in, a, false); }

Value b_none(Interp&, Args&) { return Value::none(); }

Value b_decorator_flag(Interp& in, Args& a, uint32_t flag) {
  if (a.pos.empty()) return Value::unknown();
  if (in.is_obj(a.pos[0], OKind::Function)) in.o(a.pos[0]).flags |= flag;
  return a.pos[0];
}
Value b_staticmethod(Interp& in, Args& a) { return b_decorator_flag(in, a, kStatic); }
Value b_classmethod(Interp& in, Args& a) { return b_decorator_flag(in, a, kClassMethod); }
Value b_property(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  ObjId p = in.alloc(OKind::Property);
  in.o(p).items = {a.pos[0]};
  return Value::obj(p);
}

Value b_type(Interp& in, Args& a) {
  if (a.pos.size() != 1) return Value::unknown();
  if (Obj* ob = in.instance(a.pos[0])) {
    if (ob->cls != kNone32) return Value::obj(ob->cls);
    if (ob->type != kNone32) return Value::ext(ob->type);
  }
  return Value::unknown();
}

Value b_divmod(Interp& in, Args& a) {
  if (a.pos.size() != 2) return Value::unknown();
  return in.make_list({in.binop(ast::Op::FloorDiv, a.pos[0], a.pos[1], false),
                       in.binop(ast::Op::Mod, a.pos[0], a.pos[1], false)},
                      OKind::Tuple);
}

}  // namespace

void register_builtins(Builtins& b) {
  auto& f = b.functions;
  f["builtins.len"] = b_len;
  f["builtins.__import__"] = b_import;
  f["importlib.import_module"] = b_import_module;
  f["builtins.range"] = b_range;
  f["builtins.enumerate"] = b_enumerate;
  f["builtins.zip"] = b_zip;
  f["builtins.list"] = b_list;
  f["builtins.tuple"] = b_tuple;
  f["builtins.set"] = b_set;
  f["builtins.frozenset"] = b_set;
  f["builtins.dict"] = b_dict;
  f["collections.OrderedDict"] = b_dict;
  f["collections.defaultdict"] = b_dict;
  f["builtins.int"] = b_int;
  f["builtins.float"] = b_float;
  f["builtins.str"] = b_str;
  f["builtins.bool"] = b_bool;
  f["builtins.max"] = b_max;
  f["builtins.min"] = b_min;
  f["builtins.sum"] = b_sum;
  f["builtins.abs"] = b_abs;
  f["builtins.round"] = b_round;
  f["builtins.sorted"] = b_sorted;
  f["builtins.reversed"] = b_reversed;
  f["builtins.isinstance"] = b_isinstance;
  f["builtins.getattr"] = b_getattr;
  f["builtins.hasattr"] = b_hasattr;
  f["builtins.callable"] = b_callable;
  f["builtins.setattr"] = b_setattr;
  f["builtins.super"] = b_super;
  f["builtins.iter"] = b_iter;
  f["builtins.next"] = b_next;
  f["builtins.map"] = b_map;
  f["builtins.filter"] = b_filter;
  f["builtins.any"] = b_any;
  f["builtins.all"] = b_all;
  f["builtins.print"] = b_none;
  f["builtins.staticmethod"] = b_staticmethod;
  f["builtins.classmethod"] = b_classmethod;
  f["builtins.property"] = b_property;
  f["builtins.type"] = b_type;
  f["builtins.divmod"] = b_divmod;
}

}  // namespace tpf::memory
