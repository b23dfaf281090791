// Names: interned identifiers (Symbol) and hash-consed dotted paths (PathId)
// of one file. A path is (parent path, last symbol), so `torch.nn.functional`
// and an access path like `self.model.fc1` are the same kind of key, and
// "is this torch.nn.functional.softmax?" is an integer compare.
// requires: the ast::Module (its symbols keep their numbers). produces: Names.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/ids.h"
#include "parser/ast.h"

namespace tpf::ir {

class Names {
 public:
  Names() = default;
  /// Symbols 0..n-1 are `m`'s (so ast::Symbol == ir::Symbol); `m` must outlive this.
  explicit Names(const ast::Module& m);
  Names(const Names&) = delete;
  Names& operator=(const Names&) = delete;
  Names(Names&&) = default;
  Names& operator=(Names&&) = default;

  /// Returns the symbol for `s`, adding it if new.
  Symbol intern(std::string_view s);
  /// The symbol for `s`, or kNoSymbol when the file never mentions it.
  Symbol find(std::string_view s) const;
  std::string_view str(Symbol s) const { return strs_[s]; }
  size_t symbol_count() const { return strs_.size(); }

  /// The path `parent.last` (parent kNoPath: a one-part path), hash-consed.
  PathId path(PathId parent, Symbol last);
  /// Interns every part of a dotted name ("torch.nn.functional"); a leading
  /// run of dots (relative import) is one part.
  PathId intern_path(std::string_view dotted);
  /// The path for a dotted name if all its parts are already interned, else kNoPath.
  PathId find_path(std::string_view dotted) const;
  /// The path `parent.last` if it is interned, else kNoPath (never adds one).
  PathId find_child(PathId parent, Symbol last) const;
  PathId parent(PathId p) const { return nodes_[p.v].parent; }
  Symbol last(PathId p) const { return nodes_[p.v].last; }
  uint32_t depth(PathId p) const { return nodes_[p.v].depth; }
  /// True when `p` is `prefix` or lies under it (`torch.nn.Linear` under `torch.nn`).
  bool under(PathId p, PathId prefix) const;
  /// The first part of `p`.
  PathId root(PathId p) const;
  void append(PathId p, std::string& out) const;
  /// The dotted text of `p` ("torch.nn.Linear"; "?" for kNoPath). Built on
  /// first use and kept (rules compare call targets by name many times per
  /// file); the reference stays valid as long as this Names.
  const std::string& str(PathId p) const;
  /// Builds the text of every path now, so that later str() calls only
  /// read (a module shared between threads: ModuleStore calls it once the
  /// module's names are final).
  void build_texts() const;
  size_t path_count() const { return nodes_.size(); }

 private:
  struct PathNode {
    PathId parent;
    Symbol last;
    uint32_t depth;
  };

  const ast::Module* ast_ = nullptr;  // its index finds the symbols 0..n-1
  size_t ast_count_ = 0;
  std::vector<std::string_view> strs_;
  std::deque<std::string> own_;  // text of symbols the AST does not have
  std::unordered_map<std::string_view, Symbol> index_;  // symbols added here
  std::vector<PathNode> nodes_;
  std::unordered_map<uint64_t, PathId> path_index_;
  mutable std::vector<uint32_t> text_of_;  // PathId -> index into texts_, UINT32_MAX: not built
  mutable std::deque<std::string> texts_;  // a deque: references to its strings stay valid
};

}  // namespace tpf::ir
