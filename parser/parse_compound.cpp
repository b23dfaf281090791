// Compound statements: blocks, if/while/for/with/try, def/class with
// decorators, and the match statement's head (patterns: parse_pattern.cpp).
// requires: Parser cursor (parser_state.h). produces: compound statement nodes.
#include <string>

#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

// block: NEWLINE INDENT statements DEDENT | simple_stmts
ast::ListId Parser::block(std::string_view what, uint32_t keyword_begin) {
  uint32_t mk = mark();
  if (eat(TokKind::Newline)) {
    if (!at(TokKind::Indent)) {
      fail_here("expected an indented block after " + std::string(what) + " on line " +
                std::to_string(line_of(keyword_begin)));
      return 0;
    }
    advance();
    uint32_t last = pos();
    while (!at(TokKind::Dedent) && !at(TokKind::EndOfFile)) {
      statement();
      TPF_PROGRESS(*this, last);
    }
    eat(TokKind::Dedent);
  } else {
    simple_stmts();
  }
  return finish_list(mk);
}

// ':' after a statement head: "expected ':'" when the line ends there
// (CPython's invalid_*_stmt rules), the generic error otherwise.
void Parser::expect_colon(NodeId prev, uint32_t prev_start) {
  if (eat(TokKind::Colon)) return;
  if (at(TokKind::Newline)) return fail_here("expected ':'");
  fail_after_expr(prev, prev_start);
}

// Forced ':' (&&':' in the grammar): always "expected ':'".
void Parser::expect_forced_colon() {
  if (!eat(TokKind::Colon)) fail_here("expected ':'");
}

// if_stmt: 'if' named_expression ':' block (elif_stmt | [else_block])
// elif_stmt: 'elif' named_expression ':' block (elif_stmt | [else_block])
// The elif chain is read iteratively and its nested If nodes are built from
// the last one back, so a long chain does not recurse.
NodeId Parser::if_stmt() {
  uint32_t start = begin();
  advance();
  uint32_t test_start = begin();
  NodeId test = named_expression();
  expect_colon(test, test_start);
  ast::ListId body = block("'if' statement", start);
  uint32_t mk = mark();  // (start, test, body) per elif
  uint32_t last = pos();
  while (at(TokKind::Elif)) {
    uint32_t e_start = begin();
    advance();
    uint32_t t_start = begin();
    NodeId t = named_expression();
    expect_colon(t, t_start);
    ast::ListId b = block("'elif' statement", e_start);
    push_raw(e_start);
    push(t);
    push_raw(b);
    TPF_PROGRESS(*this, last);
  }
  ast::ListId orelse = 0;
  if (at(TokKind::Else)) {
    uint32_t e_start = begin();
    advance();
    expect_forced_colon();
    orelse = block("'else' statement", e_start);
  }
  uint32_t count = scratch_count(mk);
  for (uint32_t i = count; i >= 3; i -= 3) {
    uint32_t e_start = scratch_at(mk + i - 3);
    NodeId n = node(NodeKind::If, e_start);
    set(n, slot::If::test, scratch_at(mk + i - 2));
    set(n, slot::If::body, scratch_at(mk + i - 1));
    set(n, slot::If::orelse, orelse);
    orelse = module().add_list(std::span<const NodeId>(&n, 1));
  }
  finish_list(mk);
  NodeId n = node(NodeKind::If, start);
  set(n, slot::If::test, test);
  set(n, slot::If::body, body);
  set(n, slot::If::orelse, orelse);
  return n;
}

ast::ListId Parser::else_block() {
  if (!at(TokKind::Else)) return 0;
  uint32_t e_start = begin();
  advance();
  expect_forced_colon();
  return block("'else' statement", e_start);
}

// while_stmt: 'while' named_expression ':' block [else_block]
NodeId Parser::while_stmt() {
  uint32_t start = begin();
  advance();
  uint32_t t_start = begin();
  NodeId test = named_expression();
  expect_colon(test, t_start);
  ast::ListId body = block("'while' statement", start);
  ast::ListId orelse = else_block();
  NodeId n = node(NodeKind::While, start);
  set(n, slot::While::test, test);
  set(n, slot::While::body, body);
  set(n, slot::While::orelse, orelse);
  return n;
}

// for_stmt: [ASYNC] 'for' star_targets 'in' ~ star_expressions ':' block [else_block]
NodeId Parser::for_stmt(uint32_t start, bool is_async) {
  uint32_t kw = begin();
  advance();
  NodeId target = star_targets(TargetUse::For);
  if (!at(TokKind::In)) {
    fail_syntax();
    return error_node(start);
  }
  advance();
  uint32_t i_start = begin();
  NodeId iter = star_expressions();
  expect_colon(iter, i_start);
  ast::ListId body = block("'for' statement", kw);
  ast::ListId orelse = else_block();
  NodeId n = node(is_async ? NodeKind::AsyncFor : NodeKind::For, start);
  set(n, slot::For::target, target);
  set(n, slot::For::iter, iter);
  set(n, slot::For::body, body);
  set(n, slot::For::orelse, orelse);
  return n;
}

// with_item: expression 'as' star_target &(',' | ')' | ':') | expression
NodeId Parser::with_item() {
  NodeId ctx = expression();
  NodeId vars = ast::kNoNode;
  if (eat(TokKind::As)) {
    vars = star_target_item();
    set_target(vars, TargetUse::With);
  }
  NodeId w = node_span(NodeKind::withitem, Span{});
  set(w, slot::withitem::context_expr, ctx);
  set(w, slot::withitem::optional_vars, vars);
  return w;
}

// with_stmt: [ASYNC] 'with' '(' ','.with_item+ ','? ')' ':' block
//          | [ASYNC] 'with' ','.with_item+ ':' block
// The parenthesized form is tried first, as PEG does; `with (a, b) as c:`
// then falls back to the second form.
NodeId Parser::with_stmt(uint32_t start, bool is_async) {
  uint32_t kw = begin();
  advance();
  uint32_t mk = mark();
  bool done = false;
  if (at(TokKind::LPar)) {
    Checkpoint cp = save();
    begin_speculation();
    advance();
    ++bracket_level;
    uint32_t last = pos();
    while (!failed()) {
      push(with_item());
      if (!eat(TokKind::Comma) || at(TokKind::RPar)) break;
      TPF_PROGRESS(*this, last);
    }
    --bracket_level;
    // A NEWLINE after ')' also commits: invalid_with_stmt then says "expected ':'".
    bool ok = !failed() && at(TokKind::RPar) &&
              (peek(1) == TokKind::Colon || peek(1) == TokKind::Newline);
    end_speculation();
    restore(cp);
    if (ok) {
      advance();
      ++bracket_level;
      uint32_t last2 = pos();
      while (!failed()) {
        push(with_item());
        if (!eat(TokKind::Comma) || at(TokKind::RPar)) break;
        TPF_PROGRESS(*this, last2);
      }
      --bracket_level;
      expect(TokKind::RPar);
      done = true;
    }
  }
  if (!done) {
    uint32_t last = pos();
    do {
      push(with_item());
      TPF_PROGRESS(*this, last);
    } while (eat(TokKind::Comma));
  }
  ast::ListId items = finish_list(mk);
  expect_colon(ast::kNoNode, begin());
  ast::ListId body = block("'with' statement", kw);
  NodeId n = node(is_async ? NodeKind::AsyncWith : NodeKind::With, start);
  set(n, slot::With::items, items);
  set(n, slot::With::body, body);
  return n;
}

// try_stmt: 'try' &&':' block finally_block
//         | 'try' &&':' block except_block+ [else_block] [finally_block]
//         | 'try' &&':' block except_star_block+ [else_block] [finally_block]
// except_block: 'except' expression ['as' NAME] ':' block | 'except' ':' block
// except_star_block: 'except' '*' expression ['as' NAME] ':' block
NodeId Parser::try_stmt() {
  uint32_t start = begin();
  advance();
  expect_forced_colon();
  ast::ListId body = block("'try' statement", start);
  uint32_t mk = mark();
  int star_kind = -1;  // -1 unknown, 0 except, 1 except*
  uint32_t last = pos();
  while (at(TokKind::Except)) {
    uint32_t h_start = begin();
    advance();
    if (at(TokKind::Star) && !py(11)) {
      fail_syntax();  // except* is 3.11's
      break;
    }
    int is_star = eat(TokKind::Star) ? 1 : 0;
    if (star_kind >= 0 && star_kind != is_star) {
      fail(Span{h_start, prev_end()}, "cannot have both 'except' and 'except*' on the same 'try'");
      break;
    }
    star_kind = is_star;
    NodeId type = ast::kNoNode;
    ast::Symbol name = ast::kNoSymbol;
    if (at(TokKind::Newline)) {
      fail_here("expected ':'");
      break;
    }
    if (!at(TokKind::Colon)) {
      uint32_t t_start = begin();
      type = expression();
      if (at(TokKind::Comma) && !failed()) {
        if (!py(10)) {
          fail_syntax();
          break;
        }
        fail(Span{t_start, prev_end()}, "multiple exception types must be parenthesized");
        break;
      }
      if (eat(TokKind::As)) {
        if (!at(TokKind::Name)) {
          fail_syntax();
          break;
        }
        name = name_symbol(tok());
        advance();
      }
      expect_colon(type, t_start);
    } else {
      if (is_star) {
        fail_here("expected one or more exception types");
        break;
      }
      advance();
    }
    ast::ListId h_body = block(is_star ? "'except*' statement" : "'except' statement", h_start);
    NodeId h = node(NodeKind::ExceptHandler, h_start);
    set(h, slot::ExceptHandler::type, type);
    set(h, slot::ExceptHandler::name, name);
    set(h, slot::ExceptHandler::body, h_body);
    push(h);
    TPF_PROGRESS(*this, last);
  }
  ast::ListId handlers = finish_list(mk);
  ast::ListId orelse = handlers ? else_block() : 0;
  ast::ListId finalbody = 0;
  bool has_finally = false;
  if (at(TokKind::Finally)) {
    uint32_t f_start = begin();
    advance();
    expect_forced_colon();
    finalbody = block("'finally' statement", f_start);
    has_finally = true;
  }
  if (!handlers && !has_finally && !failed()) fail_here("expected 'except' or 'finally' block");
  NodeId n = node(star_kind == 1 ? NodeKind::TryStar : NodeKind::Try, start);
  set(n, slot::Try::body, body);
  set(n, slot::Try::handlers, handlers);
  set(n, slot::Try::orelse, orelse);
  set(n, slot::Try::finalbody, finalbody);
  return n;
}

// decorators: ('@' named_expression NEWLINE)+   then class_def_raw | function_def_raw
NodeId Parser::decorated() {
  uint32_t mk = mark();
  uint32_t last = pos();
  while (eat(TokKind::At)) {
    uint32_t d_start = begin();
    NodeId d = named_expression();
    push(d);
    if (!at(TokKind::Newline)) {
      fail_after_expr(d, d_start);
      break;
    }
    advance();
    TPF_PROGRESS(*this, last);
  }
  ast::ListId decorators = finish_list(mk);
  if (at(TokKind::Def) || (at(TokKind::Async) && peek(1) == TokKind::Def))
    return function_def(decorators, begin());
  if (at(TokKind::Class)) return class_def(decorators);
  uint32_t here = begin();
  fail_syntax();
  return error_node(here);
}

// function_def_raw: [ASYNC] 'def' NAME [type_params] '(' [params] ')' ['->' expression] ':' block
NodeId Parser::function_def(ast::ListId decorators, uint32_t start) {
  bool is_async = eat(TokKind::Async);
  uint32_t kw = begin();
  advance();  // 'def'
  if (!at(TokKind::Name)) {
    fail_syntax();
    return error_node(start);
  }
  ast::Symbol name = name_symbol(tok());
  advance();
  ast::ListId tparams = at(TokKind::LSqb) ? type_params(TypeParamsOf::Def) : 0;
  if (!at(TokKind::LPar)) {
    if (at(TokKind::Colon) || at(TokKind::Newline))
      fail_here("expected '('");
    else
      fail_syntax();
    return error_node(start);
  }
  advance();
  ++bracket_level;
  NodeId args = parameters(false, TokKind::RPar);
  --bracket_level;
  expect(TokKind::RPar);
  NodeId returns = ast::kNoNode;
  uint32_t r_start = begin();
  if (eat(TokKind::Arrow)) returns = expression();
  expect_colon(returns, r_start);
  ast::ListId body = block("function definition", kw);
  NodeId n = node(is_async ? NodeKind::AsyncFunctionDef : NodeKind::FunctionDef, start);
  set(n, slot::FunctionDef::name, name);
  set(n, slot::FunctionDef::args, args);
  set(n, slot::FunctionDef::body, body);
  set(n, slot::FunctionDef::decorator_list, decorators);
  set(n, slot::FunctionDef::returns, returns);
  set(n, slot::FunctionDef::type_params, tparams);
  return n;
}

// class_def_raw: 'class' NAME [type_params] ['(' [arguments] ')'] ':' block
NodeId Parser::class_def(ast::ListId decorators) {
  uint32_t start = begin();
  advance();
  if (!at(TokKind::Name)) {
    fail_syntax();
    return error_node(start);
  }
  ast::Symbol name = name_symbol(tok());
  advance();
  ast::ListId tparams = at(TokKind::LSqb) ? type_params(TypeParamsOf::Class) : 0;
  ast::ListId bases = 0, keywords = 0;
  if (at(TokKind::LPar)) call_arguments(bases, keywords, true);
  expect_colon(ast::kNoNode, begin());
  ast::ListId body = block("class definition", start);
  NodeId n = node(NodeKind::ClassDef, start);
  set(n, slot::ClassDef::name, name);
  set(n, slot::ClassDef::bases, bases);
  set(n, slot::ClassDef::keywords, keywords);
  set(n, slot::ClassDef::body, body);
  set(n, slot::ClassDef::decorator_list, decorators);
  set(n, slot::ClassDef::type_params, tparams);
  return n;
}

// subject_expr: star_named_expression ',' star_named_expressions? | named_expression
NodeId Parser::subject_expr() {
  uint32_t start = begin();
  NodeId first = star_named_expression();
  if (!at(TokKind::Comma)) {
    if (module()[first].kind == NodeKind::Starred && !failed()) fail_syntax();
    return first;
  }
  uint32_t mk = mark();
  push(first);
  uint32_t last = pos();
  while (eat(TokKind::Comma)) {
    if (!starts_expression(kind())) break;
    push(star_named_expression());
    TPF_PROGRESS(*this, last);
  }
  NodeId t = node(NodeKind::Tuple, start);
  set(t, slot::Tuple::elts, finish_list(mk));
  module()[t].op = Op::Load;
  return t;
}

// `match` is a soft keyword: a statement is a match statement when
// "match" subject_expr ':' NEWLINE parses (tried silently, then rolled back).
// A subject followed by NEWLINE is CPython's invalid_match_stmt ("expected
// ':'") when the line is not a valid simple statement either.
bool Parser::looks_like_match() {
  Checkpoint cp = save();
  begin_speculation();
  advance();
  subject_expr();
  if (!failed() && !at(TokKind::Colon) && !at(TokKind::Newline) && pos() > furthest_)
    furthest_ = pos();
  bool ok = !failed() && at(TokKind::Colon) && peek(1) == TokKind::Newline;
  bool missing_colon = !failed() && at(TokKind::Newline);
  uint32_t newline_at = pos();
  restore(cp);
  if (missing_colon) {
    uint32_t mk = mark();
    simple_stmts();
    missing_colon = failed();
    restore(cp);
    scratch_resize(mk);
  }
  end_speculation();
  if (missing_colon) {
    const Token& nl = tok_at(newline_at);
    fail(Span{nl.begin, nl.end}, "expected ':'");
  }
  return ok;
}

// match_stmt: "match" subject_expr ':' NEWLINE INDENT case_block+ DEDENT
// case_block: "case" patterns guard? ':' block
NodeId Parser::match_stmt() {
  uint32_t start = begin();
  advance();
  NodeId subject = subject_expr();
  expect(TokKind::Colon);
  expect(TokKind::Newline);
  if (!at(TokKind::Indent)) {
    fail_here("expected an indented block after 'match' statement on line " +
              std::to_string(line_of(start)));
    return error_node(start);
  }
  advance();
  uint32_t mk = mark();
  uint32_t last = pos();
  while (!at(TokKind::Dedent) && !at(TokKind::EndOfFile)) {
    if (!at_name("case")) {
      fail_syntax();
      break;
    }
    uint32_t c_start = begin();
    advance();
    NodeId pattern = patterns();
    NodeId guard = ast::kNoNode;
    if (eat(TokKind::If)) guard = named_expression();
    expect_colon(ast::kNoNode, begin());
    ast::ListId body = block("'case' statement", c_start);
    NodeId c = node_span(NodeKind::match_case, Span{});
    set(c, slot::match_case::pattern, pattern);
    set(c, slot::match_case::guard, guard);
    set(c, slot::match_case::body, body);
    push(c);
    TPF_PROGRESS(*this, last);
  }
  eat(TokKind::Dedent);
  ast::ListId cases = finish_list(mk);
  NodeId n = node(NodeKind::Match, start);
  set(n, slot::Match::subject, subject);
  set(n, slot::Match::cases, cases);
  return n;
}

}  // namespace tpf::parser
