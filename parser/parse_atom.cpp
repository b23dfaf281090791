// Atoms and displays: names, constants, (tuple | group | genexp), list,
// dict and set displays and comprehensions, plus for-targets.
// requires: Parser cursor (parser_state.h). produces: expression nodes.
#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

NodeId Parser::keyword_constant(ast::Constant::Kind k) {
  NodeId n = node_span(NodeKind::Constant, Span{tok().begin, tok().end});
  ast::Constant c;
  c.kind = k;
  set(n, slot::Constant::value, module().add_constant(std::move(c)));
  advance();
  return n;
}

// atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER
//     | (tuple | group | genexp) | (list | listcomp) | (dict | set | dictcomp | setcomp) | '...'
NodeId Parser::atom() {
  switch (kind()) {
    case TokKind::Name:
      return name_node();
    case TokKind::True:
      return keyword_constant(ast::Constant::Kind::True_);
    case TokKind::False:
      return keyword_constant(ast::Constant::Kind::False_);
    case TokKind::None:
      return keyword_constant(ast::Constant::Kind::None_);
    case TokKind::Ellipsis:
      return keyword_constant(ast::Constant::Kind::Ellipsis);
    case TokKind::String:
      return strings();
    case TokKind::Number:
      return number();
    case TokKind::LPar:
      return paren_atom();
    case TokKind::LSqb:
      return list_atom();
    case TokKind::LBrace:
      return brace_atom();
    default:
      break;
  }
  uint32_t start = begin();
  fail_syntax();
  return error_node(start);
}

// Elements of a display after the first: (',' star_named_expression)* [','] up to `close`.
void Parser::display_rest(TokKind close) {
  uint32_t last = pos();
  while (eat(TokKind::Comma)) {
    if (at(close)) break;
    push(star_named_expression());
    TPF_PROGRESS(*this, last);
  }
}

// tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'
// group: '(' (yield_expr | named_expression) ')'
// genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')'
NodeId Parser::paren_atom() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  ++bracket_level;
  if (at(TokKind::RPar)) {
    --bracket_level;
    advance();
    NodeId t = node(NodeKind::Tuple, start);
    set(t, slot::Tuple::elts, 0u);
    module()[t].op = Op::Load;
    return t;
  }
  if (at(TokKind::DoubleStar)) {  // invalid_group: '(' '**' expression ')'
    fail_here("cannot use double starred expression here");
    return error_node(start);
  }
  if (at(TokKind::Yield)) {
    NodeId y = yield_expr();
    --bracket_level;
    expect(TokKind::RPar);
    module()[y].flags |= ast::kParenthesized;
    return y;
  }
  uint32_t first_start = begin();
  NodeId first = star_named_expression();
  if (at_comprehension()) {
    if (module()[first].kind == NodeKind::Starred)
      fail(module()[first].span, "iterable unpacking cannot be used in comprehension");
    ast::ListId gens = comprehension_clauses();
    --bracket_level;
    expect(TokKind::RPar);
    NodeId g = node(NodeKind::GeneratorExp, start);
    set(g, slot::GeneratorExp::elt, first);
    set(g, slot::GeneratorExp::generators, gens);
    return g;
  }
  if (at(TokKind::Comma)) {
    uint32_t mk = mark();
    push(first);
    display_rest(TokKind::RPar);
    NodeId last_elt{scratch_at(mark() - 1)};
    expect_after_expr(TokKind::RPar, last_elt, module()[last_elt].span.begin);
    --bracket_level;
    NodeId t = node(NodeKind::Tuple, start);
    set(t, slot::Tuple::elts, finish_list(mk));
    module()[t].op = Op::Load;
    module()[t].flags |= ast::kParenthesized;
    return t;
  }
  if (!at(TokKind::RPar) && module()[first].kind == NodeKind::Starred && !failed()) {
    fail_syntax();
    return first;
  }
  expect_after_expr(TokKind::RPar, first, first_start);
  --bracket_level;
  if (module()[first].kind == NodeKind::Starred && !failed()) {
    fail(module()[first].span, "cannot use starred expression here");
  }
  module()[first].flags |= ast::kParenthesized;
  return first;
}

// list: '[' [star_named_expressions] ']'
// listcomp: '[' named_expression for_if_clauses ']'
NodeId Parser::list_atom() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  ++bracket_level;
  uint32_t mk = mark();
  if (!at(TokKind::RSqb)) {
    uint32_t first_start = begin();
    NodeId first = star_named_expression();
    if (at_comprehension()) {
      if (module()[first].kind == NodeKind::Starred)
        fail(module()[first].span, "iterable unpacking cannot be used in comprehension");
      ast::ListId gens = comprehension_clauses();
      --bracket_level;
      expect(TokKind::RSqb);
      NodeId c = node(NodeKind::ListComp, start);
      set(c, slot::ListComp::elt, first);
      set(c, slot::ListComp::generators, gens);
      return c;
    }
    push(first);
    display_rest(TokKind::RSqb);
    if (at_comprehension() && !failed()) {
      fail(module()[first].span, "did you forget parentheses around the comprehension target?");
      return first;
    }
    NodeId last_elt{scratch_at(mark() - 1)};
    expect_after_expr(TokKind::RSqb, last_elt,
                      mark() - mk == 1 ? first_start : module()[last_elt].span.begin);
    --bracket_level;
  } else {
    --bracket_level;
    advance();
  }
  NodeId l = node(NodeKind::List, start);
  set(l, slot::List::elts, finish_list(mk));
  module()[l].op = Op::Load;
  return l;
}

// dict: '{' [double_starred_kvpairs] '}'    set: '{' star_named_expressions '}'
// dictcomp: '{' kvpair for_if_clauses '}'  setcomp: '{' named_expression for_if_clauses '}'
NodeId Parser::brace_atom() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  ++bracket_level;
  if (at(TokKind::RBrace)) {
    --bracket_level;
    advance();
    NodeId d = node(NodeKind::Dict, start);
    set(d, slot::Dict::keys, 0u);
    set(d, slot::Dict::values, 0u);
    return d;
  }
  NodeId first = ast::kNoNode;
  uint32_t first_start = begin();
  if (!at(TokKind::DoubleStar)) {
    first = star_named_expression();
    if (!at(TokKind::Colon)) {
      // A set display or set comprehension.
      if (at_comprehension()) {
        if (module()[first].kind == NodeKind::Starred)
          fail(module()[first].span, "iterable unpacking cannot be used in comprehension");
        ast::ListId gens = comprehension_clauses();
        --bracket_level;
        expect(TokKind::RBrace);
        NodeId c = node(NodeKind::SetComp, start);
        set(c, slot::SetComp::elt, first);
        set(c, slot::SetComp::generators, gens);
        return c;
      }
      uint32_t mk = mark();
      push(first);
      display_rest(TokKind::RBrace);
      if (at_comprehension() && !failed()) {
        fail(module()[first].span, "did you forget parentheses around the comprehension target?");
        return first;
      }
      NodeId last_elt{scratch_at(mark() - 1)};
      expect_after_expr(TokKind::RBrace, last_elt,
                        mark() - mk == 1 ? first_start : module()[last_elt].span.begin);
      --bracket_level;
      NodeId s = node(NodeKind::Set, start);
      set(s, slot::Set::elts, finish_list(mk));
      return s;
    }
    if (module()[first].kind == NodeKind::Starred) {
      fail(module()[first].span, "cannot use a starred expression in a dictionary key");
      return first;
    }
    advance();  // ':'
    if (at(TokKind::Star)) {
      fail_here("cannot use a starred expression in a dictionary value");
      return first;
    }
    if (at(TokKind::RBrace) || at(TokKind::Comma)) {
      fail(Span{tok_at(pos() - 1).begin, prev_end()},  // at the ':'
           "expression expected after dictionary key and ':'");
      return first;
    }
    NodeId value = expression();
    if (at_comprehension()) {
      ast::ListId gens = comprehension_clauses();
      --bracket_level;
      expect(TokKind::RBrace);
      NodeId c = node(NodeKind::DictComp, start);
      set(c, slot::DictComp::key, first);
      set(c, slot::DictComp::value, value);
      set(c, slot::DictComp::generators, gens);
      return c;
    }
    push(first);
    push(value);
  } else {
    advance();
    push(ast::kNoNode);
    push(bitwise_or());
    if (at_comprehension()) {
      fail(Span{first_start, prev_end()}, "dict unpacking cannot be used in dict comprehension");
      return error_node(start);
    }
  }
  // Keys and values interleaved on the scratch stack, split at the end.
  uint32_t mk = mark() - 2;
  uint32_t last = pos();
  uint32_t item_start = first_start;
  while (eat(TokKind::Comma)) {
    if (at(TokKind::RBrace)) break;
    item_start = begin();
    if (eat(TokKind::DoubleStar)) {
      push(ast::kNoNode);
      push(bitwise_or());
    } else {
      NodeId k = expression();
      item_start = module()[k].span.begin;
      if (!at(TokKind::Colon)) {
        if (failed()) break;
        if (at(TokKind::Comma) || at(TokKind::RBrace))
          fail(module()[k].span, "':' expected after dictionary key");
        else
          fail_after_expr(k, item_start);
        break;
      }
      advance();
      if (at(TokKind::Star)) {
        fail_here("cannot use a starred expression in a dictionary value");
        break;
      }
      if (at(TokKind::RBrace) || at(TokKind::Comma)) {
        fail(Span{tok_at(pos() - 1).begin, prev_end()},
             "expression expected after dictionary key and ':'");
        break;
      }
      push(k);
      push(expression());
    }
    TPF_PROGRESS(*this, last);
  }
  {
    NodeId last_value{scratch_at(mark() - 1)};
    expect_after_expr(TokKind::RBrace, last_value,
                      last_value.valid() ? module()[last_value].span.begin : item_start);
  }
  --bracket_level;
  uint32_t count = scratch_count(mk);
  uint32_t mk2 = mark();
  for (uint32_t i = 0; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId keys = finish_list(mk2);
  for (uint32_t i = 1; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId values = finish_list(mk2);
  finish_list(mk);
  NodeId d = node(NodeKind::Dict, start);
  set(d, slot::Dict::keys, keys);
  set(d, slot::Dict::values, values);
  return d;
}

// for_if_clauses: (ASYNC? 'for' star_targets 'in' ~ disjunction ('if' disjunction)*)+
ast::ListId Parser::comprehension_clauses() {
  uint32_t mk = mark();
  uint32_t last = pos();
  while (at_comprehension()) {
    uint32_t is_async = eat(TokKind::Async) ? 1 : 0;
    advance();  // 'for'
    NodeId target = star_targets(TargetUse::Comp);
    if (!at(TokKind::In)) {
      fail_syntax();
      break;
    }
    advance();
    NodeId iter = disjunction();
    uint32_t mk_ifs = mark();
    uint32_t last_if = pos();
    while (eat(TokKind::If)) {
      push(disjunction());
      TPF_PROGRESS(*this, last_if);
    }
    ast::ListId ifs = finish_list(mk_ifs);
    NodeId c = node_span(NodeKind::comprehension, Span{});
    set(c, slot::comprehension::target, target);
    set(c, slot::comprehension::iter, iter);
    set(c, slot::comprehension::ifs, ifs);
    set(c, slot::comprehension::is_async, is_async);
    push(c);
    TPF_PROGRESS(*this, last);
  }
  return finish_list(mk);
}

// star_targets: star_target !',' | star_target (',' star_target)* [',']
// Items are parsed at bitwise_or level, so `in` (for loops, comprehensions)
// and `=` end them; set_target then checks and marks them Store.
NodeId Parser::star_targets(TargetUse use) {
  uint32_t start = begin();
  NodeId first = star_target_item();
  NodeId result = first;
  if (at(TokKind::Comma)) {
    uint32_t mk = mark();
    push(first);
    uint32_t last = pos();
    while (eat(TokKind::Comma)) {
      if (!starts_expression(kind())) break;
      push(star_target_item());
      TPF_PROGRESS(*this, last);
    }
    result = node(NodeKind::Tuple, start);
    set(result, slot::Tuple::elts, finish_list(mk));
  }
  set_target(result, use);
  return result;
}

NodeId Parser::star_target_item() {
  if (!at(TokKind::Star)) return bitwise_or();
  uint32_t start = begin();
  advance();
  DepthGuard guard(*this);
  NodeId v = star_target_item();
  NodeId s = node(NodeKind::Starred, start);
  set(s, slot::Starred::value, v);
  return s;
}

}  // namespace tpf::parser
