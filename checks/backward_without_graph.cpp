// TPF022 backward_without_graph
//
// What it finds: `loss.backward()` that cannot train:
//   - the loss is computed with autograd off (inside `torch.no_grad()`,
//     `torch.inference_mode()`, `set_grad_enabled(False)`, or in a
//     function every in-file caller runs that way) and carries no graph;
//   - the loss is the direct output of a loss with `reduction="none"`
//     (`nn.CrossEntropyLoss(reduction="none")`, `F.mse_loss(...,
//     reduction="none")`): a tensor per element, and `backward()` is called
//     on it with no `gradient` and no `.mean()` / `.sum()`;
//   - an optimizer built on `model.parameters()` after every parameter of
//     that same `model` was frozen (`model.requires_grad_(False)`, or a loop
//     `for p in model.parameters(): p.requires_grad = False` with no
//     condition in it) on every path, then stepped, with nothing in the file
//     setting `requires_grad` back on and nothing giving `model` new
//     parameters before the optimizer takes them.
// Why it costs: backward on a tensor without a graph raises "element 0 of
//   tensors does not require grad", and backward on a non-scalar raises
//   "grad can be implicitly created only for scalar outputs" — at the first
//   step, after data loading, model building and often a queue wait on a
//   cluster; under no_grad a run that catches or skips the error trains
//   nothing at all. With every parameter frozen the loss has no graph
//   either (torch/csrc/autograd/python_engine.cpp, THPEngine_run_backward:
//   "element 0 of tensors does not require grad and does not have a
//   grad_fn"), and when another input keeps a graph the optimizer's
//   parameters still get no `.grad`, which `step()` skips
//   (torch/optim/sgd.py, adam.py: `if p.grad is not None`): the run
//   trains nothing.
// Example:
//     with torch.no_grad():
//         loss = criterion(model(x), y)
//     loss.backward()
// Fix: compute the loss with autograd on (move it out of the no_grad
//   block); reduce a per-element loss (`loss.mean().backward()`) or pass
//   `gradient=`; after freezing, re-enable the layers to train (or replace
//   the head) before building the optimizer.
// Not flagged: a loss with a graph on some path (a phi of graph and no
//   graph), `torch.enable_grad()` inside no_grad, losses whose grad mode is
//   not known (a function called both ways), a per-element loss reduced
//   before backward or weighted by a mask then summed, `backward(gradient)`,
//   loss modules held in attributes (`self.criterion`). Frozen parameters
//   when any part may still train: freezing a submodule
//   (`model.backbone.parameters()`), freezing under a condition (in a branch
//   or with an `if` in the loop), a new head assigned after freezing
//   (`model.fc = nn.Linear(...)`, `model.classifier[6] = ...`) or the model
//   handed to code that may add layers (`get_peft_model`, a helper of the
//   file) before the optimizer is built, any `requires_grad = True` /
//   `requires_grad_(True)` in the file on something not known to be a data
//   tensor, an optimizer over a filter, a list, param groups or another
//   module, `add_param_group`, and a model or optimizer rebound or wrapped
//   between the freeze and the step.
#include <algorithm>

#include "checks/facts.h"
#include "ir/cfg.h"

namespace tpf::checks::backward_without_graph {

const std::string_view kExplain = R"(TPF022 backward_without_graph: backward on a loss computed under no_grad, on a per-element loss, or with every optimized parameter frozen

What it finds
  `loss.backward()` that cannot train:
  - the loss is computed with autograd off (inside `torch.no_grad()`,
    `torch.inference_mode()`, `set_grad_enabled(False)`, or in a function
    every in-file caller runs that way) and carries no graph;
  - the loss is the direct output of a loss with `reduction="none"`
    (`nn.CrossEntropyLoss(reduction="none")`, `F.mse_loss(...,
    reduction="none")`), a tensor per element, and `backward()` is called
    on it with no `gradient` and no `.mean()` or `.sum()`;
  - an optimizer built on `model.parameters()` after every parameter of
    that same `model` was frozen on every path
    (`model.requires_grad_(False)`, or `for p in model.parameters():
    p.requires_grad = False` with no condition in the loop), and then
    stepped, with nothing in the file turning `requires_grad` back on and
    nothing giving `model` new layers before the optimizer is built.

Why it costs
  backward on a tensor without a graph raises "element 0 of tensors does
  not require grad", and backward on a non-scalar raises "grad can be
  implicitly created only for scalar outputs": at the first step, after
  data loading, model building and often a queue wait on a cluster. A run
  that catches or skips the error trains nothing at all. With every
  parameter frozen the loss has no graph either, so the first backward
  raises the same error; if another input still carries a graph, the
  optimizer's parameters get no gradient and `step()` skips them: the GPU
  hours go into a model that never changes.

Example
  with torch.no_grad():
      loss = criterion(model(x), y)
  loss.backward()

  model.requires_grad_(False)
  optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

Fix
  compute the loss with autograd on (move it out of the no_grad block);
  reduce a per-element loss (`loss.mean().backward()`) or pass
  `gradient=`; after freezing, re-enable the layers to train
  (`model.fc.requires_grad_(True)`) or replace the head, before the
  optimizer is built, and hand the optimizer only trainable parameters.

Not flagged
  - a loss with a graph on some path (a phi of graph and no graph)
  - `torch.enable_grad()` inside no_grad, and losses whose grad mode is not
    known (a function called both ways)
  - a per-element loss reduced before backward, or weighted and then summed
  - `backward(gradient)`
  - loss modules held in attributes (`self.criterion`)
  - frozen parameters when some part may still train: freezing a submodule
    (`model.backbone.parameters()`) or under a condition (in a branch, or
    an `if` inside the loop); a new head assigned after freezing
    (`model.fc = nn.Linear(...)`, `model.classifier[6] = ...`), or the
    model handed to code that may add layers (`get_peft_model`, a helper
    of the file) before the optimizer is built; any `requires_grad = True`
    or `requires_grad_(True)` in the file on something that may be a
    parameter; an optimizer over a filter, a list, param groups or another
    module; `add_param_group`; a model or optimizer rebound or wrapped
    between the freeze and the step
)";

namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF022);

bool reduction_none(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f,
                    const ir::Inst& call) {
  ir::ValueId r = call_arg(ctx, f, call, -1, "reduction");
  if (!r.valid()) return false;
  const ir::ConstValue& c = ctx.facts.res.constant(fid, r);
  return c.kind == ir::ConstValue::Kind::Str && c.s == "none";
}

/// The call building the loss module a callee value denotes: a local
/// `criterion = nn.X(...)` or a module-level one.
const ir::Inst* loss_module_ctor(const CheckContext& ctx, ir::FunctionId& fid, ir::ValueId callee) {
  const ir::Function* f = &ctx.ir.fn(fid);
  for (int depth = 0; callee.valid() && depth < 4; ++depth) {
    const ir::Inst& d = f->def(callee);
    if (d.op == ir::Op::Call) return &d;
    if (d.op != ir::Op::LoadGlobal) return nullptr;
    callee = ctx.ir.global_binding(d.aux);
    fid = ir::FunctionId(0);
    f = &ctx.ir.fn(fid);
  }
  return nullptr;
}

/// The loss value is a per-element loss: the direct result of a loss call
/// with reduction="none" (functional or module).
bool per_element(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f, ir::ValueId v) {
  if (!v.valid() || f.def(v).op != ir::Op::Call) return false;
  ir::InstId ci = f.def_id(v);
  if (loss_kind(ctx, fid, ci) == LossKind::None) return false;
  const ir::Inst& call = f.inst(ci);
  ir::CallTarget t = ctx.facts.res.call_target(fid, ci);
  if (t.kind == ir::CallTarget::Kind::External) return reduction_none(ctx, fid, f, call);
  if (t.kind != ir::CallTarget::Kind::ResultCall) return false;
  ir::FunctionId cf = fid;
  const ir::Inst* ctor = loss_module_ctor(ctx, cf, f.operands(call)[0]);
  return ctor && !has_unpacked_args(ctx.ir.fn(cf), *ctor) &&
         reduction_none(ctx, cf, ctx.ir.fn(cf), *ctor);
}

/// Every producer of `v` (through phis) is an operation that ran with
/// autograd off, and no path gives it a graph.
bool computed_without_grad(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f,
                           ir::ValueId v, Span& site) {
  // Under no_grad every op's result is detached (PyTorch 2.x autograd
  // grad mode docs), whatever the provenance analysis could tell; only a
  // call that may hand back an existing tensor (`.to()` on a tensor
  // already there, `.cpu()`) could still carry a graph.
  if (ctx.facts.grad_state(fid, v) == dataflow::GradState::Graph) return false;
  std::vector<ir::ValueId> work{v}, seen;
  bool any = false;
  while (!work.empty()) {
    ir::ValueId x = work.back();
    work.pop_back();
    if (std::find(seen.begin(), seen.end(), x) != seen.end()) continue;
    seen.push_back(x);
    if (seen.size() > 32) return false;
    const ir::Inst& d = f.def(x);
    if (d.op == ir::Op::Phi) {
      for (ir::ValueId o : f.operands(d))
        if (f.def(o).op != ir::Op::Undef) work.push_back(o);
      continue;
    }
    if (d.op != ir::Op::Call && d.op != ir::Op::BinOp) return false;
    if (!dataflow::under_no_grad(ctx.facts, fid, f.def_id(x))) return false;
    if (d.op == ir::Op::Call) {
      dataflow::TorchCall k = torch_call(ctx, fid, f.def_id(x));
      if (k != dataflow::TorchCall::None && dataflow::info(k).grad == dataflow::GradRule::Receiver)
        return false;
    }
    if (!any) site = d.span;
    any = true;
  }
  return any;
}

// ------------------------------------------------ every parameter frozen ----

bool const_false(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  if (!v.valid()) return false;
  const ir::ConstValue& c = ctx.facts.res.constant(fid, v);
  return c.kind == ir::ConstValue::Kind::Bool && c.i == 0;
}

/// Somewhere in the file `requires_grad` may be turned on for something
/// that may be a parameter: `p.requires_grad = <anything but False>`,
/// `m.requires_grad_()` / `requires_grad_(flag)`, `setattr(p,
/// "requires_grad", ...)`, or parameters added to an optimizer later
/// (`add_param_group`). Data tensors (`x.requires_grad_()` on a batch for
/// input gradients) do not count.
bool file_may_unfreeze(const CheckContext& ctx) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op == ir::Op::SetAttr && ctx.ir.names.str(in.aux) == "requires_grad") {
        auto ops = f.operands(in);
        if (!const_false(ctx, fid, ops[1]) && !is_tensor(ctx, fid, ops[0])) return true;
        continue;
      }
      if (in.op != ir::Op::Call) continue;
      std::string_view m = call_method(ctx, f, in);
      if (m == "add_param_group") return true;
      if (m == "requires_grad_") {
        if (!const_false(ctx, fid, call_arg(ctx, f, in, 0, "requires_grad")) &&
            !is_tensor(ctx, fid, call_receiver(f, in)))
          return true;
        continue;
      }
      if (call_target_name(ctx, fid, ir::InstId(i)) == "builtins.setattr") return true;
    }
  }
  return false;
}

/// Methods of a module that neither add parameters nor change which of
/// them require grad (`requires_grad_` only ever with False here: see
/// file_may_unfreeze).
bool keeps_parameters(std::string_view m) {
  static constexpr std::string_view kNames[] = {
      "parameters", "named_parameters", "buffers", "named_buffers", "children",
      "named_children", "modules", "named_modules", "to", "cuda", "cpu", "train", "eval",
      "float", "half", "double", "bfloat16", "state_dict", "load_state_dict", "zero_grad",
      "requires_grad_", "forward"};
  return std::find(std::begin(kNames), std::end(kNames), m) != std::end(kNames);
}

/// Builtins that take a module or its parameters without changing them.
bool inspects_only(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "builtins.print", "builtins.len", "builtins.list", "builtins.tuple", "builtins.sum",
      "builtins.iter", "builtins.enumerate", "builtins.isinstance", "builtins.hasattr",
      "builtins.getattr", "builtins.id", "builtins.str", "builtins.repr", "builtins.sorted",
      "builtins.zip", "builtins.any", "builtins.all", "builtins.type"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

/// `key` names `whole` or a part of it: "model", "model.fc" are parts of
/// "model"; "model_ema" and "self" are not parts of "model" / "self.model".
bool part_of(std::string_view key, std::string_view whole) {
  return !key.empty() && key.starts_with(whole) &&
         (key.size() == whole.size() || key[whole.size()] == '.');
}

/// Every parameter of a module is frozen at `at`: a `requires_grad_(False)`
/// call, or the GetIter of a loop over its parameters with no condition
/// in it.
struct Freeze {
  ir::InstId at;
  ir::ValueId module;
  Span site;
};

/// An optimizer built on the parameters of a module whose parameters are
/// all frozen before, then stepped.
class FrozenOptimizer {
 public:
  FrozenOptimizer(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {}

  void run(DiagSink& out) {
    std::vector<Freeze> freezes = find_freezes();
    if (freezes.empty()) return;
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId c(i);
      const ir::Inst& ctor = f_.insts[i];
      if (ctor.op != ir::Op::Call || !is_optimizer_ctor(c) || !ctor.result.valid()) continue;
      ir::ValueId held = parameters_of(call_arg(ctx_, f_, ctor, 0, "params"));
      if (!held.valid()) continue;
      for (const Freeze& z : freezes) {
        if (!same_module(z.module, held) || !dom.dominates(f_, z.at, c)) continue;
        std::string key = access_key(ctx_, fid_, held);
        if (key.empty() || changed_after(z, c, key)) continue;
        ir::InstId s = step_of(c);
        if (!s.valid()) continue;
        report(z, c, s, key, out);
        break;
      }
    }
  }

 private:
  /// `m` in `m.parameters()` / `m.named_parameters()` called with no
  /// arguments, or kNoValue.
  ir::ValueId parameters_of(ir::ValueId v, bool named_too = false) const {
    if (!v.valid() || f_.def(v).op != ir::Op::Call) return ir::kNoValue;
    const ir::Inst& d = f_.def(v);
    std::string_view m = call_method(ctx_, f_, d);
    if (m != "parameters" && !(named_too && m == "named_parameters")) return ir::kNoValue;
    if (f_.call_info(d).npos != 0 || f_.call_info(d).nkw != 0) return ir::kNoValue;
    if (ctx_.facts.res.call_target(fid_, f_.def_id(v)).kind != ir::CallTarget::Kind::Method)
      return ir::kNoValue;
    return call_receiver(f_, d);
  }

  /// A torch.optim optimizer class (not a scheduler or SWA helper).
  bool is_optimizer_ctor(ir::InstId c) const {
    std::string_view n = call_target_name(ctx_, fid_, c);
    constexpr std::string_view kPrefix = "torch.optim.";
    if (!n.starts_with(kPrefix) || ctx_.facts.res.call_target(fid_, c).kind !=
                                       ir::CallTarget::Kind::External)
      return false;
    std::string_view rest = std::string_view(n).substr(kPrefix.size());
    rest = rest.substr(rest.rfind('.') == std::string_view::npos ? 0 : rest.rfind('.') + 1);
    return !rest.empty() && rest.front() >= 'A' && rest.front() <= 'Z' &&
           n.find("lr_scheduler") == std::string::npos && n.find("swa_utils") == std::string::npos;
  }

  std::vector<Freeze> find_freezes() const {
    std::vector<Freeze> out;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op == ir::Op::Call && call_method(ctx_, f_, in) == "requires_grad_" &&
          const_false(ctx_, fid_, call_arg(ctx_, f_, in, 0, "requires_grad"))) {
        ir::ValueId m = call_receiver(f_, in);
        if (m.valid()) out.push_back({ir::InstId(i), m, in.span});
        continue;
      }
      if (in.op != ir::Op::GetIter || !in.result.valid()) continue;
      ir::ValueId m = parameters_of(f_.operands(in)[0], true);
      if (!m.valid()) continue;
      Span site;
      if (loop_freezes_each(in.result, site)) out.push_back({ir::InstId(i), m, site});
    }
    return out;
  }

  /// The loop over `iter` has no condition, nested loop or early exit, and
  /// sets `requires_grad = False` (or calls `requires_grad_(False)`) on
  /// each item (`p`, or `p` of `for name, p in ...`).
  bool loop_freezes_each(ir::ValueId iter, Span& site) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    for (uint32_t j = 0; j < f_.insts.size(); ++j) {
      const ir::Inst& fi = f_.insts[j];
      if (fi.op != ir::Op::ForIter || f_.operands(fi)[0] != iter) continue;
      uint32_t l = li.loop_with_header(f_.block_of(ir::InstId(j)));
      if (l == UINT32_MAX) return false;
      const ir::Loop& loop = li.loops[l];
      ir::ValueId item;
      for (ir::BlockId b : loop.blocks) {
        if (b == loop.header) continue;
        const ir::Inst& t = f_.terminator(b);
        if (t.op != ir::Op::Jump) return false;
        for (ir::BlockId s : ir::succs(f_, b))
          if (!li.contains(l, s)) return false;  // a handler or an exit
      }
      bool frozen = false;
      for (ir::InstId k : loop_insts(ctx_, fid_, l)) {
        const ir::Inst& in = f_.inst(k);
        if (in.op == ir::Op::NextItem && f_.operands(in)[0] == iter) item = in.result;
        if (in.op == ir::Op::SetAttr && ctx_.ir.names.str(in.aux) == "requires_grad" &&
            const_false(ctx_, fid_, f_.operands(in)[1]) && is_param_item(f_.operands(in)[0], item)) {
          frozen = true;
          site = in.span;
        }
        if (in.op == ir::Op::Call && call_method(ctx_, f_, in) == "requires_grad_" &&
            const_false(ctx_, fid_, call_arg(ctx_, f_, in, 0, "requires_grad")) &&
            is_param_item(call_receiver(f_, in), item)) {
          frozen = true;
          site = in.span;
        }
      }
      return frozen;
    }
    return false;
  }

  /// `v` is the loop's item, or element 1 of the unpacked item
  /// (`for name, p in model.named_parameters()`).
  bool is_param_item(ir::ValueId v, ir::ValueId item) const {
    if (!v.valid() || !item.valid()) return false;
    if (v == item) return true;
    const ir::Inst& d = f_.def(v);
    if (d.op != ir::Op::Element || d.aux != 1) return false;
    const ir::Inst& u = f_.def(f_.operands(d)[0]);
    return u.op == ir::Op::Unpack && (u.aux & 0xffff) == 2 && f_.operands(u)[0] == item;
  }

  /// The value a module expression starts from: `model` in `model.backbone`
  /// or `model.to(device)`.
  ir::ValueId root_of(ir::ValueId v) const {
    for (int depth = 0; v.valid() && depth < 16; ++depth) {
      const ir::Inst& d = f_.def(v);
      if (d.op == ir::Op::GetAttr) {
        v = f_.operands(d)[0];
        continue;
      }
      if (d.op == ir::Op::Call) {
        std::string_view m = call_method(ctx_, f_, d);
        if (m == "to" || m == "cuda" || m == "cpu" || m == "train" || m == "eval" || m == "half" ||
            m == "float") {
          v = call_receiver(f_, d);
          continue;
        }
      }
      return v;
    }
    return ir::kNoValue;
  }

  /// Both values denote one module object: the same access path from the
  /// same SSA value (or the same global, never stored in this function).
  bool same_module(ir::ValueId a, ir::ValueId b) const {
    std::string ka = access_key(ctx_, fid_, a);
    if (ka.empty() || ka != access_key(ctx_, fid_, b)) return false;
    ir::ValueId ra = root_of(a), rb = root_of(b);
    if (!ra.valid() || !rb.valid()) return false;
    if (ra == rb) return true;
    const ir::Inst &da = f_.def(ra), &db = f_.def(rb);
    if (da.op != ir::Op::LoadGlobal || db.op != ir::Op::LoadGlobal || da.aux != db.aux) return false;
    for (const ir::Inst& in : f_.insts)
      if (in.op == ir::Op::StoreGlobal && in.aux == da.aux) return false;
    return true;
  }

  /// `v` is the module `key` names, a part of it, or something reached
  /// from it (`m` in `for m in model.modules()`, `model.children()`).
  bool related(ir::ValueId v, const std::string& key, int depth = 0) const {
    if (!v.valid() || depth > 12) return false;
    if (part_of(access_key(ctx_, fid_, v), key)) return true;
    const ir::Inst& d = f_.def(v);
    switch (d.op) {
      case ir::Op::GetAttr:
      case ir::Op::GetItem:
      case ir::Op::NextItem:
      case ir::Op::GetIter:
      case ir::Op::Unpack:
      case ir::Op::Element:
        return related(f_.operands(d)[0], key, depth + 1);
      case ir::Op::Phi:
        for (ir::ValueId o : f_.operands(d))
          if (o != v && related(o, key, depth + 1)) return true;
        return false;
      case ir::Op::Call: {
        ir::ValueId r = call_receiver(f_, d);
        if (r.valid()) return related(r, key, depth + 1);
        // list(model.children()), enumerate(model.modules())
        if (inspects_only(call_target_name(ctx_, fid_, f_.def_id(v))))
          for (size_t a = 1; a < d.nops; ++a)
            if (related(f_.operands(d)[a], key, depth + 1)) return true;
        return false;
      }
      default:
        return false;
    }
  }

  /// `v` is a parameter, buffer or state tensor of a module, or a part of
  /// one (`p`, `p.data` in `for p in model.parameters()`), not a module:
  /// its methods cannot add parameters, and requires_grad is seen
  /// file-wide.
  bool tensor_of_module(ir::ValueId v, int depth = 0) const {
    if (!v.valid() || depth > 12) return false;
    const ir::Inst& d = f_.def(v);
    switch (d.op) {
      case ir::Op::GetAttr:
      case ir::Op::GetItem:
      case ir::Op::NextItem:
      case ir::Op::GetIter:
      case ir::Op::Unpack:
      case ir::Op::Element:
        return tensor_of_module(f_.operands(d)[0], depth + 1);
      case ir::Op::Call: {
        std::string_view m = call_method(ctx_, f_, d);
        if (m == "parameters" || m == "named_parameters" || m == "buffers" ||
            m == "named_buffers" || m == "state_dict")
          return true;
        ir::ValueId r = call_receiver(f_, d);
        if (r.valid()) return false;
        if (inspects_only(call_target_name(ctx_, fid_, f_.def_id(v))) && d.nops > 1)
          return tensor_of_module(f_.operands(d)[1], depth + 1);
        return false;
      }
      default:
        return false;
    }
  }

  /// After the freeze, something may give the module new (trainable)
  /// parameters or hand it to code that could: a store into it or a part
  /// of it, a method call other than keeps_parameters, the module passed
  /// to a call that is not torch's or an inspecting builtin, or any call
  /// of the file's functions before the optimizer is built (they may
  /// reach it through a global or `self`).
  bool changed_after(const Freeze& z, ir::InstId ctor, const std::string& key) const {
    bool changed = false;
    reachable(f_, z.at, [&](ir::InstId j, const ir::Inst& in) {
      if (changed) return PathStep::Kill;
      switch (in.op) {
        case ir::Op::SetAttr:
        case ir::Op::DelAttr: {
          if (ctx_.ir.names.str(in.aux) == "requires_grad") break;  // only False: file_may_unfreeze
          ir::ValueId obj = f_.operands(in)[0];
          std::string k = access_key(ctx_, fid_, obj);
          if ((!k.empty() && part_of(k + "." + std::string(ctx_.ir.names.str(in.aux)), key)) ||
              related(obj, key))
            changed = true;
          break;
        }
        case ir::Op::SetItem:
        case ir::Op::DelItem:
          if (related(f_.operands(in)[0], key)) changed = true;
          break;
        case ir::Op::Call:
          if (j != ctor && call_may_change(j, in, ctor, key)) changed = true;
          break;
        default:
          break;
      }
      return PathStep::Pass;
    });
    return changed;
  }

  bool call_may_change(ir::InstId j, const ir::Inst& in, ir::InstId ctor,
                       const std::string& key) const {
    if (calls_file_function(ctx_, fid_, j)) {
      // Before the optimizer takes the parameters, a helper may add a head.
      bool before = j == ctor || !reachable(f_, j, [&](ir::InstId k, const ir::Inst&) {
                                   return k == ctor ? PathStep::Target : PathStep::Pass;
                                 }).empty();
      if (before) return true;
    }
    ir::ValueId recv = call_receiver(f_, in);
    if (recv.valid() && related(recv, key) && !keeps_parameters(call_method(ctx_, f_, in)) &&
        !tensor_of_module(recv))
      return true;
    auto ops = f_.operands(in);
    for (size_t a = 1; a < ops.size(); ++a) {
      if (!related(ops[a], key)) continue;
      if (calls_file_function(ctx_, fid_, j)) continue;  // after the optimizer: see above
      std::string_view n = call_target_name(ctx_, fid_, j);
      if (n == "builtins.setattr" || n == "builtins.delattr") return true;
      if (n.starts_with("torch.") || inspects_only(n)) continue;
      return true;
    }
    return false;
  }

  /// A step of the optimizer `ctor` builds, reachable after it:
  /// `opt.step()`, `scaler.step(opt)`, or a call of the file's functions
  /// that steps and is handed `opt`.
  ir::InstId step_of(ir::InstId ctor) const {
    ir::ValueId opt = f_.inst(ctor).result;
    std::vector<ir::InstId> found = reachable(f_, ctor, [&](ir::InstId j, const ir::Inst& in) {
      if (in.op != ir::Op::Call) return PathStep::Pass;
      dataflow::TorchCall k = torch_call(ctx_, fid_, j);
      if (k == dataflow::TorchCall::OptimizerStep && positional_count(f_, in) == 0 &&
          call_receiver(f_, in) == opt)
        return PathStep::Target;
      if ((k == dataflow::TorchCall::ScalerStep || k == dataflow::TorchCall::ScalerStepAmp) &&
          call_arg(ctx_, f_, in, 0, "optimizer") == opt)
        return PathStep::Target;
      if (calls_file_function(ctx_, fid_, j) &&
          (call_effects(ctx_, fid_, j) & dataflow::kOptimizerStep)) {
        auto ops = f_.operands(in);
        if (std::find(ops.begin() + 1, ops.end(), opt) != ops.end()) return PathStep::Target;
      }
      return PathStep::Pass;
    });
    return found.empty() ? ir::InstId() : found.front();
  }

  void report(const Freeze& z, ir::InstId c, ir::InstId s, const std::string& key,
              DiagSink& out) const {
    const ir::Inst& ctor = f_.inst(c);
    Diagnostic d = make_diagnostic(
        kRule, ctor.span,
        "`" + call_text(ctx_, f_, ctor) + "` holds only `" + key +
            ".parameters()`, every one frozen (`requires_grad=False`); nothing trains: the step "
            "has no gradients to apply, and backward raises \"element 0 of tensors does not "
            "require grad\" unless something else in the loss trains",
        "after freezing, re-enable the layers to train (or replace the head) before building "
        "the optimizer, and pass it only trainable parameters");
    d.notes.push_back({z.site, "every parameter of `" + key + "` frozen here"});
    d.notes.push_back({f_.inst(s).span, "the optimizer steps here"});
    out.report(std::move(d));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  const CallIndex& index = call_index(ctx);
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    // Both findings here are on Backward calls.
    if (!index.of(fid).has(dataflow::TorchCall::Backward)) continue;
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (torch_call(ctx, fid, ir::InstId(i)) != dataflow::TorchCall::Backward) continue;
      const ir::Inst& bw = f.insts[i];
      if (positional_count(f, bw) > 0 || f.call_info(bw).nkw > 0) continue;  // backward(gradient)
      ir::ValueId loss = call_receiver(f, bw);
      if (!loss.valid()) continue;
      Span site;
      if (computed_without_grad(ctx, fid, f, loss, site)) {
        Diagnostic d = make_diagnostic(
            kRule, bw.span,
            "`" + call_text(ctx, f, bw) + "` runs on `" + value_text(ctx, f, loss) +
                "`, computed with autograd off; it has no graph, so backward raises and nothing "
                "trains",
            "compute the loss outside `torch.no_grad()` / `torch.inference_mode()`");
        d.notes.push_back({site, "computed under no_grad here"});
        out.report(std::move(d));
        continue;
      }
      if (per_element(ctx, fid, f, loss)) {
        Diagnostic d = make_diagnostic(
            kRule, bw.span,
            "`" + call_text(ctx, f, bw) + "` runs on `" + value_text(ctx, f, loss) +
                "`, a per-element loss (`reduction=\"none\"`); backward on a non-scalar raises at "
                "the first step",
            "reduce it first: `loss.mean().backward()` (or `.sum()`), or pass `gradient=`");
        d.notes.push_back({f.def(loss).span, "the loss keeps one value per element here"});
        out.report(std::move(d));
      }
    }
  }
  // FrozenOptimizer reports only an optimizer stepped in its function
  // (step_of: an OptimizerStep, ScalerStep or ScalerStepAmp call, or a
  // call of the file whose effects include kOptimizerStep): skip other
  // functions, and the file-wide unfreeze scan when no function steps.
  if (!may_step(index.file)) return;
  if (file_may_unfreeze(ctx)) return;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi)
    if (may_step(index.of(ir::FunctionId(fi)))) FrozenOptimizer(ctx, ir::FunctionId(fi)).run(out);
}

}  // namespace tpf::checks::backward_without_graph
