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
#include "tools/add_noqa.h"
#include "tools/allocator.h"
#include "tools/config.h"
#include "tools/fix.h"
#include "tools/inputs.h"
#include "tools/pipeline.h"
#include "tools/render.h"
#include "tools/report.h"
#include "tools/report_memory.h"
#include "tools/server.h"
#include "tools/suppress.h"
#include "dataflow/project_facts.h"
#include "ir/project.h"
#include "memory/memory.h"
#include "targets/targets.h"

namespace po = boost::program_options;

namespace {

using tpf::tools::FixOutcome;
using tpf::tools::kVersion;
using tpf::tools::Options;
using tpf::tools::ProjectRun;
using tpf::tools::Setup;
using tpf::tools::Setups;

constexpr int kExitOk = 0;
constexpr int kExitFindings = 1;  // findings at or above --fail-on
constexpr int kExitUsage = 2;     // usage error, unreadable path or syntax error


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
      ("add-noqa", po::bool_switch(&opt.add_noqa),
       "suppress every current finding in place: add `# tpf: ignore[CODES]` to its line (or its "
       "codes to the suppression there) and report nothing else; for `-`, print the source on stdout")
      ("statistics", po::bool_switch(&opt.statistics),
       "print the number of findings per rule, most first, instead of the findings (text or json)")
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
// --fit, --sort, --batch-size, --seq-len, --dtype, --generate, --world-size) are added here.
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
      ("generate", po::value<std::string>(&opt.generate),
       "inference estimate for BATCHxTOKENS (this batch, this many new tokens: 8x2048) or "
       "BATCHxPROMPT+TOKENS (also the prompt's length in tokens: 1x64+500)")
      ("world-size", po::value<int64_t>(&opt.world_size), "estimate for this many data-parallel GPUs")
      ("torch-version", po::value<std::string>(&opt.torch_version),
       "the torch the run uses, X.Y, 0.1 to 2.x (default: the project's pins, else the current 2.x): "
       "zero_grad and optimizer defaults; the rules also read the README's \"PyTorch 0.3.1\" "
       "(volatile=True is no_grad before 0.4)")
      ("timeline", po::value<std::string>(&opt.timeline)->implicit_value("-"),
       "print the simulated step's memory timeline; --timeline=FILE.json writes it as a Chrome/Perfetto trace");
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
  std::cout << "usage: tpf-analyze [options] PATH... [-- SCRIPT_ARGS...]\n"
               "       tpf-analyze server [options]   (a language server on stdin/stdout: docs/editors.md)\n\n"
               "Static analyzer for PyTorch training scripts: finds costly training bugs\n"
               "and estimates peak VRAM, without importing torch or running the script.\n"
               "PATH is a file, a directory (its .py files, recursively) or - for stdin.\n"
               "SCRIPT_ARGS, after `--`, are the script's own command line for the memory\n"
               "estimate: its parser (argparse, HfArgumentParser, simple_parsing, click, fire,\n"
               "jsonargparse, hydra overrides) and sys.argv read them as `python PATH ...`\n"
               "would, e.g. `tpf-analyze --target a100 train.py -- --batch-size 64`.\n\n"
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
               "  tpf-analyze --add-noqa src/               # adopt: suppress what is there now\n"
               "  tpf-analyze --statistics .                # findings per rule\n"
               "  cat train.py | tpf-analyze --stdin-filename train.py -\n"
               "  tpf-analyze --explain TPF003\n"
               "  tpf-analyze --target h100 train.py\n"
               "  tpf-analyze --target l4 --generate 8x2048 generate.py   # inference: weights + KV cache\n"
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
  tpf::tools::merge_config(opt, vm, cfg);
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
  // `tpf-analyze server [OPTIONS]`: the language server (a file named
  // `server` is analyzed as ./server).
  std::vector<char*> args(argv, argv + argc);
  bool server = argc > 1 && std::string_view(argv[1]) == "server";
  if (server) args.erase(args.begin() + 1);
  // A bare --timeline prints the timeline: without this, the option's
  // implicit value would take the next word (the script's path) as its file.
  static char timeline_text[] = "--timeline=-";
  for (char*& a : args) {
    if (std::string_view(a) == "--") break;  // the script's own arguments are left alone
    if (std::string_view(a) == "--timeline") a = timeline_text;
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
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
  if (server) {
    if (!opt.paths.empty() || !opt.script_args.empty()) {
      std::cerr << "tpf-analyze: error: `tpf-analyze server` takes options, not paths "
                   "(the editor sends the documents)\n";
      return kExitUsage;
    }
    return tpf::tools::run_server(opt, vm);
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
  if (opt.add_noqa && (opt.fix || opt.diff || opt.statistics || opt.dumping())) {
    std::cerr << "tpf-analyze: error: --add-noqa cannot be combined with --fix, --diff, --statistics "
                 "or a stage dump\n";
    return kExitUsage;
  }
  if (opt.statistics && (opt.diff || (opt.format != "text" && opt.format != "concise" && opt.format != "json"))) {
    std::cerr << "tpf-analyze: error: --statistics prints text or json, and not with --diff\n";
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
  if (std::string why; !opt.generate.empty() && !tpf::memory::parse_generate(opt.generate, why)) {
    std::cerr << "tpf-analyze: error: " << why << "\n";
    return kExitUsage;
  }
  if (!opt.torch_version.empty() && !tpf::memory::parse_torch_version(opt.torch_version)) {
    std::cerr << "tpf-analyze: error: --torch-version '" << opt.torch_version << "' is no version (expected X.Y, as 1.13)\n";
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
    if (!tpf::tools::finish_setup(*base, error, notes)) {
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
  for (size_t i = 0; i < files.size(); ++i) {
    runs[i].path = files[i].first;
    runs[i].setup = files[i].second;
    runs[i].shown = runs[i].path == "-" ? opt.stdin_filename : runs[i].path;
    runs[i].rules = tpf::tools::rules_for(runs[i].setup->cfg, runs[i].setup->run, runs[i].shown);
    if (const tpf::tools::ScriptRun* sr = tpf::tools::script_for(runs[i].setup->cfg, runs[i].shown))
      runs[i].own = tpf::tools::script_options(runs[i].setup->opt, *sr);
  }
  auto analyze_one = [&](FileRun& r) {
    const Options& o = r.own ? *r.own : r.setup->opt;
    r.src = tpf::tools::load(r.path, o, r.path == "-" ? stdin_bytes : std::string(), r.err, r.input_errors);
    r.fix.stdin_input = r.path == "-";
    r.loaded = r.src != nullptr;
    // An internal error in one file's analysis is that file's error, never
    // the run's end: the other files are still analyzed and reported.
    if (r.src) try {
        r.ok = tpf::tools::analyze_file(project, *r.src, r.shown, o, r.rules, r.findings, r.estimates, r.fix, r.out,
                                        r.err, r.input_errors);
      } catch (const std::exception& e) {
        r.ok = false;
        r.findings.clear();
        std::string what = std::string("internal error while analyzing this file (") + e.what() +
                           "); please report it with the file";
        r.err << r.shown << ": error: " << what << "\n";
        r.input_errors.push_back({r.shown, "InternalError", what});
      }
    if (r.fix.src) r.src = std::move(r.fix.src);  // the findings index the fixed file
    // `--fix -` is a filter: it prints the file, fixed or as it came (nothing
    // to fix, a syntax error, an encoding it does not rewrite).
    if (o.fix && !o.diff && r.fix.stdin_input && r.fix.fixed == 0) r.out << stdin_bytes;
    if (o.add_noqa && r.fix.stdin_input && r.fix.noqa_lines == 0) r.out << stdin_bytes;
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
  size_t noqa_codes = 0, noqa_lines = 0, noqa_files = 0;
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
    noqa_codes += r.fix.noqa_codes;
    noqa_lines += r.fix.noqa_lines;
    noqa_files += r.fix.noqa_lines > 0;
    for (const tpf::Diagnostic& d : r.findings) failing |= at_or_above(d.severity, r.setup->opt.fail_on);
    if (r.findings.empty()) continue;
    results.push_back({r.shown, r.src.get(), std::move(r.findings)});
    kept.push_back(std::move(r.src));
  }
  std::cout.flush();
  if (opt.dumping()) return rc;
  if (opt.add_noqa) {
    tpf::tools::print_noqa_total(std::cerr, noqa_codes, noqa_lines, noqa_files);
    return rc;
  }
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
  if (opt.statistics) {
    if (opt.format == "json") tpf::tools::report_statistics_json(report, results, input_errors, totals.files);
    else tpf::tools::report_statistics_text(report, results, input_errors, totals);
  } else if (opt.format == "json") {
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
