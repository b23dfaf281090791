// Small queries on Function/Class/Module, and `build`, the
// whole IR pipeline for one file.
// requires: a parsed ast::Module. produces: ir::Module in SSA form.
#include "ir/ir.h"

#include <algorithm>

#include "ir/cfg.h"
#include "ir/lower_state.h"

namespace tpf::ir {

BlockId Function::block_of(InstId i) const {
  // Blocks are laid out in order: the last block starting at or before i.
  auto it = std::upper_bound(blocks.begin(), blocks.end(), i.v,
                             [](uint32_t x, const Block& b) { return x < b.first; });
  return BlockId(static_cast<uint32_t>(it - blocks.begin()) - 1);
}

ValueId Function::binding(VarId var) const {
  auto it = std::lower_bound(bindings.begin(), bindings.end(), var,
                             [](const Binding& b, VarId v) { return b.var < v; });
  return it != bindings.end() && it->var == var ? it->value : kNoValue;
}

VarId Function::find_var(Symbol name) const {
  auto first = vars.begin(), last = vars.begin() + local_count;
  auto it = std::lower_bound(first, last, name, [](const Var& v, Symbol s) { return v.name < s; });
  return it != last && it->name == name ? VarId(static_cast<uint32_t>(it - first)) : VarId();
}

FunctionId Class::method(Symbol n) const {
  auto it = std::lower_bound(method_index.begin(), method_index.end(), n,
                             [](const std::pair<Symbol, FunctionId>& e, Symbol s) { return e.first < s; });
  return it != method_index.end() && it->first == n ? it->second : FunctionId();
}

void Class::index_methods() {
  method_index = methods;
  // Stable: defs of one name stay in source order, and the last one is kept.
  std::stable_sort(method_index.begin(), method_index.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  auto last = method_index.begin();
  for (auto it = method_index.begin(); it != method_index.end(); ++it) {
    if (last != method_index.begin() && (last - 1)->first == it->first) *(last - 1) = *it;
    else *last++ = *it;
  }
  method_index.erase(last, method_index.end());
}

ValueId Module::global_binding(Symbol name) const {
  if (functions.empty()) return kNoValue;
  if (std::binary_search(stored_globally.begin(), stored_globally.end(), name)) return kNoValue;
  VarId v = functions[0].find_var(name);
  return v.valid() && v.v < top_bindings.size() ? top_bindings[v.v] : kNoValue;
}

namespace {

/// Module::top_bindings of an SSA top level: a variable stored exactly
/// once is that value. `import torch` and `import torch.nn.parallel` both
/// bind `torch` to the same module: a name whose every store is an import
/// of one path (phis of them included) still denotes that module.
std::vector<ValueId> compute_top_bindings(const Function& top) {
  std::vector<ValueId> out(top.vars.size(), kNoValue);
  constexpr ValueId kMixed(UINT32_MAX - 1);  // a store that is no import of the first path
  for (uint32_t i = 0; i < top.values.size(); ++i) {
    VarId v = top.values[i].var;
    if (!v.valid() || v.v >= out.size() || out[v.v] == kMixed) continue;
    const Inst& d = top.insts[top.values[i].def.v];
    if (d.op == Op::Phi) continue;
    if (d.op != Op::Import || (out[v.v].valid() && top.def(out[v.v]).aux != d.aux)) out[v.v] = kMixed;
    else if (!out[v.v].valid()) out[v.v] = ValueId(i);
  }
  for (ValueId& x : out)
    if (x == kMixed) x = kNoValue;
  for (const Binding& b : top.bindings)
    if (b.var.v < out.size()) out[b.var.v] = b.value;
  return out;
}

}  // namespace

ClassId Module::find_class(std::string_view name) const {
  for (size_t i = classes.size(); i-- > 0;)
    if (names.str(classes[i].name) == name) return ClassId(static_cast<uint32_t>(i));
  return ClassId();
}

FunctionId Module::find_function(std::string_view qualname) const {
  for (size_t i = 0; i < functions.size(); ++i)
    if (functions[i].kind != FunctionKind::ClassBody && names.str(functions[i].qualname) == qualname)
      return FunctionId(static_cast<uint32_t>(i));
  return FunctionId();
}

namespace {

void compact(Function& fn) {
  fn.params.shrink_to_fit();
  fn.defaults.shrink_to_fit();
  fn.decorators.shrink_to_fit();
  fn.blocks.shrink_to_fit();
  fn.insts.shrink_to_fit();
  fn.values.shrink_to_fit();
  fn.operand_pool.shrink_to_fit();
  fn.vars.shrink_to_fit();
  fn.calls.shrink_to_fit();
  fn.kw_names.shrink_to_fit();
  fn.withs.shrink_to_fit();
  fn.pred_start.shrink_to_fit();
  fn.pred_list.shrink_to_fit();
  fn.bindings.shrink_to_fit();
  fn.local_refs.shrink_to_fit();
}

}  // namespace

Module build(const ast::Module& a, const SourceFile& src, DiagSink& diags, bool check) {
  // Each function goes to SSA as soon as it is lowered: its children exist
  // then, and the values of it they hold (defaults, decorators, bases, the
  // function or class object) are rewritten with it. Lowering the whole
  // file first kept every function's pre-SSA IR alive at once: on a file of
  // 300,000 small functions that was the peak.
  Lowerer lowerer(a, src, diags);
  SsaWorkspace ws;
  std::vector<ValueId*> held;
  lowerer.on_lowered = [&](FunctionId id, size_t first_function, size_t first_class) {
    Module& m = lowerer.m;
    held.clear();
    for (size_t i = first_function; i < m.functions.size(); ++i) {
      Function& child = m.functions[i];
      if (child.parent != id) continue;
      for (ValueId& v : child.defaults) held.push_back(&v);
      for (ValueId& v : child.decorators) held.push_back(&v);
      held.push_back(&child.value);
    }
    for (size_t i = first_class; i < m.classes.size(); ++i) {
      Class& c = m.classes[i];
      if (c.defined_in != id) continue;
      for (ValueId& v : c.bases) held.push_back(&v);
      for (ValueId& v : c.keyword_values) held.push_back(&v);
      for (ValueId& v : c.decorators) held.push_back(&v);
      held.push_back(&c.value);
    }
    Function& fn = m.functions[id.v];
    build_cfg(fn);
    to_ssa(fn, held, &ws);
    // Lowering grew the vectors by doubling; the function's IR is final now.
    compact(fn);
  };
  Module m = lowerer.run();
  if (!m.functions.empty()) m.top_bindings = compute_top_bindings(m.functions[0]);
  if (check)
    for (const Function& fn : m.functions) {
      std::string err = verify(m, fn);
      if (!err.empty()) {
        std::string what = "ir::verify failed in ";
        what += m.names.str(fn.qualname);
        what += " of ";
        what += src.path;
        what += ": ";
        what += err;
        internal_error(what);
      }
    }
  return m;
}

}  // namespace tpf::ir
