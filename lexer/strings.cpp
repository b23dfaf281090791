// Finds where a string literal ends. Plain strings, and every string before
// 3.12, end at the first unescaped closing quote. From 3.12 f-strings are
// scanned the PEP 701 way (replacement fields with nested strings, comments
// and line ends, format specs); on 3.11-valid code both give the same end,
// and when they differ the token is flagged kStrPep701.
// requires: ScanInput. produces: the string's end, flags and errors for scan.re.
#include <array>
#include <cstring>
#include <string>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "lexer/lexer.h"
#include "lexer/scan.h"

namespace tpf::lexer::detail {
namespace {

bool is_line_end(unsigned c) { return c == '\n' || c == '\r'; }

bool is_ident_char(unsigned c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}

struct Delim {
  unsigned char quote;
  bool triple;
};

bool closes(const ScanInput& in, uint32_t p, Delim d) {
  if (in.text[p] != d.quote) return false;
  if (!d.triple) return true;
  return p + 2 < in.lim && in.text[p + 1] == d.quote && in.text[p + 2] == d.quote;
}

uint32_t quote_len(Delim d) { return d.triple ? 3 : 1; }

Delim delim_at(const ScanInput& in, uint32_t q) {
  Delim d{};
  d.quote = in.text[q];
  d.triple = q + 2 < in.lim && in.text[q + 1] == d.quote && in.text[q + 2] == d.quote;
  return d;
}

// One past a backslash escape starting at `p` (the backslash): a \r\n pair
// counts as one character, as CPython sees it after newline translation.
uint32_t skip_escape(const ScanInput& in, uint32_t p) {
  ++p;
  if (p >= in.lim) return p;
  if (in.text[p] == '\r' && p + 1 < in.lim && in.text[p + 1] == '\n') return p + 2;
  return p + 1;
}

// The first byte at or after `p` (or `lim`) that the plain scan must look
// at: the quote, a backslash, a line end, or (until one was seen) a byte
// >= 0x80. Docstrings make string bodies a third of the torch tree's bytes,
// so this skips ordinary text 16 bytes at a time where SSE2 is available.
uint32_t next_special(const ScanInput& in, uint32_t p, unsigned char quote, bool nonascii) {
#if defined(__SSE2__)
  const __m128i q = _mm_set1_epi8(static_cast<char>(quote));
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  // All zero once a non-ASCII byte was seen: only the sign bits matter.
  const __m128i high = nonascii ? _mm_setzero_si128() : _mm_set1_epi8(static_cast<char>(0x80));
  for (; in.lim - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in.text + p));
    const __m128i hit = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, backslash)),
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr)),
                     _mm_and_si128(v, high)));
    if (const int mask = _mm_movemask_epi8(hit)) return p + static_cast<uint32_t>(__builtin_ctz(mask));
  }
#endif
  for (; p < in.lim; ++p) {
    const unsigned c = in.text[p];
    if (c == quote || c == '\\' || is_line_end(c) || (c >= 0x80 && !nonascii)) return p;
  }
  return p;
}

// CPython 3.11's string scan: returns false at EOF, or at a line end in a
// single-quoted string; `stop` is where it gave up.
bool plain_end(const ScanInput& in, uint32_t q, Delim d, uint32_t& end, uint32_t& stop,
               bool& nonascii) {
  uint32_t p = q + quote_len(d);
  for (;;) {
    p = next_special(in, p, d.quote, nonascii);
    if (p >= in.lim) break;
    const unsigned c = in.text[p];
    if (c == d.quote && closes(in, p, d)) {
      end = p + quote_len(d);
      return true;
    }
    if (c == '\\') {
      p = skip_escape(in, p);
      continue;
    }
    if (is_line_end(c) && !d.triple) {
      stop = p;
      return false;
    }
    nonascii |= c >= 0x80;
    ++p;
  }
  stop = in.lim;
  return false;
}

// The PEP 701 scan keeps an explicit stack of what it is inside, so nesting
// costs no recursion. 3.12 stops at 150 nested f-strings; we give up (and
// fall back to the 3.11 end) at this many frames of any kind.
constexpr int kMaxFrames = 256;

enum class Mode : uint8_t { Literal, Field, Spec };

// Trivially constructible: the stack below is not cleared per f-string.
struct Frame {
  Mode mode;
  Delim delim;     // Literal: this string's delimiter
  bool raw;        // Literal: r prefix
  bool fstr;       // Literal: f prefix
  int owner;       // Spec: index of the f-string's Literal frame
  uint32_t base;   // Field: the bracket stack's height when the field opened
  uint32_t at;     // Literal: its opening quote
};

Frame make_frame(Mode mode) { return Frame{mode, Delim{}, false, false, 0, 0, 0}; }

// Open brackets across all fields being scanned (3.12's MAXLEVEL is 200).
constexpr uint32_t kMaxBrackets = 200;

class FStringScan {
 public:
  explicit FStringScan(const ScanInput& in) : in_(in) {}

  bool run(uint32_t q, bool raw, uint32_t& end) {
    if (!push_string(q, raw, true)) return false;
    uint32_t p = q + quote_len(stack_[0].delim);
    while (p < in_.lim) {
      if (is_line_end(in_.text[p])) {
        // 3.11 allows a line end only where every enclosing string is
        // triple-quoted; 3.12 also anywhere in a replacement field, and in
        // the body or spec of a triple-quoted string.
        if (in_.pep701) {
          const Frame& top = stack_[n_ - 1];
          const bool triple = stack_[top.mode == Mode::Spec ? top.owner : n_ - 1].delim.triple;
          if (top.mode == Mode::Spec && !triple) {
            pop();  // 3.12: the line end ends the spec; the field goes on
          } else if (top.mode != Mode::Field && !triple) {
            if (top.mode == Mode::Literal) unterminated_in_field(p);
            stop_ = p;
            return false;
          }
        } else if (singles_ > 0) {
          return false;
        }
        ++p;
        continue;
      }
      const bool done = stack_[n_ - 1].mode == Mode::Field ? field_char(p) : literal_char(p);
      if (done) {
        end = p;
        return true;
      }
      if (failed_) {
        stop_ = p;
        return false;
      }
    }
    stop_ = in_.lim;
    if (stack_[n_ - 1].mode == Mode::Literal) unterminated_in_field(in_.lim);
    return false;
  }

  /// Where run() gave up.
  uint32_t stop() const { return stop_; }
  /// The tokenizer error 3.12 raises inside a field ("" when the f-string
  /// is simply unterminated), at error_at().
  const std::string& error() const { return error_; }
  uint32_t error_at() const { return error_at_; }

 private:
  bool push(const Frame& f) {
    if (n_ == kMaxFrames) {
      failed_ = true;
      return false;
    }
    stack_[n_++] = f;
    return true;
  }

  bool push_string(uint32_t q, bool raw, bool fstr) {
    Frame f = make_frame(Mode::Literal);
    f.delim = delim_at(in_, q);
    f.raw = raw;
    f.fstr = fstr;
    f.at = q;
    if (!push(f)) return false;
    singles_ += f.delim.triple ? 0 : 1;
    return true;
  }

  void pop() {
    const Frame& f = stack_[--n_];
    if (f.mode == Mode::Literal && !f.delim.triple) --singles_;
    if (f.mode == Mode::Field) nb_ = f.base;
  }

  void fail(uint32_t at, std::string msg) {
    failed_ = true;
    error_ = std::move(msg);
    error_at_ = at;
  }

  // An unterminated plain string in a field that uses the f-string's own
  // quote: 3.12 takes it for the f-string's end and a missing '}'.
  void unterminated_in_field(uint32_t stop) {
    if (n_ < 2 || stack_[n_ - 2].mode != Mode::Field || stack_[n_ - 1].fstr) return;
    for (int i = n_ - 3; i >= 0; --i) {
      if (stack_[i].mode != Mode::Literal) continue;
      const Delim& f = stack_[i].delim;
      const Delim& d = stack_[n_ - 1].delim;
      if (!error_.empty()) return;
      if (f.quote == d.quote && f.triple == d.triple) {
        fail(stack_[n_ - 1].at, "f-string: expecting '}'");
      } else {
        std::string m = d.triple ? "unterminated triple-quoted string literal (detected at line "
                                 : "unterminated string literal (detected at line ";
        fail(stack_[n_ - 1].at, m + std::to_string(line_of(stop)) + ")");
      }
      return;
    }
  }

  // One step in a string body or a format spec; true when the outermost
  // string just closed.
  bool literal_char(uint32_t& p) {
    const Frame& top = stack_[n_ - 1];
    const int owner = top.mode == Mode::Spec ? top.owner : n_ - 1;
    const Frame& str = stack_[owner];
    const unsigned c = in_.text[p];
    if (c == str.delim.quote && closes(in_, p, str.delim)) {
      // In a spec this ends the f-string with the field still open: 3.11
      // and 3.12 both end the token here and the parser reports it.
      p += quote_len(str.delim);
      while (n_ > owner) pop();
      return n_ == 0;
    }
    if (c == '\\') {
      const unsigned next = p + 1 < in_.lim ? in_.text[p + 1] : 0u;
      if (str.fstr && (next == '{' || next == '}')) {
        ++p;  // `\{` still opens a field
      } else if (str.fstr && !str.raw && next == 'N' && p + 2 < in_.lim && in_.text[p + 2] == '{') {
        // \N{NAME}: its braces are not a field.
        p += 3;
        while (p < in_.lim && in_.text[p] != '}' && !closes(in_, p, str.delim) &&
               !(is_line_end(in_.text[p]) && singles_ > 0))
          ++p;
        if (p < in_.lim && in_.text[p] == '}') ++p;
      } else {
        p = skip_escape(in_, p);
      }
      return false;
    }
    if (str.fstr && c == '{') {
      if (top.mode == Mode::Literal && p + 1 < in_.lim && in_.text[p + 1] == '{') {
        p += 2;
        return false;
      }
      Frame f = make_frame(Mode::Field);
      f.base = nb_;
      push(f);
      ++p;
      return false;
    }
    if (str.fstr && c == '}') {
      if (top.mode == Mode::Spec) {
        pop();  // the spec
        pop();  // its field
        ++p;
        return false;
      }
      p += (p + 1 < in_.lim && in_.text[p + 1] == '}') ? 2 : 1;
      return false;
    }
    ++p;
    return false;
  }

  // One step in a replacement field's expression.
  bool field_char(uint32_t& p) {
    Frame& top = stack_[n_ - 1];
    const unsigned c = in_.text[p];
    switch (c) {
      case '\'':
      case '"':
        if (push_string(p, false, false)) p += quote_len(stack_[n_ - 1].delim);
        return false;
      case '(':
      case '[':
      case '{':
        if (nb_ == kMaxBrackets) {
          fail(p, "too many nested parentheses");
          return false;
        }
        brackets_[nb_] = static_cast<char>(c);
        bracket_at_[nb_++] = p;
        ++p;
        return false;
      case ')':
      case ']':
      case '}': {
        if (nb_ == top.base) {
          if (c == '}') pop();  // the field ends; ')' and ']' are the parser's
          ++p;
          return false;
        }
        const char open = brackets_[--nb_];
        if ((open == '(') != (c == ')') || (open == '[') != (c == ']')) {
          // 3.12's tokenizer checks every closing bracket.
          std::string m = std::string("closing parenthesis '") + static_cast<char>(c) +
                          "' does not match opening parenthesis '" + open + "'";
          const uint32_t ol = line_of(bracket_at_[nb_]);
          if (ol != line_of(p)) m += " on line " + std::to_string(ol);
          fail(p, std::move(m));
          return false;
        }
        ++p;
        return false;
      }
      case ':':
        if (nb_ == top.base) {
          // The spec belongs to the f-string that owns this field, which is
          // below it, or below the spec this field is nested in.
          const Frame& below = stack_[n_ - 2];
          Frame f = make_frame(Mode::Spec);
          f.owner = below.mode == Mode::Spec ? below.owner : n_ - 2;
          push(f);
        }
        ++p;
        return false;
      case '\\':
        p = skip_escape(in_, p);
        return false;
      case '#':
        // 3.12: a comment, up to the line end, even inside '...'.
        if (in_.pep701) {
          while (p < in_.lim && !is_line_end(in_.text[p])) ++p;
          return false;
        }
        ++p;
        return false;
      default:
        break;
    }
    if (!is_ident_char(c)) {
      ++p;
      return false;
    }
    // A name, number or keyword; a string prefix when a quote follows.
    const uint32_t b = p;
    while (p < in_.lim && is_ident_char(in_.text[p])) ++p;
    if (p < in_.lim && (in_.text[p] == '\'' || in_.text[p] == '"') && p - b <= 2) {
      bool raw = false, fstr = false, ok = true, bytes = false, uni = false;
      for (uint32_t i = b; i < p; ++i) {
        switch (in_.text[i] | 0x20) {
          case 'r':
            ok &= !raw;
            raw = true;
            break;
          case 'f':
            ok &= !fstr;
            fstr = true;
            break;
          case 'b':
            ok &= !bytes;
            bytes = true;
            break;
          case 'u':
            ok &= !uni;
            uni = true;
            break;
          default:
            ok = false;
            break;
        }
      }
      ok &= !(uni && p - b > 1) && !(fstr && bytes);
      if (ok && push_string(p, raw, fstr)) p += quote_len(stack_[n_ - 1].delim);
    }
    return false;
  }

  uint32_t line_of(uint32_t p) const { return in_.lines ? in_.lines->at(p).line : 0; }

  const ScanInput& in_;
  Frame stack_[kMaxFrames];
  char brackets_[kMaxBrackets];
  uint32_t bracket_at_[kMaxBrackets];
  uint32_t nb_ = 0;
  int n_ = 0;
  int singles_ = 0;
  bool failed_ = false;
  uint32_t stop_ = 0;
  std::string error_;
  uint32_t error_at_ = 0;
};

// CPython's parser decodes a str body with escapes in runs of non-ASCII
// bytes, and one without (raw, or no backslash) in one piece, so "position
// N" counts from the start of that run or of the body.
std::string body_utf8_error(const ScanInput& in, uint32_t b, uint32_t e, bool raw) {
  uint32_t at = 0;
  if (raw || std::memchr(in.text + b, '\\', e - b) == nullptr) {
    std::string m = utf8_error({reinterpret_cast<const char*>(in.text + b), e - b}, at);
    return m.empty() ? m : "(unicode error) " + m;
  }
  for (uint32_t p = b; p < e;) {
    if (in.text[p] < 0x80) {
      ++p;
      continue;
    }
    const uint32_t run = p;
    while (p < e && in.text[p] >= 0x80) ++p;
    std::string m = utf8_error({reinterpret_cast<const char*>(in.text + run), p - run}, at);
    if (!m.empty()) return "(unicode error) " + m;
  }
  return {};
}

}  // namespace

uint32_t line_end(const ScanInput& in, uint32_t p) {
#if defined(__SSE2__)
  const __m128i lf = _mm_set1_epi8('\n');
  const __m128i cr = _mm_set1_epi8('\r');
  for (; in.lim - p >= 16; p += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in.text + p));
    if (const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, lf), _mm_cmpeq_epi8(v, cr))))
      return p + static_cast<uint32_t>(__builtin_ctz(mask));
  }
#endif
  while (p < in.lim && !is_line_end(in.text[p])) ++p;
  return p;
}

bool scan_string(const ScanInput& in, uint32_t begin, uint32_t quote, uint16_t& flags,
                 uint32_t& end, bool& decode_error, LexError& err) {
  const Delim d = delim_at(in, quote);
  if (d.triple) flags |= kStrTriple;
  if (d.quote == '\'') flags |= kStrSingleQuote;
  uint32_t stop = 0;
  bool nonascii = false;
  const bool plain_ok = plain_end(in, quote, d, end, stop, nonascii);
  bool fstring_ok = plain_ok;
  std::string field_error;
  uint32_t field_error_at = 0;
  if ((flags & kStrFString) && in.pep701) {
    uint32_t pep701_end = 0;
    FStringScan fs(in);
    fstring_ok = fs.run(quote, (flags & kStrRaw) != 0, pep701_end);
    if (fstring_ok && (!plain_ok || pep701_end != end)) {
      end = pep701_end;
      flags |= kStrPep701;
      nonascii = true;  // the tail past the 3.11 end was not looked at
    } else if (!fstring_ok) {
      stop = fs.stop();
      field_error = fs.error();
      field_error_at = fs.error_at();
    }
  }
  if (!fstring_ok && !field_error.empty()) {
    err.span = Span{field_error_at, field_error_at + 1};
    err.deferred = false;
    err.message = std::move(field_error);
    return false;
  }
  if (!fstring_ok) {
    // 3.12 names f-strings in the message.
    const bool f = (flags & kStrFString) && in.pep701;
    err.span = Span{begin, begin + 1};
    err.deferred = false;
    err.message = d.triple ? "unterminated triple-quoted " : "unterminated ";
    err.message += f ? "f-string literal (detected at line " : "string literal (detected at line ";
    err.message += std::to_string(detection_line(in, stop));
    err.message += ')';
    return false;
  }
  decode_error = false;
  if (nonascii && !(flags & kStrBytes)) {
    std::string m =
        body_utf8_error(in, quote + quote_len(d), end - quote_len(d), (flags & kStrRaw) != 0);
    if (!m.empty()) {
      decode_error = true;
      err.message = std::move(m);
      err.deferred = true;
    }
  }
  return true;
}

}  // namespace tpf::lexer::detail

namespace tpf::lexer {

uint32_t string_end(const SourceFile& src, uint32_t begin, uint32_t limit, PyVersion version) {
  detail::ScanInput in;
  in.text = reinterpret_cast<const unsigned char*>(src.text.data());
  in.lim = limit < src.text.size() ? limit : static_cast<uint32_t>(src.text.size());
  in.lines = &src.lines;
  in.pep701 = version.at_least(12);
  uint16_t flags = kNoFlags;
  uint32_t q = begin;
  for (; q < in.lim && in.text[q] != '\'' && in.text[q] != '"'; ++q) {
    const unsigned c = in.text[q] | 0x20;
    if (c == 'r') flags |= kStrRaw;
    if (c == 'f') flags |= kStrFString;
    if (c == 'b') flags |= kStrBytes;
  }
  if (q >= in.lim) return in.lim;
  uint32_t end = 0;
  bool decode_error = false;
  detail::LexError err;
  if (!detail::scan_string(in, begin, q, flags, end, decode_error, err)) return in.lim;
  return end;
}

}  // namespace tpf::lexer
