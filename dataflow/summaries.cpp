// Summaries: call graph, strongly connected components (Boost), may-effects
// by union over callees, must-effects by a forward MustSet analysis per
// function (intersection at joins) whose calls add their callee's must-set.
// Components are processed callees first; within one, iterate to a fixpoint
// (may grows, must starts empty and only grows: both bounded by 32 bits).
// requires: resolution, call kinds. produces: Summaries.
#include "dataflow/summaries.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "dataflow/facts.h"
#include "dataflow/lattices/bitset.h"
#include "dataflow/solver.h"

namespace tpf::dataflow {

namespace {

/// Rounds within one strongly connected component; effects are 32-bit sets,
/// but real recursion (a helper calling itself) settles in two.
constexpr int kSccRounds = 4;

class MustEffects {
 public:
  using Domain = MustSet;
  static constexpr Direction kDirection = Direction::Forward;
  MustEffects(const Summaries& s, const CallKinds& kinds, ir::FunctionId f)
      : s_(s), kinds_(kinds), f_(f) {}
  Domain initial(const ir::Function&) { return MustSet::of(0); }
  void transfer(const ir::Inst& in, ir::InstId id, Domain& d) {
    // An environment's `step(action)` is the call's (rules ask objects of
    // it) but no optimizer step of the function's summary.
    if (in.op == ir::Op::Call)
      d.add(s_.call_must(f_, id, kinds_) & ~(s_.steps_other(f_, id) ? uint32_t{kOptimizerStep} : 0u));
  }

 private:
  const Summaries& s_;
  const CallKinds& kinds_;
  ir::FunctionId f_;
};

uint32_t must_of(const ir::Module& m, const Summaries& s, const CallKinds& kinds,
                 ir::FunctionId fid) {
  const ir::Function& f = m.fn(fid);
  // Straight-line code (one block: its terminator is the only Return or
  // Raise) and functions whose calls add nothing need no solver: the state
  // at a Return is the union of the calls' must-sets before it, and a
  // function that never returns has none.
  uint32_t all = 0;
  for (uint32_t i = 0; i < f.insts.size(); ++i)
    if (f.insts[i].op == ir::Op::Call)
      all |= s.call_must(fid, ir::InstId(i), kinds) &
             ~(s.steps_other(fid, ir::InstId(i)) ? uint32_t{kOptimizerStep} : 0u);
  if (all == 0) return 0;
  if (f.blocks.size() == 1) return f.terminator(ir::BlockId(0)).op == ir::Op::Return ? all : 0;
  MustEffects a(s, kinds, fid);
  Solution<MustSet> sol = solve(a, f);
  if (sol.converged == Converged::No) return 0;
  MustSet at_return = MustSet::bottom();
  replay(a, f, sol, [&](ir::InstId id, const MustSet& st) {
    if (f.inst(id).op == ir::Op::Return) at_return.join(st);
  });
  return at_return.bits();  // 0 when the function never returns normally
}

}  // namespace

ir::FunctionId Summaries::callee(ir::FunctionId f, ir::InstId call) const {
  const auto& cs = calls[f.v];
  auto it = std::lower_bound(cs.begin(), cs.end(), call,
                             [](const CallEdge& e, ir::InstId c) { return e.call < c; });
  return it != cs.end() && it->call == call ? it->callee : ir::FunctionId();
}

namespace {

/// The foreign_fns index of call `call` of f in per-function edges sorted
/// by call, or UINT32_MAX.
uint32_t edge_index(const std::vector<std::vector<ForeignCallEdge>>& edges, ir::FunctionId f,
                    ir::InstId call) {
  if (edges.empty()) return UINT32_MAX;
  const auto& cs = edges[f.v];
  auto it = std::lower_bound(cs.begin(), cs.end(), call,
                             [](const ForeignCallEdge& e, ir::InstId c) { return e.call < c; });
  return it != cs.end() && it->call == call ? it->index : UINT32_MAX;
}

/// `GPT.from_pretrained` / `GPT.from_config`: the class whose instance
/// the call returns (the Hugging Face convention dataflow/objects.h also
/// assumes), `GPT`; empty for any other path.
std::string_view loader_class(std::string_view path) {
  size_t dot = path.rfind('.');
  if (dot == std::string_view::npos) return {};
  std::string_view last = path.substr(dot + 1);
  return last == "from_pretrained" || last == "from_config" ? path.substr(0, dot) : std::string_view();
}

/// Why 4: a model is built, moved (`.to(device)`) and bound to a name or a
/// global; longer chains are not how scripts build a model.
constexpr int kMaxClassDepth = 4;

/// The dotted paths of the classes value `v` of function `fid` may be an
/// instance of, when each is a name outside the file: `Net(...)`,
/// `Net.from_pretrained(...)`, `Net(...).to(device)`, and
/// `MODELS[name](...)` with MODELS a module-level dict literal of classes.
/// Empty when any of them is not such a name.
void foreign_classes(const ir::Module& m, const ir::Resolution& res, ir::FunctionId fid,
                     ir::ValueId v, int depth, std::vector<std::string>& out) {
  if (!v.valid() || depth > kMaxClassDepth) return out.clear();
  const ir::Function& f = m.fn(fid);
  const ir::Inst& d = f.def(v);
  auto external = [&](ir::FunctionId g, ir::ValueId c) {
    const ir::Referent& r = res.ref(g, c);
    if (r.kind != ir::Referent::Kind::External) return false;
    std::string_view p = m.names.str(r.path());
    std::string_view cls = loader_class(p);
    out.emplace_back(cls.empty() ? p : cls);
    return true;
  };
  if (d.op == ir::Op::LoadGlobal && fid.v != 0) {
    ir::ValueId g = m.global_binding(d.aux);
    if (g.valid()) return foreign_classes(m, res, ir::FunctionId(0), g, depth + 1, out);
  }
  if (d.op != ir::Op::Call || d.nops == 0) return out.clear();
  ir::ValueId callee = f.operands(d)[0];
  const ir::Inst& cd = f.def(callee);
  if (cd.op == ir::Op::GetAttr) {
    std::string_view a = m.names.str(cd.aux);
    if (a == "to" || a == "cuda" || a == "float" || a == "half" || a == "bfloat16" || a == "train")
      return foreign_classes(m, res, fid, f.operands(cd)[0], depth + 1, out);
  }
  if (external(fid, callee)) return;
  if (cd.op == ir::Op::GetItem) {
    // MODELS[name](...): every value of the dict literal MODELS names a class.
    const ir::Inst& box = f.def(f.operands(cd)[0]);
    ir::FunctionId bf = fid;
    ir::ValueId bv = f.operands(cd)[0];
    if (box.op == ir::Op::LoadGlobal && fid.v != 0) bf = ir::FunctionId(0), bv = m.global_binding(box.aux);
    if (bv.valid()) {
      const ir::Function& b = m.fn(bf);
      const ir::Inst& dict = b.def(bv);
      auto ops = b.operands(dict);
      if (dict.op == ir::Op::BuildDict && !ops.empty()) {
        for (size_t k = 1; k < ops.size(); k += 2)
          if (!external(bf, ops[k])) return out.clear();
        return;
      }
    }
  }
  out.clear();
}

/// Why 8: a value read for a log line is a reduction of arithmetic on a
/// torch function's result (`float(torch.pow(d, 2).mean())`,
/// `float((ratio < 1.25).float().mean())`); deeper chains are not followed.
constexpr int kTensorExprSteps = 8;

/// Methods of a tensor whose result is a Python value, not a tensor.
bool host_valued_method(std::string_view m) {
  static constexpr std::string_view kNames[] = {
      "item", "tolist", "numpy", "size", "dim", "numel", "nelement", "element_size",
      "data_ptr", "stride", "get_device", "is_contiguous", "is_floating_point", "storage_offset"};
  return std::find(std::begin(kNames), std::end(kNames), m) != std::end(kNames);
}

/// `v` is a tensor by how it was made: the result of a torch function that
/// computes on tensors (`torch.pow(d, 2)`, `torch.max(a, b)`,
/// `torch.nn.functional.mse_loss(p, y)`; not a factory such as
/// `torch.tensor(3.0)` or `torch.zeros(n)`, whose tensor is on the host
/// unless told otherwise, nor `torch.cuda.*`, `torch.is_*`, `torch.get_*`
/// and other library calls), of a loss (a kLoss row: `criterion(out, y)`
/// with `criterion = nn.MSELoss()`), or of a tensor method, arithmetic,
/// comparison, subscript or `.data` on such a tensor. A parameter, a
/// helper's result or a model's output is not known to be a tensor.
bool tensor_expr(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                 ir::FunctionId fid, ir::ValueId v, int depth) {
  if (!v.valid() || depth > kTensorExprSteps) return false;
  const ir::Function& f = m.fn(fid);
  const ir::Inst& d = f.def(v);
  auto any_operand = [&] {
    for (ir::ValueId o : f.operands(d))
      if (tensor_expr(m, res, kinds, fid, o, depth + 1)) return true;
    return false;
  };
  switch (d.op) {
    case ir::Op::BinOp:
    case ir::Op::UnaryOp:
    case ir::Op::Compare:
      return any_operand();
    case ir::Op::GetItem:
      return tensor_expr(m, res, kinds, fid, f.operands(d)[0], depth + 1);
    case ir::Op::GetAttr: {
      std::string_view a = m.names.str(d.aux);
      return (a == "data" || a == "T") && tensor_expr(m, res, kinds, fid, f.operands(d)[0], depth + 1);
    }
    case ir::Op::Call:
      break;
    default:
      return false;
  }
  ir::InstId id = f.def_id(v);
  if (info(kinds[fid.v][id.v]).effects & kLoss) return true;
  ir::CallTarget t = res.call_target(fid, id);
  if (t.kind == ir::CallTarget::Kind::External && t.name.valid()) {
    std::string_view n = m.names.str(t.name);
    if (n.starts_with("torch.nn.functional.")) return true;
    if (!n.starts_with("torch.")) return false;
    std::string_view fn = n.substr(6);
    if (fn.find('.') != std::string_view::npos || fn.starts_with("is_") || fn.starts_with("get_") ||
        fn.starts_with("set_") || fn.ends_with("_like") || fn.starts_with("rand") || fn == "numel" ||
        fn == "initial_seed" || fn == "manual_seed" || fn == "seed" || fn == "load" || fn == "save" ||
        fn == "device" || fn == "dtype" || fn == "tensor" || fn == "as_tensor" || fn == "from_numpy" ||
        fn == "zeros" || fn == "ones" || fn == "empty" || fn == "full" || fn == "arange" ||
        fn == "linspace" || fn == "logspace" || fn == "eye" || fn == "normal" || fn == "bernoulli" ||
        fn == "no_grad" || fn == "enable_grad" || fn == "inference_mode" || fn == "compile" ||
        fn.ends_with("Tensor"))
      return false;
    return true;
  }
  if (d.nops == 0) return false;
  const ir::Inst& cd = f.def(f.operands(d)[0]);
  if (cd.op != ir::Op::GetAttr || host_valued_method(m.names.str(cd.aux))) return false;
  return tensor_expr(m, res, kinds, fid, f.operands(cd)[0], depth + 1);
}

/// `float(t)`, `int(t)`, `bool(t)` or `round(t)` of a tensor by
/// construction: `Tensor.__float__` copies the value to the host and waits
/// for the kernels that compute it (PyTorch 2.x: `_tensor.py`'s
/// `__float__` calls `item()`).
bool tensor_read(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                 ir::FunctionId fid, ir::InstId call) {
  TorchCall k = kinds[fid.v][call.v];
  if (k != TorchCall::Float && k != TorchCall::Int && k != TorchCall::Bool && k != TorchCall::Round)
    return false;
  const ir::Function& f = m.fn(fid);
  const ir::Inst& in = f.inst(call);
  if (f.call_info(in).npos < 1) return false;
  return tensor_expr(m, res, kinds, fid, f.operands(in)[1], 0);
}

/// The name a value was stored under or read from: `env` in `env.step`,
/// `scaler` in `self.scaler.step(...)`; "" when it has none.
std::string_view value_name(const ir::Module& m, const ir::Function& f, ir::ValueId v) {
  if (!v.valid()) return {};
  const ir::Inst& d = f.def(v);
  if (d.op == ir::Op::GetAttr) return m.names.str(d.aux);
  if (d.op == ir::Op::LoadGlobal) return m.names.str(d.aux);
  ir::VarId var = f.values[v.v].var;
  // Temporaries have no name (kNoSymbol).
  if (!var.valid() || f.vars[var.v].name == ir::kNoSymbol) return {};
  return m.names.str(f.vars[var.v].name);
}

/// A bare `x.step(a, ...)` (the OptimizerStep row) that steps no optimizer:
/// torch.optim's `step` takes at most a closure, so a positional argument
/// that is no function of the file (`env.step(action)`,
/// `sampler.step(noise, t, x)`) names an environment or a sampler. Kept as
/// steps: a closure (`opt.step(closure)`, L-BFGS), an optimizer handed over
/// (`scaler.step(opt)` on a scaler the file does not build: a `torch.optim`
/// result, or a value named for an optimizer), and receivers named for an
/// optimizer or a scaler. The rules ask objects of the call itself
/// (checks/facts.h steps_other_object); this keeps such a step out of the
/// summaries of the helpers that run it (a rollout helper is no training
/// step).
bool other_step(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds, ir::FunctionId fid,
                ir::InstId call) {
  if (kinds[fid.v][call.v] != TorchCall::OptimizerStep) return false;
  const ir::Function& f = m.fn(fid);
  const ir::Inst& in = f.inst(call);
  if (f.call_info(in).npos < 1) return false;
  auto optimizer_named = [](std::string_view n) {
    std::string low(n);
    for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return low.find("optim") != std::string::npos || low.find("scaler") != std::string::npos ||
           low == "opt" || low.starts_with("opt_") || low.ends_with("_opt");
  };
  const ir::Inst& cd = f.def(f.operands(in)[0]);
  if (cd.op == ir::Op::GetAttr && optimizer_named(value_name(m, f, f.operands(cd)[0]))) return false;
  ir::ValueId a = f.operands(in)[1];
  const ir::Referent& r = res.ref(fid, a);
  if (r.kind == ir::Referent::Kind::Function) return false;
  if (r.kind == ir::Referent::Kind::Result && m.names.str(r.path()).starts_with("torch.optim")) return false;
  if (f.def(a).op == ir::Op::MakeFunction) return false;
  return !optimizer_named(value_name(m, f, a));
}

}  // namespace

std::span<const ForeignCallEdge> Summaries::foreign_methods_of(ir::FunctionId f, ir::InstId call) const {
  if (foreign_methods.empty()) return {};
  const auto& cs = foreign_methods[f.v];
  auto lo = std::lower_bound(cs.begin(), cs.end(), call,
                             [](const ForeignCallEdge& e, ir::InstId c) { return e.call < c; });
  auto hi = lo;
  while (hi != cs.end() && hi->call == call) ++hi;
  return {lo, hi};
}

const ForeignFunction* Summaries::foreign_callee(ir::FunctionId f, ir::InstId call) const {
  uint32_t i = edge_index(foreign, f, call);
  return i == UINT32_MAX ? nullptr : &foreign_fns[i];
}

const ForeignFunction* Summaries::foreign_forward(ir::FunctionId f, ir::InstId ctor) const {
  uint32_t i = edge_index(foreign_ctors, f, ctor);
  return i == UINT32_MAX ? nullptr : &foreign_fns[i];
}

bool Summaries::steps_other(ir::FunctionId f, ir::InstId call) const {
  if (other_steps.empty()) return false;
  const auto& r = other_steps[f.v];
  return std::binary_search(r.begin(), r.end(), call);
}

bool Summaries::reads_tensor(ir::FunctionId f, ir::InstId call) const {
  if (tensor_reads.empty()) return false;
  const auto& r = tensor_reads[f.v];
  return std::binary_search(r.begin(), r.end(), call);
}

uint32_t Summaries::call_may(ir::FunctionId f, ir::InstId call, const CallKinds& kinds) const {
  uint32_t bits = info(kinds[f.v][call.v]).effects;
  if (reads_tensor(f, call)) bits |= kSync;
  ir::FunctionId g = callee(f, call);
  if (g.valid()) bits |= fn[g.v].may;
  else if (const ForeignFunction* ff = foreign_callee(f, call)) bits |= ff->may;
  for (const ForeignCallEdge& e : foreign_methods_of(f, call)) bits |= foreign_fns[e.index].may & kSync;
  return bits;
}

uint32_t Summaries::call_must(ir::FunctionId f, ir::InstId call, const CallKinds& kinds) const {
  uint32_t bits = info(kinds[f.v][call.v]).effects;
  if (reads_tensor(f, call)) bits |= kSync;
  ir::FunctionId g = callee(f, call);
  if (g.valid()) bits |= fn[g.v].must;
  else if (const ForeignFunction* ff = foreign_callee(f, call)) bits |= ff->must;
  // `result.evaluate(pred, y)` on an object of another module's class (one
  // edge per class it may be built from): a read when every method reads.
  std::span<const ForeignCallEdge> methods = foreign_methods_of(f, call);
  uint32_t all = methods.empty() ? 0u : uint32_t{kSync};
  for (const ForeignCallEdge& e : methods) all &= foreign_fns[e.index].must;
  return bits | all;
}

namespace {

/// The instruction clears a gradient itself: `p.grad = None`, `del p.grad`,
/// or an in-place reset of a `.grad` (`p.grad.zero_()`, `p.grad.detach_()`,
/// `p.grad.fill_(0)`, `p.grad.data.zero_()`). Helpers doing this are
/// zero-grad helpers (improved-diffusion's fp16_util.zero_grad).
bool clears_grad(const ir::Module& m, const ir::Function& f, const ir::Inst& in) {
  if (in.op == ir::Op::SetAttr || in.op == ir::Op::DelAttr) return m.names.str(in.aux) == "grad";
  if (in.op != ir::Op::Call || in.nops == 0) return false;
  const ir::Inst& callee = f.def(f.operands(in)[0]);
  if (callee.op != ir::Op::GetAttr) return false;
  std::string_view meth = m.names.str(callee.aux);
  if (meth != "zero_" && meth != "detach_" && meth != "fill_" && meth != "requires_grad_") return false;
  if (meth == "requires_grad_") return false;
  auto attr_of = [&](ir::ValueId v) -> std::string_view {
    const ir::Inst& d = f.def(v);
    return d.op == ir::Op::GetAttr ? m.names.str(d.aux) : std::string_view();
  };
  ir::ValueId recv = f.operands(callee)[0];
  std::string_view a = attr_of(recv);
  if (a == "grad") return true;
  return a == "data" && attr_of(f.operands(f.def(recv))[0]) == "grad";
  return false;
}


/// Why 6: a save path is a parameter joined, formatted or suffixed a few
/// times (`os.path.join(folder, "model_%d.pt" % epoch)`); deeper is not a path.
constexpr int kMaxPathDepth = 6;

/// The parameters (bit i: parameter i) value v of function f is built
/// from as a path: the parameter itself, a phi of such values, a template
/// (and its tuple of values) or concatenation, an f-string, `os.path.*` /
/// `pathlib.*` / `str(...)`.
uint32_t path_params(const ir::Module& m, const ir::Resolution& res, ir::FunctionId fid, ir::ValueId v,
                     int depth) {
  if (!v.valid() || depth > kMaxPathDepth) return 0;
  const ir::Function& f = m.fn(fid);
  const ir::Inst& d = f.def(v);
  auto ops = f.operands(d);
  uint32_t bits = 0;
  switch (d.op) {
    case ir::Op::Param:
      return d.aux < 32 ? 1u << d.aux : 0;
    case ir::Op::Phi:
      for (ir::ValueId o : ops)
        if (o != v) bits |= path_params(m, res, fid, o, depth + 1);
      return bits;
    case ir::Op::BinOp:
    case ir::Op::BuildString:
    case ir::Op::FormatValue:
    case ir::Op::BuildTuple:  // `"%s/w_%d.pt" % (run_dir, step)`
      for (ir::ValueId o : ops) bits |= path_params(m, res, fid, o, depth + 1);
      return bits;
    case ir::Op::Call: {
      ir::CallTarget t = res.call_target(fid, f.def_id(v));
      if (t.kind != ir::CallTarget::Kind::External || !t.name.valid()) return 0;
      std::string n = m.names.str(t.name);  // built from the path: keep it
      if (!n.starts_with("os.path.") && !n.starts_with("pathlib.") && n != "builtins.str") return 0;
      for (size_t a = 1; a < ops.size(); ++a) bits |= path_params(m, res, fid, ops[a], depth + 1);
      return bits;
    }
    default:
      return 0;
  }
}

/// FunctionSummary::saves_to of f: the path of its `torch.save` calls, and
/// the arguments it passes for its callees' saves_to parameters (their
/// summaries are complete: callees come first; recursion is not followed).
uint32_t saves_to(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                  const Summaries& s, ir::FunctionId fid) {
  const ir::Function& f = m.fn(fid);
  uint32_t bits = 0;
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& in = f.insts[i];
    if (in.op != ir::Op::Call) continue;
    ir::InstId id(i);
    if (kinds[fid.v][i] == TorchCall::TorchSave) {
      bits |= path_params(m, res, fid, call_arg(m, f, in, 1, "f"), 0);
      continue;
    }
    uint32_t callee_bits = 0;
    const ir::Function* callee = nullptr;
    if (ir::FunctionId g = s.callee(fid, id); g.valid() && g != fid) {
      callee_bits = s.fn[g.v].saves_to;
      callee = &m.fn(g);
    } else if (const ForeignFunction* ff = s.foreign_callee(fid, id)) {
      callee_bits = ff->saves_to;
      callee = &ff->module->ir->fn(ff->fn);
    }
    if (!callee_bits) continue;
    bind_call_args(f, in, res.call_target(fid, id), *callee, [&](size_t p, ir::ValueId a) {
      if (p < 32 && ((callee_bits >> p) & 1)) bits |= path_params(m, res, fid, a, 0);
    });
  }
  return bits;
}

}  // namespace

Summaries compute_summaries(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                            const ProjectView* project) {
  size_t n = m.functions.size();
  Summaries s;
  s.fn.resize(n);
  s.calls.resize(n);
  if (project) s.foreign.resize(n), s.foreign_ctors.resize(n);
  // dotted path -> foreign_fns index (or UINT32_MAX); a map: a file calling
  // 100,000 distinct names searched a list per call
  std::unordered_map<std::string, uint32_t> foreign_index;
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  Graph g(n);
  std::vector<uint32_t> own(n, 0);
  auto find = [&](const std::string& p, bool module_class) {
    auto it = foreign_index.find(p);
    if (it != foreign_index.end()) return it->second;
    std::optional<ForeignFunction> ff = project->function(p);
    // A class's method: of an nn.Module subclass only.
    if (ff && module_class) {
      const ir::Function& g = ff->module->ir->fn(ff->fn);
      if (!g.owner.valid() || !ff->facts->res.is_module_class(g.owner)) ff.reset();
    }
    uint32_t idx = ff ? static_cast<uint32_t>(s.foreign_fns.size()) : UINT32_MAX;
    if (ff) s.foreign_fns.push_back(std::move(*ff));
    foreign_index.emplace(p, idx);
    return idx;
  };
  if (project) s.foreign_methods.resize(n);
  s.tensor_reads.resize(n);
  s.other_steps.resize(n);
  for (uint32_t fi = 0; fi < n; ++fi) {
    const ir::Function& f = m.functions[fi];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (clears_grad(m, f, f.insts[i])) own[fi] |= kZeroGrad;
      if (f.insts[i].op != ir::Op::Call) continue;
      uint32_t row = info(kinds[fi][i]).effects;
      if (other_step(m, res, kinds, ir::FunctionId(fi), ir::InstId(i))) {
        s.other_steps[fi].push_back(ir::InstId(i));
        row &= ~uint32_t{kOptimizerStep};
      }
      own[fi] |= row;
      if (tensor_read(m, res, kinds, ir::FunctionId(fi), ir::InstId(i))) {
        s.tensor_reads[fi].push_back(ir::InstId(i));
        own[fi] |= kSync;
      }
      ir::CallTarget t = res.call_target(ir::FunctionId(fi), ir::InstId(i));
      bool local = t.fn.valid() && (t.kind == ir::CallTarget::Kind::Function ||
                                    t.kind == ir::CallTarget::Kind::Constructor ||
                                    t.kind == ir::CallTarget::Kind::InstanceCall);
      std::string free_name;  // a name no statement binds: `from m import *` may
      if (!local && project && t.kind == ir::CallTarget::Kind::Unknown && f.insts[i].nops > 0) {
        const ir::Inst& cd = f.def(f.operands(f.insts[i])[0]);
        if (cd.op == ir::Op::LoadGlobal) free_name = "builtins." + std::string(m.names.str(cd.aux));
      }
      if (!local && project &&
          ((t.kind == ir::CallTarget::Kind::External && t.name.valid()) || !free_name.empty())) {
        const std::string& path = free_name.empty() ? m.names.str(t.name) : free_name;
        uint32_t idx = find(path, false);
        if (idx != UINT32_MAX) {
          s.foreign[fi].push_back(ForeignCallEdge{ir::InstId(i), idx});
          own[fi] |= s.foreign_fns[idx].may;
        }
        // A class built here: `net.Network()`, or `GPT.from_pretrained(...)`,
        // which returns an instance of its class.
        std::string cls = idx == UINT32_MAX ? path : std::string(loader_class(path));
        if (free_name.empty() && !cls.empty() && (idx = find(cls + ".forward", true)) != UINT32_MAX)
          s.foreign_ctors[fi].push_back(ForeignCallEdge{ir::InstId(i), idx});
        continue;
      }
      if (!local && project && t.kind == ir::CallTarget::Kind::Method && t.receiver.valid()) {
        // `model.nll(x)` on an object built from another module's class (or
        // from one of a dict of such classes): each class's method.
        std::vector<std::string> classes;
        foreign_classes(m, res, ir::FunctionId(fi), t.receiver, 0, classes);
        std::string_view method = m.names.str(t.method);
        for (const std::string& c : classes) {
          uint32_t idx = find(c + "." + std::string(method), false);
          if (idx == UINT32_MAX) continue;
          s.foreign_methods[fi].push_back(ForeignCallEdge{ir::InstId(i), idx});
          own[fi] |= s.foreign_fns[idx].may & kSync;
        }
        continue;
      }
      if (!local) continue;
      s.calls[fi].push_back(CallEdge{ir::InstId(i), t.fn});
      s.fn[t.fn.v].called = true;
      boost::add_edge(fi, t.fn.v, g);
      if (t.fn.v == fi) s.fn[fi].recursive = true;
    }
  }
  std::vector<int> comp(n);
  int ncomp = n ? boost::strong_components(
                      g, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, g)))
                : 0;
  std::vector<std::vector<uint32_t>> members(static_cast<size_t>(ncomp));
  for (uint32_t fi = 0; fi < n; ++fi) members[static_cast<size_t>(comp[fi])].push_back(fi);
  for (const auto& mem : members)
    if (mem.size() > 1)
      for (uint32_t fi : mem) s.fn[fi].recursive = true;
  // Boost numbers components in reverse topological order (Tarjan: a
  // component is finished after every component it reaches), so callees
  // come first. The fixpoint below does not depend on it; it only converges faster.
  for (const auto& mem : members) {
    for (int round = 0; round < kSccRounds; ++round) {
      bool changed = false;
      for (uint32_t fi : mem) {
        uint32_t may = own[fi];
        for (const CallEdge& e : s.calls[fi]) may |= s.fn[e.callee.v].may;
        uint32_t must = must_of(m, s, kinds, ir::FunctionId(fi));
        if (may != s.fn[fi].may || must != s.fn[fi].must) changed = true;
        s.fn[fi].may |= may;
        s.fn[fi].must = must;
      }
      if (!changed) break;
    }
  }
  for (uint32_t fi = 0; fi < n; ++fi) {
    s.fn[fi].returns = res.returns(ir::FunctionId(fi));
  }
  for (const auto& mem : members)
    for (uint32_t fi : mem) s.fn[fi].saves_to = saves_to(m, res, kinds, s, ir::FunctionId(fi));
  return s;
}

}  // namespace tpf::dataflow
