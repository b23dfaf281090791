// Golden IR and fact dumps: each test/golden/ir/<case>.py is lowered
// in-process and its --dump-ir text compared with <case>.ir; each
// test/golden/facts/<case>.py gives --dump-facts text compared with
// <case>.facts (the fact sets named on a first line `# tpf: facts=a,b`,
// else all). TPF_UPDATE_GOLDEN=1 rewrites the expected files; review the
// diff like code. Missing expected files fail (run with TPF_UPDATE_GOLDEN=1).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "test/ir/ir_test_util.h"

namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool updating() {
  const char* u = std::getenv("TPF_UPDATE_GOLDEN");
  return u && *u && std::string(u) != "0";
}

std::vector<fs::path> cases(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".py") out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// First differing line, for a readable failure.
std::string first_diff(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    bool ea = !std::getline(a, la), eb = !std::getline(b, lb);
    if (ea && eb) return "identical";
    if (ea || eb || la != lb)
      return "line " + std::to_string(line) + ":\n  expected: " + (ea ? "<eof>" : la) +
             "\n  actual:   " + (eb ? "<eof>" : lb);
  }
}

void check_golden(const fs::path& py, const fs::path& expected, const std::string& got) {
  if (updating()) {
    std::ofstream(expected, std::ios::binary) << got;
    return;
  }
  REQUIRE_MESSAGE(fs::exists(expected), expected.string() << " missing (TPF_UPDATE_GOLDEN=1 writes it)");
  std::string want = read_file(expected);
  CHECK_MESSAGE(want == got, py.filename().string() << ": " << first_diff(want, got));
}

}  // namespace

TEST_CASE("golden: --dump-ir of every construct (test/golden/ir)") {
  fs::path dir = tpf::test::source_dir("golden/ir");
  REQUIRE_MESSAGE(!dir.empty(), "test/golden/ir not found");
  auto files = cases(dir);
  CHECK(files.size() >= 15);
  for (const fs::path& py : files) {
    CAPTURE(py.string());
    auto p = tpf::test::run(read_file(py));
    fs::path expected = py;
    expected.replace_extension(".ir");
    check_golden(py, expected, p->dump_ir());
  }
}

TEST_CASE("golden: --dump-facts (test/golden/facts)") {
  fs::path dir = tpf::test::source_dir("golden/facts");
  REQUIRE_MESSAGE(!dir.empty(), "test/golden/facts not found");
  auto files = cases(dir);
  CHECK(files.size() >= 3);
  for (const fs::path& py : files) {
    CAPTURE(py.string());
    std::string text = read_file(py);
    std::vector<std::string> sets;
    const std::string opt = "# tpf: facts=";
    if (text.compare(0, opt.size(), opt) == 0) {
      std::string list = text.substr(opt.size(), text.find('\n') - opt.size());
      std::stringstream ss(list);
      for (std::string s; std::getline(ss, s, ',');) sets.push_back(s);
    } else {
      sets.push_back("all");
    }
    auto p = tpf::test::run(text);
    std::string got;
    for (const std::string& s : sets) {
      REQUIRE_MESSAGE(tpf::dataflow::is_fact_name(s), "unknown fact set " << s);
      if (sets.size() > 1) got += "== " + s + " ==\n";
      tpf::dataflow::dump_facts(p->ir, p->facts, s, got);
    }
    fs::path expected = py;
    expected.replace_extension(".facts");
    check_golden(py, expected, got);
  }
}
