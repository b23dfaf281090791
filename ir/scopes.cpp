// Scope scan: which names of a scope are local, global or nonlocal, by
// CPython's symtable rules (a store anywhere in the scope makes a name local).
// requires: the AST of the scope. produces: Scope (lower_state.h).
#include <algorithm>

#include "ir/ast_walk.h"
#include "ir/lower_state.h"

namespace tpf::ir {

namespace {

namespace S = ast::slot;
using ast::NodeId;
using ast::NodeKind;

/// The names a scan collects. compute_scope keeps one per thread, so the
/// arrays' capacity carries over from one scope to the next.
struct ScanLists {
  std::vector<Symbol> stores, globals, nonlocals;
};

class ScopeScan {
 public:
  ScopeScan(const ast::Module& m, Names& names, ScanLists& lists)
      : stores(lists.stores), globals(lists.globals), nonlocals(lists.nonlocals), m_(m),
        names_(names) {
    stores.clear();
    globals.clear();
    nonlocals.clear();
  }

  std::vector<Symbol>& stores;
  std::vector<Symbol>& globals;
  std::vector<Symbol>& nonlocals;

  void params(NodeId args) {
    const ast::Node& n = m_[args];
    for (int s : {S::arguments::posonlyargs, S::arguments::args, S::arguments::kwonlyargs})
      for (NodeId p : m_.nodes_of(n.f[s])) stores.push_back(m_[p].f[S::arg::arg]);
    for (int s : {S::arguments::vararg, S::arguments::kwarg})
      if (n.f[s] != UINT32_MAX) stores.push_back(m_[NodeId{n.f[s]}].f[S::arg::arg]);
  }

  /// Default values are evaluated in the enclosing scope.
  void defaults(NodeId args) {
    const ast::Node& n = m_[args];
    for (NodeId d : m_.nodes_of(n.f[S::arguments::defaults])) scan(d, false);
    for (NodeId d : m_.nodes_of(n.f[S::arguments::kw_defaults]))
      if (d.valid()) scan(d, false);
  }

  void scan_list(ast::ListId l, bool in_comp) {
    for (NodeId c : m_.nodes_of(l))
      if (c.valid()) scan(c, in_comp);
  }

  void scan(NodeId id, bool in_comp) {
    const ast::Node& n = m_[id];
    switch (n.kind) {
      case NodeKind::FunctionDef:
      case NodeKind::AsyncFunctionDef:
        stores.push_back(n.f[S::FunctionDef::name]);
        scan_list(n.f[S::FunctionDef::decorator_list], in_comp);
        defaults(NodeId{n.f[S::FunctionDef::args]});
        return;
      case NodeKind::ClassDef:
        stores.push_back(n.f[S::ClassDef::name]);
        scan_list(n.f[S::ClassDef::decorator_list], in_comp);
        scan_list(n.f[S::ClassDef::bases], in_comp);
        scan_list(n.f[S::ClassDef::keywords], in_comp);
        return;
      case NodeKind::Lambda:
        defaults(NodeId{n.f[S::Lambda::args]});
        return;
      case NodeKind::ListComp:
      case NodeKind::SetComp:
      case NodeKind::GeneratorExp:
      case NodeKind::DictComp: {
        // Only the first iterable is evaluated in this scope; the targets
        // belong to the comprehension, but a walrus inside still binds here.
        int gs = n.kind == NodeKind::DictComp ? S::DictComp::generators : S::ListComp::generators;
        auto gens = m_.nodes_of(n.f[gs]);
        for (size_t i = 0; i < gens.size(); ++i) {
          const ast::Node& g = m_[gens[i]];
          scan(NodeId{g.f[S::comprehension::iter]}, i == 0 ? in_comp : true);
          scan(NodeId{g.f[S::comprehension::target]}, true);
          scan_list(g.f[S::comprehension::ifs], true);
        }
        if (n.kind == NodeKind::DictComp) {
          scan(NodeId{n.f[S::DictComp::key]}, true);
          scan(NodeId{n.f[S::DictComp::value]}, true);
        } else {
          scan(NodeId{n.f[S::ListComp::elt]}, true);
        }
        return;
      }
      case NodeKind::Name:
        if (n.op != ast::Op::Load && !in_comp) stores.push_back(n.f[S::Name::id]);
        return;
      case NodeKind::NamedExpr: {
        NodeId t{n.f[S::NamedExpr::target]};
        if (m_[t].kind == NodeKind::Name) stores.push_back(m_[t].f[S::Name::id]);
        scan(NodeId{n.f[S::NamedExpr::value]}, in_comp);
        return;
      }
      case NodeKind::Import:
      case NodeKind::ImportFrom: {
        int ls = n.kind == NodeKind::Import ? S::Import::names : S::ImportFrom::names;
        for (NodeId al : m_.nodes_of(n.f[ls])) {
          const ast::Node& an = m_[al];
          Symbol as = an.f[S::alias::asname];
          if (as != kNoSymbol) {
            stores.push_back(as);
            continue;
          }
          std::string_view name = names_.str(an.f[S::alias::name]);
          if (name == "*") continue;
          size_t dot = name.find('.');
          stores.push_back(dot == std::string_view::npos ? an.f[S::alias::name]
                                                         : names_.intern(name.substr(0, dot)));
        }
        return;
      }
      case NodeKind::Global:
        for (uint32_t s : m_.list(n.f[S::Global::names])) globals.push_back(s);
        return;
      case NodeKind::Nonlocal:
        for (uint32_t s : m_.list(n.f[S::Nonlocal::names])) nonlocals.push_back(s);
        return;
      case NodeKind::ExceptHandler:
        if (n.f[S::ExceptHandler::name] != kNoSymbol) stores.push_back(n.f[S::ExceptHandler::name]);
        break;
      case NodeKind::MatchAs:
        if (n.f[S::MatchAs::name] != kNoSymbol) stores.push_back(n.f[S::MatchAs::name]);
        break;
      case NodeKind::MatchStar:
        if (n.f[S::MatchStar::name] != kNoSymbol) stores.push_back(n.f[S::MatchStar::name]);
        break;
      case NodeKind::MatchMapping:
        if (n.f[S::MatchMapping::rest] != kNoSymbol) stores.push_back(n.f[S::MatchMapping::rest]);
        break;
      default:
        break;
    }
    for_each_child(m_, id, [&](NodeId c) { scan(c, in_comp); });
  }

 private:
  const ast::Module& m_;
  Names& names_;
};

void sort_unique(std::vector<Symbol>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

Scope compute_scope(const ast::Module& m, Names& names, ast::NodeId node, FunctionKind kind) {
  thread_local ScanLists lists;
  ScopeScan scan(m, names, lists);
  const ast::Node& n = m[node];
  switch (n.kind) {
    case NodeKind::Module:
      scan.scan_list(n.f[S::Module::body], false);
      break;
    case NodeKind::FunctionDef:
    case NodeKind::AsyncFunctionDef:
      scan.params(NodeId{n.f[S::FunctionDef::args]});
      scan.scan_list(n.f[S::FunctionDef::body], false);
      break;
    case NodeKind::Lambda:
      scan.params(NodeId{n.f[S::Lambda::args]});
      scan.scan(NodeId{n.f[S::Lambda::body]}, false);
      break;
    case NodeKind::ClassDef:
      scan.scan_list(n.f[S::ClassDef::body], false);
      break;
    default:
      break;
  }
  Scope sc;
  sc.kind = kind;
  sort_unique(scan.globals);
  sort_unique(scan.nonlocals);
  sort_unique(scan.stores);
  // At module level `global x` changes nothing: module names are its locals.
  if (kind == FunctionKind::Module) scan.globals.clear();
  sc.locals.reserve(scan.stores.size());
  for (Symbol s : scan.stores)
    if (!Scope::has(scan.globals, s) && !Scope::has(scan.nonlocals, s)) sc.locals.push_back(s);
  sc.globals = scan.globals;
  sc.nonlocals = scan.nonlocals;
  uint32_t tparams = UINT32_MAX;
  if (n.kind == NodeKind::FunctionDef || n.kind == NodeKind::AsyncFunctionDef)
    tparams = n.f[S::FunctionDef::type_params];
  else if (n.kind == NodeKind::ClassDef)
    tparams = n.f[S::ClassDef::type_params];
  if (tparams != UINT32_MAX) {
    for (NodeId p : m.nodes_of(tparams)) sc.type_params.push_back(m[p].f[S::TypeVar::name]);
    sort_unique(sc.type_params);
  }
  return sc;
}

}  // namespace tpf::ir
