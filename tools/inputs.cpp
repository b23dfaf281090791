// expand_inputs: command-line paths -> files. Directories are walked with
// std::filesystem; a directory already visited (by canonical path) is not
// entered again, so a symlink loop ends instead of recursing forever.
// .gitignore files are honoured as git reads them: those of the walked
// folders, and those above the walk up to the repository root (the folder
// holding `.git`); the last matching line wins, `!` re-includes.
#include "tools/inputs.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string_view>
#include <system_error>

#include "tools/glob.h"

namespace fs = std::filesystem;

namespace tpf::tools {
namespace {

/// Folders no user means to lint when they name a directory: hidden ones
/// (.git, .venv, .tox, caches) and ruff's default excludes.
bool skipped_dir(const std::string& name) {
  if (name.empty() || name[0] == '.') return true;
  static const char* const kSkip[] = {"__pycache__", "__pypackages__", "_build", "buck-out",
                                      "build", "dist", "node_modules", "site-packages", "venv"};
  return std::find(std::begin(kSkip), std::end(kSkip), name) != std::end(kSkip);
}

/// One line of a .gitignore file.
struct IgnoreRule {
  fs::path base;  // the folder of the .gitignore (absolute, normal)
  std::string pattern;
  bool negate = false;    // `!pattern`
  bool dir_only = false;  // `pattern/`
  bool anchored = false;  // has a `/` before its end: relative to `base`
};

/// A .gitignore larger than this is skipped with a note (git's own are
/// kilobytes; a bound keeps a symlink to /dev/zero or a huge file from
/// being read without end).
constexpr uintmax_t kMaxGitignoreBytes = 1u << 20;

void read_gitignore(const fs::path& dir, std::vector<IgnoreRule>& rules, std::vector<InputProblem>& notes) {
  fs::path file = dir / ".gitignore";
  std::error_code ec;
  fs::file_status st = fs::status(file, ec);
  if (ec || !fs::exists(st)) return;
  // A FIFO would block the run forever, a device read without end.
  if (!fs::is_regular_file(st)) {
    notes.push_back({file.string(), "not a regular file; its patterns are not applied"});
    return;
  }
  if (fs::file_size(file, ec) > kMaxGitignoreBytes || ec) {
    notes.push_back({file.string(), ec ? "cannot be read: " + ec.message() + "; its patterns are not applied"
                                       : "larger than 1 MiB; its patterns are not applied"});
    return;
  }
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Trailing blanks are dropped unless escaped (gitignore(5)).
    while (!line.empty() && line.back() == ' ' && !(line.size() > 1 && line[line.size() - 2] == '\\'))
      line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    IgnoreRule r;
    r.base = dir;
    std::string_view p = line;
    if (p[0] == '!') {
      r.negate = true;
      p.remove_prefix(1);
    } else if (p.starts_with("\\!") || p.starts_with("\\#")) {
      p.remove_prefix(1);
    }
    if (p.ends_with('/')) {
      r.dir_only = true;
      p.remove_suffix(1);
    }
    r.anchored = p.find('/') != std::string_view::npos;
    if (p.starts_with('/')) p.remove_prefix(1);
    if (p.empty()) continue;
    r.pattern = std::string(p);
    rules.push_back(std::move(r));
  }
}

/// Whether `path` (absolute, normal) is ignored by `rules`.
bool ignored(const std::vector<IgnoreRule>& rules, const fs::path& path, bool is_dir) {
  bool out = false;
  std::string name = path.filename().string();
  for (const IgnoreRule& r : rules) {
    if (r.dir_only && !is_dir) continue;
    bool hit;
    if (r.anchored) {
      fs::path rel = path.lexically_relative(r.base);
      if (rel.empty() || *rel.begin() == "..") continue;
      hit = glob_match(r.pattern, rel.generic_string());
    } else {
      hit = glob_match(r.pattern, name);
    }
    if (hit) out = !r.negate;
  }
  return out;
}

/// The .gitignore rules above `dir` that git would apply inside it: from the
/// repository root down to dir's parent. None outside a repository.
std::vector<IgnoreRule> rules_above(const fs::path& dir, std::vector<InputProblem>& notes) {
  std::error_code ec;
  if (fs::exists(dir / ".git", ec)) return {};  // the root itself: walk() reads it
  std::vector<fs::path> chain;
  for (fs::path d = dir;;) {
    if (!d.has_parent_path() || d.parent_path() == d) return {};  // not in a repository
    d = d.parent_path();
    chain.push_back(d);
    if (fs::exists(d / ".git", ec)) break;
  }
  std::vector<IgnoreRule> rules;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) read_gitignore(*it, rules, notes);
  return rules;
}

/// A virtual environment whatever its name: venv and virtualenv write
/// pyvenv.cfg at its top.
bool is_venv(const fs::path& dir) {
  std::error_code ec;
  return fs::exists(dir / "pyvenv.cfg", ec);
}

/// Whether `p` is `root` or inside it (both canonical).
bool inside(const fs::path& p, const fs::path& root) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q)
    if (q == p.end() || *q != *r) return false;
  return true;
}

/// Walks `dir`, a folder inside `root` (the canonical folder the command
/// line named): a symlink to a folder outside it is not followed (a link to
/// $HOME or / would pull in another tree), with a note.
void walk(const fs::path& dir, const fs::path& root, std::set<fs::path>& seen,
          std::vector<IgnoreRule> rules, Inputs& out) {
  std::error_code ec;
  fs::path canon = fs::canonical(dir, ec);
  if (ec || !seen.insert(canon).second) return;
  fs::path abs = fs::absolute(dir, ec).lexically_normal();
  if (abs.filename().empty()) abs = abs.parent_path();
  read_gitignore(abs, rules, out.notes);
  std::vector<fs::path> files, dirs;
  fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  if (ec) {
    out.problems.push_back({dir.string(), ec.message()});
    return;
  }
  for (const fs::directory_entry& e : it) {
    std::error_code e2;
    std::string name = e.path().filename().string();
    if (e.is_directory(e2)) {
      if (skipped_dir(name) || is_venv(e.path()) || ignored(rules, abs / name, true)) continue;
      if (e.is_symlink(e2)) {
        const fs::path target = fs::canonical(e.path(), e2);
        if (e2 || !inside(target, root)) {
          out.notes.push_back({e.path().string(), "not followed: a symlink to a folder outside " +
                                                      root.string() + " (" + target.string() +
                                                      "); name it on the command line to analyze it"});
          continue;
        }
      }
      dirs.push_back(e.path());
    } else if (e.path().extension() == ".py" && e.is_regular_file(e2) &&
               !ignored(rules, abs / name, false)) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& f : files) out.files.push_back(f.string());
  for (const fs::path& d : dirs) walk(d, root, seen, rules, out);
}

}  // namespace

Inputs expand_inputs(const std::vector<std::string>& paths) {
  Inputs out;
  std::set<fs::path> seen;
  for (const std::string& p : paths) {
    if (p == "-") {
      out.files.push_back(p);
      continue;
    }
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) {
      out.problems.push_back({p, ec.message()});  // a symlink loop, a permission
    } else if (ec || !fs::exists(st)) {
      out.problems.push_back({p, "No such file or directory"});
    } else if (fs::is_directory(st)) {
      fs::path abs = fs::absolute(p, ec).lexically_normal();
      if (abs.filename().empty()) abs = abs.parent_path();
      const fs::path root = fs::canonical(p, ec);
      walk(p, ec ? fs::path(abs) : root, seen, rules_above(abs, out.notes), out);
    } else {
      out.files.push_back(p);
    }
  }
  // One file named twice (`. a.py ./a.py`, a hard link, a symlink) is
  // analyzed once, where it first appears: reported twice it would count
  // twice, and `--fix -j N` would have two threads write it at once.
  std::set<std::pair<dev_t, ino_t>> ids;
  std::vector<std::string> unique;
  unique.reserve(out.files.size());
  for (std::string& f : out.files) {
    struct stat sb;
    if (f != "-" && ::stat(f.c_str(), &sb) == 0 && !ids.insert({sb.st_dev, sb.st_ino}).second) continue;
    unique.push_back(std::move(f));
  }
  out.files = std::move(unique);
  return out;
}

}  // namespace tpf::tools
