// DimArena: hash-consing (one id per expression, commutative operands
// sorted), constant folding, Python floor division, evaluation under other
// symbol bindings, printing.
#include "memory/dims.h"

#include <doctest/doctest.h>

#include <vector>

using namespace tpf::memory;

TEST_CASE("dims: the same expression gets the same id, whatever the operand order") {
  DimArena a;
  DimId b = a.symbol("B", 8), t = a.symbol("T", 128);
  CHECK(a.mul(b, t) == a.mul(t, b));
  CHECK(a.add(b, t) == a.add(t, b));
  CHECK(a.symbol("B", 99) == b);  // a known symbol keeps its binding
  CHECK(a.value(b) == 8);
  CHECK(a.mul(a.mul(b, t), a.constant(768)) == a.mul(a.mul(t, b), a.constant(768)));
  CHECK(a.mul(b, t) != a.add(b, t));
}

TEST_CASE("dims: constants fold and identities vanish") {
  DimArena a;
  DimId b = a.symbol("B", 8);
  CHECK(a.is_const(a.add(a.constant(2), a.constant(3))));
  CHECK(a.value(a.mul(a.constant(6), a.constant(7))) == 42);
  CHECK(a.add(b, a.constant(0)) == b);
  CHECK(a.mul(b, a.constant(1)) == b);
  CHECK(a.mul(a.mul(b, 4), 2) == a.mul(b, 8));
  CHECK(a.floordiv(a.mul(b, 12), a.constant(4)) == a.mul(b, 3));
  CHECK(a.sub(b, b) == a.constant(0));
}

TEST_CASE("dims: floor division and modulo round toward negative infinity") {
  CHECK(py_floordiv(7, 2) == 3);
  CHECK(py_floordiv(-7, 2) == -4);
  CHECK(py_mod(-7, 2) == 1);
  DimArena a;
  // A 3x3 conv with padding 1, stride 2 on 33 pixels: (33 + 2 - 3) // 2 + 1 = 17.
  DimId h = a.symbol("S", 33);
  DimId out = a.add(a.floordiv(a.sub(a.add(h, a.constant(2)), a.constant(3)), a.constant(2)), a.constant(1));
  CHECK(a.value(out) == 17);
}

TEST_CASE("dims: evaluation under another binding follows the expression") {
  DimArena a;
  DimId b = a.symbol("B", 8), t = a.symbol("T", 128);
  DimId bytes = a.mul(a.mul(a.mul(b, t), a.constant(768)), a.constant(4));
  CHECK(a.value(bytes) == 8 * 128 * 768 * 4);
  std::vector<int64_t> half{4, 128};
  CHECK(a.eval(bytes, half) == 4 * 128 * 768 * 4);
  std::vector<int64_t> only_b{2};
  CHECK(a.eval(bytes, only_b) == 2 * 128 * 768 * 4);
  CHECK(a.depends_on(bytes, a.find_symbol("T")));
  CHECK_FALSE(a.depends_on(a.constant(5), a.find_symbol("T")));
}

TEST_CASE("dims: printing uses symbol names and precedence") {
  DimArena a;
  DimId b = a.symbol("B", 8), t = a.symbol("T", 128);
  CHECK(a.str(a.mul(a.mul(b, t), a.constant(768))) == "B*T*768");
  CHECK(a.str(a.floordiv(a.add(t, a.constant(2)), a.constant(2))) == "(T + 2)//2");
  CHECK(a.str(a.sub(t, a.constant(1))) == "T - 1");
  // Like terms collect: 20 timesteps of B*2600 plus B*T*8.
  DimId sum = a.mul(a.mul(b, t), a.constant(8));
  for (int k = 0; k < 20; ++k) sum = a.add(a.mul(b, a.constant(2600)), sum);
  CHECK(a.str(sum) == "B*T*8 + B*52000");
  DimId h = a.add(a.floordiv(a.sub(t, a.constant(1)), a.constant(2)), a.constant(1));
  CHECK(a.str(a.mul(a.mul(h, h), b)) == "B*((T - 1)//2)**2 + B*((T - 1)//2)*2 + B");
}

TEST_CASE("dims: arithmetic past 64 bits clamps and is flagged, never wraps") {
  DimArena a;
  DimId big = a.constant(int64_t{1} << 40);
  CHECK_FALSE(a.overflowed());
  CHECK(a.value(a.mul(big, a.constant(int64_t{1} << 22))) == int64_t{1} << 62);
  CHECK_FALSE(a.overflowed());
  CHECK(a.value(a.mul(big, big)) == INT64_MAX);  // nn.Linear(2**40, 2**40)
  CHECK(a.overflowed());
  DimArena s;
  DimId b = s.symbol("B", INT64_MAX);  // --batch-size 9223372036854775807
  CHECK(s.value(s.add(s.mul(b, 4), 1)) == INT64_MAX);
  CHECK(s.overflowed());
  DimArena n;
  CHECK(n.value(n.mul(n.constant(INT64_MIN), n.constant(2))) == INT64_MIN);
  CHECK(n.value(n.floordiv(n.constant(INT64_MIN), n.constant(-1))) == INT64_MAX);
  CHECK(n.value(n.mod(n.constant(INT64_MIN), n.constant(-1))) == 0);
  CHECK(n.overflowed());
  // evaluation under other bindings clamps too
  DimArena e;
  DimId x = e.symbol("X", 2);
  DimId sq = e.mul(x, x);
  CHECK_FALSE(e.overflowed());
  const std::vector<int64_t> huge{int64_t{1} << 40};
  CHECK(e.eval(sq, huge) == INT64_MAX);
  CHECK(e.overflowed());
}

TEST_CASE("dims: 10^5-deep expressions evaluate, print and answer depends_on without recursion") {
  DimArena a;
  DimId b = a.symbol("B", 2);
  DimId x = b;
  for (int i = 0; i < 100000; ++i) x = a.floordiv(a.add(x, b), a.constant(1) == b ? b : a.add(b, 1));
  CHECK(a.depends_on(x, a.find_symbol("B")));
  const std::vector<int64_t> bind{3};
  CHECK(a.eval(x, bind) == a.eval(x, bind));  // terminates, same answer twice
  CHECK_FALSE(a.str(x).empty());              // printing falls back to the value when too deep
}
