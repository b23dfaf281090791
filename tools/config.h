// The `[tool.tpf]` table of pyproject.toml: found by walking up from the
// analyzed path (the first pyproject.toml that has the table wins), or named
// with --config. Every key is checked; a bad one is an error naming the key
// and its file:line:col.
// requires: toml++. produces: Config.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "checks/registry.h"
#include "lexer/version.h"

namespace tpf::tools {

/// A pattern and the line it was written on (for messages).
struct ConfigGlob {
  std::string pattern;
  uint32_t line = 0;
};

/// How one script is run ([tool.tpf.scripts."train.py"]): its command line
/// and the estimate's settings, under tpf-analyze's own options.
struct ScriptRun {
  ConfigGlob glob;                        // the table's key: a path or glob, as exclude's
  std::vector<std::string> args;          // the script's arguments (as after `--`)
  std::optional<std::string> target;      // --target wins
  std::optional<std::string> dtype;       // --dtype wins
  std::optional<int64_t> batch_size, seq_len, world_size;  // the options win
};

struct Config {
  std::filesystem::path file;  // the file read; empty when none
  std::filesystem::path root;  // its directory: globs are relative to it
  std::optional<std::vector<std::string>> select;  // replaced by --select
  std::vector<std::string> ignore;                  // --ignore adds to it
  std::optional<std::string> fail_on;               // --fail-on wins
  std::optional<std::string> target;                // --target wins
  std::optional<std::string> torch_version;         // torch-version; --torch-version wins
  std::optional<bool> follow_imports;               // follow-imports; --no-follow-imports wins
  std::optional<PyVersion> target_version;          // target-version; --python-version wins
  std::string target_version_at;                    // "FILE:LINE:COL" of target-version
  std::optional<PyVersion> requires_python;         // [project] requires-python of the same file
  std::string requires_python_text;                 // its specifier, as written
  std::vector<std::pair<checks::RuleId, Severity>> severity;  // per-rule overrides
  std::vector<ConfigGlob> exclude;
  std::vector<std::pair<ConfigGlob, std::vector<std::string>>> per_file_ignores;
  std::vector<ScriptRun> scripts;  // the first that matches a file applies
};

/// The nearest pyproject.toml at or above `start` (a file or a directory)
/// with a [tool.tpf] table, or nullopt. A pyproject.toml that is not valid
/// TOML on the way is an error.
std::optional<std::filesystem::path> find_config(const std::filesystem::path& start,
                                                 std::string& error);

/// Reads [tool.tpf] of `file` into `out`. On a problem returns false with
/// `error` = "FILE:LINE:COL: message".
bool load_config(const std::filesystem::path& file, Config& out, std::string& error);

/// The lowest Python that the nearest pyproject.toml at or above `start`
/// admits in [project] requires-python (as Ruff reads it), with the file
/// and the specifier; nullopt when there is no such file or key, or the
/// specifier has no lower bound. Unreadable files are skipped.
struct RequiresPython {
  PyVersion version;
  std::filesystem::path file;
  std::string spec;
};
std::optional<RequiresPython> find_requires_python(const std::filesystem::path& start);

/// Whether `path` (as given on the command line) matches one of `globs`.
/// A pattern without `/` matches any component of the path (a file or a
/// folder name); one with `/` matches the path relative to the config's
/// folder, or any folder above the file. A match on a folder covers
/// everything in it.
bool matches_any(const Config& cfg, const std::vector<ConfigGlob>& globs, const std::string& path);

/// The [tool.tpf.scripts] entry for `path`, or null.
const ScriptRun* script_for(const Config& cfg, const std::string& path);

/// The rules for one file: `base` minus the file's per-file-ignores.
checks::RunOptions rules_for(const Config& cfg, const checks::RunOptions& base,
                             const std::string& path);

}  // namespace tpf::tools
