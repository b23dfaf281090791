// Internal state of the recursive-descent parser, shared by parse_*.cpp.
// requires: a TokenStream ending in EndOfFile. produces: nodes in an ast::Module.
//
// Error model: the first syntax error is recorded (CPython reports one) and
// the cursor then jumps to the EndOfFile token, so every loop in the parser
// sees EndOfFile and unwinds without consuming anything more. Speculative
// parses (match subject, parenthesized with-items) record failures silently
// and are rolled back with restore().
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lexer/diag.h"
#include "lexer/lexer.h"
#include "parser/ast.h"

namespace tpf::parser {

using ast::NodeId;
using lexer::Token;
using lexer::TokKind;

/// Fails a parse when a loop did not consume a token (Ruff's ParserProgress).
#define TPF_PROGRESS(p, last)                                                    \
  do {                                                                           \
    if ((p).pos() == (last) && !(p).failed()) (p).internal_error("no progress"); \
    (last) = (p).pos();                                                          \
  } while (0)

/// A primary that a caller already parsed, starting at `start`: handed down
/// the precedence levels below disjunction, each continues after it exactly
/// as if it had descended to primary() itself (no token is consumed on the
/// way down, so every level's start is the primary's). Empty: parse it.
struct Parsed {
  NodeId node = ast::kNoNode;
  uint32_t start = 0;
};

/// Tokens that can begin an expression (used for optional values, trailing
/// commas, the "forgot a comma" hint and CPython's look ahead); parse_expr.cpp.
bool starts_expression(TokKind k);

/// Why a target is being converted (CPython's TARGETS_TYPE + augassign).
enum class TargetUse : uint8_t { Assign, For, Del, Aug, With, Comp };

class Parser {
 public:
  Parser(const SourceFile& src, const std::vector<Token>& toks, ast::Module& m, DiagSink& diags,
         PyVersion version);

  /// The grammar being parsed (3.8 ... 3.13).
  PyVersion version() const { return version_; }
  /// From this minor version on: 12 for PEP 695/701.
  bool py(int minor) const { return version_.at_least(minor); }

  // ---- entry points (parse_stmt.cpp) ----
  void parse_file();

  // ---- cursor ----
  uint32_t pos() const { return pos_; }
  const Token& tok() const { return toks_[pos_]; }
  const Token& tok_at(uint32_t i) const { return toks_[i < n_ ? i : n_ - 1]; }
  TokKind kind() const { return toks_[pos_].kind; }
  TokKind peek(uint32_t ahead) const { return tok_at(pos_ + ahead).kind; }
  bool at(TokKind k) const { return toks_[pos_].kind == k; }
  /// A NAME token spelled `word` (soft keywords: match, case, _, type).
  bool at_name(std::string_view word, uint32_t ahead = 0) const;
  std::string_view text(const Token& t) const { return src_.text.substr(t.begin, t.end - t.begin); }
  uint32_t begin() const { return toks_[pos_].begin; }
  /// End of the last consumed token that is not NEWLINE/INDENT/DEDENT (pegen's
  /// _PyPegen_get_last_nonnwhitespace_token): a compound statement ends with
  /// its last statement, not with the DEDENT that closed its block.
  uint32_t prev_end() const {
    uint32_t i = pos_;
    while (i > 0 && (toks_[i - 1].kind == TokKind::Newline ||
                     toks_[i - 1].kind == TokKind::Dedent || toks_[i - 1].kind == TokKind::Indent))
      --i;
    return i > 0 ? toks_[i - 1].end : toks_[0].begin;
  }
  void advance() {
    if (pos_ + 1 < n_) ++pos_;
  }
  bool eat(TokKind k) {
    if (!at(k)) return false;
    advance();
    return true;
  }
  /// Consumes `k` or fails with `msg` ("invalid syntax" when empty) at the current token.
  void expect(TokKind k, std::string_view msg = {});
  uint32_t line_of(uint32_t offset) const { return src_.pos(offset).line; }

  // ---- errors ----
  bool failed() const { return failed_; }
  /// Records a syntax error (first one wins) and jumps to EndOfFile.
  void fail(Span at, std::string msg);
  void fail_here(std::string msg) { fail(Span{begin(), tok().end}, std::move(msg)); }
  /// "invalid syntax" (or the lexer's own error) at the current token.
  void fail_syntax();
  [[noreturn]] void internal_error(const char* what) const;

  // ---- speculation ----
  struct Checkpoint {
    uint32_t pos, nodes, lists, items, consts, scratch;
    int bracket_level, depth;
    bool failed;
  };
  Checkpoint save() const;
  void restore(const Checkpoint& c);
  bool speculating() const { return speculating_ > 0; }
  void reset_furthest() { furthest_ = 0; }

  // ---- node building ----
  NodeId node(ast::NodeKind k, uint32_t start) { return m_.add(k, Span{start, prev_end()}); }
  NodeId node_span(ast::NodeKind k, Span s) { return m_.add(k, s); }
  ast::Node& operator[](NodeId id) { return m_[id]; }
  ast::Module& module() { return m_; }
  const SourceFile& source() const { return src_; }
  void set(NodeId n, int slot, uint32_t v) { m_[n].f[slot] = v; }
  void set(NodeId n, int slot, NodeId v) { m_[n].f[slot] = v.v; }
  /// Scratch stack for list items: push, then finish_list(mark).
  uint32_t mark() const { return static_cast<uint32_t>(scratch_.size()); }
  void push(NodeId id) { push_raw(id.v); }
  void push_raw(uint32_t v) {
    // Growth out of line, so push_back inlines without a reallocation path
    // (as ast::Module::add does).
    if (scratch_.size() == scratch_.capacity()) [[unlikely]] grow_scratch();
    if (scratch_.size() == scratch_.capacity()) __builtin_unreachable();
    scratch_.push_back(v);
  }
  ast::ListId finish_list(uint32_t mark);
  uint32_t scratch_count(uint32_t mark) const { return mark_count(mark); }
  uint32_t scratch_at(uint32_t i) const { return scratch_[i]; }
  void scratch_resize(uint32_t mark) { scratch_.resize(mark); }
  void grow_scratch();
  ast::Symbol name_symbol(const Token& t);  // NFKC for non-ASCII names
  NodeId error_node(uint32_t start);

  // ---- nesting bound ----
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser);
    ~DepthGuard() { --p.depth_; }
  };

  // ---- expressions (parse_expr.cpp) ----
  NodeId star_expressions();       // Tuple when there is a comma
  NodeId star_expression();        // '*' bitwise_or | expression
  NodeId star_named_expression();  // '*' bitwise_or | named_expression
  NodeId named_expression(bool eq_hint = true);
  NodeId expression();  // ternary / lambda
  NodeId conditional(uint32_t start, NodeId body);  // 'if' disjunction 'else' expression
  NodeId disjunction();
  NodeId bool_chain(TokKind which, Parsed first = {});
  NodeId inversion(Parsed first = {});
  NodeId comparison(Parsed first = {});
  NodeId bitwise_or() { return binary(1); }
  NodeId binary(int min_prec, Parsed first = {});
  NodeId factor();
  NodeId power(Parsed first = {});
  NodeId primary();
  NodeId slices();
  NodeId slice_item();
  NodeId atom();
  /// NAME as a Name node (Load). Inline: it is a third of all atoms, and
  /// primary() calls it without going through atom()'s dispatch.
  NodeId name_node() {
    const Token& t = tok();
    NodeId n = node_span(ast::NodeKind::Name, Span{t.begin, t.end});
    set(n, ast::slot::Name::id, name_symbol(t));
    m_[n].op = ast::Op::Load;
    advance();
    return n;
  }
  NodeId keyword_constant(ast::Constant::Kind k);
  NodeId paren_atom();
  NodeId list_atom();
  NodeId brace_atom();
  void display_rest(TokKind close);
  NodeId yield_expr();
  NodeId lambdef();
  /// star_targets for `for`/comprehensions: items at bitwise_or level, then set_target.
  NodeId star_targets(TargetUse use);
  NodeId star_target_item();
  /// 'for' clauses after the element of a comprehension.
  ast::ListId comprehension_clauses();
  bool at_comprehension() const {
    return at(TokKind::For) || (at(TokKind::Async) && peek(1) == TokKind::For);
  }
  /// '(' [arguments] ')' after a callee (or class name): fills args/keywords;
  /// returns the GeneratorExp of `f(x for x in y)`, else kNoNode.
  NodeId call_arguments(ast::ListId& args, ast::ListId& keywords, bool for_class);
  /// Error after a complete expression where ',' or a closer was expected.
  void fail_after_expr(NodeId prev, uint32_t prev_start);
  /// Speculatively parses an expression here: returns the furthest token
  /// it looked at (the one after it when it parses), `end` its end offset
  /// (0 when it does not parse). Nothing of it stays.
  uint32_t expression_lookahead(uint32_t& end);
  /// How far CPython's parser has read when it raises the next message
  /// (fail() resets it to Here): the token here; the expression here and
  /// the token after it (invalid_expression's `a b`); or past a comma, every
  /// argument that follows (invalid_arguments' `args ',' args`). Reading
  /// the end of a file inside a bracket raises "never closed" first.
  enum class Lookahead { Here, Expression, Arguments };
  Lookahead lookahead_ = Lookahead::Here;
  /// The furthest token CPython has fetched, per `how`.
  uint32_t cpython_lookahead(Lookahead how);
  /// CPython's invalid_expression hint after `prev` at the cursor
  /// ("Perhaps you forgot a comma?", "Missing parentheses in call to
  /// 'print'"): true with its span and message, false when it has none.
  bool after_expr_hint(NodeId prev, uint32_t prev_start, Span& where, std::string& msg);
  void expect_after_expr(TokKind k, NodeId prev, uint32_t prev_start);

  // ---- targets (parser.cpp) ----
  /// Sets Store/Del context through a target; reports CPython's error otherwise.
  void set_target(NodeId e, TargetUse use);
  std::string_view expr_name(NodeId e) const;
  NodeId invalid_target(NodeId e) const;
  const ast::Module& module_c() const { return m_; }

  // ---- strings (parse_string.cpp) ----
  struct FState {
    std::string pending;  // literal text not yet turned into a Constant
    uint32_t mk = 0;      // scratch mark of the JoinedStr's values
  };
  NodeId strings();
  NodeId number();
  bool decode_piece(uint32_t b, uint32_t e, bool raw, bool bytes, bool lone_backslash_ok,
                    std::string& out, Span err_at);
  void flush_pending(FState& st, Span span, ast::Symbol kind);
  void fstring_body(FState& st, const Token& t, uint32_t& p, uint32_t end, bool raw, int level,
                    Span whole, ast::Symbol kind);
  NodeId fstring_field(FState& st, const Token& t, uint32_t& p, uint32_t end, bool raw, int level,
                       Span whole, ast::Symbol kind);
  NodeId fstring_expression(const Token& t, uint32_t brace, uint32_t b, uint32_t e, Span err_at);
  /// The f-string concatenation of tokens [first, last] by 3.12 rules (parse_fstring.cpp).
  NodeId joined_str_pep701(uint32_t first, uint32_t last, Span whole);

  // ---- arguments (parse_args.cpp) ----
  NodeId parameters(bool lambda, TokKind close);
  NodeId param(bool lambda, bool star);

  // ---- patterns (parse_pattern.cpp) ----
  NodeId patterns();
  NodeId maybe_star_pattern();
  NodeId pattern();
  NodeId or_pattern();
  NodeId closed_pattern();
  NodeId number_pattern_value();
  NodeId name_or_attr();
  NodeId match_value(NodeId value);
  NodeId sequence_pattern();
  NodeId mapping_pattern();
  NodeId class_pattern(NodeId cls, uint32_t start);

  // ---- statements (parse_stmt.cpp, parse_compound.cpp) ----
  void statement();
  void simple_stmts();
  NodeId simple_stmt();
  NodeId expression_stmt();
  NodeId del_stmt();
  ast::Symbol dotted_name();
  NodeId import_stmt();
  NodeId import_from();
  NodeId type_alias();
  enum class TypeParamsOf : uint8_t { Def, Class, Alias };
  ast::ListId type_params(TypeParamsOf of);
  ast::ListId block(std::string_view what, uint32_t keyword_begin);
  void expect_colon(NodeId prev, uint32_t prev_start);
  void expect_forced_colon();
  ast::ListId else_block();
  NodeId if_stmt();
  NodeId while_stmt();
  NodeId for_stmt(uint32_t start, bool is_async);
  NodeId with_item();
  NodeId with_stmt(uint32_t start, bool is_async);
  NodeId try_stmt();
  NodeId decorated();
  NodeId function_def(ast::ListId decorators, uint32_t start);
  NodeId class_def(ast::ListId decorators);
  NodeId subject_expr();
  bool looks_like_match();
  NodeId match_stmt();

  /// Nesting of (), [], {} at the cursor: CPython's tokenizer `level`, used
  /// for "Perhaps you forgot a comma?".
  int bracket_level = 0;
  /// Inside an f-string replacement field: errors get the "f-string: " prefix.
  bool in_fstring = false;
  /// The '{' of the field being parsed: 3.11 reports errors inside a field at
  /// columns relative to it (pegen_errors.c subtracts starting_col_offset).
  uint32_t fstring_brace = UINT32_MAX;
  /// While set, a plain "invalid syntax" is not reported but only sets
  /// deferred_generic (3.12 f-string fields report it their own way).
  bool defer_generic = false;
  bool deferred_generic = false;

 private:
  uint32_t mark_count(uint32_t mark) const { return static_cast<uint32_t>(scratch_.size()) - mark; }

  const SourceFile& src_;
  const Token* toks_;
  uint32_t n_;
  uint32_t pos_ = 0;
  ast::Module& m_;
  DiagSink& diags_;
  PyVersion version_;
  std::vector<uint32_t> scratch_;
  int depth_ = 0;
  int speculating_ = 0;
  bool failed_ = false;
  // The lexer stopped at an error CPython raises even over an earlier
  // generic parser error (an Error token without kErrDeferred).
  bool lexer_error_wins_ = false;
  // The diagnostic of a deferred Error token (an unclosed bracket at EOF),
  // withdrawn when the parser fails before reaching it; SIZE_MAX: none.
  size_t deferred_lexer_error_ = SIZE_MAX;
  // Token index where the latest speculation of this statement failed: PEG
  // reports "invalid syntax" at the furthest token any alternative reached.
  uint32_t furthest_ = 0;

 public:
  /// Swaps in another token array (f-string fields); returns the old state.
  struct TokenWindow {
    const Token* toks;
    uint32_t n, pos;
  };
  TokenWindow swap_tokens(const Token* toks, uint32_t n);
  void restore_tokens(const TokenWindow& w);
  void begin_speculation() { ++speculating_; }
  void end_speculation() { --speculating_; }
};

}  // namespace tpf::parser
