// ProjectFacts: imported modules' facts, once each, under one recursive
// lock (a module's facts ask for its imports' facts first; the lock is
// re-entered on the same thread, and the computing_ stack cuts cycles).
// requires: facts.h. produces: FileFacts of imported modules.
#include "dataflow/project_facts.h"

#include <algorithm>

#include "dataflow/facts.h"

namespace tpf::dataflow {

ProjectFacts::ProjectFacts(ir::ModuleStore& s) : store(s) {}
ProjectFacts::~ProjectFacts() = default;

const FileFacts* ProjectFacts::facts(const ir::LoadedModule* m) {
  if (!m || !m->ir) return nullptr;
  std::lock_guard<std::recursive_mutex> g(mu_);
  auto it = facts_.find(m);
  if (it != facts_.end()) return it->second.get();
  if (std::find(computing_.begin(), computing_.end(), m) != computing_.end()) return nullptr;
  computing_.push_back(m);
  ProjectView pv{this, &m->ctx, &m->imports};
  auto ff = std::make_unique<FileFacts>(compute_facts(*m->ir, &pv, m->res.get()));
  m->res.reset();
  // What a FileFacts computes on demand (provenance, objects, dominators,
  // loops) is computed when an importer first asks, under the facts' own
  // lock: importers of every thread read them. Computing all of it here,
  // for every function of every module loaded, was a quarter of a run
  // over the stdlib, and most of it was never asked.
  ff->lazy_mu_ = std::make_unique<std::recursive_mutex>();
  computing_.pop_back();
  return (facts_[m] = std::move(ff)).get();
}

std::vector<ir::StarBinding> ProjectView::star_bindings(ir::Module& m) const {
  std::vector<ir::StarBinding> out;
  if (!project || !ctx || !edges || !ctx->follow || m.functions.empty()) return out;
  if (std::none_of(edges->begin(), edges->end(), [](const ir::ImportEdge& e) { return e.star; })) return out;
  const ir::Function& top = m.fn(ir::FunctionId(0));
  std::vector<ir::Symbol> asked;
  for (const ir::Function& f : m.functions)
    for (const ir::Inst& in : f.insts) {
      if (in.op != ir::Op::LoadGlobal) continue;
      ir::Symbol s = in.aux;
      if (top.find_var(s).valid() || std::binary_search(m.stored_globally.begin(), m.stored_globally.end(), s))
        continue;  // the file binds it itself
      if (std::find(asked.begin(), asked.end(), s) != asked.end()) continue;
      asked.push_back(s);
      std::string p = project->store.star_external(*ctx, *edges, m.names.str(s));
      if (!p.empty()) out.push_back(ir::StarBinding{s, m.names.intern_path(p)});
    }
  std::sort(out.begin(), out.end(), [](const ir::StarBinding& a, const ir::StarBinding& b) { return a.name < b.name; });
  return out;
}

ir::ProjectName ProjectView::name(std::string_view dotted) const {
  if (!project || !ctx || !edges || !ctx->follow) return {};
  return project->store.lookup(*ctx, *edges, dotted);
}

std::optional<ForeignFunction> ProjectView::function(std::string_view dotted) const {
  ir::ProjectName pn = name(dotted);
  if (!pn.module || !pn.defined || pn.rest.empty()) return std::nullopt;
  const ir::Module& m = *pn.module->ir;
  // A top-level function, or a method `Cls.meth` / a static helper of a class.
  ir::FunctionId fn;
  for (uint32_t i = 1; i < m.functions.size(); ++i) {
    const ir::Function& f = m.functions[i];
    if (f.kind != ir::FunctionKind::Function) continue;
    if (m.names.str(f.qualname) != pn.rest) continue;
    fn = ir::FunctionId(i);
  }
  if (!fn.valid()) return std::nullopt;
  const FileFacts* ff = project->facts(pn.module);
  if (!ff) return std::nullopt;
  ForeignFunction out;
  out.may = ff->summaries.of(fn).may;
  out.must = ff->summaries.of(fn).must;
  // The module's last component names it; `pkg.sub.__init__` (a package
  // imported by its file's name) is `sub`.
  out.saves_to = ff->summaries.of(fn).saves_to;
  std::string mod = pn.module->ctx.name;
  if (mod.ends_with(".__init__")) mod.resize(mod.size() - 9);
  size_t dot = mod.rfind('.');
  out.name = (dot == std::string::npos ? mod : mod.substr(dot + 1)) + "." + pn.rest;
  out.file = pn.module->ctx.path;
  out.line = m.pos(m.fn(fn).span).line;
  out.module = pn.module;
  out.facts = ff;
  out.fn = fn;
  return out;
}

}  // namespace tpf::dataflow
