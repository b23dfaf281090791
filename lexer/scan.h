// Internal interface of the raw scanner (scan.re, strings.cpp, unicode.cpp)
// used by indent.cpp. Not part of the lexer's public API. The scanner itself,
// scan_raw(), is in the header re2c generates from scan.re (scan_dfa.h).
// requires: SourceFile::text followed by nothing the scanner reads past `lim`.
// produces: RawToken, one at a time, and LexError values for indent.cpp.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "lexer/source.h"
#include "lexer/token.h"

namespace tpf::lexer::detail {

/// What the raw scanner found. Only Token becomes a Token as is; the line
/// structure (NEWLINE, INDENT, DEDENT) is decided by indent.cpp.
enum class Raw : uint8_t {
  Token,         // kind/flags/begin/end set
  Newline,       // a physical line end: \n, \r\n or a lone \r
  Comment,       // `#` up to (not including) the line end
  Continuation,  // a backslash followed by a line end; span covers both
  Eof,           // the scanned range is exhausted
  Error,         // LexError filled in
};

struct RawToken {
  Raw raw = Raw::Eof;
  TokKind kind = TokKind::Error;
  uint16_t flags = kNoFlags;
  // A String token that is fine to lex but that CPython's parser rejects when
  // it decodes it (invalid UTF-8): LexError holds the message, reported once
  // the next token is known (CPython reports it there).
  bool decode_error = false;
  uint32_t begin = 0;
  uint32_t end = 0;
};

/// A lexical error with CPython's message, located where CPython reports it
/// (the span begin is the byte of SyntaxError.offset - 1).
struct LexError {
  Span span;
  std::string message;
  bool deferred = false;  // see kErrDeferred
};

/// The scanned text: bytes [0, lim) of `text`; positions are byte offsets.
struct ScanInput {
  const unsigned char* text = nullptr;
  uint32_t lim = 0;
  const LineIndex* lines = nullptr;  // for "(detected at line N)"
  // The text is a whole file ending in \r\n. CPython's newline translation
  // then appends an extra \n: one more, empty, line after the last one.
  bool crlf_phantom_line = false;
  // PEP 701 (3.12+): line ends and comments allowed in replacement fields.
  bool pep701 = true;
};

/// Scans a string literal whose prefix starts at `begin` and whose opening
/// quote is at `quote` (prefix flags in `flags`): sets `end` past the closing
/// quote and adds kStrTriple/kStrSingleQuote/kStrPep701. Returns false with
/// `err` set when it is unterminated. Sets `decode_error` (and `err`) when a
/// str body is not valid UTF-8.
bool scan_string(const ScanInput& in, uint32_t begin, uint32_t quote, uint16_t& flags,
                 uint32_t& end, bool& decode_error, LexError& err);

/// Checks the identifier run [begin, end), which has a byte >= 0x80, as
/// CPython's tokenizer does: strict UTF-8 decoding, then XID_Start for the
/// first code point (or `_`) and XID_Continue for the rest. Returns false with
/// `err` set otherwise.
bool check_identifier(const ScanInput& in, uint32_t begin, uint32_t end, LexError& err);

/// Python's strict UTF-8 decoder on `bytes`: empty when valid, else its
/// message ("'utf-8' codec can't decode byte 0xff in position 3: invalid
/// start byte") with `at` set to the offending byte's index.
std::string utf8_error(std::string_view bytes, uint32_t& at);

/// The first '\n' or '\r' at or after `p`, else `in.lim`: where a comment ends.
uint32_t line_end(const ScanInput& in, uint32_t p);

/// How many spaces (only ' ') start at `p`, read 8 bytes at a time:
/// indentation is mostly runs of spaces.
inline uint32_t space_run(const ScanInput& in, uint32_t p) {
  const uint32_t start = p;
  if constexpr (std::endian::native == std::endian::little) {
    constexpr uint64_t kSpaces = 0x2020202020202020ull;
    for (; in.lim - p >= 8; p += 8) {
      uint64_t w;
      std::memcpy(&w, in.text + p, sizeof w);
      // The first byte that is not a space is the lowest nonzero byte.
      if (const uint64_t x = w ^ kSpaces) return p - start + std::countr_zero(x) / 8;
    }
  }
  while (p < in.lim && in.text[p] == ' ') ++p;
  return p - start;
}

/// CPython's str.isprintable() for one code point (Unicode data from ICU).
bool is_printable(char32_t c);

/// The offset CPython's tokenizer errors point at when its cursor is at
/// `cur`: the start of the code point before `cur` (or `cur` at a line start).
uint32_t before_cursor(const ScanInput& in, uint32_t cur);

/// `line` of the byte where a scan that ran to `at` stopped; at the very end
/// of a text ending in a line break CPython still counts the last line.
uint32_t detection_line(const ScanInput& in, uint32_t at);

}  // namespace tpf::lexer::detail
