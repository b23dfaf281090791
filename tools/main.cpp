// tpf-analyze: the command-line driver. Runs the pipeline as a straight list
// of stage calls per file (load, tokenize, parse, build IR, facts, rules,
// estimate), taps it after named stages (--dump-tokens, --dump-ast,
// --dump-ir, --dump-facts=NAME), and hands the findings to a reporter.
// Exit status: 0 nothing at or above --fail-on, 1 findings at or above it,
// 2 usage error, unreadable path or syntax error (the other files are still
// analyzed).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "tools/inputs.h"
#include "tools/render.h"
#include "tools/report.h"
#include "tools/report_memory.h"
#include "memory/memory.h"
#include "targets/targets.h"

namespace po = boost::program_options;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // findings at or above --fail-on
constexpr int kExitUsage = 2;     // usage error, unreadable path or syntax error

struct Options {
  // ---- inputs ----
  std::vector<std::string> paths;        // files, directories, `-` for stdin
  std::string stdin_filename = "<stdin>";
  // ---- output ----
  std::string format = "text";           // text | json
  bool quiet = false;
  bool no_color = false;
  // ---- rules (checks/) ----
  std::vector<std::string> select, ignore;
  std::string fail_on = "error";         // error | warning | never
  std::string explain;
  bool list_rules = false;
  // ---- memory estimator (memory/): its options go here ----
  std::string target;
  bool list_targets = false;
  bool breakdown = false;
  int64_t batch_size = 0, seq_len = 0, world_size = 0;  // 0: not given
  std::string dtype;
  std::optional<tpf::targets::Target> resolved_target;
  // ---- stage dumps (ir/, dataflow/): print and skip the rules ----
  bool dump_tokens = false;
  bool dump_ast = false;
  bool dump_ir = false;
  std::string dump_facts;  // a dataflow::is_fact_name

  bool dumping() const { return dump_tokens || dump_ast || dump_ir || !dump_facts.empty(); }
};

void add_output_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("format", po::value<std::string>(&opt.format)->default_value("text"),
       "output format: text or json")
      ("quiet,q", po::bool_switch(&opt.quiet), "print only the diagnostic lines: no code frames, no summary")
      ("no-color", po::bool_switch(&opt.no_color), "never colour the output (colour is used only on a terminal)")
      ("stdin-filename", po::value<std::string>(&opt.stdin_filename),
       "the path to report for `-` (standard input)");
}

void add_rule_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("select", po::value<std::vector<std::string>>(&opt.select)->composing(),
       "rules to run: codes, code prefixes or names, comma-separated (default: all)")
      ("ignore", po::value<std::vector<std::string>>(&opt.ignore)->composing(),
       "rules not to run, as for --select")
      ("fail-on", po::value<std::string>(&opt.fail_on)->default_value("error"),
       "exit 1 on findings at or above: error, warning or never")
      ("explain", po::value<std::string>(&opt.explain), "print the write-up of a rule (code or name) and exit")
      ("list-rules", po::bool_switch(&opt.list_rules), "list every rule and exit");
}

// The memory estimator's options (--target, --list-targets, --breakdown,
// --batch-size, --seq-len, --dtype, --world-size) are added here.
void add_estimator_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("target", po::value<std::string>(&opt.target), "GPU to estimate peak VRAM for (e.g. h100)")
      ("list-targets", po::bool_switch(&opt.list_targets), "list the GPUs and cloud instances --target accepts")
      ("breakdown", po::bool_switch(&opt.breakdown), "add the per-layer activation table to the estimate")
      ("batch-size", po::value<int64_t>(&opt.batch_size), "estimate with this per-GPU batch size")
      ("seq-len", po::value<int64_t>(&opt.seq_len), "estimate with this sequence length")
      ("dtype", po::value<std::string>(&opt.dtype), "estimate with this compute precision: fp32, bf16 or fp16")
      ("world-size", po::value<int64_t>(&opt.world_size), "estimate for this many data-parallel GPUs");
}

void add_dump_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("dump-tokens", po::bool_switch(&opt.dump_tokens), "print the token stream and stop")
      ("dump-ast", po::bool_switch(&opt.dump_ast),
       "print the AST (--format json: CPython's ast schema)")
      ("dump-ir", po::bool_switch(&opt.dump_ir), "print the SSA IR with resolved names")
      ("dump-facts", po::value<std::string>(&opt.dump_facts),
       "print dataflow facts: grad, calls, summaries, loops, resolve or all");
}

void print_help(const po::options_description& visible) {
  std::cout << "usage: tpf-analyze [options] PATH...\n\n"
               "Static analyzer for PyTorch training scripts: finds costly training bugs\n"
               "and estimates peak VRAM, without importing torch or running the script.\n"
               "PATH is a file, a directory (its .py files, recursively) or - for stdin.\n\n"
            << visible
            << "\nexamples:\n"
               "  tpf-analyze train.py\n"
               "  tpf-analyze --select TPF003,TPF008 src/\n"
               "  tpf-analyze --format json --fail-on warning train.py\n"
               "  cat train.py | tpf-analyze --stdin-filename train.py -\n"
               "  tpf-analyze --explain TPF003\n"
               "  tpf-analyze --target h100 train.py\n"
               "  tpf-analyze --dump-ast --format json train.py\n"
               "\nexit status: 0 nothing at or above --fail-on, 1 findings at or above it,\n"
               "2 usage error, unreadable path or syntax error\n";
}

/// The source of one input: read from disk, or from stdin for `-`.
/// Problems are reported on stderr (CPython style); returns null then.
std::unique_ptr<tpf::SourceFile> load(const std::string& path, const Options& opt) {
  auto src = std::make_unique<tpf::SourceFile>();
  tpf::DiagSink diags;
  bool ok;
  std::string shown = path;
  if (path == "-") {
    shown = opt.stdin_filename;
    std::string bytes((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    ok = tpf::lexer::make_source(shown, std::move(bytes), *src, diags);
  } else {
    ok = tpf::lexer::load_source(path, *src, diags);
  }
  if (!ok) {
    tpf::tools::render_diagnostics(std::cerr, *src, shown, diags);
    return nullptr;
  }
  return src;
}

/// Runs the pipeline on one file. Returns false when the file could not be
/// analyzed (a syntax error, reported on stderr). In dump mode prints the
/// requested dumps and runs no rules.
bool analyze_file(const tpf::SourceFile& src, const std::string& path, const Options& opt,
                  const tpf::checks::RunOptions& rules, std::vector<tpf::Diagnostic>& findings,
                  nlohmann::ordered_json& estimates) {
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
  if (opt.dump_tokens) {
    std::string out;
    tpf::tools::dump_tokens(src, toks, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  if (opt.dump_tokens && !opt.dump_ast) {
    if (diags.has_errors()) {
      tpf::tools::render_diagnostics(std::cerr, src, path, diags);
      return false;
    }
    return true;
  }
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags);
  if (diags.has_errors()) {
    tpf::tools::render_diagnostics(std::cerr, src, path, diags);
    return false;
  }
  if (opt.dump_ast) {
    std::string out;
    if (opt.format == "json") {
      tpf::parser::dump_json(module, src, out);
      out += '\n';
    } else {
      tpf::parser::dump_text(module, src, out);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  if (opt.dumping() && !opt.dump_ir && opt.dump_facts.empty()) return true;

  tpf::ir::Module ir = tpf::ir::build(module, src, diags, tpf::ir::kVerify);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir);
  if (opt.dump_ir || !opt.dump_facts.empty()) {
    std::string out;
    if (opt.dump_ir) tpf::ir::print(ir, out, &facts.res);
    if (!opt.dump_facts.empty()) tpf::dataflow::dump_facts(ir, facts, opt.dump_facts, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return true;
  }

  tpf::checks::CheckContext ctx{src, module, ir, facts};
  findings = tpf::checks::run_checks(ctx, rules);

  // The memory estimate (with --target or any estimator option).
  if (opt.resolved_target || opt.breakdown || opt.batch_size || opt.seq_len || !opt.dtype.empty() ||
      opt.world_size) {
    tpf::memory::EstimateOptions eo;
    eo.target = opt.resolved_target;
    if (opt.batch_size) eo.batch_size = opt.batch_size;
    if (opt.seq_len) eo.seq_len = opt.seq_len;
    if (opt.world_size) eo.world_size = opt.world_size;
    if (!opt.dtype.empty()) eo.dtype = tpf::memory::parse_dtype(opt.dtype);
    tpf::memory::Estimate est = tpf::memory::estimate(ir, eo);
    est.path = path;
    if (opt.format == "json") estimates.push_back(tpf::tools::estimate_json(est));
    else tpf::tools::render_estimate(std::cout, est, {opt.breakdown, true});
  }
  return true;
}

bool at_or_above(tpf::Severity s, const std::string& fail_on) {
  if (fail_on == "never") return false;
  if (fail_on == "warning") return s >= tpf::Severity::Warning;
  return s >= tpf::Severity::Error;
}

bool stdout_is_terminal() { return isatty(STDOUT_FILENO) == 1; }

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  po::options_description general("general");
  general.add_options()
      ("help,h", "print this help and exit")
      ("version", "print the version and exit");
  po::options_description output("output"), rules("rules"), estimator("memory estimate"),
      dumps("stage dumps (print, run no rules)");
  add_output_options(output, opt);
  add_rule_options(rules, opt);
  add_estimator_options(estimator, opt);
  add_dump_options(dumps, opt);
  po::options_description visible;
  visible.add(general).add(output).add(rules).add(estimator).add(dumps);
  po::options_description hidden;
  hidden.add_options()("path", po::value<std::vector<std::string>>(&opt.paths));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("path", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "tpf-analyze: error: " << e.what() << "\n"
              << "try 'tpf-analyze --help'\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    print_help(visible);
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "tpf-analyze 0.1.0\n";
    return kExitOk;
  }
  if (opt.format != "text" && opt.format != "json") {
    std::cerr << "tpf-analyze: error: unknown --format '" << opt.format
              << "' (expected text or json)\n";
    return kExitUsage;
  }
  if (opt.fail_on != "error" && opt.fail_on != "warning" && opt.fail_on != "never") {
    std::cerr << "tpf-analyze: error: unknown --fail-on '" << opt.fail_on
              << "' (expected error, warning or never)\n";
    return kExitUsage;
  }
  if (!opt.dump_facts.empty() && !tpf::dataflow::is_fact_name(opt.dump_facts)) {
    std::cerr << "tpf-analyze: error: unknown --dump-facts '" << opt.dump_facts
              << "' (expected grad, calls, summaries, loops, resolve or all)\n";
    return kExitUsage;
  }
  if (opt.list_rules) {
    if (opt.format == "json") tpf::tools::list_rules_json(std::cout);
    else tpf::tools::list_rules_text(std::cout);
    return kExitOk;
  }
  if (!opt.explain.empty()) {
    const tpf::checks::RuleInfo* r = tpf::checks::find_rule(opt.explain);
    if (!r) {
      std::cerr << "tpf-analyze: error: unknown rule '" << opt.explain << "' (see --list-rules)\n";
      return kExitUsage;
    }
    tpf::tools::explain_rule(std::cout, *r);
    return kExitOk;
  }

  if (opt.list_targets) {
    std::cout << tpf::targets::list_targets();
    return kExitOk;
  }
  if (!opt.target.empty()) {
    tpf::targets::LookupResult t = tpf::targets::lookup_target(opt.target);
    if (!t.ok()) {
      std::cerr << "tpf-analyze: error: " << t.error.message() << " (see --list-targets)\n";
      return kExitUsage;
    }
    opt.resolved_target = *t.target;
  }
  if (!opt.dtype.empty() && !tpf::memory::parse_dtype(opt.dtype)) {
    std::cerr << "tpf-analyze: error: unknown --dtype '" << opt.dtype << "' (expected fp32, bf16 or fp16)\n";
    return kExitUsage;
  }
  if (opt.batch_size < 0 || opt.seq_len < 0 || opt.world_size < 0) {
    std::cerr << "tpf-analyze: error: --batch-size, --seq-len and --world-size must be positive\n";
    return kExitUsage;
  }

  tpf::checks::RunOptions run;
  {
    std::string error;
    std::vector<std::string> notes;
    if (!tpf::checks::select_rules(opt.select, opt.ignore, run, error, notes)) {
      std::cerr << "tpf-analyze: error: " << error << "\n";
      return kExitUsage;
    }
    for (const std::string& n : notes) std::cerr << "tpf-analyze: note: " << n << "\n";
  }
  if (opt.paths.empty()) {
    std::cerr << "tpf-analyze: error: no input paths\ntry 'tpf-analyze --help'\n";
    return kExitUsage;
  }

  int rc = kExitOk;
  // `-` is standard input, read once, wherever it appears.
  std::vector<std::string> named;
  bool read_stdin = false;
  for (const std::string& p : opt.paths) {
    if (p == "-") read_stdin = true;
    else named.push_back(p);
  }
  tpf::tools::Inputs inputs = tpf::tools::expand_inputs(named);
  for (const tpf::tools::InputProblem& p : inputs.problems) {
    std::cerr << p.path << ": error: " << p.message << "\n";
    rc = kExitUsage;
  }
  std::vector<std::string> files;
  if (read_stdin) files.push_back("-");
  files.insert(files.end(), inputs.files.begin(), inputs.files.end());

  // Sources are kept only for files with findings (the code frames need them).
  std::vector<std::unique_ptr<tpf::SourceFile>> kept;
  std::vector<tpf::tools::FileDiagnostics> results;
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  tpf::tools::Totals totals;
  for (const std::string& path : files) {
    std::string shown = path == "-" ? opt.stdin_filename : path;
    std::unique_ptr<tpf::SourceFile> src = load(path, opt);
    if (!src) {
      rc = kExitUsage;
      ++totals.not_analyzed;
      continue;
    }
    std::vector<tpf::Diagnostic> findings;
    if (!analyze_file(*src, shown, opt, run, findings, estimates)) {
      rc = kExitUsage;
      ++totals.not_analyzed;
      continue;
    }
    ++totals.files;
    if (findings.empty()) continue;
    results.push_back({shown, src.get(), std::move(findings)});
    kept.push_back(std::move(src));
  }
  if (opt.dumping()) return rc;

  std::stable_sort(results.begin(), results.end(),
                   [](const auto& a, const auto& b) { return a.path < b.path; });
  if (opt.format == "json") {
    tpf::tools::report_json(std::cout, results, totals.files, estimates);
  } else {
    tpf::tools::TextStyle style;
    style.color = !opt.no_color && std::getenv("NO_COLOR") == nullptr && stdout_is_terminal();
    style.quiet = opt.quiet;
    tpf::tools::report_text(std::cout, results, totals, style);
  }
  bool failing = false;
  for (const tpf::tools::FileDiagnostics& f : results)
    for (const tpf::Diagnostic& d : f.diags) failing |= at_or_above(d.severity, opt.fail_on);
  if (failing && rc == kExitOk) rc = kExitFindings;
  return rc;
}
