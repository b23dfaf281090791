// Statements: simple statements, assignments, imports and every compound
// statement of CPython 3.11's python.gram (plus 3.12 `type` and type params).
// requires: Parser cursor (parser_state.h). produces: statement nodes, Module.
#include <string>

#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

// file: [statements] ENDMARKER
void Parser::parse_file() {
  uint32_t mk = mark();
  uint32_t last = pos();
  while (!at(TokKind::EndOfFile)) {
    statement();
    TPF_PROGRESS(*this, last);
  }
  NodeId root = node_span(NodeKind::Module, Span{0, static_cast<uint32_t>(source().text.size())});
  set(root, slot::Module::body, finish_list(mk));
  module().root = root;
}

// statement: compound_stmt | simple_stmts   (pushes onto the scratch stack)
void Parser::statement() {
  reset_furthest();
  switch (kind()) {
    case TokKind::If:
      push(if_stmt());
      return;
    case TokKind::While:
      push(while_stmt());
      return;
    case TokKind::For:
      push(for_stmt(begin(), false));
      return;
    case TokKind::Try:
      push(try_stmt());
      return;
    case TokKind::With:
      push(with_stmt(begin(), false));
      return;
    case TokKind::Def:
      push(function_def(0, begin()));
      return;
    case TokKind::Class:
      push(class_def(0));
      return;
    case TokKind::At:
      push(decorated());
      return;
    case TokKind::Async: {
      uint32_t start = begin();
      TokKind next = peek(1);
      if (next == TokKind::Def) return push(function_def(0, start));
      if (next == TokKind::For) {
        advance();
        return push(for_stmt(start, true));
      }
      if (next == TokKind::With) {
        advance();
        return push(with_stmt(start, true));
      }
      break;
    }
    case TokKind::Indent: {
      // CPython points one column before the indented line's first token.
      uint32_t at_tok = tok_at(pos() + 1).begin;
      return fail(Span{at_tok > 0 ? at_tok - 1 : 0, at_tok}, "unexpected indent");
    }
    case TokKind::Dedent:
      return fail_here("unindent does not match any outer indentation level");
    case TokKind::Name:
      if (py(10) && at_name("match") && starts_expression(peek(1)) && looks_like_match()) {
        push(match_stmt());
        return;
      }
      break;
    default:
      break;
  }
  simple_stmts();
}

// simple_stmts: simple_stmt !';' NEWLINE | ';'.simple_stmt+ [';'] NEWLINE
void Parser::simple_stmts() {
  uint32_t last = pos();
  for (;;) {
    uint32_t start = begin();
    NodeId s = simple_stmt();
    push(s);
    if (failed()) return;
    if (eat(TokKind::Semi)) {
      if (at(TokKind::Newline) || at(TokKind::EndOfFile)) break;
      TPF_PROGRESS(*this, last);
      continue;
    }
    if (!at(TokKind::Newline) && !at(TokKind::EndOfFile)) {
      const ast::Node& n = module()[s];
      NodeId value = n.kind == NodeKind::Expr ? NodeId{n.f[slot::Expr::value]} : ast::kNoNode;
      fail_after_expr(value, start);
      return;
    }
    break;
  }
  eat(TokKind::Newline);
}

NodeId Parser::simple_stmt() {
  uint32_t start = begin();
  switch (kind()) {
    case TokKind::Pass:
      advance();
      return node(NodeKind::Pass, start);
    case TokKind::Break:
      advance();
      return node(NodeKind::Break, start);
    case TokKind::Continue:
      advance();
      return node(NodeKind::Continue, start);
    case TokKind::Return: {
      advance();
      NodeId v = starts_expression(kind()) ? star_expressions() : ast::kNoNode;
      NodeId n = node(NodeKind::Return, start);
      set(n, slot::Return::value, v);
      return n;
    }
    case TokKind::Raise: {
      advance();
      NodeId exc = ast::kNoNode, cause = ast::kNoNode;
      if (starts_expression(kind())) {
        exc = expression();
        if (eat(TokKind::From)) cause = expression();
      }
      NodeId n = node(NodeKind::Raise, start);
      set(n, slot::Raise::exc, exc);
      set(n, slot::Raise::cause, cause);
      return n;
    }
    case TokKind::Global:
    case TokKind::Nonlocal: {
      bool global = at(TokKind::Global);
      advance();
      uint32_t mk = mark();
      uint32_t last = pos();
      do {
        if (!at(TokKind::Name)) {
          fail_syntax();
          break;
        }
        push_raw(name_symbol(tok()));
        advance();
        TPF_PROGRESS(*this, last);
      } while (eat(TokKind::Comma));
      NodeId n = node(global ? NodeKind::Global : NodeKind::Nonlocal, start);
      set(n, slot::Global::names, finish_list(mk));
      return n;
    }
    case TokKind::Del:
      return del_stmt();
    case TokKind::Assert: {
      advance();
      NodeId test = expression();
      NodeId msg = eat(TokKind::Comma) ? expression() : ast::kNoNode;
      NodeId n = node(NodeKind::Assert, start);
      set(n, slot::Assert::test, test);
      set(n, slot::Assert::msg, msg);
      return n;
    }
    case TokKind::Import:
      return import_stmt();
    case TokKind::From:
      return import_from();
    case TokKind::Name:
      // 3.12 type alias: "type" NAME [type_params] '=' expression
      if (py(12) && at_name("type") && peek(1) == TokKind::Name &&
          (peek(2) == TokKind::Equal || peek(2) == TokKind::LSqb))
        return type_alias();
      break;
    default:
      break;
  }
  return expression_stmt();
}

// The invalid target of an assignment (CPython's _PyPegen_get_invalid_target).
NodeId Parser::invalid_target(NodeId e) const {
  const ast::Node& n = module_c()[e];
  switch (n.kind) {
    case NodeKind::Name:
    case NodeKind::Attribute:
    case NodeKind::Subscript:
      return ast::kNoNode;
    case NodeKind::Starred:
      return invalid_target(NodeId{n.f[slot::Starred::value]});
    case NodeKind::Tuple:
    case NodeKind::List:
      for (NodeId c : module_c().nodes_of(n.f[slot::Tuple::elts])) {
        NodeId bad = invalid_target(c);
        if (bad.valid()) return bad;
      }
      return ast::kNoNode;
    default:
      return e;
  }
}

// assignment:
//     | NAME ':' expression ['=' annotated_rhs]
//     | ('(' single_target ')' | single_subscript_attribute_target) ':' expression ['='
//     annotated_rhs] | (star_targets '=')+ (yield_expr | star_expressions) !'=' | single_target
//     augassign ~ (yield_expr | star_expressions)
// star_expressions (as an expression statement)
NodeId Parser::expression_stmt() {
  uint32_t start = begin();
  NodeId first = at(TokKind::Yield) ? yield_expr() : star_expressions();
  if (failed()) return first;
  auto rhs = [&]() { return at(TokKind::Yield) ? yield_expr() : star_expressions(); };
  if (at(TokKind::Colon)) {
    const ast::Node& t = module()[first];
    bool paren = t.flags & ast::kParenthesized;
    uint32_t simple = 0;
    if (t.kind == NodeKind::Name) {
      simple = paren ? 0 : 1;
    } else if (t.kind == NodeKind::Tuple || t.kind == NodeKind::List) {
      fail(t.span,
           "only single target (not " + std::string(expr_name(first)) + ") can be annotated");
      return first;
    } else if (t.kind != NodeKind::Attribute && t.kind != NodeKind::Subscript) {
      fail(t.span, "illegal target for annotation");
      return first;
    }
    set_target(first, TargetUse::Assign);
    advance();
    NodeId annotation = expression();
    NodeId value = ast::kNoNode;
    if (eat(TokKind::Equal)) value = rhs();
    NodeId n = node(NodeKind::AnnAssign, start);
    set(n, slot::AnnAssign::target, first);
    set(n, slot::AnnAssign::annotation, annotation);
    set(n, slot::AnnAssign::value, value);
    set(n, slot::AnnAssign::simple, simple);
    return n;
  }
  if (lexer::is_aug_assign(kind())) {
    static constexpr Op kAugOps[] = {Op::Add,    Op::Sub,      Op::Mult,  Op::MatMult, Op::Div,
                                     Op::Mod,    Op::BitAnd,   Op::BitOr, Op::BitXor,  Op::LShift,
                                     Op::RShift, Op::FloorDiv, Op::Pow};
    Op op = kAugOps[static_cast<int>(kind()) - static_cast<int>(lexer::kAugFirst)];
    NodeKind k = module()[first].kind;
    if (k != NodeKind::Name && k != NodeKind::Attribute && k != NodeKind::Subscript) {
      set_target(first, TargetUse::Aug);
      return first;
    }
    set_target(first, TargetUse::Aug);
    advance();
    NodeId value = rhs();
    NodeId n = node(NodeKind::AugAssign, start);
    set(n, slot::AugAssign::target, first);
    module()[n].op = op;
    set(n, slot::AugAssign::value, value);
    return n;
  }
  if (!at(TokKind::Equal)) {
    NodeId n = node(NodeKind::Expr, start);
    set(n, slot::Expr::value, first);
    return n;
  }
  uint32_t mk = mark();
  push(first);
  uint32_t last = pos();
  while (eat(TokKind::Equal)) {
    push(rhs());
    TPF_PROGRESS(*this, last);
  }
  uint32_t count = scratch_count(mk);
  for (uint32_t i = 0; i + 1 < count && !failed(); ++i) {
    NodeId t{scratch_at(mk + i)};
    const ast::Node& tn = module()[t];
    if ((tn.kind == NodeKind::Yield || tn.kind == NodeKind::YieldFrom) &&
        !(tn.flags & ast::kParenthesized)) {
      fail(tn.span, "assignment to yield expression not possible");
      break;
    }
    NodeId bad = invalid_target(t);
    if (bad.valid() && count == 2) {
      // invalid_named_expression's hint for `f() = 1` (one '=', the bad
      // target last in the first target, a plain value after '=').
      const ast::Node& b = module()[bad];
      bool last_elt = bad == t;
      if (!last_elt && tn.kind == NodeKind::Tuple && !(tn.flags & ast::kParenthesized)) {
        auto elts = module().nodes_of(tn.f[slot::Tuple::elts]);
        last_elt = !elts.empty() && elts.back() == bad;
      }
      std::string_view name = expr_name(bad);
      bool excluded = b.kind == NodeKind::List || b.kind == NodeKind::Tuple ||
                      b.kind == NodeKind::GeneratorExp || b.kind == NodeKind::Starred ||
                      name == "True" || name == "False" || name == "None";
      bool bitwise_level =
          (b.flags & ast::kParenthesized) ||
          !(b.kind == NodeKind::BoolOp || b.kind == NodeKind::Compare ||
            b.kind == NodeKind::IfExp || b.kind == NodeKind::Lambda ||
            b.kind == NodeKind::NamedExpr || (b.kind == NodeKind::UnaryOp && b.op == Op::Not));
      NodeKind vk = module()[NodeId{scratch_at(mk + 1)}].kind;
      bool plain_value = vk != NodeKind::Yield && vk != NodeKind::YieldFrom &&
                         vk != NodeKind::Lambda && vk != NodeKind::Starred;
      if (last_elt && !excluded && bitwise_level && plain_value) {
        fail(b.span, "cannot assign to " + std::string(name) +
                         " here. Maybe you meant '==' instead of '='?");
        break;
      }
    }
    set_target(t, TargetUse::Assign);
  }
  NodeId value{scratch_at(mark() - 1)};
  ast::ListId targets = 0;
  {
    uint32_t mk2 = mark();
    for (uint32_t i = 0; i + 1 < count; ++i) push_raw(scratch_at(mk + i));
    targets = finish_list(mk2);
  }
  finish_list(mk);
  NodeId n = node(NodeKind::Assign, start);
  set(n, slot::Assign::targets, targets);
  set(n, slot::Assign::value, value);
  return n;
}

// del_stmt: 'del' del_targets &(';' | NEWLINE)
NodeId Parser::del_stmt() {
  uint32_t start = begin();
  advance();
  uint32_t mk = mark();
  uint32_t last = pos();
  do {
    if (!starts_expression(kind())) {
      fail_syntax();
      break;
    }
    NodeId t = star_target_item();
    set_target(t, TargetUse::Del);
    push(t);
    TPF_PROGRESS(*this, last);
  } while (eat(TokKind::Comma) && starts_expression(kind()));
  NodeId n = node(NodeKind::Delete, start);
  set(n, slot::Delete::targets, finish_list(mk));
  return n;
}

// dotted_name: dotted_name '.' NAME | NAME   (one identifier "a.b.c")
ast::Symbol Parser::dotted_name() {
  std::string joined;
  uint32_t last = pos();
  for (;;) {
    if (!at(TokKind::Name)) {
      fail_syntax();
      return ast::kNoSymbol;
    }
    ast::Symbol part = name_symbol(tok());
    if (!joined.empty()) joined += '.';
    joined += module().name(part);
    advance();
    if (!at(TokKind::Dot) || peek(1) != TokKind::Name) break;
    advance();
    TPF_PROGRESS(*this, last);
  }
  return module().intern(joined);
}

// import_name: 'import' dotted_as_names
// dotted_as_name: dotted_name ['as' NAME]
NodeId Parser::import_stmt() {
  uint32_t start = begin();
  advance();
  uint32_t mk = mark();
  uint32_t last = pos();
  do {
    uint32_t a_start = begin();
    ast::Symbol name = dotted_name();
    ast::Symbol asname = ast::kNoSymbol;
    if (eat(TokKind::As)) {
      if (!at(TokKind::Name)) {
        fail_syntax();
        break;
      }
      asname = name_symbol(tok());
      advance();
    }
    NodeId a = node(NodeKind::alias, a_start);
    set(a, slot::alias::name, name);
    set(a, slot::alias::asname, asname);
    push(a);
    TPF_PROGRESS(*this, last);
  } while (eat(TokKind::Comma));
  NodeId n = node(NodeKind::Import, start);
  set(n, slot::Import::names, finish_list(mk));
  return n;
}

// import_from: 'from' ('.' | '...')* dotted_name 'import' import_from_targets
//            | 'from' ('.' | '...')+ 'import' import_from_targets
// import_from_targets: '(' import_from_as_names [','] ')' | import_from_as_names !',' | '*'
NodeId Parser::import_from() {
  uint32_t start = begin();
  advance();
  uint32_t level = 0;
  while (at(TokKind::Dot) || at(TokKind::Ellipsis)) {
    level += at(TokKind::Dot) ? 1 : 3;
    advance();
  }
  ast::Symbol module_name = ast::kNoSymbol;
  if (!at(TokKind::Import) || level == 0) module_name = dotted_name();
  expect(TokKind::Import);
  uint32_t mk = mark();
  if (at(TokKind::Star)) {
    NodeId a = node_span(NodeKind::alias, Span{tok().begin, tok().end});
    set(a, slot::alias::name, module().intern("*"));
    set(a, slot::alias::asname, ast::kNoSymbol);
    advance();
    push(a);
  } else {
    bool paren = eat(TokKind::LPar);
    uint32_t last = pos();
    for (;;) {
      uint32_t a_start = begin();
      if (!at(TokKind::Name)) {
        fail_syntax();
        break;
      }
      ast::Symbol name = name_symbol(tok());
      advance();
      ast::Symbol asname = ast::kNoSymbol;
      if (eat(TokKind::As)) {
        if (!at(TokKind::Name)) {
          fail_syntax();
          break;
        }
        asname = name_symbol(tok());
        advance();
      }
      NodeId a = node(NodeKind::alias, a_start);
      set(a, slot::alias::name, name);
      set(a, slot::alias::asname, asname);
      push(a);
      if (!eat(TokKind::Comma)) break;
      if (paren && at(TokKind::RPar)) break;
      if (!paren && (at(TokKind::Newline) || at(TokKind::Semi) || at(TokKind::EndOfFile))) {
        fail_here("trailing comma not allowed without surrounding parentheses");
        break;
      }
      TPF_PROGRESS(*this, last);
    }
    if (paren) expect(TokKind::RPar);
  }
  NodeId n = node(NodeKind::ImportFrom, start);
  set(n, slot::ImportFrom::module, module_name);
  set(n, slot::ImportFrom::names, finish_list(mk));
  set(n, slot::ImportFrom::level, level);
  return n;
}

// type_alias (3.12): "type" NAME [type_params] '=' expression
NodeId Parser::type_alias() {
  uint32_t start = begin();
  advance();
  NodeId name = name_node();
  module()[name].op = Op::Store;
  ast::ListId params = at(TokKind::LSqb) ? type_params(TypeParamsOf::Alias) : 0;
  expect(TokKind::Equal);
  NodeId value = expression();
  NodeId n = node(NodeKind::TypeAlias, start);
  set(n, slot::TypeAlias::name, name);
  set(n, slot::TypeAlias::type_params, params);
  set(n, slot::TypeAlias::value, value);
  return n;
}

// type_params (3.12): '[' ','.type_param+ [','] ']'
// type_param: NAME [':' expression] ['=' expression]
//           | '*' NAME ['=' star_expression] | '**' NAME ['=' expression]
// (defaults from 3.13, PEP 696). Before 3.12 a def or class has none: the
// error is the one that version gives at the '['.
ast::ListId Parser::type_params(TypeParamsOf of) {
  const uint32_t lsqb = begin();
  if (!py(12)) {
    if (of == TypeParamsOf::Def && py(11))
      fail_here("expected '('");
    else
      fail_syntax();
    return 0;
  }
  advance();  // '['
  uint32_t mk = mark();
  uint32_t last = pos();
  while (!at(TokKind::RSqb) && !failed()) {
    uint32_t start = begin();
    NodeKind k = NodeKind::TypeVar;
    if (eat(TokKind::Star))
      k = NodeKind::TypeVarTuple;
    else if (eat(TokKind::DoubleStar))
      k = NodeKind::ParamSpec;
    if (!at(TokKind::Name)) {
      fail_syntax();
      break;
    }
    ast::Symbol name = name_symbol(tok());
    advance();
    NodeId bound = ast::kNoNode;
    if (k == NodeKind::TypeVar && eat(TokKind::Colon)) bound = expression();
    NodeId default_value = ast::kNoNode;
    if (at(TokKind::Equal)) {
      if (!py(13)) {
        // 3.12 knows no defaults: each statement fails its own way.
        if (of == TypeParamsOf::Def) {
          fail(Span{lsqb, lsqb + 1}, "expected '('");
        } else if (of == TypeParamsOf::Alias) {
          fail(Span{start, start + 1}, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
        } else {
          fail_syntax();
        }
        break;
      }
      advance();
      default_value = k == NodeKind::TypeVarTuple ? star_expression() : expression();
    }
    NodeId p = node(k, start);
    set(p, slot::TypeVar::name, name);
    if (k == NodeKind::TypeVar) {
      set(p, slot::TypeVar::bound, bound);
      set(p, slot::TypeVar::default_value, default_value);
    } else {
      set(p, slot::ParamSpec::default_value, default_value);
    }
    push(p);
    if (!eat(TokKind::Comma)) break;
    TPF_PROGRESS(*this, last);
  }
  expect(TokKind::RSqb);
  return finish_list(mk);
}

}  // namespace tpf::parser
