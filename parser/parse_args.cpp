// Call arguments (and class bases) and the parameter lists of def and lambda.
// requires: Parser cursor (parser_state.h). produces: keyword, arg, arguments nodes.
#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

namespace {
// Tags a scratch entry as a keyword (the rest are positional arguments).
constexpr uint32_t kKeywordTag = 1u << 31;
}  // namespace

// arguments: args [','] &')'
// args: ','.(starred_expression | (assignment_expression | expression !':=') !'=')+ [',' kwargs]
//     | kwargs
// kwargs: kwarg_or_starred (',' kwarg_or_starred)* (',' kwarg_or_double_starred)* | ...
// Returns the GeneratorExp when the call is `f(x for x in y)` (its span is
// the call's parentheses), kNoNode otherwise.
NodeId Parser::call_arguments(ast::ListId& args, ast::ListId& keywords, bool for_class) {
  uint32_t lpar = begin();
  advance();  // '('
  ++bracket_level;
  uint32_t mk = mark();
  bool seen_keyword = false, seen_double_star = false;
  NodeId last_item = ast::kNoNode;
  uint32_t last_start = begin();
  uint32_t last = pos();
  while (!at(TokKind::RPar) && !failed()) {
    uint32_t start = begin();
    last_start = start;
    if (at(TokKind::Star)) {
      advance();
      NodeId v = expression();
      NodeId s = node(NodeKind::Starred, start);
      set(s, slot::Starred::value, v);
      module()[s].op = Op::Load;
      if (seen_double_star) {
        fail(module()[s].span, "iterable argument unpacking follows keyword argument unpacking");
        break;
      }
      push(s);
      last_item = s;
    } else if (at(TokKind::DoubleStar)) {
      advance();
      NodeId v = expression();
      NodeId k = node(NodeKind::keyword, start);
      set(k, slot::keyword::arg, ast::kNoSymbol);
      set(k, slot::keyword::value, v);
      push_raw(k.v | kKeywordTag);
      seen_double_star = true;
      last_item = v;
    } else if (at(TokKind::Name) && peek(1) == TokKind::Equal) {
      ast::Symbol name = name_symbol(tok());
      advance();
      advance();
      NodeId v = expression();
      if (at_comprehension() && !failed()) {
        fail(Span{start, prev_end()},
             "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
        break;
      }
      NodeId k = node(NodeKind::keyword, start);
      set(k, slot::keyword::arg, name);
      set(k, slot::keyword::value, v);
      push_raw(k.v | kKeywordTag);
      seen_keyword = true;
      last_item = v;
    } else {
      NodeId e = named_expression(false);
      if (failed()) break;
      if (at_comprehension() && !for_class) {
        ast::ListId gens = comprehension_clauses();
        if (scratch_count(mk) == 0 && at(TokKind::RPar)) {
          --bracket_level;
          advance();
          NodeId g = node(NodeKind::GeneratorExp, lpar);
          set(g, slot::GeneratorExp::elt, e);
          set(g, slot::GeneratorExp::generators, gens);
          finish_list(mk);
          args = 0;
          keywords = 0;
          return g;
        }
        // CPython's invalid_arguments: a first generator argument needs a ','
        // after it for this message (`f(x for x in y z)` is "invalid syntax"
        // at `z`); one after other arguments always gets it.
        if (!failed() && scratch_count(mk) == 0 && !at(TokKind::Comma)) fail_syntax();
        // `a=expression b=for_if_clauses ',' [args | expression for_if_clauses]`
        // reads what follows the comma.
        if (scratch_count(mk) == 0) lookahead_ = Lookahead::Arguments;
        if (!failed()) fail(Span{start, prev_end()}, "Generator expression must be parenthesized");
        break;
      }
      if (at(TokKind::Equal)) {
        std::string_view what = expr_name(e);
        if (what == "True" || what == "False" || what == "None")
          fail(module()[e].span, "cannot assign to " + std::string(what));
        else
          fail(module()[e].span, "expression cannot contain assignment, perhaps you meant \"==\"?");
        break;
      }
      // 3.11 reports these at the token after the argument.
      // `a=args ',' args` reads the arguments that follow, and 3.11 blames
      // the token after the last of them (`f(a=1, b, c)`: the ')').
      if ((seen_double_star || seen_keyword) && starts_expression(kind())) {
        fail_after_expr(e, start);  // `f(a=1, b c)`: the comma hint comes first
        break;
      }
      if (seen_double_star || seen_keyword) {
        const Token& after = tok_at(cpython_lookahead(Lookahead::Arguments));
        lookahead_ = Lookahead::Arguments;
        fail(Span{after.begin, after.end},
             seen_double_star ? "positional argument follows keyword argument unpacking"
                              : "positional argument follows keyword argument");
        break;
      }
      push(e);
      last_item = e;
    }
    if (!eat(TokKind::Comma)) break;
    TPF_PROGRESS(*this, last);
  }
  if (!at(TokKind::RPar)) {
    fail_after_expr(last_item, last_item.valid() ? module()[last_item].span.begin : last_start);
  } else {
    advance();
  }
  --bracket_level;
  // Split positional arguments from keywords, keeping source order in each.
  uint32_t count = scratch_count(mk);
  uint32_t mk2 = mark();
  for (uint32_t i = 0; i < count; ++i)
    if (!(scratch_at(mk + i) & kKeywordTag)) push_raw(scratch_at(mk + i));
  args = finish_list(mk2);
  for (uint32_t i = 0; i < count; ++i)
    if (scratch_at(mk + i) & kKeywordTag) push_raw(scratch_at(mk + i) & ~kKeywordTag);
  keywords = finish_list(mk2);
  finish_list(mk);
  return ast::kNoNode;
}

// param: NAME annotation?   (lambda_param: NAME)
// Returns the arg node; `star` allows `*args: *Ts` (star_annotation).
NodeId Parser::param(bool lambda, bool star) {
  uint32_t start = begin();
  if (!at(TokKind::Name)) {
    fail_syntax();
    return error_node(start);
  }
  ast::Symbol name = name_symbol(tok());
  advance();
  NodeId annotation = ast::kNoNode;
  if (!lambda && eat(TokKind::Colon)) annotation = star ? star_expression() : expression();
  NodeId a = node(NodeKind::arg, start);
  set(a, slot::arg::arg, name);
  set(a, slot::arg::annotation, annotation);
  return a;
}

// parameters (def) / lambda_params, ending before `close` (')' or ':'):
//   slash_no_default param_no_default* param_with_default* [star_etc]
// | slash_with_default param_with_default* [star_etc]
// | param_no_default+ param_with_default* [star_etc]
// | param_with_default+ [star_etc]
// | star_etc
// star_etc: '*' param_no_default param_maybe_default* [kwds]
//         | '*' ',' param_maybe_default+ [kwds] | kwds
// kwds: '**' param_no_default
// Written as one loop with the ordering rules checked as CPython's
// invalid_parameters / invalid_star_etc report them.
NodeId Parser::parameters(bool lambda, TokKind close) {
  // Four lists are built at once, so entries are tagged by list on the scratch stack.
  enum : uint32_t { kPos = 0, kKwOnly = 1, kDefault = 2, kKwDefault = 3 };
  constexpr uint32_t kShift = 30;
  uint32_t mk = mark();
  uint32_t posonly_count = 0;  // leading positional params before '/'
  uint32_t positional = 0;
  bool seen_default = false, seen_slash = false, seen_star = false, seen_kwargs = false;
  NodeId vararg = ast::kNoNode, kwarg = ast::kNoNode;
  uint32_t last = pos();
  while (!at(close) && !failed()) {
    uint32_t start = begin();
    if (at(TokKind::LPar) && !seen_star) {
      fail_here(lambda ? "Lambda expression parameters cannot be parenthesized"
                       : "Function parameters cannot be parenthesized");
      break;
    }
    if (seen_kwargs) {
      fail_here("arguments cannot follow var-keyword argument");
      break;
    }
    if (at(TokKind::Slash)) {
      if (seen_slash) {
        fail_here("/ may appear only once");
        break;
      }
      if (seen_star) {
        fail_here("/ must be ahead of *");
        break;
      }
      if (positional == 0) {
        fail_here("at least one argument must precede /");
        break;
      }
      advance();
      seen_slash = true;
      posonly_count = positional;
      if (at(TokKind::Star)) {
        fail_here("expected comma between / and *");
        break;
      }
    } else if (at(TokKind::Star)) {
      if (seen_star) {
        fail_here("* argument may appear only once");
        break;
      }
      advance();
      seen_star = true;
      if (at(TokKind::Comma) || at(close)) {
        if (at(close) || peek(1) == TokKind::DoubleStar || peek(1) == close) {
          // def: at the '*'; lambda: at the token that ended the match.
          if (!lambda)
            fail(Span{start, prev_end()}, "named arguments must follow bare *");
          else if (at(close))
            fail_here("named arguments must follow bare *");
          else
            fail(Span{tok_at(pos() + 1).begin, tok_at(pos() + 1).end},
                 "named arguments must follow bare *");
          break;
        }
      } else {
        vararg = param(lambda, true);
        if (at(TokKind::Equal)) {
          fail_here("var-positional argument cannot have default value");
          break;
        }
      }
    } else if (at(TokKind::DoubleStar)) {
      advance();
      kwarg = param(lambda, false);
      seen_kwargs = true;
      if (at(TokKind::Equal)) {
        fail_here("var-keyword argument cannot have default value");
        break;
      }
    } else {
      NodeId a = param(lambda, false);
      if (failed()) break;
      NodeId def = ast::kNoNode;
      if (eat(TokKind::Equal)) {
        if (at(TokKind::Comma) || at(close)) {
          fail(Span{tok_at(pos() - 1).begin, tok_at(pos() - 1).end},  // at the '='
               "expected default value expression");
          break;
        }
        def = expression();
      }
      if (seen_star) {
        push_raw(a.v | (kKwOnly << kShift));
        push_raw((def.valid() ? def.v : 0x3fffffffu) | (kKwDefault << kShift));
      } else {
        if (def.valid()) {
          seen_default = true;
          push_raw(def.v | (kDefault << kShift));
        } else if (seen_default) {
          fail(module()[a].span, "non-default argument follows default argument");
          break;
        }
        push_raw(a.v | (kPos << kShift));
        ++positional;
      }
    }
    if (!eat(TokKind::Comma)) break;
    TPF_PROGRESS(*this, last);
  }
  if (!failed() && !at(close)) {
    fail_syntax();
  }
  uint32_t count = scratch_count(mk);
  auto collect = [&](uint32_t tag, uint32_t skip, uint32_t take) {
    uint32_t mk2 = mark();
    uint32_t seen = 0;
    for (uint32_t i = 0; i < count; ++i) {
      uint32_t v = scratch_at(mk + i);
      if ((v >> kShift) != tag) continue;
      if (seen >= skip && seen < skip + take) {
        uint32_t id = v & ((1u << kShift) - 1);
        push_raw(id == 0x3fffffffu ? UINT32_MAX : id);
      }
      ++seen;
    }
    return finish_list(mk2);
  };
  ast::ListId posonly = collect(kPos, 0, posonly_count);
  ast::ListId args = collect(kPos, posonly_count, count);
  ast::ListId kwonly = collect(kKwOnly, 0, count);
  ast::ListId kw_defaults = collect(kKwDefault, 0, count);
  ast::ListId defaults = collect(kDefault, 0, count);
  finish_list(mk);
  NodeId n = node_span(NodeKind::arguments, Span{});
  set(n, slot::arguments::posonlyargs, posonly);
  set(n, slot::arguments::args, args);
  set(n, slot::arguments::vararg, vararg);
  set(n, slot::arguments::kwonlyargs, kwonly);
  set(n, slot::arguments::kw_defaults, kw_defaults);
  set(n, slot::arguments::kwarg, kwarg);
  set(n, slot::arguments::defaults, defaults);
  return n;
}

}  // namespace tpf::parser
