// Autofix (--fix / --diff): applies the fixes rules attach to their
// diagnostics as byte-exact edits of the original source, and renders the
// change as a unified diff. The driver re-analyzes the result before
// keeping it (the fixed file must parse and the fixed findings must be
// gone); this file only edits and prints.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lexer/diag.h"
#include "lexer/source.h"

namespace tpf::tools {

struct FixResult {
  std::string text;             // the source with the fixes applied
  std::vector<size_t> applied;  // indices of the diagnostics whose fix is in `text`
  std::vector<Edit> edits;      // the edits made, sorted by offset, non-overlapping
};

/// Applies the fixes of `diags` (those with one, and whose index `take`
/// marks; an empty `take` takes all) to `text`, in offset order; a fix
/// whose edits overlap an earlier accepted one is skipped, one identical
/// to it counts as applied.
FixResult apply_fixes(std::string_view text, std::span<const Diagnostic> diags,
                      const std::vector<bool>& take);

/// `text` with `sorted` (by offset, non-overlapping) applied.
std::string apply_edits(std::string_view text, std::span<const Edit> sorted);

/// What precedes `src.text` in the file's bytes when an edit of the text
/// is the same edit of the file: "" (the text is the bytes) or a UTF-8 BOM.
/// Nullopt when the text is decoded from a declared encoding: --fix and
/// --add-noqa rewrite only UTF-8 files.
std::optional<std::string_view> edit_prefix(const SourceFile& src);

/// A unified diff (3 lines of context, `--- PATH` / `+++ PATH` headers, as
/// ruff prints it: `patch -p0` applies it) of `edits` applied to `before`;
/// "" when there are none.
std::string unified_diff(std::string_view path, std::string_view before,
                         std::span<const Edit> edits);

/// Replaces the file at `path` with `bytes` so that it is never lost or
/// left half-written: the bytes go to a new file in the same folder, are
/// synced, take the original's mode and owner, and are renamed over it (a
/// symlink's target is replaced, the link kept). Returns "" on success,
/// else why not (the original is then untouched and no temporary is left).
/// A file with several hard links is not replaced: a rename would give the
/// other names the old text.
std::string replace_file(const std::string& path, std::string_view bytes);

}  // namespace tpf::tools
