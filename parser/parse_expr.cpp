// Expressions: the precedence levels of CPython 3.11's python.gram, from
// star_expressions down to primaries and slices (atoms: parse_atom.cpp).
// requires: Parser cursor (parser_state.h). produces: expression nodes.
//
// Spans follow pegen's EXTRA: a node runs from the first token of its rule to
// the last token consumed, so `(a) + b` starts at `(` while the group `(a)`
// itself is the inner node, unchanged:
//
//   (a) + b        BinOp 0..7, Name a 1..2
//   ^^^^^^^
#include <array>

#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

namespace {

/// Binary operators of bitwise_or and below, with their precedence (higher
/// binds tighter); 0 for other tokens.
int binop_prec(TokKind k, Op& op) {
  switch (k) {
    case TokKind::Vbar:
      op = Op::BitOr;
      return 1;
    case TokKind::Circumflex:
      op = Op::BitXor;
      return 2;
    case TokKind::Amper:
      op = Op::BitAnd;
      return 3;
    case TokKind::LeftShift:
      op = Op::LShift;
      return 4;
    case TokKind::RightShift:
      op = Op::RShift;
      return 4;
    case TokKind::Plus:
      op = Op::Add;
      return 5;
    case TokKind::Minus:
      op = Op::Sub;
      return 5;
    case TokKind::Star:
      op = Op::Mult;
      return 6;
    case TokKind::Slash:
      op = Op::Div;
      return 6;
    case TokKind::DoubleSlash:
      op = Op::FloorDiv;
      return 6;
    case TokKind::Percent:
      op = Op::Mod;
      return 6;
    case TokKind::At:
      op = Op::MatMult;
      return 6;
    default:
      return 0;
  }
}

// What a token can do next to an operand, for the fast paths of
// disjunction() and binary(): most operands are a lone primary (`x`,
// `f(a)`, `self.w[i]`), and every level between disjunction and primary
// would return it unchanged unless one of these tokens follows it.
enum OperandClass : uint8_t {
  kStartsPrimary = 1 << 0,  // atom(): NAME, literals, brackets
  kArithmetic = 1 << 1,     // consumed by binary() or power(): | ^ & << >> + - * / // % @ **
  kLogical = 1 << 2,        // consumed by comparison() or bool_chain(): < ... in is not and or
};

constexpr auto kOperandClass = [] {
  std::array<uint8_t, 256> t{};
  for (TokKind k : {TokKind::Name, TokKind::Number, TokKind::String, TokKind::LPar, TokKind::LSqb,
                    TokKind::LBrace, TokKind::None, TokKind::True, TokKind::False,
                    TokKind::Ellipsis})
    t[static_cast<uint8_t>(k)] |= kStartsPrimary;
  for (TokKind k : {TokKind::Vbar, TokKind::Circumflex, TokKind::Amper, TokKind::LeftShift,
                    TokKind::RightShift, TokKind::Plus, TokKind::Minus, TokKind::Star,
                    TokKind::Slash, TokKind::DoubleSlash, TokKind::Percent, TokKind::At,
                    TokKind::DoubleStar})
    t[static_cast<uint8_t>(k)] |= kArithmetic;
  for (TokKind k : {TokKind::EqEqual, TokKind::NotEqual, TokKind::Less, TokKind::LessEqual,
                    TokKind::Greater, TokKind::GreaterEqual, TokKind::In, TokKind::Is,
                    TokKind::Not, TokKind::And, TokKind::Or})
    t[static_cast<uint8_t>(k)] |= kLogical;
  return t;
}();

bool has_class(TokKind k, uint8_t c) { return (kOperandClass[static_cast<uint8_t>(k)] & c) != 0; }

// disjunction: conjunction ('or' conjunction)+ | conjunction
// Fast path: a primary followed by no operator is returned as the eight
// levels below would return it; one followed by an operator is handed down
// to them (Parsed), so the tree and every error are the same. The body of
// Parser::disjunction(), forced inline into expression(), its most frequent
// caller (GCC kept the call).
[[gnu::always_inline]] inline NodeId disjunction_of(Parser& p) {
  if (!has_class(p.kind(), kStartsPrimary)) return p.bool_chain(TokKind::Or);
  const uint32_t start = p.begin();
  const NodeId e = p.primary();
  if (!has_class(p.kind(), kArithmetic | kLogical)) return e;
  return p.bool_chain(TokKind::Or, Parsed{e, start});
}

// expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef
// The body of Parser::expression(), forced inline into named_expression()
// and star_expression(), which call it for nearly every operand.
[[gnu::always_inline]] inline NodeId expression_of(Parser& p) {
  if (p.at(TokKind::Lambda)) return p.lambdef();
  const uint32_t start = p.begin();
  const NodeId body = disjunction_of(p);
  if (!p.at(TokKind::If)) return body;
  return p.conditional(start, body);
}

}  // namespace

bool starts_expression(TokKind k) {
  switch (k) {
    case TokKind::Name:
    case TokKind::Number:
    case TokKind::String:
    case TokKind::LPar:
    case TokKind::LSqb:
    case TokKind::LBrace:
    case TokKind::Minus:
    case TokKind::Plus:
    case TokKind::Tilde:
    case TokKind::Star:
    case TokKind::Ellipsis:
    case TokKind::None:
    case TokKind::True:
    case TokKind::False:
    case TokKind::Not:
    case TokKind::Lambda:
    case TokKind::Await:
    case TokKind::Error:
      return true;
    default:
      return false;
  }
}

uint32_t Parser::expression_lookahead(uint32_t& end) {
  Checkpoint cp = save();
  uint32_t outer_furthest = furthest_;
  furthest_ = 0;
  begin_speculation();
  expression();
  uint32_t seen = failed() ? furthest_ : pos();
  end = failed() ? 0 : tok_at(pos() - 1).end;
  end_speculation();
  restore(cp);
  furthest_ = outer_furthest;
  return seen;
}

// Called where a ',' or a closing bracket was expected after the
// expression `prev` (which started at `prev_start`): CPython's
// invalid_expression and invalid_legacy_expression hints, else "invalid syntax".
void Parser::fail_after_expr(NodeId prev, uint32_t prev_start) {
  if (failed()) return;
  Span where;
  std::string msg;
  if (after_expr_hint(prev, prev_start, where, msg)) {
    if (msg == "invalid syntax. Perhaps you forgot a comma?" && !speculating()) {
      // CPython's range spans `a b`, all of `b`.
      uint32_t end = 0;
      expression_lookahead(end);
      if (end > where.end) where.end = end;
    }
    lookahead_ = Lookahead::Expression;  // after the speculation, which resets it
    return fail(where, std::move(msg));
  }
  fail_syntax();
}

bool Parser::after_expr_hint(NodeId prev, uint32_t prev_start, Span& where, std::string& msg) {
  if (prev.valid() && starts_expression(kind()) && !at(TokKind::Error) && !at(TokKind::Star) &&
      !at(TokKind::Minus) && !at(TokKind::Plus)) {
    const ast::Node& n = module()[prev];
    if (n.kind == NodeKind::Name && !(n.flags & ast::kParenthesized) && !at(TokKind::LPar)) {
      std::string_view id = module().name(n.f[slot::Name::id]);
      if (id == "print" || id == "exec") {
        msg = "Missing parentheses in call to '" + std::string(id) + "'. Did you mean " +
              std::string(id) + "(...)?";
        where = n.span;
        return true;
      }
    }
    // !(NAME STRING | SOFT_KEYWORD) before the first expression.
    uint32_t i = pos();
    while (i > 0 && tok_at(i - 1).begin >= prev_start) --i;
    const Token& first = tok_at(i);
    bool name_string = first.kind == TokKind::Name && tok_at(i + 1).kind == TokKind::String;
    std::string_view ft = text(first);
    bool soft =
        first.kind == TokKind::Name && (ft == "match" || ft == "case" || ft == "_" || ft == "type");
    if (bracket_level > 0 && !name_string && !soft && n.kind != NodeKind::Error) {
      where = Span{prev_start, tok().end};
      msg = "invalid syntax. Perhaps you forgot a comma?";
      return true;
    }
  }
  return false;
}

void Parser::expect_after_expr(TokKind k, NodeId prev, uint32_t prev_start) {
  if (eat(k)) return;
  fail_after_expr(prev, prev_start);
}

// star_expressions: star_expression (',' star_expression)* [',']
NodeId Parser::star_expressions() {
  uint32_t start = begin();
  NodeId first = star_expression();
  if (!at(TokKind::Comma)) return first;
  uint32_t mk = mark();
  push(first);
  uint32_t last = pos();
  while (eat(TokKind::Comma)) {
    if (!starts_expression(kind())) break;
    push(star_expression());
    TPF_PROGRESS(*this, last);
  }
  NodeId t = node(NodeKind::Tuple, start);
  set(t, slot::Tuple::elts, finish_list(mk));
  module()[t].op = Op::Load;
  return t;
}

// star_expression: '*' bitwise_or | expression
NodeId Parser::star_expression() {
  if (!at(TokKind::Star)) return expression_of(*this);
  uint32_t start = begin();
  advance();
  NodeId v = bitwise_or();
  NodeId s = node(NodeKind::Starred, start);
  set(s, slot::Starred::value, v);
  module()[s].op = Op::Load;
  return s;
}

// star_named_expression: '*' bitwise_or | named_expression
NodeId Parser::star_named_expression() {
  if (at(TokKind::Star)) return star_expression();
  return named_expression();
}

// named_expression: NAME ':=' ~ expression | expression !':='
// `eq_hint` adds invalid_named_expression's "Maybe you meant '=='" errors
// where a following '=' cannot be legal (everywhere but call arguments).
NodeId Parser::named_expression(bool eq_hint) {
  uint32_t start = begin();
  if (at(TokKind::Name) && peek(1) == TokKind::ColonEqual) {
    NodeId target = node_span(NodeKind::Name, Span{tok().begin, tok().end});
    set(target, slot::Name::id, name_symbol(tok()));
    module()[target].op = Op::Store;
    advance();
    advance();
    NodeId value = expression();
    NodeId n = node(NodeKind::NamedExpr, start);
    set(n, slot::NamedExpr::target, target);
    set(n, slot::NamedExpr::value, value);
    return n;
  }
  NodeId e = expression_of(*this);
  if (failed()) return e;
  if (at(TokKind::ColonEqual)) {
    fail(module()[e].span, "cannot use assignment expressions with " + std::string(expr_name(e)));
  } else if (eq_hint && at(TokKind::Equal)) {
    const ast::Node& n = module()[e];
    bool paren = n.flags & ast::kParenthesized;
    bool bitwise_level = paren || !(n.kind == NodeKind::BoolOp || n.kind == NodeKind::Compare ||
                                    n.kind == NodeKind::IfExp || n.kind == NodeKind::Lambda ||
                                    n.kind == NodeKind::NamedExpr ||
                                    (n.kind == NodeKind::UnaryOp && n.op == Op::Not));
    std::string_view name = expr_name(e);
    bool excluded = n.kind == NodeKind::List || n.kind == NodeKind::Tuple ||
                    n.kind == NodeKind::GeneratorExp || name == "True" || name == "False" ||
                    name == "None";
    if (n.kind == NodeKind::Name && !paren)
      fail(n.span, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
    else if (bitwise_level && !excluded)
      fail(n.span,
           "cannot assign to " + std::string(name) + " here. Maybe you meant '==' instead of '='?");
  }
  return e;
}

// expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef
NodeId Parser::expression() { return expression_of(*this); }

// The rest of a conditional expression from its 'if', after `body` (which
// started at `start`).
NodeId Parser::conditional(uint32_t start, NodeId body) {
  advance();
  NodeId test = disjunction();
  if (!at(TokKind::Else)) {
    // invalid_expression: ... 'if' disjunction !('else' | ':')
    if (at(TokKind::Colon))
      fail_syntax();
    else if (!failed())
      fail(Span{start, prev_end()}, "expected 'else' after 'if' expression");
    return body;
  }
  advance();
  DepthGuard guard(*this);
  NodeId orelse = expression();
  NodeId n = node(NodeKind::IfExp, start);
  set(n, slot::IfExp::test, test);
  set(n, slot::IfExp::body, body);
  set(n, slot::IfExp::orelse, orelse);
  return n;
}

// lambdef: 'lambda' [lambda_params] ':' expression
NodeId Parser::lambdef() {
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  NodeId args = parameters(true, TokKind::Colon);
  expect(TokKind::Colon, "expected ':'");
  NodeId body = expression();
  NodeId n = node(NodeKind::Lambda, start);
  set(n, slot::Lambda::args, args);
  set(n, slot::Lambda::body, body);
  return n;
}

// disjunction: conjunction ('or' conjunction)+ | conjunction (see disjunction_of)
NodeId Parser::disjunction() { return disjunction_of(*this); }

// disjunction (which == Or) and conjunction (which == And):
// conjunction: inversion ('and' inversion)+ | inversion

NodeId Parser::bool_chain(TokKind which, Parsed given) {
  uint32_t start = given.node.valid() ? given.start : begin();
  NodeId first = which == TokKind::Or ? bool_chain(TokKind::And, given) : inversion(given);
  if (!at(which)) return first;
  uint32_t mk = mark();
  push(first);
  while (eat(which)) push(which == TokKind::Or ? bool_chain(TokKind::And) : inversion());
  NodeId n = node(NodeKind::BoolOp, start);
  module()[n].op = which == TokKind::Or ? Op::Or : Op::And;
  set(n, slot::BoolOp::values, finish_list(mk));
  return n;
}

// inversion: 'not' inversion | comparison
NodeId Parser::inversion(Parsed given) {
  if (given.node.valid() || !at(TokKind::Not)) return comparison(given);
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  NodeId operand = inversion();
  NodeId n = node(NodeKind::UnaryOp, start);
  module()[n].op = Op::Not;
  set(n, slot::UnaryOp::operand, operand);
  return n;
}

// comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or
NodeId Parser::comparison(Parsed given) {
  uint32_t start = given.node.valid() ? given.start : begin();
  NodeId left = binary(1, given);
  uint32_t mk = mark();
  for (;;) {
    Op op;
    switch (kind()) {
      case TokKind::EqEqual:
        op = Op::Eq;
        break;
      case TokKind::NotEqual:
        // `<>` is Barry's (PEP 401): without `from __future__ import
        // barry_as_FLUFL` every version rejects it.
        if (text(tok()) == "<>") {
          fail_syntax();
          return left;
        }
        op = Op::NotEq;
        break;
      case TokKind::Less:
        op = Op::Lt;
        break;
      case TokKind::LessEqual:
        op = Op::LtE;
        break;
      case TokKind::Greater:
        op = Op::Gt;
        break;
      case TokKind::GreaterEqual:
        op = Op::GtE;
        break;
      case TokKind::In:
        op = Op::In;
        break;
      case TokKind::Is:
        op = peek(1) == TokKind::Not ? Op::IsNot : Op::Is;
        break;
      case TokKind::Not:
        if (peek(1) != TokKind::In) goto done;
        op = Op::NotIn;
        break;
      default:
        goto done;
    }
    advance();
    if (op == Op::IsNot || op == Op::NotIn) advance();
    push_raw(static_cast<uint32_t>(op));
    push(bitwise_or());
  }
done:
  uint32_t count = scratch_count(mk);
  if (count == 0) return left;
  uint32_t mk2 = mark();
  for (uint32_t i = 0; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId ops = finish_list(mk2);
  for (uint32_t i = 1; i < count; i += 2) push_raw(scratch_at(mk + i));
  ast::ListId comparators = finish_list(mk2);
  finish_list(mk);
  NodeId n = node(NodeKind::Compare, start);
  set(n, slot::Compare::left, left);
  set(n, slot::Compare::ops, ops);
  set(n, slot::Compare::comparators, comparators);
  return n;
}

// bitwise_or .. term: left-associative binary operators by precedence
// climbing (one C++ frame per level instead of one per grammar rule).
// Operands that start a primary skip factor() and power() unless '**'
// follows (factor only adds unary operators, power only '**').
NodeId Parser::binary(int min_prec, Parsed given) {
  uint32_t start = given.node.valid() ? given.start : begin();
  NodeId left;
  if (given.node.valid()) {
    left = power(given);
  } else if (has_class(kind(), kStartsPrimary)) {
    left = primary();
    if (at(TokKind::DoubleStar)) left = power(Parsed{left, start});
  } else {
    left = factor();
  }
  for (;;) {
    Op op = Op::None_;
    int prec = binop_prec(kind(), op);
    if (prec == 0 || prec < min_prec) break;
    advance();
    NodeId right = binary(prec + 1);
    NodeId n = node(NodeKind::BinOp, start);
    module()[n].op = op;
    set(n, slot::BinOp::left, left);
    set(n, slot::BinOp::right, right);
    left = n;
  }
  return left;
}

// factor: '+' factor | '-' factor | '~' factor | power
NodeId Parser::factor() {
  Op op;
  switch (kind()) {
    case TokKind::Plus:
      op = Op::UAdd;
      break;
    case TokKind::Minus:
      op = Op::USub;
      break;
    case TokKind::Tilde:
      op = Op::Invert;
      break;
    default:
      return power();
  }
  uint32_t start = begin();
  DepthGuard guard(*this);
  advance();
  NodeId operand = factor();
  NodeId n = node(NodeKind::UnaryOp, start);
  module()[n].op = op;
  set(n, slot::UnaryOp::operand, operand);
  return n;
}

// power: await_primary '**' factor | await_primary
// await_primary: AWAIT primary | primary
NodeId Parser::power(Parsed given) {
  uint32_t start = given.node.valid() ? given.start : begin();
  NodeId base;
  if (given.node.valid()) {
    base = given.node;
  } else if (at(TokKind::Await)) {
    advance();
    NodeId v = primary();
    base = node(NodeKind::Await, start);
    set(base, slot::Await::value, v);
  } else {
    base = primary();
  }
  if (!at(TokKind::DoubleStar)) return base;
  DepthGuard guard(*this);
  advance();
  NodeId exp = factor();
  NodeId n = node(NodeKind::BinOp, start);
  module()[n].op = Op::Pow;
  set(n, slot::BinOp::left, base);
  set(n, slot::BinOp::right, exp);
  return n;
}

// primary: primary '.' NAME | primary genexp | primary '(' [arguments] ')'
//        | primary '[' slices ']' | atom
NodeId Parser::primary() {
  uint32_t start = begin();
  NodeId e = at(TokKind::Name) ? name_node() : atom();
  uint32_t last = pos();
  for (;;) {
    if (at(TokKind::Dot)) {
      advance();
      if (!at(TokKind::Name)) {
        fail_syntax();
        return e;
      }
      ast::Symbol attr = name_symbol(tok());
      advance();
      NodeId n = node(NodeKind::Attribute, start);
      set(n, slot::Attribute::value, e);
      set(n, slot::Attribute::attr, attr);
      module()[n].op = Op::Load;
      e = n;
    } else if (at(TokKind::LPar)) {
      ast::ListId args = 0, keywords = 0;
      NodeId gen = call_arguments(args, keywords, false);
      NodeId n = node(NodeKind::Call, start);
      set(n, slot::Call::func, e);
      if (gen.valid()) args = module().add_list(std::span<const NodeId>(&gen, 1));
      set(n, slot::Call::args, args);
      set(n, slot::Call::keywords, keywords);
      e = n;
    } else if (at(TokKind::LSqb)) {
      NodeId s = slices();
      NodeId n = node(NodeKind::Subscript, start);
      set(n, slot::Subscript::value, e);
      set(n, slot::Subscript::slice, s);
      module()[n].op = Op::Load;
      e = n;
    } else {
      break;
    }
    TPF_PROGRESS(*this, last);
  }
  return e;
}

// slices: slice !',' | ','.(slice | starred_expression)+ [',']
NodeId Parser::slices() {
  advance();  // '['
  ++bracket_level;
  uint32_t start = begin();
  NodeId first = slice_item();
  NodeId result = first;
  if (at(TokKind::Comma) || module()[first].kind == NodeKind::Starred) {
    uint32_t mk = mark();
    push(first);
    uint32_t last = pos();
    while (eat(TokKind::Comma)) {
      if (at(TokKind::RSqb)) break;
      push(slice_item());
      TPF_PROGRESS(*this, last);
    }
    result = node(NodeKind::Tuple, start);
    set(result, slot::Tuple::elts, finish_list(mk));
    module()[result].op = Op::Load;
  }
  expect_after_expr(TokKind::RSqb, result, start);
  --bracket_level;
  return result;
}

// slice: [expression] ':' [expression] [':' [expression]] | named_expression
// starred_expression: '*' expression
NodeId Parser::slice_item() {
  uint32_t start = begin();
  if (at(TokKind::Star)) {
    if (!py(11)) {
      fail_syntax();  // a[*b] is 3.11's (PEP 646)
      return error_node(start);
    }
    advance();
    NodeId v = expression();
    NodeId s = node(NodeKind::Starred, start);
    set(s, slot::Starred::value, v);
    module()[s].op = Op::Load;
    return s;
  }
  NodeId lower = ast::kNoNode;
  if (!at(TokKind::Colon)) {
    lower = named_expression();
    if (!at(TokKind::Colon)) return lower;
  }
  advance();  // ':'
  auto optional = [&]() {
    if (at(TokKind::Colon) || at(TokKind::Comma) || at(TokKind::RSqb)) return ast::kNoNode;
    return expression();
  };
  NodeId upper = optional();
  NodeId step = ast::kNoNode;
  if (eat(TokKind::Colon)) step = optional();
  NodeId n = node(NodeKind::Slice, start);
  set(n, slot::Slice::lower, lower);
  set(n, slot::Slice::upper, upper);
  set(n, slot::Slice::step, step);
  return n;
}

// yield_expr: 'yield' 'from' expression | 'yield' [star_expressions]
NodeId Parser::yield_expr() {
  uint32_t start = begin();
  advance();
  if (eat(TokKind::From)) {
    NodeId v = expression();
    NodeId n = node(NodeKind::YieldFrom, start);
    set(n, slot::YieldFrom::value, v);
    return n;
  }
  NodeId v = ast::kNoNode;
  if (starts_expression(kind()) && !at(TokKind::Error)) v = star_expressions();
  NodeId n = node(NodeKind::Yield, start);
  set(n, slot::Yield::value, v);
  return n;
}

}  // namespace tpf::parser
