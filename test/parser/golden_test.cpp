// Golden AST files: each test/golden/parser/<case>.py parses in-process to
// exactly the tree CPython 3.11 gives (<case>.json, written by
// shared/tools/pyast2json.py; regenerate with
//   for f in test/golden/parser/*.py; do python3.11 ../shared/tools/pyast2json.py $f >
//   ${f%.py}.json; done
// since the expected side comes from CPython, not from us). Also checks that
// every positioned node lies inside its nearest positioned ancestor.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test/parser/parser_test_util.h"

namespace fs = std::filesystem;

namespace {

fs::path golden_dir() {
  // __FILE__ is relative to the build directory under meson; try both.
  fs::path here = fs::path(__FILE__).parent_path();
  for (fs::path base : {here, fs::current_path() / here, fs::path("test/parser")}) {
    fs::path g = base / ".." / "golden" / "parser";
    if (fs::is_directory(g)) return g;
  }
  return {};
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

using Pos = std::pair<int, int>;  // (line, col)

// Child spans inside the parent's, except where CPython 3.11 itself breaks
// the rule (see below).
std::string check_nesting(const nlohmann::json& n, Pos lo, Pos hi, const std::string& where) {
  if (n.is_array()) {
    for (size_t i = 0; i < n.size(); ++i) {
      std::string e = check_nesting(n[i], lo, hi, where + "[" + std::to_string(i) + "]");
      if (!e.empty()) return e;
    }
    return "";
  }
  if (!n.is_object() || !n.contains("_type")) return "";
  if (n.contains("lineno")) {
    Pos b{n["lineno"].get<int>(), n["col_offset"].get<int>()};
    Pos e{n["end_lineno"].get<int>(), n["end_col_offset"].get<int>()};
    if (b < lo || e > hi || e < b) return where;
    bool spec = where.size() >= 12 && where.compare(where.size() - 12, 12, ".format_spec") == 0;
    if (!spec) {
      lo = b;
      hi = e;
    }
  }
  for (auto it = n.begin(); it != n.end(); ++it) {
    // CPython's own exceptions: decorators precede their def's span; a
    // format spec spans one string token while its parts span them all; a
    // field's multi-line string token keeps an unshifted column.
    bool free = it.key() == "decorator_list" || it.key() == "format_spec" ||
                (n["_type"] == "FormattedValue" && it.key() == "value");
    std::string e = free ? check_nesting(it.value(), {0, 0}, {1 << 30, 0}, where + "." + it.key())
                         : check_nesting(it.value(), lo, hi, where + "." + it.key());
    if (!e.empty()) return e;
  }
  return "";
}

}  // namespace

// Each folder's files parse at its Python version: test/golden/parser at
// 3.11, py312/ at 3.12 and py313/ at 3.13 (their JSON from CPython 3.12.1
// and 3.13.0: `~/.pyenv/versions/3.12.1/bin/python ../shared/tools/pyast2json.py`).
int check_golden_dir(const fs::path& dir, tpf::PyVersion version) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".py") continue;
    fs::path expected = entry.path();
    expected.replace_extension(".json");
    CAPTURE(entry.path().string());
    REQUIRE(fs::exists(expected));
    auto got = tpf::parser::test::parse_snippet(read_file(entry.path()), version);
    REQUIRE(got.error == "");
    auto want = nlohmann::json::parse(read_file(expected));
    CHECK(tpf::parser::test::json_diff(want, got.tree) == "");
    CHECK(check_nesting(got.tree, {0, 0}, {1 << 30, 0}, "$") == "");
    ++cases;
  }
  return cases;
}

TEST_CASE("parser: golden ASTs equal CPython 3.11's") {
  fs::path dir = golden_dir();
  REQUIRE_MESSAGE(!dir.empty(), "test/golden/parser not found");
  CHECK(check_golden_dir(dir, tpf::PyVersion{3, 11}) >= 8);
}

TEST_CASE("parser: golden ASTs equal CPython 3.12's and 3.13's") {
  fs::path dir = golden_dir();
  REQUIRE_MESSAGE(!dir.empty(), "test/golden/parser not found");
  CHECK(check_golden_dir(dir / "py312", tpf::PyVersion{3, 12}) >= 2);
  CHECK(check_golden_dir(dir / "py313", tpf::PyVersion{3, 13}) >= 3);
}
