// Constant folding with Python semantics for int (64-bit; Unknown past it)
// and float arithmetic: floor division and modulo round toward -inf, `/`
// gives a float, overflow and division by zero give Unknown.
// requires: nothing. produces: ConstValue.
#include <cmath>
#include <cstdint>

#include "ir/resolve.h"

namespace tpf::ir {

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

/// Python semantics for int/float arithmetic; Unknown on overflow or error.
ConstValue fold_binop(ast::Op op, const ConstValue& x, const ConstValue& y) {
  ConstValue r;
  // Strings would need storage for results (concatenation); clients fold numbers.
  if (!x.is_number() || !y.is_number()) return r;
  bool ints = x.kind != ConstValue::Kind::Float && y.kind != ConstValue::Kind::Float;
  if (ints) {
    int64_t a = x.i, b = y.i, out = 0;
    bool ok = true;
    switch (op) {
      case ast::Op::Add: ok = !__builtin_add_overflow(a, b, &out); break;
      case ast::Op::Sub: ok = !__builtin_sub_overflow(a, b, &out); break;
      case ast::Op::Mult: ok = !__builtin_mul_overflow(a, b, &out); break;
      case ast::Op::FloorDiv:
        ok = b != 0 && !(a == INT64_MIN && b == -1);
        if (ok) out = floor_div(a, b);
        break;
      case ast::Op::Mod:
        ok = b != 0 && !(a == INT64_MIN && b == -1);
        if (ok) out = a - floor_div(a, b) * b;
        break;
      case ast::Op::Pow:
        ok = b >= 0 && b < 64;
        out = 1;
        for (int64_t i = 0; ok && i < b; ++i) ok = !__builtin_mul_overflow(out, a, &out);
        break;
      case ast::Op::Div:
        if (b == 0) return r;
        r.kind = ConstValue::Kind::Float;
        r.d = static_cast<double>(a) / static_cast<double>(b);
        return r;
      case ast::Op::LShift: ok = b >= 0 && b < 63 && a >= 0 && a <= (INT64_MAX >> b); out = ok ? a << b : 0; break;
      case ast::Op::RShift: ok = b >= 0; out = ok ? (b >= 63 ? (a < 0 ? -1 : 0) : a >> b) : 0; break;
      case ast::Op::BitAnd: out = a & b; break;
      case ast::Op::BitOr: out = a | b; break;
      case ast::Op::BitXor: out = a ^ b; break;
      default: ok = false; break;
    }
    if (!ok) return r;
    r.kind = ConstValue::Kind::Int;
    r.i = out;
    r.d = static_cast<double>(out);
    return r;
  }
  double a = x.d, b = y.d, out;
  switch (op) {
    case ast::Op::Add: out = a + b; break;
    case ast::Op::Sub: out = a - b; break;
    case ast::Op::Mult: out = a * b; break;
    case ast::Op::Div: if (b == 0) return r; out = a / b; break;
    case ast::Op::FloorDiv: if (b == 0) return r; out = std::floor(a / b); break;
    case ast::Op::Mod: if (b == 0) return r; out = a - std::floor(a / b) * b; break;
    case ast::Op::Pow: out = std::pow(a, b); break;
    default: return r;
  }
  if (!std::isfinite(out)) return r;
  r.kind = ConstValue::Kind::Float;
  r.d = out;
  return r;
}

ConstValue fold_unary(ast::Op op, const ConstValue& x) {
  ConstValue r;
  switch (op) {
    case ast::Op::USub:
      if (x.kind == ConstValue::Kind::Float) { r = x; r.d = -x.d; }
      else if (x.is_number() && x.i != INT64_MIN) { r.kind = ConstValue::Kind::Int; r.i = -x.i; r.d = -x.d; }
      break;
    case ast::Op::UAdd:
      if (x.is_number()) r = x;
      break;
    case ast::Op::Not:
      if (x.is_number() || x.kind == ConstValue::Kind::None) {
        r.kind = ConstValue::Kind::Bool;
        r.i = x.kind == ConstValue::Kind::None ? 1 : (x.kind == ConstValue::Kind::Float ? x.d == 0 : x.i == 0);
        r.d = static_cast<double>(r.i);
      }
      break;
    case ast::Op::Invert:
      if (x.kind == ConstValue::Kind::Int || x.kind == ConstValue::Kind::Bool) {
        r.kind = ConstValue::Kind::Int;
        r.i = ~x.i;
        r.d = static_cast<double>(r.i);
      }
      break;
    default:
      break;
  }
  return r;
}

}  // namespace tpf::ir
