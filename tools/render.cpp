// Reporters for the frontend: diagnostics and the token dump.
#include "tools/render.h"
#include "tools/report.h"

namespace tpf::tools {
namespace {

/// 1-based character column of `offset`, as CPython prints SyntaxError
/// offsets (it counts code points there, while ast col_offset counts bytes):
/// `import ä £` reports 1:10, not the byte column 1:11.
uint32_t char_column(const SourceFile& src, uint32_t offset) {
  const LineCol lc = src.pos(offset);
  const uint32_t start = offset - lc.col;
  uint32_t chars = 1;
  for (uint32_t i = start; i < offset && i < src.text.size(); ++i) {
    if ((static_cast<unsigned char>(src.text[i]) & 0xC0) != 0x80) ++chars;
  }
  return chars;
}

}  // namespace

void append_input_errors(const SourceFile& src, const std::string& path, const DiagSink& diags,
                         std::vector<InputError>& out) {
  for (const Diagnostic& d : diags.diagnostics()) {
    if (d.severity != Severity::Error) continue;
    InputError e{path, d.code, d.message};
    if (!src.text.empty() || d.span.begin == 0) {
      e.line = src.pos(d.span.begin).line;
      e.column = char_column(src, d.span.begin);
    }
    if (d.code == "OSError") e.line = e.column = 0;  // the path, not a place in it
    out.push_back(std::move(e));
    return;  // the first, as CPython reports one
  }
}

void render_diagnostics(std::ostream& os, const SourceFile& src, const std::string& path,
                        DiagSink& diags) {
  diags.sort();
  for (const Diagnostic& d : diags.diagnostics()) {
    os << printable(path);
    if (!src.text.empty() || d.span.begin == 0) {
      os << ':' << src.pos(d.span.begin).line << ':' << char_column(src, d.span.begin);
    }
    os << ": " << d.code << ": " << printable(d.message) << '\n';
  }
}

// One token per line: `line:col-line:col KIND 'text'` (columns are 0-based
// UTF-8 bytes, as CPython's col_offset). In the text, a backslash is written
// `\\` and line breaks `\n` / `\r`, so each token stays on one line and
// the dump can be read back unambiguously.
void dump_tokens(const SourceFile& src, const lexer::TokenStream& toks, std::string& out) {
  for (const lexer::Token& t : toks.tokens) {
    const LineCol b = src.pos(t.begin), e = src.pos(t.end);
    out += std::to_string(b.line);
    out += ':';
    out += std::to_string(b.col);
    out += '-';
    out += std::to_string(e.line);
    out += ':';
    out += std::to_string(e.col);
    out += ' ';
    out += lexer::kind_name(t.kind);
    out += " '";
    for (char c : src.text.substr(t.begin, t.end - t.begin)) {
      if (c == '\\') out += "\\\\";
      else if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else out += c;
    }
    out += "'\n";
  }
}

}  // namespace tpf::tools
