// ast::Module storage (lists, symbols) and the per-kind tables generated
// from parser/ast.def and parser/ops.def.
// requires: nothing. produces: the helpers declared in parser/ast.h.
#include "parser/ast.h"

namespace tpf::ast {

ListId Module::add_list(std::span<const uint32_t> items) {
  if (items.empty()) return 0;
  ListRange r{static_cast<uint32_t>(list_items.size()), static_cast<uint32_t>(items.size())};
  list_items.insert(list_items.end(), items.begin(), items.end());
  lists.push_back(r);
  return static_cast<ListId>(lists.size() - 1);
}

ListId Module::add_list(std::span<const NodeId> items) {
  static_assert(sizeof(NodeId) == sizeof(uint32_t));
  return add_list(
      std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(items.data()), items.size()));
}

Symbol Module::intern(std::string_view name) {
  auto it = symbol_index_.find(name);
  if (it != symbol_index_.end()) return it->second;
  Symbol s = static_cast<Symbol>(symbols.size());
  symbols.emplace_back(name);
  symbol_index_.emplace(std::string(name), s);
  return s;
}

std::string_view kind_name(NodeKind k) {
  switch (k) {
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind:                   \
    return #kind;
#include "parser/ast.def"
#undef TPF_NODE
  }
  return "?";
}

Category category(NodeKind k) {
  switch (k) {
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind:                   \
    return Category::cat;
#include "parser/ast.def"
#undef TPF_NODE
  }
  return Category::Aux;
}

bool has_position(NodeKind k) {
  switch (k) {
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind:                   \
    return pos != 0;
#include "parser/ast.def"
#undef TPF_NODE
  }
  return false;
}

std::string_view op_name(Op op) {
  switch (op) {
    case Op::None_:
      return "";
#define TPF_AST_OP(e, name, spelling) \
  case Op::e:                         \
    return name;
#include "parser/ops.def"
#undef TPF_AST_OP
  }
  return "";
}

std::string_view op_spelling(Op op) {
  switch (op) {
    case Op::None_:
      return "";
#define TPF_AST_OP(e, name, spelling) \
  case Op::e:                         \
    return spelling;
#include "parser/ops.def"
#undef TPF_AST_OP
  }
  return "";
}

}  // namespace tpf::ast
