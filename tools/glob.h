// Glob patterns as ruff's `exclude` and git's .gitignore write them, matched
// against `/`-separated relative paths.
#pragma once

#include <string_view>

namespace tpf::tools {

/// Whether `path` matches `pattern` as a whole: `*` any run of characters
/// but `/`, `**` any run including `/` (`a/**/b` also matches `a/b`), `?`
/// one character but `/`, `[abc]` / `[a-z]` / `[!a]` one character of a set,
/// `\x` the character x.
bool glob_match(std::string_view pattern, std::string_view path);

}  // namespace tpf::tools
