// MapLattice<K, L>: a lattice L per key (as Clang's MapLattice.h). The empty
// map is bottom and a missing key joins as L's bottom. Stored as a sorted
// vector: dataflow keys are small integers (ValueId, PathId, Symbol), maps
// are small, and a flat vector copies and compares fast.
// requires: K totally ordered and printable; L a Lattice.
#pragma once

#include <algorithm>
#include <utility>
#include <vector>

#include "dataflow/lattice.h"

namespace tpf::dataflow {

template <class K, Lattice L>
class MapLattice {
 public:
  static MapLattice bottom() { return MapLattice(); }

  /// The element for `k` (bottom when absent).
  L get(const K& k) const {
    auto it = find(k);
    return it != items_.end() && it->first == k ? it->second : L::bottom();
  }
  /// Sets `k` (strong update).
  void set(const K& k, L v) {
    auto it = find(k);
    if (it != items_.end() && it->first == k) it->second = std::move(v);
    else items_.insert(it, {k, std::move(v)});
  }
  Effect join(const MapLattice& o) {
    Effect e = Effect::Unchanged;
    for (const auto& [k, v] : o.items_) {
      auto it = find(k);
      if (it != items_.end() && it->first == k) {
        e = e | it->second.join(v);
      } else {
        items_.insert(it, {k, v});
        e = Effect::Changed;
      }
    }
    return e;
  }
  bool operator==(const MapLattice& o) const { return items_ == o.items_; }
  size_t size() const { return items_.size(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  void print(std::ostream& os, const ir::Names& names) const {
    os << '{';
    bool first = true;
    for (const auto& [k, v] : items_) {
      if (!first) os << ", ";
      first = false;
      os << k << ": ";
      v.print(os, names);
    }
    os << '}';
  }

 private:
  using Item = std::pair<K, L>;
  typename std::vector<Item>::iterator find(const K& k) {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const Item& a, const K& b) { return a.first < b; });
  }
  typename std::vector<Item>::const_iterator find(const K& k) const {
    return std::lower_bound(items_.begin(), items_.end(), k,
                            [](const Item& a, const K& b) { return a.first < b; });
  }
  std::vector<Item> items_;
};

}  // namespace tpf::dataflow
