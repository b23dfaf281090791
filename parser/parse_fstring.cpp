// F-strings as Python 3.12 and 3.13 read them (PEP 701): a replacement
// field's expression is ordinary tokens at their true positions (any quotes,
// comments, line ends, backslashes inside its strings), and the tree has the
// shapes of 3.12's action_helpers.c.
// requires: Parser cursor on the first of a run of String tokens, lexer
// tokenize_range / string_end for fields. produces: a JoinedStr (or an Error
// node and a SyntaxError with 3.12's message and position).
//
// Shapes (checked against CPython 3.12.1 and 3.13.0):
// - a literal run between fields is one Constant over its raw text (doubled
//   braces inside it), decoded; empty runs are dropped;
// - a plain string in the concatenation is a Constant over its token (its
//   `u` gives the kind); consecutive Constants fold into one spanning the
//   first to the last, with the first one's kind;
// - FormattedValue spans '{' to '}'; `{x=}` adds a Constant of the raw text
//   after '{' up to the '!', ':' or '}' (decoded unless raw), which folds with
//   the literal before it;
// - a format spec is a JoinedStr from ':' to the closing '}'. Its literal
//   runs are decoded as non-raw even in rf-strings, '{{' opens a field, and
//   3.12 keeps the empty Constants its tokenizer makes (before a '{{' and
//   after a field that ends the spec); 3.13 drops them.
#include <string>
#include <vector>

#include "parser/literals.h"
#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
namespace slot = ast::slot;

namespace {

struct Elem {
  bool is_const = false;
  std::string text;  // Constant value
  Span span{};
  ast::Symbol kind = ast::kNoSymbol;
  NodeId node = ast::kNoNode;  // FormattedValue
};

bool is_ident_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c >= 0x80;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f'; }
bool is_line_end(char c) { return c == '\n' || c == '\r'; }

// Brackets inside one field (3.12's tokenizer MAXLEVEL).
constexpr int kMaxFieldBrackets = 200;

}  // namespace

class FStringBuilder {
 public:
  explicit FStringBuilder(Parser& p) : p_(p), text_(p.source().text) {}

  // The tokens [first, last] (all strings, at least one an f-string).
  NodeId build(uint32_t first, uint32_t last, Span whole) {
    std::vector<Elem> flat;
    for (uint32_t i = first; i <= last && !p_.failed(); ++i) {
      const Token& t = p_.tok_at(i);
      uint32_t b = t.begin;
      while (b < t.end && text_[b] != '\'' && text_[b] != '"') ++b;
      const uint32_t q = (t.flags & lexer::kStrTriple) ? 3 : 1;
      const uint32_t body_b = b + q, body_e = t.end - q;
      const bool raw = (t.flags & lexer::kStrRaw) != 0;
      if (!(t.flags & lexer::kStrFString)) {
        Elem c;
        c.is_const = true;
        c.span = Span{t.begin, t.end};
        c.kind = text_[t.begin] == 'u' ? p_.module().intern("u") : ast::kNoSymbol;
        LiteralError err = decode_str(text_.substr(body_b, body_e - body_b), raw, c.text);
        if (!err.ok) return fail(Span{t.begin, t.begin}, err.message);
        flat.push_back(std::move(c));
        continue;
      }
      triple_ = (t.flags & lexer::kStrTriple) != 0;
      raw_ = raw;
      body_end_ = body_e;
      uint32_t pos = body_b;
      body(pos, flat);
    }
    if (p_.failed()) return p_.error_node(whole.begin);
    const uint32_t mk = p_.mark();
    fold(flat, true);
    NodeId j = p_.node_span(NodeKind::JoinedStr, whole);
    p_.set(j, slot::JoinedStr::values, p_.finish_list(mk));
    return j;
  }

 private:
  // An Error node, never kNoNode: callers index the node they get back
  // (`(f"" "\N"` read node UINT32_MAX in paren_atom; found by fuzz-fix).
  NodeId fail(Span at, std::string msg) {
    p_.fail(at, std::move(msg));
    return p_.error_node(at.begin);
  }
  void fail_at(uint32_t at, std::string msg) { p_.fail(Span{at, at + 1}, std::move(msg)); }

  // Pushes `elems` onto the scratch stack: consecutive Constants folded,
  // empty ones dropped when `drop_empty`.
  void fold(std::vector<Elem>& elems, bool drop_empty) {
    for (size_t i = 0; i < elems.size();) {
      if (!elems[i].is_const) {
        p_.push(elems[i].node);
        ++i;
        continue;
      }
      size_t j = i;
      std::string text;
      while (j < elems.size() && elems[j].is_const) text += elems[j++].text;
      if (!(drop_empty && text.empty())) {
        push_const(std::move(text), Span{elems[i].span.begin, elems[j - 1].span.end}, elems[i].kind);
      }
      i = j;
    }
  }

  void push_const(std::string text, Span span, ast::Symbol kind) {
    ast::Constant c;
    c.kind = ast::Constant::Kind::Str;
    c.text = std::move(text);
    NodeId n = p_.node_span(NodeKind::Constant, span);
    p_.set(n, slot::Constant::value, p_.module().add_constant(std::move(c)));
    p_.set(n, slot::Constant::kind, kind);
    p_.push(n);
  }

  // Decodes the literal text [b, e) (doubled braces collapse unless
  // `in_spec`); false after reporting an error.
  bool decode_run(uint32_t b, uint32_t e, bool raw, std::string& out) {
    std::string_view run = text_.substr(b, e - b);
    if (run.find('\\') == std::string_view::npos) raw = true;
    std::string piece;
    size_t start = 0;
    for (size_t i = 0; i + 1 < run.size(); ++i) {
      if ((run[i] == '{' || run[i] == '}') && run[i + 1] == run[i]) {
        piece.append(run.substr(start, i + 1 - start));
        start = i + 2;
        ++i;
      }
    }
    piece.append(run.substr(start));
    LiteralError err = decode_str(piece, raw, out);
    if (!err.ok) {
      // 3.12 reports decoding errors at the f-string's end.
      p_.fail(Span{body_end_, body_end_}, err.message);
      return false;
    }
    return true;
  }

  // An f-string body from `pos` to body_end_: literal runs and fields.
  void body(uint32_t& pos, std::vector<Elem>& out) {
    for (;;) {
      const uint32_t run_b = pos;
      while (pos < body_end_) {
        const char c = text_[pos];
        if (c == '\\' && !raw_ && pos + 1 < body_end_) {
          const char n = text_[pos + 1];
          if (n == '{' || n == '}') {
            ++pos;  // `\{` is a backslash, then a field
            continue;
          }
          if (n == 'N' && pos + 2 < body_end_ && text_[pos + 2] == '{') {
            pos += 3;
            while (pos < body_end_ && text_[pos] != '}') ++pos;
            if (pos < body_end_) ++pos;
            continue;
          }
          pos += 2;
          continue;
        }
        if (c == '{' || c == '}') {
          if (pos + 1 < body_end_ && text_[pos + 1] == c) {
            pos += 2;
            continue;
          }
          if (c == '}') {
            fail_at(pos, "f-string: single '}' is not allowed");
            return;
          }
          break;
        }
        ++pos;
      }
      if (pos > run_b) {
        Elem c;
        c.is_const = true;
        c.span = Span{run_b, pos};
        if (!decode_run(run_b, pos, raw_, c.text)) return;
        if (!c.text.empty()) out.push_back(std::move(c));
      }
      if (pos >= body_end_) return;
      field(pos, out, 0);
      if (p_.failed()) return;
    }
  }

  // Finds the end of a field's expression from `pos`: the '=', '!', ':' or
  // '}' outside brackets and strings, or body_end_. Reports unmatched and
  // mismatched brackets as 3.12's tokenizer does.
  bool expression_end(uint32_t& pos) {
    char stack[kMaxFieldBrackets];
    uint32_t where[kMaxFieldBrackets];
    int depth = 0;
    while (pos < body_end_) {
      const unsigned char c = static_cast<unsigned char>(text_[pos]);
      if (c == '\'' || c == '"') {
        pos = lexer::string_end(p_.source(), pos, body_end_, p_.version());
        continue;
      }
      if (is_ident_byte(c)) {
        const uint32_t b = pos;
        while (pos < body_end_ && is_ident_byte(static_cast<unsigned char>(text_[pos]))) ++pos;
        if (pos < body_end_ && (text_[pos] == '\'' || text_[pos] == '"') && pos - b <= 2 &&
            !(c >= '0' && c <= '9'))
          pos = lexer::string_end(p_.source(), b, body_end_, p_.version());
        continue;
      }
      switch (c) {
        case '#':
          while (pos < body_end_ && !is_line_end(text_[pos])) ++pos;
          continue;
        case '\\':
          pos += 2;
          continue;
        case '(':
        case '[':
        case '{':
          if (depth == kMaxFieldBrackets) {
            fail_at(pos, "too many nested parentheses");
            return false;
          }
          stack[depth] = static_cast<char>(c);
          where[depth++] = pos;
          ++pos;
          continue;
        case ')':
        case ']':
        case '}': {
          if (depth == 0) {
            if (c == '}') return true;
            fail_at(pos, std::string("f-string: unmatched '") + static_cast<char>(c) + "'");
            return false;
          }
          const char open = stack[--depth];
          if ((open == '(' && c != ')') || (open == '[' && c != ']') || (open == '{' && c != '}')) {
            std::string m = std::string("closing parenthesis '") + static_cast<char>(c) +
                            "' does not match opening parenthesis '" + open + "'";
            const uint32_t ol = p_.line_of(where[depth]);
            if (ol != p_.line_of(pos)) m += " on line " + std::to_string(ol);
            fail_at(pos, m);
            return false;
          }
          ++pos;
          continue;
        }
        default:
          break;
      }
      if (depth == 0) {
        const char n = pos + 1 < body_end_ ? text_[pos + 1] : '\0';
        if ((c == '!' || c == '=' || c == '<' || c == '>') && n == '=') {
          pos += 2;
          continue;
        }
        if (c == '!' || c == ':' || c == '=') return true;
      }
      ++pos;
    }
    return true;
  }

  // Parses the expression [b, e) of the field opened at `brace`.
  NodeId expression(uint32_t brace, uint32_t b, uint32_t e) {
    DiagSink local;
    lexer::TokenStream ts = lexer::tokenize_range(p_.source(), Span{b, e}, local, p_.version());
    if (local.has_errors()) {
      const Diagnostic& d = local.diagnostics().front();
      p_.fail(d.span, d.message);
      return ast::kNoNode;
    }
    const char delim = e < body_end_ ? text_[e] : '\0';
    if (ts.tokens.size() <= 1) {
      if (e >= body_end_) {
        fail_at(e, "f-string: expecting '}'");
      } else {
        fail_at(e, std::string("f-string: valid expression required before '") + delim + "'");
      }
      return ast::kNoNode;
    }
    if (ts.tokens.front().kind == TokKind::Lambda && delim == ':') {
      p_.fail(Span{ts.tokens.front().begin, ts.tokens.front().end},
              "f-string: lambda expressions are not allowed without parentheses");
      return ast::kNoNode;
    }
    (void)brace;
    Parser::TokenWindow saved =
        p_.swap_tokens(ts.tokens.data(), static_cast<uint32_t>(ts.tokens.size()));
    const bool saved_in_f = p_.in_fstring;
    const int saved_level = p_.bracket_level;
    const uint32_t saved_brace = p_.fstring_brace;
    p_.in_fstring = false;
    p_.fstring_brace = UINT32_MAX;
    p_.bracket_level = 1;  // the field's '{' counts as an open bracket
    const Parser::Checkpoint before = p_.save();
    p_.defer_generic = true;
    p_.deferred_generic = false;
    NodeId value = field_value();
    p_.defer_generic = false;
    if (p_.deferred_generic) {
      value = ast::kNoNode;
      incomplete(ts.tokens, before);
    } else if (!p_.failed() && !p_.at(TokKind::EndOfFile)) {
      // An expression, then more: annotated_rhs !('=' | '!' | ':' | '}'),
      // unless invalid_expression has a hint first.
      Span where;
      std::string msg;
      if (p_.after_expr_hint(value, last_element_start(ts.tokens, p_.pos()), where, msg)) {
        p_.fail(where, std::move(msg));
      } else {
        p_.fail(Span{p_.tok().begin, p_.tok().end}, "f-string: expecting '=', or '!', or ':', or '}'");
      }
    }
    p_.in_fstring = saved_in_f;
    p_.fstring_brace = saved_brace;
    p_.bracket_level = saved_level;
    p_.restore_tokens(saved);
    return value;
  }

  NodeId field_value() { return p_.at(TokKind::Yield) ? p_.yield_expr() : p_.star_expressions(); }

  // Where the last top-level element of `a, b c` starts (the 'b').
  static uint32_t last_element_start(const std::vector<Token>& toks, uint32_t upto) {
    uint32_t start = toks.front().begin;
    int depth = 0;
    for (uint32_t i = 0; i < upto && i + 1 < toks.size(); ++i) {
      switch (toks[i].kind) {
        case TokKind::LPar:
        case TokKind::LSqb:
        case TokKind::LBrace:
          ++depth;
          break;
        case TokKind::RPar:
        case TokKind::RSqb:
        case TokKind::RBrace:
          --depth;
          break;
        case TokKind::Comma:
          if (depth == 0) start = toks[i + 1].begin;
          break;
        default:
          break;
      }
    }
    return start;
  }

  // The field's expression stopped short with a plain "invalid syntax".
  // 3.12's PEG parser backs off to the longest expression that parses, then
  // reports the token after it (invalid_replacement_field); with none, it
  // wants an expression after '{'. Fields longer than this keep the plain
  // message (each try is a parse of the prefix).
  static constexpr size_t kMaxRetryTokens = 64;
  void incomplete(const std::vector<Token>& toks, const Parser::Checkpoint& before) {
    const size_t n = toks.size() - 1;  // without EndOfFile
    if (n > kMaxRetryTokens) {
      p_.fail(Span{toks.front().begin, toks.front().end}, "invalid syntax");
      return;
    }
    std::vector<Token> prefix;
    size_t found = 0;
    for (size_t k = n; k-- > 1 && found == 0;) {
      prefix.assign(toks.begin(), toks.begin() + static_cast<std::ptrdiff_t>(k));
      Token eof = toks.back();
      eof.begin = eof.end = toks[k].begin;
      prefix.push_back(eof);
      p_.swap_tokens(prefix.data(), static_cast<uint32_t>(prefix.size()));
      p_.restore(before);
      p_.begin_speculation();
      field_value();
      if (!p_.failed() && p_.at(TokKind::EndOfFile)) found = k;
      p_.end_speculation();
      p_.restore(before);
    }
    p_.swap_tokens(toks.data(), static_cast<uint32_t>(toks.size()));
    p_.restore(before);
    if (found > 0) {
      p_.fail(Span{toks[found].begin, toks[found].end}, "f-string: expecting '=', or '!', or ':', or '}'");
    } else {
      p_.fail(Span{toks.front().begin, toks.front().end},
              "f-string: expecting a valid expression after '{'");
    }
  }

  // Blanks, line ends and comments after a debug '='.
  void skip_blank(uint32_t& pos) {
    for (;;) {
      skip_space(pos, true);
      if (pos >= body_end_ || text_[pos] != '#') return;
      while (pos < body_end_ && !is_line_end(text_[pos])) ++pos;
    }
  }

  void skip_space(uint32_t& pos, bool newlines) {
    while (pos < body_end_ && (is_space(text_[pos]) || (newlines && is_line_end(text_[pos]))))
      ++pos;
  }

  // One field at `pos` ('{'); appends the debug text and the FormattedValue.
  // `nesting` counts the format specs the field is in.
  void field(uint32_t& pos, std::vector<Elem>& out, int nesting) {
    Parser::DepthGuard guard(p_);
    if (p_.failed()) return;
    const uint32_t brace = pos++;
    const uint32_t expr_b = pos;
    if (!expression_end(pos)) return;
    const uint32_t expr_e = pos;
    NodeId value = expression(brace, expr_b, expr_e);
    if (p_.failed()) return;
    bool debug = false;
    if (text_[pos] == '=') {
      ++pos;
      skip_blank(pos);
      debug = true;
      if (pos >= body_end_ || (text_[pos] != '!' && text_[pos] != ':' && text_[pos] != '}')) {
        fail_at(pos, "f-string: expecting '!', or ':', or '}'");
        return;
      }
    }
    const uint32_t debug_end = pos;
    int conversion = -1;
    if (pos < body_end_ && text_[pos] == '!') {
      const uint32_t bang = pos++;
      if (pos < body_end_ && (text_[pos] == ':' || text_[pos] == '}')) {
        fail_at(pos, "f-string: missing conversion character");
        return;
      }
      if (pos < body_end_ && (is_space(text_[pos]) || is_line_end(text_[pos]))) {
        fail_at(bang, "f-string: conversion type must come right after the exclamanation mark");
        return;
      }
      const uint32_t nb = pos;
      while (pos < body_end_ && is_ident_byte(static_cast<unsigned char>(text_[pos]))) ++pos;
      if (pos == nb) {
        fail_at(pos, pos >= body_end_ ? "f-string: expecting '}'"
                                      : "f-string: invalid conversion character");
        return;
      }
      std::string_view name = text_.substr(nb, pos - nb);
      if (name != "s" && name != "r" && name != "a") {
        fail_at(nb, "f-string: invalid conversion character '" + std::string(name) +
                        "': expected 's', 'r', or 'a'");
        return;
      }
      conversion = static_cast<unsigned char>(name[0]);
      skip_space(pos, true);
      if (pos >= body_end_ || (text_[pos] != ':' && text_[pos] != '}')) {
        fail_at(pos, pos >= body_end_ ? "f-string: expecting '}'" : "f-string: expecting ':' or '}'");
        return;
      }
    }
    NodeId spec = ast::kNoNode;
    if (pos < body_end_ && text_[pos] == ':') {
      if (nesting >= 2) {
        fail_at(pos, "f-string: expressions nested too deeply");
        return;
      }
      spec = format_spec(pos, nesting);
      if (p_.failed()) return;
    }
    if (pos >= body_end_ || text_[pos] != '}') {
      fail_at(pos, "f-string: expecting '}'");
      return;
    }
    ++pos;
    if (debug) {
      Elem d;
      d.is_const = true;
      d.span = Span{brace + 1, debug_end};
      if (!decode_run_plain(expr_b, debug_end, d.text)) return;
      out.push_back(std::move(d));
      if (conversion == -1 && !spec.valid()) conversion = 'r';
    }
    Elem fv;
    fv.node = p_.node_span(NodeKind::FormattedValue, Span{brace, pos});
    p_.set(fv.node, slot::FormattedValue::value, value);
    p_.set(fv.node, slot::FormattedValue::conversion, static_cast<uint32_t>(conversion));
    p_.set(fv.node, slot::FormattedValue::format_spec, spec);
    out.push_back(std::move(fv));
  }

  // The debug text: the source without its comments, decoded like a
  // literal part (3.12 runs it through the same decoder), braces as written.
  bool decode_run_plain(uint32_t b, uint32_t e, std::string& out) {
    std::string kept;
    for (uint32_t i = b; i < e;) {
      const unsigned char c = static_cast<unsigned char>(text_[i]);
      if (c == '#') {
        while (i < e && !is_line_end(text_[i])) ++i;
        continue;
      }
      uint32_t next = i + 1;
      if (c == '\'' || c == '"') {
        next = lexer::string_end(p_.source(), i, e, p_.version());
      } else if (is_ident_byte(c)) {
        while (next < e && is_ident_byte(static_cast<unsigned char>(text_[next]))) ++next;
        if (next < e && (text_[next] == '\'' || text_[next] == '"') && next - i <= 2 &&
            !(c >= '0' && c <= '9'))
          next = lexer::string_end(p_.source(), i, e, p_.version());
      }
      kept.append(text_.substr(i, next - i));
      i = next;
    }
    std::string_view run = kept;
    const bool raw = raw_ || run.find('\\') == std::string_view::npos;
    LiteralError err = decode_str(run, raw, out);
    if (!err.ok) {
      p_.fail(Span{body_end_, body_end_}, err.message);
      return false;
    }
    return true;
  }

  // ':' spec up to (not past) the field's closing '}'.
  NodeId format_spec(uint32_t& pos, int nesting) {
    const uint32_t colon = pos++;
    const bool v312 = !p_.py(13);
    std::vector<Elem> elems;
    uint32_t spec_end = 0;
    for (;;) {
      const uint32_t run_b = pos;
      bool line_end = false;
      while (pos < body_end_) {
        const char c = text_[pos];
        if (c == '\\' && pos + 1 < body_end_) {
          if (text_[pos + 1] == '{' || text_[pos + 1] == '}') {
            ++pos;
            continue;
          }
          pos += 2;
          continue;
        }
        if (c == '{' || c == '}') break;
        if (is_line_end(c) && !triple_) {
          line_end = true;
          break;
        }
        ++pos;
      }
      const bool doubled = pos + 1 < body_end_ && text_[pos] == '{' && text_[pos + 1] == '{';
      if (pos > run_b || (doubled && v312)) {
        Elem c;
        c.is_const = true;
        c.span = Span{run_b, pos};
        std::string_view run = text_.substr(run_b, pos - run_b);
        LiteralError err = decode_str(run, run.find('\\') == std::string_view::npos, c.text);
        if (!err.ok) {
          p_.fail(Span{body_end_, body_end_}, err.message);
          return ast::kNoNode;
        }
        elems.push_back(std::move(c));
      }
      if (line_end) {
        // 3.12: a line end in a '...' f-string's spec ends the spec; only
        // blanks may come before the '}'.
        spec_end = pos;
        skip_space(pos, true);
        if (pos >= body_end_ || text_[pos] != '}') {
          fail_at(pos, "f-string: expecting '}', or format specs");
          return ast::kNoNode;
        }
        break;
      }
      if (pos >= body_end_) {
        fail_at(pos, "f-string: expecting '}', or format specs");
        return ast::kNoNode;
      }
      if (text_[pos] == '}') {
        spec_end = pos;
        break;
      }
      field(pos, elems, nesting + 1);
      if (p_.failed()) return ast::kNoNode;
      if (v312 && pos < body_end_ && text_[pos] == '}') {
        Elem c;
        c.is_const = true;
        c.span = Span{pos, pos};
        elems.push_back(std::move(c));
      }
    }
    const uint32_t mk = p_.mark();
    if (v312) {
      // 3.12 keeps each part as is; a spec that is one empty part is empty.
      const bool only_empty = elems.size() == 1 && elems[0].is_const && elems[0].text.empty();
      for (Elem& e : elems) {
        if (only_empty) break;
        if (e.is_const)
          push_const(std::move(e.text), e.span, ast::kNoSymbol);
        else
          p_.push(e.node);
      }
    } else {
      fold(elems, true);
    }
    NodeId j = p_.node_span(NodeKind::JoinedStr, Span{colon, spec_end});
    p_.set(j, slot::JoinedStr::values, p_.finish_list(mk));
    return j;
  }

  Parser& p_;
  std::string_view text_;
  uint32_t body_end_ = 0;
  bool raw_ = false;
  bool triple_ = false;
};

NodeId Parser::joined_str_pep701(uint32_t first, uint32_t last, Span whole) {
  return FStringBuilder(*this).build(first, last, whole);
}

}  // namespace tpf::parser
