// Token kinds, texts, flags and positions for each construct of the lexer.
// Expected values are CPython 3.11's (tokenize module positions for NEWLINE,
// INDENT, DEDENT and ENDMARKER).
#include <doctest/doctest.h>

#include "test/lexer/lex_helpers.h"

using namespace tpf::lexer;
using namespace tpf::lexer::testing;

TEST_CASE("lexer: names, keywords and soft keywords") {
  CHECK(texts("def f(x): return None") == "def f ( x ) : return None NEWLINE ENDMARKER");
  auto l = lex("match case type _ async await lambda_ False\n");
  std::vector<TokKind> kinds;
  for (const Token& t : l->ts.tokens) kinds.push_back(t.kind);
  const std::vector<TokKind> want = {
      TokKind::Name,  TokKind::Name, TokKind::Name,  TokKind::Name,    TokKind::Async,
      TokKind::Await, TokKind::Name, TokKind::False, TokKind::Newline, TokKind::EndOfFile};
  CHECK(kinds == want);
  CHECK(is_keyword(TokKind::Yield));
  CHECK_FALSE(is_keyword(TokKind::Name));
}

// scan.re spells every keyword as a rule of its own (the DFA recognizes them
// while reading the name); this keeps that list equal to tokens.def's.
TEST_CASE("lexer: every keyword of tokens.def, and only those, lexes as its kind") {
  struct Kw {
    std::string_view text;
    TokKind kind;
  };
  static constexpr Kw kKeywords[] = {
#define TPF_TOKEN(e, s)
#define TPF_KEYWORD(e, s) {s, TokKind::e},
#define TPF_OP(e, s)
#include "lexer/tokens.def"
#undef TPF_TOKEN
#undef TPF_KEYWORD
#undef TPF_OP
  };
  size_t count = 0;
  for (const Kw& kw : kKeywords) {
    const std::string w(kw.text);
    // The keyword, then names that extend it, shorten it or change its case.
    auto l = lex(w + " " + w + "_ " + w + "x " + w + "9 " + w.substr(0, w.size() - 1) + " _" + w +
                 " " + static_cast<char>(w[0] ^ 0x20) + w.substr(1) + " " + w + "\xc3\xa9\n");
    INFO(w);
    REQUIRE(l->ts.tokens.size() == 10);
    CHECK(l->ts.tokens[0].kind == kw.kind);
    for (size_t i = 1; i < 8; ++i) CHECK(l->ts.tokens[i].kind == TokKind::Name);
    ++count;
  }
  CHECK(count == static_cast<size_t>(kKwLast) - static_cast<size_t>(kKwFirst) + 1);
}

TEST_CASE("lexer: non-ASCII identifiers") {
  auto l = lex("é = µ + 蟒\n");
  CHECK(texts(*l) == "é = µ + 蟒 NEWLINE ENDMARKER");
  CHECK(flags_of(*l, TokKind::Name) == kNameNonAscii);
  CHECK(positions(*l).substr(0, 12) == "NAME@1:0-1:2");
  // U+E0100 (a variation selector) is XID_Continue.
  CHECK(texts("x\xf3\xa0\x84\x80 = 4") == "x\xf3\xa0\x84\x80 = 4 NEWLINE ENDMARKER");
}

TEST_CASE("lexer: numbers") {
  CHECK(texts("1 0 00 0_0 1_000 0x_fF 0o17 0B1_0 1. .5 1.5e-3 1E+5 1e5j 1J 0777.0 09.5 0e0") ==
        "1 0 00 0_0 1_000 0x_fF 0o17 0B1_0 1. .5 1.5e-3 1E+5 1e5j 1J 0777.0 09.5 0e0 "
        "NEWLINE ENDMARKER");
  auto f = lex("1.5j");
  CHECK(flags_of(*f, TokKind::Number) == (kNumFloat | kNumImaginary));
  CHECK(flags_of(*lex("10j"), TokKind::Number) == kNumImaginary);
  CHECK(flags_of(*lex("1e3"), TokKind::Number) == kNumFloat);
  CHECK(flags_of(*lex("0xe3"), TokKind::Number) == kNoFlags);
  // A number may end right before these keywords (a warning in 3.11).
  CHECK(texts("1if x else 2") == "1 if x else 2 NEWLINE ENDMARKER");
  CHECK(texts("0x1for") == "0x1f or NEWLINE ENDMARKER");
  CHECK(texts("1else 1and 1or 1in 1is 1not") ==
        "1 else 1 and 1 or 1 in 1 is 1 not NEWLINE ENDMARKER");
  CHECK(texts("1..2 1...") == "1. .2 1. . . NEWLINE ENDMARKER");
  CHECK(texts("x[1:...]") == "x [ 1 : ... ] NEWLINE ENDMARKER");
  CHECK(texts("1..real") == "1. . real NEWLINE ENDMARKER");
}

TEST_CASE("lexer: string prefixes and quotes") {
  auto l = lex("r'a' b\"b\" u'c' Rb'd' bR\"e\" f'g' rF'h' Fr\"i\" U\"j\" BR'k'");
  CHECK(texts(*l) ==
        "r'a' b\"b\" u'c' Rb'd' bR\"e\" f'g' rF'h' Fr\"i\" U\"j\" BR'k' NEWLINE ENDMARKER");
  const std::vector<uint16_t> want = {kStrRaw | kStrSingleQuote,
                                      kStrBytes,
                                      kStrUnicode | kStrSingleQuote,
                                      kStrRaw | kStrBytes | kStrSingleQuote,
                                      kStrRaw | kStrBytes,
                                      kStrFString | kStrSingleQuote,
                                      kStrRaw | kStrFString | kStrSingleQuote,
                                      kStrRaw | kStrFString,
                                      kStrUnicode,
                                      kStrRaw | kStrBytes | kStrSingleQuote};
  for (size_t i = 0; i < want.size(); ++i) CHECK(l->ts.tokens[i].flags == want[i]);
  // Not prefixes: ur, bu, fb; they are names followed by a string.
  CHECK(texts("ur'x' fb'y'") == "ur 'x' fb 'y' NEWLINE ENDMARKER");
}

TEST_CASE("lexer: string bodies, triple quotes and escapes") {
  CHECK(texts(R"(x = 'it\'s' "a\\" '')") == R"(x = 'it\'s' "a\\" '' NEWLINE ENDMARKER)");
  auto l = lex("s = '''a\n'b'\n''' + \"\"\"\"\"\"\n");
  CHECK(positions(*l) ==
        "NAME@1:0-1:1 OP@1:2-1:3 STRING@1:4-3:3 OP@3:4-3:5 STRING@3:6-3:12 NEWLINE@3:12-4:0 "
        "ENDMARKER@4:0-4:0");
  CHECK(l->ts.tokens[2].flags == (kStrTriple | kStrSingleQuote));
  // A backslash-newline continues a single-quoted string; \r\n counts once.
  CHECK(texts("'a\\\nb' 'c\\\r\nd'") == "'a\\\nb' 'c\\\r\nd' NEWLINE ENDMARKER");
  // Four quotes: the triple-quoted string ends at the first three.
  CHECK(texts("'''a''''") == "'''a''' ERRORTOKEN ENDMARKER");
}

TEST_CASE("lexer: f-strings are one token, found the PEP 701 way") {
  CHECK(texts("f'{x!r:>{w}} {{y}} {d[\"k\"]:{\"a\"}} \\N{DASH} {x=}'") ==
        "f'{x!r:>{w}} {{y}} {d[\"k\"]:{\"a\"}} \\N{DASH} {x=}' NEWLINE ENDMARKER");
  CHECK(texts("f\"{f'{x:{y}}'}\" + 1") == "f\"{f'{x:{y}}'}\" + 1 NEWLINE ENDMARKER");
  // Format specs are literal text: quotes in them do not nest.
  CHECK(texts("f\"{x:'>10}\" 'a'") == "f\"{x:'>10}\" 'a' NEWLINE ENDMARKER");
  CHECK(texts("f'''{\n x\n}''' 1") == "f'''{\n x\n}''' 1 NEWLINE ENDMARKER");
  CHECK(texts("f'{(lambda x: x)(1)}'") == "f'{(lambda x: x)(1)}' NEWLINE ENDMARKER");
  auto plain = lex("f'{a}{b!s}'");
  CHECK(flags_of(*plain, TokKind::String) == (kStrFString | kStrSingleQuote));
}

TEST_CASE("lexer: f-strings reusing their quote follow 3.12 and are flagged") {
  const tpf::PyVersion v312{3, 12};
  auto l = lex("f\"{d[\"k\"]}\" + 1\n", v312);
  CHECK(texts(*l) == "f\"{d[\"k\"]}\" + 1 NEWLINE ENDMARKER");
  CHECK((flags_of(*l, TokKind::String) & kStrPep701) != 0);
  auto nested = lex("f'{f'{x}'}'", v312);
  CHECK(texts(*nested) == "f'{f'{x}'}' NEWLINE ENDMARKER");
  CHECK((flags_of(*nested, TokKind::String) & kStrPep701) != 0);
  // 3.11 ends them at the first quote.
  CHECK(texts(*lex("f'{f'{x}'}'")) == "f'{f' { x } '}' NEWLINE ENDMARKER");
  CHECK(texts("f'{'") == "f'{' NEWLINE ENDMARKER");
  CHECK(flags_of(*lex("f'{'"), TokKind::String) == (kStrFString | kStrSingleQuote));
  // 3.12: a field may span lines and hold a comment, even in '...'; a line
  // end in a '...' spec ends the spec.
  CHECK(texts(*lex("f'{a +\n b # c}\n}' 1", v312)) == "f'{a +\n b # c}\n}' 1 NEWLINE ENDMARKER");
  CHECK(texts(*lex("f'{x:a\n}' 1", v312)) == "f'{x:a\n}' 1 NEWLINE ENDMARKER");
  CHECK(texts(*lex("f'''{x:a\n}'''", v312)) == "f'''{x:a\n}''' NEWLINE ENDMARKER");
  // Unterminated ones name the f-string, as 3.12 does.
  // An unterminated string in a field with the f-string's own quote is a
  // missing '}'; mismatched brackets in a field are the tokenizer's error.
  CHECK(error(*lex("f'{'", v312)) == "1:4: f-string: expecting '}'");
  CHECK(error(*lex("f'{\"'", v312)) == "1:4: unterminated string literal (detected at line 1)");
  CHECK(error(*lex("f'{a[}'", v312)) ==
        "1:6: closing parenthesis '}' does not match opening parenthesis '['");
  CHECK(error(*lex("f'{a(\n]}'", v312)) ==
        "2:1: closing parenthesis ']' does not match opening parenthesis '(' on line 1");
  CHECK(error(*lex("f'a\nb'", v312)) == "1:1: unterminated f-string literal (detected at line 1)");
  CHECK(error(*lex("f'''{x}\n", v312)) ==
        "1:1: unterminated triple-quoted f-string literal (detected at line 1)");
  CHECK(error(*lex("'a\nb'", v312)) == "1:1: unterminated string literal (detected at line 1)");
}

TEST_CASE("lexer: operators take the longest match") {
  CHECK(texts("a**=b//=c>>=d<<=e->f:=g...h!=i<>j==k") ==
        "a **= b //= c >>= d <<= e -> f := g ... h != i <> j == k NEWLINE ENDMARKER");
  CHECK(texts("a@=b@c|d^e&f~g%h") == "a @= b @ c | d ^ e & f ~ g % h NEWLINE ENDMARKER");
  auto l = lex("$ ? ` !");
  CHECK(l->ts.tokens[0].kind == TokKind::UnknownOp);
  CHECK(l->ts.tokens[3].kind == TokKind::Exclamation);
  CHECK(error(*l) == "ok");
  CHECK(lex("a <> b")->ts.tokens[1].kind == TokKind::NotEqual);
}

TEST_CASE("lexer: comments are collected, not tokens") {
  auto l = lex("# head\nx = 1  # tail\n    # indented\n");
  CHECK(texts(*l) == "x = 1 NEWLINE ENDMARKER");
  REQUIRE(l->ts.comments.size() == 3);
  CHECK(l->src.text.substr(l->ts.comments[1].begin,
                           l->ts.comments[1].end - l->ts.comments[1].begin) == "# tail");
}

TEST_CASE("lexer: NEWLINE, INDENT and DEDENT positions") {
  auto l = lex("if x:\n    y = 1\n\n  # c\n    z\nw\n");
  CHECK(positions(*l) ==
        "NAME@1:0-1:2 NAME@1:3-1:4 OP@1:4-1:5 NEWLINE@1:5-2:0 INDENT@2:0-2:4 NAME@2:4-2:5 "
        "OP@2:6-2:7 NUMBER@2:8-2:9 NEWLINE@2:9-3:0 NAME@5:4-5:5 NEWLINE@5:5-6:0 DEDENT@6:0-6:0 "
        "NAME@6:0-6:1 NEWLINE@6:1-7:0 ENDMARKER@7:0-7:0");
  // No final newline: an empty NEWLINE, then DEDENTs and ENDMARKER at the end.
  CHECK(positions("if x:\n  y") ==
        "NAME@1:0-1:2 NAME@1:3-1:4 OP@1:4-1:5 NEWLINE@1:5-2:0 INDENT@2:0-2:2 NAME@2:2-2:3 "
        "NEWLINE@2:3-2:3 DEDENT@2:3-2:3 ENDMARKER@2:3-2:3");
  CHECK(texts("") == "ENDMARKER");
  CHECK(texts("\n\n  \n# only\n") == "ENDMARKER");
  CHECK(texts("if a:\n  if b:\n    c\nd\n") ==
        "if a : NEWLINE INDENT if b : NEWLINE INDENT c NEWLINE DEDENT DEDENT d NEWLINE ENDMARKER");
}

TEST_CASE("lexer: tabs, form feeds and CRLF") {
  CHECK(texts("if x:\n\tif y:\n\t\tz\n\tw\n") ==
        "if x : NEWLINE INDENT if y : NEWLINE INDENT z NEWLINE DEDENT w NEWLINE DEDENT ENDMARKER");
  // A tab goes to the next multiple of 8 ("    \t" is column 8, like 8
  // spaces), but the 1-column measure disagrees: a TabError, not a dedent.
  CHECK(error("if x:\n        y\n    \tz\n") ==
        "3:1: inconsistent use of tabs and spaces in indentation");
  // A form feed resets the column.
  CHECK(texts("if x:\n    y\n\f    z\n") ==
        "if x : NEWLINE INDENT y NEWLINE z NEWLINE DEDENT ENDMARKER");
  auto l = lex("x = 1\r\nif x:\r\n  y\r\n");
  CHECK(positions(*l) ==
        "NAME@1:0-1:1 OP@1:2-1:3 NUMBER@1:4-1:5 NEWLINE@1:5-2:0 NAME@2:0-2:2 NAME@2:3-2:4 "
        "OP@2:4-2:5 NEWLINE@2:5-3:0 INDENT@3:0-3:2 NAME@3:2-3:3 NEWLINE@3:3-4:0 "
        "DEDENT@4:0-4:0 ENDMARKER@4:0-4:0");
  CHECK(l->src.text.substr(l->ts.tokens[3].begin, 2) == "\r\n");
  // A lone \r ends a line too.
  CHECK(texts("a\rb\r") == "a NEWLINE b NEWLINE ENDMARKER");
}

TEST_CASE("lexer: implicit joining inside brackets") {
  auto l = lex("x = (1,\n     2,  # c\n\n  3)\ny\n");
  CHECK(texts(*l) == "x = ( 1 , 2 , 3 ) NEWLINE y NEWLINE ENDMARKER");
  CHECK(l->ts.comments.size() == 1);
  CHECK(texts("f(a,\n\tb)\n") == "f ( a , b ) NEWLINE ENDMARKER");
}

TEST_CASE("lexer: backslash continuations") {
  auto l = lex("x = 1 + \\\n    2\ny\n");
  CHECK(texts(*l) == "x = 1 + 2 NEWLINE y NEWLINE ENDMARKER");
  CHECK(l->ts.tokens[4].flags == kAfterContinuation);
  // In the indentation, the first backslash's column sets the level.
  CHECK(texts("if x:\n  \\\n      y\n") == "if x : NEWLINE INDENT y NEWLINE DEDENT ENDMARKER");
  // ... but CPython stores "none" as column 0, so a backslash there does not count.
  CHECK(texts("\\\n  x\n") == "INDENT x NEWLINE DEDENT ENDMARKER");
  // A backslash line followed by a blank line is blank.
  CHECK(texts("x\n\\\n\ny\n") == "x NEWLINE y NEWLINE ENDMARKER");
  // A file ending in \r\n gets an extra empty line from CPython.
  CHECK(texts("x = 1 + \\\r\n") == "x = 1 + NEWLINE ENDMARKER");
}

TEST_CASE("lexer: tokenize_range tokenizes as inside brackets") {
  auto l = lex("f'{a +\n b[0]}'\n");
  tpf::DiagSink diags;
  const TokenStream ts = tokenize_range(l->src, tpf::Span{3, 12}, diags);
  std::string got;
  for (const Token& t : ts.tokens) got += std::string(kind_name(t.kind)) + ' ';
  CHECK(got == "NAME OP NAME OP NUMBER OP ENDMARKER ");
  CHECK(ts.tokens[0].begin == 3);
  CHECK(l->src.pos(ts.tokens[2].begin).line == 2);
  CHECK(ts.tokens.back().begin == 12);
  CHECK_FALSE(diags.has_errors());
  tpf::DiagSink d2;
  const TokenStream open = tokenize_range(l->src, tpf::Span{3, 10}, d2);
  CHECK(d2.diagnostics().front().message == "'[' was never closed");
  CHECK(open.tokens.back().kind == TokKind::EndOfFile);
}

TEST_CASE("lexer: kind names and spellings") {
  CHECK(kind_name(TokKind::Newline) == "NEWLINE");
  CHECK(kind_name(TokKind::If) == "NAME");
  CHECK(kind_name(TokKind::DoubleStarEqual) == "OP");
  CHECK(spelling(TokKind::DoubleStarEqual) == "**=");
  CHECK(spelling(TokKind::Nonlocal) == "nonlocal");
  CHECK(spelling(TokKind::Name).empty());
  CHECK(is_aug_assign(TokKind::AtEqual));
}
