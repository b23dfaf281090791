// Project roots, search paths, the import scan of a parsed module, Python's
// module resolution restricted to the project, and the --dump-facts=imports
// text. Only the file system is consulted (stat, never a read): whether a
// name is a module is decided by the files Python would find.
// requires: a parsed module. produces: ModuleContext, ImportEdge.
#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <unordered_map>

#include "ir/fs_cache.h"
#include "ir/project.h"

namespace tpf::ir {

namespace fs = std::filesystem;
namespace S = ast::slot;
using ast::NodeId;
using ast::NodeKind;

namespace {

constexpr std::string_view kModeled[] = {
#define TPF_MODELED_LIBRARY(name) name,
#include "ir/modeled_libraries.def"
#undef TPF_MODELED_LIBRARY
};

constexpr std::string_view kMarkers[] = {".git", "pyproject.toml", "setup.py", "setup.cfg"};

bool is_file(const fs::path& p) { return cached_is_file(p); }
bool is_dir(const fs::path& p) { return cached_is_dir(p); }
std::string norm(const fs::path& p) { return p.lexically_normal().string(); }
fs::path absolute_of(const std::string& path) {
  std::error_code ec;
  fs::path a = fs::absolute(path, ec);
  return ec ? fs::path(path) : a.lexically_normal();
}

std::vector<std::string> split_dots(std::string_view dotted) {
  std::vector<std::string> parts;
  size_t b = 0;
  while (b <= dotted.size()) {
    size_t e = dotted.find('.', b);
    if (e == std::string_view::npos) e = dotted.size();
    if (e > b) parts.emplace_back(dotted.substr(b, e - b));
    b = e + 1;
  }
  return parts;
}

/// Found module: its file (a.py, a/__init__.py) or folder (namespace).
struct Found {
  std::string file;
  ImportHow how = ImportHow::Module;
  std::string dir;  ///< the package folder (Package/Namespace)
};

/// One step of Python's path finder inside `dir`: a regular package, then
/// a module, then a namespace folder.
std::optional<Found> find_in(const fs::path& dir, const std::string& part) {
  fs::path pkg = dir / part;
  if (is_file(pkg / "__init__.py")) return Found{norm(pkg / "__init__.py"), ImportHow::Package, norm(pkg)};
  fs::path mod = dir / (part + ".py");
  if (is_file(mod)) return Found{norm(mod), ImportHow::Module, ""};
  if (is_dir(pkg)) return Found{"", ImportHow::Namespace, norm(pkg)};
  return std::nullopt;
}

/// Resolves `parts` from folder `start` (relative) or along `search`.
/// `depth_found` says how many leading parts were found.
std::optional<Found> find_parts(const std::vector<std::string>& search, const std::vector<std::string>& parts,
                                size_t& depth_found) {
  depth_found = 0;
  if (parts.empty()) return std::nullopt;
  // The first part: a regular module or package in any entry wins over a
  // namespace folder found earlier (PEP 420).
  std::optional<Found> first, ns;
  for (const std::string& d : search) {
    std::optional<Found> f = find_in(d, parts[0]);
    if (!f) continue;
    if (f->how == ImportHow::Namespace) {
      if (!ns) ns = f;
      continue;
    }
    first = f;
    break;
  }
  if (!first) first = ns;
  if (!first) return std::nullopt;
  depth_found = 1;
  Found cur = *first;
  for (size_t i = 1; i < parts.size(); ++i) {
    if (cur.dir.empty()) return std::nullopt;  // a module has no submodules
    std::optional<Found> f = find_in(cur.dir, parts[i]);
    if (!f) return std::nullopt;
    cur = *f;
    depth_found = i + 1;
  }
  return cur;
}

std::string join(const std::vector<std::string>& parts, size_t n) {
  std::string s;
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i) s += '.';
    s += parts[i];
  }
  return s;
}

// ---- static evaluation of sys.path entries ----

class PathEval {
 public:
  PathEval(const ast::Module& a, const ModuleContext& ctx) : a_(a), ctx_(ctx) {
    // Module-level `NAME = expr` (the last one wins), for entries built in steps.
    for (NodeId s : a_.children(a_.root, S::Module::body)) {
      if (a_[s].kind != NodeKind::Assign) continue;
      auto targets = a_.children(s, S::Assign::targets);
      if (targets.size() == 1 && a_[targets[0]].kind == NodeKind::Name)
        vars_[std::string(a_.name(a_[targets[0]].f[S::Name::id]))] = a_.child(s, S::Assign::value);
    }
  }

  /// The folder an expression names, when it can be known without running.
  std::optional<std::string> eval(NodeId n, int depth = 0) const {
    if (!n.valid() || depth > 16) return std::nullopt;
    const ast::Node& x = a_[n];
    switch (x.kind) {
      case NodeKind::Constant: {
        const ast::Constant& c = a_.constants[x.f[S::Constant::value]];
        if (c.kind != ast::Constant::Kind::Str) return std::nullopt;
        // Relative entries resolve against the working directory; the
        // script's folder is where scripts are run from.
        fs::path p(c.text);
        return norm(p.is_absolute() ? p : fs::path(script_dir()) / p);
      }
      case NodeKind::Name: {
        std::string_view id = a_.name(x.f[S::Name::id]);
        if (id == "__file__") return norm(absolute_of(ctx_.path));
        auto it = vars_.find(std::string(id));
        if (it != vars_.end()) return eval(it->second, depth + 1);
        return std::nullopt;
      }
      case NodeKind::Attribute: {
        std::string_view attr = a_.name(x.f[S::Attribute::attr]);
        auto v = eval(a_.child(n, S::Attribute::value), depth + 1);
        if (!v) return std::nullopt;
        if (attr == "parent") return norm(fs::path(*v).parent_path());
        return std::nullopt;
      }
      case NodeKind::BinOp: {
        if (x.op != ast::Op::Div) return std::nullopt;
        auto l = eval(a_.child(n, S::BinOp::left), depth + 1);
        auto r = eval_str(a_.child(n, S::BinOp::right));
        if (!l || !r) return std::nullopt;
        return norm(fs::path(*l) / *r);
      }
      case NodeKind::Call: return eval_call(n, depth);
      default: return std::nullopt;
    }
  }

 private:
  std::string script_dir() const { return norm(absolute_of(ctx_.path).parent_path()); }

  /// A string literal's text (a join component, not a folder).
  std::optional<std::string> eval_str(NodeId n) const {
    if (!n.valid() || a_[n].kind != NodeKind::Constant) return std::nullopt;
    const ast::Constant& c = a_.constants[a_[n].f[S::Constant::value]];
    if (c.kind != ast::Constant::Kind::Str) return std::nullopt;
    return c.text;
  }

  std::string dotted(NodeId n) const {
    const ast::Node& x = a_[n];
    if (x.kind == NodeKind::Name) return std::string(a_.name(x.f[S::Name::id]));
    if (x.kind == NodeKind::Attribute) {
      std::string base = dotted(a_.child(n, S::Attribute::value));
      if (base.empty()) return "";
      return base + "." + std::string(a_.name(x.f[S::Attribute::attr]));
    }
    return "";
  }

  std::optional<std::string> eval_call(NodeId n, int depth) const {
    NodeId func = a_.child(n, S::Call::func);
    auto args = a_.children(n, S::Call::args);
    std::string f = dotted(func);
    auto arg0 = [&]() -> std::optional<std::string> {
      return args.empty() ? std::nullopt : eval(args[0], depth + 1);
    };
    if (f == "os.path.dirname" || f == "path.dirname" || f == "dirname") {
      auto v = arg0();
      if (!v) return std::nullopt;
      return norm(fs::path(*v).parent_path());
    }
    if (f == "os.path.abspath" || f == "os.path.realpath" || f == "os.path.normpath" || f == "str" ||
        f == "Path" || f == "pathlib.Path" || f == "os.fspath" || f == "os.path.expanduser")
      return arg0();
    if (f == "os.getcwd") return script_dir();
    if (f == "os.path.join" || f == "path.join") {
      if (args.empty()) return std::nullopt;
      auto v = eval(args[0], depth + 1);
      if (!v) return std::nullopt;
      fs::path p(*v);
      for (size_t i = 1; i < args.size(); ++i) {
        auto part = eval_str(args[i]);
        if (!part) {
          auto sub = eval(args[i], depth + 1);
          if (!sub) return std::nullopt;
          part = sub;
        }
        p /= *part;
      }
      return norm(p);
    }
    // Path(...).resolve() / .absolute() / .expanduser()
    if (a_[func].kind == NodeKind::Attribute) {
      std::string_view attr = a_.name(a_[func].f[S::Attribute::attr]);
      if (attr == "resolve" || attr == "absolute" || attr == "expanduser")
        return eval(a_.child(func, S::Attribute::value), depth + 1);
      if (attr == "joinpath") {
        auto base = eval(a_.child(func, S::Attribute::value), depth + 1);
        if (!base) return std::nullopt;
        fs::path p(*base);
        for (NodeId x : args) {
          auto part = eval_str(x);
          if (!part) return std::nullopt;
          p /= *part;
        }
        return norm(p);
      }
    }
    return std::nullopt;
  }

  const ast::Module& a_;
  const ModuleContext& ctx_;
  std::unordered_map<std::string, NodeId> vars_;
};

/// The last name of a call's function (`f` of `a.b.f` or of `f`), without
/// building the dotted string: most calls are filtered on it.
std::string_view last_name(const ast::Module& a, NodeId n) {
  const ast::Node& x = a[n];
  if (x.kind == NodeKind::Name) return a.name(x.f[S::Name::id]);
  if (x.kind == NodeKind::Attribute) return a.name(x.f[S::Attribute::attr]);
  return {};
}

std::string dotted_of(const ast::Module& a, NodeId n) {
  const ast::Node& x = a[n];
  if (x.kind == NodeKind::Name) return std::string(a.name(x.f[S::Name::id]));
  if (x.kind == NodeKind::Attribute) {
    std::string base = dotted_of(a, a.child(n, S::Attribute::value));
    if (base.empty()) return "";
    return base + "." + std::string(a.name(x.f[S::Attribute::attr]));
  }
  return "";
}

bool under_dir(const std::string& file, const std::string& dir) {
  if (dir.empty()) return false;
  if (file.size() < dir.size() || file.compare(0, dir.size(), dir) != 0) return false;
  return file.size() == dir.size() || file[dir.size()] == '/' || dir.back() == '/';
}

/// Resolution of one import name against a module's context.
class Resolver {
 public:
  explicit Resolver(const ModuleContext& ctx) : ctx_(ctx) {}

  /// `import dotted` (attr empty) or `from dotted import attr` (level: dots).
  ImportEdge resolve(std::string dotted, int level, const std::string& attr, bool star, Span span,
                     std::string written) const {
    ImportEdge e;
    e.span = span;
    e.written = std::move(written);
    e.star = star;
    std::vector<std::string> parts = split_dots(dotted);
    std::vector<std::string> search;
    std::string prefix;  // absolute package of a relative import
    if (level > 0) {
      if (ctx_.package_dir.empty() && ctx_.package.empty() && level > 1) {
        e.target = std::string(static_cast<size_t>(level), '.') + dotted;
        e.how = ImportHow::Missing;
        e.why = "relative import beyond the top-level package";
        return e;
      }
      fs::path base = ctx_.package_dir.empty() ? absolute_of(ctx_.path).parent_path() : fs::path(ctx_.package_dir);
      std::vector<std::string> pkg = split_dots(ctx_.package);
      for (int i = 1; i < level; ++i) {
        if (pkg.empty()) {
          e.target = std::string(static_cast<size_t>(level), '.') + dotted;
          e.how = ImportHow::Missing;
          e.why = "relative import beyond the top-level package";
          return e;
        }
        pkg.pop_back();
        base = base.parent_path();
      }
      prefix = join(pkg, pkg.size());
      search = {norm(base)};
    } else {
      std::string top = parts.empty() ? "" : parts[0];
      if (is_modeled_library(top)) {
        e.target = attr.empty() || star ? dotted : dotted + "." + attr;
        e.how = ImportHow::Library;
        return e;
      }
      search = ctx_.search;
    }
    auto absolute = [&](const std::string& rel) {
      if (level == 0) return rel;
      if (prefix.empty()) return rel;
      return rel.empty() ? prefix : prefix + "." + rel;
    };
    e.target = absolute(attr.empty() || star ? dotted : (dotted.empty() ? attr : dotted + "." + attr));
    if (!ctx_.follow) {
      e.how = ImportHow::Off;
      return e;
    }
    size_t found_depth = 0;
    // `from a import b`: a submodule a.b first, else the name b of a.
    if (!attr.empty() && !star) {
      std::vector<std::string> sub = parts;
      sub.push_back(attr);
      size_t d = 0;
      if (auto f = find_parts(search, sub, d); f && in_scope(*f)) {
        set_found(e, *f);
        return e;
      }
    }
    std::optional<Found> f;
    if (parts.empty()) {
      // `from . import x` with no submodule x: x is a name of the package.
      fs::path dir = search.empty() ? fs::path() : fs::path(search[0]);
      if (is_file(dir / "__init__.py")) f = Found{norm(dir / "__init__.py"), ImportHow::Package, norm(dir)};
      else f = Found{"", ImportHow::Namespace, norm(dir)};
      found_depth = 0;
    } else {
      f = find_parts(search, parts, found_depth);
    }
    if (f && in_scope(*f)) {
      set_found(e, *f);
      if (!attr.empty() && !star) {
        e.how = ImportHow::Name;
        if (f->file.empty()) {
          e.how = ImportHow::Missing;
          e.why = "no module " + e.target + " in namespace package " + absolute(dotted);
        }
      }
      return e;
    }
    if (level > 0 || found_depth > 0) {
      // Its package is the project's: the module should be there.
      e.how = ImportHow::Missing;
      e.why = "no file for " + e.target + (level > 0 ? std::string(" in its package") : std::string(" on the project's search path"));
      return e;
    }
    e.how = ImportHow::External;
    return e;
  }

 private:
  bool in_scope(const Found& f) const {
    const std::string& p = f.file.empty() ? f.dir : f.file;
    for (const std::string& d : ctx_.search)
      if (under_dir(p, d)) return true;
    return under_dir(p, ctx_.package_dir);
  }
  static void set_found(ImportEdge& e, const Found& f) {
    e.how = f.how;
    e.file = f.file;
  }
  const ModuleContext& ctx_;
};

void add_unique(std::vector<std::string>& v, const std::string& s, bool front = false) {
  if (s.empty() || std::find(v.begin(), v.end(), s) != v.end()) return;
  if (front) v.insert(v.begin(), s);
  else v.push_back(s);
}

}  // namespace

std::string_view how_name(ImportHow h) {
  switch (h) {
    case ImportHow::Module: return "module";
    case ImportHow::Package: return "package";
    case ImportHow::Namespace: return "namespace package";
    case ImportHow::Name: return "name in";
    case ImportHow::Library: return "modeled library (not followed)";
    case ImportHow::External: return "outside the project (not followed)";
    case ImportHow::Missing: return "MISSING";
    case ImportHow::Dynamic: return "DYNAMIC";
    case ImportHow::Off: return "not followed (follow-imports is off)";
  }
  return "?";
}

bool is_modeled_library(std::string_view top) {
  return std::find(std::begin(kModeled), std::end(kModeled), top) != std::end(kModeled);
}

namespace {

/// What script_context derives from a script's folder alone: the same for
/// every script in it, so computed once per folder and run.
struct DirContext {
  std::string package, package_dir, root, marker;
  std::vector<std::string> search;
  bool modeled = false;  ///< the folder is inside a modeled library's own package
};

DirContext dir_context_of(const fs::path& dir) {
  DirContext c;
  // The package it sits in: folders with __init__.py, innermost last.
  std::vector<std::string> pkg;
  fs::path top = dir;
  while (is_file(top / "__init__.py") && top.has_parent_path() && top.parent_path() != top) {
    pkg.insert(pkg.begin(), top.filename().string());
    top = top.parent_path();
  }
  c.package = join(pkg, pkg.size());
  c.package_dir = pkg.empty() ? "" : norm(dir);
  for (fs::path d = dir;; d = d.parent_path()) {
    for (std::string_view m : kMarkers)
      if (cached_exists(d / m)) {
        c.root = norm(d);
        c.marker = std::string(m);
        break;
      }
    if (!c.root.empty() || !d.has_parent_path() || d.parent_path() == d) break;
  }
  if (c.root.empty()) c.marker = "no marker";
  // sys.path[0] is the script's folder; its package's parent makes
  // `python -m pkg.train` work; the root and root/src are where a project's
  // own packages live.
  add_unique(c.search, norm(dir));
  if (!pkg.empty()) add_unique(c.search, norm(top));
  if (!c.root.empty()) {
    add_unique(c.search, c.root);
    if (is_dir(fs::path(c.root) / "src")) add_unique(c.search, norm(fs::path(c.root) / "src"));
  }
  c.modeled = !pkg.empty() && is_modeled_library(pkg[0]);
  return c;
}

const DirContext& dir_context(const fs::path& dir) {
  static std::mutex mu;
  static std::unordered_map<std::string, std::unique_ptr<DirContext>> memo;
  {
    std::lock_guard<std::mutex> g(mu);
    auto it = memo.find(dir.native());
    if (it != memo.end()) return *it->second;
  }
  auto made = std::make_unique<DirContext>(dir_context_of(dir));
  std::lock_guard<std::mutex> g(mu);
  return *memo.emplace(dir.native(), std::move(made)).first->second;
}

}  // namespace

ModuleContext script_context(const std::string& path, bool follow) {
  ModuleContext c;
  c.path = path;
  fs::path abs = absolute_of(path);
  c.canonical = cached_canonical(abs).string();
  c.name = "__main__";
  const DirContext& d = dir_context(abs.parent_path());
  c.package = d.package;
  c.package_dir = d.package_dir;
  c.root = d.root;
  c.marker = d.marker;
  c.search = d.search;
  c.follow = follow && !d.modeled;
  return c;
}

ImportEdge resolve_module_name(const ModuleContext& ctx, const std::string& dotted) {
  return Resolver(ctx).resolve(dotted, 0, "", false, {}, "import " + dotted);
}

std::vector<ImportEdge> scan_imports(const ast::Module& a, const SourceFile& src, ModuleContext& ctx) {
  (void)src;
  // sys.path changes first: they apply to every import of the module (a
  // static approximation: an insert after an import still counts).
  {
    PathEval ev(a, ctx);
    std::vector<std::string> front, back;
    for (uint32_t i = 0; i < a.nodes.size(); ++i) {
      const ast::Node& n = a.nodes[i];
      if (n.kind != NodeKind::Call) continue;
      NodeId call{i};
      NodeId func = a.child(call, S::Call::func);
      if (a[func].kind != NodeKind::Attribute) continue;
      std::string_view last = last_name(a, func);
      if (last != "insert" && last != "append") continue;
      std::string d = dotted_of(a, func);
      bool insert = d == "sys.path.insert", append = d == "sys.path.append";
      if (!insert && !append) continue;
      auto args = a.children(call, S::Call::args);
      if (args.size() != (insert ? 2u : 1u)) continue;
      std::optional<std::string> dir = ev.eval(args.back());
      if (!dir || !is_dir(*dir)) continue;
      (insert ? front : back).push_back(*dir);
    }
    for (auto it = front.rbegin(); it != front.rend(); ++it) add_unique(ctx.search, *it, true);
    for (const std::string& d : back) add_unique(ctx.search, d);
  }
  Resolver r(ctx);
  std::vector<ImportEdge> out;
  for (uint32_t i = 0; i < a.nodes.size(); ++i) {
    const ast::Node& n = a.nodes[i];
    NodeId s{i};
    if (n.kind == NodeKind::Import) {
      for (NodeId al : a.children(s, S::Import::names)) {
        std::string name(a.name(a[al].f[S::alias::name]));
        out.push_back(r.resolve(name, 0, "", false, a[al].span, "import " + name));
      }
    } else if (n.kind == NodeKind::ImportFrom) {
      int level = static_cast<int>(n.f[S::ImportFrom::level]);
      std::string mod = n.f[S::ImportFrom::module] != ast::kNoSymbol ? std::string(a.name(n.f[S::ImportFrom::module])) : "";
      std::string shown = std::string(static_cast<size_t>(level), '.') + mod;
      for (NodeId al : a.children(s, S::ImportFrom::names)) {
        std::string name(a.name(a[al].f[S::alias::name]));
        bool star = name == "*";
        out.push_back(r.resolve(mod, level, star ? "" : name, star, a[al].span,
                                "from " + shown + " import " + name));
      }
    } else if (n.kind == NodeKind::Call) {
      NodeId func = a.child(s, S::Call::func);
      std::string_view last = last_name(a, func);
      if (last != "import_module" && last != "__import__") continue;
      std::string d = dotted_of(a, func);
      if (d != "importlib.import_module" && d != "import_module" && d != "__import__") continue;
      auto args = a.children(s, S::Call::args);
      if (args.empty()) continue;
      const ast::Node& x = a[args[0]];
      if (x.kind == NodeKind::Constant && a.constants[x.f[S::Constant::value]].kind == ast::Constant::Kind::Str &&
          args.size() == 1) {
        std::string name = a.constants[x.f[S::Constant::value]].text;
        size_t dots = name.find_first_not_of('.');
        if (dots == std::string::npos) continue;
        out.push_back(r.resolve(name.substr(dots), static_cast<int>(dots), "", false, n.span,
                                d + "(\"" + name + "\")"));
        continue;
      }
      ImportEdge e;
      e.span = n.span;
      e.written = d + "(...)";
      e.how = ImportHow::Dynamic;
      e.why = "the module name is computed at run time";
      out.push_back(std::move(e));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const ImportEdge& x, const ImportEdge& y) {
    return x.span.begin < y.span.begin;
  });
  return out;
}

// ---- dump ----

namespace {

void edge_line(const SourceFile& src, const ImportEdge& e, const std::string& shown_root, std::string& out) {
  LineCol lc = src.pos(e.span.begin);
  out += "  ";
  out += std::to_string(lc.line);
  out += ':';
  out += std::to_string(lc.col);
  out += ' ';
  out += e.written;
  out += "  ->  ";
  out += how_name(e.how);
  auto rel = [&](const std::string& f) {
    if (!shown_root.empty() && under_dir(f, shown_root)) return f.substr(shown_root.size() + (shown_root.back() == '/' ? 0 : 1));
    return f;
  };
  switch (e.how) {
    case ImportHow::Module:
    case ImportHow::Package:
      out += ' ';
      out += e.target;
      out += " (";
      out += rel(e.file);
      out += ')';
      break;
    case ImportHow::Name: {
      size_t dot = e.target.rfind('.');
      out += ' ';
      out += e.target.substr(0, dot);
      out += " (";
      out += rel(e.file);
      out += ')';
      break;
    }
    case ImportHow::Namespace:
    case ImportHow::Library:
    case ImportHow::External:
    case ImportHow::Off:
      out += ' ';
      out += e.target;
      break;
    case ImportHow::Missing:
    case ImportHow::Dynamic:
      out += ": ";
      out += e.why;
      break;
  }
  if (e.star) out += " [*]";
  out += '\n';
}

}  // namespace

void dump_imports(ModuleStore& store, const ModuleContext& script, const SourceFile& script_src,
                  const std::vector<ImportEdge>& edges, std::string& out) {
  // Paths are shown relative to the project (or the script's folder).
  std::string shown_root = script.root.empty() ? script.search.front() : script.root;
  out += "project ";
  out += fs::path(shown_root).filename().string();
  out += " (";
  out += script.marker;
  out += ")\n";
  out += "search path:\n";
  auto rel = [&](const std::string& d) -> std::string {
    if (d == shown_root) return ".";
    if (under_dir(d, shown_root)) return d.substr(shown_root.size() + 1);
    return d;
  };
  for (const std::string& d : script.search) {
    out += "  ";
    out += rel(d);
    out += '\n';
  }
  if (!script.follow) out += "imports are not followed\n";
  std::set<std::string> seen{script.canonical};
  out += "module __main__ ";
  out += rel(absolute_of(script.path).string());
  out += '\n';
  std::vector<const LoadedModule*> queue;
  auto visit_edges = [&](const ModuleContext& ctx, const SourceFile& src, const std::vector<ImportEdge>& es) {
    for (const ImportEdge& e : es) {
      edge_line(src, e, shown_root, out);
      const LoadedModule* m = store.get(ctx, e);
      if (m && seen.insert(m->ctx.canonical).second) queue.push_back(m);
    }
  };
  visit_edges(script, script_src, edges);
  for (size_t i = 0; i < queue.size(); ++i) {
    const LoadedModule* m = queue[i];
    out += "module ";
    out += m->ctx.name;
    out += ' ';
    out += rel(m->ctx.path);
    out += '\n';
    if (!m->error.empty()) {
      out += "  not loaded: ";
      out += m->error;
      out += '\n';
      continue;
    }
    visit_edges(m->ctx, *m->src, m->imports);
  }
  for (const std::string& n : store.notes()) {
    out += "note: ";
    out += n;
    out += '\n';
  }
}

}  // namespace tpf::ir
