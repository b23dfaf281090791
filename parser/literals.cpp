// Numeric literal values, identifier NFKC and JSON string output for constants.
// requires: lexer-validated literal text. produces: values as CPython 3.11's
// ast module holds them (ints as decimal digits, floats correctly rounded).
// String and bytes escapes are in literals_str.cpp, \N{} names in char_names.cpp.
#include "parser/literals.h"

#include <locale.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tpf::parser {
namespace {

// Base-10^9 limbs, least significant first: converting to decimal text is
// then just printing the limbs, and a 10,000-digit hex literal takes ~1M steps.
constexpr uint64_t kLimbBase = 1000000000;

void multiply_add(std::vector<uint32_t>& limbs, uint64_t factor, uint64_t addend) {
  // limb < 10^9 < 2^30 and factor, addend <= 2^28, so limb * factor + carry < 2^59.
  uint64_t carry = addend;
  for (uint32_t& limb : limbs) {
    const uint64_t cur = limb * factor + carry;
    limb = static_cast<uint32_t>(cur % kLimbBase);
    carry = cur / kLimbBase;
  }
  while (carry != 0) {
    limbs.push_back(static_cast<uint32_t>(carry % kLimbBase));
    carry /= kLimbBase;
  }
}

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Digits of a power-of-two base, `bits` per digit, fed 28 bits at a time.
std::string power_of_two_to_decimal(std::string_view digits, int bits) {
  std::vector<uint32_t> limbs;
  limbs.reserve(digits.size() * static_cast<size_t>(bits) / 29 + 1);
  const int per_chunk = 28 / bits;
  int in_chunk = 0;
  uint64_t chunk = 0;
  for (char c : digits) {
    if (c == '_') continue;
    chunk = (chunk << bits) | static_cast<uint64_t>(digit_value(c));
    if (++in_chunk == per_chunk) {
      multiply_add(limbs, uint64_t{1} << (bits * in_chunk), chunk);
      in_chunk = 0;
      chunk = 0;
    }
  }
  if (in_chunk != 0) multiply_add(limbs, uint64_t{1} << (bits * in_chunk), chunk);
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  char buf[16];
  for (size_t k = limbs.size() - 1; k-- > 0;) {
    std::snprintf(buf, sizeof buf, "%09u", static_cast<unsigned>(limbs[k]));
    out += buf;
  }
  return out;
}

// The "C" locale, so that strtod reads '.' whatever the process locale is.
// Created once and never changed.
locale_t c_locale() {
  static const locale_t loc = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  return loc;
}

}  // namespace

std::string int_literal_to_decimal(std::string_view text) {
  if (text.size() > 1 && text[0] == '0') {
    switch (text[1]) {
      case 'x':
      case 'X':
        return power_of_two_to_decimal(text.substr(2), 4);
      case 'o':
      case 'O':
        return power_of_two_to_decimal(text.substr(2), 3);
      case 'b':
      case 'B':
        return power_of_two_to_decimal(text.substr(2), 1);
      default:
        break;
    }
  }
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '_' || (c == '0' && out.empty())) continue;  // only "0_0"-style zeros lead
    out += c;
  }
  if (out.empty()) out = "0";
  return out;
}

LiteralError int_literal_digit_limit(std::string_view text) {
  // CPython 3.11's sys.int_info.default_max_str_digits (the CVE-2020-10735
  // fix) also applies to decimal literals in source; other bases are exempt.
  constexpr size_t kMaxStrDigits = 4300;
  if (text.size() > 1 && text[0] == '0' &&
      std::string_view("xXoObB").find(text[1]) != std::string_view::npos) {
    return {};
  }
  size_t digits = 0;
  for (char c : text) {
    if (c != '_' && !(c == '0' && digits == 0)) ++digits;
  }
  if (digits <= kMaxStrDigits) return {};
  return LiteralError{false,
                      "Exceeds the limit (4300 digits) for integer string conversion: value has " +
                          std::to_string(digits) +
                          " digits; use sys.set_int_max_str_digits() to increase the limit - "
                          "Consider hexadecimal for huge integer literals to avoid decimal "
                          "conversion limits.",
                      0};
}

double float_literal_value(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c != '_') clean += c;
  }
  // glibc's strtod is correctly rounded like CPython's dtoa.c and returns
  // HUGE_VAL for "1e400", which is the inf CPython gives.
  return strtod_l(clean.c_str(), nullptr, c_locale());
}

std::string nfkc_identifier(std::string_view utf8) {
  bool ascii = true;
  for (char c : utf8) ascii = ascii && !(static_cast<unsigned char>(c) & 0x80);
  if (ascii) return std::string(utf8);  // CPython normalizes non-ASCII names only
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc = icu::Normalizer2::getNFKCInstance(status);
  if (U_FAILURE(status)) return std::string(utf8);
  const icu::UnicodeString src = icu::UnicodeString::fromUTF8(
      icu::StringPiece(utf8.data(), static_cast<int32_t>(utf8.size())));
  const icu::UnicodeString norm = nfkc->normalize(src, status);
  if (U_FAILURE(status)) return std::string(utf8);
  std::string out;
  norm.toUTF8String(out);
  return out;
}

namespace {

void append_json_escape(uint32_t c, std::string& out) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  out += buf;
}

// Escapes for the ASCII bytes JSON requires escaped; false for the rest.
bool append_json_ascii_escape(unsigned char c, std::string& out) {
  switch (c) {
    case '"':
      out += "\\\"";
      return true;
    case '\\':
      out += "\\\\";
      return true;
    case '\n':
      out += "\\n";
      return true;
    case '\r':
      out += "\\r";
      return true;
    case '\t':
      out += "\\t";
      return true;
    case '\b':
      out += "\\b";
      return true;
    case '\f':
      out += "\\f";
      return true;
    default:
      break;
  }
  if (c < 0x20) {
    append_json_escape(c, out);
    return true;
  }
  return false;
}

}  // namespace

void append_json_string(std::string_view utf8, std::string& out) {
  out.reserve(out.size() + utf8.size() + 2);
  out += '"';
  bool after_high_surrogate_escape = false;
  for (size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    const bool surrogate = c == 0xED && i + 2 < utf8.size() &&
                           (static_cast<unsigned char>(utf8[i + 1]) & 0xE0) == 0xA0;
    if (surrogate) {
      const uint32_t cp = 0xD000 | ((static_cast<unsigned char>(utf8[i + 1]) & 0x3Fu) << 6) |
                          (static_cast<unsigned char>(utf8[i + 2]) & 0x3Fu);
      if (cp >= 0xDC00 && after_high_surrogate_escape) {
        // "\ud83d\ude00" would be read back as one code point U+1F600, but
        // the Python str holds two. A raw WTF-8 low half keeps them apart
        // for json.loads on bytes (it decodes with 'surrogatepass').
        out.append(utf8.data() + i, 3);
        after_high_surrogate_escape = false;
      } else {
        append_json_escape(cp, out);
        after_high_surrogate_escape = cp < 0xDC00;
      }
      i += 2;
      continue;
    }
    after_high_surrogate_escape = false;
    if (!append_json_ascii_escape(c, out)) out += static_cast<char>(c);
  }
  out += '"';
}

void append_json_latin1(std::string_view bytes, std::string& out) {
  out.reserve(out.size() + bytes.size() + 2);
  out += '"';
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {  // U+0080..U+00FF as two UTF-8 bytes
      out += static_cast<char>(0xC0 | (c >> 6));
      out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (!append_json_ascii_escape(c, out)) {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

}  // namespace tpf::parser
