// Reporters for rule diagnostics: the text reporter (header line, code frame
// with a caret under the span, notes, help, summary; colour only when asked)
// and the JSON reporter (the machine contract of issue 4), plus the rule
// table views (--list-rules, --explain, docs/rules.md). Only tools/ renders
// diagnostics; render.h has the frontend's (SyntaxError, token dump).
#pragma once

#include <cstdint>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/check.h"
#include "lexer/diag.h"
#include "lexer/source.h"

namespace tpf::tools {

/// The findings of one analyzed file. `src` must stay alive while rendering.
struct FileDiagnostics {
  std::string path;  // as the user named it (or --stdin-filename)
  const SourceFile* src = nullptr;
  std::vector<Diagnostic> diags;  // sorted by offset, then code
};

/// A file named on the command line that could not be analyzed: a syntax
/// error, an unreadable path, an encoding this build cannot decode. Text
/// and concise output print these on stderr, CPython's way; the machine
/// formats carry them too (JSON as rule TPF000, SARIF as tool execution
/// notifications, github as error annotations), so a CI gate sees them.
struct InputError {
  std::string path;
  std::string kind;     // "SyntaxError", "OSError", "UnsupportedEncoding", ...
  std::string message;  // without the kind
  uint32_t line = 0;    // 1-based; 0 for the file as a whole
  uint32_t column = 0;  // 1-based, code points
};

/// The rule code machine formats give an InputError.
inline constexpr std::string_view kInputErrorCode = "TPF000";

/// The first error of `diags` (a file's frontend: load, tokenize, parse;
/// sorted), at the position render_diagnostics prints, appended to `out`.
void append_input_errors(const SourceFile& src, const std::string& path, const DiagSink& diags,
                         std::vector<InputError>& out);

/// `s` safe to print on a terminal or in a log: control characters (C0 but
/// tab, DEL, C1) become their Unicode control pictures (ESC is U+241B, C1
/// and invalid UTF-8 bytes U+FFFD), so a file name or source line cannot
/// move the cursor, recolour or clear the screen. One code point each: the
/// code frame's carets stay aligned.
std::string printable(std::string_view s);

/// A position as reporters print it: 1-based line, 1-based column counted
/// in Unicode code points (what editors and terminals count; CPython's
/// byte col_offset would drift on non-ASCII lines).
struct Position {
  uint32_t line = 1;
  uint32_t column = 1;
};
Position position(const SourceFile& src, uint32_t offset);

struct TextStyle {
  bool color = false;  // ANSI colours (the driver enables them only on a TTY)
  bool quiet = false;  // header lines only: no code frames, notes, help or summary
};

/// Run totals for the summary line.
struct Totals {
  size_t files = 0;         // files analyzed
  size_t not_analyzed = 0;  // unreadable or with a syntax error
  size_t fixed = 0;         // findings --fix removed
};

/// One diagnostic:
///   path:line:col: severity TPFnnn message
///      |
///   12 |     loss.backward()
///      |     ^^^^^^^^^^^^^^^
///      = note: the optimizer steps here (13:5)
///      = help: ...
void render_text(std::string& out, const std::string& path, const SourceFile& src,
                 const Diagnostic& d, const TextStyle& style);

/// Every file's diagnostics (in the given order), then the summary line.
void report_text(std::ostream& os, std::span<const FileDiagnostics> files, const Totals& totals,
                 const TextStyle& style);

/// {"version":1,"files":N,"diagnostics":[...],"estimates":[...]}: each
/// diagnostic {"rule","severity","path","line","column","end_line",
/// "end_column","message","help"}; end_column is exclusive (the column just
/// past the span). `estimates` is the memory estimator's array, passed
/// through as is. Keys in this order; one line plus a newline.
/// Input errors are diagnostics of rule TPF000 (severity error, at line 1
/// column 1 when the whole file is meant), in path order with the rest.
void report_json(std::ostream& os, std::span<const FileDiagnostics> files, size_t files_analyzed,
                 const nlohmann::ordered_json& estimates, std::span<const InputError> errors = {});

/// The text reporter's closing line: "found 3 problems (2 errors, 1
/// warning) in 1 of 2 files; 1 fixable with --fix", or "no problems found
/// in 2 files", with what --fix fixed and the files not analyzed.
std::string summary_line(std::span<const FileDiagnostics> files, const Totals& totals);

/// --statistics: one line per code, most findings first (then by code),
///   COUNT<TAB>CODE<TAB>[*] NAME
/// as `ruff check --statistics` prints them: the count right-aligned, the
/// code padded, and when any finding has a fix a mark before the name,
/// `[*]` (all of that code's findings have one), `[-]` (some: then
/// ` (K of N fixable)` after the name) or `[ ]`; NAME is the rule's slug.
/// Input errors count as TPF000 (input_error). Then summary_line. Nothing
/// but the summary when there are no findings.
void report_statistics_text(std::ostream& os, std::span<const FileDiagnostics> files,
                            std::span<const InputError> errors, const Totals& totals);

/// --statistics --format json: {"version":1,"files":N,"total":T,
/// "fixable":F,"statistics":[{"code","name","summary","count","fixable"},
/// ...]} in the text order; "fixable" counts the findings with a fix.
/// One line plus a newline.
void report_statistics_json(std::ostream& os, std::span<const FileDiagnostics> files,
                            std::span<const InputError> errors, size_t files_analyzed);

/// --format concise: one line per diagnostic, `path:line:col: severity CODE
/// message`, nothing else (no frames, no summary).
void report_concise(std::ostream& os, std::span<const FileDiagnostics> files);

/// --format github: one GitHub Actions workflow command per diagnostic,
///   ::error file=P,line=L,col=C,endLine=L2,endColumn=C2,title=TPF003::message
/// (warning for warnings, notice for notes), so findings show up as
/// annotations on the pull request's diff.
/// Input errors are `::error` annotations titled TPF000.
void report_github(std::ostream& os, std::span<const FileDiagnostics> files,
                   std::span<const InputError> errors = {});

/// --format sarif: a SARIF 2.1.0 log with one run: the tool driver lists
/// every rule of the registry (id, name, descriptions, help, default
/// level); each result has its rule, level, message, physical location and
/// region (columns in Unicode code points, as `columnKind` says), and its
/// notes as related locations. Relative paths are relative to %SRCROOT%,
/// the working directory `srcroot` (an absolute path).
/// Input errors are the invocation's toolExecutionNotifications (level
/// error, descriptor TPF000) and make executionSuccessful false.
void report_sarif(std::ostream& os, std::span<const FileDiagnostics> files,
                  const std::string& srcroot, std::string_view version,
                  std::span<const InputError> errors = {});

/// --list-rules: one line per rule (code, severity, category, status, slug, summary).
void list_rules_text(std::ostream& os);
/// --list-rules --format json: an array of {"code","slug","severity","category","status","summary"}.
void list_rules_json(std::ostream& os);
/// --explain: the rule's write-up with its severity, category and status.
void explain_rule(std::ostream& os, const checks::RuleInfo& rule);
/// docs/rules.md, generated from the registry (a test keeps the file in sync).
std::string rules_markdown();

}  // namespace tpf::tools
