// The accuracy bar of issue 5, checked on every run: for each fixture in
// test/memory/scripts/ the estimator's numbers against what torch 1.13
// measured (test/memory/ground_truth/*.json, see test/memory/README.md):
// exact parameter counts, exact gradient and optimizer-state bytes, and
// saved-activation bytes per backward phase within 10%.
//
// The comparison runs the CPU kernels' saving rules (Kernels::Cpu: float
// dropout masks, the unfused LSTM, CPU autocast lists), which is what was
// measured; a second pass checks the CUDA rules against the README's CUDA
// figure (activation - dropout_mask_bytes + dropout_mask_elements) where
// the two devices differ only in dropout masks. TPF_MEMORY_TABLE=1 prints
// the table of ours vs truth.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "test/memory/memory_test_util.h"

using namespace tpf;
namespace fs = std::filesystem;

namespace {

struct Row {
  std::string script, phase;
  uint64_t params, params_truth;
  uint64_t opt_state, opt_truth;
  uint64_t acts, acts_truth;
};

double rel(uint64_t ours, uint64_t truth) {
  if (truth == 0) return ours == 0 ? 0 : 1;
  return std::fabs(static_cast<double>(ours) - static_cast<double>(truth)) / static_cast<double>(truth);
}

std::vector<Row>& table() {
  static std::vector<Row> rows;
  return rows;
}

memory::Estimate run(const test::Script& s, memory::Kernels k, std::vector<std::string> argv = {}) {
  memory::EstimateOptions opt;
  opt.kernels = k;
  opt.suggest = false;
  opt.argv = std::move(argv);
  opt.target = test::target("a100-80gb");
  return memory::estimate(s.ir, opt);
}

/// Checks one measured phase list against the estimate's phases, in order.
void check_phases(const std::string& name, const nlohmann::json& acts, const memory::Estimate& e,
                  bool cuda, uint64_t params, uint64_t ptruth, uint64_t ostate, uint64_t otruth) {
  size_t k = 0;
  REQUIRE_MESSAGE(e.phases.size() >= acts.size(), name << ": " << e.phases.size() << " backward phases");
  for (auto it = acts.begin(); it != acts.end(); ++it, ++k) {
    const nlohmann::json& p = it.value();
    uint64_t truth = p["activation_bytes"].get<uint64_t>();
    if (cuda)
      truth = truth - p["dropout_mask_bytes"].get<uint64_t>() + p["dropout_mask_elements"].get<uint64_t>();
    uint64_t ours = e.phases[k].activation_bytes;
    if (!cuda) table().push_back({name, it.key(), params, ptruth, ostate, otruth, ours, truth});
    CHECK_MESSAGE(rel(ours, truth) <= 0.10,
                  name << " phase " << it.key() << std::string(cuda ? " (CUDA)" : "") << ": activations " << ours
                       << " vs measured " << truth << " (" << 100 * rel(ours, truth) << "% off)");
  }
}

}  // namespace

TEST_CASE("ground truth: every fixture's params, optimizer state and activations") {
  fs::path dir = test::memory_test_dir("memory");
  REQUIRE(!dir.empty());
  std::vector<fs::path> scripts;
  for (const auto& ent : fs::directory_iterator(dir / "scripts"))
    if (ent.path().extension() == ".py") scripts.push_back(ent.path());
  std::sort(scripts.begin(), scripts.end());
  REQUIRE(scripts.size() >= 10);
  for (const fs::path& p : scripts) {
    std::string name = p.stem().string();
    CAPTURE(name);
    nlohmann::json truth = nlohmann::json::parse(test::read_file(dir / "ground_truth" / (name + ".json")));
    auto s = test::load_script(p);
    memory::Estimate e = run(*s, memory::Kernels::Cpu);
    uint64_t ptruth = truth["params"].get<uint64_t>();
    CHECK_MESSAGE(e.params == ptruth, name << ": params " << e.params << " vs " << ptruth);
    if (!truth.contains("activations")) {
      // gpt_sdpa: torch 1.13 has no SDPA; only the parameters were measured.
      table().push_back({name, "-", e.params, ptruth, e.optimizer_state_bytes, 0, 0, 0});
      continue;
    }
    uint64_t otruth = truth["optimizer_state_bytes"].get<uint64_t>();
    CHECK_MESSAGE(e.optimizer_state_bytes == otruth,
                  name << ": optimizer state " << e.optimizer_state_bytes << " vs " << otruth);
    CHECK_MESSAGE(e.gradient_bytes == truth["gradient_bytes"].get<uint64_t>(), name << ": gradient bytes");
    check_phases(name, truth["activations"], e, false, e.params, ptruth, e.optimizer_state_bytes, otruth);
    if (truth.contains("variants")) {
      for (auto it = truth["variants"].begin(); it != truth["variants"].end(); ++it) {
        std::vector<std::string> argv = it.value()["argv"].get<std::vector<std::string>>();
        memory::Estimate v = run(*s, memory::Kernels::Cpu, argv);
        check_phases(name + "[" + it.key() + "]", it.value()["activations"], v, false, v.params,
                     it.value()["params"].get<uint64_t>(), 0, 0);
      }
    }
    // The CUDA rules differ from the CPU ones in dropout masks only, except
    // for the LSTM (cuDNN) and autocast (other op lists): see README.md.
    if (name != "lstm_lm" && name != "vit_bf16_autocast") {
      memory::Estimate c = run(*s, memory::Kernels::Cuda);
      check_phases(name, truth["activations"], c, true, 0, 0, 0, 0);
    }
  }
  if (std::getenv("TPF_MEMORY_TABLE")) {
    std::printf("%-34s %-13s %12s %12s %12s %12s %12s %12s %7s\n", "script", "phase", "params", "truth",
                "opt state", "truth", "activations", "truth", "act err");
    for (const Row& r : table())
      std::printf("%-34s %-13s %12llu %12llu %12llu %12llu %12llu %12llu %6.2f%%\n", r.script.c_str(),
                  r.phase.c_str(), (unsigned long long)r.params, (unsigned long long)r.params_truth,
                  (unsigned long long)r.opt_state, (unsigned long long)r.opt_truth,
                  (unsigned long long)r.acts, (unsigned long long)r.acts_truth, 100 * rel(r.acts, r.acts_truth));
  }
}
