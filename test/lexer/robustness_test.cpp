// Any input ends in a token stream without crash, hang or deep recursion,
// and every stream keeps the invariants the parser relies on.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "test/lexer/lex_helpers.h"

using namespace tpf::lexer;
using namespace tpf::lexer::testing;

namespace {

// Spans increase, stay in bounds, the stream ends in exactly one EndOfFile,
// an Error token is last but one and has a diagnostic, and INDENT/DEDENT
// balance when there is no error. Returns the first violation, or "".
std::string invariant_violation(const Lexed& l) {
  if (l.ts.tokens.empty()) return "no tokens";
  const auto size = static_cast<uint32_t>(l.src.text.size());
  uint32_t prev_end = 0;
  int depth = 0;
  bool error = false;
  for (size_t i = 0; i < l.ts.tokens.size(); ++i) {
    const Token& t = l.ts.tokens[i];
    const std::string at = "token " + std::to_string(i) + ": ";
    if (t.begin > t.end || t.end > size) return at + "out of bounds";
    if (t.begin < prev_end) return at + "overlaps the previous token";
    prev_end = t.end;
    if ((t.kind == TokKind::EndOfFile) != (i + 1 == l.ts.tokens.size()))
      return at + "EndOfFile is not last";
    if (t.kind == TokKind::Error) {
      error = true;
      if (i + 2 != l.ts.tokens.size()) return at + "Error is not last but one";
    }
    depth += t.kind == TokKind::Indent ? 1 : t.kind == TokKind::Dedent ? -1 : 0;
    if (depth < 0) return at + "DEDENT without INDENT";
  }
  if (error != l.diags.has_errors()) return "Error tokens and diagnostics disagree";
  if (!error && depth != 0) return "unbalanced INDENT/DEDENT";
  return "";
}

void check_invariants(const Lexed& l) { CHECK(invariant_violation(l) == ""); }

}  // namespace

TEST_CASE("lexer: random bytes and random Python-ish text") {
  std::mt19937 rng(12345);
  const std::string alphabet =
      "abcxyz019_ \t\n\r\f\\#'\"()[]{}:.,;=+-*/<>!@$?`eEjJxXoObB\xc3\xa9\x80\xff";
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % 80);
    for (int k = 0; k < n; ++k)
      s += (i % 3 == 0) ? static_cast<char>(rng() % 256) : alphabet[rng() % alphabet.size()];
    auto l = lex(s);
    if (!l->loaded) continue;  // NUL bytes
    check_invariants(*l);
  }
}

TEST_CASE("lexer: a 1 MB line, long strings and comments") {
  std::string line = "x = [";
  while (line.size() < (1u << 20)) line += "1, ";
  line += "]\n";
  auto l = lex(line);
  CHECK(error(*l) == "ok");
  check_invariants(*l);
  auto s = lex("'" + std::string(1 << 20, 'a') + "'\n#" + std::string(1 << 20, 'b') + "\n");
  CHECK(s->ts.tokens.size() == 3);
  CHECK(s->ts.comments.size() == 1);
}

TEST_CASE("lexer: 100k nested brackets and 10k-deep indentation fail cleanly") {
  auto deep = lex(std::string(100000, '(') + std::string(100000, ')') + "\n");
  CHECK(error(*deep) == "1:201: too many nested parentheses");
  check_invariants(*deep);
  std::string src;
  for (int i = 0; i < 10000; ++i) src += std::string(static_cast<size_t>(i), ' ') + "if x:\n";
  auto ind = lex(src);
  CHECK(error(*ind) == "101:1: too many levels of indentation");
  check_invariants(*ind);
  // Deeply nested f-strings give up on the 3.12 reading, without recursion.
  std::string f;
  for (int i = 0; i < 5000; ++i) f += "f'{";
  auto nested = lex(f + "\n");
  check_invariants(*nested);
}

TEST_CASE("lexer: unterminated constructs at the very end") {
  for (const char* s : {"'", "'''", "f'{", "f'''{x", "(", "\\", "x\\", "0x", "1e", "if x:\n\t",
                        "\xe2", "a\xe2\x82", "#", "\r", "\r\n\\\r\n", "  \\"}) {
    CAPTURE(s);
    auto l = lex(s);
    check_invariants(*l);
  }
}
