// The one-line reporters: --format concise (grep-friendly, one line per
// finding) and --format github (GitHub Actions workflow commands, shown as
// annotations on a pull request's diff).
// requires: SourceFile, sorted diagnostics. produces: text.
#include <string_view>

#include "tools/report.h"

namespace tpf::tools {

namespace {

/// Workflow command escaping (actions/toolkit `command.ts`): the message
/// escapes %, CR and LF; property values also `:` and `,`.
std::string escape_data(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string escape_property(std::string_view s) {
  std::string out;
  for (char c : escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

std::string_view github_level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "notice";
  }
  return "error";
}

}  // namespace

void report_concise(std::ostream& os, std::span<const FileDiagnostics> files) {
  TextStyle style;
  style.quiet = true;
  std::string out;
  for (const FileDiagnostics& f : files)
    for (const Diagnostic& d : f.diags) render_text(out, f.path, *f.src, d, style);
  os << out;
}

void report_github(std::ostream& os, std::span<const FileDiagnostics> files,
                   std::span<const InputError> errors) {
  std::string out;
  for (const InputError& err : errors) {
    out += "::error file=" + escape_property(printable(err.path));
    if (err.line) out += ",line=" + std::to_string(err.line) + ",col=" + std::to_string(err.column);
    out += ",title=" + escape_property(std::string(kInputErrorCode) + " " + err.kind) + "::";
    out += escape_data(printable(err.kind + ": " + err.message) + " (the file was not analyzed)");
    out += '\n';
  }
  for (const FileDiagnostics& f : files)
    for (const Diagnostic& d : f.diags) {
      Position b = position(*f.src, d.span.begin);
      Position e = position(*f.src, std::max(d.span.end, d.span.begin));
      out += "::";
      out += github_level(d.severity);
      out += " file=" + escape_property(printable(f.path)) + ",line=" + std::to_string(b.line) +
             ",col=" + std::to_string(b.column) + ",endLine=" + std::to_string(e.line) +
             ",endColumn=" + std::to_string(e.column) + ",title=" + escape_property(d.code) + "::";
      std::string text = printable(d.message);
      if (!d.help.empty()) text += "\nhelp: " + printable(d.help);
      out += escape_data(text);
      out += '\n';
    }
  os << out;
}

}  // namespace tpf::tools
