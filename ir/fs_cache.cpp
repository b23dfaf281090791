// Memoized stat and realpath for one run (see fs_cache.h).
#include "ir/fs_cache.h"

#include <mutex>
#include <shared_mutex>
#include <system_error>
#include <unordered_map>

namespace tpf::ir {

namespace fs = std::filesystem;

namespace {

struct Cache {
  std::shared_mutex mu;
  std::unordered_map<std::string, PathKind> kinds;
  std::unordered_map<std::string, std::string> canon_dirs;
};

Cache& cache() {
  static Cache c;
  return c;
}

template <class Map, class Make>
typename Map::mapped_type memo(Map& map, const std::string& key, Make make) {
  Cache& c = cache();
  {
    std::shared_lock<std::shared_mutex> g(c.mu);
    auto it = map.find(key);
    if (it != map.end()) return it->second;
  }
  typename Map::mapped_type v = make();  // outside the lock: a syscall
  std::unique_lock<std::shared_mutex> g(c.mu);
  return map.emplace(key, std::move(v)).first->second;
}

}  // namespace

void forget_file_system() {
  Cache& c = cache();
  std::unique_lock<std::shared_mutex> g(c.mu);
  c.kinds.clear();
  c.canon_dirs.clear();
}

PathKind path_kind(const fs::path& p) {
  return memo(cache().kinds, p.native(), [&] {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) return PathKind::Missing;
    if (fs::is_regular_file(st)) return PathKind::File;
    if (fs::is_directory(st)) return PathKind::Dir;
    return PathKind::Other;
  });
}

fs::path cached_canonical(const fs::path& p) {
  std::error_code ec;
  fs::path abs = fs::absolute(p, ec);
  if (ec) abs = p;
  abs = abs.lexically_normal();
  if (!abs.has_filename()) abs = abs.parent_path();  // "dir/" -> "dir"
  fs::path dir = abs.parent_path(), name = abs.filename();
  if (dir.empty() || dir == abs || name.empty() || name == "..") {
    fs::path c = fs::weakly_canonical(abs, ec);
    return ec ? abs : c;
  }
  // A symlinked file (or one whose name cannot be lstat'ed) resolves in full.
  fs::file_status ls = fs::symlink_status(abs, ec);
  if (!ec && fs::is_symlink(ls)) {
    fs::path c = fs::weakly_canonical(abs, ec);
    return ec ? abs : c;
  }
  std::string canon_dir = memo(cache().canon_dirs, dir.native(), [&] {
    std::error_code e;
    fs::path c = fs::weakly_canonical(dir, e);
    return e ? dir.native() : c.native();
  });
  return fs::path(canon_dir) / name;
}

}  // namespace tpf::ir
