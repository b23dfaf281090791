// Raw scanner: one operator, name, number, string, comment, line end or
// continuation at a time. re2c turns the rules below into a DFA at build time.
// requires: ScanInput. produces: RawToken (line structure is indent.cpp's job).
//
// The output is a header that only indent.cpp includes, so the scanner
// inlines into the tokenizer's loop: as a separate function, the call, its
// prologue and the RawToken handed back cost about as much as the DFA did.
// Whole files are scanned with the NUL that ends their std::string as a
// sentinel (no bounds check per byte), f-string fields with bounds checks.
//
// Numbers follow CPython 3.11's tokenizer, which reads a number greedily and
// then looks at the next character: the rules match the longest valid literal
// (or a bad 0x/0o/0b prefix) and finish_number() replays what CPython does on
// the character after it, message and position included.
#pragma once

#include <array>
#include <string>

#include "lexer/scan.h"

namespace tpf::lexer::detail {
// Internal linkage is fine: indent.cpp is the only includer.
namespace {

bool is_ident_char(unsigned c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}

bool is_digit(unsigned c) { return c >= '0' && c <= '9'; }

// Blanks between tokens (' ', '\t', '\f'): one lookup instead of three
// compares for the byte that ends the run.
constexpr auto kBlank = [] {
  std::array<bool, 256> t{};
  t[' '] = t['\t'] = t['\f'] = true;
  return t;
}();

uint16_t prefix_flags(const unsigned char* s, const unsigned char* e) {
  uint16_t f = kNoFlags;
  for (; s < e; ++s) {
    switch (*s | 0x20) {
      case 'b': f |= kStrBytes; break;
      case 'r': f |= kStrRaw; break;
      case 'u': f |= kStrUnicode; break;
      case 'f': f |= kStrFString; break;
      default: break;
    }
  }
  return f;
}

enum class NumKind : uint8_t { Decimal, Hex, Octal, Binary, Imaginary, LeadingZeros };

const char* num_kind_word(NumKind k) {
  switch (k) {
    case NumKind::Hex: return "hexadecimal";
    case NumKind::Octal: return "octal";
    case NumKind::Binary: return "binary";
    case NumKind::Imaginary: return "imaginary";
    default: return "decimal";
  }
}

/// One scan step. kSentinel: `in.text[in.lim]` is a NUL byte that ends every
/// rule (make_source's text is the tail of a std::string, and NUL bytes in a
/// file are rejected before tokenizing), so the DFA reads without bounds
/// checks. Both variants accept and reject exactly the same input.
template <bool kSentinel>
struct Scan {
  const ScanInput& in;
  uint32_t& pos;
  LexError& err;

  unsigned peek(uint32_t at) const { return at < in.lim ? in.text[at] : 0u; }

  bool digpart_only(uint32_t b, uint32_t e) const {
    for (uint32_t i = b; i < e; ++i)
      if (!is_digit(in.text[i]) && in.text[i] != '_') return false;
    return true;
  }

  RawToken fail(uint32_t at, std::string msg, bool deferred = false) {
    err.span = Span{at, at < in.lim ? at + 1 : at};
    err.message = std::move(msg);
    err.deferred = deferred;
    RawToken r;
    r.raw = Raw::Error;
    r.begin = r.end = at;
    return r;
  }

  RawToken token(TokKind k, uint32_t b, uint32_t e, uint16_t flags = kNoFlags) {
    pos = e;
    RawToken r;
    r.raw = Raw::Token;
    r.kind = k;
    r.flags = flags;
    r.begin = b;
    r.end = e;
    return r;
  }

  // CPython accepts `1if x else y` (a DeprecationWarning in 3.11): a number
  // may end right before these keywords ("i" only needs the next letter).
  bool keyword_follows(uint32_t e) const {
    auto word = [&](const char* rest) {
      uint32_t p = e + 1;
      for (; *rest; ++rest, ++p)
        if (peek(p) != static_cast<unsigned char>(*rest)) return false;
      return !is_ident_char(peek(p));
    };
    switch (peek(e)) {
      case 'a': return word("nd");
      case 'e': return word("lse");
      case 'f': return word("or");
      case 'o': return word("r");
      case 'n': return word("ot");
      case 'i': {
        const unsigned c2 = peek(e + 1);
        return c2 == 'f' || c2 == 'n' || c2 == 's';
      }
      default: return false;
    }
  }

  RawToken invalid_literal(NumKind k, uint32_t at) {
    return fail(at, std::string("invalid ") + num_kind_word(k) + " literal");
  }

  RawToken bad_digit(NumKind k, uint32_t at) {
    std::string m = "invalid digit '";
    m += static_cast<char>(peek(at));
    m += k == NumKind::Octal ? "' in octal literal" : "' in binary literal";
    return fail(at, std::move(m));
  }

  // The literal [b, e) matched; replay CPython on the character after it.
  // Error offsets: CPython reports the character before its cursor, which
  // is after the offending character when it was consumed, on it otherwise.
  RawToken finish_number(NumKind k, uint32_t b, uint32_t e, uint16_t flags) {
    const unsigned c = peek(e);
    const bool has_exp = (flags & kNumFloat) && [&] {
      for (uint32_t i = b; i < e; ++i)
        if ((in.text[i] | 0x20) == 'e') return true;
      return false;
    }();
    if (c == '_') {
      // A digit run's `_` must be followed by a digit.
      if (k == NumKind::Imaginary || in.text[e - 1] == '.') return invalid_literal(k, e - 1);
      if ((k == NumKind::Octal || k == NumKind::Binary) && is_digit(peek(e + 1)))
        return bad_digit(k, e + 1);
      return invalid_literal(k == NumKind::LeadingZeros ? NumKind::Decimal : k, e);
    }
    if ((k == NumKind::Octal || k == NumKind::Binary) && is_digit(c)) return bad_digit(k, e);
    if ((c | 0x20) == 'e' && (k == NumKind::Decimal || k == NumKind::LeadingZeros) && !has_exp) {
      // An exponent that is not one: `1e+x` fails at the sign; `1else`
      // ends the number; anything else fails at the number's last character.
      const unsigned c2 = peek(e + 1);
      if (c2 == '+' || c2 == '-') return invalid_literal(NumKind::Decimal, e + 1);
      if (keyword_follows(e)) return token(TokKind::Number, b, e, flags);
      return invalid_literal(NumKind::Decimal, e - 1);
    }
    if (k == NumKind::LeadingZeros) {
      Span s{b, b + 1};
      while (s.end < e && (in.text[s.end] == '0' || in.text[s.end] == '_')) ++s.end;
      RawToken r = fail(b,
                        "leading zeros in decimal integer literals are not permitted; "
                        "use an 0o prefix for octal integers");
      err.span = s;
      return r;
    }
    // Only ASCII counts here: `1\u200b` fails later, on the character.
    if (c < 0x80 && is_ident_char(c) && !keyword_follows(e)) return invalid_literal(k, e - 1);
    return token(TokKind::Number, b, e, flags);
  }

  // `0x`, `0o`, `0b` (maybe with a `_`) not followed by a digit of the base.
  RawToken bad_prefix(NumKind k, uint32_t e) {
    if (k != NumKind::Hex && is_digit(peek(e))) return bad_digit(k, e);
    return invalid_literal(k, e - 1);
  }

  RawToken string(uint32_t b, uint32_t quote) {
    uint16_t flags = prefix_flags(in.text + b, in.text + quote);
    uint32_t e = 0;
    bool decode_error = false;
    if (!scan_string(in, b, quote, flags, e, decode_error, err)) {
      RawToken r;
      r.raw = Raw::Error;
      r.begin = r.end = b;
      return r;
    }
    RawToken r = token(TokKind::String, b, e, flags);
    r.decode_error = decode_error;
    return r;
  }

  RawToken name(uint32_t b, uint32_t e) {
    if (!check_identifier(in, b, e, err)) {
      RawToken r;
      r.raw = Raw::Error;
      r.begin = r.end = b;
      return r;
    }
    return token(TokKind::Name, b, e, kNameNonAscii);
  }

  RawToken line_structure(Raw kind, uint32_t b, uint32_t e) {
    pos = e;
    RawToken r;
    r.raw = kind;
    r.begin = b;
    r.end = e;
    return r;
  }

  // Always inlined: it is called once per token from one place, and GCC's
  // size heuristics otherwise leave it out of line (see the file comment).
  [[gnu::always_inline]] RawToken run();
};

template <bool kSentinel>
[[gnu::always_inline]] inline RawToken Scan<kSentinel>::run() {
  const unsigned char* const base = in.text;
  const unsigned char* const lim = in.text + in.lim;
  const unsigned char* cur = base + pos;
  while ((kSentinel || cur < lim) && kBlank[*cur]) ++cur;
  const unsigned char* const tok = cur;
  const unsigned char* mar = cur;
  const uint32_t b = static_cast<uint32_t>(tok - base);
  auto here = [&] { return static_cast<uint32_t>(cur - base); };
  // Used by most rules: inlined, it folds into the action.
  auto op = [&](TokKind k) __attribute__((always_inline)) { return token(k, b, here()); };
  /*!re2c
    re2c:api = custom;
    re2c:api:style = free-form;
    re2c:define:YYCTYPE = "unsigned char";
    re2c:define:YYPEEK = "((kSentinel || cur < lim) ? *cur : 0)";
    re2c:define:YYSKIP = "++cur;";
    re2c:define:YYBACKUP = "mar = cur;";
    re2c:define:YYRESTORE = "cur = mar;";
    re2c:yyfill:enable = 0;

    eol = "\r\n" | "\n" | "\r";

    dig = [0-9];
    digpart = dig ("_"? dig)*;
    decint = [1-9] ("_"? dig)* | "0" ("_"? "0")*;
    hexint = "0" [xX] ("_"? [0-9a-fA-F])+;
    octint = "0" [oO] ("_"? [0-7])+;
    binint = "0" [bB] ("_"? [01])+;
    exponent = [eE] [+-]? digpart;
    pointfloat = digpart? "." digpart | digpart ".";
    float = pointfloat | (digpart | pointfloat) exponent;
    imag = (float | digpart) [jJ];

    ascii_name = [A-Za-z_] [A-Za-z0-9_]*;
    any_name = [A-Za-z_\x80-\xff] [A-Za-z0-9_\x80-\xff]*;
    prefix = [bBrRuUfF] | [bB][rR] | [rR][bB] | [fF][rR] | [rR][fF];

    "\x00" {
      if (tok >= lim) return line_structure(Raw::Eof, b, b);
      return fail(b, "invalid non-printable character U+0000");
    }
    eol { return line_structure(Raw::Newline, b, here()); }
    "#" [^\r\n\x00]* { return line_structure(Raw::Comment, b, here()); }
    "\\" eol { return line_structure(Raw::Continuation, b, here()); }
    "\\" {
      // At the very end CPython has appended a line break for us.
      if (cur >= lim) return line_structure(Raw::Continuation, b, here());
      return fail(here(), "unexpected character after line continuation character", true);
    }

    // Keywords: the DFA tells them from names while reading the name, so a
    // NAME token costs no table lookup. Longest match keeps `define` and
    // `if_` names; an equally long keyword wins because it comes first.
    // Same list as TPF_KEYWORD in tokens.def (a lexer test checks that).
    "False" { return op(TokKind::False); }
    "None" { return op(TokKind::None); }
    "True" { return op(TokKind::True); }
    "and" { return op(TokKind::And); }
    "as" { return op(TokKind::As); }
    "assert" { return op(TokKind::Assert); }
    "async" { return op(TokKind::Async); }
    "await" { return op(TokKind::Await); }
    "break" { return op(TokKind::Break); }
    "class" { return op(TokKind::Class); }
    "continue" { return op(TokKind::Continue); }
    "def" { return op(TokKind::Def); }
    "del" { return op(TokKind::Del); }
    "elif" { return op(TokKind::Elif); }
    "else" { return op(TokKind::Else); }
    "except" { return op(TokKind::Except); }
    "finally" { return op(TokKind::Finally); }
    "for" { return op(TokKind::For); }
    "from" { return op(TokKind::From); }
    "global" { return op(TokKind::Global); }
    "if" { return op(TokKind::If); }
    "import" { return op(TokKind::Import); }
    "in" { return op(TokKind::In); }
    "is" { return op(TokKind::Is); }
    "lambda" { return op(TokKind::Lambda); }
    "nonlocal" { return op(TokKind::Nonlocal); }
    "not" { return op(TokKind::Not); }
    "or" { return op(TokKind::Or); }
    "pass" { return op(TokKind::Pass); }
    "raise" { return op(TokKind::Raise); }
    "return" { return op(TokKind::Return); }
    "try" { return op(TokKind::Try); }
    "while" { return op(TokKind::While); }
    "with" { return op(TokKind::With); }
    "yield" { return op(TokKind::Yield); }
    ascii_name { return token(TokKind::Name, b, here()); }
    any_name { return name(b, here()); }
    prefix? ['"] { return string(b, here() - 1); }

    decint { return finish_number(NumKind::Decimal, b, here(), kNoFlags); }
    hexint { return finish_number(NumKind::Hex, b, here(), kNoFlags); }
    octint { return finish_number(NumKind::Octal, b, here(), kNoFlags); }
    binint { return finish_number(NumKind::Binary, b, here(), kNoFlags); }
    float { return finish_number(NumKind::Decimal, b, here(), kNumFloat); }
    imag {
      const uint16_t f = kNumImaginary | (digpart_only(b, here() - 1) ? kNoFlags : kNumFloat);
      return finish_number(NumKind::Imaginary, b, here(), f);
    }
    digpart { return finish_number(NumKind::LeadingZeros, b, here(), kNoFlags); }
    "0" [xX] "_"? { return bad_prefix(NumKind::Hex, here()); }
    "0" [oO] "_"? { return bad_prefix(NumKind::Octal, here()); }
    "0" [bB] "_"? { return bad_prefix(NumKind::Binary, here()); }

    "(" { return op(TokKind::LPar); }
    ")" { return op(TokKind::RPar); }
    "[" { return op(TokKind::LSqb); }
    "]" { return op(TokKind::RSqb); }
    "{" { return op(TokKind::LBrace); }
    "}" { return op(TokKind::RBrace); }
    ":" { return op(TokKind::Colon); }
    "," { return op(TokKind::Comma); }
    ";" { return op(TokKind::Semi); }
    "." { return op(TokKind::Dot); }
    "..." { return op(TokKind::Ellipsis); }
    "->" { return op(TokKind::Arrow); }
    ":=" { return op(TokKind::ColonEqual); }
    "=" { return op(TokKind::Equal); }
    "!" { return op(TokKind::Exclamation); }
    "+" { return op(TokKind::Plus); }
    "-" { return op(TokKind::Minus); }
    "*" { return op(TokKind::Star); }
    "**" { return op(TokKind::DoubleStar); }
    "/" { return op(TokKind::Slash); }
    "//" { return op(TokKind::DoubleSlash); }
    "%" { return op(TokKind::Percent); }
    "@" { return op(TokKind::At); }
    "|" { return op(TokKind::Vbar); }
    "&" { return op(TokKind::Amper); }
    "^" { return op(TokKind::Circumflex); }
    "~" { return op(TokKind::Tilde); }
    "<<" { return op(TokKind::LeftShift); }
    ">>" { return op(TokKind::RightShift); }
    "<" { return op(TokKind::Less); }
    ">" { return op(TokKind::Greater); }
    "==" { return op(TokKind::EqEqual); }
    "!=" | "<>" { return op(TokKind::NotEqual); }  // `<>`: the parser rejects it (PEP 401)
    "<=" { return op(TokKind::LessEqual); }
    ">=" { return op(TokKind::GreaterEqual); }
    "+=" { return op(TokKind::PlusEqual); }
    "-=" { return op(TokKind::MinEqual); }
    "*=" { return op(TokKind::StarEqual); }
    "@=" { return op(TokKind::AtEqual); }
    "/=" { return op(TokKind::SlashEqual); }
    "%=" { return op(TokKind::PercentEqual); }
    "&=" { return op(TokKind::AmperEqual); }
    "|=" { return op(TokKind::VbarEqual); }
    "^=" { return op(TokKind::CircumflexEqual); }
    "<<=" { return op(TokKind::LeftShiftEqual); }
    ">>=" { return op(TokKind::RightShiftEqual); }
    "//=" { return op(TokKind::DoubleSlashEqual); }
    "**=" { return op(TokKind::DoubleStarEqual); }
    [$?`] { return op(TokKind::UnknownOp); }

    [\x01-\x08\x0b\x0e-\x1f\x7f] {
      static constexpr char kHex[] = "0123456789ABCDEF";
      std::string m = "invalid non-printable character U+00";
      m += kHex[*tok >> 4];
      m += kHex[*tok & 15];
      return fail(b, std::move(m));
    }
    * { return op(TokKind::UnknownOp); }
  */
}

/// Skips spaces, tabs and form feeds at `pos`, then scans one raw token and
/// advances `pos` past it. On Raw::Error, `err` is set and `pos` is unchanged.
template <bool kSentinel>
[[gnu::always_inline]] inline RawToken scan_raw(const ScanInput& in, uint32_t& pos,
                                                LexError& err) {
  Scan<kSentinel> s{in, pos, err};
  return s.run();
}

}  // namespace
}  // namespace tpf::lexer::detail
