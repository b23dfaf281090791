// Patterns of the match statement (PEP 634), as CPython 3.11's python.gram.
// requires: Parser cursor (parser_state.h). produces: Match* pattern nodes.
#include <string>

#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

// patterns: open_sequence_pattern | pattern
// open_sequence_pattern: maybe_star_pattern ',' maybe_sequence_pattern?
NodeId Parser::patterns() {
  uint32_t start = begin();
  NodeId first = maybe_star_pattern();
  if (!at(TokKind::Comma)) {
    if (module()[first].kind == NodeKind::MatchStar) {
      // A lone star pattern is only valid inside a sequence.
      fail(module()[first].span, "invalid syntax");
    }
    return first;
  }
  uint32_t mk = mark();
  push(first);
  uint32_t last = pos();
  while (eat(TokKind::Comma)) {
    if (at(TokKind::Colon) || at(TokKind::If)) break;
    push(maybe_star_pattern());
    TPF_PROGRESS(*this, last);
  }
  NodeId n = node(NodeKind::MatchSequence, start);
  set(n, slot::MatchSequence::patterns, finish_list(mk));
  return n;
}

// maybe_star_pattern: star_pattern | pattern
// star_pattern: '*' pattern_capture_target | '*' wildcard_pattern
NodeId Parser::maybe_star_pattern() {
  if (!at(TokKind::Star)) return pattern();
  uint32_t start = begin();
  advance();
  if (!at(TokKind::Name)) {
    fail_syntax();
    return error_node(start);
  }
  ast::Symbol name = at_name("_") ? ast::kNoSymbol : name_symbol(tok());
  advance();
  NodeId n = node(NodeKind::MatchStar, start);
  set(n, slot::MatchStar::name, name);
  return n;
}

// pattern: as_pattern | or_pattern
// as_pattern: or_pattern 'as' pattern_capture_target
NodeId Parser::pattern() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  NodeId p = or_pattern();
  if (!at(TokKind::As)) return p;
  advance();
  if (!at(TokKind::Name) ||
      (peek(1) != TokKind::Colon && peek(1) != TokKind::Comma && peek(1) != TokKind::RPar &&
       peek(1) != TokKind::RSqb && peek(1) != TokKind::RBrace && peek(1) != TokKind::If &&
       peek(1) != TokKind::Vbar)) {
    fail_here("invalid pattern target");
    return p;
  }
  if (at_name("_")) {
    fail_here("cannot use '_' as a target");
    return p;
  }
  ast::Symbol name = name_symbol(tok());
  advance();
  NodeId n = node(NodeKind::MatchAs, start);
  set(n, slot::MatchAs::pattern, p);
  set(n, slot::MatchAs::name, name);
  return n;
}

// or_pattern: '|'.closed_pattern+
NodeId Parser::or_pattern() {
  uint32_t start = begin();
  NodeId first = closed_pattern();
  if (!at(TokKind::Vbar)) return first;
  uint32_t mk = mark();
  push(first);
  uint32_t last = pos();
  while (eat(TokKind::Vbar)) {
    push(closed_pattern());
    TPF_PROGRESS(*this, last);
  }
  NodeId n = node(NodeKind::MatchOr, start);
  set(n, slot::MatchOr::patterns, finish_list(mk));
  return n;
}

// signed_number: NUMBER | '-' NUMBER
// complex_number: signed_real_number ('+' | '-') imaginary_number
// Returns the expression (Constant, UnaryOp or BinOp).
NodeId Parser::number_pattern_value() {
  uint32_t start = begin();
  bool neg = eat(TokKind::Minus);
  if (!at(TokKind::Number)) {
    fail_syntax();
    return error_node(start);
  }
  bool imag = tok().flags & lexer::kNumImaginary;
  NodeId v = number();
  if (neg) {
    NodeId u = node(NodeKind::UnaryOp, start);
    module()[u].op = Op::USub;
    set(u, slot::UnaryOp::operand, v);
    v = u;
  }
  if (!at(TokKind::Plus) && !at(TokKind::Minus)) return v;
  if (imag) {
    fail(module()[v].span, "real number required in complex literal");
    return v;
  }
  Op op = at(TokKind::Plus) ? Op::Add : Op::Sub;
  advance();
  if (!at(TokKind::Number)) {
    fail_syntax();
    return v;
  }
  if (!(tok().flags & lexer::kNumImaginary)) {
    fail_here("imaginary number required in complex literal");
    return v;
  }
  NodeId r = number();
  NodeId b = node(NodeKind::BinOp, start);
  module()[b].op = op;
  set(b, slot::BinOp::left, v);
  set(b, slot::BinOp::right, r);
  return b;
}

// name_or_attr: attr | NAME    attr: name_or_attr '.' NAME
NodeId Parser::name_or_attr() {
  uint32_t start = begin();
  NodeId e = name_node();
  uint32_t last = pos();
  while (at(TokKind::Dot)) {
    advance();
    if (!at(TokKind::Name)) {
      fail_syntax();
      return e;
    }
    ast::Symbol attr = name_symbol(tok());
    advance();
    NodeId a = node(NodeKind::Attribute, start);
    set(a, slot::Attribute::value, e);
    set(a, slot::Attribute::attr, attr);
    module()[a].op = Op::Load;
    e = a;
    TPF_PROGRESS(*this, last);
  }
  return e;
}

NodeId Parser::match_value(NodeId value) {
  NodeId n = node_span(NodeKind::MatchValue, module()[value].span);
  set(n, slot::MatchValue::value, value);
  return n;
}

// closed_pattern: literal_pattern | capture_pattern | wildcard_pattern | value_pattern
//               | group_pattern | sequence_pattern | mapping_pattern | class_pattern
NodeId Parser::closed_pattern() {
  uint32_t start = begin();
  switch (kind()) {
    case TokKind::Number:
    case TokKind::Minus:
      return match_value(number_pattern_value());
    case TokKind::String:
      return match_value(strings());
    case TokKind::None:
    case TokKind::True:
    case TokKind::False: {
      ast::Constant c;
      c.kind = at(TokKind::None)   ? ast::Constant::Kind::None_
               : at(TokKind::True) ? ast::Constant::Kind::True_
                                   : ast::Constant::Kind::False_;
      advance();
      NodeId n = node(NodeKind::MatchSingleton, start);
      set(n, slot::MatchSingleton::value, module().add_constant(std::move(c)));
      return n;
    }
    case TokKind::LPar:
    case TokKind::LSqb:
      return sequence_pattern();
    case TokKind::LBrace:
      return mapping_pattern();
    case TokKind::Name: {
      bool dotted = peek(1) == TokKind::Dot;
      if (!dotted && peek(1) != TokKind::LPar) {
        // capture_pattern / wildcard_pattern
        ast::Symbol name = at_name("_") ? ast::kNoSymbol : name_symbol(tok());
        advance();
        NodeId n = node(NodeKind::MatchAs, start);
        set(n, slot::MatchAs::pattern, ast::kNoNode);
        set(n, slot::MatchAs::name, name);
        return n;
      }
      NodeId cls = name_or_attr();
      if (at(TokKind::LPar)) return class_pattern(cls, start);
      return match_value(cls);  // value_pattern
    }
    default:
      break;
  }
  fail_syntax();
  return error_node(start);
}

// group_pattern: '(' pattern ')'
// sequence_pattern: '[' maybe_sequence_pattern? ']' | '(' open_sequence_pattern? ')'
NodeId Parser::sequence_pattern() {
  uint32_t start = begin();
  bool paren = at(TokKind::LPar);
  TokKind close = paren ? TokKind::RPar : TokKind::RSqb;
  DepthGuard guard(*this);
  advance();
  ++bracket_level;
  uint32_t mk = mark();
  bool comma = false;
  uint32_t last = pos();
  while (!at(close) && !failed()) {
    push(maybe_star_pattern());
    if (!eat(TokKind::Comma)) break;
    comma = true;
    TPF_PROGRESS(*this, last);
  }
  --bracket_level;
  expect(close);
  if (paren && !comma && scratch_count(mk) == 1 &&
      module()[NodeId{scratch_at(mk)}].kind != NodeKind::MatchStar) {
    NodeId inner{scratch_at(mk)};
    finish_list(mk);
    return inner;  // a group: the inner pattern, parentheses not in its span
  }
  NodeId n = node(NodeKind::MatchSequence, start);
  set(n, slot::MatchSequence::patterns, finish_list(mk));
  return n;
}

// mapping_pattern: '{' '}' | '{' [items_pattern ','] double_star_pattern ','? '}'
//                | '{' items_pattern ','? '}'
// key_value_pattern: (literal_expr | attr) ':' pattern
NodeId Parser::mapping_pattern() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  ++bracket_level;
  uint32_t mk = mark();  // key, pattern pairs
  ast::Symbol rest = ast::kNoSymbol;
  uint32_t last = pos();
  while (!at(TokKind::RBrace) && !failed()) {
    if (eat(TokKind::DoubleStar)) {
      if (!at(TokKind::Name) || at_name("_")) {
        fail_syntax();
        break;
      }
      rest = name_symbol(tok());
      advance();
      eat(TokKind::Comma);
      break;
    }
    NodeId key;
    uint32_t k_start = begin();
    switch (kind()) {
      case TokKind::Number:
      case TokKind::Minus:
        key = number_pattern_value();
        break;
      case TokKind::String:
        key = strings();
        break;
      case TokKind::None:
      case TokKind::True:
      case TokKind::False:
        key = keyword_constant(at(TokKind::None)   ? ast::Constant::Kind::None_
                               : at(TokKind::True) ? ast::Constant::Kind::True_
                                                   : ast::Constant::Kind::False_);
        break;
      case TokKind::Name:
        key = name_or_attr();
        if (module()[key].kind == NodeKind::Name) {
          fail(Span{k_start, prev_end()}, "invalid syntax");
        }
        break;
      default:
        fail_syntax();
        key = error_node(k_start);
        break;
    }
    if (failed()) break;
    expect(TokKind::Colon);
    push(key);
    push(pattern());
    if (!eat(TokKind::Comma)) break;
    TPF_PROGRESS(*this, last);
  }
  --bracket_level;
  expect(TokKind::RBrace);
  uint32_t count = scratch_count(mk);
  uint32_t mk2 = mark();
  for (uint32_t i = 0; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId keys = finish_list(mk2);
  for (uint32_t i = 1; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId pats = finish_list(mk2);
  finish_list(mk);
  NodeId n = node(NodeKind::MatchMapping, start);
  set(n, slot::MatchMapping::keys, keys);
  set(n, slot::MatchMapping::patterns, pats);
  set(n, slot::MatchMapping::rest, rest);
  return n;
}

// class_pattern: name_or_attr '(' [positional_patterns ','?] [keyword_patterns ','?] ')'
// keyword_pattern: NAME '=' pattern
NodeId Parser::class_pattern(NodeId cls, uint32_t start) {
  DepthGuard guard(*this);
  advance();  // '('
  ++bracket_level;
  uint32_t mk = mark();  // tagged: positional patterns, then (attr, pattern) pairs
  constexpr uint32_t kKw = 1u << 31;
  bool seen_kw = false;
  uint32_t last = pos();
  while (!at(TokKind::RPar) && !failed()) {
    if (at(TokKind::Name) && peek(1) == TokKind::Equal) {
      ast::Symbol attr = name_symbol(tok());
      advance();
      advance();
      push_raw(attr | kKw);
      push(pattern());
      seen_kw = true;
    } else {
      NodeId p = pattern();
      if (seen_kw && !failed()) {
        fail(module()[p].span, "positional patterns follow keyword patterns");
        break;
      }
      push(p);
    }
    if (!eat(TokKind::Comma)) break;
    TPF_PROGRESS(*this, last);
  }
  --bracket_level;
  expect(TokKind::RPar);
  uint32_t count = scratch_count(mk);
  uint32_t mk2 = mark();
  uint32_t i = 0;
  for (; i < count && !(scratch_at(mk + i) & kKw); ++i) push_raw(scratch_at(mk + i));
  ast::ListId positional = finish_list(mk2);
  uint32_t kw_first = i;
  for (uint32_t j = kw_first; j < count; j += 2) push_raw(scratch_at(mk + j) & ~kKw);
  ast::ListId attrs = finish_list(mk2);
  for (uint32_t j = kw_first + 1; j < count; j += 2) push_raw(scratch_at(mk + j));
  ast::ListId kw_patterns = finish_list(mk2);
  finish_list(mk);
  NodeId n = node(NodeKind::MatchClass, start);
  set(n, slot::MatchClass::cls, cls);
  set(n, slot::MatchClass::patterns, positional);
  set(n, slot::MatchClass::kwd_attrs, attrs);
  set(n, slot::MatchClass::kwd_patterns, kw_patterns);
  return n;
}

}  // namespace tpf::parser
