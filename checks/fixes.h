// Building blocks of the rules' autofixes (--fix / --diff): source edits
// located through the AST (the IR keeps one span per instruction, not the
// spans of its operands), each refusing (nullopt) when the source is not in
// a shape the edit is sure to be right for: a statement sharing its line, a
// line continued with a backslash, a file decoded from another encoding.
// requires: CheckContext (the AST with exact spans). produces: Edits only;
// tools/fix.cpp applies them and re-analyzes the result.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "checks/check.h"

namespace tpf::checks {

/// The node of `kind` whose span is exactly `span`, or kNoNode.
ast::NodeId node_at(const CheckContext& ctx, Span span, ast::NodeKind kind);
/// The innermost statement containing `span`, or kNoNode.
ast::NodeId statement_at(const CheckContext& ctx, Span span);

/// The expression can take a postfix (`.detach()`) or stand where a call
/// stood without parentheses: a name, attribute, subscript, call, constant,
/// or anything written in parentheses.
bool is_atomic(const CheckContext& ctx, ast::NodeId e);
/// The expression's source, parenthesized unless atomic.
std::string atom_text(const CheckContext& ctx, ast::NodeId e);

/// `e` becomes `e<suffix>` (`loss` -> `loss.detach()`, `a + b` ->
/// `(a + b).detach()`).
Edit append_to(const CheckContext& ctx, ast::NodeId e, std::string_view suffix);

/// A new line `code` right after the statement containing `span`, at the
/// statement's indentation. Refused when the statement does not have its
/// lines to itself (`if c: opt.step()`, `a(); b()`, a backslash
/// continuation) or its indentation mixes tabs into spaces.
std::optional<Edit> insert_line_after(const CheckContext& ctx, Span span, std::string_view code);

/// The statement list holding statement `stmt` (a body, an `else`, a
/// handler's or a case's body) and its index there; empty when not found.
std::span<const ast::NodeId> enclosing_block(const CheckContext& ctx, ast::NodeId stmt,
                                             size_t& index);

/// The statement is simple: an expression, an assignment or `pass`. No
/// control flow (no compound statement, `return`, `break`, `continue`,
/// `raise`), so the statements after it in its block run whenever it does.
bool is_simple_statement(const CheckContext& ctx, ast::NodeId stmt);

/// The statement, as a line that can be moved: it is on one line of its
/// own (blanks before it, at most a comment after it), the indentation
/// does not mix tabs into spaces. Its text from the first character to the
/// end of the line, comment included, without the line ending; nullopt
/// otherwise.
std::optional<std::string> movable_line(const CheckContext& ctx, ast::NodeId stmt);

/// Removes the line of a statement movable_line accepts, line ending
/// included.
std::optional<Edit> remove_line(const CheckContext& ctx, ast::NodeId stmt);

/// A new line `code` right before statement `stmt`, at its indentation.
/// Refused when something precedes the statement on its line (`for e in
/// r: train()`) or the indentation mixes tabs into spaces.
std::optional<Edit> insert_line_before(const CheckContext& ctx, ast::NodeId stmt,
                                       std::string_view code);

/// Moves the lone statement `stmt` (see movable_line) to a new line right
/// after statement `after` (compound statements: after their last line),
/// or right before statement `before`: two edits, the removal and the
/// insertion. Both statements must be in the same block so the
/// indentation stays right.
std::optional<Fix> move_statement(const CheckContext& ctx, ast::NodeId stmt, ast::NodeId after,
                                  ast::NodeId before, std::string title);

/// Removes element `elt` of a list-like node (a call's arguments, a list
/// or tuple): its own line when it has one, else it and the comma before
/// it. Refused for the only element.
std::optional<Edit> remove_element(const CheckContext& ctx, std::span<const ast::NodeId> elts,
                                   size_t index);

/// The span of the last identifier of a callee (`BCELoss` in
/// `nn.BCELoss`, `softmax` in `F.softmax`), or nullopt for other callees.
std::optional<Span> callee_name_span(const CheckContext& ctx, ast::NodeId call);

/// The edit that makes `call` call `qualified` (torch.nn.BCELoss) instead
/// of its sibling in the same module: a dotted callee (`nn.BCEWithLogitsLoss`)
/// changes its last identifier; a bare name (`BCEWithLogitsLoss`, imported
/// by name) becomes the spelling the file's module-level imports bind to
/// `qualified` (`BCELoss` when imported too, else `nn.BCELoss` through
/// `from torch import nn`, else `torch.nn.BCELoss` through `import torch`).
/// nullopt when nothing binds it: a fix never writes an unbound name.
std::optional<Edit> rename_callee(const CheckContext& ctx, ast::NodeId call,
                                  std::string_view qualified);

/// A fix with one edit.
Fix make_fix(std::string title, Edit e);

}  // namespace tpf::checks
