// The call index rules consult before walking a function (checks/facts.h
// CallIndex): its bits must cover every per-call answer they stand for, or
// a rule's gate would skip a function that can produce a finding. Checked
// against the per-instruction queries over every rule fixture and example,
// plus what the gates see in a training loop and in library code.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "checks/facts.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "parser/parser.h"

namespace fs = std::filesystem;

namespace {

using tpf::checks::CallIndex;
using tpf::checks::FunctionCalls;
using tpf::dataflow::GradState;
using tpf::dataflow::TorchCall;

/// A file through facts; heap-allocated because the IR points at the AST
/// and the source.
struct Analyzed {
  tpf::SourceFile src;
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks;
  tpf::ast::Module ast;
  tpf::ir::Module ir;
  tpf::dataflow::FileFacts facts;
  std::unique_ptr<tpf::checks::CheckContext> ctx;
};

std::unique_ptr<Analyzed> analyze(const std::string& shown, std::string text) {
  auto a = std::make_unique<Analyzed>();
  REQUIRE(tpf::lexer::make_source(shown, std::move(text), a->src, a->diags));
  a->toks = tpf::lexer::tokenize(a->src, a->diags);
  a->ast = tpf::parser::parse(a->src, a->toks, a->diags);
  REQUIRE_MESSAGE(!a->diags.has_errors(), shown << " does not parse");
  a->ir = tpf::ir::build(a->ast, a->src, a->diags, tpf::ir::kVerify);
  a->facts = tpf::dataflow::compute_facts(a->ir);
  a->ctx = std::make_unique<tpf::checks::CheckContext>(
      tpf::checks::CheckContext{a->src, a->ast, a->ir, a->facts});
  return a;
}

fs::path repo_root() {
  fs::path here = fs::path(__FILE__).parent_path();
  for (fs::path base : {here, fs::current_path() / here, fs::path("test/checks")}) {
    fs::path root = base / ".." / "..";
    if (fs::exists(root / "checks" / "registry.def")) return fs::weakly_canonical(root);
  }
  return {};
}

/// The index against the queries it summarizes, for every function and
/// instruction of one file.
void check_index(const Analyzed& a, const std::string& shown) {
  using namespace tpf;
  const checks::CheckContext& ctx = *a.ctx;
  const CallIndex& x = checks::call_index(ctx);
  REQUIRE(x.fns.size() == a.ir.functions.size());
  FunctionCalls file;
  for (uint32_t fi = 0; fi < a.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = a.ir.fn(fid);
    const FunctionCalls& fc = x.of(fid);
    uint32_t effects = 0, row_effects = 0;
    bool module_instance = false, unresolved = false;
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      ir::InstId id(i);
      effects |= checks::call_effects(ctx, fid, id) | checks::call_effects_must(ctx, fid, id);
      ir::CallTarget t = a.facts.res.call_target(fid, id);
      std::string_view name;
      if ((t.kind == ir::CallTarget::Kind::External ||
           t.kind == ir::CallTarget::Kind::ResultCall) &&
          t.name.valid())
        name = a.ir.names.str(t.name);
      CHECK_MESSAGE(checks::call_target_name(ctx, fid, id) == name,
                    shown << " f" << fi << " i" << i);
      if (f.insts[i].op != ir::Op::Call) continue;
      TorchCall k = checks::torch_call(ctx, fid, id);
      CHECK_MESSAGE(fc.has(k), shown << " f" << fi << " i" << i);
      row_effects |= dataflow::info(k).effects;
      if (k == TorchCall::None) {
        module_instance |= t.kind == ir::CallTarget::Kind::InstanceCall && t.cls.valid() &&
                           a.facts.res.is_module_class(t.cls);
        unresolved |=
            t.kind == ir::CallTarget::Kind::Unknown || t.kind == ir::CallTarget::Kind::ResultCall;
      }
    }
    bool graph = false, carrier = false;
    for (GradState g : a.facts.grad().of(fid).value) {
      graph |= g == GradState::Graph;
      carrier |= g != GradState::NoGraph && g != GradState::Bottom;
    }
    // A superset is what the gates need; the effects of the callees of
    // calls that are not this function's are never added.
    CHECK_MESSAGE((effects & ~fc.effects) == 0, shown << " f" << fi);
    CHECK_MESSAGE(fc.row_effects == row_effects, shown << " f" << fi);
    tpf::checks::GraphStates gs = tpf::checks::graph_states(ctx, fid);
    CHECK_MESSAGE(gs.any_graph == graph, shown << " f" << fi);
    CHECK_MESSAGE(gs.any_carrier == carrier, shown << " f" << fi);
    // may_create_graph is sound: a file it clears has no Graph value.
    if (graph) CHECK_MESSAGE(a.facts.may_create_graph(), shown << " f" << fi);
    CHECK_MESSAGE(fc.module_instance_call == module_instance, shown << " f" << fi);
    CHECK_MESSAGE(fc.unresolved_call == unresolved, shown << " f" << fi);
    file.effects |= fc.effects;
    file.row_effects |= fc.row_effects;
    file.rows |= fc.rows;
  }
  CHECK(x.file.effects == file.effects);
  CHECK(x.file.row_effects == file.row_effects);
  CHECK(x.file.rows == file.rows);
  for (size_t n = 0; n < x.names.size(); ++n) {
    CHECK(x.texts[n] == a.ir.names.str(x.names[n]));
    if (n) CHECK(x.names[n - 1] < x.names[n]);
  }
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("call index: covers every call's effects, rows, target name and grad states") {
  fs::path root = repo_root();
  REQUIRE(!root.empty());
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(root / "test" / "checks"))
    if (e.path().extension() == ".py") files.push_back(e.path());
  for (const auto& e : fs::directory_iterator(root / "examples"))
    if (e.path().extension() == ".py") files.push_back(e.path());
  REQUIRE(files.size() > 23);
  for (const fs::path& p : files) {
    std::string shown = fs::relative(p, root).string();
    check_index(*analyze(shown, read_file(p)), shown);
  }
}

TEST_CASE("call index: a training loop has the bits the gates ask for, library code has none") {
  auto a = analyze("t.py", R"(import torch
from torch.utils.data import DataLoader

def train(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

def helper(xs):
    total = 0
    for x in xs:
        total += x.sum().item()
    return total

def main(model, ds):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train(model, DataLoader(ds, batch_size=8), opt)
)");
  const tpf::checks::CheckContext& ctx = *a->ctx;
  auto fn = [&](std::string_view name) {
    for (uint32_t fi = 0; fi < a->ir.functions.size(); ++fi)
      if (a->ir.functions[fi].name != tpf::ir::kNoSymbol &&
          a->ir.names.str(a->ir.functions[fi].name) == name)
        return tpf::ir::FunctionId(fi);
    FAIL("no function " << name);
    return tpf::ir::FunctionId();
  };
  const FunctionCalls& train = tpf::checks::function_calls(ctx, fn("train"));
  CHECK(train.has(TorchCall::Backward));
  CHECK(train.has(TorchCall::OptimizerStep));
  CHECK(train.has(TorchCall::ZeroGrad));
  CHECK(tpf::checks::may_backward(train));
  CHECK(tpf::checks::may_step(train));
  CHECK((train.row_effects & tpf::dataflow::kBackward) != 0);

  // A helper that syncs but neither backwards nor steps: every
  // training-loop rule skips it before asking for its loops.
  const FunctionCalls& helper = tpf::checks::function_calls(ctx, fn("helper"));
  CHECK(helper.has(TorchCall::Item));
  CHECK_FALSE(tpf::checks::may_backward(helper));
  CHECK_FALSE(tpf::checks::may_step(helper));
  CHECK_FALSE(tpf::checks::graph_states(ctx, fn("helper")).any_graph);

  // main calls train: its effects are train's (through the summary), its
  // own rows have none.
  const FunctionCalls& main = tpf::checks::function_calls(ctx, fn("main"));
  CHECK(tpf::checks::may_backward(main));
  CHECK(tpf::checks::may_step(main));
  CHECK_FALSE(main.has(TorchCall::Backward));
  CHECK((main.row_effects & tpf::dataflow::kBackward) == 0);

  CHECK(tpf::checks::file_calls_any(ctx, tpf::checks::is_dataloader_name));
  CHECK(tpf::checks::file_calls_any(ctx, [](std::string_view n) {
    return tpf::checks::named_loss_kind(n) == tpf::checks::LossKind::CrossEntropy;
  }));
  CHECK_FALSE(tpf::checks::file_calls_any(ctx, [](std::string_view n) {
    return tpf::checks::named_loss_kind(n) == tpf::checks::LossKind::Bce;
  }));
  check_index(*a, "t.py");
}
