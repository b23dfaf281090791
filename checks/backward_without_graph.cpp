// TPF022 backward_without_graph
//
// What it finds: `loss.backward()` that cannot train:
//   - the loss is computed with autograd off (inside `torch.no_grad()`,
//     `torch.inference_mode()`, `set_grad_enabled(False)`, or in a
//     function every in-file caller runs that way) and carries no graph;
//   - the loss is the direct output of a loss with `reduction="none"`
//     (`nn.CrossEntropyLoss(reduction="none")`, `F.mse_loss(...,
//     reduction="none")`): a tensor per element, and `backward()` is called
//     on it with no `gradient` and no `.mean()` / `.sum()`.
// Why it costs: backward on a tensor without a graph raises "element 0 of
//   tensors does not require grad", and backward on a non-scalar raises
//   "grad can be implicitly created only for scalar outputs" — at the first
//   step, after data loading, model building and often a queue wait on a
//   cluster; under no_grad a run that catches or skips the error trains
//   nothing at all.
// Example:
//     with torch.no_grad():
//         loss = criterion(model(x), y)
//     loss.backward()
// Fix: compute the loss with autograd on (move it out of the no_grad
//   block); reduce a per-element loss (`loss.mean().backward()`) or pass
//   `gradient=`.
// Not flagged: a loss with a graph on some path (a phi of graph and no
//   graph), `torch.enable_grad()` inside no_grad, losses whose grad mode is
//   not known (a function called both ways), a per-element loss reduced
//   before backward or weighted by a mask then summed, `backward(gradient)`,
//   loss modules held in attributes (`self.criterion`), and frozen
//   parameters (`requires_grad=False`): fine-tuning a head on a frozen
//   backbone is correct and "every parameter frozen" is not decided here.
#include <algorithm>

#include "checks/facts.h"

namespace tpf::checks::backward_without_graph {

const std::string_view kExplain = R"(TPF022 backward_without_graph: backward on a loss computed under no_grad, or on a per-element loss

What it finds
  `loss.backward()` that cannot train:
  - the loss is computed with autograd off (inside `torch.no_grad()`,
    `torch.inference_mode()`, `set_grad_enabled(False)`, or in a function
    every in-file caller runs that way) and carries no graph;
  - the loss is the direct output of a loss with `reduction="none"`
    (`nn.CrossEntropyLoss(reduction="none")`, `F.mse_loss(...,
    reduction="none")`), a tensor per element, and `backward()` is called
    on it with no `gradient` and no `.mean()` or `.sum()`.

Why it costs
  backward on a tensor without a graph raises "element 0 of tensors does
  not require grad", and backward on a non-scalar raises "grad can be
  implicitly created only for scalar outputs": at the first step, after
  data loading, model building and often a queue wait on a cluster. A run
  that catches or skips the error trains nothing at all.

Example
  with torch.no_grad():
      loss = criterion(model(x), y)
  loss.backward()

Fix
  compute the loss with autograd on (move it out of the no_grad block);
  reduce a per-element loss (`loss.mean().backward()`) or pass
  `gradient=`.

Not flagged
  - a loss with a graph on some path (a phi of graph and no graph)
  - `torch.enable_grad()` inside no_grad, and losses whose grad mode is not
    known (a function called both ways)
  - a per-element loss reduced before backward, or weighted and then summed
  - `backward(gradient)`
  - loss modules held in attributes (`self.criterion`)
  - frozen parameters (`requires_grad=False`): fine-tuning a head on a
    frozen backbone is correct, and "every parameter frozen" is not decided
    here
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

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
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
}

}  // namespace tpf::checks::backward_without_graph
