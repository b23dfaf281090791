// The lattice concept every dataflow domain satisfies (as Clang's
// DataflowAnalysis.h documents its requirements), and Effect, the result of
// a join, so the solver needs no separate comparison.
// requires: nothing. produces: the Lattice / Widenable concepts.
#pragma once

#include <concepts>
#include <ostream>

#include "ir/names.h"

namespace tpf::dataflow {

/// What a join (or widen) did to its left-hand side.
enum class Effect : bool { Unchanged = false, Changed = true };
inline Effect operator|(Effect a, Effect b) {
  return (a == Effect::Changed || b == Effect::Changed) ? Effect::Changed : Effect::Unchanged;
}

/// A dataflow domain `L` supplies:
///   static L bottom();                 the least element ("not reached yet")
///   Effect join(const L& other);       this := this ⊔ other; Changed iff this grew
///   bool operator==(const L&) const;   equality (the solver's tests use it)
///   void print(std::ostream&, const ir::Names&) const;   for --dump-facts and tests
/// and optionally
///   Effect widen(const L& previous);   used instead of join at loop headers;
///                                      needed only by lattices of infinite height
///                                      (the default is join).
/// join must be monotone, commutative, associative and idempotent; the solver
/// terminates because it is (and, as a guard against bugs, by its budget).
template <class L>
concept Lattice = requires(L a, const L& b, std::ostream& os, const ir::Names& names) {
  { L::bottom() } -> std::same_as<L>;
  { a.join(b) } -> std::same_as<Effect>;
  { b == b } -> std::convertible_to<bool>;
  { b.print(os, names) };
};

template <class L>
concept Widenable = Lattice<L> && requires(L a, const L& prev) {
  { a.widen(prev) } -> std::same_as<Effect>;
};

}  // namespace tpf::dataflow
