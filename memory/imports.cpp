// The interpreter follows the script's imports into its own project
// (ir/project.h): a project module becomes a Unit run once, the way Python
// imports it (`__name__` is its dotted name, so its `if __name__ ==
// "__main__":` block does not run), and `import m` / `from m import x` /
// `from m import *` bind its module object and names. Libraries stay
// External names; an import of the project that cannot be followed is a
// named unknown of the estimate.
// requires: interp.h, dataflow::ProjectView. produces: project Units.
#include <algorithm>

#include "memory/interp.h"

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
      cfg.unknowns.push_back({"`" + e.written + "` imports a module named at run time: its definitions are not seen (" +
                                  e.why + ")",
                              un.ir->pos(e.span).line, false});
}

Value Interp::import_value(uint16_t u, std::string_view q) {
  Unit& un = unit(u);
  auto external = [&] { return Value::ext(intern(q)); };
  if (!un.view.project || !un.view.ctx) return external();
  ir::ProjectName pn = un.view.name(q);
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
  if (pn.rest.empty()) {
    Unit& mun = unit(mu);
    if (mun.module_obj == kNone32) {
      ObjId id = alloc(OKind::Module);
      o(id).index = mu;
      o(id).type = intern(mun.name);
      unit(mu).module_obj = id;
    }
    return Value::obj(unit(mu).module_obj);
  }
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

}  // namespace tpf::memory
