// --add-noqa: suppresses every current finding in place, as Ruff's
// --add-noqa does, so a large codebase can adopt the tool and gate only new
// code. Each line with findings gets one `# tpf: ignore[CODES]` (sorted), or
// its codes merged into the suppression already there; a line that cannot
// hold a comment passes it on to the line CommentLines names.
// requires: a file's findings, suppressions and CommentLines. produces: the rewritten file.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "lexer/diag.h"
#include "lexer/source.h"
#include "tools/suppress.h"

namespace tpf::tools {

/// The suppressions --add-noqa writes for one file.
struct NoqaEdits {
  std::vector<Edit> edits;  // one per line written, sorted by offset
  size_t codes = 0;         // (line, code) pairs added
};

/// The edits that make `sups` cover every rule finding of `findings`
/// (findings of no rule, such as unused-suppression warnings, are left).
NoqaEdits noqa_edits(const SourceFile& src, const CommentLines& lines, std::span<const Suppression> sups,
                     std::span<const Diagnostic> findings);

/// Analyzes a rewritten source again: the number of findings it reports,
/// or nullopt when it does not parse.
using Reanalysis = std::function<std::optional<size_t>(const SourceFile&)>;

/// What --add-noqa did to one file.
struct NoqaOutcome {
  size_t codes = 0;     // suppressions added (line, code pairs)
  size_t lines = 0;     // lines whose comment it wrote
  bool failed = false;  // it could not rewrite the file (exit 2)
};

/// --add-noqa on one analyzed file (its findings after suppressions):
/// computes the edits, re-analyzes the result (it must parse and report
/// nothing), then replaces the file with replace_file, or with
/// `to_stdout` (the file is `-`) prints the result on `os`. Prints `PATH:
/// added N suppressions on M lines` on `es`. A file it cannot rewrite
/// (declared non-UTF-8 encoding, a result that does not check out, a write
/// that fails) is left as it was, with the reason on `es`.
NoqaOutcome add_noqa_file(const SourceFile& src, const std::string& path, const CommentLines& lines,
                          std::span<const Suppression> sups, std::span<const Diagnostic> findings,
                          bool to_stdout, const Reanalysis& reanalyze, std::ostream& os, std::ostream& es);

/// The run's closing line on `es`: `tpf-analyze: --add-noqa: added N
/// suppressions on M lines in K files`, or `... nothing to suppress`.
void print_noqa_total(std::ostream& es, size_t codes, size_t lines, size_t files);

}  // namespace tpf::tools
