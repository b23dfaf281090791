// tpf-analyze: the command-line driver. Runs the pipeline as a straight list
// of stage calls per file (load, tokenize, parse, build IR, facts, rules,
// estimate), taps it after named stages (--dump-tokens, --dump-ast,
// --dump-ir, --dump-facts=NAME), and hands the findings to a reporter.
// Before the run it merges [tool.tpf] from pyproject.toml under the command
// line; files run in parallel (--jobs) and print in input order; inline
// suppressions filter each file's findings.
// Exit status: 0 nothing at or above --fail-on, 1 findings at or above it,
// 2 usage error, unreadable path or syntax error (the other files are still
// analyzed).
#include <unistd.h>

#include <boost/program_options.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "tools/allocator.h"
#include "tools/config.h"
#include "tools/fix.h"
#include "tools/inputs.h"
#include "tools/render.h"
#include "tools/report.h"
#include "tools/report_memory.h"
#include "tools/suppress.h"
#include "dataflow/project_facts.h"
#include "ir/project.h"
#include "memory/memory.h"
#include "targets/targets.h"

namespace po = boost::program_options;

namespace {

constexpr std::string_view kVersion = "0.1.0";
constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // findings at or above --fail-on
constexpr int kExitUsage = 2;     // usage error, unreadable path or syntax error

struct Options {
  // ---- inputs ----
  std::vector<std::string> paths;        // files, directories, `-` for stdin
  std::string stdin_filename = "<stdin>";
  int jobs = 0;                          // --jobs; 0: one thread per core
  // ---- configuration (pyproject.toml [tool.tpf]) ----
  std::string config;                    // --config FILE
  bool isolated = false;                 // --isolated: read no configuration
  // ---- output ----
  std::string format = "text";           // text | json | concise | github | sarif
  bool quiet = false;
  bool no_color = false;
  // ---- rules (checks/) ----
  std::vector<std::string> select, ignore;
  std::string fail_on = "error";         // error | warning | never
  bool report_unused_suppressions = false;
  bool fix = false;                      // --fix: apply the safe fixes in place
  bool diff = false;                     // --diff: print them as a unified diff
  std::string explain;
  bool list_rules = false;
  // ---- memory estimator (memory/): its options go here ----
  std::string target;
  bool list_targets = false;
  bool breakdown = false;
  bool fit = false;                      // --fit: judge the run on every GPU and instance
  std::string fit_sort = "size";         // --sort: size | price (the instance table)
  int64_t batch_size = 0, seq_len = 0, world_size = 0;  // 0: not given
  std::string dtype;
  std::vector<std::string> script_args;  // after `--`: the script's own command line
  std::optional<tpf::targets::Target> resolved_target;
  bool target_from_config = false;       // [tool.tpf] target, not --target
  // ---- stage dumps (ir/, dataflow/): print and skip the rules ----
  bool dump_tokens = false;
  bool dump_ast = false;
  bool dump_ir = false;
  std::string dump_facts;  // a dataflow::is_fact_name
  // ---- hidden ----
  bool verify_ir = false;  // --verify-ir: check the IR invariants (the tests and fuzzers do)
  // ---- project (ir/project.h) ----
  bool no_follow_imports = false;  // --no-follow-imports, or follow-imports = false
  // ---- language ----
  std::string python_version;          // --python-version as given
  tpf::PyVersion py = tpf::kNewestPy;  // resolved by finish_setup
  std::string py_from;                 // where `py` came from ("" for the default)

  bool dumping() const { return dump_tokens || dump_ast || dump_ir || !dump_facts.empty(); }
};

void add_output_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("format", po::value<std::string>(&opt.format)->default_value("text"),
       "output format: text, json, concise (one line each), github (Actions annotations) "
       "or sarif (SARIF 2.1.0, for code scanning)")
      ("quiet,q", po::bool_switch(&opt.quiet), "print only the diagnostic lines: no code frames, no summary")
      ("no-color", po::bool_switch(&opt.no_color), "never colour the output (colour is used only on a terminal)")
      ("stdin-filename", po::value<std::string>(&opt.stdin_filename),
       "the path to report for `-` (standard input)")
      ("jobs,j", po::value<int>(&opt.jobs)->default_value(0),
       "analyze this many files in parallel (default 0: one per core); the output order "
       "does not depend on it");
}

void add_config_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("config", po::value<std::string>(&opt.config),
       "read [tool.tpf] from this file for every input, instead of the nearest "
       "pyproject.toml above each file")
      ("isolated", po::bool_switch(&opt.isolated), "read no configuration file")
      ("no-follow-imports", po::bool_switch(&opt.no_follow_imports),
       "analyze each file alone: do not read the modules it imports from its own project "
       "(default: follow them; [tool.tpf] follow-imports = false does the same)")
      ("python-version", po::value<std::string>(&opt.python_version),
       "read files as this Python (3.8 ... 3.13): newer syntax is a syntax error with that "
       "version's message (default: [tool.tpf] target-version, else the lowest version that "
       "requires-python in pyproject.toml admits, else 3.13)");
}

void add_rule_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("select", po::value<std::vector<std::string>>(&opt.select)->composing(),
       "rules to run: codes, code prefixes or names, comma-separated (default: all)")
      ("ignore", po::value<std::vector<std::string>>(&opt.ignore)->composing(),
       "rules not to run, as for --select")
      ("fail-on", po::value<std::string>(&opt.fail_on)->default_value("error"),
       "exit 1 on findings at or above: error, warning or never")
      ("report-unused-suppressions", po::bool_switch(&opt.report_unused_suppressions),
       "warn about `# tpf: ignore[...]` / `# noqa: TPF...` comments that suppress nothing")
      ("fix", po::bool_switch(&opt.fix),
       "apply the safe fixes (TPF001, TPF003, TPF004, TPF006, TPF007, TPF014, TPF015, TPF016, TPF019) "
       "to the files in place, "
       "then report what remains; for `-`, print the fixed source on stdout")
      ("diff", po::bool_switch(&opt.diff),
       "print the safe fixes as a unified diff and change nothing; exit 1 when there is one")
      ("explain", po::value<std::string>(&opt.explain), "print the write-up of a rule (code or name) and exit")
      ("list-rules", po::bool_switch(&opt.list_rules), "list every rule and exit");
}

// The memory estimator's options (--target, --list-targets, --breakdown,
// --fit, --sort, --batch-size, --seq-len, --dtype, --world-size) are added here.
void add_estimator_options(po::options_description& d, Options& opt) {
  d.add_options()
      ("target", po::value<std::string>(&opt.target), "GPU to estimate peak VRAM for (e.g. h100)")
      ("list-targets", po::bool_switch(&opt.list_targets), "list the GPUs and cloud instances --target accepts")
      ("breakdown", po::bool_switch(&opt.breakdown), "add the per-layer activation table to the estimate")
      ("fit", po::bool_switch(&opt.fit),
       "estimate once and judge the run on every GPU and cloud instance: verdict as written and the "
       "smallest change that fits")
      ("sort", po::value<std::string>(&opt.fit_sort)->default_value("size"),
       "--fit's instance order: size (GPUs x memory) or price (indicative, dated)")
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
       "print dataflow facts: grad, calls, summaries, loops, resolve, objects, imports (the module "
       "graph: how each import was resolved) or all");
}

void print_help(const po::options_description& visible) {
  std::cout << "usage: tpf-analyze [options] PATH... [-- SCRIPT_ARGS...]\n\n"
               "Static analyzer for PyTorch training scripts: finds costly training bugs\n"
               "and estimates peak VRAM, without importing torch or running the script.\n"
               "PATH is a file, a directory (its .py files, recursively) or - for stdin.\n"
               "SCRIPT_ARGS, after `--`, are the script's own command line for the memory\n"
               "estimate: its argparse parser and sys.argv read them as `python PATH ...` would.\n\n"
            << visible
            << "\nexamples:\n"
               "  tpf-analyze train.py\n"
               "  tpf-analyze --fit train.py                # which GPU or instance it fits on\n"
               "  tpf-analyze --fit --sort price train.py   # instances cheapest first\n"
               "  tpf-analyze --select TPF003,TPF008 src/\n"
               "  tpf-analyze --format json --fail-on warning train.py\n"
               "  tpf-analyze --format concise -j 8 .\n"
               "  tpf-analyze --format github src/           # annotations in GitHub Actions\n"
               "  tpf-analyze --format sarif . > tpf.sarif   # for code scanning\n"
               "  tpf-analyze --config ci/tpf.toml src/\n"
               "  tpf-analyze --isolated train.py            # ignore pyproject.toml\n"
               "  tpf-analyze --report-unused-suppressions src/\n"
               "  tpf-analyze --diff train.py                # what --fix would change\n"
               "  tpf-analyze --fix src/\n"
               "  cat train.py | tpf-analyze --stdin-filename train.py -\n"
               "  tpf-analyze --explain TPF003\n"
               "  tpf-analyze --target h100 train.py\n"
               "  tpf-analyze --target a100 train.py -- --batch-size 64 --model gpt2-medium\n"
               "  tpf-analyze --dump-ast --format json train.py\n"
               "  tpf-analyze --python-version 3.11 src/    # 3.12+ syntax is an error\n"
               "\nconfiguration: [tool.tpf] in the nearest pyproject.toml above each file\n"
               "(keys select, ignore, fail_on, target, target-version, severity, exclude,\n"
               "per-file-ignores); the command line wins. Silence one line with\n"
               "`# tpf: ignore[TPF003]`, `# tpf: ignore` or `# noqa: TPF003`.\n"
               "\nexit status: 0 nothing at or above --fail-on, 1 findings at or above it\n"
               "(with --diff: 1 when there is a fix to apply), 2 usage error, unreadable\n"
               "path or syntax error\n";
}

/// The source of one input: read from disk, or from stdin for `-`.
/// Problems are reported on stderr (CPython style); returns null then.
std::unique_ptr<tpf::SourceFile> load(const std::string& path, const Options& opt,
                                      std::string stdin_bytes, std::ostream& es,
                                      std::vector<tpf::tools::InputError>& errors) {
  auto src = std::make_unique<tpf::SourceFile>();
  tpf::DiagSink diags;
  bool ok;
  std::string shown = path;
  if (path == "-") {
    shown = opt.stdin_filename;
    ok = tpf::lexer::make_source(shown, std::move(stdin_bytes), *src, diags);
  } else {
    ok = tpf::lexer::load_source(path, *src, diags);
  }
  if (!ok) {
    diags.sort();
    tpf::tools::render_diagnostics(es, *src, shown, diags);
    tpf::tools::append_input_errors(*src, shown, diags, errors);
    return nullptr;
  }
  return src;
}

/// The rules' findings on one file, after its inline suppressions, and
/// the suppressions (with what each silenced, for
/// --report-unused-suppressions).
struct RuleRun {
  std::vector<tpf::Diagnostic> findings;
  std::vector<tpf::tools::Suppression> sups;
};

/// The run's project state: every imported module loaded once and its
/// facts computed once, for all inputs and workers.
struct ProjectRun {
  explicit ProjectRun(tpf::ir::ProjectOptions o) : store(o) {}
  tpf::ir::ModuleStore store;
  tpf::dataflow::ProjectFacts facts{store};
};
/// The run's (set in main before any file is analyzed; thread-safe).
ProjectRun* g_project = nullptr;

/// One input's place in its project: its context and resolved imports.
struct FileProject {
  tpf::ir::ModuleContext ctx;
  std::vector<tpf::ir::ImportEdge> edges;
  tpf::dataflow::ProjectView view;
};

void file_project(FileProject& fp, ProjectRun& pr, const tpf::ast::Module& module, const tpf::SourceFile& src,
                  const std::string& path, const Options& opt) {
  fp.ctx = tpf::ir::script_context(path == "-" ? opt.stdin_filename : path, !opt.no_follow_imports);
  fp.edges = tpf::ir::scan_imports(module, src, fp.ctx);
  fp.view = tpf::dataflow::ProjectView{&pr.facts, &fp.ctx, &fp.edges};
}

/// The memory estimate (with --target or any estimator option), before
/// the rules: TPF013 and TPF024 read it.
std::optional<tpf::memory::Estimate> estimate_for(const tpf::ir::Module& ir, const std::string& path,
                                                  const Options& opt,
                                                  const tpf::dataflow::ProjectView* project) {
  if (opt.fit) return std::nullopt;  // fit_for judges every target instead
  if (!(opt.resolved_target || opt.breakdown || opt.batch_size || opt.seq_len || !opt.dtype.empty() ||
        opt.world_size || !opt.script_args.empty()))
    return std::nullopt;
  tpf::memory::EstimateOptions eo;
  eo.target = opt.resolved_target;
  if (opt.batch_size) eo.batch_size = opt.batch_size;
  if (opt.seq_len) eo.seq_len = opt.seq_len;
  if (opt.world_size) eo.world_size = opt.world_size;
  if (!opt.dtype.empty()) eo.dtype = tpf::memory::parse_dtype(opt.dtype);
  eo.argv = opt.script_args;
  eo.project = project;
  std::optional<tpf::memory::Estimate> est = tpf::memory::estimate(ir, eo);
  est->path = path;
  return est;
}

/// --fit: the run judged on every target (the estimate of estimate_for is
/// not made then: --fit names no target).
std::optional<tpf::memory::Fit> fit_for(const tpf::ir::Module& ir, const std::string& path, const Options& opt,
                                        const tpf::dataflow::ProjectView* project) {
  if (!opt.fit) return std::nullopt;
  tpf::memory::EstimateOptions eo;
  if (opt.batch_size) eo.batch_size = opt.batch_size;
  if (opt.seq_len) eo.seq_len = opt.seq_len;
  if (!opt.dtype.empty()) eo.dtype = tpf::memory::parse_dtype(opt.dtype);
  eo.argv = opt.script_args;
  eo.project = project;
  tpf::memory::Fit fit = tpf::memory::compute_fit(ir, eo);
  fit.estimate.path = path;
  return fit;
}

RuleRun rule_findings(const tpf::SourceFile& src, const std::vector<tpf::Span>& comments,
                      const tpf::ast::Module& module, const tpf::ir::Module& ir,
                      const tpf::dataflow::FileFacts& facts,
                      const std::optional<tpf::memory::Estimate>& est, const Options& opt,
                      const tpf::checks::RunOptions& rules) {
  tpf::checks::CheckContext ctx{src, module, ir, facts};
  if (est && opt.resolved_target) ctx.estimate = &*est;
  RuleRun run;
  run.findings = tpf::checks::run_checks(ctx, rules);
  run.sups = tpf::tools::parse_suppressions(src, comments);
  tpf::tools::apply_suppressions(src, run.sups, run.findings);
  return run;
}

/// A syntax error under an older --python-version that the newest grammar
/// accepts: says so, and where the version came from.
void explain_version(const tpf::SourceFile& src, const Options& opt, tpf::DiagSink& diags) {
  if (opt.py == tpf::kNewestPy || diags.diagnostics().empty()) return;
  tpf::DiagSink newest;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, newest, tpf::kNewestPy);
  if (newest.has_errors()) return;
  tpf::parser::parse(src, toks, newest, tpf::kNewestPy);
  if (newest.has_errors()) return;
  diags.sort();
  tpf::Diagnostic note;
  note.code = "note";
  note.severity = tpf::Severity::Note;
  note.span = diags.diagnostics().front().span;
  note.message = "Python " + tpf::kNewestPy.str() + " accepts this file; it is read as Python " +
                 opt.py.str() + " (" + opt.py_from +
                 "); a newer --python-version or [tool.tpf] target-version reads it";
  // Kept after the error: the sink orders by offset, then code.
  diags.report(std::move(note));
}

/// The whole pipeline again on a fixed source (no dumps). False on a
/// syntax error.
bool recheck(const tpf::SourceFile& src, const std::string& path, const Options& opt,
             const tpf::checks::RunOptions& rules, RuleRun& run,
             std::optional<tpf::memory::Estimate>& est) {
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags, opt.py);
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags, opt.py);
  if (diags.has_errors()) return false;
  // The AST holds what the later stages need of the tokens; only the
  // comments (suppressions) stay. A 22 MB file's tokens are 120 MB.
  std::vector<tpf::lexer::Token>().swap(toks.tokens);
  tpf::ir::Module ir = tpf::ir::build(module, src, diags, opt.verify_ir);
  FileProject fp;
  file_project(fp, *g_project, module, src, path, opt);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir, &fp.view);
  est = estimate_for(ir, path, opt, &fp.view);
  run = rule_findings(src, toks.comments, module, ir, facts, est, opt, rules);
  return true;
}

/// What --fix / --diff did to one file.
struct FixOutcome {
  std::unique_ptr<tpf::SourceFile> src;  // the fixed source (--fix), else null
  size_t fixed = 0;                      // findings the fixes removed
  size_t would_fix = 0;                  // --diff: findings the diff fixes
  bool stdin_input = false;              // the file is `-`: --fix prints the source on stdout
  bool write_failed = false;             // --fix could not replace the file (exit 2)
};

/// The fixes of `run`'s findings that survive re-analysis: the fixed source
/// parses, and for every code fixed, at least as many findings are gone as
/// fixes were applied. Tries all together first, then each alone, then the
/// ones that passed alone together. Empty `applied` when none survives;
/// otherwise `after` and `est` hold the analysis of the returned text.
tpf::tools::FixResult verified_fixes(const tpf::SourceFile& src, std::string_view prefix,
                                     const std::string& path, const Options& opt,
                                     const tpf::checks::RunOptions& rules, const RuleRun& before,
                                     RuleRun& after, std::optional<tpf::memory::Estimate>& est) {
  const std::vector<tpf::Diagnostic>& diags = before.findings;
  auto passes = [&](const tpf::tools::FixResult& fr) {
    if (fr.applied.empty()) return false;
    tpf::SourceFile fixed;
    tpf::DiagSink d;
    if (!tpf::lexer::make_source(src.path, std::string(prefix) + fr.text, fixed, d)) return false;
    if (!recheck(fixed, path, opt, rules, after, est)) return false;
    std::map<std::string, long> left;
    for (const tpf::Diagnostic& x : diags) ++left[x.code];
    for (size_t i : fr.applied) --left[diags[i].code];
    for (const tpf::Diagnostic& x : after.findings)
      if (left.count(x.code) && --left[x.code] < 0) return false;
    return true;
  };
  tpf::tools::FixResult fr = tpf::tools::apply_fixes(src.text, diags, {});  // all of them
  if (passes(fr)) return fr;
  std::vector<bool> good(diags.size(), false);
  for (size_t i = 0; i < diags.size(); ++i) {
    if (!diags[i].fix) continue;
    std::vector<bool> one(diags.size(), false);
    one[i] = true;
    good[i] = passes(tpf::tools::apply_fixes(src.text, diags, one));
  }
  fr = tpf::tools::apply_fixes(src.text, diags, good);
  if (passes(fr)) return fr;
  return {};
}

/// --fix / --diff on one file whose findings `run` holds. --diff prints
/// the unified diff on `os`; --fix writes the file (for `-`: prints the
/// source on `os`) and replaces `run` with the findings of the fixed file.
void fix_file(const tpf::SourceFile& src, const std::string& path, const Options& opt,
              const tpf::checks::RunOptions& rules, RuleRun& run,
              std::optional<tpf::memory::Estimate>& est, FixOutcome& out, std::ostream& os,
              std::ostream& es) {
  bool any = false;
  for (const tpf::Diagnostic& d : run.findings) any |= d.fix.has_value();
  if (!any) return;
  // Edits index the decoded text: byte-exact on the file only when the
  // text is its bytes, or its bytes after a UTF-8 BOM.
  std::string_view prefix;
  std::string_view bytes = src.bytes;
  if (src.text.data() == src.bytes.data() && src.text.size() == src.bytes.size()) {
  } else if (bytes.size() == src.text.size() + 3 && bytes.starts_with("\xEF\xBB\xBF") &&
             bytes.substr(3) == src.text) {
    prefix = bytes.substr(0, 3);
  } else {
    es << path << ": note: not fixed: the file is decoded from its declared encoding, and "
                  "fixes are applied only to UTF-8 files\n";
    return;
  }
  RuleRun after;
  std::optional<tpf::memory::Estimate> est_after;
  tpf::tools::FixResult fr = verified_fixes(src, prefix, path, opt, rules, run, after, est_after);
  size_t offered = 0;
  for (const tpf::Diagnostic& d : run.findings) offered += d.fix.has_value();
  if (fr.applied.size() < offered)
    es << path << ": note: " << offered - fr.applied.size() << " of " << offered
       << " fixes not applied (they overlap another fix, or the result did not check out)\n";
  if (fr.applied.empty()) return;
  if (opt.diff) {
    os << tpf::tools::unified_diff(path, src.text, fr.edits);
    out.would_fix = fr.applied.size();
    return;
  }
  std::string fixed_bytes = std::string(prefix) + fr.text;
  if (out.stdin_input) {
    os << fixed_bytes;
  } else {
    if (std::string why = tpf::tools::replace_file(src.path, fixed_bytes); !why.empty()) {
      es << path << ": error: not fixed, the file is as it was: " << why << "\n";
      out.write_failed = true;
      return;
    }
  }
  out.src = std::make_unique<tpf::SourceFile>();
  tpf::DiagSink d;
  tpf::lexer::make_source(src.path, std::move(fixed_bytes), *out.src, d);
  // The verification analyzed these very bytes; findings and suppressions
  // hold offsets only, so they index the kept source as they are.
  run = std::move(after);
  est = std::move(est_after);
  out.fixed = fr.applied.size();
}

/// Runs the pipeline on one file. Returns false when the file could not be
/// analyzed (a syntax error, reported on `es`). In dump mode prints the
/// requested dumps to `os` and runs no rules. `os` and `es` are the file's
/// own buffers (files run in parallel; the driver prints them in order).
bool analyze_file(const tpf::SourceFile& src, const std::string& path, const Options& opt,
                  const tpf::checks::RunOptions& rules, std::vector<tpf::Diagnostic>& findings,
                  nlohmann::ordered_json& estimates, FixOutcome& fix, std::ostream& os,
                  std::ostream& es, std::vector<tpf::tools::InputError>& errors) {
  ProjectRun& pr = *g_project;
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags, opt.py);
  if (opt.dump_tokens) {
    std::string out;
    tpf::tools::dump_tokens(src, toks, out);
    os << out;
  }
  if (opt.dump_tokens && !opt.dump_ast) {
    if (diags.has_errors()) {
      tpf::tools::render_diagnostics(es, src, path, diags);
      tpf::tools::append_input_errors(src, path, diags, errors);
      return false;
    }
    return true;
  }
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags, opt.py);
  if (diags.has_errors()) {
    explain_version(src, opt, diags);
    tpf::tools::render_diagnostics(es, src, path, diags);
    tpf::tools::append_input_errors(src, path, diags, errors);
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
    os << out;
  }
  if (opt.dumping() && !opt.dump_ir && opt.dump_facts.empty()) return true;

  // The AST holds what the later stages need of the tokens; only the
  // comments (suppressions) stay. A 22 MB file's tokens are 120 MB.
  std::vector<tpf::lexer::Token>().swap(toks.tokens);
  tpf::ir::Module ir = tpf::ir::build(module, src, diags, opt.verify_ir);
  FileProject fp;
  file_project(fp, pr, module, src, path, opt);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir, &fp.view);
  if (opt.dump_ir || !opt.dump_facts.empty()) {
    std::string out;
    if (opt.dump_ir) tpf::ir::print(ir, out, &facts.res);
    if (!opt.dump_facts.empty() && opt.dump_facts != "imports")
      tpf::dataflow::dump_facts(ir, facts, opt.dump_facts, out);
    if (opt.dump_facts == "imports" || opt.dump_facts == "all") {
      if (opt.dump_facts == "all") out += "== imports ==\n";
      tpf::ir::dump_imports(pr.store, fp.ctx, src, fp.edges, out);
    }
    os << out;
    return true;
  }

  std::optional<tpf::memory::Estimate> est = estimate_for(ir, path, opt, &fp.view);
  std::optional<tpf::memory::Fit> fit = fit_for(ir, path, opt, &fp.view);
  RuleRun run = rule_findings(src, toks.comments, module, ir, facts, est, opt, rules);
  if ((opt.fix || opt.diff) && !run.findings.empty()) fix_file(src, path, opt, rules, run, est, fix, os, es);
  findings = std::move(run.findings);
  if (opt.report_unused_suppressions) {
    std::vector<tpf::Diagnostic> unused = tpf::tools::unused_suppressions(run.sups, rules);
    findings.insert(findings.end(), unused.begin(), unused.end());
    std::stable_sort(findings.begin(), findings.end(), [](const auto& a, const auto& b) {
      return std::tie(a.span.begin, a.code) < std::tie(b.span.begin, b.code);
    });
  }

  if (fit && !opt.diff) {
    const auto order = opt.fit_sort == "price" ? tpf::tools::FitOrder::Price : tpf::tools::FitOrder::Size;
    if (opt.format == "json") estimates.push_back(tpf::tools::fit_json(*fit, order));
    else if (opt.format == "text" || opt.format == "concise") tpf::tools::render_fit(os, *fit, order);
    else tpf::tools::render_fit(es, *fit, order);
  } else if (est && !opt.diff) {
    if (opt.format == "json") estimates.push_back(tpf::tools::estimate_json(*est));
    // Machine formats keep stdout parseable: the text estimate goes to stderr.
    else if ((opt.format == "text" || opt.format == "concise") && !(opt.fix && fix.stdin_input))
      tpf::tools::render_estimate(os, *est, {opt.breakdown, true});
    else tpf::tools::render_estimate(es, *est, {opt.breakdown, true});
  }
  return true;
}

struct Setup;

/// One input's run: filled by a worker thread, read by the driver in order.
struct FileRun {
  std::string path;   // as given (`-` for stdin)
  std::string shown;  // as reported
  const Setup* setup = nullptr;   // the file's options and configuration
  std::unique_ptr<Options> own;   // the setup's, with its [tool.tpf.scripts] entry applied
  tpf::checks::RunOptions rules;  // the run's, minus this file's per-file-ignores
  std::unique_ptr<tpf::SourceFile> src;  // kept only while findings need it (code frames)
  bool loaded = false;  // the file was read and decoded
  bool ok = false;      // and analyzed
  std::vector<tpf::Diagnostic> findings;
  FixOutcome fix;
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  std::ostringstream out, err;
  std::vector<tpf::tools::InputError> input_errors;  // why it was not analyzed (machine formats)
};

/// Runs `fn` on every element, on `jobs` threads (0: one per core). Each
/// element is touched by one thread only; the passes share no mutable state.
template <typename F>
void run_parallel(std::vector<FileRun>& runs, int jobs, F fn) {
  size_t n = jobs > 0 ? static_cast<size_t>(jobs) : std::max(1u, std::thread::hardware_concurrency());
  n = std::min(n, runs.size());
  if (n <= 1) {
    for (FileRun& r : runs) fn(r);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  for (size_t t = 0; t < n; ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next.fetch_add(1)) < runs.size();) fn(runs[i]);
    });
  for (std::thread& t : pool) t.join();
}

/// A script's [tool.tpf.scripts] entry over the run's options: its
/// arguments when none follow `--`, its target over [tool.tpf]'s (never over
/// --target), its estimator settings where the command line gives none.
/// The entry's target was checked when the configuration was read.
std::unique_ptr<Options> script_options(const Options& base, const tpf::tools::ScriptRun& sr) {
  auto o = std::make_unique<Options>(base);
  if (o->script_args.empty()) o->script_args = sr.args;
  if (sr.target && (o->target.empty() || o->target_from_config)) {
    tpf::targets::LookupResult t = tpf::targets::lookup_target(*sr.target);
    if (t.ok()) o->target = *sr.target, o->resolved_target = *t.target;
  }
  if (sr.dtype && o->dtype.empty()) o->dtype = *sr.dtype;
  if (sr.batch_size && !o->batch_size) o->batch_size = *sr.batch_size;
  if (sr.seq_len && !o->seq_len) o->seq_len = *sr.seq_len;
  if (sr.world_size && !o->world_size) o->world_size = *sr.world_size;
  return o;
}

/// Merges [tool.tpf] into `opt` under the command line: --select replaces
/// its select, --ignore adds to its ignore, --fail-on and --target win.
void merge_config(Options& opt, const po::variables_map& vm, const tpf::tools::Config& cfg) {
  if (cfg.select && opt.select.empty()) opt.select = *cfg.select;
  opt.ignore.insert(opt.ignore.begin(), cfg.ignore.begin(), cfg.ignore.end());
  if (cfg.fail_on && vm["fail-on"].defaulted()) opt.fail_on = *cfg.fail_on;
  if (cfg.target && opt.target.empty()) opt.target = *cfg.target, opt.target_from_config = true;
  if (cfg.follow_imports && !*cfg.follow_imports) opt.no_follow_imports = true;
}

/// Finds and reads the configuration of the run (unless --isolated: the one
/// --config names, else the nearest above the first PATH) and merges it
/// into `opt` under the command line. Errors go to stderr; returns false
/// then.
bool apply_config(Options& opt, const po::variables_map& vm, tpf::tools::Config& cfg) {
  if (opt.isolated && !opt.config.empty()) {
    std::cerr << "tpf-analyze: error: --config and --isolated exclude each other\n";
    return false;
  }
  if (opt.isolated || vm.count("help") || opt.list_rules || !opt.explain.empty() ||
      opt.list_targets)
    return true;
  std::string error;
  std::optional<std::filesystem::path> file;
  if (!opt.config.empty()) {
    file = opt.config;
  } else {
    // From the first PATH (for `-`, the --stdin-filename), else the
    // working directory.
    std::string start = ".";
    for (const std::string& p : opt.paths) {
      if (p == "-" && !vm["stdin-filename"].defaulted()) start = opt.stdin_filename;
      else if (p != "-") start = p;
      else continue;
      break;
    }
    file = tpf::tools::find_config(start, error);
    if (!error.empty()) {
      std::cerr << "tpf-analyze: error: " << error << "\n";
      return false;
    }
  }
  if (!file) return true;
  if (!tpf::tools::load_config(*file, cfg, error)) {
    std::cerr << "tpf-analyze: error: " << error << "\n";
    return false;
  }
  merge_config(opt, vm, cfg);
  return true;
}

/// The settings files under one configuration run with: the command line
/// merged over that [tool.tpf] (or over none), the target resolved, the
/// rules selected.
struct Setup {
  Options opt;
  tpf::tools::Config cfg;
  tpf::checks::RunOptions run;
};

/// Resolves `s.opt`'s target and selects its rules (with the config's
/// severity overrides). On a problem returns false with `error` set.
bool finish_setup(Setup& s, std::string& error, std::vector<std::string>& notes) {
  if (!s.opt.python_version.empty()) {
    std::optional<tpf::PyVersion> v = tpf::parse_py_version(s.opt.python_version);
    if (!v) {
      error = "unknown --python-version '" + s.opt.python_version +
              "' (expected 3.8 to 3.13, as 3.12 or py312)";
      return false;
    }
    s.opt.py = *v;
    s.opt.py_from = "--python-version " + v->str();
  } else if (s.cfg.target_version) {
    s.opt.py = *s.cfg.target_version;
    s.opt.py_from = "target-version = \"" + s.opt.py.str() + "\" at " + s.cfg.target_version_at;
  } else if (s.cfg.requires_python) {
    s.opt.py = *s.cfg.requires_python;
    s.opt.py_from = "requires-python = \"" + s.cfg.requires_python_text + "\" in " + s.cfg.file.string();
  } else if (s.cfg.file.empty() && !s.opt.isolated) {
    std::string start = ".";
    for (const std::string& p : s.opt.paths) {
      if (p == "-" && !s.opt.stdin_filename.empty()) start = s.opt.stdin_filename;
      else if (p != "-") start = p;
      else continue;
      break;
    }
    if (std::optional<tpf::tools::RequiresPython> rp = tpf::tools::find_requires_python(start)) {
      s.opt.py = rp->version;
      s.opt.py_from = "requires-python = \"" + rp->spec + "\" in " + rp->file.string();
    }
  }
  if (!s.opt.target.empty()) {
    tpf::targets::LookupResult t = tpf::targets::lookup_target(s.opt.target);
    if (!t.ok()) {
      error = t.error.message() + " (see --list-targets)";
      if (!s.cfg.file.empty()) error += "; the target is from " + s.cfg.file.string();
      return false;
    }
    s.opt.resolved_target = *t.target;
  }
  if (s.opt.fail_on != "error" && s.opt.fail_on != "warning" && s.opt.fail_on != "never") {
    error = "unknown --fail-on '" + s.opt.fail_on + "' (expected error, warning or never)";
    return false;
  }
  if (!tpf::checks::select_rules(s.opt.select, s.opt.ignore, s.run, error, notes)) {
    if (!s.cfg.file.empty()) error += " (with " + s.cfg.file.string() + ")";
    return false;
  }
  for (const auto& [id, level] : s.cfg.severity) s.run.severity[static_cast<size_t>(id)] = level;
  return true;
}

/// Which Setup each file gets: with --config or --isolated, the one of the
/// run; otherwise the nearest pyproject.toml with [tool.tpf] above the file
/// (each read once; looked up once per folder), or the command line alone
/// when there is none.
class Setups {
 public:
  Setups(const Options& cli, const po::variables_map& vm, std::unique_ptr<Setup> base)
      : cli_(cli), vm_(vm), fixed_(cli.isolated || !cli.config.empty()) {
    base_ = base.get();
    if (!base->cfg.file.empty()) by_file_[base->cfg.file.string()] = base.get();
    all_.push_back(std::move(base));
  }

  /// The setup for `path` (as given), or null after printing why a
  /// configuration could not be used.
  const Setup* for_file(const std::string& path, std::ostream& es) {
    if (fixed_ || path == "-") return base_;
    std::filesystem::path dir = std::filesystem::path(path).parent_path();
    if (dir.empty()) dir = ".";
    std::string key = dir.string();
    auto hit = by_dir_.find(key);
    if (hit != by_dir_.end()) return hit->second;
    const Setup* s = lookup(dir, es);
    by_dir_[key] = s;
    return s;
  }

 private:
  const Setup* lookup(const std::filesystem::path& dir, std::ostream& es) {
    std::string error;
    std::optional<std::filesystem::path> file = tpf::tools::find_config(dir, error);
    if (!error.empty()) {
      es << "tpf-analyze: error: " << error << "\n";
      return nullptr;
    }
    std::string name = file ? file->string() : std::string();
    if (name.empty() && base_->cfg.file.empty()) return base_;
    auto it = by_file_.find(name);
    if (it != by_file_.end()) return it->second;
    auto s = std::make_unique<Setup>();
    s->opt = cli_;
    if (file) {
      if (!tpf::tools::load_config(*file, s->cfg, error)) {
        es << "tpf-analyze: error: " << error << "\n";
        by_file_[name] = nullptr;
        return nullptr;
      }
      merge_config(s->opt, vm_, s->cfg);
    }
    std::vector<std::string> notes;
    if (!finish_setup(*s, error, notes)) {
      es << "tpf-analyze: error: " << error << "\n";
      by_file_[name] = nullptr;
      return nullptr;
    }
    const Setup* out = s.get();
    by_file_[name] = out;
    all_.push_back(std::move(s));
    return out;
  }

  const Options& cli_;
  const po::variables_map& vm_;
  bool fixed_;
  const Setup* base_ = nullptr;
  std::vector<std::unique_ptr<Setup>> all_;
  std::map<std::string, const Setup*> by_file_;  // config file ("" none) -> setup
  std::map<std::string, const Setup*> by_dir_;   // folder -> setup
};

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
  po::options_description output("output"), config("configuration"), rules("rules"),
      estimator("memory estimate"),
      dumps("stage dumps (print, run no rules)");
  add_output_options(output, opt);
  add_config_options(config, opt);
  add_rule_options(rules, opt);
  add_estimator_options(estimator, opt);
  add_dump_options(dumps, opt);
  po::options_description visible;
  visible.add(general).add(output).add(config).add(rules).add(estimator).add(dumps);
  po::options_description hidden;
  hidden.add_options()("path", po::value<std::vector<std::string>>(&opt.paths))(
      "verify-ir", po::bool_switch(&opt.verify_ir), "check the IR invariants of every function");
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("path", -1);

  // Everything after the first `--` is the script's own command line
  // (what `python train.py ...` would get), never tpf-analyze's.
  int own_argc = argc;
  for (int k = 1; k < argc; ++k) {
    if (std::string_view(argv[k]) != "--") continue;
    own_argc = k;
    opt.script_args.assign(argv + k + 1, argv + argc);
    break;
  }
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(own_argc, argv).options(all).positional(pos).run(), vm);
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
    std::cout << "tpf-analyze " << kVersion << " (" << tpf::tools::allocator_name() << ")\n";
    return kExitOk;
  }
  // pyproject.toml [tool.tpf]: the command line wins over it (--select
  // replaces its select, --ignore adds to its ignore).
  const Options cli = opt;  // before any configuration: per-file setups start from it
  tpf::tools::Config cfg;
  if (!apply_config(opt, vm, cfg)) return kExitUsage;

  if (opt.format != "text" && opt.format != "json" && opt.format != "concise" &&
      opt.format != "github" && opt.format != "sarif") {
    std::cerr << "tpf-analyze: error: unknown --format '" << opt.format
              << "' (expected text, json, concise, github or sarif)\n";
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
  if (opt.fit_sort != "size" && opt.fit_sort != "price") {
    std::cerr << "tpf-analyze: error: unknown --sort '" << opt.fit_sort << "' (expected size or price)\n";
    return kExitUsage;
  }
  if (opt.fit && (!opt.target.empty() && !opt.target_from_config)) {
    std::cerr << "tpf-analyze: error: --fit judges every target: drop --target " << opt.target << "\n";
    return kExitUsage;
  }
  if (!opt.dtype.empty() && !tpf::memory::parse_dtype(opt.dtype)) {
    std::cerr << "tpf-analyze: error: unknown --dtype '" << opt.dtype << "' (expected fp32, bf16 or fp16)\n";
    return kExitUsage;
  }
  if (opt.jobs < 0) {
    std::cerr << "tpf-analyze: error: --jobs must be 0 (one per core) or more\n";
    return kExitUsage;
  }
  for (const char* name : {"batch-size", "seq-len", "world-size"})
    if (vm.count(name) && vm[name].as<int64_t>() <= 0) {
      std::cerr << "tpf-analyze: error: --" << name << " must be a positive integer, not "
                << vm[name].as<int64_t>() << "\n";
      return kExitUsage;
    }

  auto base = std::make_unique<Setup>();
  base->opt = opt;
  base->cfg = cfg;
  {
    std::string error;
    std::vector<std::string> notes;
    if (!finish_setup(*base, error, notes)) {
      std::cerr << "tpf-analyze: error: " << error << "\n";
      return kExitUsage;
    }
    for (const std::string& n : notes) std::cerr << "tpf-analyze: note: " << n << "\n";
  }
  opt.resolved_target = base->opt.resolved_target;
  opt.py = base->opt.py;
  Setups setups(cli, vm, std::move(base));
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
  std::vector<tpf::tools::InputError> input_errors;  // for the machine formats
  for (const tpf::tools::InputProblem& p : inputs.problems) {
    std::cerr << tpf::tools::printable(p.path) << ": error: " << p.message << "\n";
    input_errors.push_back({p.path, "OSError", p.message});
    rc = kExitUsage;
  }
  for (const tpf::tools::InputProblem& p : inputs.notes)
    std::cerr << tpf::tools::printable(p.path) << ": note: " << p.message << "\n";
  // Each file with the setup of its nearest configuration; its `exclude`
  // drops it.
  std::vector<std::pair<std::string, const Setup*>> files;
  if (read_stdin) files.emplace_back("-", setups.for_file("-", std::cerr));
  for (const std::string& f : inputs.files) {
    const Setup* s = setups.for_file(f, std::cerr);
    if (!s) {
      rc = kExitUsage;
      continue;
    }
    if (!tpf::tools::matches_any(s->cfg, s->cfg.exclude, f)) files.emplace_back(f, s);
  }

  // Files are analyzed in parallel (--jobs); each writes into its own
  // buffers, printed here in input order, so the output does not depend on
  // the thread count. Sources are kept only for files with findings (the
  // code frames need them).
  std::string stdin_bytes;
  if (read_stdin)
    stdin_bytes.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::vector<FileRun> runs(files.size());
  tpf::ir::ProjectOptions project_options;
  project_options.python = opt.py;  // imported modules are read as the run's Python
  ProjectRun project(project_options);
  g_project = &project;
  for (size_t i = 0; i < files.size(); ++i) {
    runs[i].path = files[i].first;
    runs[i].setup = files[i].second;
    runs[i].shown = runs[i].path == "-" ? opt.stdin_filename : runs[i].path;
    runs[i].rules = tpf::tools::rules_for(runs[i].setup->cfg, runs[i].setup->run, runs[i].shown);
    if (const tpf::tools::ScriptRun* sr = tpf::tools::script_for(runs[i].setup->cfg, runs[i].shown))
      runs[i].own = script_options(runs[i].setup->opt, *sr);
  }
  auto analyze_one = [&](FileRun& r) {
    const Options& o = r.own ? *r.own : r.setup->opt;
    r.src = load(r.path, o, r.path == "-" ? stdin_bytes : std::string(), r.err, r.input_errors);
    r.fix.stdin_input = r.path == "-";
    r.loaded = r.src != nullptr;
    if (r.src)
      r.ok = analyze_file(*r.src, r.shown, o, r.rules, r.findings, r.estimates, r.fix, r.out, r.err,
                          r.input_errors);
    if (r.fix.src) r.src = std::move(r.fix.src);  // the findings index the fixed file
    // `--fix -` is a filter: it prints the file, fixed or as it came (nothing
    // to fix, a syntax error, an encoding it does not rewrite).
    if (o.fix && !o.diff && r.fix.stdin_input && r.fix.fixed == 0) r.out << stdin_bytes;
    // A file without findings needs its bytes no more: release them now,
    // so a run's memory is one file's, not the whole tree's.
    if (r.findings.empty()) r.src.reset();
  };
  run_parallel(runs, opt.jobs, analyze_one);

  std::vector<std::unique_ptr<tpf::SourceFile>> kept;
  std::vector<tpf::tools::FileDiagnostics> results;
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  tpf::tools::Totals totals;
  size_t would_fix = 0, files_to_fix = 0;
  bool failing = false;
  for (FileRun& r : runs) {
    std::cout << r.out.str();
    std::cerr << r.err.str();
    for (auto& e : r.estimates) estimates.push_back(std::move(e));
    for (auto& e : r.input_errors) input_errors.push_back(std::move(e));
    if (!r.loaded || !r.ok) {
      rc = kExitUsage;
      ++totals.not_analyzed;
      continue;
    }
    ++totals.files;
    if (r.fix.write_failed) rc = kExitUsage;
    totals.fixed += r.fix.fixed;
    would_fix += r.fix.would_fix;
    if (r.fix.would_fix) ++files_to_fix;
    for (const tpf::Diagnostic& d : r.findings) failing |= at_or_above(d.severity, r.setup->opt.fail_on);
    if (r.findings.empty()) continue;
    results.push_back({r.shown, r.src.get(), std::move(r.findings)});
    kept.push_back(std::move(r.src));
  }
  std::cout.flush();
  if (opt.dumping()) return rc;
  if (opt.diff) {
    // Only the diff on stdout (`patch -p0` applies it).
    if (would_fix)
      std::cerr << "tpf-analyze: --diff: would fix " << would_fix << (would_fix == 1 ? " problem" : " problems")
                << " in " << files_to_fix << (files_to_fix == 1 ? " file" : " files") << "\n";
    else
      std::cerr << "tpf-analyze: --diff: nothing to fix\n";
    return rc != kExitOk ? rc : would_fix ? kExitFindings : kExitOk;
  }
  // `--fix -` prints the fixed source on stdout: the report goes to stderr.
  std::ostream& report = opt.fix && read_stdin ? std::cerr : std::cout;

  std::stable_sort(results.begin(), results.end(),
                   [](const auto& a, const auto& b) { return a.path < b.path; });
  if (opt.format == "json") {
    tpf::tools::report_json(report, results, totals.files, estimates, input_errors);
  } else if (opt.format == "concise") {
    tpf::tools::report_concise(report, results);
  } else if (opt.format == "github") {
    tpf::tools::report_github(report, results, input_errors);
  } else if (opt.format == "sarif") {
    std::error_code ec;
    std::string root = std::filesystem::current_path(ec).string();
    tpf::tools::report_sarif(report, results, root, kVersion, input_errors);
  } else {
    tpf::tools::TextStyle style;
    style.color = !opt.no_color && std::getenv("NO_COLOR") == nullptr && stdout_is_terminal();
    style.quiet = opt.quiet;
    tpf::tools::report_text(report, results, totals, style);
  }
  if (failing && rc == kExitOk) rc = kExitFindings;
  return rc;
}
