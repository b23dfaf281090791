// --add-noqa's edits (tools/add_noqa, tools/suppress): where a line's
// suppression comment goes (CommentLines), how it is written or merged, and
// that the result silences every finding, on small sources with the exact
// bytes expected.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lexer/lexer.h"
#include "tools/add_noqa.h"
#include "tools/fix.h"
#include "tools/suppress.h"

namespace {

using tpf::Diagnostic;
using tpf::tools::CommentLines;
using tpf::tools::Suppression;

/// A source with its comment lines and suppressions, as the pipeline has them.
struct Noqa {
  tpf::SourceFile src;
  CommentLines lines;
  std::vector<Suppression> sups;
  explicit Noqa(std::string text) {
    tpf::DiagSink diags;
    REQUIRE(tpf::lexer::make_source("t.py", std::move(text), src, diags));
    tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
    REQUIRE_FALSE(diags.has_errors());
    lines = tpf::tools::compute_comment_lines(src, toks.tokens);
    sups = tpf::tools::parse_suppressions(src, toks.comments);
  }
  /// A finding of `code` at the first `at` in the text.
  Diagnostic at(std::string_view code, std::string_view what) const {
    size_t b = src.text.find(what);
    REQUIRE(b != std::string_view::npos);
    Diagnostic d;
    d.code = std::string(code);
    d.span = {static_cast<uint32_t>(b), static_cast<uint32_t>(b + what.size())};
    return d;
  }
  /// The text --add-noqa writes for `findings`.
  std::string added(const std::vector<Diagnostic>& findings) const {
    tpf::tools::NoqaEdits e = tpf::tools::noqa_edits(src, lines, sups, findings);
    return tpf::tools::apply_edits(src.text, e.edits);
  }
};

/// Whether every finding is suppressed once `text` is read back.
bool silenced(const std::string& text, std::vector<std::pair<std::string, std::string>> findings) {
  Noqa n(text);
  std::vector<Diagnostic> ds;
  for (const auto& [code, what] : findings) ds.push_back(n.at(code, what));
  tpf::tools::apply_suppressions(n.src, n.lines, n.sups, ds);
  return ds.empty();
}

}  // namespace

TEST_CASE("add-noqa: one sorted comment per line, after the code and its comments") {
  Noqa n("import torch\nx = f(loss)  # note\ny = g()\t \nz = 1\n");
  std::string out = n.added({n.at("TPF006", "f(loss)"), n.at("TPF001", "loss"), n.at("TPF001", "g()")});
  CHECK(out == "import torch\nx = f(loss)  # note  # tpf: ignore[TPF001, TPF006]\ny = g()  # tpf: ignore[TPF001]\nz = 1\n");
  CHECK(silenced(out, {{"TPF006", "f(loss)"}, {"TPF001", "g()"}}));
  std::vector<Diagnostic> two = {n.at("TPF006", "f(loss)"), n.at("TPF001", "loss")};
  tpf::tools::NoqaEdits e = tpf::tools::noqa_edits(n.src, n.lines, n.sups, two);
  CHECK(e.codes == 2);
  CHECK(e.edits.size() == 1);
}

TEST_CASE("add-noqa: codes merge into the suppression already on the line, the rest of the comment kept") {
  Noqa n("a = f()  # tpf: ignore[TPF009] slow on purpose\n"
         "b = f()  # noqa: E501, TPF009\n"
         "c = f()  # tpf: ignore[]\n"
         "d = f()  # tpf: ignore\n"
         "e = f()  # noqa: E501\n"
         "g = f()  # noqa: TPF009  # tpf: ignore[tpf010]\n");
  std::vector<Diagnostic> ds;
  for (std::string_view v : {"a =", "b =", "c =", "d =", "e =", "g ="}) ds.push_back(n.at("TPF001", v));
  std::string out = n.added(ds);
  CHECK(out ==
        "a = f()  # tpf: ignore[TPF001, TPF009] slow on purpose\n"
        "b = f()  # noqa: E501, TPF001, TPF009\n"
        "c = f()  # tpf: ignore[TPF001]\n"
        "d = f()  # tpf: ignore\n"                   // silences every rule already
        "e = f()  # noqa: E501  # tpf: ignore[TPF001]\n"  // another linter's noqa is left alone
        "g = f()  # noqa: TPF009  # tpf: ignore[TPF001, tpf010]\n");  // the tpf: form first
  CHECK(silenced(out, {{"TPF001", "a ="}, {"TPF001", "b ="}, {"TPF001", "c ="}, {"TPF001", "e ="},
                       {"TPF001", "g ="}}));
}

TEST_CASE("add-noqa: line endings, a missing final newline, tabs and non-ASCII text are kept") {
  Noqa crlf("x = f()\r\ny = f()\r\n");
  CHECK(crlf.added({crlf.at("TPF001", "x"), crlf.at("TPF003", "y")}) ==
        "x = f()  # tpf: ignore[TPF001]\r\ny = f()  # tpf: ignore[TPF003]\r\n");
  Noqa cr("x = f()\ry = 1\r");
  CHECK(cr.added({cr.at("TPF001", "x")}) == "x = f()  # tpf: ignore[TPF001]\ry = 1\r");
  Noqa last("x = 1\ny = f()");
  CHECK(last.added({last.at("TPF001", "y")}) == "x = 1\ny = f()  # tpf: ignore[TPF001]");
  Noqa tabs("if x:\n\ty = f()\t\t\n");
  CHECK(tabs.added({tabs.at("TPF001", "y")}) == "if x:\n\ty = f()  # tpf: ignore[TPF001]\n");
  Noqa utf8("s = \"\xc3\xa9t\xc3\xa9\"; y = f()  # caf\xc3\xa9\n");
  std::string out = utf8.added({utf8.at("TPF001", "y")});
  CHECK(out == "s = \"\xc3\xa9t\xc3\xa9\"; y = f()  # caf\xc3\xa9  # tpf: ignore[TPF001]\n");
  CHECK(silenced(out, {{"TPF001", "y"}}));
}

TEST_CASE("add-noqa: a line that cannot hold a comment passes it to the end of its stretch") {
  // A finding inside a triple-quoted string's lines (an f-string field).
  Noqa doc("x = f\"\"\"a\n{loss.item()}\nb\"\"\" + s\ny = 1\n");
  CHECK(doc.lines.joined == std::vector<std::pair<uint32_t, uint32_t>>{{1, 3}});
  CHECK(doc.lines.target(2) == 3);
  CHECK(doc.lines.target(4) == 4);
  std::string out = doc.added({doc.at("TPF012", "loss.item()")});
  CHECK(out == "x = f\"\"\"a\n{loss.item()}\nb\"\"\" + s  # tpf: ignore[TPF012]\ny = 1\n");
  CHECK(silenced(out, {{"TPF012", "loss.item()"}}));
  // Backslash continuations, chained with a string: lines 1-4 go on line 4.
  Noqa cont("total = a + \\\n    f(\"\"\"x\ny\"\"\") + \\\n    b\nz = 2\n");
  CHECK(cont.lines.joined == std::vector<std::pair<uint32_t, uint32_t>>{{1, 4}});
  out = cont.added({cont.at("TPF001", "total"), cont.at("TPF003", "f(")});
  CHECK(out == "total = a + \\\n    f(\"\"\"x\ny\"\"\") + \\\n    b  # tpf: ignore[TPF001, TPF003]\nz = 2\n");
  CHECK(silenced(out, {{"TPF001", "total"}, {"TPF003", "f("}}));
  // Inside brackets every line can hold a comment: it stays on its line.
  Noqa brackets("opt = SGD(\n    model.parameters(),\n    lr=0.1,\n)\n");
  CHECK(brackets.lines.joined.empty());
  CHECK(brackets.added({brackets.at("TPF009", "model")}) ==
        "opt = SGD(\n    model.parameters(),  # tpf: ignore[TPF009]\n    lr=0.1,\n)\n");
  // A single-quoted f-string whose field spans lines (Python 3.12).
  Noqa pep701("s = f\"{\n  loss.item()}\"\n");
  CHECK(pep701.added({pep701.at("TPF012", "loss")}) == "s = f\"{\n  loss.item()}\"  # tpf: ignore[TPF012]\n");
}

TEST_CASE("add-noqa: findings of no rule get no comment") {
  Noqa n("x = 1  # tpf: ignore[TPF001]\n");
  CHECK(n.added({n.at("unused-suppression", "TPF001")}) == "x = 1  # tpf: ignore[TPF001]\n");
}
