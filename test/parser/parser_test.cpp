// Parser unit tests: CPython 3.11 spans and fields for the constructs whose
// positions are easy to get wrong. Expected values measured with python3.11's ast.
#include <doctest/doctest.h>

#include <string>

#include "test/parser/parser_test_util.h"

using tpf::parser::test::parse_snippet;
using tpf::parser::test::pos;

namespace {
const nlohmann::json& stmt(const tpf::parser::test::Parsed& p, int i) {
  return p.tree["body"][static_cast<size_t>(i)];
}
}  // namespace

TEST_CASE("parser: parentheses are outside a group's span but inside the enclosing node") {
  auto p = parse_snippet("(a) + b\n");
  REQUIRE(p.error == "");
  const auto& e = stmt(p, 0);
  CHECK(pos(e) == "1:0-1:7");
  CHECK(pos(e["value"]) == "1:0-1:7");
  CHECK(pos(e["value"]["left"]) == "1:1-1:2");
  auto q = parse_snippet("x = ((a, b))\n");
  CHECK(pos(stmt(q, 0)["value"]) == "1:5-1:11");  // the tuple owns its own parentheses
}

TEST_CASE("parser: a tuple's span includes its trailing comma") {
  auto p = parse_snippet("x = 1, 2,\n");
  CHECK(pos(stmt(p, 0)["value"]) == "1:4-1:9");
  auto s = parse_snippet("a[1, 2,]\n");
  CHECK(pos(stmt(s, 0)["value"]["slice"]) == "1:2-1:7");
}

TEST_CASE("parser: a generator expression as the sole argument spans the call's parentheses") {
  auto p = parse_snippet("f(x for x in y)\n");
  const auto& call = stmt(p, 0)["value"];
  CHECK(call["_type"] == "Call");
  CHECK(pos(call["args"][0]) == "1:1-1:15");
  CHECK(call["args"][0]["_type"] == "GeneratorExp");
  CHECK(call["args"][0]["generators"][0].contains("lineno") == false);
}

TEST_CASE("parser: concatenated strings span all their tokens; kind 'u' from the first") {
  auto p = parse_snippet("x = (u'a'\n     'b')\ny = 'a' u'b'\n");
  const auto& c = stmt(p, 0)["value"];
  CHECK(pos(c) == "1:5-2:8");
  CHECK(c["value"]["str"] == "ab");
  CHECK(c["kind"] == "u");
  CHECK(stmt(p, 1)["value"]["kind"].is_null());
  auto b = parse_snippet("b'\\x00a' B'b'\n");
  CHECK(stmt(b, 0)["value"]["value"]["bytes"] == std::string("\0ab", 3));
}

TEST_CASE("parser: a decorated def starts at 'def'; its end is its last statement") {
  auto p = parse_snippet("@d\n@e(1)\ndef f():\n    pass\n\n\nx = 1\n");
  const auto& f = stmt(p, 0);
  CHECK(pos(f) == "3:0-4:8");
  CHECK(pos(f["decorator_list"][1]) == "2:1-2:5");
  auto c = parse_snippet("if a:\n    if b:\n        pass\nelif c:\n    x = 1\nelse:\n    y\n");
  const auto& top = stmt(c, 0);
  CHECK(pos(top) == "1:0-7:5");
  CHECK(pos(top["orelse"][0]) == "4:0-7:5");  // the elif is a nested If
}

TEST_CASE("parser: ImportFrom level counts '.' and '...' tokens") {
  auto p = parse_snippet("from .... import a\nfrom .x.y import (b as c,)\n");
  CHECK(stmt(p, 0)["level"] == 4);
  CHECK(stmt(p, 0)["module"].is_null());
  CHECK(stmt(p, 1)["module"] == "x.y");
  CHECK(pos(stmt(p, 1)["names"][0]) == "2:18-2:24");
}

TEST_CASE("parser: expression contexts through targets") {
  auto p = parse_snippet("(a, [b, *c]) = d\ndel e.f, g[0]\nfor h, in i: pass\n");
  const auto& t = stmt(p, 0)["targets"][0];
  CHECK(t["ctx"]["_type"] == "Store");
  CHECK(t["elts"][1]["ctx"]["_type"] == "Store");
  CHECK(t["elts"][1]["elts"][1]["value"]["ctx"]["_type"] == "Store");
  CHECK(stmt(p, 1)["targets"][0]["ctx"]["_type"] == "Del");
  CHECK(stmt(p, 1)["targets"][0]["value"]["ctx"]["_type"] == "Load");
  CHECK(stmt(p, 2)["target"]["_type"] == "Tuple");
}

TEST_CASE("parser: arguments, arg defaults and kw_defaults") {
  auto p = parse_snippet("def f(a, /, b: int = 1, *c, d, e=2, **g): pass\n");
  const auto& args = stmt(p, 0)["args"];
  CHECK(args.contains("lineno") == false);
  CHECK(args["posonlyargs"].size() == 1);
  CHECK(pos(args["args"][0]) == "1:12-1:18");  // name and annotation, not the default
  CHECK(args["defaults"].size() == 1);
  CHECK(args["kw_defaults"][0].is_null());
  CHECK(args["kw_defaults"][1]["value"]["int"] == "2");
  CHECK(args["vararg"]["arg"] == "c");
  CHECK(args["kwarg"]["arg"] == "g");
}

TEST_CASE("parser: annotated assignment 'simple'") {
  auto p = parse_snippet("x: int\n(y): int = 1\nz.w: int\n");
  CHECK(stmt(p, 0)["simple"] == 1);
  CHECK(stmt(p, 1)["simple"] == 0);
  CHECK(stmt(p, 2)["simple"] == 0);
}

TEST_CASE("parser: f-string parts span the whole string; fields get real positions") {
  auto p = parse_snippet("x = (f'a{b!r:>{c}}'\n     'd')\n");
  const auto& j = stmt(p, 0)["value"];
  CHECK(j["_type"] == "JoinedStr");
  CHECK(pos(j) == "1:5-2:8");
  CHECK(pos(j["values"][0]) == "1:5-2:8");  // Constant 'a'
  const auto& fv = j["values"][1];
  CHECK(pos(fv) == "1:5-2:8");
  CHECK(fv["conversion"] == 114);
  CHECK(pos(fv["value"]) == "1:9-1:10");
  CHECK(pos(fv["format_spec"]) == "1:5-1:19");  // only the token holding it
  CHECK(pos(fv["format_spec"]["values"][0]) == "1:5-2:8");
  CHECK(pos(fv["format_spec"]["values"][1]["value"]) == "1:15-1:16");
  CHECK(j["values"][2]["value"]["str"] == "d");
}

TEST_CASE("parser: f-string debug text, conversions and merged literals") {
  auto p = parse_snippet("f'{x=}' f'{y = :>3}' f'{z!a}' 'w'\n");
  const auto& v = stmt(p, 0)["value"]["values"];
  CHECK(v[0]["value"]["str"] == "x=");
  CHECK(v[1]["conversion"] == 114);
  CHECK(v[2]["value"]["str"] == "y = ");
  CHECK(v[3]["conversion"] == -1);
  CHECK(v[4]["conversion"] == 97);
  CHECK(v[5]["value"]["str"] == "w");
}

TEST_CASE("parser: f-string fields in multi-line strings") {
  auto p = parse_snippet("zz = f'''abc\n  {aa}\n{\n bb}'''\n");
  const auto& v = stmt(p, 0)["value"]["values"];
  CHECK(pos(v[1]["value"]) == "2:3-2:5");
  CHECK(pos(v[3]["value"]) == "4:1-4:3");
  // A tuple in a field owns the virtual parentheses 3.11 wraps around it.
  auto t = parse_snippet("zz = f'{x,}'\n");
  CHECK(pos(stmt(t, 0)["value"]["values"][0]["value"]) == "1:7-1:11");
  // Non-ASCII text before a field: columns are UTF-8 bytes.
  auto u = parse_snippet("zz = 'ä' f'ö{aa}'\n");
  CHECK(pos(stmt(u, 0)["value"]["values"][1]["value"]) == "1:15-1:17");
}

TEST_CASE("parser: match statement patterns") {
  auto p = parse_snippet(
      "match x:\n"
      "    case [1, *rest] | {'k': -1, **kw} | P(a, b=2) as whole if rest:\n"
      "        pass\n"
      "    case _:\n"
      "        pass\n");
  const auto& m = stmt(p, 0);
  CHECK(m["_type"] == "Match");
  const auto& c = m["cases"][0];
  CHECK(c.contains("lineno") == false);
  CHECK(c["pattern"]["_type"] == "MatchAs");
  const auto& orp = c["pattern"]["pattern"];
  CHECK(orp["_type"] == "MatchOr");
  CHECK(orp["patterns"][0]["patterns"][1]["_type"] == "MatchStar");
  CHECK(orp["patterns"][1]["keys"][0]["value"]["str"] == "k");
  CHECK(orp["patterns"][1]["patterns"][0]["value"]["_type"] == "UnaryOp");
  CHECK(orp["patterns"][1]["rest"] == "kw");
  CHECK(orp["patterns"][2]["kwd_attrs"][0] == "b");
  CHECK(m["cases"][1]["pattern"]["name"].is_null());
  auto s = parse_snippet("match = 1\nmatch(x)\n");
  CHECK(stmt(s, 0)["_type"] == "Assign");
  CHECK(stmt(s, 1)["value"]["_type"] == "Call");
}

TEST_CASE("parser: 3.12 type parameters are dumped from 3.12 on") {
  auto p = parse_snippet("def f[T: int, *Ts, **P](): pass\ndef g(): pass\ntype X[T] = list[T]\n",
                         tpf::PyVersion{3, 12});
  REQUIRE(p.error == "");
  const auto& tp = stmt(p, 0)["type_params"];
  CHECK(tp[0]["_type"] == "TypeVar");
  CHECK(tp[0]["bound"]["id"] == "int");
  CHECK(tp[1]["_type"] == "TypeVarTuple");
  CHECK(tp[2]["_type"] == "ParamSpec");
  CHECK(stmt(p, 1)["type_params"].is_array());
  CHECK(stmt(p, 1)["type_params"].empty());
  CHECK(tp[0].contains("default_value") == false);  // 3.13's field
  CHECK(parse_snippet("def g(): pass\n").tree["body"][0].contains("type_params") == false);
  CHECK(stmt(p, 2)["_type"] == "TypeAlias");
  CHECK(stmt(p, 2)["name"]["ctx"]["_type"] == "Store");
}

TEST_CASE("parser: numbers") {
  auto p = parse_snippet("x = 0x_FF + 1e400 + 2.5j + 10**30\n");
  const auto& e = stmt(p, 0)["value"];
  CHECK(e["left"]["left"]["left"]["value"]["int"] == "255");
  CHECK(e["left"]["left"]["right"]["value"]["float"] == "inf");
  CHECK(e["left"]["right"]["value"]["complex"] == "2.5");
}

TEST_CASE("parser: deep nesting is a syntax error, never a stack overflow") {
  std::string minus(100000, '-');
  CHECK(parse_snippet(minus + "1\n").error != "");
  std::string nots;
  for (int i = 0; i < 100000; ++i) nots += "not ";
  CHECK(parse_snippet(nots + "x\n").error != "");
  std::string lambdas;
  for (int i = 0; i < 100000; ++i) lambdas += "lambda:";
  CHECK(parse_snippet(lambdas + "x\n").error != "");
  std::string attrs = "a";
  for (int i = 0; i < 100000; ++i) attrs += ".b";
  CHECK(parse_snippet(attrs + "\n").error != "");  // CPython: RecursionError
  std::string ifs = "x if y else ";
  std::string chain;
  for (int i = 0; i < 100000; ++i) chain += ifs;
  CHECK(parse_snippet(chain + "z\n").error != "");
  // ... while what CPython 3.11 still accepts parses.
  CHECK(parse_snippet(std::string(2985, '-') + "1\n").error == "");
}
