// Names: symbol interning and path hash-consing for one file.
// requires: the ast::Module's symbol table. produces: Symbols and PathIds.
#include "ir/names.h"

namespace tpf::ir {

Names::Names(const ast::Module& m) : ast_(&m), ast_count_(m.symbols.size()) {
  strs_.reserve(m.symbols.size() + 64);
  for (const std::string& s : m.symbols) strs_.push_back(s);
}

Symbol Names::find(std::string_view s) const {
  // The AST's own index answers for the file's identifiers; only names
  // added here (torch table entries, derived paths' parts) need another.
  if (ast_) {
    Symbol a = ast_->find(s);
    if (a != kNoSymbol && a < ast_count_) return a;
  }
  auto it = index_.find(s);
  return it == index_.end() ? kNoSymbol : it->second;
}

Symbol Names::intern(std::string_view s) {
  Symbol found = find(s);
  if (found != kNoSymbol) return found;
  own_.emplace_back(s);
  strs_.push_back(own_.back());
  Symbol sym = static_cast<Symbol>(strs_.size() - 1);
  index_.emplace(strs_.back(), sym);
  return sym;
}

static uint64_t path_key(PathId parent, Symbol last) {
  return (static_cast<uint64_t>(parent.v) << 32) | last;
}

PathId Names::find_child(PathId parent, Symbol last) const {
  auto it = path_index_.find(path_key(parent, last));
  return it == path_index_.end() ? kNoPath : it->second;
}

PathId Names::path(PathId parent, Symbol last) {
  auto [it, fresh] = path_index_.try_emplace(path_key(parent, last), PathId());
  if (fresh) {
    uint32_t d = parent.valid() ? nodes_[parent.v].depth + 1 : 1;
    nodes_.push_back(PathNode{parent, last, d});
    it->second = PathId(static_cast<uint32_t>(nodes_.size() - 1));
  }
  return it->second;
}

/// Calls `part(text)` for each part of a dotted name; a leading run of dots is one part.
template <class F>
static bool for_each_part(std::string_view dotted, F&& part) {
  size_t i = 0;
  while (i < dotted.size() && dotted[i] == '.') ++i;
  if (i > 0 && !part(dotted.substr(0, i))) return false;
  while (i < dotted.size()) {
    size_t j = dotted.find('.', i);
    if (j == std::string_view::npos) j = dotted.size();
    if (j > i && !part(dotted.substr(i, j - i))) return false;
    i = j + 1;
  }
  return true;
}

PathId Names::intern_path(std::string_view dotted) {
  PathId p = kNoPath;
  for_each_part(dotted, [&](std::string_view s) {
    p = path(p, intern(s));
    return true;
  });
  return p;
}

PathId Names::find_path(std::string_view dotted) const {
  PathId p = kNoPath;
  bool ok = for_each_part(dotted, [&](std::string_view s) {
    Symbol sym = find(s);
    if (sym == kNoSymbol) return false;
    p = find_child(p, sym);
    return p.valid();
  });
  return ok ? p : kNoPath;
}

bool Names::under(PathId p, PathId prefix) const {
  if (!p.valid() || !prefix.valid()) return false;
  uint32_t d = nodes_[prefix.v].depth;
  while (p.valid() && nodes_[p.v].depth > d) p = nodes_[p.v].parent;
  return p == prefix;
}

PathId Names::root(PathId p) const {
  while (p.valid() && nodes_[p.v].parent.valid()) p = nodes_[p.v].parent;
  return p;
}

void Names::append(PathId p, std::string& out) const {
  if (!p.valid()) {
    out += "?";
    return;
  }
  const PathNode& n = nodes_[p.v];
  if (n.parent.valid()) {
    append(n.parent, out);
    // A relative-import root ("..") is followed directly by the next part.
    std::string_view prev = strs_[nodes_[n.parent.v].last];
    if (!(nodes_[n.parent.v].depth == 1 && !prev.empty() && prev.back() == '.')) out += '.';
  }
  out += strs_[n.last];
}

const std::string& Names::str(PathId p) const {
  static const std::string kNone = "?";
  if (!p.valid() || p.v >= nodes_.size()) return kNone;
  if (text_of_.size() < nodes_.size()) text_of_.resize(nodes_.size(), UINT32_MAX);
  uint32_t& slot = text_of_[p.v];
  if (slot == UINT32_MAX) {
    slot = static_cast<uint32_t>(texts_.size());
    append(p, texts_.emplace_back());
  }
  return texts_[slot];
}

void Names::build_texts() const {
  for (uint32_t p = 0; p < nodes_.size(); ++p) str(PathId(p));
}

}  // namespace tpf::ir
