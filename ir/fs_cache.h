// The file system as one run sees it: what a path is (stat) and a folder's
// realpath, each asked of the kernel once per run and then answered from
// memory. Every input walks up its folders looking for project markers
// (.git, pyproject.toml, setup.py, setup.cfg) and __init__.py, and every
// file's realpath walks its components: on a library tree of a thousand
// files that was 41 stat and 8 readlink calls per file, a fifth of the
// run's CPU time. A run reads the tree as it was when it first looked at
// each path (the files do not change under a lint run).
// Thread-safe: -j workers share one cache.
// requires: nothing. produces: path kinds and canonical paths.
#pragma once

#include <filesystem>
#include <string>

namespace tpf::ir {

enum class PathKind : unsigned char { Missing, File, Dir, Other };

/// What `p` is, following symlinks (std::filesystem::status), memoized.
PathKind path_kind(const std::filesystem::path& p);
inline bool cached_is_file(const std::filesystem::path& p) { return path_kind(p) == PathKind::File; }
inline bool cached_is_dir(const std::filesystem::path& p) { return path_kind(p) == PathKind::Dir; }
inline bool cached_exists(const std::filesystem::path& p) { return path_kind(p) != PathKind::Missing; }

/// std::filesystem::weakly_canonical(p), with the realpath of p's folder
/// memoized: a file that is not itself a symlink costs one lstat.
/// Returns p's absolute, normal form when the realpath cannot be had.
std::filesystem::path cached_canonical(const std::filesystem::path& p);

/// Forgets everything memoized: the next questions ask the kernel again. A
/// long-lived process (the language server) calls it before each analysis,
/// when files may have appeared or moved since. Not while a run uses it.
void forget_file_system();

}  // namespace tpf::ir
