// Rule fixtures: every test/checks/TPFnnn/*.py runs through the whole
// pipeline in-process with every Stable rule. Exactly the lines marked
// `# expect: TPFnnn` (several codes: `# expect: TPF003, TPF006`) must fire,
// nothing else; the rendered diagnostics must equal the golden `.expected`
// beside the fixture (TPF_UPDATE_GOLDEN=1 rewrites it; review the diff like
// code). Cases inside a fixture start with a `# case: ...` line: a Stable
// rule needs at least 4 cases in fires*.py files, each with a marker of the
// rule, and 4 in silent*.py files, which have no markers at all.
// The rule list comes from checks/registry.def: a Stable rule without
// fixtures fails, so does a fixture folder for an unknown code.
// Also: examples/good_train.py has no findings, examples/bad_train.py has
// one per Stable rule, docs/rules.md matches the registry.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "memory/memory.h"
#include "targets/targets.h"
#include "parser/parser.h"
#include "tools/report.h"

namespace fs = std::filesystem;

namespace {

constexpr int kMinCases = 4;  // issue 4's quality bar: 4 positive, 4 negative per rule

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

/// The repository root (__FILE__ is relative to the build dir under meson).
fs::path repo_root() {
  fs::path here = fs::path(__FILE__).parent_path();
  for (fs::path base : {here, fs::current_path() / here, fs::path("test/checks")}) {
    fs::path root = base / ".." / "..";
    if (fs::exists(root / "checks" / "registry.def")) return fs::weakly_canonical(root);
  }
  return {};
}

/// Everything one file produces; heap-allocated because the IR points at
/// the AST and the source.
struct Analysis {
  tpf::SourceFile src;
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks;
  tpf::ast::Module ast;
  tpf::ir::Module ir;
  tpf::dataflow::FileFacts facts;
  std::optional<tpf::memory::Estimate> estimate;
  std::vector<tpf::Diagnostic> findings;
};

/// The estimator options of a fixture's first line, as the CLI would pass
/// them: `# tpf: target=t4 batch-size=8 seq-len=256` (TPF013's fixtures).
/// `torch-version=0.3` is the release the project declares (the rules'
/// CheckContext::torch); alone it asks for no estimate.
std::optional<tpf::memory::EstimateOptions> header_options(const std::string& text,
                                                           std::optional<tpf::memory::TorchVersion>& torch) {
  std::string first = text.substr(0, text.find('\n'));
  const std::string tag = "# tpf:";
  if (first.rfind(tag, 0) != 0) return std::nullopt;
  tpf::memory::EstimateOptions o;
  bool estimate = false;
  std::istringstream words(first.substr(tag.size()));
  std::string w;
  while (words >> w) {
    size_t eq = w.find('=');
    std::string k = w.substr(0, eq), v = eq == std::string::npos ? "" : w.substr(eq + 1);
    if (k == "torch-version") {
      torch = tpf::memory::parse_torch_version(v);
      REQUIRE_MESSAGE(torch, "bad torch-version " << v);
      continue;
    }
    estimate = true;
    if (k == "target") {
      tpf::targets::LookupResult t = tpf::targets::lookup_target(v);
      REQUIRE_MESSAGE(t.target, "unknown target " << v);
      o.target = *t.target;
    } else if (k == "batch-size") {
      o.batch_size = std::stoll(v);
    } else if (k == "seq-len") {
      o.seq_len = std::stoll(v);
    } else {
      FAIL("unknown fixture header option " << k);
    }
  }
  if (!estimate) return std::nullopt;
  return o;
}

std::unique_ptr<Analysis> analyze(const std::string& shown, std::string text) {
  auto a = std::make_unique<Analysis>();
  REQUIRE(tpf::lexer::make_source(shown, std::move(text), a->src, a->diags));
  a->toks = tpf::lexer::tokenize(a->src, a->diags);
  a->ast = tpf::parser::parse(a->src, a->toks, a->diags);
  REQUIRE_MESSAGE(!a->diags.has_errors(), shown << " does not parse: "
                                                << a->diags.diagnostics()[0].message);
  a->ir = tpf::ir::build(a->ast, a->src, a->diags, /*check=*/true);
  a->facts = tpf::dataflow::compute_facts(a->ir);
  tpf::checks::CheckContext ctx{a->src, a->ast, a->ir, a->facts};
  if (auto eo = header_options(std::string(a->src.text), ctx.torch)) {
    a->estimate = tpf::memory::estimate(a->ir, *eo);
    ctx.estimate = &*a->estimate;
  }
  a->findings = tpf::checks::run_checks(ctx, tpf::checks::RunOptions::all());
  return a;
}

struct Marker {
  uint32_t line;
  std::string code;
  auto operator<=>(const Marker&) const = default;
};

struct Fixture {
  std::set<Marker> expect;
  /// Per `# case:` line: its line and the codes marked inside the case.
  std::vector<std::pair<uint32_t, std::set<std::string>>> cases;
};

Fixture read_markers(const std::string& text) {
  static const std::regex expect_re(R"(#\s*expect:\s*(TPF\d{3}(?:\s*,\s*TPF\d{3})*))");
  static const std::regex code_re(R"(TPF\d{3})");
  static const std::regex case_re(R"(^\s*#\s*case:)");
  Fixture fx;
  std::istringstream in(text);
  std::string line;
  for (uint32_t n = 1; std::getline(in, line); ++n) {
    if (std::regex_search(line, case_re)) fx.cases.push_back({n, {}});
    std::smatch m;
    if (!std::regex_search(line, m, expect_re)) continue;
    std::string codes = m[1];
    for (auto it = std::sregex_iterator(codes.begin(), codes.end(), code_re);
         it != std::sregex_iterator(); ++it) {
      fx.expect.insert({n, it->str()});
      if (!fx.cases.empty()) fx.cases.back().second.insert(it->str());
    }
  }
  return fx;
}

std::string render(const Analysis& a, const std::string& shown) {
  std::string out;
  tpf::tools::TextStyle style;  // no colour, full frames
  for (const tpf::Diagnostic& d : a.findings) {
    tpf::tools::render_text(out, shown, a.src, d, style);
    out += '\n';
  }
  return out;
}

std::string describe(const std::set<Marker>& s) {
  std::string out;
  for (const Marker& m : s) out += "  line " + std::to_string(m.line) + ": " + m.code + "\n";
  return out;
}

/// Compares `actual` with the golden file (or rewrites it when updating).
void check_golden(const fs::path& golden, const std::string& actual) {
  if (updating()) {
    std::ofstream(golden, std::ios::binary) << actual;
    return;
  }
  if (!fs::exists(golden)) {
    FAIL_CHECK(golden.string() << " is missing (run with TPF_UPDATE_GOLDEN=1)");
    return;
  }
  std::string expected = read_file(golden);
  CHECK_MESSAGE(expected == actual, golden.string() << " differs; got:\n" << actual);
}

}  // namespace

TEST_CASE("rules: every fixture fires exactly on its `# expect:` lines, golden output") {
  fs::path root = repo_root();
  REQUIRE(!root.empty());
  fs::path dir = root / "test" / "checks";
  std::map<std::string, std::pair<int, int>> cases;  // code -> (fires cases, silent cases)
  std::vector<fs::path> folders;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_directory()) folders.push_back(e.path());
  std::sort(folders.begin(), folders.end());
  for (const fs::path& folder : folders) {
    std::string code = folder.filename().string();
    const tpf::checks::RuleInfo* rule = tpf::checks::find_rule(code);
    CAPTURE(code);
    REQUIRE_MESSAGE(rule, "test/checks/" << code << " names no rule of checks/registry.def");
    REQUIRE_MESSAGE(rule->code == code, "fixture folders are named by code: " << code);
    REQUIRE_MESSAGE(tpf::checks::is_runnable(rule->id),
                    code << " has fixtures but is not Stable in checks/registry.def");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(folder))
      if (e.path().extension() == ".py") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      std::string shown = code + "/" + file.filename().string();
      CAPTURE(shown);
      std::string text = read_file(file);
      Fixture fx = read_markers(text);
      bool silent = file.filename().string().starts_with("silent");
      if (silent) CHECK_MESSAGE(fx.expect.empty(), shown << ": a silent fixture has no markers");
      for (const auto& [line, codes] : fx.cases) {
        if (silent) ++cases[code].second;
        else if (codes.count(code)) ++cases[code].first;
        else FAIL_CHECK(shown << ":" << line << ": a case without `# expect: " << code << "`");
      }
      std::unique_ptr<Analysis> a = analyze(shown, text);
      std::set<Marker> got;
      for (const tpf::Diagnostic& d : a->findings) got.insert({a->src.pos(d.span.begin).line, d.code});
      std::set<Marker> missing, extra;
      std::set_difference(fx.expect.begin(), fx.expect.end(), got.begin(), got.end(),
                          std::inserter(missing, missing.end()));
      std::set_difference(got.begin(), got.end(), fx.expect.begin(), fx.expect.end(),
                          std::inserter(extra, extra.end()));
      CHECK_MESSAGE(missing.empty(), shown << ": expected findings that did not fire:\n"
                                           << describe(missing));
      CHECK_MESSAGE(extra.empty(), shown << ": findings without a marker:\n" << describe(extra)
                                         << render(*a, shown));
      fs::path golden = file;
      golden.replace_extension(".expected");
      check_golden(golden, render(*a, shown));
    }
  }
  for (const tpf::checks::RuleInfo& r : tpf::checks::all_rules()) {
    if (!tpf::checks::is_runnable(r.id)) continue;
    CAPTURE(r.code);
    // Not a structured binding: CHECK_MESSAGE's lambda may not capture one
    // (clang before 16, which builds the fuzz targets).
    int fires = cases[std::string(r.code)].first, silent = cases[std::string(r.code)].second;
    CHECK_MESSAGE(fires >= kMinCases, r.code << " has " << fires << " firing cases (`# case:` in fires*.py)");
    CHECK_MESSAGE(silent >= kMinCases, r.code << " has " << silent << " silent cases (`# case:` in silent*.py)");
  }
}

TEST_CASE("rules: examples/good_train.py is clean, bad_train.py has each Stable rule") {
  fs::path root = repo_root();
  REQUIRE(!root.empty());
  fs::path good = root / "examples" / "good_train.py", bad = root / "examples" / "bad_train.py";
  REQUIRE(fs::exists(good));
  REQUIRE(fs::exists(bad));
  std::unique_ptr<Analysis> g = analyze("examples/good_train.py", read_file(good));
  CHECK_MESSAGE(g->findings.empty(), "good_train.py has findings:\n" << render(*g, "good_train.py"));
  std::unique_ptr<Analysis> b = analyze("examples/bad_train.py", read_file(bad));
  std::set<std::string> codes;
  for (const tpf::Diagnostic& d : b->findings) codes.insert(d.code);
  // TPF013 and TPF024 need --target and a model too big, or nearly, for it:
  // their fixtures and `make run` (examples/train.py) cover them.
  for (const tpf::checks::RuleInfo& r : tpf::checks::all_rules())
    if (tpf::checks::is_runnable(r.id) && r.id != tpf::checks::RuleId::TPF013 &&
        r.id != tpf::checks::RuleId::TPF024)
      CHECK_MESSAGE(codes.count(std::string(r.code)), "bad_train.py has no " << r.code);
  // One bug of each kind, so each Stable rule fires exactly as marked there too.
  Fixture fx = read_markers(read_file(bad));
  std::set<Marker> got;
  for (const tpf::Diagnostic& d : b->findings) got.insert({b->src.pos(d.span.begin).line, d.code});
  CHECK_MESSAGE(got == fx.expect, "bad_train.py: findings differ from its markers; got:\n"
                                      << describe(got) << "expected:\n" << describe(fx.expect));
}

TEST_CASE("rules: docs/rules.md is generated from the registry") {
  fs::path root = repo_root();
  REQUIRE(!root.empty());
  check_golden(root / "docs" / "rules.md", tpf::tools::rules_markdown());
}

TEST_CASE("rules: registry lookups, selection and planned rules") {
  using tpf::checks::find_rule;
  using tpf::checks::RuleId;
  REQUIRE(find_rule("TPF003"));
  CHECK(find_rule("tpf003") == find_rule("TPF003"));
  CHECK(find_rule("backward_without_zero_grad") == find_rule("TPF003"));
  CHECK(find_rule("TPF099") == nullptr);
  CHECK(tpf::checks::is_runnable(RuleId::TPF003));
  CHECK(tpf::checks::is_runnable(RuleId::TPF013));
  for (const tpf::checks::RuleInfo& r : tpf::checks::all_rules()) {
    CAPTURE(r.code);
    std::string_view e = tpf::checks::explain_text(r.id);
    CHECK(e.starts_with(std::string(r.code) + " " + std::string(r.slug)));
    for (std::string_view section : {"What it finds", "Why it costs", "Example", "Fix", "Not flagged"})
      CHECK_MESSAGE(e.find(section) != std::string_view::npos, "no section " << section);
    CHECK_FALSE(r.summary.ends_with("."));
  }

  tpf::checks::RunOptions o;
  std::string err;
  std::vector<std::string> notes;
  REQUIRE(tpf::checks::select_rules({"TPF003,TPF006"}, {}, o, err, notes));
  CHECK(o.enabled.count() == 2);
  REQUIRE(tpf::checks::select_rules({"TPF00"}, {"TPF006", "bce_activation_mismatch"}, o, err, notes));
  CHECK(o.enabled[static_cast<size_t>(RuleId::TPF003)]);
  CHECK_FALSE(o.enabled[static_cast<size_t>(RuleId::TPF006)]);
  CHECK_FALSE(o.enabled[static_cast<size_t>(RuleId::TPF007)]);
  CHECK_FALSE(o.enabled[static_cast<size_t>(RuleId::TPF013)]);
  notes.clear();
  REQUIRE(tpf::checks::select_rules({"TPF013"}, {}, o, err, notes));
  CHECK(o.enabled.count() == 1);
  CHECK(notes.empty());  // every rule is Stable: no "is planned" note
  CHECK_FALSE(tpf::checks::select_rules({"TPF099"}, {}, o, err, notes));
  CHECK(err.find("TPF099") != std::string::npos);
  CHECK_FALSE(tpf::checks::select_rules({}, {"nonsense"}, o, err, notes));
}

TEST_CASE("report: columns count code points; the caret sits under the span") {
  std::unique_ptr<Analysis> a = analyze("<utf8>.py", "x = 'é€𝄞'; y = 1\n");
  uint32_t y = static_cast<uint32_t>(std::string("x = 'é€𝄞'; ").size());
  tpf::tools::Position p = tpf::tools::position(a->src, y);
  CHECK(p.line == 1);
  CHECK(p.column == 12);  // x = 'é€𝄞';  is 11 code points
  tpf::Diagnostic d;
  d.code = "TPF003";
  d.severity = tpf::Severity::Error;
  d.span = {y, y + 1};
  d.message = "m";
  d.help = "h";
  std::string out;
  tpf::tools::render_text(out, "f.py", a->src, d, {});
  CHECK(out ==
        "f.py:1:12: error TPF003 m\n"
        "   |\n"
        " 1 | x = 'é€𝄞'; y = 1\n"
        "   |            ^\n"
        "   = help: h\n");
  // Wide characters take two cells.
  std::unique_ptr<Analysis> w = analyze("<wide>.py", "s = '日本'; z = 2\n");
  uint32_t z = static_cast<uint32_t>(std::string("s = '日本'; ").size());
  d.span = {z, z + 1};
  out.clear();
  tpf::tools::render_text(out, "f.py", w->src, d, {});
  CHECK_MESSAGE(out.find("\n   | " + std::string(12, ' ') + "^\n") != std::string::npos, out);
}
