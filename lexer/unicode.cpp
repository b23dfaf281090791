// Unicode checks of the lexer: Python's strict UTF-8 decoder messages,
// identifier validation (XID_Start/XID_Continue from ICU, as CPython's
// tokenizer does before the parser's NFKC), str.isprintable(), and the
// positions CPython's tokenizer errors point at.
// requires: ScanInput. produces: LexError values and predicates for scan.re.
#include <unicode/uchar.h>

#include <cstdio>

#include "lexer/scan.h"

namespace tpf::lexer::detail {
namespace {

std::string decode_message(std::string_view s, size_t at, size_t len, const char* reason) {
  char buf[160];
  if (len == 1) {
    std::snprintf(buf, sizeof buf, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s",
                  static_cast<unsigned char>(s[at]), at, reason);
  } else {
    std::snprintf(buf, sizeof buf, "'utf-8' codec can't decode bytes in position %zu-%zu: %s", at,
                  at + len - 1, reason);
  }
  return buf;
}

// Decodes one code point of valid UTF-8 at `p`, advancing it.
char32_t next_code_point(const unsigned char* s, uint32_t& p) {
  const unsigned c = s[p];
  if (c < 0x80) {
    ++p;
    return c;
  }
  const int n = c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
  char32_t cp = c & (0x3F >> n);
  for (int i = 1; i <= n; ++i) cp = (cp << 6) | (s[p + i] & 0x3F);
  p += n + 1;
  return cp;
}

}  // namespace

std::string utf8_error(std::string_view s, uint32_t& at) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    at = static_cast<uint32_t>(i);
    // Valid lead bytes and the range allowed for the first continuation
    // byte (which excludes overlong forms, surrogates and > U+10FFFF).
    size_t need = 0;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c < 0xE0) {
      need = 1;
    } else if (c >= 0xE0 && c < 0xF0) {
      need = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c < 0xF5) {
      need = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return decode_message(s, i, 1, "invalid start byte");
    }
    for (size_t k = 1; k <= need; ++k) {
      if (i + k >= n) return decode_message(s, i, k, "unexpected end of data");
      const unsigned cc = p[i + k];
      if (cc < (k == 1 ? lo : 0x80u) || cc > (k == 1 ? hi : 0xBFu))
        return decode_message(s, i, k, "invalid continuation byte");
    }
    i += need + 1;
  }
  return {};
}

bool is_printable(char32_t c) {
  if (c == ' ') return true;
  switch (u_charType(static_cast<UChar32>(c))) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
    case U_LINE_SEPARATOR:
    case U_PARAGRAPH_SEPARATOR:
    case U_SPACE_SEPARATOR:
      return false;
    default:
      return true;
  }
}

bool check_identifier(const ScanInput& in, uint32_t begin, uint32_t end, LexError& err) {
  err.deferred = false;
  uint32_t at = 0;
  std::string m = utf8_error({reinterpret_cast<const char*>(in.text + begin), end - begin}, at);
  if (!m.empty()) {
    // CPython points at the end of the run it failed to decode.
    err.message = "(unicode error) " + m;
    err.span = Span{end - 1, end};
    return false;
  }
  for (uint32_t p = begin; p < end;) {
    const uint32_t start = p;
    const char32_t c = next_code_point(in.text, p);
    const bool ok =
        start == begin ? (c == '_' || u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_XID_START))
                       : u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_XID_CONTINUE);
    if (ok) continue;
    char hex[16];
    std::snprintf(hex, sizeof hex, "%04X", static_cast<unsigned>(c));
    if (is_printable(c)) {
      err.message = "invalid character '";
      err.message.append(reinterpret_cast<const char*>(in.text + start), p - start);
      err.message += "' (U+";
      err.message += hex;
      err.message += ')';
    } else {
      err.message = std::string("invalid non-printable character U+") + hex;
    }
    err.span = Span{start, p};
    return false;
  }
  return true;
}

uint32_t before_cursor(const ScanInput& in, uint32_t cur) {
  if (cur == 0 || cur > in.lim) return cur;
  const unsigned prev = in.text[cur - 1];
  if (prev == '\n' || prev == '\r') return cur;
  uint32_t p = cur - 1;
  for (int i = 0; i < 3 && p > 0 && (in.text[p] & 0xC0) == 0x80; ++i) --p;
  return p;
}

uint32_t detection_line(const ScanInput& in, uint32_t at) {
  if (at >= in.lim && !in.crlf_phantom_line && in.lim > 0 &&
      (in.text[in.lim - 1] == '\n' || in.text[in.lim - 1] == '\r'))
    at = in.lim - 1;
  return in.lines->at(at).line;
}

}  // namespace tpf::lexer::detail
