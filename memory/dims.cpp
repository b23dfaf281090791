// DimArena: hash-consed symbolic dimension expressions (see dims.h).
// requires: nothing. produces: DimId values, evaluation under other bindings.
#include "memory/dims.h"

#include <algorithm>
#include <functional>

namespace tpf::memory {

int64_t py_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

size_t DimArena::KeyHash::operator()(const Key& k) const {
  size_t h = std::hash<int64_t>{}(k.k);
  h ^= (static_cast<size_t>(k.op) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  h ^= (static_cast<size_t>(k.a) * 0x100000001b3ULL + (h << 6) + (h >> 2));
  h ^= (static_cast<size_t>(k.b) * 0xc2b2ae3d27d4eb4fULL + (h << 6) + (h >> 2));
  return h;
}

DimId DimArena::make(DimOp op, uint32_t a, uint32_t b, int64_t k, int64_t value) {
  Key key{op, a, b, k};
  auto it = index_.find(key);
  if (it != index_.end()) return it->second;
  DimId id(static_cast<uint32_t>(nodes_.size()));
  nodes_.push_back(Node{op, a, b, k, value});
  index_.emplace(key, id);
  return id;
}

DimId DimArena::constant(int64_t v) { return make(DimOp::Const, 0, 0, v, v); }

DimId DimArena::symbol(std::string_view name, int64_t value) {
  DimSym s = find_symbol(name);
  if (s == UINT32_MAX) {
    s = static_cast<DimSym>(syms_.size());
    syms_.push_back(Sym{std::string(name), value});
  }
  return make(DimOp::Sym, s, 0, 0, syms_[s].value);
}

DimSym DimArena::find_symbol(std::string_view name) const {
  for (size_t i = 0; i < syms_.size(); ++i)
    if (syms_[i].name == name) return static_cast<DimSym>(i);
  return UINT32_MAX;
}

// Commutative ops put a constant operand second and otherwise sort their
// operands by id, so `a*b` and `b*a` are one node.

DimId DimArena::add(DimId a, DimId b) {
  if (is_const(a) && is_const(b)) return constant(value(a) + value(b));
  if (is_const(a) && value(a) == 0) return b;
  if (is_const(b) && value(b) == 0) return a;
  if (is_const(a)) std::swap(a, b);
  // fold (x + c1) + c2
  if (is_const(b) && nodes_[a.v].op == DimOp::Add && is_const(DimId(nodes_[a.v].b)))
    return add(DimId(nodes_[a.v].a), constant(value(DimId(nodes_[a.v].b)) + value(b)));
  if (!is_const(b) && b.v < a.v) std::swap(a, b);
  return make(DimOp::Add, a.v, b.v, 0, value(a) + value(b));
}

DimId DimArena::sub(DimId a, DimId b) {
  if (a == b) return constant(0);
  return add(a, mul(b, constant(-1)));
}

DimId DimArena::mul(DimId a, DimId b) {
  if (is_const(a) && is_const(b)) return constant(value(a) * value(b));
  if (is_const(a)) std::swap(a, b);
  if (is_const(b)) {
    if (value(b) == 1) return a;
    if (value(b) == 0) return b;
    // fold (x * c1) * c2
    if (nodes_[a.v].op == DimOp::Mul && is_const(DimId(nodes_[a.v].b)))
      return mul(DimId(nodes_[a.v].a), constant(value(DimId(nodes_[a.v].b)) * value(b)));
  } else if (b.v < a.v) {
    std::swap(a, b);
  }
  return make(DimOp::Mul, a.v, b.v, 0, value(a) * value(b));
}

DimId DimArena::floordiv(DimId a, DimId b) {
  if (is_const(b) && value(b) == 0) return a;
  if (is_const(a) && is_const(b)) return constant(py_floordiv(value(a), value(b)));
  if (is_const(b) && value(b) == 1) return a;
  if (a == b) return constant(1);
  // (x * c1) // c2 with c2 | c1
  if (is_const(b) && nodes_[a.v].op == DimOp::Mul && is_const(DimId(nodes_[a.v].b))) {
    int64_t c1 = value(DimId(nodes_[a.v].b)), c2 = value(b);
    if (c2 != 0 && c1 % c2 == 0) return mul(DimId(nodes_[a.v].a), constant(c1 / c2));
  }
  return make(DimOp::FloorDiv, a.v, b.v, 0, py_floordiv(value(a), value(b)));
}

DimId DimArena::mod(DimId a, DimId b) {
  if (is_const(a) && is_const(b)) return constant(py_mod(value(a), value(b)));
  return make(DimOp::Mod, a.v, b.v, 0, py_mod(value(a), value(b)));
}

DimId DimArena::max(DimId a, DimId b) {
  if (a == b) return a;
  if (is_const(a) && is_const(b)) return constant(std::max(value(a), value(b)));
  if (b.v < a.v) std::swap(a, b);
  return make(DimOp::Max, a.v, b.v, 0, std::max(value(a), value(b)));
}

DimId DimArena::min(DimId a, DimId b) {
  if (a == b) return a;
  if (is_const(a) && is_const(b)) return constant(std::min(value(a), value(b)));
  if (b.v < a.v) std::swap(a, b);
  return make(DimOp::Min, a.v, b.v, 0, std::min(value(a), value(b)));
}

int64_t DimArena::eval(DimId d, std::span<const int64_t> sv) const {
  std::unordered_map<uint32_t, int64_t> memo;
  return eval_rec(d, sv, memo);
}

int64_t DimArena::eval_rec(DimId d, std::span<const int64_t> sv,
                           std::unordered_map<uint32_t, int64_t>& memo) const {
  const Node& n = nodes_[d.v];
  switch (n.op) {
    case DimOp::Const: return n.k;
    case DimOp::Sym: return n.a < sv.size() ? sv[n.a] : syms_[n.a].value;
    default: break;
  }
  auto it = memo.find(d.v);
  if (it != memo.end()) return it->second;
  int64_t x = eval_rec(DimId(n.a), sv, memo), y = eval_rec(DimId(n.b), sv, memo);
  int64_t r = 0;
  switch (n.op) {
    case DimOp::Add: r = x + y; break;
    case DimOp::Mul: r = x * y; break;
    case DimOp::FloorDiv: r = py_floordiv(x, y); break;
    case DimOp::Mod: r = py_mod(x, y); break;
    case DimOp::Max: r = std::max(x, y); break;
    case DimOp::Min: r = std::min(x, y); break;
    default: break;
  }
  memo.emplace(d.v, r);
  return r;
}

bool DimArena::depends_on(DimId d, DimSym s) const {
  const Node& n = nodes_[d.v];
  if (n.op == DimOp::Const) return false;
  if (n.op == DimOp::Sym) return n.a == s;
  return depends_on(DimId(n.a), s) || depends_on(DimId(n.b), s);
}

// Precedence for printing: 1 +, 2 * //, 3 atoms.
void DimArena::str_rec(DimId d, std::string& out, int parent_prec) const {
  const Node& n = nodes_[d.v];
  switch (n.op) {
    case DimOp::Const: out += std::to_string(n.k); return;
    case DimOp::Sym: out += syms_[n.a].name; return;
    case DimOp::Max:
    case DimOp::Min:
      out += n.op == DimOp::Max ? "max(" : "min(";
      str_rec(DimId(n.a), out, 0);
      out += ", ";
      str_rec(DimId(n.b), out, 0);
      out += ')';
      return;
    default: break;
  }
  int prec = n.op == DimOp::Add ? 1 : 2;
  if (prec < parent_prec) out += '(';
  str_rec(DimId(n.a), out, prec);
  DimId rhs(n.b);
  if (n.op == DimOp::Add && is_const(rhs) && value(rhs) < 0) {
    out += '-';
    out += std::to_string(-value(rhs));
  } else {
    out += n.op == DimOp::Add ? "+" : n.op == DimOp::Mul ? "*" : n.op == DimOp::Mod ? "%" : "//";
    str_rec(rhs, out, prec + 1);
  }
  if (prec < parent_prec) out += ')';
}

std::string DimArena::str(DimId d) const {
  std::string out;
  str_rec(d, out, 0);
  return out;
}

}  // namespace tpf::memory
