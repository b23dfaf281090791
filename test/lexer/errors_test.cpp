// Lexical errors: CPython 3.11's message and position (`line:offset` with
// CPython's 1-based SyntaxError.offset), and which ones CPython only raises
// when its parser reaches them (kErrDeferred). The table was produced by
// running ast.parse on each source with python3.11.
#include <doctest/doctest.h>

#include <string>

#include "test/lexer/lex_helpers.h"

using namespace tpf::lexer;
using namespace tpf::lexer::testing;

namespace {

struct ErrorCase {
  const char* name;
  const char* src;
  const char* want;
  bool deferred;
};

const ErrorCase kCases[] = {
    {"unterminated string", "x = 'abc\ny = 2\n",
     "1:5: unterminated string literal (detected at line 1)", false},
    {"unterminated string at EOF", "x = b'abc",
     "1:5: unterminated string literal (detected at line 1)", false},
    {"unterminated triple", "x = 1\ny = '''abc\n\ndef\n",
     "2:5: unterminated triple-quoted string literal (detected at line 4)", false},
    {"unterminated triple CRLF", "\"\"\"\r\n\r\n",
     "1:1: unterminated triple-quoted string literal (detected at line 3)", false},
    {"unterminated f-string", "f'{x}\n", "1:1: unterminated string literal (detected at line 1)",
     false},
    {"invalid character",
     "x = a\xe2"
     "\x82"
     "\xac"
     "b\n",
     "1:6: invalid character '€' (U+20AC)", false},
    {"invalid character start",
     "\xc2"
     "\xb2"
     " = 1\n",
     "1:1: invalid character '²' (U+00B2)", false},
    {"non-printable nbsp",
     "x = a\xc2"
     "\xa0"
     "\n",
     "1:6: invalid non-printable character U+00A0", false},
    {"non-printable control",
     "x = 1\x01"
     "\n",
     "1:6: invalid non-printable character U+0001", false},
    {"non-printable zwsp after number",
     "1\xe2"
     "\x80"
     "\x8b"
     "\n",
     "1:2: invalid non-printable character U+200B", false},
    {"bad utf-8 in name",
     "abc\xff"
     "d = 1\n",
     "1:5: (unicode error) 'utf-8' codec can't decode byte 0xff in position 3: invalid start byte",
     false},
    {"bad utf-8 truncated",
     "x = \xe2"
     "\x82"
     "\n",
     "1:6: (unicode error) 'utf-8' codec can't decode bytes in position 0-1: unexpected end of "
     "data",
     false},
    {"bad utf-8 in string",
     "x = \"\xf6"
     "\"\n",
     "1:8: (unicode error) 'utf-8' codec can't decode byte 0xf6 in position 0: invalid start byte",
     true},
    {"bad utf-8 in raw string",
     "x = r\"ab\xf6"
     "\"\n",
     "1:11: (unicode error) 'utf-8' codec can't decode byte 0xf6 in position 2: invalid start byte",
     true},
    {"decimal underscore", "1_\n", "1:2: invalid decimal literal", false},
    {"decimal double underscore", "1__0\n", "1:2: invalid decimal literal", false},
    {"decimal letter", "1abc\n", "1:1: invalid decimal literal", false},
    {"exponent sign", "1e+\n", "1:3: invalid decimal literal", false},
    {"exponent letter", "1ex\n", "1:1: invalid decimal literal", false},
    {"fraction underscore", "1._\n", "1:2: invalid decimal literal", false},
    {"imaginary", "1jx\n", "1:2: invalid imaginary literal", false},
    {"hex empty", "0x\n", "1:2: invalid hexadecimal literal", false},
    {"hex underscore", "0x_g\n", "1:3: invalid hexadecimal literal", false},
    {"hex tail", "0x1_\n", "1:4: invalid hexadecimal literal", false},
    {"octal digit", "0o8\n", "1:3: invalid digit '8' in octal literal", false},
    {"octal after underscore", "0o7_8\n", "1:5: invalid digit '8' in octal literal", false},
    {"octal empty", "0o\n", "1:2: invalid octal literal", false},
    {"binary digit", "0b12\n", "1:4: invalid digit '2' in binary literal", false},
    {"binary empty", "0b_\n", "1:3: invalid binary literal", false},
    {"leading zeros", "x = 012\n",
     "1:5: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
     "integers",
     false},
    {"leading zeros underscore", "0_12\n",
     "1:1: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal "
     "integers",
     false},
    {"leading zeros tail underscore", "0777_\n", "1:5: invalid decimal literal", false},
    {"unmatched", "x = 1)\n", "1:6: unmatched ')'", false},
    {"mismatch", "x = (1]\n", "1:7: closing parenthesis ']' does not match opening parenthesis '('",
     false},
    {"mismatch other line", "x = (1,\n 2]\n",
     "2:3: closing parenthesis ']' does not match opening parenthesis '(' on line 1", false},
    {"never closed", "foo(a, [\n  1,\n", "1:8: '[' was never closed", true},
    {"line continuation", "x = 1 \\ y\n",
     "1:8: unexpected character after line continuation character", true},
    {"EOF after continuation", "x = 1 + \\\n", "1:10: unexpected EOF while parsing", true},
    {"EOF after continuation in brackets", "x = (1 + \\\n", "1:5: '(' was never closed", true},
    {"unindent", "if x:\n    a\n  b\n", "3:4: unindent does not match any outer indentation level",
     true},
    {"tab error", "if x:\n\ta\n        b\n",
     "3:1: inconsistent use of tabs and spaces in indentation", true},
    {"tab error indent", "if x:\n        a\n\tb\n",
     "3:1: inconsistent use of tabs and spaces in indentation", true},
};

}  // namespace

TEST_CASE("lexer: error messages and positions match CPython") {
  for (const ErrorCase& c : kCases) {
    CAPTURE(c.name);
    auto l = lex(c.src);
    CHECK(error(*l) == c.want);
    REQUIRE(l->ts.tokens.size() >= 2);
    // The stream ends Error, EndOfFile.
    const Token& e = l->ts.tokens[l->ts.tokens.size() - 2];
    CHECK(e.kind == TokKind::Error);
    CHECK(((e.flags & kErrDeferred) != 0) == c.deferred);
    CHECK(l->ts.tokens.back().kind == TokKind::EndOfFile);
  }
}

TEST_CASE("lexer: the stream stops at the first error") {
  auto l = lex("a = 1)\nb = (\n");
  CHECK(texts(*l) == "a = 1 ERRORTOKEN ENDMARKER");
  CHECK(l->diags.diagnostics().size() == 1);
}

TEST_CASE("lexer: a str that does not decode is reported at the next token") {
  auto l = lex("x = ('\xf6' 'b'\n  , 1)\n");
  CHECK(error(*l) ==
        "2:3: (unicode error) 'utf-8' codec can't decode byte 0xf6 in position 0: "
        "invalid start byte");
  // bytes literals are the parser's ("bytes can only contain ASCII ...").
  CHECK(error("x = b'\xf6'\n") == "ok");
  // Comments may hold any bytes, as in CPython.
  CHECK(error("x = 1  # \xe9t\xe9\n") == "ok");
}

TEST_CASE("lexer: nesting limits") {
  std::string deep(200, '(');
  CHECK(error(deep + "\n") == "1:200: '(' was never closed");
  CHECK(error(deep + "(\n") == "1:201: too many nested parentheses");
  std::string src;
  for (int i = 0; i < 99; ++i) src += std::string(i, ' ') + "if x:\n";
  CHECK(error(src + std::string(99, ' ') + "y\n") == "ok");
  src += std::string(99, ' ') + "if x:\n";
  CHECK(error(src + std::string(100, ' ') + "y\n") == "101:1: too many levels of indentation");
}

TEST_CASE("lexer: soft errors stay tokens for the parser") {
  // CPython's tokenizer accepts these; its parser says "invalid syntax".
  CHECK(error("a $ b ? c ` d ! e <> f\n") == "ok");
}
