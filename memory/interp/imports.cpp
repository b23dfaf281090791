// The interpreter follows the script's imports into its own project
// (ir/project.h): a project module becomes a Unit run once, the way Python
// imports it (`__name__` is its dotted name, so its `if __name__ ==
// "__main__":` block does not run), and `import m` / `from m import x` /
// `from m import *` bind its module object and names. Libraries stay
// External names; an import of the project that cannot be followed is a
// named unknown of the estimate.
// requires: interp.h, dataflow::ProjectView. produces: project Units.
#include <algorithm>
#include <filesystem>

#include "memory/interp/config_files.h"

namespace tpf::memory {

namespace {

/// Project modules one estimate runs at most (units are 16-bit; real
/// training scripts reach a few dozen).
constexpr size_t kMaxProjectUnits = 1024;

}  // namespace

uint16_t Interp::project_unit(const ir::LoadedModule* m) {
  for (size_t k = 0; k < units.size(); ++k)
    if (units[k]->project == m) return static_cast<uint16_t>(k);
  size_t n = 0;
  for (const auto& u : units) n += u->project != nullptr;
  if (n >= kMaxProjectUnits || units.size() >= kNone16 - 1) return kNone16;
  // Its facts first: computing them is what interns names in its IR, and
  // after that the IR is read-only, whichever thread asks.
  if (!opt.project || !opt.project->project->facts(m)) return kNone16;
  auto u = std::make_unique<Unit>();
  u->ir = m->ir.get();
  u->name = m->ctx.name;
  u->project = m;
  u->view = dataflow::ProjectView{opt.project->project, &m->ctx, &m->imports};
  uint16_t id = static_cast<uint16_t>(units.size());
  units.push_back(std::move(u));
  // Run its top level now, as `import` does: defines its classes and functions.
  std::vector<Frame*> saved_stack;
  saved_stack.swap(stack);
  std::vector<StrId> saved_path;
  saved_path.swap(module_path);
  uint32_t saved_depth = depth;
  depth = 0;
  try {
    run(id, ir::FunctionId(0), {}, nullptr, kNone32);
  } catch (const YieldStop&) {
  } catch (...) {
    depth = saved_depth;
    stack.swap(saved_stack);
    module_path.swap(saved_path);
    throw;
  }
  depth = saved_depth;
  stack.swap(saved_stack);
  module_path.swap(saved_path);
  return id;
}

std::optional<Value> Interp::unit_global(uint16_t u, std::string_view name, int depth_left) {
  if (depth_left > 8) return std::nullopt;
  Unit& un = unit(u);
  if (!un.top) return std::nullopt;
  ir::Symbol s = un.ir->names.find(name);
  if (s != ir::kNoSymbol) {
    auto g = un.globals_set.find(s);
    if (g != un.globals_set.end()) return g->second;
    const ir::Function& f = un.ir->fn(ir::FunctionId(0));
    ir::VarId var = f.find_var(s);
    std::span<const uint32_t> st = stores(u, ir::FunctionId(0), var);
    for (size_t i = st.size(); i-- > 0;) {
      const ir::LocalRef& r = f.local_refs[st[i]];
      if (un.top->vals[r.value.v].kind != VKind::Unbound) return un.top->vals[r.value.v];
    }
  }
  for (uint16_t su : un.star_units)
    if (su != u && star_exports(su, name))
      if (auto v = unit_global(su, name, depth_left + 1)) return v;
  return std::nullopt;
}

bool Interp::star_exports(uint16_t u, std::string_view name) {
  // `__all__` when the module defines one as a list of strings; otherwise
  // every name not starting with an underscore.
  Unit& un = unit(u);
  ir::Symbol s = un.ir->names.find("__all__");
  if (s != ir::kNoSymbol && un.top) {
    const ir::Function& f = un.ir->fn(ir::FunctionId(0));
    ir::VarId var = f.find_var(s);
    if (var.valid())
      for (size_t i = f.local_refs.size(); i-- > 0;) {
        const ir::LocalRef& r = f.local_refs[i];
        if (r.var != var || !r.store || !r.value.valid()) continue;
        std::vector<Value>* items = seq(un.top->vals[r.value.v]);
        if (!items) break;
        for (Value v : *items)
          if (auto str = as_str(v); str && *str == name) return true;
        return false;
      }
  }
  return !name.starts_with('_');
}

void Interp::note_dynamic_imports(uint16_t u) {
  Unit& un = unit(u);
  if (!un.view.edges) return;
  for (const ir::ImportEdge& e : *un.view.edges)
    if (e.how == ir::ImportHow::Dynamic)
      cfg.unknowns.push_back({"`" + e.written + "`" + std::string(kDynamicImportNote) + " (" + e.why + ")",
                              un.ir->pos(e.span).line, false});
}

Value Interp::import_value(uint16_t u, std::string_view q) {
  Unit& un = unit(u);
  auto external = [&] { return Value::ext(intern(q)); };
  if (!un.view.project || !un.view.ctx || modelled_over_project(q)) return external();
  ir::ProjectName pn = un.view.name(q);
  if (!pn.module)
    if (auto pkg = package_of_import(u, q)) return *pkg;
  if (!pn.module && opt.project) {
    // A module of the project no import statement names (one named at
    // run time): resolved and loaded as `import q` in this module would be.
    ir::ImportEdge e = ir::resolve_module_name(*un.view.ctx, std::string(q));
    if ((e.how == ir::ImportHow::Module || e.how == ir::ImportHow::Package) && !e.file.empty())
      if (const ir::LoadedModule* m = opt.project->project->store.get(*un.view.ctx, e); m && m->ir)
        if (uint16_t mu = project_unit(m); mu != kNone16) return module_value(mu);
  }
  if (!pn.module) {
    // The project's own import that cannot be followed: say which.
    Span at = stack.empty() ? Span{} : stack.back()->cur_span;
    for (const ir::ImportEdge& e : *un.view.edges) {
      if (e.how != ir::ImportHow::Missing || e.span.begin != at.begin) continue;
      note_unknown("the project import `" + e.written + "` (" + (un.is_user ? std::string("the script") : un.name) +
                       ") cannot be followed: " + e.why,
                   {}, false);
      break;
    }
    return external();
  }
  if (!pn.module->ir) {
    note_unknown("the project module " + pn.module->ctx.path + " is not read: " + pn.module->error, {}, false);
    return external();
  }
  uint16_t mu = project_unit(pn.module);
  if (mu == kNone16) return external();
  if (pn.rest.empty()) return module_value(mu);
  std::string_view rest = pn.rest;
  std::string_view first = rest.substr(0, rest.find('.'));
  std::optional<Value> v = unit_global(mu, first);
  if (!v) return external();
  Value cur = *v;
  while (rest.size() > first.size()) {
    rest = rest.substr(first.size() + 1);
    first = rest.substr(0, rest.find('.'));
    cur = getattr(cur, intern(first));
  }
  return cur;
}

Value Interp::module_value(uint16_t mu) {
  Unit& mun = unit(mu);
  if (mun.module_obj == kNone32) {
    ObjId id = alloc(OKind::Module);
    o(id).index = mu;
    o(id).type = intern(mun.name);
    unit(mu).module_obj = id;
  }
  return Value::obj(unit(mu).module_obj);
}

namespace {

/// The package module a project file path stands for, loaded through the
/// store as an import of `importer` would: PATH/__init__.py as `name`.
const ir::LoadedModule* load_module_file(const EstimateOptions& opt, const ir::ModuleContext& importer,
                                         const std::filesystem::path& file, std::string name, bool package) {
  std::error_code ec;
  if (!opt.project || !std::filesystem::is_regular_file(file, ec)) return nullptr;
  ir::ImportEdge e;
  e.target = std::move(name);
  e.how = package ? ir::ImportHow::Package : ir::ImportHow::Module;
  e.file = file.string();
  const ir::LoadedModule* m = opt.project->project->store.get(importer, e);
  return m && m->ir ? m : nullptr;
}

}  // namespace

std::optional<Value> Interp::package_submodule(uint16_t pkg, std::string_view name) {
  const ir::LoadedModule* pm = unit(pkg).project;
  if (!pm || name.empty() || name.find('/') != std::string_view::npos) return std::nullopt;
  std::filesystem::path init(pm->ctx.path);
  if (init.filename() != "__init__.py") return std::nullopt;
  std::string base = pm->ctx.name;
  if (base.ends_with(".__init__")) base.resize(base.size() - 9);
  std::string sub = base + "." + std::string(name);
  std::filesystem::path dir = init.parent_path();
  const ir::LoadedModule* m = load_module_file(opt, pm->ctx, dir / (std::string(name) + ".py"), sub, false);
  if (!m) m = load_module_file(opt, pm->ctx, dir / std::string(name) / "__init__.py", sub, true);
  if (!m) return std::nullopt;
  uint16_t mu = project_unit(m);
  if (mu == kNone16) return std::nullopt;
  return module_value(mu);
}

std::optional<Value> Interp::package_of_import(uint16_t u, std::string_view q) {
  // `import litgpt.model` binds `litgpt`: the edge is litgpt.model's, and
  // the package is the folder its file lies in, as many levels up as the
  // statement names submodules below `q`.
  Unit& un = unit(u);
  if (!un.view.edges || q.empty() || q.starts_with('.')) return std::nullopt;
  std::string prefix = std::string(q) + ".";
  for (const ir::ImportEdge& e : *un.view.edges) {
    if (e.file.empty() || !e.target.starts_with(prefix) || !e.written.starts_with("import ")) continue;
    if (e.how != ir::ImportHow::Module && e.how != ir::ImportHow::Package) continue;
    std::filesystem::path dir = std::filesystem::path(e.file).parent_path();
    if (e.how == ir::ImportHow::Package) dir = dir.parent_path();
    std::string_view below = std::string_view(e.target).substr(prefix.size());
    for (char c : below)
      if (c == '.') dir = dir.parent_path();
    const ir::LoadedModule* m = load_module_file(opt, *un.view.ctx, dir / "__init__.py", std::string(q), true);
    if (!m) return std::nullopt;
    uint16_t mu = project_unit(m);
    if (mu == kNone16) return std::nullopt;
    return module_value(mu);
  }
  return std::nullopt;
}

}  // namespace tpf::memory
