// expand_inputs: command-line paths -> files. Directories are walked with
// std::filesystem; a directory already visited (by canonical path) is not
// entered again, so a symlink loop ends instead of recursing forever.
#include "tools/inputs.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <system_error>

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

void walk(const fs::path& dir, std::set<fs::path>& seen, Inputs& out) {
  std::error_code ec;
  fs::path canon = fs::canonical(dir, ec);
  if (ec || !seen.insert(canon).second) return;
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
      if (!skipped_dir(name)) dirs.push_back(e.path());
    } else if (e.path().extension() == ".py" && e.is_regular_file(e2)) {
      files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::sort(dirs.begin(), dirs.end());
  for (const fs::path& f : files) out.files.push_back(f.string());
  for (const fs::path& d : dirs) walk(d, seen, out);
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
    if (ec || !fs::exists(st)) {
      out.problems.push_back({p, "No such file or directory"});
    } else if (fs::is_directory(st)) {
      walk(p, seen, out);
    } else {
      out.files.push_back(p);
    }
  }
  return out;
}

}  // namespace tpf::tools
