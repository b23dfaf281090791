// The \N{NAME} lookup of CPython 3.11's unicodeescape codec (unicodedata's
// _getcode with named sequences off), rebuilt from ICU names plus an alias table.
// requires: ICU (names), name_aliases.inc (generated from NameAliases.txt).
// produces: lookup_char_name, used by decode_str.
#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <string_view>

#include "parser/literals.h"

namespace tpf::parser {
namespace {

struct NameAlias {
  std::string_view name;  // uppercase, as in NameAliases.txt
  int32_t code;
};

// Every alias type of NameAliases.txt (control, abbreviation, correction, ...)
// sorted by name: ICU only knows corrections, CPython accepts them all.
constexpr NameAlias kNameAliases[] = {
#include "parser/name_aliases.inc"
};

// The longest Unicode name is 88 bytes; anything longer cannot match and must
// not reach the fixed ICU buffer.
constexpr size_t kMaxNameLength = 128;

// Jamo short names per column (lead, vowel, trail) in CPython's order, so the
// syllable index is L * 588 + V * 28 + T over SBase U+AC00 (Unicode ch. 3.12).
constexpr std::array<std::string_view, 19> kLeads = {"G", "GG", "N", "D",  "DD", "R", "M",
                                                     "B", "BB", "S", "SS", "",   "J", "JJ",
                                                     "C", "K",  "T", "P",  "H"};
constexpr std::array<std::string_view, 21> kVowels = {"A",   "AE", "YA", "YAE", "EO", "E",  "YEO",
                                                      "YE",  "O",  "WA", "WAE", "OE", "YO", "U",
                                                      "WEO", "WE", "WI", "YU",  "EU", "YI", "I"};
constexpr std::array<std::string_view, 28> kTrails = {
    "",   "G",  "GG", "GS", "N",  "NJ", "NH", "D",  "L", "LG", "LM", "LB", "LS", "LT",
    "LP", "LH", "M",  "B",  "BS", "S",  "SS", "NG", "J", "C",  "K",  "T",  "P",  "H"};

// CPython's find_syllable: the longest entry that prefixes `rest`, compared
// case-sensitively, with no backtracking across columns. Returns its index or
// -1 and advances `rest` past it.
template <size_t N>
int take_jamo(std::string_view& rest, const std::array<std::string_view, N>& column) {
  int best = -1;
  size_t best_len = 0;
  for (size_t i = 0; i < N; ++i) {
    const std::string_view s = column[i];
    if ((best >= 0 && s.size() <= best_len) || !rest.starts_with(s)) continue;
    best = static_cast<int>(i);
    best_len = s.size();
  }
  if (best >= 0) rest.remove_prefix(best_len);
  return best;
}

// "HANGUL SYLLABLE " + L V T short names, uppercase only (CPython 3.11
// compares the prefix and the jamo case-sensitively: "hangul syllable ga" fails).
int32_t hangul_syllable(std::string_view rest) {
  const int l = take_jamo(rest, kLeads);
  const int v = take_jamo(rest, kVowels);
  const int t = take_jamo(rest, kTrails);
  if (l < 0 || v < 0 || t < 0 || !rest.empty()) return -1;
  return 0xAC00 + (l * 21 + v) * 28 + t;
}

// CPython 3.11's is_unified_ideograph: the "<CJK Ideograph ...>" ranges of
// Unicode 14.0's UnicodeData.txt. Unicode 15.0 (ICU 72) adds Extension H
// (U+31350..U+323AF) and U+2B739, which 3.11 does not name.
bool is_unified_ideograph(uint32_t c) {
  return (0x3400 <= c && c <= 0x4DBF) || (0x4E00 <= c && c <= 0x9FFF) ||
         (0x20000 <= c && c <= 0x2A6DF) || (0x2A700 <= c && c <= 0x2B738) ||
         (0x2B740 <= c && c <= 0x2B81D) || (0x2B820 <= c && c <= 0x2CEA1) ||
         (0x2CEB0 <= c && c <= 0x2EBE0) || (0x30000 <= c && c <= 0x3134A);
}

// "CJK UNIFIED IDEOGRAPH-" + 4 or 5 hex digits, uppercase only as in CPython.
int32_t unified_ideograph(std::string_view hex) {
  if (hex.size() != 4 && hex.size() != 5) return -1;
  uint32_t v = 0;
  for (char c : hex) {
    if (c >= '0' && c <= '9') {
      v = v * 16 + static_cast<uint32_t>(c - '0');
    } else if (c >= 'A' && c <= 'F') {
      v = v * 16 + static_cast<uint32_t>(c - 'A' + 10);
    } else {
      return -1;
    }
  }
  return is_unified_ideograph(v) ? static_cast<int32_t>(v) : -1;
}

// CPython 3.11 has Unicode 14.0 names; ICU 72 knows 15.0 ones too.
bool assigned_by_unicode_14(UChar32 c) {
  UVersionInfo age;
  u_charAge(c, age);
  return age[0] < 14 || (age[0] == 14 && age[1] == 0);
}

}  // namespace

int32_t lookup_char_name(std::string_view name) {
  constexpr std::string_view kHangul = "HANGUL SYLLABLE ";
  constexpr std::string_view kIdeograph = "CJK UNIFIED IDEOGRAPH-";
  // Algorithmic names first and case-sensitively, as CPython's _getcode does.
  if (name.starts_with(kHangul)) return hangul_syllable(name.substr(kHangul.size()));
  if (name.starts_with(kIdeograph)) return unified_ideograph(name.substr(kIdeograph.size()));
  if (name.empty() || name.size() > kMaxNameLength) return -1;

  // Everything else matches case-insensitively (ASCII only, Py_TOUPPER). Names
  // only use A-Z 0-9 space and hyphen; rejecting other bytes early also keeps
  // ICU's "<control-000A>" syntax out.
  char upper[kMaxNameLength + 1];
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == ' ' || c == '-')) return -1;
    upper[i] = c;
  }
  upper[name.size()] = '\0';
  const std::string_view key(upper, name.size());
  // CPython's name table has no algorithmic entries, so "hangul syllable ga"
  // and "cjk unified ideograph-4e00" are unknown there.
  if (key.starts_with(kHangul) || key.starts_with(kIdeograph)) return -1;

  const auto alias =
      std::lower_bound(std::begin(kNameAliases), std::end(kNameAliases), key,
                       [](const NameAlias& a, std::string_view k) { return a.name < k; });
  if (alias != std::end(kNameAliases) && alias->name == key) return alias->code;

  UErrorCode status = U_ZERO_ERROR;
  const UChar32 c = u_charFromName(U_UNICODE_CHAR_NAME, upper, &status);
  if (U_FAILURE(status) || !assigned_by_unicode_14(c)) return -1;
  // ICU names Tangut ideographs algorithmically; CPython 3.11's table skips
  // UnicodeData.txt's "<Tangut Ideograph, First>" ranges, so it has no name.
  if (key.starts_with("TANGUT IDEOGRAPH-")) return -1;
  return c;
}

}  // namespace tpf::parser
