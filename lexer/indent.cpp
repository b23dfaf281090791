// Line structure on top of the raw scanner: NEWLINE, INDENT and DEDENT with
// CPython 3.11's rules (indentation stack, tabs to multiples of 8 checked
// against 1-column tabs, blank and comment-only lines, implicit joining
// inside brackets, backslash continuations), bracket matching, and where the
// tokens and errors are placed.
// requires: SourceFile. produces: TokenStream, lexical diagnostics.
//
// Positions: NEWLINE covers its line break (empty at a missing final one),
// INDENT covers the indentation, DEDENT is empty at the first token of the
// dedented line, ENDMARKER is empty at the end: CPython's tokenize module's
// positions, since its C tokenizer gives these tokens none.
//
// CPython's tokenizer stops at its first error, so this pass does too: the
// stream then ends with an Error token and EndOfFile.
#include <algorithm>
#include <array>

#include "lexer/lexer.h"
#include "lexer/scan.h"
#include "lexer/scan_dfa.h"

namespace tpf::lexer {
namespace {

using detail::LexError;
using detail::Raw;
using detail::RawToken;

// CPython's limits (Parser/tokenizer.h): MAXINDENT and MAXLEVEL, and the
// tab stops of TABSIZE. Tabs are also measured as 1 column (ALTTABSIZE):
// a line whose indentation compares differently under the two is a TabError.
constexpr int kMaxIndent = 100;
constexpr int kMaxLevel = 200;
constexpr int kTabSize = 8;

bool is_line_end(unsigned c) { return c == '\n' || c == '\r'; }

char closer_of(unsigned char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

enum class LineStart : uint8_t { Tokens, Blank, Eof, Error };

class Tokenizer {
 public:
  Tokenizer(const SourceFile& src, Span range, bool whole_file, PyVersion version, DiagSink& diags)
      : src_(src), diags_(diags), pos_(range.begin), whole_file_(whole_file) {
    in_.pep701 = version.at_least(12);
    in_.text = reinterpret_cast<const unsigned char*>(src.text.data());
    in_.lim = range.end;
    in_.lines = &src.lines;
    in_.crlf_phantom_line = whole_file && range.end >= 2 && src.text[range.end - 2] == '\r' &&
                            src.text[range.end - 1] == '\n';
  }

  TokenStream run();

 private:
  template <bool kSentinel>
  void scan_all();

  bool implicit_join() const { return !whole_file_ || level_ > 0; }
  uint32_t lim() const { return in_.lim; }
  unsigned at(uint32_t p) const { return p < in_.lim ? in_.text[p] : 0u; }
  uint32_t line_of(uint32_t p) const { return src_.lines.at(p).line; }

  uint32_t skip_line_end(uint32_t p) const {
    if (at(p) == '\r' && at(p + 1) == '\n') return p + 2;
    return is_line_end(at(p)) ? p + 1 : p;
  }

  [[gnu::always_inline]] void emit(TokKind k, uint32_t b, uint32_t e, uint16_t flags = kNoFlags) {
    std::vector<Token>& v = out_.tokens;
    // Growing stays out of line and push_back is told it never reallocates
    // (as in ast::Module::add): the inlined reallocation cost a tenth of
    // the tokenizer's instructions.
    if (v.size() == v.capacity()) [[unlikely]] v.reserve(v.capacity() * 2 + 64);
    if (v.size() == v.capacity()) __builtin_unreachable();
    v.push_back(Token{k, 0, static_cast<uint16_t>(flags | pending_flags_), b, e});
    pending_flags_ = kNoFlags;
  }

  // Records `err`, ends the stream with Error + EndOfFile. Returns false so
  // callers can `return fail(...)`. The Error token covers the error when
  // that keeps tokens in order; CPython reports some errors before the last
  // token ("'(' was never closed"), and then it is empty where lexing stopped.
  bool fail(const LexError& err) {
    diags_.error("SyntaxError", err.span, err.message);
    Span at = err.span;
    const uint32_t floor = out_.tokens.empty() ? 0 : out_.tokens.back().end;
    if (at.begin < floor) at.begin = at.end = std::max(floor, std::min(pos_, lim()));
    emit(TokKind::Error, at.begin, at.end, err.deferred ? kErrDeferred : kNoFlags);
    emit(TokKind::EndOfFile, lim(), lim());
    return false;
  }

  bool fail(uint32_t at, std::string message, bool deferred) {
    LexError e;
    e.span = Span{at, at < lim() ? at + 1 : at};
    e.message = std::move(message);
    e.deferred = deferred;
    return fail(e);
  }

  // A str literal that does not decode is reported where CPython's parser
  // is when it decodes the literal: 3.11 at the next token, 3.12 at the
  // literal itself.
  bool flush_decode_error(uint32_t next) {
    if (!pending_decode_) return true;
    pending_decode_ = false;
    if (in_.pep701) next = decode_at_;
    decode_err_.span = Span{next, next < lim() ? next + 1 : next};
    return fail(decode_err_);
  }

  bool unclosed_bracket() {
    const Bracket& b = brackets_[level_ - 1];
    std::string m = "'";
    m += static_cast<char>(b.c);
    m += "' was never closed";
    return fail(b.offset, std::move(m), true);
  }

  // EOF right after a backslash continuation.
  bool eof_after_continuation(uint32_t after_backslash) {
    if (level_ > 0) return unclosed_bracket();
    return fail(after_backslash, "unexpected EOF while parsing", true);
  }

  // A bracket token: pushes an opener, pops the matching closer; anything
  // else is bracket_error's.
  [[gnu::always_inline]] bool bracket(const RawToken& r) {
    const unsigned char c = in_.text[r.begin];
    if (c == '(' || c == '[' || c == '{') {
      if (level_ >= kMaxLevel) return fail(r.begin, "too many nested parentheses", false);
      brackets_[level_++] = Bracket{c, r.begin};
      return true;
    }
    if (level_ > 0 && closer_of(brackets_[level_ - 1].c) == c) {
      --level_;
      return true;
    }
    return bracket_error(c, r.begin);
  }
  bool bracket_error(unsigned char c, uint32_t at);
  LineStart line_start();
  bool indentation(int col, int alt, uint32_t line_begin, uint32_t first);
  void finish_eof(uint32_t at, bool mid_line);

  struct Bracket {
    unsigned char c;
    uint32_t offset;
  };

  const SourceFile& src_;
  detail::ScanInput in_;
  DiagSink& diags_;
  TokenStream out_;
  uint32_t pos_;
  bool whole_file_;
  int indent_ = 0;
  std::array<int, kMaxIndent> cols_{};
  std::array<int, kMaxIndent> alt_cols_{};
  int level_ = 0;
  std::array<Bracket, kMaxLevel> brackets_{};
  uint16_t pending_flags_ = kNoFlags;
  bool pending_decode_ = false;
  LexError decode_err_;
  uint32_t decode_at_ = 0;  // the literal that did not decode
};

// A closer with no opener, or the wrong one.
bool Tokenizer::bracket_error(unsigned char c, uint32_t at) {
  std::string m;
  if (level_ == 0) {
    m = "unmatched '";
    m += static_cast<char>(c);
    m += "'";
    return fail(at, std::move(m), false);
  }
  const Bracket open = brackets_[--level_];
  m = "closing parenthesis '";
  m += static_cast<char>(c);
  m += "' does not match opening parenthesis '";
  m += static_cast<char>(open.c);
  m += "'";
  const uint32_t open_line = line_of(open.offset);
  if (open_line != line_of(at)) m += " on line " + std::to_string(open_line);
  return fail(at, std::move(m), false);
}

// At the start of a physical line (CPython's `atbol`): measures the
// indentation, skips blank and comment-only lines, and compares the
// indentation with the stack when outside brackets.
LineStart Tokenizer::line_start() {
  uint32_t p = pos_;
  uint32_t line_begin = p;
  int col = 0, alt = 0;
  // A backslash in the indentation joins the next line to it; the column of
  // the first one decides the indentation. CPython stores it as "0 = none",
  // so a backslash in column 0 does not count: we keep that quirk.
  int cont_col = 0;
  for (;;) {
    const uint32_t spaces = detail::space_run(in_, p);
    col += static_cast<int>(spaces);
    alt += static_cast<int>(spaces);
    p += spaces;
    const unsigned c = at(p);
    if (p < lim() && c == ' ') {
      ++col, ++alt, ++p;
    } else if (p < lim() && c == '\t') {
      col = (col / kTabSize + 1) * kTabSize;
      ++alt, ++p;
    } else if (p < lim() && c == '\f') {
      col = alt = 0;
      ++p;
    } else if (p < lim() && c == '\\') {
      cont_col = cont_col ? cont_col : col;
      const uint32_t after = p + 1;
      if (after < lim() && !is_line_end(at(after))) {
        fail(after, "unexpected character after line continuation character", true);
        return LineStart::Error;
      }
      p = skip_line_end(after);
      if (p >= lim() && !in_.crlf_phantom_line) {
        eof_after_continuation(after);
        return LineStart::Error;
      }
      line_begin = p;
      pending_flags_ |= kAfterContinuation;
    } else {
      break;
    }
  }
  pos_ = p;
  if (p >= lim()) return LineStart::Eof;
  const unsigned c = at(p);
  if (c == '#') {
    const uint32_t e = detail::line_end(in_, p);
    out_.comments.push_back(Span{p, e});
    pos_ = skip_line_end(e);
    return LineStart::Blank;
  }
  if (is_line_end(c)) {
    pos_ = skip_line_end(p);
    return LineStart::Blank;
  }
  if (level_ > 0) return LineStart::Tokens;
  if (cont_col) col = alt = cont_col;
  return indentation(col, alt, line_begin, p) ? LineStart::Tokens : LineStart::Error;
}

bool Tokenizer::indentation(int col, int alt, uint32_t line_begin, uint32_t first) {
  const auto tab_error = [&] {
    return fail(line_begin, "inconsistent use of tabs and spaces in indentation", true);
  };
  if (col == cols_[indent_]) {
    if (alt != alt_cols_[indent_]) return tab_error();
    return true;
  }
  if (col > cols_[indent_]) {
    if (indent_ + 1 >= kMaxIndent) return fail(line_begin, "too many levels of indentation", true);
    if (alt <= alt_cols_[indent_]) return tab_error();
    ++indent_;
    cols_[indent_] = col;
    alt_cols_[indent_] = alt;
    emit(TokKind::Indent, line_begin, first);
    return true;
  }
  int dedents = 0;
  while (indent_ > 0 && col < cols_[indent_]) --indent_, ++dedents;
  if (col != cols_[indent_]) {
    // CPython points at the end of the line it was reading.
    uint32_t e = first;
    while (e < lim() && !is_line_end(at(e))) ++e;
    return fail(e, "unindent does not match any outer indentation level", true);
  }
  if (alt != alt_cols_[indent_]) return tab_error();
  for (int i = 0; i < dedents; ++i) emit(TokKind::Dedent, first, first);
  return true;
}

void Tokenizer::finish_eof(uint32_t at, bool mid_line) {
  if (level_ > 0) {
    if (flush_decode_error(at)) unclosed_bracket();
    return;
  }
  if (whole_file_) {
    // CPython appends the missing final line break, hence a NEWLINE.
    if (mid_line) {
      if (!flush_decode_error(at)) return;
      emit(TokKind::Newline, at, at);
    }
    for (; indent_ > 0; --indent_) emit(TokKind::Dedent, at, at);
  }
  if (flush_decode_error(at)) emit(TokKind::EndOfFile, at, at);
}

TokenStream Tokenizer::run() {
  out_.tokens.reserve((lim() - pos_) / 4 + 16);
  // A whole file made by make_source is the tail of a std::string, whose
  // terminating NUL can stop the scanner (see Scan); anything else, such as
  // an f-string field in the middle of the file, is scanned with bounds checks.
  const char* const end = src_.text.data() + lim();
  const bool nul_terminated =
      whole_file_ && lim() == src_.text.size() &&
      (end == src_.bytes.data() + src_.bytes.size() || end == src_.utf8.data() + src_.utf8.size());
  if (nul_terminated)
    scan_all<true>();
  else
    scan_all<false>();
  return std::move(out_);
}

// Tokens until EndOfFile or the first error.
template <bool kSentinel>
void Tokenizer::scan_all() {
  bool at_bol = whole_file_;
  // Reused for every token: only the error paths write it, and each sets
  // every field it reports.
  LexError err;
  for (;;) {
    if (at_bol) {
      const LineStart ls = line_start();
      if (ls == LineStart::Error) return;
      if (ls == LineStart::Blank) continue;
      if (ls == LineStart::Eof) {
        finish_eof(pos_, false);
        return;
      }
      at_bol = false;
    }
    const RawToken r = detail::scan_raw<kSentinel>(in_, pos_, err);
    switch (r.raw) {
      case Raw::Comment:
        out_.comments.push_back(Span{r.begin, r.end});
        break;
      case Raw::Newline:
        if (implicit_join()) {
          at_bol = whole_file_;
          break;
        }
        if (!flush_decode_error(r.begin)) return;
        emit(TokKind::Newline, r.begin, r.end);
        at_bol = true;
        break;
      case Raw::Continuation:
        if (pos_ >= lim()) {
          // The phantom empty line after a final \r\n ends the logical line.
          if (in_.crlf_phantom_line && level_ == 0 && flush_decode_error(lim())) {
            emit(TokKind::Newline, lim(), lim());
            finish_eof(lim(), false);
          } else if (!in_.crlf_phantom_line || level_ > 0) {
            eof_after_continuation(r.begin + 1);
          }
          return;
        }
        pending_flags_ |= kAfterContinuation;
        break;
      case Raw::Eof:
        finish_eof(r.begin, true);
        return;
      case Raw::Error:
        pending_decode_ = false;  // CPython's tokenizer fails first
        fail(err);
        return;
      case Raw::Token:
        if (r.kind != TokKind::String && !flush_decode_error(r.begin)) return;
        if (r.kind >= TokKind::LPar && r.kind <= TokKind::RBrace && !bracket(r))
          return;
        emit(r.kind, r.begin, r.end, r.flags);
        if (r.decode_error && !pending_decode_) {
          pending_decode_ = true;
          decode_err_ = err;
          decode_at_ = r.begin;
        }
        break;
    }
  }
}

}  // namespace

TokenStream tokenize(const SourceFile& src, DiagSink& diags, PyVersion version) {
  Tokenizer t(src, Span{0, static_cast<uint32_t>(src.text.size())}, true, version, diags);
  return t.run();
}

TokenStream tokenize_range(const SourceFile& src, Span range, DiagSink& diags,
                           PyVersion version) {
  const auto size = static_cast<uint32_t>(src.text.size());
  range.end = range.end > size ? size : range.end;
  range.begin = range.begin > range.end ? range.end : range.begin;
  Tokenizer t(src, range, false, version, diags);
  return t.run();
}

}  // namespace tpf::lexer
