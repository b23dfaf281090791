// Symbolic dimensions, hash-consed like Clang's dataflow Arena: a DimId
// names one expression over integer constants and named symbols (batch
// size B, sequence length T, image size S), and the same expression always
// gets the same id; commutative operands are sorted, constants folded.
// Every node caches its value under the symbols' own values, so the
// interpreter reads concrete sizes in O(1); the report prints sizes as
// formulas of B and T, and any size can be re-evaluated under another
// binding (eval).
// requires: nothing. produces: DimArena, DimId.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/ids.h"

namespace tpf::memory {

using DimId = ir::Id<struct DimTag>;
using DimSym = uint32_t;  ///< index of a named symbol

enum class DimOp : uint8_t { Const, Sym, Add, Mul, FloorDiv, Mod, Max, Min };

/// Owns every dimension expression of one estimate. Not copyable: DimIds
/// are only meaningful in the arena that made them.
class DimArena {
 public:
  DimArena() = default;
  DimArena(const DimArena&) = delete;
  DimArena& operator=(const DimArena&) = delete;
  DimArena(DimArena&&) = default;
  DimArena& operator=(DimArena&&) = default;

  DimId constant(int64_t v);
  /// The symbol named `name` (the same name gives the same id); `value`
  /// binds it when it is new, else it is ignored.
  DimId symbol(std::string_view name, int64_t value);
  DimId add(DimId a, DimId b);
  DimId sub(DimId a, DimId b);
  DimId mul(DimId a, DimId b);
  /// Python's `//` (floor division); b must not be 0 (returns a when it is).
  DimId floordiv(DimId a, DimId b);
  /// Python's `%`.
  DimId mod(DimId a, DimId b);
  DimId max(DimId a, DimId b);
  DimId min(DimId a, DimId b);
  DimId mul(DimId a, int64_t k) { return mul(a, constant(k)); }
  DimId add(DimId a, int64_t k) { return add(a, constant(k)); }

  /// Value under each symbol's own binding.
  int64_t value(DimId d) const { return nodes_[d.v].value; }
  bool is_const(DimId d) const { return nodes_[d.v].op == DimOp::Const; }
  /// Value with the symbols bound to `symbol_values` (index = DimSym; a
  /// missing entry keeps the symbol's own value).
  int64_t eval(DimId d, std::span<const int64_t> symbol_values) const;
  /// Whether `d` mentions symbol `s`.
  bool depends_on(DimId d, DimSym s) const;
  /// The symbol a name denotes, or UINT32_MAX.
  DimSym find_symbol(std::string_view name) const;
  /// Renames a symbol; the name is free for a new one (its value stays).
  void rename_symbol(DimSym s, std::string name) { syms_[s].name = std::move(name); }
  std::string_view symbol_name(DimSym s) const { return syms_[s].name; }
  int64_t symbol_value(DimSym s) const { return syms_[s].value; }
  size_t symbol_count() const { return syms_.size(); }
  /// Readable form, symbols by name, as a polynomial with like terms
  /// collected: "B*T*768 + B*4", "(S + 2)//2".
  std::string str(DimId d) const;
  size_t size() const { return nodes_.size(); }
  /// Some result did not fit 64 bits (2**40 * 2**40, a batch of 2**63 - 1)
  /// and was clamped to INT64_MAX / INT64_MIN: sizes built from it are not
  /// real, and the estimate says so instead of reporting them.
  bool overflowed() const { return overflowed_; }

 private:
  struct Node {
    DimOp op;
    uint32_t a, b;  // Const: unused; Sym: DimSym in a; else operand ids
    int64_t k;      // Const: the value
    int64_t value;  // cached under own bindings
  };
  struct Sym {
    std::string name;
    int64_t value;
  };
  struct Key {
    DimOp op;
    uint32_t a, b;
    int64_t k;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };
  DimId make(DimOp op, uint32_t a, uint32_t b, int64_t k, int64_t value);
  std::vector<uint32_t> reachable(DimId d) const;
  bool poly_rec(DimId d, std::map<std::vector<uint32_t>, int64_t>& out,
                std::unordered_map<uint32_t, std::map<std::vector<uint32_t>, int64_t>>& memo,
                int depth) const;
  std::string atom_str(uint32_t node) const;

  std::vector<Node> nodes_;
  std::vector<Sym> syms_;
  std::unordered_map<Key, DimId, KeyHash> index_;  ///< every node but the small constants
  /// The small non-negative constants by value (kNoDim: not made yet), off
  /// the hash index: a range of the interpreter's bound (100,000 items,
  /// Interp::iterate) makes one constant per item, and _collections_abc's
  /// `iter(range(1 << 1000))`, run in every estimate that imports it, made
  /// hashing and freeing them half the estimator's time over the stdlib.
  static constexpr int64_t kSmallConstants = int64_t{1} << 17;
  static constexpr uint32_t kNoDim = UINT32_MAX;
  std::vector<uint32_t> small_;
  mutable bool overflowed_ = false;  // eval and printing clamp too
  mutable int str_depth_ = 0;        // str() within str() (atoms' operands)
};

/// Python floor division and modulo on int64 (rounding toward -inf);
/// INT64_MIN // -1 clamps to INT64_MAX (and sets `overflow`).
int64_t py_floordiv(int64_t a, int64_t b);
int64_t py_floordiv(int64_t a, int64_t b, bool& overflow);
int64_t py_mod(int64_t a, int64_t b);

/// a + b and a * b clamped to [INT64_MIN, INT64_MAX]; `overflow` is set
/// when they are.
int64_t sat_add(int64_t a, int64_t b, bool& overflow);
int64_t sat_mul(int64_t a, int64_t b, bool& overflow);

}  // namespace tpf::memory
