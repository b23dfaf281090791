// ModuleStore: each imported project module read, parsed, lowered and
// scanned once per run (std::call_once per module, so -j workers asking for
// the same module wait for one load), within the run's bounds; and the
// lookup of a dotted name across modules (re-exports, star imports).
// requires: module_graph (scan_imports). produces: LoadedModule.
#include <filesystem>
#include <system_error>

#include "ir/fs_cache.h"
#include "ir/project.h"
#include "lexer/lexer.h"
#include "parser/parser.h"

namespace tpf::ir {

namespace fs = std::filesystem;

namespace {

/// The entry of `key` in `map`, made empty on first use; only the lookup
/// holds `mu` (the entry's once_flag orders the work on it).
template <class T>
T* entry(std::mutex& mu, std::map<std::string, std::unique_ptr<T>>& map, const std::string& key) {
  std::lock_guard<std::mutex> g(mu);
  std::unique_ptr<T>& e = map[key];
  if (!e) e = std::make_unique<T>();
  return e.get();
}

}  // namespace

void ModuleStore::note(std::string n) {
  std::lock_guard<std::mutex> g(mu_);
  for (const std::string& x : notes_)
    if (x == n) return;
  notes_.push_back(std::move(n));
}

std::vector<std::string> ModuleStore::notes() const {
  std::lock_guard<std::mutex> g(mu_);
  return notes_;
}

const LoadedModule* ModuleStore::get(const ModuleContext& importer, const ImportEdge& e) {
  if (e.file.empty()) return nullptr;
  std::string name = e.target;
  if (e.how == ImportHow::Name) name = name.substr(0, name.rfind('.'));
  if (e.how != ImportHow::Module && e.how != ImportHow::Package && e.how != ImportHow::Name) return nullptr;
  return load(importer, e.file, name);
}

const LoadedModule* ModuleStore::load_exec(const ModuleContext& importer, const std::string& file,
                                           std::string& why) {
  fs::path canon = cached_canonical(file);
  if (!cached_is_file(canon)) {
    why = "not a regular file";
    return nullptr;
  }
  const std::string& base = importer.root.empty() ? importer.package_dir : importer.root;
  fs::path b = cached_canonical(base.empty() ? "." : base);
  fs::path rel = canon.lexically_relative(b);
  if (rel.empty() || *rel.begin() == "..") {
    why = "outside the project (" + b.string() + ")";
    return nullptr;
  }
  const LoadedModule* m = load(importer, canon.string(), importer.name);
  if (m && !m->ir) {
    why = m->error.empty() ? std::string("it could not be read") : m->error;
    return nullptr;
  }
  return m;
}

const LoadedModule* ModuleStore::load(const ModuleContext& importer, const std::string& file,
                                      const std::string& name) {
  fs::path canon = cached_canonical(file);
  std::string key = canon.string() + '\n' + name + '\n';
  for (const std::string& d : importer.search) key += d + '\n';
  Slot* slot = entry(mu_, slots_, key);
  std::call_once(slot->once, [&] {
    auto m = std::make_unique<LoadedModule>();
    m->id = next_id_.fetch_add(1);
    ModuleContext& c = m->ctx;
    c.path = file;
    c.canonical = canon.string();
    c.name = name;
    bool pkg = fs::path(file).filename() == "__init__.py";
    c.package = pkg ? name : (name.rfind('.') == std::string::npos ? "" : name.substr(0, name.rfind('.')));
    c.package_dir = fs::path(file).parent_path().lexically_normal().string();
    c.root = importer.root;
    c.marker = importer.marker;
    c.search = importer.search;
    c.follow = importer.follow;
    std::error_code sec;
    uintmax_t size = fs::file_size(file, sec);
    if (sec) {
      m->error = "cannot read: " + sec.message();
    } else if (size > opt_.max_file_bytes) {
      m->error = "larger than " + std::to_string(opt_.max_file_bytes >> 20) + " MiB";
      note("not followed: " + file + " is " + m->error);
    } else if (modules_.fetch_add(1) >= opt_.max_modules) {
      m->error = "the run's bound of " + std::to_string(opt_.max_modules) + " imported modules is reached";
      note("imports not followed past " + std::to_string(opt_.max_modules) +
           " modules (the run's bound); later modules are treated as outside the project");
    } else if (bytes_.fetch_add(size) + size > opt_.max_bytes) {
      m->error = "the run's bound of " + std::to_string(opt_.max_bytes >> 20) + " MiB of imported source is reached";
      note("imports not followed past " + std::to_string(opt_.max_bytes >> 20) +
           " MiB of imported source (the run's bound)");
    }
    if (m->error.empty()) {
      const Parsed& p = parsed(file);
      m->src = p.src;
      m->ast = p.ast;
      m->ir = p.ir;
      m->error = p.error;
      if (m->ir) {
        m->res = std::make_unique<Resolution>(*p.res);
        m->imports = scan_imports(*m->ast, *m->src, c);
      }
    }
    slot->mod = std::move(m);
  });
  return slot->mod.get();
}

const ModuleStore::Parsed& ModuleStore::parsed(const std::string& file) {
  Parsed* p = entry(mu_, parsed_, file);
  std::call_once(p->once, [&] {
    p->src = std::make_shared<SourceFile>();
    DiagSink diags;
    std::string open;
    bool ok = opt_.open_text && opt_.open_text(file, open)
                  ? lexer::make_source(file, std::move(open), *p->src, diags)
                  : lexer::load_source(file, *p->src, diags);
    if (!ok) {
      p->error = diags.diagnostics().empty() ? "cannot read" : diags.diagnostics()[0].message;
      return;
    }
    lexer::TokenStream toks = lexer::tokenize(*p->src, diags, opt_.python);
    auto ast = std::make_shared<ast::Module>(parser::parse(*p->src, toks, diags, opt_.python));
    if (diags.has_errors()) {
      const Diagnostic& d = diags.diagnostics()[0];
      LineCol lc = p->src->pos(d.span.begin);
      p->error = "SyntaxError at " + std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": " + d.message;
      return;
    }
    std::vector<lexer::Token>().swap(toks.tokens);  // the AST holds what later stages read
    ast->shrink_to_fit();
    p->ast = std::move(ast);
    p->ir = std::make_shared<Module>(build(*p->ast, *p->src, diags, false));
    p->res = std::make_unique<Resolution>(compute_resolution(*p->ir));
    p->ir->names.build_texts();  // from here on, readers of every thread only read
  });
  return *p;
}

namespace {

/// The absolute dotted name of an IR path written in a module of `ctx`.
std::string absolute_name(const ModuleContext& ctx, std::string_view dotted) {
  size_t level = 0;
  while (level < dotted.size() && dotted[level] == '.') ++level;
  if (level == 0) return std::string(dotted);
  std::string pkg = ctx.package;
  for (size_t i = 1; i < level; ++i) {
    size_t dot = pkg.rfind('.');
    pkg = dot == std::string::npos ? "" : pkg.substr(0, dot);
  }
  std::string rest(dotted.substr(level));
  if (pkg.empty()) return rest;
  return rest.empty() ? pkg : pkg + "." + rest;
}

bool prefix_of(const std::string& p, const std::string& s) {
  return s.size() >= p.size() && s.compare(0, p.size(), p) == 0 && (s.size() == p.size() || s[p.size()] == '.');
}

}  // namespace

ProjectName ModuleStore::lookup(const ModuleContext& ctx, const std::vector<ImportEdge>& edges,
                                std::string_view dotted, int depth) {
  if (depth > 8) return {};
  if (dotted.starts_with("builtins.")) {
    // A name no statement binds: one of a star import's, when any defines it.
    std::string n(dotted.substr(9));
    for (const ImportEdge& e : edges) {
      if (!e.star) continue;
      const LoadedModule* m = get(ctx, e);
      if (!m || !m->ir) continue;
      ProjectName pn = lookup_in(m, n, depth + 1);
      if (pn.defined) return pn;
    }
    return {};
  }
  std::string abs = absolute_name(ctx, dotted);
  const ImportEdge* best = nullptr;
  size_t best_len = 0;
  for (const ImportEdge& e : edges) {
    if (e.file.empty()) continue;
    if (!prefix_of(e.target, abs) || e.target.size() < best_len) continue;
    best = &e;
    best_len = e.target.size();
  }
  if (!best) return {};
  const LoadedModule* m = get(ctx, *best);
  if (!m || !m->ir) return {};
  std::string rest = abs.size() > best->target.size() ? abs.substr(best->target.size() + 1) : "";
  if (best->how == ImportHow::Name) {
    std::string last = best->target.substr(best->target.rfind('.') + 1);
    rest = rest.empty() ? last : last + "." + rest;
  }
  return lookup_in(m, rest, depth);
}

std::string ModuleStore::star_external(const ModuleContext& ctx, const std::vector<ImportEdge>& edges,
                                       std::string_view name, int depth) {
  // `from m import *` without __all__ skips names with a leading underscore.
  if (depth > 8 || name.empty() || name[0] == '_') return {};
  for (const ImportEdge& e : edges) {
    if (!e.star) continue;
    const LoadedModule* m = get(ctx, e);
    if (!m || !m->ir) continue;
    Symbol s = m->ir->names.find(name);
    if (s != kNoSymbol && m->ir->fn(FunctionId(0)).find_var(s).valid()) {
      // The module binds it: an import of a module outside the project, or
      // something else (then no star import of this file denotes a library).
      ValueId v = m->ir->global_binding(s);
      if (!v.valid()) return {};
      const Inst& d = m->ir->fn(FunctionId(0)).def(v);
      if (d.op != Op::Import) return {};
      std::string p = m->ir->names.str(PathId(d.aux));
      if (p.empty() || p[0] == '.' || lookup(m->ctx, m->imports, p, depth + 1).module) return {};
      return p;
    }
    std::string p = star_external(m->ctx, m->imports, name, depth + 1);
    if (!p.empty()) return p;
  }
  return {};
}

ProjectName ModuleStore::lookup_in(const LoadedModule* m, const std::string& rest, int depth) {
  if (rest.empty()) return {m, "", true};
  std::string first = rest.substr(0, rest.find('.'));
  std::string tail = rest.size() > first.size() ? rest.substr(first.size() + 1) : "";
  Symbol s = m->ir->names.find(first);
  if (s != kNoSymbol) {
    ValueId v = m->ir->global_binding(s);
    if (v.valid()) {
      const Function& top = m->ir->fn(FunctionId(0));
      const Inst& d = top.def(v);
      if (d.op == Op::Import) {
        // A re-export: `from .a import f` in the package, `import x as y`.
        std::string p = m->ir->names.str(PathId(d.aux));
        return lookup(m->ctx, m->imports, tail.empty() ? p : p + "." + tail, depth + 1);
      }
      return {m, rest, true};
    }
  }
  for (const ImportEdge& e : m->imports) {
    if (!e.star) continue;
    const LoadedModule* sm = get(m->ctx, e);
    if (!sm || !sm->ir || sm == m) continue;
    ProjectName pn = lookup_in(sm, rest, depth + 1);
    if (pn.defined) return pn;
  }
  return {m, rest, false};
}

}  // namespace tpf::ir
