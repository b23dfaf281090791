// Autofix building blocks: tools/fix (applying edits, the unified diff)
// and checks/fixes (edits located through the AST), on small sources with
// the exact bytes expected.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "checks/fixes.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "tools/fix.h"

namespace {

using tpf::Diagnostic;
using tpf::Edit;
using tpf::Span;

Diagnostic with_fix(std::vector<Edit> edits) {
  Diagnostic d;
  d.code = "TPF000";
  d.fix = tpf::Fix{"fix", std::move(edits)};
  return d;
}

/// A file parsed to the AST and IR, for the checks/fixes helpers.
struct Parsed {
  tpf::SourceFile src;
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks;
  tpf::ast::Module ast;
  tpf::ir::Module ir;
  tpf::dataflow::FileFacts facts;
  explicit Parsed(std::string text) {
    REQUIRE(tpf::lexer::make_source("t.py", std::move(text), src, diags));
    toks = tpf::lexer::tokenize(src, diags);
    ast = tpf::parser::parse(src, toks, diags);
    REQUIRE_FALSE(diags.has_errors());
    ir = tpf::ir::build(ast, src, diags, tpf::ir::kVerify);
    facts = tpf::dataflow::compute_facts(ir);
  }
  tpf::checks::CheckContext ctx() const { return {src, ast, ir, facts}; }
  Span find(std::string_view what) const {
    auto b = static_cast<uint32_t>(src.text.find(what));
    REQUIRE(b != std::string_view::npos);
    return {b, b + static_cast<uint32_t>(what.size())};
  }
};

}  // namespace

TEST_CASE("fix: edits apply in offset order; overlaps are skipped, duplicates count once") {
  std::string text = "abcdef\n";
  std::vector<Diagnostic> ds = {with_fix({{{4, 5}, "E"}}), with_fix({{{0, 1}, "A"}}),
                                with_fix({{{0, 2}, "XX"}}), with_fix({{{4, 5}, "E"}}),
                                with_fix({{{6, 6}, "!"}})};
  ds.push_back(Diagnostic{});  // no fix
  tpf::tools::FixResult r = tpf::tools::apply_fixes(text, ds, {});
  CHECK(r.text == "AbcdEf!\n");
  CHECK(r.applied == std::vector<size_t>{0, 1, 3, 4});
  CHECK(r.edits.size() == 3);
  // `take` selects
  r = tpf::tools::apply_fixes(text, ds, {false, false, true});
  CHECK(r.text == "XXcdef\n");
  // an edit past the end is refused, not applied
  std::vector<Diagnostic> bad = {with_fix({{{3, 99}, "x"}})};
  CHECK(tpf::tools::apply_fixes(text, bad, {}).applied.empty());
}

TEST_CASE("fix: unified diff with context, merged hunks and line numbers") {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += "l" + std::to_string(i) + "\n";
  auto at = [&](std::string_view s) { return static_cast<uint32_t>(text.find(s)); };
  // a replacement on line 2, an insertion before line 5 (merged: 3 lines
  // apart), and one at line 18 (its own hunk, numbered after the insert)
  std::vector<Edit> edits = {{{at("l2\n"), at("l2\n") + 2}, "L2"},
                             {{at("l5\n"), at("l5\n")}, "new\n"},
                             {{at("l18\n"), at("l18\n") + 3}, "L18"}};
  CHECK(tpf::tools::unified_diff("t.py", text, edits) ==
        "--- t.py\n+++ t.py\n"
        "@@ -1,7 +1,8 @@\n l1\n-l2\n+L2\n l3\n l4\n+new\n l5\n l6\n l7\n"
        "@@ -15,6 +16,6 @@\n l15\n l16\n l17\n-l18\n+L18\n l19\n l20\n");
  CHECK(tpf::tools::unified_diff("t.py", text, {}) == "");
}

TEST_CASE("fix: unified diff at the end of a file without a final newline") {
  std::string text = "a\nb";
  std::vector<Edit> edits = {{{3, 3}, "\nc"}};
  CHECK(tpf::tools::unified_diff("t.py", text, edits) ==
        "--- t.py\n+++ t.py\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+c\n"
        "\\ No newline at end of file\n");
}

TEST_CASE("fixes: a line after a statement keeps its indentation and line ending") {
  Parsed p("for x in y:\r\n    opt.step()  # c\r\n    z = 1\r\n");
  auto e = tpf::checks::insert_line_after(p.ctx(), p.find("opt.step()"), "opt.zero_grad()");
  REQUIRE(e);
  CHECK(e->span.begin == p.find("    z = 1").begin);
  CHECK(e->text == "    opt.zero_grad()\r\n");
  // at the end of a file without a final newline
  Parsed q("for x in y:\n\topt.step()");
  e = tpf::checks::insert_line_after(q.ctx(), q.find("opt.step()"), "opt.zero_grad()");
  REQUIRE(e);
  CHECK(e->text == "\n\topt.zero_grad()\n");
  // ... in a CRLF file: the file's line ending, not LF
  Parsed crlf("for x in y:\r\n    opt.step()");
  e = tpf::checks::insert_line_after(crlf.ctx(), crlf.find("opt.step()"), "opt.zero_grad()");
  REQUIRE(e);
  CHECK(e->text == "\r\n    opt.zero_grad()\r\n");
  const auto cc = crlf.ctx();
  e = tpf::checks::insert_line_before(cc, tpf::checks::statement_at(cc, crlf.find("opt.step()")),
                                      "opt.zero_grad()");
  REQUIRE(e);
  CHECK(e->text == "    opt.zero_grad()\r\n");
  // refused: a body on the header's line, two statements on a line
  Parsed r("for x in y: opt.step()\nfor x in y:\n    opt.step(); f()\n");
  CHECK_FALSE(tpf::checks::insert_line_after(r.ctx(), r.find("opt.step()"), "z"));
  Span second = r.find("    opt.step(); f()");
  CHECK_FALSE(tpf::checks::insert_line_after(r.ctx(), {second.begin + 4, second.begin + 14}, "z"));
}

TEST_CASE("fixes: moving a lone statement within its block") {
  namespace C = tpf::checks;
  Parsed p("for x in y:\r\n    a()\r\n    b()  # note\r\n    if c:\r\n        d()\r\n    e()\r\n");
  auto ctx = p.ctx();
  auto stmt = [&](std::string_view s) {
    auto n = C::statement_at(ctx, p.find(s));
    REQUIRE(n.valid());
    return n;
  };
  size_t i = 99;
  auto block = C::enclosing_block(ctx, stmt("b()"), i);
  CHECK(block.size() == 4);
  CHECK(i == 1);
  CHECK(C::is_simple_statement(ctx, stmt("b()")));
  CHECK_FALSE(C::is_simple_statement(ctx, block[2]));  // the if
  CHECK(C::movable_line(ctx, stmt("b()")) == std::optional<std::string>("b()  # note"));
  auto cut = C::remove_line(ctx, stmt("b()"));
  REQUIRE(cut);
  CHECK(cut->span.begin == p.find("    b()").begin);
  CHECK(cut->span.end == p.find("    if c:").begin);
  auto put = C::insert_line_before(ctx, stmt("a()"), "s.set_epoch(x)");
  REQUIRE(put);
  CHECK(put->span.begin == p.find("    a()").begin);
  CHECK(put->text == "    s.set_epoch(x)\r\n");
  // after a compound statement: after its last line
  auto mv = C::move_statement(ctx, stmt("b()"), block[2], tpf::ast::kNoNode, "t");
  REQUIRE(mv);
  std::vector<Diagnostic> ds = {with_fix(mv->edits)};
  CHECK(tpf::tools::apply_fixes(p.src.text, ds, {}).text ==
        "for x in y:\r\n    a()\r\n    if c:\r\n        d()\r\n    b()  # note\r\n    e()\r\n");
  // before an earlier statement
  mv = C::move_statement(ctx, stmt("e()"), tpf::ast::kNoNode, stmt("a()"), "t");
  REQUIRE(mv);
  ds = {with_fix(mv->edits)};
  CHECK(tpf::tools::apply_fixes(p.src.text, ds, {}).text ==
        "for x in y:\r\n    e()\r\n    a()\r\n    b()  # note\r\n    if c:\r\n        d()\r\n");
  // wrong direction, shared lines, a statement over two lines: refused
  CHECK_FALSE(C::move_statement(ctx, stmt("e()"), stmt("a()"), tpf::ast::kNoNode, "t"));
  Parsed q("a(); b()\nc(1,\n  2)\nfor e in r: f()\n");
  auto qc = q.ctx();
  CHECK_FALSE(C::movable_line(qc, C::statement_at(qc, q.find("b()"))));
  CHECK_FALSE(C::movable_line(qc, C::statement_at(qc, q.find("c(1,\n  2)"))));
  CHECK_FALSE(C::insert_line_before(qc, C::statement_at(qc, q.find("f()")), "z"));
}

TEST_CASE("fixes: postfix on an expression parenthesizes what is not atomic") {
  Parsed p("a(loss)\na(x + y)\na(3)\n");
  auto ctx = p.ctx();
  auto arg = [&](std::string_view s) {
    tpf::ast::NodeId n;
    for (auto k : {tpf::ast::NodeKind::Name, tpf::ast::NodeKind::BinOp, tpf::ast::NodeKind::Constant})
      if (!n.valid()) n = tpf::checks::node_at(ctx, p.find(s), k);
    REQUIRE(n.valid());
    return n;
  };
  CHECK(tpf::checks::append_to(ctx, arg("loss"), ".detach()").text == ".detach()");
  CHECK(tpf::checks::append_to(ctx, arg("x + y"), ".detach()").text == "(x + y).detach()");
  CHECK(tpf::checks::append_to(ctx, arg("3"), ".item()").text == "(3).item()");
}

TEST_CASE("fixes: removing an element of a call's arguments") {
  Parsed p("s = S(\n    a,\n    b,  # last\n)\nt = S(a, b, c)\n");
  auto ctx = p.ctx();
  auto call_at = [&](std::string_view s) {
    auto n = tpf::checks::node_at(ctx, p.find(s), tpf::ast::NodeKind::Call);
    REQUIRE(n.valid());
    return ctx.ast.children(n, tpf::ast::slot::Call::args);
  };
  auto e = tpf::checks::remove_element(ctx, call_at("S(\n    a,\n    b,  # last\n)"), 1);
  REQUIRE(e);
  CHECK(std::string(ctx.src.text.substr(e->span.begin, e->span.end - e->span.begin)) ==
        "    b,  # last\n");
  e = tpf::checks::remove_element(ctx, call_at("S(a, b, c)"), 2);
  REQUIRE(e);
  CHECK(std::string(ctx.src.text.substr(e->span.begin, e->span.end - e->span.begin)) == ", c");
  e = tpf::checks::remove_element(ctx, call_at("S(a, b, c)"), 0);
  REQUIRE(e);
  CHECK(std::string(ctx.src.text.substr(e->span.begin, e->span.end - e->span.begin)) == "a, ");
}
