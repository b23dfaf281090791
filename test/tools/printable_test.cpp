// tools/report printable(): what the text, concise and github reporters do
// to file names, messages and source lines before printing them.
#include <doctest/doctest.h>

#include <string>

#include "lexer/lexer.h"
#include "tools/report.h"

using tpf::tools::printable;

TEST_CASE("printable: control characters become their pictures, one code point each") {
  CHECK(printable("train.py") == "train.py");
  CHECK(printable("a\x1b[2Jb.py") == "a\xe2\x90\x9b[2Jb.py");  // ESC -> U+241B
  CHECK(printable(std::string("x\0y", 3)) == "x\xe2\x90\x80y");  // NUL -> U+2400
  CHECK(printable("tab\tkept") == "tab\tkept");
  CHECK(printable("line\nbreak\r") == "line\xe2\x90\x8a" "break\xe2\x90\x8d");
  CHECK(printable("del\x7f") == "del\xe2\x90\xa1");
  CHECK(printable("c1\xc2\x9b") == "c1\xef\xbf\xbd");          // CSI (U+009B) -> U+FFFD
  CHECK(printable("caf\xc3\xa9 \xe6\x97\xa5") == "caf\xc3\xa9 \xe6\x97\xa5");  // text stays
  CHECK(printable("bad\xff\xc3") == "bad\xef\xbf\xbd\xef\xbf\xbd");  // invalid bytes
}

TEST_CASE("printable: the code frame shows a control character without moving the carets") {
  tpf::SourceFile src;
  tpf::DiagSink sink;
  REQUIRE(tpf::lexer::make_source("t.py", "x = 1  # \x1b[31m\nlosses.append(loss)\n", src, sink));
  tpf::Diagnostic d;
  d.code = "TPF001";
  d.severity = tpf::Severity::Warning;
  d.span = {0, 5};
  d.message = "m\x1b";
  std::string out;
  tpf::tools::render_text(out, "p\x1b.py", src, d, {});
  CHECK(out ==
        "p\xe2\x90\x9b.py:1:1: warning TPF001 m\xe2\x90\x9b\n"
        "   |\n"
        " 1 | x = 1  # \xe2\x90\x9b[31m\n"
        "   | ^^^^^\n");
}
