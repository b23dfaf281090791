// PEP 701 f-strings (3.12+): what CPython 3.12.1 and 3.13.0 accept and the
// message and position (line:col as printed, col 1-based) of what they
// reject. Measured with ast.parse under both (they agree on every case).
#include <doctest/doctest.h>

#include <string>

#include "test/parser/parser_test_util.h"

using tpf::parser::test::parse_snippet;

namespace {

struct Case {
  const char* code;
  const char* error;  // nullptr: accepted
};

constexpr Case kCases[] = {
    {"f\"{a b}\"\n", "1:4: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{a +}\"\n", "1:6: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{)}\"\n", "1:4: f-string: unmatched ')'"},
    {"f\"{a!r=}\"\n", "1:7: f-string: expecting ':' or '}'"},
    {"f\"{lambda x:1}\"\n", "1:4: f-string: lambda expressions are not allowed without parentheses"},
    {"f\"{x:{y:{z:{w}}}}\"\n", "1:11: f-string: expressions nested too deeply"},
    {"f\"{!r}\"\n", "1:4: f-string: valid expression required before '!'"},
    {"f\"{=}\"\n", "1:4: f-string: valid expression required before '='"},
    {"f\"{x!r }\"\n", nullptr},
    {"f\"{x! r}\"\n", "1:5: f-string: conversion type must come right after the exclamanation mark"},
    {"f\"{\"\n", "1:4: f-string: expecting '}'"},
    {"f\"}\"\n", "1:3: f-string: single '}' is not allowed"},
    {"f\"{x\"\n", "1:5: f-string: expecting '}'"},
    {"f\"{x:\"\n", "1:6: f-string: expecting '}', or format specs"},
    {"f\"{x!\"\n", "1:6: f-string: expecting '}'"},
    {"f\"{x=!}\"\n", "1:7: f-string: missing conversion character"},
    {"f\"{x}}\"\n", "1:6: f-string: single '}' is not allowed"},
    {"f\"{{}\"\n", "1:5: f-string: single '}' is not allowed"},
    {"f\"{x:}}\"\n", "1:7: f-string: single '}' is not allowed"},
    {"rf\"{x:\\x41}\"\n", nullptr},
    {"f\"{'\\n'=}\"\n", nullptr},
    {"f\"{x!rr}\"\n", "1:6: f-string: invalid conversion character 'rr': expected 's', 'r', or 'a'"},
    {"f\"{ }\"\n", "1:5: f-string: valid expression required before '}'"},
    {"f\"{x:{ }}\"\n", "1:8: f-string: valid expression required before '}'"},
    {"f\"{*x}\"\n", nullptr},
    {"f\"{x,}\"\n", nullptr},
    {"f\"{a:=1}\"\n", nullptr},
    {"f\"{yield x}\"\n", nullptr},
    {"f\"{x\n}\"\n", nullptr},
    {"f\"{x:a\n}\"\n", nullptr},
    {"f\"abc\ndef\"\n", "1:1: unterminated f-string literal (detected at line 1)"},
    {"f\"{x}\n\"\n", "1:1: unterminated f-string literal (detected at line 1)"},
    {"f'{x:'\n", "1:6: f-string: expecting '}', or format specs"},
    {"f\"{[}\"\n", "1:5: closing parenthesis '}' does not match opening parenthesis '['"},
    {"f\"{x]}\"\n", "1:5: f-string: unmatched ']'"},
    {"f\"{(x]}\"\n", "1:6: closing parenthesis ']' does not match opening parenthesis '('"},
    {"f\"{x:{y!}}\"\n", "1:9: f-string: missing conversion character"},
    {"x = 1 +\\\n f\"{x y}\"\n", "2:5: invalid syntax. Perhaps you forgot a comma?"},
    {"\"a\" f\"{b c}\"\n", "1:8: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"\"\"\n{a b}\"\"\"\n", "2:2: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{x!s:>{w}}\"\n", nullptr},
    {"b\"a\" f\"b\"\n", "1:10: cannot mix bytes and nonbytes literals"},
    {"f\"{x}\" b\"a\"\n", "1:12: cannot mix bytes and nonbytes literals"},
    {"f\"\\{x}\"\n", nullptr},
    {"f\"{x}\\\"\n", "1:1: unterminated f-string literal (detected at line 1)"},
    {"f\"{f\"{f\"{f\"{x}\"}\"}\"}\"\n", nullptr},
    {"f\"{x:=}\"\n", nullptr},
    {"f\"{x:!}\"\n", nullptr},
    {"f\"{x!r:=}\"\n", nullptr},
    {"f\"{a[\"b\"]:{c}}\"\n", nullptr},
    {"f\"{}\"\n", "1:4: f-string: valid expression required before '}'"},
    {"f\"{x!z}\"\n", "1:6: f-string: invalid conversion character 'z': expected 's', 'r', or 'a'"},
    {"f\"{x:{y:{z}}}\"\n", nullptr},
    {"f\"{x:{y:{z:{w}}}}\"\n", "1:11: f-string: expressions nested too deeply"},
    {"f\"{a}\" f\"{b!}\"\n", "1:13: f-string: missing conversion character"},
    {"f\"\"\"{\n# c\nx}\"\"\"\n", nullptr},
    {"f'{x:\n}'\n", nullptr},
    // A field cut short: the longest expression that parses, then the next token.
    {"f\"{not}\"\n", "1:4: f-string: expecting a valid expression after '{'"},
    {"f\"{x if y}\"\n", "1:4: expected 'else' after 'if' expression"},
    {"f\"{a + b *}\"\n", "1:10: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{a +}\"\n", "1:6: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{a.}\"\n", "1:5: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{a, b c}\"\n", "1:7: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{(a b)}\"\n", "1:5: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{a b=}\"\n", "1:4: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{a b:x}\"\n", "1:4: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{a + b c}\"\n", "1:4: invalid syntax. Perhaps you forgot a comma?"},
    {"f\"{a[}\"\n", "1:6: closing parenthesis '}' does not match opening parenthesis '['"},
    {"f\"{a(}\"\n", "1:6: closing parenthesis '}' does not match opening parenthesis '('"},
    {"f\"{x for}\"\n", "1:6: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{lambda}\"\n", "1:4: f-string: expecting a valid expression after '{'"},
    {"f\"{a +  :x}\"\n", "1:6: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{a+!r}\"\n", "1:5: f-string: expecting '=', or '!', or ':', or '}'"},
    {"f\"{a[\n}\"\n", "2:1: closing parenthesis '}' does not match opening parenthesis '[' on line 1"},
};

}  // namespace

TEST_CASE("parser: PEP 701 f-string errors are CPython 3.12's and 3.13's") {
  for (tpf::PyVersion v : {tpf::PyVersion{3, 12}, tpf::PyVersion{3, 13}}) {
    for (const Case& c : kCases) {
      const std::string code = c.code, want = c.error ? c.error : "", version = v.str();
      CAPTURE(code);
      CAPTURE(version);
      CHECK(parse_snippet(code, v).error == want);
    }
  }
}
