// Golden tests of the memory report: each test/golden/memory/<case>.py is
// estimated in-process with the options of its first line
// (`# tpf: target=t4 batch-size=8 seq-len=256 dtype=bf16 world-size=8
// generate=8x2048 breakdown torch-version=1.13 timeline -- SCRIPT ARGS`), rendered as text and as the JSON object under "estimates",
// and compared with <case>.memory. TPF_UPDATE_GOLDEN=1 rewrites the
// expected files; review the diff like code. A missing expected file fails.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "test/memory/memory_test_util.h"
#include "tools/report_memory.h"

using namespace tpf;
namespace fs = std::filesystem;

namespace {

struct Header {
  memory::EstimateOptions opt;
  bool breakdown = false;
  bool timeline = false;  ///< `timeline`: the --timeline text follows the report
};

Header parse_header(const std::string& text) {
  Header h;
  std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "# tpf:";
  if (first.rfind(tag, 0) != 0) return h;
  // ` -- ` ends the options: the rest is the script's own command line.
  if (size_t dd = first.find(" -- "); dd != std::string::npos) {
    std::istringstream argv(first.substr(dd + 4));
    for (std::string w; argv >> w;) h.opt.argv.push_back(w);
    first.resize(dd);
  }
  std::istringstream words(first.substr(tag.size()));
  std::string w;
  while (words >> w) {
    size_t eq = w.find('=');
    std::string k = w.substr(0, eq), v = eq == std::string::npos ? "" : w.substr(eq + 1);
    if (k == "target") h.opt.target = test::target(v);
    else if (k == "batch-size") h.opt.batch_size = std::stoll(v);
    else if (k == "seq-len") h.opt.seq_len = std::stoll(v);
    else if (k == "world-size") h.opt.world_size = std::stoll(v);
    else if (k == "dtype") h.opt.dtype = memory::parse_dtype(v);
    else if (k == "breakdown") h.breakdown = true;
    else if (k == "timeline") h.timeline = true;
    else if (k == "torch-version") {
      h.opt.torch_version = memory::parse_torch_version(v);
      h.opt.torch_version_from = "--torch-version";
      REQUIRE_MESSAGE(h.opt.torch_version, v);
    }
    else if (k == "generate") {
      std::string why;
      h.opt.generate = memory::parse_generate(v, why);
      REQUIRE_MESSAGE(h.opt.generate, why);
    }
    else FAIL("unknown header option " << k);
  }
  return h;
}

}  // namespace

TEST_CASE("golden: memory reports") {
  fs::path dir = test::memory_test_dir("golden/memory");
  REQUIRE(!dir.empty());
  bool update = std::getenv("TPF_UPDATE_GOLDEN") != nullptr;
  std::vector<fs::path> cases;
  for (const auto& ent : fs::directory_iterator(dir))
    if (ent.path().extension() == ".py") cases.push_back(ent.path());
  std::sort(cases.begin(), cases.end());
  REQUIRE(cases.size() >= 6);
  for (const fs::path& p : cases) {
    CAPTURE(p.filename().string());
    std::string text = test::read_file(p);
    Header h = parse_header(text);
    auto s = test::load_script_text(p.filename().string(), text);
    memory::Estimate e = memory::estimate(s->ir, h.opt);
    e.path = p.filename().string();
    std::ostringstream out;
    tools::render_estimate(out, e, {h.breakdown, true});
    if (h.timeline) tools::render_timeline(out, e);
    out << "--- json ---\n" << tools::estimate_json(e).dump(2) << "\n";
    fs::path expected = p;
    expected.replace_extension(".memory");
    if (update) {
      std::ofstream(expected, std::ios::binary) << out.str();
      continue;
    }
    REQUIRE_MESSAGE(fs::exists(expected), "missing " << expected << " (run with TPF_UPDATE_GOLDEN=1)");
    std::string want = test::read_file(expected);
    CHECK_MESSAGE(out.str() == want, "report differs from " << expected.filename().string()
                                                            << " (TPF_UPDATE_GOLDEN=1 rewrites it)");
  }
}

TEST_CASE("golden: every estimate's JSON has issue 5's schema, bytes as integers") {
  fs::path dir = test::memory_test_dir("golden/memory");
  REQUIRE(!dir.empty());
  int checked = 0, with_suggestions = 0;
  for (const auto& ent : fs::directory_iterator(dir)) {
    if (ent.path().extension() != ".py") continue;
    CAPTURE(ent.path().filename().string());
    std::string text = test::read_file(ent.path());
    Header h = parse_header(text);
    auto s = test::load_script_text(ent.path().filename().string(), text);
    memory::Estimate e = memory::estimate(s->ir, h.opt);
    nlohmann::ordered_json j = tools::estimate_json(e);
    for (const char* k : {"path", "target", "params", "components", "peak_bytes", "peak_low_bytes", "peak_high_bytes",
                          "usable_bytes", "verdict", "config", "suggestions"})
      CHECK_MESSAGE(j.contains(k), k);
    bool known = j["verdict"] != "unknown" || !j["peak_bytes"].is_null();
    for (const char* k : {"weights", "gradients", "optimizer_state", "master_weights", "activations", "autocast_cache",
                          "cuda_context", "fragmentation"}) {
      CHECK_MESSAGE(j["components"].contains(k), k);
      if (known) CHECK_MESSAGE(j["components"][k].is_number_unsigned(), k);
    }
    if (known) {
      CHECK(j["peak_bytes"].is_number_unsigned());
      CHECK(j["peak_low_bytes"].get<uint64_t>() <= j["peak_bytes"].get<uint64_t>());
      CHECK(j["peak_bytes"].get<uint64_t>() <= j["peak_high_bytes"].get<uint64_t>());
    }
    CHECK(j["usable_bytes"].is_number_unsigned());
    CHECK((j["verdict"] == "fits" || j["verdict"] == "tight" || j["verdict"] == "oom" || j["verdict"] == "unknown"));
    CHECK(j["config"]["batch_size"].contains("value"));
    CHECK(j["config"]["batch_size"].contains("line"));
    for (const auto& sg : j["suggestions"]) {
      CHECK(sg["change"].is_string());
      CHECK(sg["saves_bytes"].is_number_unsigned());
      CHECK(sg["peak_after_bytes"].is_number_unsigned());
      CHECK(sg["fits"].is_boolean());
    }
    with_suggestions += !j["suggestions"].empty();
    ++checked;
  }
  CHECK(checked >= 12);
  CHECK(with_suggestions >= 2);
}

TEST_CASE("timeline: the trace carries the allocated and the reserved counter") {
  fs::path dir = test::memory_test_dir("golden/memory");
  REQUIRE(!dir.empty());
  const fs::path p = dir / "timeline_conv_bn_twice.py";
  std::string text = test::read_file(p);
  Header h = parse_header(text);
  auto s = test::load_script_text(p.filename().string(), text);
  memory::Estimate e = memory::estimate(s->ir, h.opt);
  REQUIRE(e.timeline.size() > 10);
  const fs::path file = fs::temp_directory_path() / "tpf-timeline-trace-test.json";
  std::string error;
  REQUIRE(tools::write_timeline_trace(file.string(), e, error));
  nlohmann::json trace = nlohmann::json::parse(test::read_file(file));
  fs::remove(file);
  std::vector<uint64_t> allocated, reserved;
  for (const auto& ev : trace["traceEvents"]) {
    if (ev["ph"] != "C") continue;
    (ev["name"] == "allocated" ? allocated : reserved).push_back(ev["args"]["bytes"].get<uint64_t>());
    CHECK((ev["name"] == "allocated" || ev["name"] == "reserved"));
  }
  REQUIRE(allocated.size() == e.timeline.size());
  REQUIRE(reserved.size() == e.timeline.size());
  // Segments hold every live block and are never released within a run:
  // reserved covers allocated and never falls, and ends at the reported peak.
  for (size_t i = 0; i < reserved.size(); ++i) {
    CAPTURE(i);
    CHECK(reserved[i] >= allocated[i]);
    if (i) CHECK(reserved[i] >= reserved[i - 1]);
  }
  CHECK(reserved.back() == e.reserved_peak_bytes);
  CHECK(reserved.front() < reserved.back());  // the step's tensors took segments of their own
}
