#include "checks/fixes.h"

#include "checks/facts.h"

namespace tpf::checks {

using ast::NodeId;
using ast::NodeKind;

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }
bool newline(char c) { return c == '\n' || c == '\r'; }

// The line ending at `p` ("\r\n", "\r" or "\n"), or, at the end of a file
// without a final newline, the file's first one ("\n" in a one-line file).
std::string eol_at(std::string_view text, size_t p) {
  if (p >= text.size()) {
    p = text.find_first_of("\r\n");
    if (p == std::string_view::npos) return "\n";
  }
  if (text[p] == '\r') return p + 1 < text.size() && text[p + 1] == '\n' ? "\r\n" : "\r";
  return "\n";
}

/// Offset of the start of the line holding `offset`.
uint32_t line_begin(const CheckContext& ctx, uint32_t offset) {
  return ctx.src.lines.line_start(ctx.src.pos(offset).line);
}

}  // namespace

NodeId node_at(const CheckContext& ctx, Span span, NodeKind kind) {
  const auto& nodes = ctx.ast.nodes;
  for (uint32_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].kind == kind && nodes[i].span == span) return NodeId{i};
  return ast::kNoNode;
}

NodeId statement_at(const CheckContext& ctx, Span span) {
  const auto& nodes = ctx.ast.nodes;
  NodeId best;
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const ast::Node& n = nodes[i];
    if (ast::category(n.kind) != ast::Category::Stmt) continue;
    if (n.span.begin > span.begin || n.span.end < span.end) continue;
    if (!best.valid() || n.span.end - n.span.begin < ctx.ast[best].span.end - ctx.ast[best].span.begin)
      best = NodeId{i};
  }
  return best;
}

bool is_atomic(const CheckContext& ctx, NodeId e) {
  const ast::Node& n = ctx.ast[e];
  switch (n.kind) {
    case NodeKind::Name:
    case NodeKind::Attribute:
    case NodeKind::Subscript:
    case NodeKind::Call:
    case NodeKind::List:
    case NodeKind::Dict:
    case NodeKind::Set:
    case NodeKind::ListComp:
    case NodeKind::SetComp:
    case NodeKind::DictComp:
      return true;
    default:
      return false;  // numbers too: `1.detach()` does not parse
  }
}

std::string atom_text(const CheckContext& ctx, NodeId e) {
  std::string t(source_text(ctx, ctx.ast[e].span));
  return is_atomic(ctx, e) ? t : "(" + t + ")";
}

Edit append_to(const CheckContext& ctx, NodeId e, std::string_view suffix) {
  Span s = ctx.ast[e].span;
  if (is_atomic(ctx, e)) return {{s.end, s.end}, std::string(suffix)};
  return {s, "(" + std::string(source_text(ctx, s)) + ")" + std::string(suffix)};
}

std::optional<Edit> insert_line_after(const CheckContext& ctx, Span span, std::string_view code) {
  NodeId st = statement_at(ctx, span);
  if (!st.valid()) return std::nullopt;
  std::string_view text = ctx.src.text;
  Span s = ctx.ast[st].span;
  uint32_t lb = line_begin(ctx, s.begin);
  std::string_view indent = text.substr(lb, s.begin - lb);
  for (char c : indent)
    if (!blank(c)) return std::nullopt;  // shares its line with a header or another statement
  if (indent.find('\t') != std::string_view::npos && indent.find(' ') != std::string_view::npos)
    return std::nullopt;
  uint32_t p = s.end;
  while (p < text.size() && blank(text[p])) ++p;
  if (p < text.size() && text[p] == '#')
    while (p < text.size() && !newline(text[p])) ++p;
  if (p < text.size() && !newline(text[p])) return std::nullopt;  // `;` or a backslash
  const std::string eol = eol_at(text, p);
  if (p < text.size()) {
    p += static_cast<uint32_t>(eol.size());
    return Edit{{p, p}, std::string(indent) + std::string(code) + eol};
  }
  return Edit{{p, p}, eol + std::string(indent) + std::string(code) + eol};
}

std::span<const NodeId> enclosing_block(const CheckContext& ctx, NodeId stmt, size_t& index) {
  namespace S = ast::slot;
  const auto& nodes = ctx.ast.nodes;
  auto find = [&](std::span<const NodeId> list) {
    for (size_t i = 0; i < list.size(); ++i)
      if (list[i] == stmt) {
        index = i;
        return true;
      }
    return false;
  };
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    NodeId n{i};
    const Span& s = nodes[i].span;
    if (i != ctx.ast.root.v && (s.begin > ctx.ast[stmt].span.begin || s.end < ctx.ast[stmt].span.end))
      continue;
    int slots[4] = {-1, -1, -1, -1};
    switch (nodes[i].kind) {
      case NodeKind::Module: slots[0] = S::Module::body; break;
      case NodeKind::FunctionDef: slots[0] = S::FunctionDef::body; break;
      case NodeKind::AsyncFunctionDef: slots[0] = S::AsyncFunctionDef::body; break;
      case NodeKind::ClassDef: slots[0] = S::ClassDef::body; break;
      case NodeKind::For: slots[0] = S::For::body, slots[1] = S::For::orelse; break;
      case NodeKind::AsyncFor: slots[0] = S::AsyncFor::body, slots[1] = S::AsyncFor::orelse; break;
      case NodeKind::While: slots[0] = S::While::body, slots[1] = S::While::orelse; break;
      case NodeKind::If: slots[0] = S::If::body, slots[1] = S::If::orelse; break;
      case NodeKind::With: slots[0] = S::With::body; break;
      case NodeKind::AsyncWith: slots[0] = S::AsyncWith::body; break;
      case NodeKind::Try:
        slots[0] = S::Try::body, slots[1] = S::Try::orelse, slots[2] = S::Try::finalbody;
        break;
      case NodeKind::TryStar:
        slots[0] = S::TryStar::body, slots[1] = S::TryStar::orelse, slots[2] = S::TryStar::finalbody;
        break;
      case NodeKind::ExceptHandler: slots[0] = S::ExceptHandler::body; break;
      case NodeKind::match_case: slots[0] = S::match_case::body; break;
      default: continue;
    }
    for (int sl : slots)
      if (sl >= 0 && find(ctx.ast.children(n, sl))) return ctx.ast.children(n, sl);
  }
  return {};
}

bool is_simple_statement(const CheckContext& ctx, NodeId stmt) {
  switch (ctx.ast[stmt].kind) {
    case NodeKind::Expr:
    case NodeKind::Assign:
    case NodeKind::AugAssign:
    case NodeKind::AnnAssign:
    case NodeKind::Pass:
      return true;
    default:
      return false;
  }
}

namespace {

/// The end of the line holding `offset`'s statement tail: past blanks and a
/// comment; the offset of the line ending, or npos when code follows.
uint32_t tail_end(std::string_view text, uint32_t p) {
  while (p < text.size() && blank(text[p])) ++p;
  if (p < text.size() && text[p] == '#')
    while (p < text.size() && !newline(text[p])) ++p;
  if (p < text.size() && !newline(text[p])) return UINT32_MAX;
  return p;
}

/// The statement starts its line (only blanks before it) and the blanks do
/// not mix tabs into spaces; its indentation, or nullopt.
std::optional<std::string_view> own_indent(const CheckContext& ctx, NodeId stmt) {
  std::string_view text = ctx.src.text;
  Span s = ctx.ast[stmt].span;
  uint32_t lb = line_begin(ctx, s.begin);
  std::string_view indent = text.substr(lb, s.begin - lb);
  for (char c : indent)
    if (!blank(c)) return std::nullopt;
  if (indent.find('\t') != std::string_view::npos && indent.find(' ') != std::string_view::npos)
    return std::nullopt;
  return indent;
}

}  // namespace

std::optional<std::string> movable_line(const CheckContext& ctx, NodeId stmt) {
  if (!stmt.valid() || !own_indent(ctx, stmt)) return std::nullopt;
  std::string_view text = ctx.src.text;
  Span s = ctx.ast[stmt].span;
  if (text.substr(s.begin, s.end - s.begin).find_first_of("\r\n") != std::string_view::npos)
    return std::nullopt;
  uint32_t e = tail_end(text, s.end);
  if (e == UINT32_MAX) return std::nullopt;
  while (e > s.end && blank(text[e - 1])) --e;
  return std::string(text.substr(s.begin, e - s.begin));
}

std::optional<Edit> remove_line(const CheckContext& ctx, NodeId stmt) {
  if (!movable_line(ctx, stmt)) return std::nullopt;
  std::string_view text = ctx.src.text;
  Span s = ctx.ast[stmt].span;
  uint32_t lb = line_begin(ctx, s.begin);
  uint32_t e = tail_end(text, s.end);
  if (e < text.size()) e += (text[e] == '\r' && e + 1 < text.size() && text[e + 1] == '\n') ? 2 : 1;
  return Edit{{lb, e}, ""};
}

std::optional<Edit> insert_line_before(const CheckContext& ctx, NodeId stmt, std::string_view code) {
  std::optional<std::string_view> indent = own_indent(ctx, stmt);
  if (!indent) return std::nullopt;
  std::string_view text = ctx.src.text;
  uint32_t lb = line_begin(ctx, ctx.ast[stmt].span.begin);
  // The statement's own line ending (a file keeps its style).
  const size_t e = text.find_first_of("\r\n", ctx.ast[stmt].span.begin);
  const std::string eol = eol_at(text, e == std::string_view::npos ? text.size() : e);
  return Edit{{lb, lb}, std::string(*indent) + std::string(code) + eol};
}

std::optional<Fix> move_statement(const CheckContext& ctx, NodeId stmt, NodeId after, NodeId before,
                                  std::string title) {
  std::optional<std::string> line = movable_line(ctx, stmt);
  std::optional<Edit> cut = remove_line(ctx, stmt);
  if (!line || !cut) return std::nullopt;
  std::optional<Edit> put;
  if (after.valid()) {
    if (ctx.ast[after].span.begin < ctx.ast[stmt].span.end) return std::nullopt;
    put = insert_line_after(ctx, ctx.ast[after].span, *line);
  } else if (before.valid()) {
    if (ctx.ast[before].span.end > ctx.ast[stmt].span.begin) return std::nullopt;
    put = insert_line_before(ctx, before, *line);
  }
  if (!put) return std::nullopt;
  Fix f;
  f.title = std::move(title);
  if (put->span.begin < cut->span.begin) {
    f.edits.push_back(std::move(*put));
    f.edits.push_back(std::move(*cut));
  } else {
    f.edits.push_back(std::move(*cut));
    f.edits.push_back(std::move(*put));
  }
  return f;
}

std::optional<Edit> remove_element(const CheckContext& ctx, std::span<const NodeId> elts,
                                   size_t index) {
  if (elts.size() < 2 || index >= elts.size()) return std::nullopt;
  for (NodeId e : elts)
    if (!e.valid() || (ctx.ast[e].flags & ast::kParenthesized)) return std::nullopt;
  std::string_view text = ctx.src.text;
  Span s = ctx.ast[elts[index]].span;
  // Its own line: blank before it; after it an optional comma and comment.
  uint32_t lb = line_begin(ctx, s.begin);
  bool own_line = true;
  for (uint32_t q = lb; q < s.begin; ++q) own_line &= blank(text[q]);
  uint32_t p = s.end;
  while (p < text.size() && blank(text[p])) ++p;
  if (p < text.size() && text[p] == ',') ++p;
  while (p < text.size() && blank(text[p])) ++p;
  if (p < text.size() && text[p] == '#')
    while (p < text.size() && !newline(text[p])) ++p;
  own_line &= p < text.size() && newline(text[p]);
  if (own_line) {
    // The elements around it keep their own lines.
    if (index > 0 && ctx.src.pos(ctx.ast[elts[index - 1]].span.end).line == ctx.src.pos(lb).line)
      own_line = false;
    if (index + 1 < elts.size() &&
        ctx.src.pos(ctx.ast[elts[index + 1]].span.begin).line == ctx.src.pos(s.end).line)
      own_line = false;
  }
  if (own_line) {
    if (text[p] == '\r' && p + 1 < text.size() && text[p + 1] == '\n') ++p;
    return Edit{{lb, p + 1}, ""};
  }
  if (index > 0) return Edit{{ctx.ast[elts[index - 1]].span.end, s.end}, ""};
  return Edit{{s.begin, ctx.ast[elts[index + 1]].span.begin}, ""};
}

std::optional<Span> callee_name_span(const CheckContext& ctx, NodeId call) {
  if (!call.valid() || ctx.ast[call].kind != NodeKind::Call) return std::nullopt;
  NodeId func = ctx.ast.child(call, ast::slot::Call::func);
  const ast::Node& f = ctx.ast[func];
  if (f.kind == NodeKind::Name && !(f.flags & ast::kParenthesized)) return f.span;
  if (f.kind == NodeKind::Attribute) {
    std::string_view attr = ctx.ast.name(f.f[ast::slot::Attribute::attr]);
    auto len = static_cast<uint32_t>(attr.size());
    if (f.span.end - f.span.begin > len &&
        source_text(ctx, {f.span.end - len, f.span.end}) == attr)
      return Span{f.span.end - len, f.span.end};
  }
  return std::nullopt;
}

namespace {

// How the module's top-level imports (also under `if` and `try`) spell
// `qualified`: the shortest bound name or dotted path, "" when none.
void module_spelling(const CheckContext& ctx, std::span<const NodeId> body,
                     std::string_view qualified, std::string& best) {
  namespace S = ast::slot;
  const ast::Module& a = ctx.ast;
  auto offer = [&](std::string_view bound, std::string_view bound_to) {
    // `bound` names `bound_to`; it spells `qualified` when that is it or inside it.
    if (qualified == bound_to ||
        (qualified.size() > bound_to.size() && qualified.starts_with(bound_to) &&
         qualified[bound_to.size()] == '.')) {
      std::string s = std::string(bound) + std::string(qualified.substr(bound_to.size()));
      if (best.empty() || s.size() < best.size()) best = std::move(s);
    }
  };
  for (NodeId st : body) {
    const ast::Node& n = a[st];
    if (n.kind == NodeKind::If) {
      module_spelling(ctx, a.children(st, S::If::body), qualified, best);
      module_spelling(ctx, a.children(st, S::If::orelse), qualified, best);
    } else if (n.kind == NodeKind::Try) {
      module_spelling(ctx, a.children(st, S::Try::body), qualified, best);
      module_spelling(ctx, a.children(st, S::Try::orelse), qualified, best);
    } else if (n.kind == NodeKind::Import) {
      for (NodeId al : a.children(st, S::Import::names)) {
        std::string_view name = a.name(a[al].f[S::alias::name]);
        const ast::Symbol as = a[al].f[S::alias::asname];
        if (as != ast::kNoSymbol) offer(a.name(as), name);
        else offer(name.substr(0, name.find('.')), name.substr(0, name.find('.')));
      }
    } else if (n.kind == NodeKind::ImportFrom && n.f[S::ImportFrom::level] == 0 &&
               n.f[S::ImportFrom::module] != ast::kNoSymbol) {
      const std::string module(a.name(n.f[S::ImportFrom::module]));
      for (NodeId al : a.children(st, S::ImportFrom::names)) {
        std::string_view name = a.name(a[al].f[S::alias::name]);
        const ast::Symbol as = a[al].f[S::alias::asname];
        if (name == "*") {
          // `from torch.nn import *` binds its public names.
          const std::string_view rest = qualified.substr(std::min(qualified.size(), module.size() + 1));
          if (qualified.starts_with(module + ".") && !rest.empty() && !rest.starts_with("_") &&
              rest.find('.') == std::string_view::npos)
            offer(rest, qualified);
        } else {
          offer(as != ast::kNoSymbol ? a.name(as) : name, module + "." + std::string(name));
        }
      }
    }
  }
}

}  // namespace

std::optional<Edit> rename_callee(const CheckContext& ctx, NodeId call, std::string_view qualified) {
  if (!call.valid() || ctx.ast[call].kind != NodeKind::Call) return std::nullopt;
  const NodeId func = ctx.ast.child(call, ast::slot::Call::func);
  const ast::Node& f = ctx.ast[func];
  const std::string_view last = qualified.substr(qualified.rfind('.') + 1);
  if (f.kind == NodeKind::Attribute) {
    std::optional<Span> name = callee_name_span(ctx, call);
    if (!name) return std::nullopt;
    return Edit{*name, std::string(last)};
  }
  if (f.kind != NodeKind::Name || (f.flags & ast::kParenthesized)) return std::nullopt;
  std::string spelling;
  module_spelling(ctx, ctx.ast.children(ctx.ast.root, ast::slot::Module::body), qualified,
                  spelling);
  if (spelling.empty()) return std::nullopt;
  return Edit{f.span, std::move(spelling)};
}

Fix make_fix(std::string title, Edit e) {
  Fix f;
  f.title = std::move(title);
  f.edits.push_back(std::move(e));
  return f;
}

}  // namespace tpf::checks
