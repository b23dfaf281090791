// The AST: every node of a file in one vector inside ast::Module, addressed by
// 32-bit NodeId; children, lists, identifiers and constants are indices too.
// Node kinds and fields come from parser/ast.def (CPython 3.11's `ast`).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <functional>
#include <unordered_map>
#include <vector>

#include "lexer/source.h"
#include "lexer/version.h"

namespace tpf::ast {

enum class Category : uint8_t { Mod, Stmt, Expr, Pattern, Aux };

enum class NodeKind : uint8_t {
#define TPF_NODE(kind, cat, pos, fields) kind,
#include "parser/ast.def"
#undef TPF_NODE
};

/// Operators and expression contexts (parser/ops.def).
enum class Op : uint8_t {
  None_,
#define TPF_AST_OP(e, name, spelling) e,
#include "parser/ops.def"
#undef TPF_AST_OP
};

/// Strong 32-bit index types.
struct NodeId {
  uint32_t v = UINT32_MAX;
  constexpr bool valid() const { return v != UINT32_MAX; }
  constexpr bool operator==(const NodeId&) const = default;
};
inline constexpr NodeId kNoNode{};
using Symbol = uint32_t;  // index into Module::symbols
inline constexpr Symbol kNoSymbol = UINT32_MAX;
using ListId = uint32_t;  // index into Module::lists; 0 is the empty list
using ConstId = uint32_t;

/// One node: kind, operator/context, span, and up to 7 field slots whose
/// meaning per kind is given by ast.def (use the slot constants below).
struct Node {
  NodeKind kind;
  Op op = Op::None_;  // BoolOp/BinOp/UnaryOp/AugAssign operator, or expr_context
  uint16_t flags = 0; // parser bookkeeping (e.g. kParenthesized)
  Span span;
  uint32_t f[7] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX,
                   UINT32_MAX, UINT32_MAX, UINT32_MAX};
};

/// Node::flags bits.
enum NodeFlags : uint16_t {
  kParenthesized = 1 << 0,  // written inside (...) (matters for targets, genexp args)
};

/// A Python constant (Constant.value, MatchSingleton.value).
struct Constant {
  enum class Kind : uint8_t { None_, True_, False_, Ellipsis, Int, Float, Complex, Str, Bytes };
  Kind kind = Kind::None_;
  /// Int: decimal digits (with '-' never: literals are non-negative).
  /// Str: the value in UTF-8, with lone surrogates as 3-byte WTF-8 sequences.
  /// Bytes: the raw byte values.
  std::string text;
  double number = 0;  // Float value, Complex imaginary part
};

/// {first, count} into Module::list_items.
struct ListRange {
  uint32_t first = 0;
  uint32_t count = 0;
};

/// Slot constants: ast::slot::BinOp::left == 0, ...
namespace slot {
// Namespaces, not structs: `arg` has a field named `arg`, which a class may not.
#define F(name, type, s) inline constexpr int name = s;
#define TPF_NODE(kind, cat, pos, fields) \
  namespace kind {                       \
  fields                                 \
  }
#include "parser/ast.def"
#undef TPF_NODE
#undef F
}  // namespace slot

/// All nodes, lists, identifiers and constants of one file.
class Module {
 public:
  std::vector<Node> nodes;
  std::vector<ListRange> lists{ListRange{}};  // lists[0] is the empty list
  std::vector<uint32_t> list_items;
  std::vector<std::string> symbols;
  std::vector<Constant> constants;
  NodeId root;  // the Module node
  PyVersion version;  // the grammar it was parsed with (decides the JSON shape)

  const Node& operator[](NodeId id) const { return nodes[id.v]; }
  Node& operator[](NodeId id) { return nodes[id.v]; }

  NodeId add(NodeKind kind, Span span) {
    const NodeId id{static_cast<uint32_t>(nodes.size())};
    // Growing stays out of line (grow_nodes), and the compiler is told that
    // push_back then never reallocates: with std::vector's reallocation
    // inlined, this ran twice the instructions and never inlined into the
    // parser.
    if (nodes.size() == nodes.capacity()) [[unlikely]] grow_nodes();
    if (nodes.size() == nodes.capacity()) __builtin_unreachable();
    // Aggregate init leaves `f` to its default member initializer (all
    // slots empty), so each field is written once.
    nodes.push_back(Node{kind, Op::None_, 0, span});
    return id;
  }
  /// Stores a list and returns its id (0 for an empty list).
  ListId add_list(std::span<const uint32_t> items);
  ListId add_list(std::span<const NodeId> items);
  std::span<const uint32_t> list(ListId id) const {
    const ListRange& r = lists[id];
    return {list_items.data() + r.first, r.count};
  }
  /// Children of a List slot as NodeIds (entries may be kNoNode).
  std::span<const NodeId> nodes_of(ListId id) const {
    auto s = list(id);
    return {reinterpret_cast<const NodeId*>(s.data()), s.size()};
  }
  NodeId child(NodeId n, int s) const { return NodeId{nodes[n.v].f[s]}; }
  std::span<const NodeId> children(NodeId n, int s) const { return nodes_of(nodes[n.v].f[s]); }

  Symbol intern(std::string_view name);
  /// The symbol of `name`, or kNoSymbol when the file never mentions it.
  Symbol find(std::string_view name) const;
  std::string_view name(Symbol s) const { return symbols[s]; }

  /// Calls f(NodeId) for every present child of `n` (Node, OptNode and List
  /// slots, in ast.def order; kNoNode list entries are skipped).
  template <class F>
  void for_each_child(NodeId n, F&& f) const;
  /// Gives back the capacity the list, symbol and constant vectors grew to
  /// and do not use. Call it before anything holds a view of `symbols`
  /// (ir::Names does): their strings move.
  void shrink_to_fit();
  ConstId add_constant(Constant c) {
    constants.push_back(std::move(c));
    return static_cast<ConstId>(constants.size() - 1);
  }

 private:
  // The symbol index: open addressing with linear probing over a power-of-two
  // table kept at most half full. A slot is (hash << 32) | (symbol + 1), 0
  // when empty: a probe compares hashes without touching `symbols`, and a
  // rehash needs no string. intern() runs for every identifier token, and a
  // std::unordered_map cost a node allocation per symbol plus a byte-wise
  // hash per lookup. Numbering is unaffected: symbols are numbered in
  // first-seen order whatever the table does.
  void grow_index();
  [[gnu::noinline]] Symbol add_symbol(std::string_view name, uint32_t hash, size_t slot);
  void grow_nodes();
  std::vector<uint64_t> symbol_slots_;
};

template <class F>
void Module::for_each_child(NodeId n, F&& f) const {
  const Node& node = nodes[n.v];
  auto one = [&](uint32_t v) {
    if (v != UINT32_MAX) f(NodeId{v});
  };
  auto many = [&](uint32_t l) {
    for (NodeId c : nodes_of(l))
      if (c.valid()) f(c);
  };
  switch (node.kind) {
#define TPF_CHILD_Node(s) one(node.f[s]);
#define TPF_CHILD_OptNode(s) one(node.f[s]);
#define TPF_CHILD_New313(s) one(node.f[s]);
#define TPF_CHILD_List(s) many(node.f[s]);
#define TPF_CHILD_NewList(s) many(node.f[s]);
#define TPF_CHILD_Ident(s)
#define TPF_CHILD_OptIdent(s)
#define TPF_CHILD_IdentList(s)
#define TPF_CHILD_Const(s)
#define TPF_CHILD_OptStr(s)
#define TPF_CHILD_Int(s)
#define TPF_CHILD_OpField(s)
#define TPF_CHILD_OpList(s)
#define F(name, type, s) TPF_CHILD_##type(s)
#define TPF_NODE(kind, cat, pos, fields) \
  case NodeKind::kind: {                 \
    fields                               \
  } break;
#include "parser/ast.def"
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
  }
}

std::string_view kind_name(NodeKind k);
Category category(NodeKind k);
bool has_position(NodeKind k);
std::string_view op_name(Op op);      // "Add", "Load", ...
std::string_view op_spelling(Op op);  // "+", "not in", ...

}  // namespace tpf::ast
