// TPF017 fp16_grad_scaling
//
// What it finds: (1) `clip_grad_norm_` / `clip_grad_value_` reachable from
//   `scaler.scale(loss).backward()` without passing `scaler.unscale_(...)`
//   (or the scaler's step): the clip sees gradients multiplied by the
//   scale factor. (2) a float16 autocast region (`torch.autocast("cuda")`,
//   `torch.cuda.amp.autocast()`, or `dtype=torch.float16`) in a loop that
//   runs backward, in a file that never mentions a gradient scaler.
// Why it costs: (1) GradScaler multiplies the loss by 2^16 by default
//   (torch/amp/grad_scaler.py); clipping the scaled gradients to max_norm
//   clips almost every step by a huge factor, which is a much smaller
//   learning rate than intended; the run converges slowly or not at all.
//   (2) fp16 has a minimum normal of about 6e-5: without loss scaling,
//   small gradients flush to zero and the run stalls or diverges (AMP
//   docs, "Gradient Scaling").
// Example:
//     scaler.scale(loss).backward()
//     torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
//     scaler.step(optimizer)
// Fix: `scaler.unscale_(optimizer)` before clipping; add a GradScaler to an
//   fp16 autocast training loop (or use bfloat16).
// Not flagged: unscale_ before the clip (also under the same flag test as
//   the scaled backward: `if self.scaler:` both times); clipping in a helper of the file;
//   bfloat16 autocast (needs no scaler); an autocast whose device or dtype
//   is not a constant; autocast in loops without backward (evaluation);
//   files that mention any scaler (timm's NativeScaler, `loss_scaler`) or
//   use Accelerate, Lightning, DeepSpeed, apex or the transformers
//   Trainer, which scale themselves.
#include <algorithm>
#include <optional>

#include "checks/facts.h"

namespace tpf::checks::fp16_grad_scaling {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF017);

const std::string_view kExplain =
    R"(TPF017 fp16_grad_scaling: gradients clipped while scaled, or fp16 training without a GradScaler

What it finds
  1. `torch.nn.utils.clip_grad_norm_` (or `clip_grad_value_`) after
     `scaler.scale(loss).backward()` with no `scaler.unscale_(optimizer)`
     in between (error).
  2. A float16 autocast region (`torch.autocast("cuda")` and
     `torch.cuda.amp.autocast()` default to float16) inside a loop that runs
     backward, in a file that uses no gradient scaler at all (warning).

Why it costs
  1. GradScaler multiplies the loss, and so every gradient, by a large
     factor (65536 at the start). Clipping those gradients to `max_norm`
     shrinks nearly every update by that factor: the model trains with a
     far smaller learning rate than configured and the GPU hours buy
     little progress.
  2. float16 cannot represent values below about 6e-8 (6e-5 at full
     precision): without loss scaling small gradients become zero, so
     parts of the model stop learning or the loss goes to NaN.

Example
  scaler.scale(loss).backward()
  torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
  scaler.step(optimizer)
  scaler.update()

Fix
  scaler.scale(loss).backward()
  scaler.unscale_(optimizer)
  torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
  scaler.step(optimizer)
  scaler.update()

  For (2): create `scaler = torch.amp.GradScaler("cuda")` and use it as
  above, or autocast to `torch.bfloat16`, which needs no scaling.

Not flagged
  - `scaler.unscale_(optimizer)` before the clip, or clipping in a helper
  - an unscale_ under the same flag as the scaled backward (`if self.scaler:
    self.scaler.scale(loss).backward()` ... `if self.scaler:
    self.scaler.unscale_(opt)`): every run that scaled also unscales
  - bfloat16 autocast, CPU autocast, or a device or dtype that is not a
    constant
  - autocast in a loop without backward (evaluation)
  - files that mention any scaler (`GradScaler`, timm's `NativeScaler`,
    a `loss_scaler` object) or use Accelerate, Lightning, DeepSpeed, apex
    or the transformers Trainer, which scale the loss themselves
)";

namespace {

using dataflow::TorchCall;

bool is_clip(std::string_view n) {
  return n.starts_with("torch.nn.utils.") &&
         (n.ends_with(".clip_grad_norm_") || n.ends_with(".clip_grad_value_") ||
          n.ends_with(".clip_grad_norm"));
}

/// `recv.scale(x).backward()`: a backward of a scaled loss.
bool scaled_backward(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  if (torch_call(ctx, fid, i) != TorchCall::Backward) return false;
  ir::ValueId r = call_receiver(f, f.inst(i));
  if (!r.valid() || f.def(r).op != ir::Op::Call) return false;
  return call_method(ctx, f, f.def(r)) == "scale";
}

void check_clip(const CheckContext& ctx, ir::FunctionId fid, DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  std::vector<uint32_t> reported;
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    ir::InstId b(i);
    if (f.insts[i].op != ir::Op::Call || !scaled_backward(ctx, fid, b)) continue;
    // `if self.scaler: self.scaler.scale(loss).backward()`: a later `if
    // self.scaler:` around the unscale_ takes the same side.
    std::vector<ir::InstId> clips = reachable_under(ctx, fid, b, [&](ir::InstId j, const ir::Inst& in) {
      if (in.op != ir::Op::Call) return PathStep::Pass;
      std::string_view m = call_method(ctx, f, in);
      TorchCall k = torch_call(ctx, fid, j);
      // unscale_, the scaler's step (it unscales), a new backward, or a
      // helper of the file (it may unscale) end the search.
      if (m == "unscale_" || k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp ||
          k == TorchCall::OptimizerStep || calls_file_function(ctx, fid, j) ||
          (call_effects(ctx, fid, j) & dataflow::kBackward))
        return PathStep::Kill;
      return is_clip(call_target_name(ctx, fid, j)) ? PathStep::Target : PathStep::Pass;
    });
    for (ir::InstId c : clips) {
      if (std::find(reported.begin(), reported.end(), c.v) != reported.end()) continue;
      reported.push_back(c.v);
      const ir::Inst& ci = f.inst(c);
      ir::ValueId scaler = call_receiver(f, f.def(call_receiver(f, f.inst(b))));
      std::string sk = access_key(ctx, fid, scaler);
      if (sk.empty()) sk = "scaler";
      // The optimizer as the scaler's step names it: `scaler.step(opt)`.
      std::string opt;
      reachable(f, c, [&](ir::InstId j, const ir::Inst& u) {
        if (!opt.empty()) return PathStep::Kill;
        TorchCall k = torch_call(ctx, fid, j);
        if (u.op == ir::Op::Call && (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp ||
                                     call_method(ctx, f, u) == "step")) {
          ir::ValueId o = call_arg(ctx, f, u, 0, "optimizer");
          if (o.valid()) opt = access_key(ctx, fid, o);
          return PathStep::Kill;
        }
        return PathStep::Pass;
      });
      if (opt.empty()) opt = "optimizer";
      Diagnostic d = make_diagnostic(kRule, ci.span,
                                     "`" + call_text(ctx, f, ci) +
                                         "` clips gradients still multiplied by the GradScaler's "
                                         "scale factor; nearly every step is shrunk by that factor",
                                     "call `" + sk + ".unscale_(" + opt + ")` before clipping");
      d.notes.push_back({f.inst(b).span, "the scaled backward"});
      out.report(std::move(d));
    }
  }
}

/// The file handles loss scaling itself or through a framework: an
/// identifier of the code (not a comment or string) that names a scaler,
/// or Accelerate, Lightning, DeepSpeed, apex, the transformers Trainer.
bool scaling_elsewhere(const CheckContext& ctx) {
  const ir::Names& names = ctx.ir.names;
  for (size_t s = 0; s < names.symbol_count(); ++s) {
    std::string t(names.str(static_cast<ir::Symbol>(s)));
    std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return std::tolower(c); });
    for (std::string_view w : {"scaler", "accelerat", "lightning", "deepspeed", "apex", "trainer",
                               "loss_scale", "scale_loss"})
      if (t.find(w) != std::string::npos) return true;
  }
  return false;
}

bool is_dtype(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v,
              std::initializer_list<std::string_view> names) {
  ir::PathId p = ctx.facts.res.qualname(fid, v);
  if (!p.valid()) return false;
  std::string n = ctx.ir.names.str(p);  // a PathId's name is built: keep the string
  return std::find(names.begin(), names.end(), n) != names.end();
}

/// The autocast call runs float16 on CUDA (constants only).
bool fp16_autocast(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(i);
  std::string_view n = call_target_name(ctx, fid, i);
  if (has_unpacked_args(f, in)) return false;
  ir::ValueId dtype, enabled;
  if (n == "torch.cuda.amp.autocast" || n == "torch.cuda.amp.autocast_mode.autocast") {
    enabled = call_arg(ctx, f, in, 0, "enabled");
    dtype = call_arg(ctx, f, in, 1, "dtype");
  } else if (n == "torch.autocast" || n == "torch.amp.autocast" ||
             n == "torch.amp.autocast_mode.autocast") {
    ir::ValueId dev = call_arg(ctx, f, in, 0, "device_type");
    const ir::ConstValue& c = ctx.facts.res.constant(fid, dev);
    if (c.kind != ir::ConstValue::Kind::Str || !c.s.starts_with("cuda")) return false;
    dtype = call_arg(ctx, f, in, 1, "dtype");
    enabled = call_arg(ctx, f, in, 2, "enabled");
  } else {
    return false;
  }
  if (enabled.valid()) {
    const ir::ConstValue& e = ctx.facts.res.constant(fid, enabled);
    if (e.kind == ir::ConstValue::Kind::Bool && e.i == 0) return false;
  }
  if (!dtype.valid()) return true;  // CUDA autocast defaults to float16
  return is_dtype(ctx, fid, dtype, {"torch.float16", "torch.half"});
}

void check_unscaled(const CheckContext& ctx, ir::FunctionId fid, DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::LoopInfo& li = loops_of(ctx, fid);
  if (li.loops.empty()) return;
  for (const ir::WithRegion& w : f.withs) {
    if (!w.mgr.valid() || f.def(w.mgr).op != ir::Op::Call) continue;
    ir::InstId ac = f.def_id(w.mgr);
    if (!fp16_autocast(ctx, fid, ac)) continue;
    uint32_t l = li.loop_of(f.block_of(w.enter));
    if (l == UINT32_MAX) continue;
    ir::InstId backward;
    for (ir::InstId j : loop_insts(ctx, fid, l))
      if (f.inst(j).op == ir::Op::Call && (call_effects(ctx, fid, j) & dataflow::kBackward) &&
          !backward.valid())
        backward = j;
    if (!backward.valid()) continue;
    const ir::Inst& ai = f.inst(ac);
    Diagnostic d = make_diagnostic(
        kRule, ai.span,
        "`" + call_text(ctx, f, ai) +
            "` trains in float16 and nothing scales the loss; small "
            "gradients underflow to zero in `" +
            call_text(ctx, f, f.inst(backward)) + "`",
        "scale the loss with `torch.amp.GradScaler(\"cuda\")` (scale, unscale_, step, update), "
        "or autocast to `torch.bfloat16`");
    d.severity = Severity::Warning;
    d.notes.push_back({f.inst(backward).span, "the backward pass without loss scaling"});
    out.report(std::move(d));
  }
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // scaling_elsewhere reads every identifier of the file: ask it only for
  // a function check_unscaled could report in (the answer is the file's).
  std::optional<bool> scaled;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const FunctionCalls& fc = function_calls(ctx, fid);
    // check_clip starts from a Backward call (scaled_backward).
    if (fc.has(TorchCall::Backward)) check_clip(ctx, fid, out);
    // check_unscaled needs a `with` whose manager is an autocast call and
    // a call whose effects include kBackward in the loop around it.
    if (ctx.ir.fn(fid).withs.empty() || !fc.may(dataflow::kBackward)) continue;
    if (!scaled) scaled = scaling_elsewhere(ctx);
    if (!*scaled) check_unscaled(ctx, fid, out);
  }
}

}  // namespace tpf::checks::fp16_grad_scaling
