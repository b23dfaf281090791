// Strong 32-bit index types of the IR and IdMap, the side table keyed by
// them (facts about IR entities live in side tables owned by the pass that
// computes them, never in the entities).
#pragma once

#include <compare>
#include <cstdint>
#include <vector>

namespace tpf::ir {

/// A 32-bit index into one of a Function's (or Module's) vectors. `Tag`
/// only makes the types distinct; UINT32_MAX means "none".
template <class Tag>
struct Id {
  uint32_t v = UINT32_MAX;
  constexpr Id() = default;
  constexpr explicit Id(uint32_t x) : v(x) {}
  constexpr bool valid() const { return v != UINT32_MAX; }
  constexpr auto operator<=>(const Id&) const = default;
};

using BlockId = Id<struct BlockTag>;
using InstId = Id<struct InstTag>;
using ValueId = Id<struct ValueTag>;
using VarId = Id<struct VarTag>;        // a local variable (or temporary) before SSA
using FunctionId = Id<struct FunctionTag>;
using ClassId = Id<struct ClassTag>;
using CallId = Id<struct CallTag>;      // Function::calls
using PathId = Id<struct PathTag>;      // Names: hash-consed dotted names / access paths
using Symbol = uint32_t;                // identifiers; the AST's symbols keep their numbers
inline constexpr Symbol kNoSymbol = UINT32_MAX;
using ConstId = uint32_t;               // ast::Module::constants, then Module::extra_constants

inline constexpr BlockId kNoBlock{};
inline constexpr ValueId kNoValue{};
inline constexpr PathId kNoPath{};

/// A dense side table from an Id type to T (T must be default-constructible).
template <class K, class T>
class IdMap {
 public:
  IdMap() = default;
  explicit IdMap(size_t n, const T& init = T()) : v_(n, init) {}
  void assign(size_t n, const T& init = T()) { v_.assign(n, init); }
  T& operator[](K k) { return v_[k.v]; }
  const T& operator[](K k) const { return v_[k.v]; }
  size_t size() const { return v_.size(); }
  bool contains(K k) const { return k.valid() && k.v < v_.size(); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }

 private:
  std::vector<T> v_;
};

}  // namespace tpf::ir
