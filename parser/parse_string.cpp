// String literals, their concatenation, and f-strings in CPython 3.11's
// representation (Parser/string_parser.c, action_helpers.c), plus numbers.
// F-strings of 3.12 and later are parse_fstring.cpp's.
// requires: Parser cursor, lexer::tokenize_range for replacement fields.
// produces: Constant and JoinedStr/FormattedValue nodes.
//
// 3.11 quirks kept on purpose: every Constant and FormattedValue directly in
// a JoinedStr spans the whole concatenated string; a format spec's JoinedStr
// and its trailing Constant span only the one string token holding it. A
// field's expression is tokenized from the file (tokenize_range) wrapped in a
// virtual '(' at the '{' and ')' at its end, as 3.11 compiles "(expr)".
#include <string>

#include "parser/literals.h"
#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
namespace slot = ast::slot;

namespace {

// Parser/string_parser.c: MAXLEVEL brackets inside one replacement field.
constexpr int kMaxFieldNesting = 200;

struct Body {
  uint32_t begin, end;  // between the quotes
};

Body string_body(std::string_view text, const Token& t) {
  uint32_t b = t.begin;
  while (b < t.end && text[b] != '\'' && text[b] != '"') ++b;
  uint32_t q = (t.flags & lexer::kStrTriple) ? 3 : 1;
  if (t.flags & lexer::kStrUnterminated) return Body{b + q < t.end ? b + q : t.end, t.end};
  return Body{b + q, t.end >= b + 2 * q ? t.end - q : b + q};
}

bool is_py_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

// Decodes [b, e) of the source as string (or bytes) literal text.
// `lone_backslash_ok`: an f-string piece may end in a single '\' (the
// one before a '{'), which 3.11 keeps as a backslash.
bool Parser::decode_piece(uint32_t b, uint32_t e, bool raw, bool bytes, bool lone_backslash_ok,
                          std::string& out, Span err_at) {
  // decode_str/decode_bytes translate CRLF and CR as CPython's tokenizer does.
  std::string_view piece = source().text.substr(b, e - b);
  bool trailing = false;
  if (lone_backslash_ok && !raw) {
    size_t n = 0;
    while (n < piece.size() && piece[piece.size() - 1 - n] == '\\') ++n;
    if (n % 2 == 1) {
      trailing = true;
      piece.remove_suffix(1);
    }
  }
  LiteralError err = bytes ? decode_bytes(piece, raw, out) : decode_str(piece, raw, out);
  if (!err.ok) {
    fail(err_at, err.message);
    return false;
  }
  if (trailing) out += '\\';
  return true;
}

// strings: STRING+
NodeId Parser::strings() {
  const uint32_t first = pos();
  bool any_f = false, bytes = (tok().flags & lexer::kStrBytes) != 0;
  uint32_t last = pos();
  bool mixed = false;
  while (at(TokKind::String)) {
    if (((tok().flags & lexer::kStrBytes) != 0) != bytes) mixed = true;
    if (tok().flags & lexer::kStrFString) any_f = true;
    last = pos();
    advance();
  }
  if (mixed) {
    fail_here("cannot mix bytes and nonbytes literals");  // 3.11: at the token after
    return error_node(tok_at(first).begin);
  }
  const Token& t0 = tok_at(first);
  Span whole{t0.begin, tok_at(last).end};
  if (any_f && py(12)) return joined_str_pep701(first, last, whole);
  std::string_view text = source().text;
  // Constant.kind is "u" only for a lowercase u prefix on the first token.
  ast::Symbol kind = text[t0.begin] == 'u' ? module().intern("u") : ast::kNoSymbol;

  FState st;
  st.mk = mark();
  for (uint32_t i = first; i <= last && !failed(); ++i) {
    const Token& t = tok_at(i);
    Body body = string_body(text, t);
    bool raw = (t.flags & lexer::kStrRaw) != 0;
    if (t.flags & lexer::kStrFString) {
      uint32_t p = body.begin;
      fstring_body(st, t, p, body.end, raw, 0, whole, kind);
    } else {
      // 3.11 decodes after reading every token: errors point at the next one.
      decode_piece(body.begin, body.end, raw, bytes, false, st.pending,
                   Span{tok().begin, tok().end});
    }
  }
  if (failed()) {
    finish_list(st.mk);
    return error_node(whole.begin);
  }
  if (!any_f) {
    finish_list(st.mk);
    ast::Constant c;
    c.kind = bytes ? ast::Constant::Kind::Bytes : ast::Constant::Kind::Str;
    c.text = std::move(st.pending);
    NodeId n = node_span(NodeKind::Constant, whole);
    set(n, slot::Constant::value, module().add_constant(std::move(c)));
    set(n, slot::Constant::kind, bytes ? ast::kNoSymbol : kind);
    return n;
  }
  flush_pending(st, whole, kind);
  NodeId j = node_span(NodeKind::JoinedStr, whole);
  set(j, slot::JoinedStr::values, finish_list(st.mk));
  return j;
}

void Parser::flush_pending(FState& st, Span span, ast::Symbol kind) {
  if (st.pending.empty()) return;
  ast::Constant c;
  c.kind = ast::Constant::Kind::Str;
  c.text = std::move(st.pending);
  st.pending.clear();
  NodeId n = node_span(NodeKind::Constant, span);
  set(n, slot::Constant::value, module().add_constant(std::move(c)));
  set(n, slot::Constant::kind, kind);
  push(n);
}

// The literal text and replacement fields of one f-string token from `p` to
// `end` (fstring_find_literal_and_expr's loop). `level` 1 is a format spec,
// which ends at its closing '}'.
void Parser::fstring_body(FState& st, const Token& t, uint32_t& p, uint32_t end, bool raw,
                          int level, Span whole, ast::Symbol kind) {
  std::string_view text = source().text;
  Span err_at{tok().begin, tok().end};  // 3.11 reports at the token after the strings
  for (;;) {
    uint32_t lit_start = p;
    uint32_t lit_end = p;
    bool doubled = false;
    while (p < end) {
      char ch = text[p++];
      if (!raw && ch == '\\' && p < end) {
        ch = text[p++];
        if (ch == 'N' && p < end && text[p] == '{') {
          ++p;
          while (p < end && text[p++] != '}') {
          }
          continue;
        }
      }
      if (ch == '{' || ch == '}') {
        if (level == 0) {
          if (p < end && text[p] == ch) {
            lit_end = p;  // keeps one brace
            ++p;
            doubled = true;
            break;
          }
          if (ch == '}') {
            fail(err_at, "f-string: single '}' is not allowed");
            return;
          }
        }
        --p;
        break;
      }
    }
    if (!doubled) lit_end = p;
    if (lit_end > lit_start &&
        !decode_piece(lit_start, lit_end, raw, false, true, st.pending, err_at))
      return;
    if (doubled) continue;
    if (p >= end || text[p] == '}') break;
    // A replacement field at '{'.
    NodeId fv = fstring_field(st, t, p, end, raw, level, whole, kind);
    if (failed()) return;
    flush_pending(st, whole, kind);
    push(fv);
  }
  if (level != 0 && (p >= end || text[p] != '}')) fail(err_at, "f-string: expecting '}'");
}

// One replacement field '{' expr ['='] ['!' conv] [':' spec] '}' (fstring_find_expr).
NodeId Parser::fstring_field(FState& st, const Token& t, uint32_t& p, uint32_t end, bool raw,
                             int level, Span whole, ast::Symbol kind) {
  std::string_view text = source().text;
  Span err_at{tok().begin, tok().end};
  if (level >= 2) {
    fail(err_at, "f-string: expressions nested too deeply");
    return ast::kNoNode;
  }
  const uint32_t brace = p;
  ++p;
  const uint32_t expr_start = p;
  char quote = 0;
  int string_type = 0;
  char stack[kMaxFieldNesting];
  int depth = 0;
  for (; p < end; ++p) {
    char ch = text[p];
    if (ch == '\\') {
      fail(err_at, "f-string expression part cannot include a backslash");
      return ast::kNoNode;
    }
    if (quote) {
      if (ch == quote) {
        if (string_type == 3) {
          if (p + 2 < end && text[p + 1] == ch && text[p + 2] == ch) {
            p += 2;
            quote = 0;
            string_type = 0;
          }
        } else {
          quote = 0;
          string_type = 0;
        }
      }
    } else if (ch == '\'' || ch == '"') {
      if (p + 2 < end && text[p + 1] == ch && text[p + 2] == ch) {
        string_type = 3;
        p += 2;
      } else {
        string_type = 1;
      }
      quote = ch;
    } else if (ch == '[' || ch == '{' || ch == '(') {
      if (depth >= kMaxFieldNesting) {
        fail(err_at, "f-string: too many nested parenthesis");
        return ast::kNoNode;
      }
      stack[depth++] = ch;
    } else if (ch == '#') {
      fail(err_at, "f-string expression part cannot include '#'");
      return ast::kNoNode;
    } else if (depth == 0 &&
               (ch == '!' || ch == ':' || ch == '}' || ch == '=' || ch == '>' || ch == '<')) {
      if (p + 1 < end) {
        char next = text[p + 1];
        if ((ch == '!' || ch == '=' || ch == '<' || ch == '>') && next == '=') {
          ++p;
          continue;
        }
        if (ch == '>' || ch == '<') continue;
      }
      break;
    } else if (ch == ']' || ch == '}' || ch == ')') {
      if (depth == 0) {
        fail(err_at, std::string("f-string: unmatched '") + ch + "'");
        return ast::kNoNode;
      }
      char open = stack[--depth];
      if (!((open == '(' && ch == ')') || (open == '[' && ch == ']') ||
            (open == '{' && ch == '}'))) {
        fail(err_at, std::string("f-string: closing parenthesis '") + ch +
                         "' does not match opening parenthesis '" + open + "'");
        return ast::kNoNode;
      }
    }
  }
  const uint32_t expr_end = p;
  if (quote) {
    fail(err_at, "f-string: unterminated string");
    return ast::kNoNode;
  }
  if (depth) {
    fail(err_at, std::string("f-string: unmatched '") + stack[depth - 1] + "'");
    return ast::kNoNode;
  }
  auto expecting = [&]() {
    fail(err_at, "f-string: expecting '}'");
    return ast::kNoNode;
  };
  if (p >= end) return expecting();
  NodeId value = fstring_expression(t, brace, expr_start, expr_end, err_at);
  if (failed()) return ast::kNoNode;
  bool debug = false;
  if (text[p] == '=') {
    ++p;
    while (p < end && is_py_space(text[p])) ++p;
    if (p >= end) return expecting();
    // The debug text joins the literal before the field.
    decode_piece(expr_start, p, true, false, false, st.pending, err_at);
    debug = true;
  }
  int conversion = -1;
  if (text[p] == '!') {
    ++p;
    if (p >= end) return expecting();
    conversion = static_cast<unsigned char>(text[p]);
    ++p;
    if (conversion != 's' && conversion != 'r' && conversion != 'a') {
      fail(err_at, "f-string: invalid conversion character: expected 's', 'r', or 'a'");
      return ast::kNoNode;
    }
  }
  if (p >= end) return expecting();
  NodeId spec = ast::kNoNode;
  if (text[p] == ':') {
    ++p;
    if (p >= end) return expecting();
    FState inner;
    inner.mk = mark();
    fstring_body(inner, t, p, end, raw, level + 1, whole, kind);
    if (failed()) return ast::kNoNode;
    flush_pending(inner, Span{t.begin, t.end}, ast::kNoSymbol);
    spec = node_span(NodeKind::JoinedStr, Span{t.begin, t.end});
    set(spec, slot::JoinedStr::values, finish_list(inner.mk));
  }
  if (p >= end || text[p] != '}') return expecting();
  ++p;
  if (debug && !spec.valid() && conversion == -1) conversion = 'r';
  NodeId fv = node_span(NodeKind::FormattedValue, whole);
  set(fv, slot::FormattedValue::value, value);
  set(fv, slot::FormattedValue::conversion, static_cast<uint32_t>(conversion));
  set(fv, slot::FormattedValue::format_spec, spec);
  return fv;
}

// Parses the expression text [b, e) of a field, as 3.11's
// fstring_compile_expr does with "(" + text + ")".
NodeId Parser::fstring_expression(const Token& t, uint32_t brace, uint32_t b, uint32_t e,
                                  Span err_at) {
  std::string_view text = source().text;
  uint32_t s = b;
  while (s < e && (text[s] == ' ' || text[s] == '\t' || text[s] == '\n' || text[s] == '\r' ||
                   text[s] == '\f'))
    ++s;
  if (s == e) {
    fail(err_at, "f-string: empty expression not allowed");
    return ast::kNoNode;
  }
  DiagSink local;
  lexer::TokenStream ts = lexer::tokenize_range(source(), Span{b, e}, local);
  if (local.has_errors()) {
    const Diagnostic& d = local.diagnostics().front();
    // Tokenizer errors keep their message: 3.11 adds "f-string: " only to
    // the parser's own errors.
    bool saved = in_fstring;
    in_fstring = false;
    fail(d.span, d.message);
    in_fstring = saved;
    return ast::kNoNode;
  }
  // fstring_find_expr_location: when only whitespace follows the '{' on its
  // line, the column base is the token's own column (first line of the
  // token) or 0; otherwise the '{'. Tokens that start on the '{' line but end
  // on a later one are not shifted at all by 3.11: their column is counted
  // from the '{'.
  LineCol brace_pos = source().pos(brace);
  uint32_t brace_line_start = brace - brace_pos.col;
  bool newline_after_brace = true;
  for (uint32_t i = brace + 1; i < e && text[i] != '}' && text[i] != '\n' && text[i] != '\r'; ++i) {
    if (text[i] != ' ' && text[i] != '\t' && text[i] != '\f') {
      newline_after_brace = false;
      break;
    }
  }
  uint32_t lpar = brace;
  if (newline_after_brace)
    lpar = source().pos(t.begin).line == brace_pos.line ? t.begin : brace_line_start;
  std::vector<Token> sub;
  sub.reserve(ts.tokens.size() + 2);
  sub.push_back(Token{TokKind::LPar, 0, lexer::kNoFlags, lpar, lpar + 1});
  // (true begin, 3.11 begin) of multi-line tokens starting on the '{' line.
  std::vector<std::pair<uint32_t, uint32_t>> unshifted;
  for (const Token& tk : ts.tokens) {
    if (tk.kind == TokKind::EndOfFile) break;
    if (!newline_after_brace && tk.kind == TokKind::String &&
        source().pos(tk.begin).line == brace_pos.line &&
        source().pos(tk.end).line != brace_pos.line) {
      unshifted.emplace_back(tk.begin, brace_line_start + (tk.begin - brace));
    }
    sub.push_back(tk);
  }
  sub.push_back(Token{TokKind::RPar, 0, lexer::kNoFlags, e, e + 1});
  sub.push_back(Token{TokKind::EndOfFile, 0, lexer::kNoFlags, e + 1, e + 1});
  TokenWindow saved = swap_tokens(sub.data(), static_cast<uint32_t>(sub.size()));
  bool saved_in_f = in_fstring;
  int saved_level = bracket_level;
  uint32_t saved_brace = fstring_brace;
  fstring_brace = brace;
  in_fstring = true;
  bracket_level = 0;
  const uint32_t first_node = static_cast<uint32_t>(module().nodes.size());
  NodeId value = star_expressions();
  for (uint32_t i = first_node; i < module().nodes.size() && !unshifted.empty(); ++i) {
    for (const auto& [from, to] : unshifted)
      if (module().nodes[i].span.begin == from) module().nodes[i].span.begin = to;
  }
  if (!failed() && !at(TokKind::EndOfFile)) fail_syntax();
  in_fstring = saved_in_f;
  fstring_brace = saved_brace;
  bracket_level = saved_level;
  restore_tokens(saved);
  return value;
}

// NUMBER: int, float or imaginary literal.
NodeId Parser::number() {
  const Token& t = tok();
  std::string_view s = text(t);
  ast::Constant c;
  if (t.flags & lexer::kNumImaginary) {
    c.kind = ast::Constant::Kind::Complex;
    c.number = float_literal_value(s.substr(0, s.size() - 1));
  } else if (t.flags & lexer::kNumFloat) {
    c.kind = ast::Constant::Kind::Float;
    c.number = float_literal_value(s);
  } else {
    c.kind = ast::Constant::Kind::Int;
    LiteralError limit = int_literal_digit_limit(s);
    if (!limit.ok) {
      // 3.11 reports this one at the literal's line, column 0.
      uint32_t line_begin = t.begin - source().pos(t.begin).col;
      fail(Span{line_begin, line_begin}, limit.message);
      advance();
      return error_node(t.begin);
    }
    c.text = int_literal_to_decimal(s);
  }
  NodeId n = node_span(NodeKind::Constant, Span{t.begin, t.end});
  set(n, slot::Constant::value, module().add_constant(std::move(c)));
  advance();
  return n;
}

}  // namespace tpf::parser
