// Inline suppressions: `# tpf: ignore[TPF001, TPF003]`, `# tpf: ignore`
// (every rule) and flake8's `# noqa: TPF001` on the reported line (the line
// a finding's span starts on). A bare `# noqa` names no code and is left to
// the other linters that read it. Unused ones can be reported.
// requires: SourceFile and the lexer's comment spans. produces: filtered findings.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "lexer/diag.h"
#include "lexer/source.h"

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
  bool all = false;   // `# tpf: ignore` with no codes
  bool used_all = false;
  std::vector<SuppressedCode> codes;
};

/// Every directive in the file's comments, in source order.
std::vector<Suppression> parse_suppressions(const SourceFile& src, std::span<const Span> comments);

/// Drops the findings a directive on their line covers and marks those
/// directives used.
void apply_suppressions(const SourceFile& src, std::vector<Suppression>& sups,
                        std::vector<Diagnostic>& findings);

/// Warnings for the directives (or the codes in them) that suppressed
/// nothing: a code of a rule that ran but found nothing on that line, a
/// blanket directive on a line with no finding, or a code no rule has.
/// Codes of rules that did not run this time say nothing.
std::vector<Diagnostic> unused_suppressions(const std::vector<Suppression>& sups,
                                            const checks::RunOptions& run);

}  // namespace tpf::tools
