// Helpers for the lexer tests: lex a snippet and print its tokens or its
// first error compactly, so a test case reads as source -> expected text.
#pragma once

#include <memory>
#include <string>

#include "lexer/lexer.h"

namespace tpf::lexer::testing {

/// A lexed snippet. Heap-allocated: SourceFile::text points into itself.
struct Lexed {
  SourceFile src;
  DiagSink diags;
  TokenStream ts;
  bool loaded = false;
};

/// Read as Python 3.11 unless told otherwise: most cases pin down 3.11.
inline std::unique_ptr<Lexed> lex(std::string text, PyVersion version = PyVersion{3, 11}) {
  auto l = std::make_unique<Lexed>();
  l->loaded = make_source("t.py", std::move(text), l->src, l->diags);
  if (l->loaded) l->ts = tokenize(l->src, l->diags, version);
  return l;
}

/// Token texts separated by spaces; tokens without text (NEWLINE, INDENT,
/// DEDENT, ENDMARKER, ERRORTOKEN) by their kind name.
inline std::string texts(const Lexed& l) {
  std::string out;
  for (const Token& t : l.ts.tokens) {
    if (!out.empty()) out += ' ';
    const bool named = t.kind == TokKind::Newline || t.kind == TokKind::Indent ||
                       t.kind == TokKind::Dedent || t.kind == TokKind::EndOfFile ||
                       t.kind == TokKind::Error;
    if (named) {
      out += kind_name(t.kind);
    } else {
      out += l.src.text.substr(t.begin, t.end - t.begin);
    }
  }
  return out;
}

inline std::string texts(const std::string& src) { return texts(*lex(src)); }

/// `KIND@line:col-line:col` per token (0-based byte columns).
inline std::string positions(const Lexed& l) {
  std::string out;
  for (const Token& t : l.ts.tokens) {
    const LineCol b = l.src.pos(t.begin), e = l.src.pos(t.end);
    if (!out.empty()) out += ' ';
    out += std::string(kind_name(t.kind)) + '@' + std::to_string(b.line) + ':' +
           std::to_string(b.col) + '-' + std::to_string(e.line) + ':' + std::to_string(e.col);
  }
  return out;
}

inline std::string positions(const std::string& src) { return positions(*lex(src)); }

/// The first diagnostic as CPython prints its SyntaxError: `line:offset: message`
/// with a 1-based offset; "ok" when there is none.
inline std::string error(const Lexed& l) {
  if (l.diags.diagnostics().empty()) return "ok";
  const Diagnostic& d = l.diags.diagnostics().front();
  const LineCol lc = l.src.pos(d.span.begin);
  return std::to_string(lc.line) + ':' + std::to_string(lc.col + 1) + ": " + d.message;
}

inline std::string error(const std::string& src) { return error(*lex(src)); }

/// The flags of the first token of `kind`, or 0xffff when there is none.
inline uint16_t flags_of(const Lexed& l, TokKind kind) {
  for (const Token& t : l.ts.tokens)
    if (t.kind == kind) return t.flags;
  return 0xffff;
}

}  // namespace tpf::lexer::testing
