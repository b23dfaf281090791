// The run's file-system cache (ir/fs_cache.h): kinds and realpaths agree
// with std::filesystem, symlinked files and folders resolve to their
// targets, and a path is asked of the kernel once per run.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "ir/fs_cache.h"

namespace fs = std::filesystem;
using tpf::ir::cached_canonical;
using tpf::ir::path_kind;
using tpf::ir::PathKind;

TEST_CASE("fs cache: kinds, realpaths through symlinks, one look per path") {
  fs::path root = fs::temp_directory_path() / ("tpf-fscache-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "real" / "pkg");
  std::ofstream(root / "real" / "pkg" / "train.py") << "x = 1\n";
  fs::create_directory_symlink(root / "real", root / "link");
  fs::create_symlink(root / "real" / "pkg" / "train.py", root / "real" / "alias.py");
  fs::path real = fs::canonical(root / "real");

  CHECK(path_kind(root / "real" / "pkg") == PathKind::Dir);
  CHECK(path_kind(root / "real" / "pkg" / "train.py") == PathKind::File);
  CHECK(path_kind(root / "real" / "alias.py") == PathKind::File);  // followed
  CHECK(path_kind(root / "real" / "missing.py") == PathKind::Missing);

  // A file in a symlinked folder, a symlinked file, a missing file, "..".
  CHECK(cached_canonical(root / "link" / "pkg" / "train.py") == real / "pkg" / "train.py");
  CHECK(cached_canonical(root / "real" / "alias.py") == real / "pkg" / "train.py");
  CHECK(cached_canonical(root / "link" / "pkg" / "new.py") == real / "pkg" / "new.py");
  CHECK(cached_canonical(root / "link" / "pkg" / ".." / "pkg" / "train.py") == real / "pkg" / "train.py");
  CHECK(cached_canonical(root / "link" / "pkg" / "") == real / "pkg");

  // The run sees the tree as it first looked: a file created afterwards
  // stays missing, a path never asked about is seen.
  std::ofstream(root / "real" / "missing.py") << "\n";
  CHECK(path_kind(root / "real" / "missing.py") == PathKind::Missing);
  CHECK(path_kind(root / "real" / "missing2.py") == PathKind::Missing);
  std::ofstream(root / "real" / "missing2.py") << "\n";
  CHECK(path_kind(root / "real" / "missing2.py") == PathKind::Missing);
  fs::remove_all(root);
}
