// The text reporter: a header line per diagnostic, a code frame with a caret
// under the span (display widths from Unicode: wide CJK characters take two
// cells, combining marks none; tabs shown as 4 spaces), notes, help, and a
// summary line. Colour only when TextStyle::color is set.
// requires: SourceFile, sorted diagnostics. produces: text.
#include <unicode/uchar.h>

#include <algorithm>
#include <string_view>

#include "lexer/utf8.h"
#include "tools/report.h"

namespace tpf::tools {

namespace {

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kGutter = "\x1b[1;34m";
constexpr std::string_view kHelp = "\x1b[1;36m";
constexpr int kTabWidth = 4;

std::string_view severity_color(Severity s) {
  switch (s) {
    case Severity::Error: return "\x1b[1;31m";
    case Severity::Warning: return "\x1b[1;33m";
    case Severity::Note: return "\x1b[1;32m";
  }
  return kBold;
}

/// Decodes the UTF-8 sequence at text[i] (the text is valid UTF-8: the
/// lexer checked it on load) and advances i.
char32_t next_code_point(std::string_view text, size_t& i) {
  unsigned char c = static_cast<unsigned char>(text[i]);
  int len = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (i + len > text.size()) len = 1;
  char32_t cp = len == 1 ? c : c & (0x7F >> len);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
  i += len;
  return cp;
}

/// The picture a control character is shown as; 0 when it is not one.
char32_t control_picture(char32_t cp) {
  if (cp < 0x20 && cp != '\t') return 0x2400 + cp;
  if (cp == 0x7F) return 0x2421;
  if (cp >= 0x80 && cp < 0xA0) return 0xFFFD;
  return 0;
}

using lexer::append_utf8;

/// Terminal cells one code point takes.
int cell_width(char32_t cp) {
  if (cp == '\t') return kTabWidth;
  if (cp < 0x300) return 1;
  UChar32 c = static_cast<UChar32>(cp);
  int8_t type = u_charType(c);
  if (type == U_NON_SPACING_MARK || type == U_ENCLOSING_MARK || type == U_FORMAT_CHAR) return 0;
  int w = u_getIntPropertyValue(c, UCHAR_EAST_ASIAN_WIDTH);
  return (w == U_EA_WIDE || w == U_EA_FULLWIDTH) ? 2 : 1;
}

/// [begin, end) of the line containing `offset`, without its line break.
std::pair<uint32_t, uint32_t> line_bounds(const SourceFile& src, uint32_t line) {
  uint32_t b = src.lines.line_start(line);
  uint32_t e = b;
  std::string_view t = src.text;
  while (e < t.size() && t[e] != '\n' && t[e] != '\r') ++e;
  return {b, e};
}

void paint(std::string& out, const TextStyle& style, std::string_view color, std::string_view s) {
  if (style.color) out += color;
  out += s;
  if (style.color) out += kReset;
}

std::string plural(size_t n, std::string_view word) {
  std::string s = std::to_string(n) + " " + std::string(word);
  if (n != 1) s += 's';
  return s;
}

}  // namespace

std::string printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F) {  // the common case
      out += s[i++];
      continue;
    }
    // A whole, valid UTF-8 sequence, else one byte (file names are bytes).
    const size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    bool valid = len > 0 && i + len <= s.size();
    for (size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!valid) {
      append_utf8(out, 0xFFFD);
      ++i;
      continue;
    }
    const size_t at = i;
    const char32_t cp = next_code_point(s, i);
    if (char32_t pic = control_picture(cp)) append_utf8(out, pic);
    else out.append(s.substr(at, i - at));
  }
  return out;
}

Position position(const SourceFile& src, uint32_t offset) {
  std::string_view t = src.text;
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(t.size()));
  LineCol lc = src.pos(offset);
  uint32_t start = src.lines.line_start(lc.line);
  uint32_t col = 1;
  for (size_t i = start; i < offset;) {
    next_code_point(t, i);
    ++col;
  }
  return {lc.line, col};
}

void render_text(std::string& out, const std::string& path, const SourceFile& src,
                 const Diagnostic& d, const TextStyle& style) {
  Position p = position(src, d.span.begin);
  paint(out, style, kBold, printable(path) + ":" + std::to_string(p.line) + ":" + std::to_string(p.column) + ":");
  out += ' ';
  paint(out, style, severity_color(d.severity), checks::severity_name(d.severity));
  out += ' ';
  paint(out, style, kBold, d.code);
  out += ' ';
  out += printable(d.message);
  out += '\n';
  if (style.quiet) return;

  // The code frame: the span's first line, a caret run under the span
  // (to the end of that line when the span continues below; one caret for
  // an empty span).
  auto [lb, le] = line_bounds(src, p.line);
  std::string_view t = src.text;
  std::string num = std::to_string(p.line);
  std::string pad(num.size(), ' ');
  std::string code, marks;
  uint32_t cb = std::max(lb, std::min(d.span.begin, le));
  uint32_t ce = std::min(std::max(d.span.end, cb), le);
  for (size_t i = lb; i < le;) {
    size_t at = i;
    char32_t cp = next_code_point(t, i);
    int w = cell_width(cp);
    if (cp == '\t') code.append(kTabWidth, ' ');
    else if (char32_t pic = control_picture(cp)) append_utf8(code, pic);
    else code.append(t.substr(at, i - at));
    char m = (at >= cb && at < ce) ? '^' : ' ';
    if (at < ce || at < cb) marks.append(w, m);
  }
  if (ce == cb) marks += '^';
  out += ' ';
  paint(out, style, kGutter, pad + " |");
  out += '\n';
  out += ' ';
  paint(out, style, kGutter, num + " |");
  out += ' ';
  out += code;
  out += '\n';
  out += ' ';
  paint(out, style, kGutter, pad + " |");
  out += ' ';
  paint(out, style, severity_color(d.severity), marks);
  out += '\n';
  for (const DiagNote& n : d.notes) {
    Position np = position(src, n.span.begin);
    out += ' ' + pad + ' ';
    paint(out, style, kGutter, "=");
    out += ' ';
    paint(out, style, kBold, "note:");
    out += ' ' + printable(n.message) + " (" + std::to_string(np.line) + ":" + std::to_string(np.column) + ")\n";
  }
  if (!d.help.empty()) {
    out += ' ' + pad + ' ';
    paint(out, style, kGutter, "=");
    out += ' ';
    paint(out, style, kHelp, "help:");
    out += ' ' + printable(d.help) + '\n';
  }
  if (d.fix) {
    out += ' ' + pad + ' ';
    paint(out, style, kGutter, "=");
    out += ' ';
    paint(out, style, kHelp, "fix:");
    out += ' ' + printable(d.fix->title) + " (--fix applies it, --diff shows it)\n";
  }
}

std::string summary_line(std::span<const FileDiagnostics> files, const Totals& totals) {
  size_t errors = 0, warnings = 0, notes = 0, with_findings = 0, fixable = 0;
  for (const FileDiagnostics& f : files) {
    if (f.diags.empty()) continue;
    ++with_findings;
    for (const Diagnostic& d : f.diags) {
      (d.severity == Severity::Error ? errors : d.severity == Severity::Warning ? warnings : notes)++;
      if (d.fix) ++fixable;
    }
  }
  size_t total = errors + warnings + notes;
  std::string line;
  if (total == 0) {
    line = "no problems found in " + plural(totals.files, "file");
  } else {
    std::string parts;
    auto add = [&](size_t n, std::string_view w) {
      if (!n) return;
      if (!parts.empty()) parts += ", ";
      parts += plural(n, w);
    };
    add(errors, "error");
    add(warnings, "warning");
    add(notes, "note");
    line = "found " + plural(total, "problem") + " (" + parts + ") in " +
           std::to_string(with_findings) + " of " + plural(totals.files, "file");
  }
  if (fixable) line += "; " + std::to_string(fixable) + " fixable with --fix";
  if (totals.fixed) line += "; fixed " + plural(totals.fixed, "problem");
  if (totals.not_analyzed)
    line += "; " + plural(totals.not_analyzed, "file") + " not analyzed (unreadable or syntax error)";
  return line;
}

void report_text(std::ostream& os, std::span<const FileDiagnostics> files, const Totals& totals,
                 const TextStyle& style) {
  std::string out;
  for (const FileDiagnostics& f : files) {
    for (const Diagnostic& d : f.diags) {
      render_text(out, f.path, *f.src, d, style);
      if (!style.quiet) out += '\n';
    }
    os << out;
    out.clear();
  }
  if (style.quiet) return;
  paint(out, style, kBold, summary_line(files, totals));
  os << out << '\n';
}

}  // namespace tpf::tools
