// Flat<T>: bottom, one value of T, or top (as QBE's fold.c constants):
// joining two different values gives top.
// requires: T with == and a print(std::ostream&, const T&) overload or operator<<.
#pragma once

#include <ostream>

#include "dataflow/lattice.h"

namespace tpf::dataflow {

template <class T>
class Flat {
 public:
  enum class State : uint8_t { Bottom, Value, Top };

  static Flat bottom() { return Flat(); }
  static Flat top() {
    Flat f;
    f.state_ = State::Top;
    return f;
  }
  static Flat of(T v) {
    Flat f;
    f.state_ = State::Value;
    f.value_ = v;
    return f;
  }
  bool is_bottom() const { return state_ == State::Bottom; }
  bool is_top() const { return state_ == State::Top; }
  bool has_value() const { return state_ == State::Value; }
  const T& value() const { return value_; }

  Effect join(const Flat& o) {
    if (o.state_ == State::Bottom || state_ == State::Top) return Effect::Unchanged;
    if (state_ == State::Bottom) {
      *this = o;
      return Effect::Changed;
    }
    if (o.state_ == State::Top || !(value_ == o.value_)) {
      state_ = State::Top;
      return Effect::Changed;
    }
    return Effect::Unchanged;
  }
  bool operator==(const Flat& o) const {
    return state_ == o.state_ && (state_ != State::Value || value_ == o.value_);
  }
  void print(std::ostream& os, const ir::Names&) const {
    if (state_ == State::Bottom) os << "bottom";
    else if (state_ == State::Top) os << "top";
    else os << value_;
  }

 private:
  State state_ = State::Bottom;
  T value_{};
};

}  // namespace tpf::dataflow
