// The analysis of one file as the CLI and the language server run it: the
// options a run takes, the pyproject.toml [tool.tpf] set-up each file gets
// (Setups), and analyze_file, the pipeline as a straight list of stage calls
// (load, tokenize, parse, IR, facts, estimate, rules, suppressions, fixes).
// tools/main.cpp drives it over the command line's paths, tools/server.cpp
// over the editor's open documents.
// requires: every stage. produces: findings, estimates, fixes per file.
#pragma once

#include <boost/program_options.hpp>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "checks/registry.h"
#include "dataflow/project_facts.h"
#include "ir/project.h"
#include "lexer/diag.h"
#include "lexer/source.h"
#include "lexer/version.h"
#include "memory/memory.h"
#include "memory/torch_version.h"
#include "targets/targets.h"
#include "tools/config.h"
#include "tools/report.h"
#include "tools/suppress.h"

namespace tpf::tools {

inline constexpr std::string_view kVersion = "0.1.0";

/// Everything one run is told: the command line, with [tool.tpf] merged in
/// by Setups.
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
  bool add_noqa = false;                 // --add-noqa: suppress every finding in place
  bool statistics = false;               // --statistics: counts per rule instead of the findings
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
  std::string generate;                  // --generate BATCHxTOKENS (validated in main)
  std::string torch_version;             // --torch-version X.Y or [tool.tpf] torch-version
  std::string torch_version_from;        // where torch_version came from (the note says)
  std::string timeline;                  // --timeline: "-" prints it, else the trace file to write
  std::vector<std::string> script_args;  // after `--`: the script's own command line
  std::optional<tpf::targets::Target> resolved_target;
  bool target_from_config = false;       // [tool.tpf] target, not --target
  // ---- stage dumps (ir/, dataflow/): print and skip the rules ----
  bool dump_tokens = false;
  bool dump_ast = false;
  bool dump_ir = false;
  std::string dump_facts;  // a dataflow::is_fact_name
  bool estimate = false;  // estimate even without --target or an estimator option (the server's hover)
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

/// The rules' findings on one file, after its inline suppressions, and
/// the suppressions (with what each silenced, for
/// --report-unused-suppressions).
struct RuleRun {
  std::vector<tpf::Diagnostic> findings;
  std::vector<tpf::tools::Suppression> sups;
  tpf::tools::CommentLines lines;  // where each line's suppression comment goes
};

/// The run's project state: every imported module loaded once and its
/// facts computed once, for all inputs and workers.
/// The torch release a file's project declares: the pins (requirements*.txt,
/// pyproject.toml, environment.yml) or, for the rules, the README's
/// statement, of the nearest folder that has one, from the file's folder up
/// to the repository's root (a .git) or five levels. Each folder is read
/// once, whichever file asks; safe to ask from the run's threads.
class DeclaredTorch {
 public:
  /// Pins: what the run installs (the estimator). PinsOrStatement: also
  /// the release the code says it was written for (the rules).
  enum Sources { Pins, PinsOrStatement };
  std::optional<tpf::memory::TorchPin> for_file(const std::string& path, Sources sources);

 private:
  struct Folder {
    std::optional<tpf::memory::TorchPin> pinned;
    std::optional<tpf::memory::TorchPin> stated;  // read only where nothing is pinned
    bool root = false;
  };
  const Folder& folder(const std::filesystem::path& dir);
  std::mutex mu_;
  std::map<std::string, Folder> by_dir_;
};

struct ProjectRun {
  explicit ProjectRun(tpf::ir::ProjectOptions o) : store(o) {}
  tpf::ir::ModuleStore store;
  tpf::dataflow::ProjectFacts facts{store};
  DeclaredTorch torch;
};


/// What --fix / --diff did to one file.
struct FixOutcome {
  std::unique_ptr<tpf::SourceFile> src;  // the fixed source (--fix), else null
  size_t fixed = 0;                      // findings the fixes removed
  size_t would_fix = 0;                  // --diff: findings the diff fixes
  bool stdin_input = false;              // the file is `-`: --fix prints the source on stdout
  bool write_failed = false;             // --fix / --add-noqa could not replace the file (exit 2)
  size_t noqa_codes = 0;                 // --add-noqa: codes added to suppressions
  size_t noqa_lines = 0;                 // --add-noqa: lines whose suppression comment it wrote
  std::vector<tpf::Edit> edits;          // --diff: the verified edits the diff shows
};

/// What the language server needs of a file beyond the CLI's outputs.
struct FileExtras {
  std::vector<tpf::Diagnostic> frontend;  // the load/syntax errors when analyze_file returns false
  std::vector<std::string> imports;       // the project module files the file imports
  std::optional<tpf::memory::Estimate> estimate;  // the memory estimate, when one was made
};

/// The source of one input: read from disk, or from stdin for `-`.
/// Problems are reported on `es` (CPython style); returns null then.
std::unique_ptr<tpf::SourceFile> load(const std::string& path, const Options& opt,
                                      std::string stdin_bytes, std::ostream& es,
                                      std::vector<tpf::tools::InputError>& errors);

/// Runs the pipeline on one file. Returns false when the file could not be
/// analyzed (a syntax error, reported on `es`, and in `extras` when given).
/// In dump mode prints the requested dumps to `os` and runs no rules. `os`
/// and `es` are the file's own buffers (files run in parallel; the driver
/// prints them in order). `pr` is shared by the run's files (thread-safe).
bool analyze_file(ProjectRun& pr, const tpf::SourceFile& src, const std::string& path, const Options& opt,
                  const tpf::checks::RunOptions& rules, std::vector<tpf::Diagnostic>& findings,
                  nlohmann::ordered_json& estimates, FixOutcome& fix, std::ostream& os,
                  std::ostream& es, std::vector<tpf::tools::InputError>& errors,
                  FileExtras* extras = nullptr);

/// The settings files under one configuration run with: the command line
/// merged over that [tool.tpf] (or over none), the target resolved, the
/// rules selected.
struct Setup {
  Options opt;
  tpf::tools::Config cfg;
  tpf::checks::RunOptions run;
};

/// A script's [tool.tpf.scripts] entry over the run's options: its
/// arguments when none follow `--`, its target over [tool.tpf]'s (never over
/// --target), its estimator settings where the command line gives none.
/// The entry's target was checked when the configuration was read.
std::unique_ptr<Options> script_options(const Options& base, const tpf::tools::ScriptRun& sr);

/// Merges [tool.tpf] into `opt` under the command line: --select replaces
/// its select, --ignore adds to its ignore, --fail-on and --target win.
void merge_config(Options& opt, const boost::program_options::variables_map& vm,
                  const tpf::tools::Config& cfg);

/// Resolves `s.opt`'s target and selects its rules (with the config's
/// severity overrides). On a problem returns false with `error` set.
bool finish_setup(Setup& s, std::string& error, std::vector<std::string>& notes);

/// Which Setup each file gets: with --config or --isolated, the one of the
/// run; otherwise the nearest pyproject.toml with [tool.tpf] above the file
/// (each read once; looked up once per folder), or the command line alone
/// when there is none.
class Setups {
 public:
  Setups(const Options& cli, const boost::program_options::variables_map& vm, std::unique_ptr<Setup> base)
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
  const boost::program_options::variables_map& vm_;
  bool fixed_;
  const Setup* base_ = nullptr;
  std::vector<std::unique_ptr<Setup>> all_;
  std::map<std::string, const Setup*> by_file_;  // config file ("" none) -> setup
  std::map<std::string, const Setup*> by_dir_;   // folder -> setup
};
}  // namespace tpf::tools
