// ast::Module storage (lists, symbols) and the per-kind tables generated
// from parser/ast.def and parser/ops.def.
// requires: nothing. produces: the helpers declared in parser/ast.h.
#include "parser/ast.h"

#include <algorithm>
#include <cstring>

namespace tpf::ast {

namespace {

// Room for `n` more elements, made out of line (at least doubling), so that
// the push_backs after it compile without std::vector's inlined
// reallocation, which made each list cost twice its work.
template <class T>
[[gnu::noinline]] void make_room(std::vector<T>& v, size_t n) {
  v.reserve(std::max(v.capacity() * 2, v.size() + n) + 64);
}

}  // namespace

ListId Module::add_list(std::span<const uint32_t> items) {
  const size_t n = items.size();
  if (n == 0) return 0;
  if (list_items.capacity() - list_items.size() < n) [[unlikely]] make_room(list_items, n);
  if (lists.size() == lists.capacity()) [[unlikely]] make_room(lists, 1);
  const ListRange r{static_cast<uint32_t>(list_items.size()), static_cast<uint32_t>(n)};
  // Most lists hold one to three items: push_back beats insert()'s general
  // range path and its memmove call. Room was made above.
  for (uint32_t v : items) {
    if (list_items.size() == list_items.capacity()) __builtin_unreachable();
    list_items.push_back(v);
  }
  if (lists.size() == lists.capacity()) __builtin_unreachable();
  lists.push_back(r);
  return static_cast<ListId>(lists.size() - 1);
}

void Module::shrink_to_fit() {
  // Not `nodes`: the parser reserves them once and never touches the
  // capacity it leaves, which is thus never resident; copying them would
  // only add a transient peak (measured on 16 MB files, issue 20).
  lists.shrink_to_fit();
  list_items.shrink_to_fit();
  symbols.shrink_to_fit();
  constants.shrink_to_fit();
}

void Module::grow_nodes() { nodes.reserve(nodes.capacity() * 2 + 64); }

ListId Module::add_list(std::span<const NodeId> items) {
  static_assert(sizeof(NodeId) == sizeof(uint32_t));
  return add_list(
      std::span<const uint32_t>(reinterpret_cast<const uint32_t*>(items.data()), items.size()));
}

namespace {

// Smallest symbol table: most files have a few hundred distinct names.
constexpr size_t kMinSymbolSlots = 256;

uint64_t load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

uint32_t load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// A multiply-xorshift mix of the name read 8 bytes at a time (overlapping
// loads for the tail, as wyhash does), since identifiers are short and a
// byte-at-a-time hash costs more than the whole probe. Only equal strings
// must hash alike; the value never shows in any output.
[[gnu::always_inline]] inline uint32_t name_hash(std::string_view s) {
  constexpr uint64_t kMul = 0x9E3779B97F4A7C15ull;
  const char* p = s.data();
  const size_t n = s.size();
  uint64_t h = n * kMul;
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  };
  if (n >= 8) {
    size_t i = 0;
    for (; i + 8 < n; i += 8) mix(load64(p + i));
    mix(load64(p + n - 8));
  } else if (n >= 4) {
    mix(uint64_t{load32(p)} << 32 | load32(p + n - 4));
  } else if (n > 0) {
    mix(uint64_t{static_cast<unsigned char>(p[0])} << 16 |
        uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 | static_cast<unsigned char>(p[n - 1]));
  }
  return static_cast<uint32_t>(h >> 32);
}

// a == b for identifiers: loads that never leave either string (overlapping
// ones for the tail, as in name_hash) instead of a memcmp call, which cost
// more than the rest of a lookup.
[[gnu::always_inline]] inline bool same_text(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  const char* p = a.data();
  const char* q = b.data();
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8)
      if (load64(p + i) != load64(q + i)) return false;
    return load64(p + n - 8) == load64(q + n - 8);
  }
  if (n >= 4) return load32(p) == load32(q) && load32(p + n - 4) == load32(q + n - 4);
  for (size_t i = 0; i < n; ++i)
    if (p[i] != q[i]) return false;
  return true;
}

}  // namespace

void Module::grow_index() {
  std::vector<uint64_t> old = std::move(symbol_slots_);
  symbol_slots_.assign(old.empty() ? kMinSymbolSlots : old.size() * 2, 0);
  const size_t mask = symbol_slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    size_t i = static_cast<uint32_t>(slot >> 32) & mask;
    while (symbol_slots_[i] != 0) i = (i + 1) & mask;
    symbol_slots_[i] = slot;
  }
}

Symbol Module::intern(std::string_view name) {
  // At most half full after this insertion, so probes stay short.
  if (2 * (symbols.size() + 1) > symbol_slots_.size()) [[unlikely]] grow_index();
  const uint32_t hash = name_hash(name);
  const size_t mask = symbol_slots_.size() - 1;
  size_t i = hash & mask;
  for (;; i = (i + 1) & mask) {
    const uint64_t slot = symbol_slots_[i];
    if (slot == 0) break;
    const auto s = static_cast<Symbol>(slot) - 1;
    if (static_cast<uint32_t>(slot >> 32) == hash && same_text(symbols[s], name)) return s;
  }
  return add_symbol(name, hash, i);
}

// Out of line: a new symbol is rare next to a lookup, and std::string's and
// the vector's growth code inlined made every lookup save six registers.
Symbol Module::add_symbol(std::string_view name, uint32_t hash, size_t slot) {
  const auto s = static_cast<Symbol>(symbols.size());
  symbols.emplace_back(name);
  symbol_slots_[slot] = uint64_t{hash} << 32 | (s + 1);
  return s;
}

Symbol Module::find(std::string_view name) const {
  if (symbol_slots_.empty()) return kNoSymbol;
  const uint32_t hash = name_hash(name);
  const size_t mask = symbol_slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint64_t slot = symbol_slots_[i];
    if (slot == 0) return kNoSymbol;
    const auto s = static_cast<Symbol>(slot) - 1;
    if (static_cast<uint32_t>(slot >> 32) == hash && same_text(symbols[s], name)) return s;
  }
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
