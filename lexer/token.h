// Token kinds and the 12-byte Token. A token holds no strings: its text is
// the slice [begin, end) of the SourceFile's bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace tpf::lexer {

enum class TokKind : uint8_t {
#define TPF_TOKEN(e, s) e,
#define TPF_KEYWORD(e, s) e,
#define TPF_OP(e, s) e,
#include "lexer/tokens.def"
#undef TPF_TOKEN
#undef TPF_KEYWORD
#undef TPF_OP
};

inline constexpr TokKind kKwFirst = TokKind::False;
inline constexpr TokKind kKwLast = TokKind::Yield;
inline constexpr TokKind kAugFirst = TokKind::PlusEqual;
inline constexpr TokKind kAugLast = TokKind::DoubleStarEqual;

constexpr bool is_keyword(TokKind k) { return k >= kKwFirst && k <= kKwLast; }
constexpr bool is_aug_assign(TokKind k) { return k >= kAugFirst && k <= kAugLast; }

/// Name of a kind as --dump-tokens prints it ("NAME", "OP" spellings for operators).
std::string_view kind_name(TokKind k);
/// Spelling of a keyword or operator ("def", "**="); empty for other kinds.
std::string_view spelling(TokKind k);

/// Bit flags on a token.
enum TokFlags : uint16_t {
  kNoFlags = 0,
  // String prefixes (any case) and shape.
  kStrRaw = 1 << 0,
  kStrBytes = 1 << 1,
  kStrUnicode = 1 << 2,     // u"" (Constant.kind == "u")
  kStrFString = 1 << 3,
  kStrTriple = 1 << 4,
  kStrSingleQuote = 1 << 5, // delimiter is ' (else ")
  kStrUnterminated = 1 << 6,
  // Numbers.
  kNumImaginary = 1 << 7,   // ends in j/J
  kNumFloat = 1 << 8,       // has '.', or an exponent (and is not hex/oct/bin)
  // Names.
  kNameNonAscii = 1 << 9,   // needs NFKC normalization before use as an identifier
  // Set on the first token after a backslash continuation.
  kAfterContinuation = 1 << 10,
  // On an f-string String token read by 3.12 rules: its end differs from
  // 3.11's, because a replacement field reuses an enclosing quote (PEP 701,
  // `f"{d["k"]}"`) or spans lines.
  kStrPep701 = 1 << 11,
  // On an Error token: CPython raises this error only when its parser
  // fetches the token (indentation errors, a bad line continuation, EOF inside
  // brackets or after a backslash, a string that is not valid UTF-8), so a
  // syntax error the parser finds earlier wins. Without it the error wins over
  // generic parser errors anywhere before it (CPython re-tokenizes the rest of
  // the file). For "'(' was never closed" CPython prefers the parser's error
  // unless that is on a later line than the bracket.
  kErrDeferred = 1 << 12,
};

/// One token: kind, flags, half-open byte range in the source. 12 bytes.
struct Token {
  TokKind kind;
  uint8_t pad_ = 0;
  uint16_t flags = kNoFlags;
  uint32_t begin;
  uint32_t end;
};
static_assert(sizeof(Token) == 12, "Token must stay 12 bytes");

}  // namespace tpf::lexer
