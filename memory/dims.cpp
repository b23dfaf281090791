// DimArena: hash-consed symbolic dimension expressions (see dims.h).
// requires: nothing. produces: DimId values, evaluation under other bindings.
#include "memory/dims.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_set>

namespace tpf::memory {

int64_t py_floordiv(int64_t a, int64_t b, bool& overflow) {
  if (b == 0) return 0;
  if (a == INT64_MIN && b == -1) {
    overflow = true;
    return INT64_MAX;
  }
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
int64_t py_floordiv(int64_t a, int64_t b) {
  bool unused = false;
  return py_floordiv(a, b, unused);
}
int64_t py_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;  // x % -1 is 0 (and INT64_MIN % -1 is UB in C++)
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

int64_t sat_add(int64_t a, int64_t b, bool& overflow) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  overflow = true;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

int64_t sat_mul(int64_t a, int64_t b, bool& overflow) {
  int64_t r;
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  overflow = true;
  return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
}

DimId DimArena::constant(int64_t v) {
  if (v < 0 || v >= kSmallConstants) return make(DimOp::Const, 0, 0, v, v);
  size_t i = static_cast<size_t>(v);
  if (i >= small_.size()) small_.resize(std::min<size_t>(std::max<size_t>(i + 1, 2 * small_.size()), kSmallConstants), kNoDim);
  uint32_t& slot = small_[i];
  if (slot == kNoDim) {
    // Numbered as make() numbers it: the same ids in the same order.
    slot = static_cast<uint32_t>(nodes_.size());
    nodes_.push_back(Node{DimOp::Const, 0, 0, v, v});
  }
  return DimId(slot);
}

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
  if (is_const(a) && is_const(b)) return constant(sat_add(value(a), value(b), overflowed_));
  if (is_const(a) && value(a) == 0) return b;
  if (is_const(b) && value(b) == 0) return a;
  if (is_const(a)) std::swap(a, b);
  // fold (x + c1) + c2
  if (is_const(b) && nodes_[a.v].op == DimOp::Add && is_const(DimId(nodes_[a.v].b)))
    return add(DimId(nodes_[a.v].a), constant(sat_add(value(DimId(nodes_[a.v].b)), value(b), overflowed_)));
  if (!is_const(b) && b.v < a.v) std::swap(a, b);
  return make(DimOp::Add, a.v, b.v, 0, sat_add(value(a), value(b), overflowed_));
}

DimId DimArena::sub(DimId a, DimId b) {
  if (a == b) return constant(0);
  return add(a, mul(b, constant(-1)));
}

DimId DimArena::mul(DimId a, DimId b) {
  if (is_const(a) && is_const(b)) return constant(sat_mul(value(a), value(b), overflowed_));
  if (is_const(a)) std::swap(a, b);
  if (is_const(b)) {
    if (value(b) == 1) return a;
    if (value(b) == 0) return b;
    // fold (x * c1) * c2
    if (nodes_[a.v].op == DimOp::Mul && is_const(DimId(nodes_[a.v].b)))
      return mul(DimId(nodes_[a.v].a), constant(sat_mul(value(DimId(nodes_[a.v].b)), value(b), overflowed_)));
  } else if (b.v < a.v) {
    std::swap(a, b);
  }
  return make(DimOp::Mul, a.v, b.v, 0, sat_mul(value(a), value(b), overflowed_));
}

DimId DimArena::floordiv(DimId a, DimId b) {
  if (is_const(b) && value(b) == 0) return a;
  if (is_const(a) && is_const(b)) return constant(py_floordiv(value(a), value(b), overflowed_));
  if (is_const(b) && value(b) == 1) return a;
  if (a == b) return constant(1);
  // (x // c1) // c2 == x // (c1 * c2) for positive divisors.
  if (is_const(b) && value(b) > 0 && nodes_[a.v].op == DimOp::FloorDiv && is_const(DimId(nodes_[a.v].b)) &&
      value(DimId(nodes_[a.v].b)) > 0)
    return floordiv(DimId(nodes_[a.v].a), constant(sat_mul(value(DimId(nodes_[a.v].b)), value(b), overflowed_)));
  // (x * c1) // c2 with c2 | c1
  if (is_const(b) && nodes_[a.v].op == DimOp::Mul && is_const(DimId(nodes_[a.v].b))) {
    int64_t c1 = value(DimId(nodes_[a.v].b)), c2 = value(b);
    if (c2 != 0 && c2 != -1 && c1 % c2 == 0) return mul(DimId(nodes_[a.v].a), constant(c1 / c2));
  }
  return make(DimOp::FloorDiv, a.v, b.v, 0, py_floordiv(value(a), value(b), overflowed_));
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

// The nodes `d` reaches, in increasing id order: operands are made before
// the nodes that use them, so that order evaluates each after its operands.
// An explicit stack: a size built by 10^5 additions is 10^5 nodes deep.
std::vector<uint32_t> DimArena::reachable(DimId d) const {
  std::vector<uint32_t> out, stack{d.v};
  std::unordered_set<uint32_t> seen{d.v};
  while (!stack.empty()) {
    const uint32_t v = stack.back();
    stack.pop_back();
    out.push_back(v);
    const Node& n = nodes_[v];
    if (n.op == DimOp::Const || n.op == DimOp::Sym) continue;
    for (uint32_t c : {n.a, n.b})
      if (seen.insert(c).second) stack.push_back(c);
  }
  std::sort(out.begin(), out.end());
  return out;
}

int64_t DimArena::eval(DimId d, std::span<const int64_t> sv) const {
  std::unordered_map<uint32_t, int64_t> val;
  for (uint32_t v : reachable(d)) {
    const Node& n = nodes_[v];
    int64_t r = 0;
    if (n.op == DimOp::Const) {
      r = n.k;
    } else if (n.op == DimOp::Sym) {
      r = n.a < sv.size() ? sv[n.a] : syms_[n.a].value;
    } else {
      const int64_t x = val.at(n.a), y = val.at(n.b);
      switch (n.op) {
        case DimOp::Add: r = sat_add(x, y, overflowed_); break;
        case DimOp::Mul: r = sat_mul(x, y, overflowed_); break;
        case DimOp::FloorDiv: r = py_floordiv(x, y, overflowed_); break;
        case DimOp::Mod: r = py_mod(x, y); break;
        case DimOp::Max: r = std::max(x, y); break;
        case DimOp::Min: r = std::min(x, y); break;
        default: break;
      }
    }
    val.emplace(v, r);
  }
  return val.at(d.v);
}

bool DimArena::depends_on(DimId d, DimSym s) const {
  for (uint32_t v : reachable(d))
    if (nodes_[v].op == DimOp::Sym && nodes_[v].a == s) return true;
  return false;
}

// Printing: the expression as a polynomial in its atoms (symbols, and
// floor divisions / modulos / max / min, printed recursively): like terms
// collected, so a sum of per-timestep sizes reads "B*T*2600 + B*5200".
namespace {
using Mono = std::vector<uint32_t>;  // atom node ids, sorted (repeats = powers)
using Poly = std::map<Mono, int64_t>;
constexpr size_t kMaxTerms = 64;  // beyond this, print the expression tree
constexpr int kMaxPolyDepth = 4096;  // an LSTM over 70 steps sums to a few hundred levels
}  // namespace

bool DimArena::poly_rec(DimId d, Poly& out, std::unordered_map<uint32_t, Poly>& memo, int depth) const {
  // Deeper than this, the expression prints as its value (and the recursion
  // stays far from the stack's end: found by fuzz-pipeline).
  if (depth > kMaxPolyDepth) return false;
  auto it = memo.find(d.v);
  if (it != memo.end()) {
    out = it->second;
    return true;
  }
  const Node& n = nodes_[d.v];
  Poly p;
  switch (n.op) {
    case DimOp::Const: p[{}] = n.k; break;
    case DimOp::Add: {
      Poly a, b;
      if (!poly_rec(DimId(n.a), a, memo, depth + 1) || !poly_rec(DimId(n.b), b, memo, depth + 1)) return false;
      p = a;
      for (auto& [m, c] : b) p[m] = sat_add(p[m], c, overflowed_);
      break;
    }
    case DimOp::Mul: {
      Poly a, b;
      if (!poly_rec(DimId(n.a), a, memo, depth + 1) || !poly_rec(DimId(n.b), b, memo, depth + 1)) return false;
      if (a.size() * b.size() > kMaxTerms) return false;
      for (auto& [ma, ca] : a)
        for (auto& [mb, cb] : b) {
          Mono m = ma;
          m.insert(m.end(), mb.begin(), mb.end());
          std::sort(m.begin(), m.end());
          p[m] = sat_add(p[m], sat_mul(ca, cb, overflowed_), overflowed_);
        }
      break;
    }
    default: p[{d.v}] = 1; break;  // Sym, FloorDiv, Mod, Max, Min: atoms
  }
  for (auto i = p.begin(); i != p.end();) i = i->second == 0 ? p.erase(i) : std::next(i);
  if (p.size() > kMaxTerms) return false;
  memo.emplace(d.v, p);
  out = std::move(p);
  return true;
}

std::string DimArena::atom_str(uint32_t a) const {
  const Node& n = nodes_[a];
  auto wrap = [&](uint32_t x) {
    std::string s = str(DimId(x));
    bool simple = nodes_[x].op == DimOp::Sym || nodes_[x].op == DimOp::Const;
    return simple ? s : "(" + s + ")";
  };
  switch (n.op) {
    case DimOp::Sym: return syms_[n.a].name;
    case DimOp::FloorDiv: return wrap(n.a) + "//" + wrap(n.b);
    case DimOp::Mod: return wrap(n.a) + "%" + wrap(n.b);
    case DimOp::Max: return "max(" + str(DimId(n.a)) + ", " + str(DimId(n.b)) + ")";
    case DimOp::Min: return "min(" + str(DimId(n.a)) + ", " + str(DimId(n.b)) + ")";
    default: return str(DimId(a));
  }
}

std::string DimArena::str(DimId d) const {
  // Atoms print their operands through str() again: bounded like poly_rec.
  if (str_depth_ > 64) return "(" + std::to_string(value(d)) + ")";
  struct Depth {
    int& n;
    explicit Depth(int& d) : n(++d) {}
    ~Depth() { --n; }
  } depth(str_depth_);
  Poly p;
  std::unordered_map<uint32_t, Poly> memo;
  if (!poly_rec(d, p, memo, 0)) return "(" + std::to_string(value(d)) + ")";
  if (p.empty()) return "0";
  // Highest degree first, the constant last.
  std::vector<std::pair<Mono, int64_t>> terms(p.begin(), p.end());
  std::stable_sort(terms.begin(), terms.end(),
                   [](const auto& x, const auto& y) { return x.first.size() > y.first.size(); });
  std::string out;
  for (size_t t = 0; t < terms.size(); ++t) {
    auto [m, c] = terms[t];
    if (t) out += c < 0 ? " - " : " + ";
    else if (c < 0) out += "-";
    const uint64_t mag = c < 0 ? 0 - static_cast<uint64_t>(c) : static_cast<uint64_t>(c);
    std::string body;
    for (size_t k = 0; k < m.size();) {
      size_t j = k;
      while (j < m.size() && m[j] == m[k]) ++j;
      std::string a = atom_str(m[k]);
      bool compound = nodes_[m[k]].op != DimOp::Sym;
      if (compound && (j - k > 1 || m.size() > 1)) a = "(" + a + ")";
      if (!body.empty()) body += "*";
      body += a;
      if (j - k > 1) body += "**" + std::to_string(j - k);
      k = j;
    }
    if (body.empty()) out += std::to_string(mag);
    else if (mag == 1) out += body;
    else out += body + "*" + std::to_string(mag);
  }
  return out;
}

}  // namespace tpf::memory
