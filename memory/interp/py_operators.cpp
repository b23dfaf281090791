// Python's operators on the interpreter's values: integer arithmetic on
// DimIds (so sizes stay symbolic), floats, strings, list/tuple
// concatenation and repetition, dict union, comparisons and `is`/`in`, and
// the script's own __add__/__mul__. A tensor operand goes to
// tensor_ops.cpp (tensor_binop, tensor_compare, tensor_unary).
// requires: interp.h. produces: binop, compare, unaryop results.
#include <algorithm>
#include <cmath>

#include "memory/interp/interp.h"

namespace tpf::memory {

Value tensor_binop(Interp& in, ast::Op op, Value a, Value b, bool inplace);
Value tensor_compare(Interp& in, ast::Op op, Value a, Value b);
Value tensor_unary(Interp& in, ast::Op op, Value a);

namespace {

bool is_intlike(const Value& v) { return v.kind == VKind::Int || v.kind == VKind::Bool; }

DimId as_dim(Interp& in, Value v) {
  return v.kind == VKind::Int ? v.dim() : in.dims.constant(v.a);
}

}  // namespace

Value Interp::binop(ast::Op op, Value a, Value b, bool inplace) {
  using ast::Op;
  if (tensor(a) || tensor(b)) return tensor_binop(*this, op, a, b, inplace);
  if (is_intlike(a) && is_intlike(b)) {
    DimId x = as_dim(*this, a), y = as_dim(*this, b);
    int64_t yv = dims.value(y);
    switch (op) {
      case Op::Add: return Value::integer(dims.add(x, y));
      case Op::Sub: return Value::integer(dims.sub(x, y));
      case Op::Mult: return Value::integer(dims.mul(x, y));
      case Op::FloorDiv: return yv == 0 ? Value::unknown() : Value::integer(dims.floordiv(x, y));
      case Op::Mod: return yv == 0 ? Value::unknown() : Value::integer(dims.mod(x, y));
      case Op::Div:
        return yv == 0 ? Value::unknown()
                       : Value::real(static_cast<double>(dims.value(x)) / static_cast<double>(yv));
      case Op::Pow: {
        if (yv < 0) return Value::real(std::pow(dims.value(x), yv));
        if (yv > 62) return Value::unknown();
        DimId r = dims.constant(1);
        for (int64_t k = 0; k < yv; ++k) r = dims.mul(r, x);
        return Value::integer(r);
      }
      case Op::LShift:
        // x * 2**y, clamped like every product (a count of 1 << 70 overflows, said so).
        if (yv < 0) return Value::unknown();  // ValueError: negative shift count
        if (yv > 62) return Value::integer(dims.mul(dims.mul(x, int64_t{1} << 62), int64_t{1} << (yv > 124 ? 62 : yv - 62)));
        return Value::integer(dims.mul(x, int64_t{1} << yv));
      case Op::RShift:
        if (yv < 0) return Value::unknown();
        if (yv > 63) return int_value(dims.value(x) < 0 ? -1 : 0);
        return int_value(dims.value(x) >> yv);
      case Op::BitAnd: return int_value(dims.value(x) & yv);
      case Op::BitOr: return int_value(dims.value(x) | yv);
      case Op::BitXor: return int_value(dims.value(x) ^ yv);
      default: return Value::unknown();
    }
  }
  auto na = as_number(a), nb = as_number(b);
  if (na && nb && a.kind != VKind::Str && b.kind != VKind::Str) {
    double x = *na, y = *nb;
    switch (op) {
      case Op::Add: return Value::real(x + y);
      case Op::Sub: return Value::real(x - y);
      case Op::Mult: return Value::real(x * y);
      case Op::Div: return y == 0 ? Value::unknown() : Value::real(x / y);
      case Op::FloorDiv: return y == 0 ? Value::unknown() : Value::real(std::floor(x / y));
      case Op::Mod: return y == 0 ? Value::unknown() : Value::real(x - std::floor(x / y) * y);
      case Op::Pow: return Value::real(std::pow(x, y));
      default: return Value::unknown();
    }
  }
  if (a.kind == VKind::Str && b.kind == VKind::Str && op == Op::Add) {
    charge(str(a.a).size() + str(b.a).size());
    return str_value(std::string(str(a.a)) + std::string(str(b.a)));
  }
  if (a.kind == VKind::Str && op == Op::Mod) return Value::unknown();
  auto* sa = seq(a);
  auto* sb = seq(b);
  if (sa && sb && op == Op::Add) {
    charge(sa->size() + sb->size());
    std::vector<Value> items = *sa;
    items.insert(items.end(), sb->begin(), sb->end());
    if (inplace && o(a).kind == OKind::List) {
      *sa = items;
      return a;
    }
    return make_list(std::move(items), o(a).kind);
  }
  if ((sa && is_intlike(b)) || (sb && is_intlike(a))) {
    if (op != Op::Mult) return Value::unknown();
    std::vector<Value> base = sa ? *sa : *sb;
    int64_t n = std::max<int64_t>(0, *as_int(sa ? b : a));
    if (n > 100000) return Value::unknown();
    charge(static_cast<uint64_t>(n) * std::max<size_t>(base.size(), 1));
    std::vector<Value> items;
    for (int64_t k = 0; k < n; ++k) items.insert(items.end(), base.begin(), base.end());
    return make_list(std::move(items), o(sa ? a : b).kind);
  }
  if (is_obj(a, OKind::Dict) && is_obj(b, OKind::Dict) && op == Op::BitOr) {
    Value d = make_dict();
    std::vector<Value> ia = o(a).items, ib = o(b).items;
    for (size_t k = 0; k + 1 < ia.size(); k += 2) setitem(d, ia[k], ia[k + 1]);
    for (size_t k = 0; k + 1 < ib.size(); k += 2) setitem(d, ib[k], ib[k + 1]);
    return d;
  }
  if (op == Op::Div)
    if (auto p = path_div(*this, a, b)) return *p;  // pathlib's `p / "x"`
  if (Obj* ia = instance(a); ia && ia->cls != kNone32) {
    static const char* kNames[] = {"__add__", "__sub__", "__mul__", "__matmul__", "__truediv__"};
    int idx = op == Op::Add ? 0 : op == Op::Sub ? 1 : op == Op::Mult ? 2 : op == Op::MatMult ? 3
              : op == Op::Div ? 4 : -1;
    if (idx >= 0) {
      if (const Value* m = class_lookup(ia->cls, intern(kNames[idx]))) {
        Args args;
        args.pos = {b};
        if (is_obj(*m, OKind::Function)) return call_function(m->a, args, a);
      }
    }
  }
  return Value::unknown();
}

Value Interp::compare(ast::Op op, Value a, Value b) {
  using ast::Op;
  if (op == Op::Is || op == Op::IsNot) {
    bool an = a.kind == VKind::None, bn = b.kind == VKind::None;
    std::optional<bool> res;
    // A library's value the interpreter does not model, an Ext name or
    // the Method that stands for an attribute of a library object
    // (`accelerator.deepspeed_engine_wrapped.engine`), may be any object,
    // the script's own included, or another name of the same one.
    auto opaque = [&](Value v) { return v.kind == VKind::Ext || is_obj(v, OKind::Method); };
    const bool unsure = (opaque(a) || opaque(b)) && !an && !bn && !(a.kind == b.kind && a.a == b.a);
    if (a.known() && b.known() && !unsure) {
      if (an || bn) res = an && bn;
      else if (a.kind != b.kind) res = false;
      else if (a.kind == VKind::Int) res = dims.value(a.dim()) == dims.value(b.dim());
      else if (a.kind == VKind::Float) res = a.f == b.f;
      else res = a.a == b.a;
    }
    if (!res) return Value::unknown();
    return Value::boolean(op == Op::Is ? *res : !*res);
  }
  if (op == Op::In || op == Op::NotIn) {
    std::optional<bool> found;
    if (a.kind == VKind::Str && b.kind == VKind::Str) {
      found = str(b.a).find(str(a.a)) != std::string_view::npos;
    } else if (a.kind == VKind::Str && b.kind == VKind::Ext && str(b.a) == "os.environ") {
      // `if "RANK" in os.environ:` (timm, DINO): the launcher's view.
      found = environ_contains(*this, str(a.a));
    } else if (auto items = (b.kind == VKind::Obj && !tensor(b)) ? iterate(b) : std::nullopt) {
      found = false;
      for (Value x : *items) {
        if (!x.known() || !a.known()) {
          found.reset();
          break;
        }
        if (same(x, a)) {
          found = true;
          break;
        }
      }
    }
    if (!found) return Value::unknown();
    return Value::boolean(op == Op::In ? *found : !*found);
  }
  if (tensor(a) || tensor(b)) return tensor_compare(*this, op, a, b);
  if (a.kind == VKind::Str || b.kind == VKind::Str || a.kind == VKind::None ||
      b.kind == VKind::None || a.kind == VKind::Dtype || a.kind == VKind::Ext) {
    if (!a.known() || !b.known()) return Value::unknown();
    bool eq = same(a, b);
    if (op == Op::Eq) return Value::boolean(eq);
    if (op == Op::NotEq) return Value::boolean(!eq);
    if (a.kind == VKind::Str && b.kind == VKind::Str) {
      int c = str(a.a).compare(str(b.a));
      switch (op) {
        case Op::Lt: return Value::boolean(c < 0);
        case Op::LtE: return Value::boolean(c <= 0);
        case Op::Gt: return Value::boolean(c > 0);
        case Op::GtE: return Value::boolean(c >= 0);
        default: break;
      }
    }
    return Value::unknown();
  }
  auto x = as_number(a), y = as_number(b);
  if (!x || !y) {
    if (a.kind == VKind::Obj && b.kind == VKind::Obj && (op == Op::Eq || op == Op::NotEq)) {
      auto sa = seq(a), sb = seq(b);
      if (sa && sb) {
        bool eq = sa->size() == sb->size();
        if (eq) charge(sa->size());
        for (size_t k = 0; eq && k < sa->size(); ++k) eq = same((*sa)[k], (*sb)[k]);
        return Value::boolean(op == Op::Eq ? eq : !eq);
      }
      return Value::boolean(op == Op::Eq ? a.a == b.a : a.a != b.a);
    }
    return Value::unknown();
  }
  switch (op) {
    case Op::Eq: return Value::boolean(*x == *y);
    case Op::NotEq: return Value::boolean(*x != *y);
    case Op::Lt: return Value::boolean(*x < *y);
    case Op::LtE: return Value::boolean(*x <= *y);
    case Op::Gt: return Value::boolean(*x > *y);
    case Op::GtE: return Value::boolean(*x >= *y);
    default: return Value::unknown();
  }
}

Value Interp::unaryop(ast::Op op, Value a) {
  using ast::Op;
  if (op == Op::Not) {
    if (tensor(a)) return Value::unknown();
    auto t = truth(a);
    return t ? Value::boolean(!*t) : Value::unknown();
  }
  if (tensor(a)) return tensor_unary(*this, op, a);
  if (is_intlike(a)) {
    DimId x = as_dim(*this, a);
    if (op == Op::USub) return Value::integer(dims.mul(x, dims.constant(-1)));
    if (op == Op::UAdd) return Value::integer(x);
    if (op == Op::Invert) return int_value(~dims.value(x));
  }
  if (a.kind == VKind::Float) {
    if (op == Op::USub) return Value::real(-a.f);
    if (op == Op::UAdd) return a;
  }
  return Value::unknown();
}

}  // namespace tpf::memory
