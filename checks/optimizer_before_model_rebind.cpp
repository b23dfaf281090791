// TPF021 optimizer_before_model_rebind
//
// What it finds: an optimizer built from `model.parameters()`, after which
//   the name `model` is rebound to an object with other parameters (a new
//   `Net()`, a `torch.nn` / torchvision / timm model, `copy.deepcopy(model)`,
//   or `FullyShardedDataParallel(model)`, which flattens the parameters),
//   or sharded in place by `fully_shard(model)`; and the same optimizer is
//   then stepped. Decided per function on the SSA values of the two local
//   names.
// Why it costs: the optimizer holds the old parameter tensors. Its step
//   updates those, while the forward and backward run on the new model:
//   the trained model never changes (or, under FSDP, the sharded flat
//   parameters are never stepped), and the whole run is wasted.
// Example:
//     optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
//     model = FSDP(model)
// Fix: build the optimizer after the last rebinding (after wrapping in
//   FSDP / fully_shard), or build a new optimizer for the new model.
// Not flagged: wrappers and moves that keep the parameters (DDP,
//   DataParallel, torch.compile, `.to()`, `.cuda()`, `.half()`, `.train()`),
//   a new object built from the old model (`Wrapper(model)`,
//   `nn.Sequential(model, head)` share its parameters), calls the rule
//   does not know (they may return the same module), a new optimizer built
//   after the rebinding, a rebinding after which the optimizer is never
//   stepped (a fresh model for evaluation), and optimizers or models held
//   in attributes or built in helpers.
#include <algorithm>

#include "checks/facts.h"

namespace tpf::checks::optimizer_before_model_rebind {

const std::string_view kExplain = R"(TPF021 optimizer_before_model_rebind: the optimizer holds the parameters of a model the name was rebound away from

What it finds
  an optimizer built from `model.parameters()`, after which the name `model`
  is rebound to an object with other parameters (a new `Net()`, a
  `torch.nn`, torchvision or timm model, `copy.deepcopy(model)`, or
  `FullyShardedDataParallel(model)`, which flattens the parameters), or
  sharded in place by `fully_shard(model)`; and the same optimizer is then
  stepped.

Why it costs
  the optimizer holds the old parameter tensors. Its step updates those
  while forward and backward run on the new model: the trained model never
  changes (under FSDP the sharded flat parameters are never stepped), and
  every GPU hour of the run is wasted; the loss curve may even look fine
  when the old model is what gets evaluated.

Example
  optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
  model = FSDP(model)

Fix
  build the optimizer after the last rebinding (after wrapping in FSDP or
  `fully_shard`), or build a new optimizer for the new model.

Not flagged
  - wrappers and moves that keep the parameters: DDP, DataParallel,
    torch.compile, `.to()`, `.cuda()`, `.half()`, `.train()`
  - a new object built from the old model (`Wrapper(model)`,
    `nn.Sequential(model, head)` share its parameters), and calls the rule
    does not know (they may return the same module)
  - a new optimizer built after the rebinding
  - a rebinding after which the optimizer is never stepped (a fresh model
    for evaluation)
  - optimizers or models held in attributes or built in helper functions
)";

namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF021);

bool is_optimizer_ctor(std::string_view n) {
  return n.starts_with("torch.optim.") && !n.starts_with("torch.optim.lr_scheduler") &&
         !n.starts_with("torch.optim.swa_utils");
}

bool is_fsdp(std::string_view n) {
  return n == "torch.distributed.fsdp.FullyShardedDataParallel" ||
         n == "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel";
}

bool is_fully_shard(std::string_view n) {
  return n == "torch.distributed.fsdp.fully_shard" ||
         n == "torch.distributed._composable.fsdp.fully_shard";
}

/// Module constructors that build parameters of their own.
bool is_new_model(std::string_view n) {
  if (n == "copy.deepcopy" || n == "timm.create_model") return true;
  if (n.starts_with("torchvision.models.") || n.starts_with("transformers.")) return true;
  if (!n.starts_with("torch.nn.")) return false;
  std::string_view last = n.substr(n.rfind('.') + 1);
  // torch.nn.Linear, torch.nn.Conv2d: a class; torch.nn.functional.* and
  // the wrappers are not new parameters.
  if (last.empty() || !(last[0] >= 'A' && last[0] <= 'Z')) return false;
  return last != "DataParallel" && last != "DistributedDataParallel" && last != "Parameter" &&
         n.find(".parallel.") == std::string_view::npos && n.find(".utils.") == std::string_view::npos;
}

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid) : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {}

  void run(DiagSink& out) {
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call || !in.result.valid()) continue;
      if (!is_optimizer_ctor(call_target_name(ctx_, fid_, ir::InstId(i)))) continue;
      check_optimizer(ir::InstId(i), out);
    }
  }

 private:
  ir::VarId local_var(ir::ValueId v) const {
    if (!v.valid()) return {};
    ir::VarId var = f_.values[v.v].var;
    if (!var.valid() || f_.vars[var.v].kind != ir::VarKind::Local ||
        f_.vars[var.v].name == ir::kNoSymbol)
      return {};
    return var;
  }

  bool holds_var(ir::ValueId v, ir::VarId var) const {
    return v.valid() && f_.values[v.v].var == var;
  }

  /// The call builds an object whose parameters differ from those of the
  /// old model (held in `model`); `fsdp` is set for an FSDP wrap.
  bool replaces(ir::InstId ci, ir::VarId model, bool& fsdp) const {
    const ir::Inst& c = f_.inst(ci);
    // `Net().cuda()`: the module methods that return self; what counts is
    // the call they are made on.
    std::string_view m = call_method(ctx_, f_, c);
    if (m == "to" || m == "cuda" || m == "cpu" || m == "half" || m == "float" ||
        m == "bfloat16" || m == "double" || m == "train" || m == "eval" || m == "requires_grad_") {
      ir::ValueId r = call_receiver(f_, c);
      if (!r.valid() || holds_var(r, model) || f_.def(r).op != ir::Op::Call) return false;
      return replaces(f_.def_id(r), model, fsdp);
    }
    std::string_view n = call_target_name(ctx_, fid_, ci);
    fsdp = is_fsdp(n);
    if (fsdp) return true;
    auto ops = f_.operands(c);
    bool from_old = false;
    for (size_t a = 1; a < ops.size(); ++a)
      if (holds_var(ops[a], model)) from_old = true;
    if (n == "copy.deepcopy") return from_old;
    if (from_old) return false;  // Wrapper(model): shares the parameters
    ir::CallTarget t = ctx_.facts.res.call_target(fid_, ci);
    if (t.kind == ir::CallTarget::Kind::Constructor) return t.cls.valid() && ctx_.facts.res.is_module_class(t.cls);
    return t.kind == ir::CallTarget::Kind::External && is_new_model(n);
  }

  void check_optimizer(ir::InstId oi, DiagSink& out) const {
    const ir::Inst& opt = f_.inst(oi);
    ir::VarId opt_var = local_var(opt.result);
    if (!opt_var.valid() || has_unpacked_args(f_, opt)) return;
    ir::ValueId params = call_arg(ctx_, f_, opt, 0, "params");
    if (!params.valid() || f_.def(params).op != ir::Op::Call) return;
    const ir::Inst& pc = f_.def(params);
    if (call_method(ctx_, f_, pc) != "parameters") return;
    ir::ValueId model = call_receiver(f_, pc);
    ir::VarId model_var = local_var(model);
    if (!model_var.valid()) return;
    // Rebindings of `model` after the optimizer is built, before it is
    // rebuilt.
    auto rebuilt = [&](const ir::Inst& in) {
      return in.op == ir::Op::Call && holds_var(in.result, opt_var) && in.result != opt.result;
    };
    std::vector<ir::InstId> rebinds = reachable(f_, oi, [&](ir::InstId id, const ir::Inst& in) {
      if (id == oi || rebuilt(in)) return PathStep::Kill;
      if (in.op != ir::Op::Call) return PathStep::Pass;
      bool fsdp = false;
      if (holds_var(in.result, model_var) && in.result != model && replaces(id, model_var, fsdp))
        return PathStep::Target;
      if (is_fully_shard(call_target_name(ctx_, fid_, id))) {
        ir::ValueId a = call_arg(ctx_, f_, in, 0, "module");
        if (holds_var(a, model_var)) return PathStep::Target;
      }
      return PathStep::Pass;
    });
    for (ir::InstId r : rebinds) {
      std::vector<ir::InstId> steps = reachable(f_, r, [&](ir::InstId id, const ir::Inst& in) {
        // The same constructor again (next iteration of a loop that builds
        // a model and its optimizer each time) builds it from the new model.
        if (id == oi || rebuilt(in)) return PathStep::Kill;
        if (in.op != ir::Op::Call) return PathStep::Pass;
        dataflow::TorchCall k = torch_call(ctx_, fid_, id);
        if (k == dataflow::TorchCall::OptimizerStep && holds_var(call_receiver(f_, in), opt_var))
          return PathStep::Target;
        if ((k == dataflow::TorchCall::ScalerStep || k == dataflow::TorchCall::ScalerStepAmp) &&
            holds_var(call_arg(ctx_, f_, in, 0, "optimizer"), opt_var))
          return PathStep::Target;
        return PathStep::Pass;
      });
      if (steps.empty()) continue;
      const ir::Inst& rb = f_.inst(r);
      std::string on = std::string(ctx_.ir.names.str(f_.vars[opt_var.v].name));
      std::string mn = std::string(ctx_.ir.names.str(f_.vars[model_var.v].name));
      bool in_place = !holds_var(rb.result, model_var);
      Diagnostic d = make_diagnostic(
          kRule, rb.span,
          in_place ? "`" + call_text(ctx_, f_, rb) + "` replaces the parameters of `" + mn +
                         "` after `" + on + "` was built from them; `" + on +
                         ".step()` updates tensors the model no longer uses, so it never trains"
                   : "`" + mn + "` is rebound to `" + value_text(ctx_, f_, rb.result) +
                         "` after `" + on + "` was built from its parameters; `" + on +
                         ".step()` updates the old model's tensors, so the new one never trains",
          "build `" + on + "` after this line, from `" + mn + ".parameters()`");
      d.notes.push_back({opt.span, "the optimizer is built from the old parameters here"});
      const ir::Inst& st = f_.inst(steps.front());
      d.notes.push_back({st.span, "and stepped here"});
      out.report(std::move(d));
    }
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // A finding needs a step of the optimizer in the same function: an
    // OptimizerStep, ScalerStep or ScalerStepAmp call.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!fc.has(dataflow::TorchCall::OptimizerStep) && !fc.has(dataflow::TorchCall::ScalerStep) &&
        !fc.has(dataflow::TorchCall::ScalerStepAmp))
      continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::optimizer_before_model_rebind
