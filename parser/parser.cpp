// The parser's entry point and its shared machinery: cursor, first-error
// reporting, speculation, target contexts and the AST depth bound.
// requires: TokenStream ending in EndOfFile. produces: ast::Module.
#include "parser/parser.h"

#include <bit>
#include <cstdio>
#include <cstdlib>

#include "parser/literals.h"
#include "parser/parser_state.h"

namespace tpf::parser {

using ast::NodeKind;
using ast::Op;
namespace slot = ast::slot;

namespace {

// CPython builds Python objects from the AST with a recursion limit of
// 3 x sys.getrecursionlimit() (1000), minus the frames in use: measured on
// 3.11, `-` * 2985 + `1` (Module, Expr, 2985 UnaryOp, Constant: 2988 deep)
// still parses while one more does not. Deeper trees are rejected here too,
// which also bounds every recursive walk of the tree (dumpers, IR lowering).
constexpr uint32_t kMaxAstDepth = 2988;

// The parser itself recurses once per nesting level (unary operators,
// lambda bodies, conditional expressions, brackets); the tree bound above is
// only checked after parsing, so the recursion needs its own, equal bound.
constexpr int kMaxParseDepth = 3000;

}  // namespace

Parser::Parser(const SourceFile& src, const std::vector<Token>& toks, ast::Module& m,
               DiagSink& diags, PyVersion version)
    : src_(src), toks_(toks.data()), n_(static_cast<uint32_t>(toks.size())), m_(m), diags_(diags),
      version_(version) {
  if (n_ == 0 || toks_[n_ - 1].kind != TokKind::EndOfFile)
    internal_error("token stream without EndOfFile");
  scratch_.reserve(256);
  if (n_ >= 2 && toks_[n_ - 2].kind == TokKind::Error) {
    if (!(toks_[n_ - 2].flags & lexer::kErrDeferred)) lexer_error_wins_ = true;
    else deferred_lexer_error_ = diags_.diagnostics().size() - 1;  // the lexer's last word
  }
}

bool Parser::at_name(std::string_view word, uint32_t ahead) const {
  const Token& t = tok_at(pos_ + ahead);
  return t.kind == TokKind::Name && text(t) == word;
}

void Parser::expect(TokKind k, std::string_view msg) {
  if (eat(k)) return;
  if (msg.empty())
    fail_syntax();
  else
    fail_here(std::string(msg));
}

uint32_t Parser::cpython_lookahead(Lookahead how) {
  if (how == Lookahead::Here || bracket_level == 0) return pos_;
  uint32_t here = pos_, seen = pos_;
  if (how == Lookahead::Arguments && kind() == TokKind::Comma) seen = ++pos_;
  // The expression here and, for arguments, every one after it.
  while (pos_ + 2 < n_ && starts_expression(kind()) && kind() != TokKind::Error) {
    uint32_t end = 0;
    seen = expression_lookahead(end);
    if (end == 0 || how == Lookahead::Expression) break;
    while (pos_ < n_ - 1 && tok().end <= end) ++pos_;  // past it
    if (kind() != TokKind::Comma) break;
    seen = ++pos_;
  }
  pos_ = here;
  return seen;
}

void Parser::fail(Span at, std::string msg) {
  if (failed_) {
    lookahead_ = Lookahead::Here;
    return;
  }
  // Decided before failing: the look ahead parses speculatively.
  bool lexer_wins = false;
  if (deferred_lexer_error_ != SIZE_MAX && !speculating_ && msg != "invalid syntax") {
    // A second-pass message. CPython raises the tokenizer's "never closed"
    // the moment the parser fetches the end of the file, so that wins when
    // the parser has looked that far (`x = (1 2`, `f(a, x for x in y`);
    // otherwise the message stands, unless the bracket was opened on a line
    // above it (the tokenizer's check after a parser error: `x = (\n1 2 3`).
    uint32_t bracket = diags_.diagnostics()[deferred_lexer_error_].span.begin;
    lexer_wins = cpython_lookahead(lookahead_) + 2 >= n_ ||
                 src_.pos(at.begin).line > src_.pos(bracket).line;
  }
  lookahead_ = Lookahead::Here;
  failed_ = true;
  if (speculating_ && pos_ > furthest_) furthest_ = pos_;
  // CPython re-tokenizes the rest of the file after a generic syntax error
  // and reports a tokenizer error instead, when there is one.
  bool superseded = lexer_error_wins_ && msg == "invalid syntax";
  if (defer_generic && !speculating_ && !superseded && msg == "invalid syntax") {
    deferred_generic = true;
    pos_ = n_ - 1;
    return;
  }
  if (!speculating_ && !superseded) {
    if (in_fstring && msg.rfind("f-string", 0) != 0) msg = "f-string: " + msg;
    if (in_fstring && fstring_brace != UINT32_MAX) {
      LineCol bp = src_.pos(fstring_brace), ap = src_.pos(at.begin);
      if (ap.line == bp.line && ap.col >= bp.col) {
        at.begin = fstring_brace - bp.col + (ap.col - bp.col);
        at.end = at.begin;
      }
    }
    // An unclosed bracket (or a backslash) at the end of the file: CPython's
    // generic "invalid syntax" at a token before it wins (`def f(:`); its
    // second pass's own messages do not (`f(a b` is "'(' was never closed").
    if (deferred_lexer_error_ != SIZE_MAX && msg == "invalid syntax" &&
        at.begin < toks_[n_ - 2].begin) {
      diags_.withdraw(deferred_lexer_error_);
      deferred_lexer_error_ = SIZE_MAX;
    } else if (deferred_lexer_error_ != SIZE_MAX && msg != "invalid syntax") {
      if (lexer_wins) {
        pos_ = n_ - 1;  // the lexer's error stands alone
        return;
      }
      diags_.withdraw(deferred_lexer_error_);
      deferred_lexer_error_ = SIZE_MAX;
    }
    diags_.error("SyntaxError", at, std::move(msg));
  }
  pos_ = n_ - 1;  // every loop now sees EndOfFile
}

void Parser::fail_syntax() {
  // The lexer already explained an Error token (and EndOfFile inside open
  // brackets); a second "invalid syntax" at the same place adds nothing.
  if ((at(TokKind::Error) || at(TokKind::EndOfFile)) && diags_.has_errors() && !speculating_) {
    failed_ = true;
    pos_ = n_ - 1;
    return;
  }
  // `a not b`: the parser read 'not' hoping for 'not in', so CPython's
  // furthest token is the one after it.
  uint32_t where = pos_;
  if (at(TokKind::Not) && peek(1) != TokKind::In) ++where;
  if (furthest_ > where && !speculating_) where = furthest_;
  fail(Span{tok_at(where).begin, tok_at(where).end}, "invalid syntax");
}

void Parser::internal_error(const char* what) const {
  std::fprintf(stderr,
               "tpf-analyze: internal error in the parser (%s) at offset %u of %s; "
               "please report this with the input file\n",
               what, pos_ < n_ ? toks_[pos_].begin : 0, src_.path.c_str());
  std::abort();
}

Parser::Checkpoint Parser::save() const {
  return Checkpoint{pos_,
                    static_cast<uint32_t>(m_.nodes.size()),
                    static_cast<uint32_t>(m_.lists.size()),
                    static_cast<uint32_t>(m_.list_items.size()),
                    static_cast<uint32_t>(m_.constants.size()),
                    static_cast<uint32_t>(scratch_.size()),
                    bracket_level,
                    depth_,
                    failed_};
}

void Parser::restore(const Checkpoint& c) {
  pos_ = c.pos;
  m_.nodes.resize(c.nodes);
  m_.lists.resize(c.lists);
  m_.list_items.resize(c.items);
  m_.constants.resize(c.consts);
  scratch_.resize(c.scratch);
  bracket_level = c.bracket_level;
  depth_ = c.depth;
  failed_ = c.failed;
}

ast::ListId Parser::finish_list(uint32_t mark) {
  uint32_t count = mark_count(mark);
  ast::ListId id = 0;
  if (count > 0) id = m_.add_list(std::span<const uint32_t>(scratch_.data() + mark, count));
  // Only ever shrinks: erase at the end, not resize()'s growing path.
  scratch_.erase(scratch_.begin() + mark, scratch_.end());
  return id;
}

void Parser::grow_scratch() { scratch_.reserve(scratch_.capacity() * 2 + 64); }

ast::Symbol Parser::name_symbol(const Token& t) {
  // A NAME token always lies inside the text: no substr() bounds check.
  const std::string_view name(source().text.data() + t.begin, t.end - t.begin);
  if (t.flags & lexer::kNameNonAscii) return m_.intern(nfkc_identifier(name));
  return m_.intern(name);
}

NodeId Parser::error_node(uint32_t start) {
  return m_.add(NodeKind::Error, Span{start, start > prev_end() ? start : prev_end()});
}

Parser::DepthGuard::DepthGuard(Parser& parser) : p(parser) {
  if (++p.depth_ > kMaxParseDepth) p.fail_here("too many nested expressions");
}

Parser::TokenWindow Parser::swap_tokens(const Token* toks, uint32_t n) {
  TokenWindow old{toks_, n_, pos_};
  toks_ = toks;
  n_ = n;
  pos_ = 0;
  return old;
}

void Parser::restore_tokens(const TokenWindow& w) {
  toks_ = w.toks;
  n_ = w.n;
  pos_ = failed_ ? w.n - 1 : w.pos;
}

// ---- targets ----

// CPython's _PyPegen_get_expr_name: how a message names an expression.
std::string_view Parser::expr_name(NodeId e) const {
  const ast::Node& n = m_[e];
  switch (n.kind) {
    case NodeKind::Attribute:
      return "attribute";
    case NodeKind::Subscript:
      return "subscript";
    case NodeKind::Starred:
      return "starred";
    case NodeKind::Name:
      return "name";
    case NodeKind::List:
      return "list";
    case NodeKind::Tuple:
      return "tuple";
    case NodeKind::Lambda:
      return "lambda";
    case NodeKind::Call:
      return "function call";
    case NodeKind::BoolOp:
    case NodeKind::BinOp:
    case NodeKind::UnaryOp:
      return "expression";
    case NodeKind::GeneratorExp:
      return "generator expression";
    case NodeKind::Yield:
    case NodeKind::YieldFrom:
      return "yield expression";
    case NodeKind::Await:
      return "await expression";
    case NodeKind::ListComp:
      return "list comprehension";
    case NodeKind::SetComp:
      return "set comprehension";
    case NodeKind::DictComp:
      return "dict comprehension";
    case NodeKind::Dict:
      return "dict literal";
    case NodeKind::Set:
      return "set display";
    case NodeKind::JoinedStr:
    case NodeKind::FormattedValue:
      return "f-string expression";
    case NodeKind::Constant: {
      const ast::Constant& c = m_.constants[n.f[slot::Constant::value]];
      switch (c.kind) {
        case ast::Constant::Kind::None_:
          return "None";
        case ast::Constant::Kind::True_:
          return "True";
        case ast::Constant::Kind::False_:
          return "False";
        case ast::Constant::Kind::Ellipsis:
          return "ellipsis";
        default:
          return "literal";
      }
    }
    case NodeKind::Compare:
      return "comparison";
    case NodeKind::IfExp:
      return "conditional expression";
    case NodeKind::NamedExpr:
      return "named expression";
    default:
      return "expression";
  }
}

void Parser::set_target(NodeId e, TargetUse use) {
  if (failed_) return;
  ast::Node& n = m_[e];
  const Op ctx = use == TargetUse::Del ? Op::Del : Op::Store;
  switch (n.kind) {
    case NodeKind::Name:
    case NodeKind::Attribute:
    case NodeKind::Subscript:
      n.op = ctx;
      return;
    case NodeKind::Starred:
      if (use == TargetUse::Del) return fail(n.span, "cannot delete starred");
      if (use == TargetUse::Aug) break;
      if (n.flags & ast::kParenthesized) return fail(n.span, "cannot use starred expression here");
      n.op = ctx;
      set_target(NodeId{n.f[slot::Starred::value]}, use);
      return;
    case NodeKind::Tuple:
    case NodeKind::List: {
      if (use == TargetUse::Aug) break;
      m_[e].op = ctx;
      ast::ListId l = n.f[slot::Tuple::elts];
      for (NodeId c : m_.nodes_of(l)) set_target(c, use);
      return;
    }
    case NodeKind::Error:
      return;
    default:
      break;
  }
  std::string msg;
  if (use == TargetUse::Aug) {
    msg = "'" + std::string(expr_name(e)) + "' is an illegal expression for augmented assignment";
  } else {
    msg = use == TargetUse::Del ? "cannot delete " : "cannot assign to ";
    msg += expr_name(e);
  }
  fail(m_[e].span, std::move(msg));
}

// ---- the tree depth bound ----

namespace {

// Per node kind, bit s is set when slot s holds a child: a NodeId (Node,
// OptNode) or a list of them (List, NewList). The same slots, in the same
// order, as Module::for_each_child, without a switch and a callback per node.
#define TPF_CHILD_Node(s) | (1u << (s))
#define TPF_CHILD_OptNode(s) | (1u << (s))
#define TPF_CHILD_New313(s) | (1u << (s))
#define TPF_CHILD_List(s)
#define TPF_CHILD_NewList(s)
#define TPF_CHILD_Ident(s)
#define TPF_CHILD_OptIdent(s)
#define TPF_CHILD_IdentList(s)
#define TPF_CHILD_Const(s)
#define TPF_CHILD_OptStr(s)
#define TPF_CHILD_Int(s)
#define TPF_CHILD_OpField(s)
#define TPF_CHILD_OpList(s)
#define F(name, type, s) TPF_CHILD_##type(s)
#define TPF_NODE(kind, cat, pos, fields) static_cast<uint8_t>(0 fields),
constexpr uint8_t kNodeSlots[] = {
#include "parser/ast.def"
};
#undef TPF_NODE
#undef TPF_CHILD_Node
#undef TPF_CHILD_OptNode
#undef TPF_CHILD_New313
#undef TPF_CHILD_List
#undef TPF_CHILD_NewList
#define TPF_CHILD_Node(s)
#define TPF_CHILD_OptNode(s)
#define TPF_CHILD_New313(s)
#define TPF_CHILD_List(s) | (1u << (s))
#define TPF_CHILD_NewList(s) | (1u << (s))
#define TPF_NODE(kind, cat, pos, fields) static_cast<uint8_t>(0 fields),
constexpr uint8_t kListSlots[] = {
#include "parser/ast.def"
};
#undef TPF_NODE
#undef F
#undef TPF_CHILD_Node
#undef TPF_CHILD_OptNode
#undef TPF_CHILD_New313
#undef TPF_CHILD_List
#undef TPF_CHILD_NewList
#undef TPF_CHILD_Ident
#undef TPF_CHILD_OptIdent
#undef TPF_CHILD_IdentList
#undef TPF_CHILD_Const
#undef TPF_CHILD_OptStr
#undef TPF_CHILD_Int
#undef TPF_CHILD_OpField
#undef TPF_CHILD_OpList

/// Depth of the deepest node, children counted before parents: the parser
/// creates every node after its children, so one forward pass suffices (a
/// child with a larger id, or none, is not counted).
uint32_t max_depth(const ast::Module& m) {
  const uint32_t n = static_cast<uint32_t>(m.nodes.size());
  std::vector<uint32_t> depth(n);
  uint32_t deepest = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const ast::Node& node = m.nodes[i];
    const auto k = static_cast<size_t>(node.kind);
    uint32_t below = 0;  // depth of the deepest counted child
    for (uint32_t bits = kNodeSlots[k]; bits != 0; bits &= bits - 1) {
      const uint32_t c = node.f[std::countr_zero(bits)];
      if (c < i && depth[c] > below) below = depth[c];  // kNoNode is never < i
    }
    for (uint32_t bits = kListSlots[k]; bits != 0; bits &= bits - 1) {
      for (uint32_t c : m.list(node.f[std::countr_zero(bits)]))
        if (c < i && depth[c] > below) below = depth[c];
    }
    depth[i] = below + 1;
    if (below + 1 > deepest) deepest = below + 1;
  }
  return deepest;
}

}  // namespace

ast::Module parse(const SourceFile& src, const lexer::TokenStream& toks, DiagSink& diags,
                  PyVersion version) {
  ast::Module m;
  m.version = version;
  // About one node per token; reserving avoids regrowth on the hot path.
  m.nodes.reserve(toks.tokens.size() + 16);
  m.list_items.reserve(toks.tokens.size() / 2 + 16);
  // Measured on the torch tree, per token: 0.24 lists, 1/18 symbols, 1/27
  // constants. Growing the last two moved every std::string in them.
  m.lists.reserve(toks.tokens.size() / 4 + 16);
  m.symbols.reserve(toks.tokens.size() / 16 + 16);
  m.constants.reserve(toks.tokens.size() / 16 + 16);
  Parser p(src, toks.tokens, m, diags, version);
  p.parse_file();
  // A chain of nodes with decreasing ids is at most as long as the file
  // has nodes, so most files need no walk at all.
  if (!p.failed() && m.nodes.size() > kMaxAstDepth && max_depth(m) > kMaxAstDepth) {
    diags.error("SyntaxError", Span{0, 0}, "too many nested expressions");
  }
  return m;
}

}  // namespace tpf::parser
