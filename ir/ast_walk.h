// for_each_child: the child nodes of an AST node, generated from
// parser/ast.def, so the IR's scope scan needs no per-kind list of fields.
#pragma once

#include "parser/ast.h"

namespace tpf::ir {

/// Calls `fn(NodeId)` for each child node of `id` (Node, OptNode and List
/// fields, in ast.def order; missing entries skipped). 3.12 type-parameter
/// lists are skipped: the IR does not model them.
template <class F>
void for_each_child(const ast::Module& m, ast::NodeId id, F&& fn) {
  const ast::Node& n = m[id];
#define TPF_CHILD_Node(s) fn(ast::NodeId{n.f[s]});
#define TPF_CHILD_OptNode(s) \
  if (n.f[s] != UINT32_MAX) fn(ast::NodeId{n.f[s]});
#define TPF_CHILD_List(s)                      \
  for (ast::NodeId c : m.nodes_of(n.f[s]))     \
    if (c.valid()) fn(c);
#define TPF_CHILD_NewList(s)
#define TPF_CHILD_New313(s)
#define TPF_CHILD_Ident(s)
#define TPF_CHILD_OptIdent(s)
#define TPF_CHILD_IdentList(s)
#define TPF_CHILD_Const(s)
#define TPF_CHILD_OptStr(s)
#define TPF_CHILD_Int(s)
#define TPF_CHILD_OpField(s)
#define TPF_CHILD_OpList(s)
#define F(name, type, s) TPF_CHILD_##type(s)
  switch (n.kind) {
#define TPF_NODE(kind, cat, pos, fields) \
  case ast::NodeKind::kind: {            \
    fields                               \
  } break;
#include "parser/ast.def"
#undef TPF_NODE
  }
#undef F
#undef TPF_CHILD_Node
#undef TPF_CHILD_OptNode
#undef TPF_CHILD_List
#undef TPF_CHILD_NewList
#undef TPF_CHILD_New313
#undef TPF_CHILD_Ident
#undef TPF_CHILD_OptIdent
#undef TPF_CHILD_IdentList
#undef TPF_CHILD_Const
#undef TPF_CHILD_OptStr
#undef TPF_CHILD_Int
#undef TPF_CHILD_OpField
#undef TPF_CHILD_OpList
}

}  // namespace tpf::ir
