// SourceFile loading: BOM, PEP 263 declarations and transcoding, NUL bytes,
// unreadable paths, and LineIndex. Expected messages are python3.11's.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "test/lexer/lex_helpers.h"

using namespace tpf;
using namespace tpf::lexer;
using namespace tpf::lexer::testing;

namespace {

// The first diagnostic of make_source, or "ok".
std::string load_error(std::string bytes) {
  SourceFile src;
  DiagSink diags;
  const bool ok = make_source("t.py", std::move(bytes), src, diags);
  if (ok != !diags.has_errors()) return "inconsistent";
  if (ok && !diags.diagnostics().empty()) return "ok, " + diags.diagnostics().front().message;
  return ok ? "ok" : diags.diagnostics().front().message;
}

}  // namespace

TEST_CASE("lexer: LineIndex counts \\n, \\r\\n and lone \\r") {
  const LineIndex idx("ab\ncd\r\nef\rg");
  CHECK(idx.line_count() == 4);
  CHECK(idx.at(0).line == 1);
  CHECK(idx.at(4).line == 2);
  CHECK(idx.at(4).col == 1);
  CHECK(idx.at(5).line == 2);  // the \r of \r\n still belongs to line 2
  CHECK(idx.at(7).line == 3);
  CHECK(idx.at(10).line == 4);
  CHECK(idx.at(11).col == 1);  // one past the end
  CHECK(idx.line_start(3) == 7);
  const LineIndex trailing("x\n");
  CHECK(trailing.at(2).line == 2);
  CHECK(trailing.at(2).col == 0);
}

TEST_CASE("lexer: a UTF-8 BOM is dropped and not counted in columns") {
  auto l = lex("\xEF\xBB\xBFx = 1\n");
  REQUIRE(l->loaded);
  CHECK(positions(*l).substr(0, 12) == "NAME@1:0-1:1");
  CHECK(l->src.bytes.size() == l->src.text.size() + 3);
}

TEST_CASE("lexer: PEP 263 declarations transcode to UTF-8") {
  auto latin = lex("# -*- coding: latin-1 -*-\nx = \"\xe9\"\n");
  REQUIRE(latin->loaded);
  CHECK(texts(*latin) == "x = \"\xc3\xa9\" NEWLINE ENDMARKER");
  // Line 2 counts when line 1 is a comment; columns are UTF-8 bytes after decoding.
  auto euro = lex("#!/usr/bin/env python\n# vim: set fileencoding=iso8859-15 :\nx = \"\xa4\"\n");
  REQUIRE(euro->loaded);
  CHECK(positions(*euro).find("STRING@3:4-3:9") != std::string::npos);
  auto koi = lex("# coding: koi8-r\n\xc1 = 1\n");
  REQUIRE(koi->loaded);
  CHECK(texts(*koi) == "\xd0\xb0 = 1 NEWLINE ENDMARKER");
  CHECK(flags_of(*koi, TokKind::Name) == kNameNonAscii);
  CHECK(load_error("# coding: shift_jis\nx = \"\x82\xa0\"\n") == "ok");
  CHECK(load_error("# coding: cp1252\nx = \"\x80\"\n") == "ok");
  CHECK(load_error("# coding: utf-8\nx = 1\n") == "ok");
  // Line 2 does not count after a code line; line 3 never does.
  CHECK(load_error("x = 1\n# coding: fake\n") == "ok");
  CHECK(load_error("\n\n# coding: fake\n") == "ok");
}

TEST_CASE("lexer: coding declaration errors") {
  // An encoding no one knows here (a codec a package registers on import,
  // such as future_fstrings): valid UTF-8 is read as UTF-8, with a note at
  // the declaration; anything else is CPython's error.
  CHECK(load_error("# coding: fake\nx\n") == "ok, unknown encoding fake, read as UTF-8");
  CHECK(load_error("#coding=fake") == "ok, unknown encoding fake, read as UTF-8");
  CHECK(load_error("\n# vim: set fileencoding=fake :\n") == "ok, unknown encoding fake, read as UTF-8");
  CHECK(load_error("# coding: mbcs\n") == "ok, unknown encoding mbcs, read as UTF-8");
  CHECK(load_error("# coding: fake\nx = '\xff'\n") == "unknown encoding: fake");
  {
    SourceFile src;
    DiagSink diags;
    REQUIRE(make_source("t.py", "#!/usr/bin/env python\n# -*- coding: future_fstrings -*-\ny = 1\n", src, diags));
    REQUIRE(diags.diagnostics().size() == 1);
    const Diagnostic& d = diags.diagnostics().front();
    CHECK(d.severity == Severity::Note);
    CHECK(src.pos(d.span.begin).line == 2);
    CHECK(src.pos(d.span.begin).col == 6);  // at `coding` (0-based, as col_offset)
    CHECK(src.text == "#!/usr/bin/env python\n# -*- coding: future_fstrings -*-\ny = 1\n");
  }
  CHECK(load_error("# coding: rot13\n") ==
        "'rot13' is not a text encoding; use codecs.decode() to handle arbitrary codecs");
  CHECK(load_error("\xEF\xBB\xBF# coding: latin-1\nx\n") ==
        "encoding problem: iso-8859-1 with BOM");
  CHECK(load_error("\xEF\xBB\xBF# coding: utf8\nx\n") == "encoding problem: utf8 with BOM");
  CHECK(load_error("\xEF\xBB\xBF# coding: utf-8\nx\n") == "ok");
  CHECK(load_error("# coding: ascii\nx = 1 # \xe9\n") ==
        "'ascii' codec can't decode byte 0xe9 in position 24: ordinal not in range(128)");
  // "utf8" is not normalized by CPython, so the whole file is decoded strictly.
  CHECK(load_error("# coding: utf8\n# \xff\n") ==
        "'utf-8' codec can't decode byte 0xff in position 17: invalid start byte");
}

TEST_CASE("lexer: codec names are looked up as Python's registry does") {
  // Aliases from encodings.aliases, normalized as encodings.normalize_encoding does.
  CHECK(load_error("# coding: idna\nx = 1\n") == "ok");
  CHECK(load_error("# coding: 437\nx = '\x80'\n") == "ok");  // cp437
  CHECK(load_error("# coding: csISOLatin2\nx = '\xb1'\n") == "ok");
  CHECK(load_error("# coding: ANSI_X3.4-1968\nx = 1\n") == "ok");  // '.' kept, then '_'
  CHECK(load_error("# coding: lat_in1\nx = 1\n") == "ok, unknown encoding lat_in1, read as UTF-8");
  CHECK(load_error("# coding: x.y\nx = 1\n") == "ok, unknown encoding x.y, read as UTF-8");
  // Single-byte codecs decode with Python's own table, undefined bytes included.
  auto box = lex("# coding: cp437\nx = '\xc9'\n");
  REQUIRE(box->loaded);
  CHECK(texts(*box) == "x = '\xe2\x95\x94' NEWLINE ENDMARKER");  // U+2554
  CHECK(load_error("# coding: cp1252\nx = '\x81'\n") ==
        "'charmap' codec can't decode byte 0x81 in position 22: character maps to <undefined>");
  // idna reads ASCII text as itself, and fails as CPython's ascii decoder does.
  CHECK(load_error("# coding: idna\nx = \"\xc3\xa9\"\n") ==
        "'ascii' codec can't decode byte 0xc3 in position 20: ordinal not in range(128)");
  CHECK(load_error("# coding: undefined\nx = 1\n") ==
        "decoding with 'undefined' codec failed (UnicodeError: undefined encoding)");
  // Codecs without a converter here are read when the file is plain ASCII,
  // and otherwise named as this tool's limit, at the first byte it cannot read.
  CHECK(load_error("# coding: johab\nx = 1\n") == "ok");
  CHECK(load_error("# coding: unicode_escape\nx = 1\n") == "ok");
  SourceFile src;
  DiagSink diags;
  CHECK_FALSE(make_source("t.py", "# coding: unicode-escape\nx = '\\n'\n", src, diags));
  REQUIRE(diags.diagnostics().size() == 1);
  CHECK(diags.diagnostics().front().code == "UnsupportedEncoding");
  CHECK(src.lines.at(diags.diagnostics().front().span.begin).line == 2);
  CHECK(diags.diagnostics().front().message ==
        "CPython reads this file, but tpf-analyze decodes 'unicode_escape' only as plain ASCII "
        "without escape characters, and this byte is not: save the file as UTF-8 to analyze it");
}

TEST_CASE("lexer: NUL bytes are rejected") {
  CHECK(load_error(std::string("x\0y", 3)) == "source code string cannot contain null bytes");
}

TEST_CASE("lexer: load_source reports unreadable paths") {
  SourceFile src;
  DiagSink diags;
  CHECK_FALSE(load_source("/nonexistent/dir/x.py", src, diags));
  REQUIRE(diags.has_errors());
  CHECK(diags.diagnostics().front().message ==
        "can't open file '/nonexistent/dir/x.py': [Errno 2] No such file or directory");
  DiagSink d2;
  CHECK_FALSE(load_source("/tmp", src, d2));
  CHECK(d2.diagnostics().front().message == "can't open file '/tmp': [Errno 21] Is a directory");

  const auto path = std::filesystem::temp_directory_path() / "tpf_lexer_source_test.py";
  {
    std::ofstream f(path, std::ios::binary);
    f << "x = 1\n";
  }
  DiagSink d3;
  REQUIRE(load_source(path.string(), src, d3));
  CHECK(src.text == "x = 1\n");
  CHECK(src.lines.line_count() == 2);
  std::filesystem::remove(path);
}

TEST_CASE("lexer: DiagSink keeps one error per offset and sorts") {
  DiagSink d;
  d.error("SyntaxError", Span{5, 6}, "second");
  d.error("SyntaxError", Span{1, 2}, "first");
  d.error("SyntaxError", Span{5, 7}, "dropped");
  REQUIRE(d.diagnostics().size() == 2);
  d.sort();
  CHECK(d.diagnostics()[0].message == "first");
  CHECK(d.diagnostics()[1].message == "second");
  CHECK(d.has_errors());
}
