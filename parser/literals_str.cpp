// Escape decoding of str and bytes literal bodies, matching CPython 3.11's
// string_parser.c + unicodeescape codec (values and error messages).
// requires: a UTF-8 body between the quotes. produces: WTF-8 str / raw bytes.
//
// Newlines: CPython's tokenizer turns every CRLF and lone CR of the source into
// LF before the literal is seen, so '''a<CR><LF>b''' is "a\nb" and a
// backslash before CRLF is a line continuation. Our lexer keeps the source
// bytes, so the decoders here do that translation (raw literals too) and report
// CPython's error positions in the translated text.
#include <cstdint>
#include <string>
#include <string_view>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lexer/utf8.h"
#include "parser/literals.h"

namespace tpf::parser {
namespace {

using lexer::append_utf8;

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_octal(char c) { return c >= '0' && c <= '7'; }

size_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Position of source offset `end` in the buffer CPython's unicodeescape codec
// decodes (string_parser.c, decode_unicode_with_escapes): newlines translated
// (CRLF -> 1 byte), each non-ASCII character written as "\U%08x" (10 bytes),
// and a backslash before a non-ASCII character or at the end followed by
// "u005c". Error messages count in that buffer: 'ä\x' fails "in position 10-11".
uint32_t codec_position(std::string_view body, size_t end) {
  uint32_t pos = 0;
  size_t i = 0;
  const size_t n = body.size();
  while (i < end) {
    if (body[i] == '\\') {
      ++pos;
      ++i;
      if (i >= n || (static_cast<unsigned char>(body[i]) & 0x80)) pos += 5;
      if (i >= end) break;
    }
    const auto b = static_cast<unsigned char>(body[i]);
    if (b & 0x80) {
      pos += 10;
      i += utf8_length(b);
    } else {
      // The byte after a backslash is copied as is, so "\\\\ä" is a pair then ä.
      ++pos;
      i += (b == '\r' && i + 1 < n && body[i + 1] == '\n') ? 2 : 1;
    }
  }
  return pos;
}

// UnicodeDecodeError.__str__ for the unicodeescape codec, as ast.parse wraps it.
LiteralError unicode_error(std::string_view body, size_t start, size_t end, const char* reason) {
  const uint32_t p0 = codec_position(body, start);
  const uint32_t p1 = codec_position(body, end);
  std::string msg = "(unicode error) 'unicodeescape' codec can't decode ";
  if (p1 == p0 + 1) {
    msg += "byte 0x5c in position " + std::to_string(p0);
  } else {
    msg += "bytes in position " + std::to_string(p0) + "-" + std::to_string(p1 - 1);
  }
  msg += ": ";
  msg += reason;
  return LiteralError{false, std::move(msg), static_cast<uint32_t>(start)};
}

// Appends `text` with CRLF and lone CR turned into LF.
void append_translated(std::string_view text, std::string& out) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t cr = text.find('\r', i);
    if (cr == std::string_view::npos) {
      out.append(text.data() + i, text.size() - i);
      return;
    }
    out.append(text.data() + i, cr - i);
    out += '\n';
    i = cr + ((cr + 1 < text.size() && text[cr + 1] == '\n') ? 2 : 1);
  }
}

// One-character escapes shared by str and bytes; 0 if `c` is not one of them.
char simple_escape(char c) {
  switch (c) {
    case '\\':
      return '\\';
    case '\'':
      return '\'';
    case '"':
      return '"';
    case 'a':
      return '\a';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'v':
      return '\v';
    default:
      return 0;
  }
}

// \ooo: one to three octal digits starting at body[i - 1]; advances i. The
// value may exceed 0o377 (str keeps it, bytes wraps; CPython only warns).
uint32_t octal_escape(std::string_view body, size_t& i) {
  uint32_t v = static_cast<uint32_t>(body[i - 1] - '0');
  for (int k = 0; k < 2 && i < body.size() && is_octal(body[i]); ++k, ++i) {
    v = v * 8 + static_cast<uint32_t>(body[i] - '0');
  }
  return v;
}

// Plain text up to the next byte that needs attention (a backslash or a
// CR), 16 bytes at a time where SSE2 is available: docstrings are long.
size_t plain_run_end(std::string_view body, size_t i) {
#if defined(__SSE2__)
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i cr = _mm_set1_epi8('\r');
  for (; body.size() - i >= 16; i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(body.data() + i));
    if (const int mask = _mm_movemask_epi8(
            _mm_or_si128(_mm_cmpeq_epi8(v, backslash), _mm_cmpeq_epi8(v, cr))))
      return i + static_cast<size_t>(__builtin_ctz(mask));
  }
#endif
  while (i < body.size() && body[i] != '\\' && body[i] != '\r') ++i;
  return i;
}

}  // namespace

LiteralError decode_str(std::string_view body, bool raw, std::string& out) {
  out.reserve(out.size() + body.size());
  if (raw) {
    append_translated(body, out);
    return {};
  }
  const size_t n = body.size();
  size_t i = 0;
  while (i < n) {
    const size_t run = plain_run_end(body, i);
    out.append(body.data() + i, run - i);
    i = run;
    if (i >= n) break;
    if (body[i] == '\r') {
      out += '\n';
      i += (i + 1 < n && body[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    const size_t start = i;  // the backslash
    if (i + 1 >= n) {        // CPython rewrites a trailing '\' as \u005c
      out += '\\';
      break;
    }
    const char c = body[i + 1];
    i += 2;
    if (const char e = simple_escape(c)) {
      out += e;
      continue;
    }
    switch (c) {
      case '\r':  // translated to '\n' by CPython's tokenizer: a continuation
        if (i < n && body[i] == '\n') ++i;
        continue;
      case '\n':
        continue;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        append_utf8(out, octal_escape(body, i));
        continue;
      case 'x':
      case 'u':
      case 'U': {
        const int count = c == 'x' ? 2 : c == 'u' ? 4 : 8;
        const char* truncated = c == 'x'   ? "truncated \\xXX escape"
                                : c == 'u' ? "truncated \\uXXXX escape"
                                           : "truncated \\UXXXXXXXX escape";
        uint32_t v = 0;
        for (int k = 0; k < count; ++k, ++i) {
          const int d = i < n ? hex_value(body[i]) : -1;
          if (d < 0) return unicode_error(body, start, i, truncated);
          v = v * 16 + static_cast<uint32_t>(d);
        }
        if (v > 0x10FFFF) return unicode_error(body, start, i, "illegal Unicode character");
        append_utf8(out, v);
        continue;
      }
      case 'N': {
        // \N{NAME}; the error ends where CPython's scan stopped: after 'N'
        // without '{', at the end without '}', at '}' for an empty name.
        constexpr const char* kMalformed = "malformed \\N character escape";
        if (i >= n || body[i] != '{') return unicode_error(body, start, i, kMalformed);
        const size_t name_begin = i + 1;
        const size_t close = body.find('}', name_begin);
        if (close == std::string_view::npos) return unicode_error(body, start, n, kMalformed);
        if (close == name_begin) return unicode_error(body, start, close, kMalformed);
        i = close + 1;
        const int32_t cp = lookup_char_name(body.substr(name_begin, close - name_begin));
        if (cp < 0) return unicode_error(body, start, i, "unknown Unicode character name");
        append_utf8(out, static_cast<uint32_t>(cp));
        continue;
      }
      default:
        // Unknown escape (CPython 3.11 only warns): keep the backslash and
        // decode what follows it normally, non-ASCII included.
        out += '\\';
        i = start + 1;
        continue;
    }
  }
  return {};
}

LiteralError decode_bytes(std::string_view body, bool raw, std::string& out) {
  // CPython checks the whole literal before decoding (string_parser.c parsestr)
  // and reports the error at the token, whatever the escapes.
  for (size_t k = 0; k < body.size(); ++k) {
    if (static_cast<unsigned char>(body[k]) & 0x80) {
      return LiteralError{false, "bytes can only contain ASCII literal characters",
                          static_cast<uint32_t>(k)};
    }
  }
  out.reserve(out.size() + body.size());
  if (raw) {
    append_translated(body, out);
    return {};
  }
  const size_t n = body.size();
  size_t i = 0;
  while (i < n) {
    const size_t run = plain_run_end(body, i);
    out.append(body.data() + i, run - i);
    i = run;
    if (i >= n) break;
    if (body[i] == '\r') {
      out += '\n';
      i += (i + 1 < n && body[i + 1] == '\n') ? 2 : 1;
      continue;
    }
    const size_t start = i;
    if (i + 1 >= n) {  // _PyBytes_DecodeEscape's ValueError; a lexed body never ends so
      return LiteralError{false, "(value error) Trailing \\ in string",
                          static_cast<uint32_t>(start)};
    }
    const char c = body[i + 1];
    i += 2;
    if (const char e = simple_escape(c)) {
      out += e;
      continue;
    }
    switch (c) {
      case '\r':
        if (i < n && body[i] == '\n') ++i;
        continue;
      case '\n':
        continue;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        out += static_cast<char>(octal_escape(body, i) & 0xFF);  // b'\777' == b'\xff'
        continue;
      case 'x': {
        const int hi = i < n ? hex_value(body[i]) : -1;
        const int lo = i + 1 < n ? hex_value(body[i + 1]) : -1;
        if (hi < 0 || lo < 0) {
          return LiteralError{false,
                              "(value error) invalid \\x escape at position " +
                                  std::to_string(codec_position(body, start)),
                              static_cast<uint32_t>(start)};
        }
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
      default:  // \u, \U, \N and unknown escapes stay as written in bytes
        out += '\\';
        i = start + 1;
        continue;
    }
  }
  return {};
}

}  // namespace tpf::parser
