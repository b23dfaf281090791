// Syntax errors: CPython 3.11's message and position (line:col as printed,
// col 1-based = SyntaxError.offset) for the most common mistakes.
#include <doctest/doctest.h>

#include <string>

#include "test/parser/parser_test_util.h"

using tpf::parser::test::parse_snippet;
using tpf::parser::test::Parsed;

namespace {

struct Case {
  const char* code;
  const char* error;  // "line:col: message", measured with python3.11 -c "ast.parse(...)"
};

// Messages that do not depend on the lexer.
constexpr Case kCases[] = {
    {"del *a\n", "1:5: cannot delete starred"},
    {"(*a) = 1\n", "1:2: cannot use starred expression here"},
    {"f(**k, *a)\n", "1:8: iterable argument unpacking follows keyword argument unpacking"},
    {"f(a=1, b)\n", "1:9: positional argument follows keyword argument"},
    {"f(**k, a)\n", "1:9: positional argument follows keyword argument unpacking"},
    {"f(True=1)\n", "1:3: cannot assign to True"},
    {"f(a.b=1)\n", "1:3: expression cannot contain assignment, perhaps you meant \"==\"?"},
    {"f() = 1\n", "1:1: cannot assign to function call here. Maybe you meant '==' instead of '='?"},
    {"x = f() = 1\n", "1:5: cannot assign to function call"},
    {"1 = x\n", "1:1: cannot assign to literal here. Maybe you meant '==' instead of '='?"},
    {"True = 1\n", "1:1: cannot assign to True"},
    {"(a, 1) = 2\n", "1:5: cannot assign to literal"},
    {"if x = 1: pass\n", "1:4: invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
    {"if x.y = 1: pass\n",
     "1:4: cannot assign to attribute here. Maybe you meant '==' instead of '='?"},
    {"(a.b := 1)\n", "1:2: cannot use assignment expressions with attribute"},
    {"a := 1\n", "1:3: invalid syntax"},
    {"f(x for x in y, 1)\n", "1:3: Generator expression must be parenthesized"},
    {"f() += 1\n", "1:1: 'function call' is an illegal expression for augmented assignment"},
    {"(a, b): int\n", "1:1: only single target (not tuple) can be annotated"},
    {"[a]: int\n", "1:1: only single target (not list) can be annotated"},
    {"for f() in x: pass\n", "1:5: cannot assign to function call"},
    {"with a as f(): pass\n", "1:11: cannot assign to function call"},
    {"del a + b\n", "1:5: cannot delete expression"},
    {"x = yield = 1\n", "1:5: assignment to yield expression not possible"},
    {"print 'x'\n", "1:1: Missing parentheses in call to 'print'. Did you mean print(...)?"},
    {"[a b]\n", "1:2: invalid syntax. Perhaps you forgot a comma?"},
    {"x = (1, 2 3)\n", "1:9: invalid syntax. Perhaps you forgot a comma?"},
    {"a b\n", "1:3: invalid syntax"},
    {"if x\n  pass\n", "1:5: expected ':'"},
    {"def f(a=1, b): pass\n", "1:12: non-default argument follows default argument"},
    {"def f(*): pass\n", "1:7: named arguments must follow bare *"},
    {"def f(**k, a): pass\n", "1:12: arguments cannot follow var-keyword argument"},
    {"def f(*a=1): pass\n", "1:9: var-positional argument cannot have default value"},
    {"def f(a, /, b, /): pass\n", "1:16: / may appear only once"},
    {"def f(*a, /): pass\n", "1:11: / must be ahead of *"},
    {"'a' b'c'\n", "1:9: cannot mix bytes and nonbytes literals"},
    {"x = 1 if 2\n", "1:5: expected 'else' after 'if' expression"},
    {"from a import b,\n", "1:17: trailing comma not allowed without surrounding parentheses"},
    {"try:\n  pass\nx = 1\n", "3:1: expected 'except' or 'finally' block"},
    {"try:\n pass\nexcept* A:\n pass\nexcept B:\n pass\n",
     "5:1: cannot have both 'except' and 'except*' on the same 'try'"},
    {"try:\n pass\nexcept a, b:\n pass\n", "3:8: multiple exception types must be parenthesized"},
    {"match x:\n case 1+1: pass\n", "2:9: imaginary number required in complex literal"},
    {"if x:\npass\n", "2:1: expected an indented block after 'if' statement on line 1"},
    {"def f():\npass\n", "2:1: expected an indented block after function definition on line 1"},
    {"class A:\npass\n", "2:1: expected an indented block after class definition on line 1"},
    {"for x in y:\npass\n", "2:1: expected an indented block after 'for' statement on line 1"},
    {"try:\n  pass\nexcept:\npass\n",
     "4:1: expected an indented block after 'except' statement on line 3"},
    {"x = {**a for a in b}\n", "1:6: dict unpacking cannot be used in dict comprehension"},
    {"f'{}'\n", "1:6: f-string: empty expression not allowed"},
    {"f'{a b}'\n", "1:2: f-string: invalid syntax. Perhaps you forgot a comma?"},
    {"f'{x!z}'\n", "1:9: f-string: invalid conversion character: expected 's', 'r', or 'a'"},
    {"f'{x'\n", "1:6: f-string: expecting '}'"},
    {"f'}'\n", "1:5: f-string: single '}' is not allowed"},
    {"f'{**a}'\n", "1:2: f-string: cannot use double starred expression here"},
    {"with a as b\n", "1:12: expected ':'"},
    {"with (blech, block as something)\n  pass\n", "1:33: expected ':'"},
    {"try:\n  pass\nexcept\n  pass\n", "3:7: expected ':'"},
    {"match x\n  case list():\n      pass\n", "1:8: expected ':'"},
    {"match x x:\n  case list():\n      pass\n", "1:9: invalid syntax"},
    {"[x,y for x,y in range(100)]\n",
     "1:2: did you forget parentheses around the comprehension target?"},
    {"def foo(a=1,/*,b,c):\n   pass\n", "1:14: expected comma between / and *"},
    {"def foo(a,d=,c):\n   pass\n", "1:12: expected default value expression"},
    {"def f(x, (y, z), w):\n   pass\n", "1:10: Function parameters cannot be parenthesized"},
    {"lambda (x, y, z, w): None\n", "1:8: Lambda expression parameters cannot be parenthesized"},
    {"{1:2, 3:4, 5}\n", "1:12: ':' expected after dictionary key"},
    {"{1:}\n", "1:3: expression expected after dictionary key and ':'"},
    {"{1: 23, 1: *12+1}\n", "1:12: cannot use a starred expression in a dictionary value"},
    {"match ...:\n  case 42 as 1+2+4:\n    ...\n", "2:14: invalid pattern target"},
    {"(yield i) = 2\n",
     "1:2: cannot assign to yield expression here. Maybe you meant '==' instead of '='?"},
    {"dict(a = i for i in range(10))\n",
     "1:6: invalid syntax. Maybe you meant '==' or ':=' instead of '='?"},
    {"f((x)=2)\n", "1:4: expression cannot contain assignment, perhaps you meant \"==\"?"},
    {"will not work\n", "1:10: invalid syntax"},
    {"if True:\n    print(\"Hello\"\n\nif 2:\n   print(123))\n", "4:5: invalid syntax"},
    {"x = '\\xq'\n",
     "1:10: (unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: "
     "truncated \\xXX escape"},
    {"x = b'\\xq' b'a'\n", "1:16: (value error) invalid \\x escape at position 0"},
};

}  // namespace

TEST_CASE("parser: CPython's syntax error messages and positions") {
  for (const Case& c : kCases) {
    CAPTURE(c.code);
    CHECK(parse_snippet(c.code).error == c.error);
  }
}

TEST_CASE("parser: lexer errors are not doubled by the parser") {
  auto p = parse_snippet("x = (1,\n");
  CHECK(p.error.find("was never closed") != std::string::npos);
}

TEST_CASE("parser: an unclosed bracket at EOF yields to a generic error before it, as in CPython") {
  // The parser fails at ':' before reaching the end: "invalid syntax" there.
  CHECK(parse_snippet("def f(:\n    pass\n").error == "1:7: invalid syntax");
  // Second-pass messages do not win over the tokenizer's (python3.11).
  CHECK(parse_snippet("f(a b\n").error == "1:2: '(' was never closed");
  CHECK(parse_snippet("foo(\n  x y\n").error == "1:4: '(' was never closed");
  CHECK(parse_snippet("if (a:\n  b\n").error == "1:6: invalid syntax");
}

TEST_CASE("parser: second-pass messages or an unclosed bracket, one error as in CPython 3.11") {
  // CPython raises the tokenizer's "'(' was never closed" the moment its
  // parser fetches the end of a file inside a bracket, so that wins when the
  // rule that blames something read that far: the comma hint reads all of
  // the expression after the missing comma and the token after it,
  // invalid_arguments every argument after the comma. Otherwise the message
  // stands, unless the bracket was opened on a line above it. Each case
  // measured with python3.11; each gives exactly one error. Known misses
  // (the rule reads further than we model): `x = (a := 1, b.c := 2` and
  // `x = [*a for a in b` are "never closed" in CPython.
  constexpr Case cases[] = {
      {"f(x for x in y z w\n", "1:16: invalid syntax"},
      {"f(x for x in y z)\n", "1:16: invalid syntax"},
      {"f(x for x in y, 1)\n", "1:3: Generator expression must be parenthesized"},
      {"f(a, x for x in y)\n", "1:6: Generator expression must be parenthesized"},
      {"f(a, x for x in y z\n", "1:6: Generator expression must be parenthesized"},
      {"f(a, x for x in y\n", "1:2: '(' was never closed"},
      {"f(x for x in y if\n", "1:2: '(' was never closed"},
      {"f(x for x in y 1)\n", "1:16: invalid syntax"},
      {"f(x for x in y\n", "1:2: '(' was never closed"},
      {"f(x for x in y = 2)\n", "1:16: invalid syntax"},
      {"f(a=1, b\n", "1:2: '(' was never closed"},
      {"f(a=1, b c\n", "1:2: '(' was never closed"},
      {"f(**k, a\n", "1:2: '(' was never closed"},
      {"f(**k, a, b\n", "1:2: '(' was never closed"},
      {"f(True=1\n", "1:3: cannot assign to True"},
      {"f(True=1, 2\n", "1:3: cannot assign to True"},
      {"x = [i for i in range(3) if\n", "1:5: '[' was never closed"},
      {"{1:2, 3\n", "1:1: '{' was never closed"},
      {"{1:2, 3, 4\n", "1:7: ':' expected after dictionary key"},
      {"f(a.b=1\n", "1:3: expression cannot contain assignment, perhaps you meant \"==\"?"},
      {"f(a.b=1, c\n", "1:3: expression cannot contain assignment, perhaps you meant \"==\"?"},
      {"x = (yield = 1\n", "1:12: invalid syntax"},
      {"d = {1: *a, 2\n", "1:9: cannot use a starred expression in a dictionary value"},
      {"x = [\n1 if 2\n\n", "1:5: '[' was never closed"},
      {"f(\n  a, x for x in y z\n\n", "1:2: '(' was never closed"},
      {"f(x,\n**k, *a, 1\n", "1:2: '(' was never closed"},
      {"print(f\"{a b}\"\n", "1:6: '(' was never closed"},
      {"x = [lambda x=1, y: 0\n", "1:18: non-default argument follows default argument"},
      {"f(*a=1\n", "1:5: invalid syntax"},
      {"f(x for x in y,\n\n", "1:2: '(' was never closed"},
      {"f(a b\n", "1:2: '(' was never closed"},
      {"x = (1 2 3\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
      {"x = (1 2\n", "1:5: '(' was never closed"},
      {"f(a b c\n", "1:3: invalid syntax. Perhaps you forgot a comma?"},
      {"(a b c\n", "1:2: invalid syntax. Perhaps you forgot a comma?"},
      {"x = (1, 2 3\n", "1:5: '(' was never closed"},
      {"x = (1 2+3 4\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
      {"x = (1 2+3\n", "1:5: '(' was never closed"},
      {"f(a b.c(\n", "1:8: '(' was never closed"},
      {"f(a b.c(1) 2\n", "1:3: invalid syntax. Perhaps you forgot a comma?"},
      {"f(a b if\n", "1:2: '(' was never closed"},
      {"x = [1 2 if 3 else 4\n", "1:5: '[' was never closed"},
      {"x = [1 lambda: 2\n", "1:5: '[' was never closed"},
      {"x = [1 2 3]\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
      {"f(a b c)\ng(\n", "1:3: invalid syntax. Perhaps you forgot a comma?"},
      {"x = (1 2 3\n\n\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
      {"f(a b\n)\n", "1:3: invalid syntax. Perhaps you forgot a comma?"},
      {"x = (\n1 2 3\n", "1:5: '(' was never closed"},
      {"x = [\n  f(a b c)\n\n", "1:5: '[' was never closed"},
      {"x = (1 2 3\ny = [\n", "1:6: invalid syntax. Perhaps you forgot a comma?"},
      {"{a b c\n", "1:2: invalid syntax. Perhaps you forgot a comma?"},
      {"f(a=1, b c d\n", "1:8: invalid syntax. Perhaps you forgot a comma?"},
      {"f(**k, a, b, c\n", "1:2: '(' was never closed"},
      {"x = (a := 1, b.c := 2, 3\n", "1:14: cannot use assignment expressions with attribute"},
      {"def f(a=1, b\n", "1:6: '(' was never closed"},
      {"def f(a=1, b, c\n", "1:12: non-default argument follows default argument"},
      {"f(a for a in b for\n", "1:2: '(' was never closed"},
      {"x = [*a for a in b, 1\n", "1:6: iterable unpacking cannot be used in comprehension"},
      {"f(a=1, b, c)\n", "1:12: positional argument follows keyword argument"},
      {"f(a=1, b, c\n", "1:2: '(' was never closed"},
      {"f(x for x in y, z\n", "1:2: '(' was never closed"},
      {"f(x for x in y, z, w)\n", "1:3: Generator expression must be parenthesized"},
      {"f(a=1, b c)\n", "1:8: invalid syntax. Perhaps you forgot a comma?"},
      {"f(**k, a, b)\n", "1:12: positional argument follows keyword argument unpacking"},
      {"f(a, b for b in c, d)\n", "1:6: Generator expression must be parenthesized"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.code);
    Parsed p = parse_snippet(c.code);
    CHECK(p.error == c.error);
    CHECK(p.errors == 1);
  }
}
