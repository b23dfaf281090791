// Power-set lattices over up to 32 facts (effect bits, small enums):
// MaySet joins by union ("on some path"), MustSet by intersection ("on every
// path"); MustSet keeps a separate bottom, since its identity for join is
// the full set.
// requires: nothing.
#pragma once

#include <cstdint>
#include <ostream>

#include "dataflow/lattice.h"

namespace tpf::dataflow {

class MaySet {
 public:
  static MaySet bottom() { return MaySet(); }
  explicit MaySet(uint32_t bits = 0) : bits_(bits) {}
  uint32_t bits() const { return bits_; }
  bool has(uint32_t b) const { return (bits_ & b) != 0; }
  void add(uint32_t b) { bits_ |= b; }
  void clear(uint32_t b) { bits_ &= ~b; }
  Effect join(const MaySet& o) {
    uint32_t n = bits_ | o.bits_;
    Effect e = n != bits_ ? Effect::Changed : Effect::Unchanged;
    bits_ = n;
    return e;
  }
  bool operator==(const MaySet&) const = default;
  void print(std::ostream& os, const ir::Names&) const { os << "may:" << std::hex << bits_ << std::dec; }

 private:
  uint32_t bits_;
};

class MustSet {
 public:
  static MustSet bottom() { return MustSet(); }
  static MustSet of(uint32_t bits) {
    MustSet s;
    s.reached_ = true;
    s.bits_ = bits;
    return s;
  }
  bool reached() const { return reached_; }
  uint32_t bits() const { return reached_ ? bits_ : 0; }
  bool has(uint32_t b) const { return reached_ && (bits_ & b) == b; }
  void add(uint32_t b) { bits_ |= b; }
  void clear(uint32_t b) { bits_ &= ~b; }
  Effect join(const MustSet& o) {
    if (!o.reached_) return Effect::Unchanged;
    if (!reached_) {
      *this = o;
      return Effect::Changed;
    }
    uint32_t n = bits_ & o.bits_;
    Effect e = n != bits_ ? Effect::Changed : Effect::Unchanged;
    bits_ = n;
    return e;
  }
  bool operator==(const MustSet&) const = default;
  void print(std::ostream& os, const ir::Names&) const {
    if (!reached_) os << "bottom";
    else os << "must:" << std::hex << bits_ << std::dec;
  }

 private:
  bool reached_ = false;
  uint32_t bits_ = 0;
};

}  // namespace tpf::dataflow
