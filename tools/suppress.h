// Inline suppressions: `# tpf: ignore[TPF001, TPF003]`, `# tpf: ignore`
// (every rule) and flake8's `# noqa: TPF001` on the reported line (the line
// a finding's span starts on), or on the line that line's comments must go
// on when it cannot hold one (CommentLines). A bare `# noqa` names no code
// and is left to the other linters that read it. Unused ones can be reported.
// requires: SourceFile, the lexer's tokens and comment spans. produces: filtered findings.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "checks/registry.h"
#include "lexer/diag.h"
#include "lexer/source.h"
#include "lexer/token.h"

namespace tpf::tools {

/// The code of the diagnostic --report-unused-suppressions adds. It is not a
/// rule (no row in checks/registry.def), like the frontend's "SyntaxError".
inline constexpr std::string_view kUnusedSuppression = "unused-suppression";

/// One code named by a directive.
struct SuppressedCode {
  std::string code;  // upper-cased as written ("TPF003"), or a slug
  Span span;         // the code inside the comment
  bool used = false;
};

/// One directive in one comment.
struct Suppression {
  uint32_t line = 0;  // 1-based line of the comment
  Span span;          // the directive: `tpf: ignore[...]` or `noqa: ...`
  Span list;          // its code list as written: inside the brackets, or after `noqa:`
                      // up to the last code (other linters' codes included)
  bool noqa = false;  // the `noqa: ...` form
  bool all = false;   // `# tpf: ignore` with no codes
  bool used_all = false;
  std::vector<SuppressedCode> codes;
};

/// Where a line's suppression comment goes. A comment cannot end a line
/// that ends inside a string (a triple-quoted one, or an f-string whose
/// replacement field spans lines) or with a backslash continuation; such a
/// line's comment goes on the next line that can hold one, the last
/// physical line of that stretch (Ruff's noqa line mapping):
///
///     x = f"""{loss.item()}      line 1: inside the string
///     """ + \                    line 2: continued
///         y  # tpf: ignore[...]   line 3: lines 1-3 put their comment here
struct CommentLines {
  /// Stretches [first, last] of 1-based lines whose comment goes on `last`;
  /// sorted, disjoint.
  std::vector<std::pair<uint32_t, uint32_t>> joined;
  /// The line the comment for `line` goes on.
  uint32_t target(uint32_t line) const;
};

/// The stretches of `tokens` (the whole file's, before the parser is done
/// with them): multi-line String tokens and backslash-continued lines.
CommentLines compute_comment_lines(const SourceFile& src, std::span<const lexer::Token> tokens);

/// Every directive in the file's comments, in source order.
std::vector<Suppression> parse_suppressions(const SourceFile& src, std::span<const Span> comments);

/// Drops the findings a directive covers and marks those directives used:
/// one on the finding's line, or on the line `lines` puts that line's
/// comment on.
void apply_suppressions(const SourceFile& src, const CommentLines& lines, std::vector<Suppression>& sups,
                        std::vector<Diagnostic>& findings);

/// Whether `code` (a rule code) is one `c` names (by code, any case, or slug).
bool names_rule(const SuppressedCode& c, std::string_view code);

/// The edit that makes line `line`'s suppression cover `codes` too (rule
/// codes, sorted): a `# tpf: ignore[...]` (else a `# noqa: ...` naming our
/// codes) already on the line gets them merged into its list, sorted, with
/// the rest of the comment kept; otherwise `  # tpf: ignore[CODES]` is
/// appended after the line's code and comments, in place of its trailing
/// blanks. Nullopt when the line has a blanket `# tpf: ignore`, or the
/// codes are all there. `line` must be able to hold a comment (a
/// CommentLines target).
std::optional<Edit> suppression_edit(const SourceFile& src, std::span<const Suppression> sups, uint32_t line,
                                     std::span<const std::string> codes);

/// Warnings for the directives (or the codes in them) that suppressed
/// nothing: a code of a rule that ran but found nothing on that line, a
/// blanket directive on a line with no finding, or a code no rule has.
/// Codes of rules that did not run this time say nothing.
std::vector<Diagnostic> unused_suppressions(const std::vector<Suppression>& sups,
                                            const checks::RunOptions& run);

}  // namespace tpf::tools
