// The solver and the shared lattices, with small analyses defined here (as
// Clang's SingleVarConstantPropagationTest does): a may/must effect
// analysis for a "zero_grad before every backward" style question, a
// lattice that never stabilizes (the budget must stop it), and the
// function summaries over recursion.
#include <doctest/doctest.h>

#include <sstream>

#include "dataflow/lattices/bitset.h"
#include "dataflow/lattices/flat.h"
#include "dataflow/lattices/map_lattice.h"
#include "dataflow/solver.h"
#include "test/ir/ir_test_util.h"

using namespace tpf;
using dataflow::Effect;

namespace {

/// "Has zero_grad run since the last backward?" Deliberately simplistic: a
/// must-analysis over one bit, reset by backward, set by zero_grad.
class ZeroGradBeforeBackward {
 public:
  using Domain = dataflow::MustSet;
  static constexpr dataflow::Direction kDirection = dataflow::Direction::Forward;
  ZeroGradBeforeBackward(const test::Pipeline& p, ir::FunctionId f) : p_(p), f_(f) {}
  Domain initial(const ir::Function&) { return dataflow::MustSet::of(0); }
  void transfer(const ir::Inst& in, ir::InstId id, Domain& d) {
    if (in.op != ir::Op::Call) return;
    uint32_t eff = p_.facts.summaries.call_must(f_, id, p_.facts.kinds);
    if (eff & dataflow::kZeroGrad) d.add(1);
    if (eff & dataflow::kBackward) d.clear(1);
  }

 private:
  const test::Pipeline& p_;
  ir::FunctionId f_;
};

/// Counts forever: join takes the max, transfer adds one. Never converges.
struct Counter {
  int n = -1;
  static Counter bottom() { return {}; }
  Effect join(const Counter& o) {
    if (o.n > n) {
      n = o.n;
      return Effect::Changed;
    }
    return Effect::Unchanged;
  }
  bool operator==(const Counter&) const = default;
  void print(std::ostream& os, const ir::Names&) const { os << n; }
};
struct Diverging {
  using Domain = Counter;
  static constexpr dataflow::Direction kDirection = dataflow::Direction::Forward;
  Domain initial(const ir::Function&) { return Counter{0}; }
  void transfer(const ir::Inst&, ir::InstId, Domain& d) { ++d.n; }
};

}  // namespace

TEST_CASE("solver: must-analysis sees zero_grad missing on one path through the loop") {
  auto p = test::run(R"(
def good(model, opt, loader):
    for x in loader:
        opt.zero_grad()
        model(x).backward()  # [[p1]]
        opt.step()

def bad(model, opt, loader, accumulate):
    for x in loader:
        if not accumulate:
            opt.zero_grad()
        model(x).backward()  # [[p2]]
        opt.step()

def helper(opt):
    opt.zero_grad()

def via_helper(model, opt, loader):
    for x in loader:
        helper(opt)
        model(x).backward()  # [[p3]]
)");
  auto check_point = [&](const char* pt, bool expect) {
    auto [fid, call] = p->call(pt);
    // The backward call: the last call on the line.
    const ir::Function& f = p->ir.fn(fid);
    uint32_t line = p->line_of(pt);
    for (uint32_t i = call.v; i < f.insts.size(); ++i)
      if (f.insts[i].op == ir::Op::Call && p->src.pos(f.insts[i].span.begin).line == line &&
          (p->facts.call_kind(fid, ir::InstId(i)) == dataflow::TorchCall::Backward))
        call = ir::InstId(i);
    ZeroGradBeforeBackward a(*p, fid);
    auto sol = dataflow::solve(a, f);
    REQUIRE(sol.converged == dataflow::Converged::Yes);
    auto st = dataflow::state_at(a, f, sol, call);
    REQUIRE(st.has_value());
    CHECK_MESSAGE(st->has(1) == expect, pt);
  };
  check_point("p1", true);
  check_point("p2", false);
  check_point("p3", true);
}

TEST_CASE("solver: a lattice that never stabilizes hits the budget and reports Converged::No") {
  auto p = test::run("i = 0\nwhile i < 10:\n    i = i + 1\n", /*facts=*/false);
  const ir::Function& f = p->ir.fn(ir::FunctionId(0));
  Diverging a;
  auto sol = dataflow::solve(a, f);
  CHECK(sol.converged == dataflow::Converged::No);
  CHECK(sol.visits <= dataflow::visit_budget(f) + 1);
}

TEST_CASE("solver: replay visits every instruction of reached blocks once") {
  auto p = test::run("x = 1\nif x:\n    y = 2\nelse:\n    y = 3\nprint(y)\n", false);
  const ir::Function& f = p->ir.fn(ir::FunctionId(0));
  Diverging a;
  // Diverging still converges on acyclic code: each block is visited once.
  auto sol = dataflow::solve(a, f);
  REQUIRE(sol.converged == dataflow::Converged::Yes);
  size_t seen = 0;
  dataflow::replay(a, f, sol, [&](ir::InstId, const Counter&) { ++seen; });
  CHECK(seen == f.insts.size());
}

TEST_CASE("lattices: Flat, MapLattice (missing key is bottom), MaySet/MustSet") {
  using F = dataflow::Flat<int>;
  F a = F::of(1);
  CHECK(a.join(F::of(1)) == Effect::Unchanged);
  CHECK(a.join(F::of(2)) == Effect::Changed);
  CHECK(a.is_top());
  CHECK(F::bottom().is_bottom());

  dataflow::MapLattice<uint32_t, F> m1, m2;
  CHECK(m1.get(7).is_bottom());
  m1.set(7, F::of(3));
  m2.set(9, F::of(4));
  CHECK(m1.join(m2) == Effect::Changed);
  CHECK(m1.get(9).value() == 4);
  CHECK(m1.join(m2) == Effect::Unchanged);

  dataflow::MustSet s = dataflow::MustSet::bottom();
  CHECK(s.join(dataflow::MustSet::of(3)) == Effect::Changed);
  CHECK(s.join(dataflow::MustSet::of(1)) == Effect::Changed);
  CHECK(s.bits() == 1);
  dataflow::MaySet y(1);
  CHECK(y.join(dataflow::MaySet(2)) == Effect::Changed);
  CHECK(y.bits() == 3);
  std::ostringstream os;
  ir::Names names;
  m1.print(os, names);
  CHECK(os.str() == "{7: 3, 9: 4}");
}

TEST_CASE("summaries: effects flow through helpers and recursion terminates") {
  auto p = test::run(R"(
def a(n, loss, opt):
    if n:
        return b(n - 1, loss, opt)
    loss.backward()

def b(n, loss, opt):
    opt.step()
    return a(n, loss, opt)

def step(loss, opt):
    opt.zero_grad()
    loss.backward()
    opt.step()

def loop(loss, opt):
    for _ in range(3):
        step(loss, opt)
)");
  const auto& s = p->facts.summaries;
  ir::FunctionId fa = p->ir.find_function("a"), fb = p->ir.find_function("b");
  ir::FunctionId fs = p->ir.find_function("step"), fl = p->ir.find_function("loop");
  CHECK(s.of(fa).recursive);
  CHECK(s.of(fb).recursive);
  CHECK((s.of(fa).may & dataflow::kBackward));
  CHECK((s.of(fa).may & dataflow::kOptimizerStep));
  CHECK((s.of(fs).must & (dataflow::kZeroGrad | dataflow::kBackward | dataflow::kOptimizerStep)) ==
        (dataflow::kZeroGrad | dataflow::kBackward | dataflow::kOptimizerStep));
  CHECK((s.of(fl).may & dataflow::kBackward));
  CHECK(s.of(fl).must == 0);  // the loop may run zero times
  CHECK(s.of(fs).called);
}
