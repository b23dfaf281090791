// Reporters for the frontend: diagnostics and the token dump.
#include "tools/render.h"

namespace tpf::tools {

void render_diagnostics(std::ostream& os, const SourceFile& src, const std::string& path,
                        DiagSink& diags) {
  diags.sort();
  for (const Diagnostic& d : diags.diagnostics()) {
    os << path;
    if (!src.text.empty() || d.span.begin == 0) {
      LineCol lc = src.pos(d.span.begin);
      os << ':' << lc.line << ':' << (lc.col + 1);
    }
    os << ": " << d.code << ": " << d.message << '\n';
  }
}

void dump_tokens(const SourceFile& src, const lexer::TokenStream& toks, std::string& out) {
  for (const lexer::Token& t : toks.tokens) {
    LineCol b = src.pos(t.begin), e = src.pos(t.end);
    out += std::to_string(b.line) + ':' + std::to_string(b.col) + '-' + std::to_string(e.line) +
           ':' + std::to_string(e.col) + ' ';
    out += lexer::kind_name(t.kind);
    out += " '";
    for (char c : src.text.substr(t.begin, t.end - t.begin)) {
      if (c == '\n') out += "\\n";
      else if (c == '\r') out += "\\r";
      else out += c;
    }
    out += "'\n";
  }
}

}  // namespace tpf::tools
