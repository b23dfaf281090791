// TPF004 accumulation_without_loss_scaling
//
// What it finds: a loop whose backward runs every iteration while the
//   optimizer step runs only when a branch on `i % N` (any form:
//   `(i + 1) % N == 0`, `step % N != 0: continue`) or on a loop-carried
//   counter (`count += 1` ... `if count == N`) holds, no zero_grad runs every
//   iteration, and the loss reaching backward is, on every path, a raw loss:
//   a loss function or module, a model's forward (`model(**batch).loss`), a
//   callable parameter (`criterion(out, y)`), or a helper of the file
//   returning one, combined only by `+`, `-`, `.mean()`, `.sum()`. Tuple
//   returns are read element by element (`logits, loss = model(x, y)`), and
//   functions and models of other project modules are read there
//   (`calc_loss(...)` of losses.py, nanoGPT's `GPT.forward` in model.py).
// Why it costs: backward adds into `.grad` (PyTorch 2.x,
//   torch/autograd/__init__.py: "gradients are accumulated in the leaves"),
//   so after N backwards the step applies N times the mean gradient: the
//   effective learning rate is N times the configured one.
// Example:
//     for i, (x, y) in enumerate(loader):
//         criterion(model(x), y).backward()
//         if (i + 1) % accum_steps == 0:
//             optimizer.step()
//             optimizer.zero_grad()
// Fix: `(loss / accum_steps).backward()`.
// Not flagged: any `/`, `*`, `.div`, `.mul` on the loss path (dividing by N,
//   multiplying by its inverse, normalizing a sum by a token count); a
//   sum-reduced loss (`reduction='sum'`: the sub-batch sums add up to the
//   batch's); a loss from a call we cannot see into; zero_grad every iteration; backward
//   under the same guard as the step (GANs alternating optimizers);
//   gradients rescaled by hand (`p.grad /= N`); `accelerator.accumulate` and
//   `accelerator.backward(loss)` / DeepSpeed engines (they scale themselves);
//   a step of Adam / AdamW (Adam without weight_decay) in a file that clips
//   no gradients: Adam's update is invariant to a constant gradient scale.
#include <algorithm>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::accumulation_without_loss_scaling {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF004);

const std::string_view kExplain = R"(TPF004 accumulation_without_loss_scaling: gradient accumulation without dividing the loss by the number of steps

What it finds
  Gradient accumulation: backward runs every iteration, the optimizer step
  only when `i % N` (`(i + 1) % N == 0`, ...) or a counter says so, or once
  after an inner `for micro in range(N):` loop of backwards, and the
  loss is not divided by N (or scaled by an equivalent factor) before
  `backward()`. A loss returned by a helper or a model's forward, also of
  another module of the project, is read where it is computed.

Why it costs
  The accumulated gradient is N times the mean gradient, so the effective
  learning rate is N times the configured one: training diverges or needs a
  retuned learning rate that no longer transfers.

Example
  for i, (x, y) in enumerate(loader):
      loss = criterion(model(x), y)
      loss.backward()
      if (i + 1) % accum_steps == 0:
          optimizer.step()
          optimizer.zero_grad()

Fix
  divide before backward: `(loss / accum_steps).backward()`.

Not flagged
  - losses divided by the accumulation count, multiplied by its inverse, or
    (reduction='sum') normalized by a token count
  - sum-reduced losses (`nn.BCELoss(reduction='sum')`, `size_average=False`):
    the micro-batches' sums add up to the full batch's sum
  - losses computed by code the analysis cannot see (it may divide)
  - zero_grad every iteration (the step is only guarded, nothing accumulates)
  - backward under the same condition as the step (alternating GAN updates)
  - gradients divided by hand before the step (`p.grad /= N`)
  - accumulation done by a framework (`accelerator.accumulate`,
    `accelerator.backward`, DeepSpeed engines)
  - a step of `torch.optim.Adam` (without `weight_decay`) or `AdamW` in a
    file that clips no gradients: Adam's update m / (sqrt(v) + eps) is the
    same for the sum of N gradients as for their mean (up to eps); with
    `clip_grad_norm_`, SGD or Adam's L2 `weight_decay` it is not
)";

namespace {

using dataflow::TorchCall;
using ir::BlockId;
using ir::InstId;
using ir::Op;
using ir::ValueId;

/// Whether a loss value is divided (or multiplied) by something before it
/// reaches backward. Unknown when a leaf is a call we cannot see into (a
/// method of another file may scale internally): then the rule stays silent.
enum class Scaling : uint8_t { Scaled, Unscaled, Unknown };

Scaling join(Scaling a, Scaling b) {
  if (a == Scaling::Scaled || b == Scaling::Scaled) return Scaling::Scaled;
  if (a == Scaling::Unknown || b == Scaling::Unknown) return Scaling::Unknown;
  return Scaling::Unscaled;
}

// Why 12: a loss is built from a forward, a criterion, a few sums and
// attribute reads; deeper chains are not worth following.
constexpr int kMaxDepth = 12;

/// How the value a backward differentiates is scaled. `elem`: the tuple
/// element wanted (`logits, loss = model(x, y)`), or -1 for the value itself.
Scaling scaling(const CheckContext& c, ir::FunctionId fid, ValueId v, int depth, int elem = -1);

/// What a function returns, scaled or not, on every return.
Scaling returns_scaling(const CheckContext& c, ir::FunctionId g, int depth, int elem) {
  const ir::Function& gf = c.ir.fn(g);
  if (gf.is_generator) return Scaling::Unknown;
  Scaling s = Scaling::Unscaled;
  bool any = false;
  for (const ir::Inst& r : gf.insts) {
    if (r.op != Op::Return || r.nops == 0) continue;
    any = true;
    s = join(s, scaling(c, g, gf.operands(r)[0], depth + 1, elem));
  }
  return any ? s : Scaling::Unknown;
}

Scaling call_scaling(const CheckContext& c, ir::FunctionId fid, InstId ci, int depth, int elem) {
  const ir::Function& f = c.ir.fn(fid);
  const ir::Inst& in = f.inst(ci);
  std::string_view m = call_method(c, f, in);
  static constexpr std::string_view kScale[] = {"div", "div_", "mul", "mul_", "true_divide"};
  for (std::string_view s : kScale)
    if (m == s) return Scaling::Scaled;
  std::string_view name = call_target_name(c, fid, ci);
  if (name == "torch.div" || name == "torch.mul" || name == "torch.true_divide")
    return Scaling::Scaled;
  ir::CallTarget t = c.facts.res.call_target(fid, ci);
  bool local_module = t.kind == ir::CallTarget::Kind::InstanceCall && t.cls.valid() &&
                      c.facts.res.is_module_class(t.cls);
  // A helper of the file or a local module's forward: what it returns.
  if ((t.kind == ir::CallTarget::Kind::Function || local_module) && t.fn.valid())
    return returns_scaling(c, t.fn, depth, elem);
  // A function or a model of another project module (`calc_loss(...)`,
  // `model(x, y)` with `model = GPT(...)` from model.py): read there.
  const dataflow::ForeignFunction* ff = c.facts.summaries.foreign_callee(fid, ci);
  if (!ff && in.nops > 0)
    ff = foreign_forward(c, fid, m == "forward" ? call_receiver(f, in) : f.operands(in)[0]);
  if (ff && ff->module->src && ff->module->ast)
    return returns_scaling(foreign_context(*ff), ff->fn, depth, elem);
  // Reductions and casts keep the scale of their receiver.
  static constexpr std::string_view kKeep[] = {"mean", "sum", "float", "to", "squeeze", "cuda"};
  for (std::string_view s : kKeep)
    if (m == s) return scaling(c, fid, call_receiver(f, in), depth + 1);
  // Raw losses: a loss function or module, a model's forward, or a
  // callable handed in as a parameter (`criterion(out, y)`, `model(x)`).
  // A sum over the sub-batch: the micro-steps' sums add up to the
  // full batch's, which is what a sum-reduced loss means to apply.
  if (sum_reduction(c, fid, ci)) return Scaling::Scaled;
  if (loss_kind(c, fid, ci) != LossKind::None) return Scaling::Unscaled;
  TorchCall k = torch_call(c, fid, ci);
  if (k != TorchCall::None && (dataflow::info(k).effects & (dataflow::kForward | dataflow::kLoss)))
    return Scaling::Unscaled;
  if (local_module) return Scaling::Unscaled;  // a local module whose forward is not known
  const ir::Inst& callee = f.def(f.operands(in)[0]);
  if (callee.op == Op::Param) return Scaling::Unscaled;
  return Scaling::Unknown;
}

Scaling scaling(const CheckContext& c, ir::FunctionId fid, ValueId v, int depth, int elem) {
  if (!v.valid() || depth > kMaxDepth) return Scaling::Unknown;
  const ir::Function& f = c.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  auto ops = f.operands(d);
  switch (d.op) {
    case Op::BinOp: {
      ast::Op op = static_cast<ast::Op>(d.aux);
      if (op == ast::Op::Div || op == ast::Op::Mult || op == ast::Op::FloorDiv) return Scaling::Scaled;
      if (op == ast::Op::Add || op == ast::Op::Sub) {
        Scaling s = Scaling::Unscaled;
        for (ValueId o : ops) {
          if (c.facts.res.constant(fid, o).known()) continue;
          s = join(s, scaling(c, fid, o, depth + 1));
        }
        return s;
      }
      return Scaling::Unknown;
    }
    case Op::UnaryOp:
      return scaling(c, fid, ops[0], depth + 1);
    case Op::Phi: {
      // `loss = None` on the paths without targets: no backward runs on those.
      Scaling s = Scaling::Unscaled;
      for (ValueId o : ops)
        if (o != v && f.def(o).op != Op::Undef &&
            c.facts.res.constant(fid, o).kind != ir::ConstValue::Kind::None)
          s = join(s, scaling(c, fid, o, depth + 1, elem));
      return s;
    }
    case Op::BuildTuple:  // `return logits, loss`
      if (elem < 0 || static_cast<size_t>(elem) >= ops.size()) return Scaling::Unknown;
      return scaling(c, fid, ops[static_cast<size_t>(elem)], depth + 1);
    case Op::GetAttr:  // outputs.loss
      return scaling(c, fid, ops[0], depth + 1);
    case Op::GetItem: {  // out["loss"], out[0]
      const ir::ConstValue& k = c.facts.res.constant(fid, ops[1]);
      if (k.kind == ir::ConstValue::Kind::Int && k.i >= 0)
        return scaling(c, fid, ops[0], depth + 1, static_cast<int>(k.i));
      return scaling(c, fid, ops[0], depth + 1);
    }
    case Op::Element: {  // loss, logits = step(...)
      const ir::Inst& u = f.def(ops[0]);
      if (u.op != Op::Unpack || (d.flags & ir::kStarElem)) return Scaling::Unknown;
      return scaling(c, fid, f.operands(u)[0], depth + 1, static_cast<int>(d.aux));
    }
    case Op::Call:
      return call_scaling(c, fid, f.def_id(v), depth, elem);
    default:
      return Scaling::Unknown;
  }
}

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {}

  void run(DiagSink& out) {
    for (uint32_t l = 0; l < li_.loops.size(); ++l) check_loop(l, out);
    for (uint32_t l = 0; l < li_.loops.size(); ++l) check_micro_steps(l, out);
  }

 private:
  /// Accumulation as an inner loop: `for micro in range(N):` runs a
  /// backward every iteration and no step or clear, and the loop around it
  /// steps once after it (nanoGPT's shape). The loss must be divided by N.
  void check_micro_steps(uint32_t m, DiagSink& out) {
    uint32_t l = li_.loops[m].parent;
    if (l == UINT32_MAX) return;
    const ir::Inst& head = f_.terminator(li_.loops[m].header);
    if (head.op != Op::ForIter) return;
    const ir::Inst& it = f_.def(f_.operands(head)[0]);
    if (it.op != Op::GetIter || f_.def(f_.operands(it)[0]).op != Op::Call) return;
    const ir::Inst& range = f_.def(f_.operands(it)[0]);
    if (call_target_name(ctx_, fid_, f_.def_id(f_.operands(it)[0])) != "builtins.range" ||
        positional_count(f_, range) != 1)
      return;
    ValueId n = f_.operands(range)[1];
    const ir::ConstValue& c = ctx_.facts.res.constant(fid_, n);
    if (c.known() && (c.kind != ir::ConstValue::Kind::Int || c.i < 2)) return;
    InstId backward;
    for (InstId i : loop_insts(ctx_, fid_, m)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op == Op::GetAttr && ctx_.ir.names.str(in.aux) == "grad") return;
      if (in.op == Op::WithEnter && is_framework_accumulation(in)) return;
      if (in.op != Op::Call) continue;
      if (is_clear(i) || is_step(i)) return;
      TorchCall k = torch_call(ctx_, fid_, i);
      if (k == TorchCall::Backward && positional_count(f_, in) > 0) return;
      if ((k == TorchCall::Backward || k == TorchCall::AutogradBackward) && !backward.valid() &&
          li_.loop_of(f_.block_of(i)) == m && every_iteration(m, i))
        backward = i;
    }
    if (!backward.valid()) return;
    if (rescales_grads(l, m)) return;
    InstId step;
    for (InstId i : loop_insts(ctx_, fid_, l))
      if (li_.loop_of(f_.block_of(i)) == l && f_.inst(i).op == Op::Call && is_step(i)) {
        if (step_is_engine(i)) return;
        if (!step.valid()) step = i;
      }
    if (!step.valid() || scale_invariant_step(step)) return;
    ValueId loss = backward_loss(backward);
    if (!loss.valid() || scaling(ctx_, fid_, loss, 0) != Scaling::Unscaled) return;
    const ir::Inst& bi = f_.inst(backward);
    std::string btext = call_text(ctx_, f_, bi);
    std::string ntext = value_text(ctx_, f_, n);
    Diagnostic d = make_diagnostic(
        kRule, bi.span,
        "`" + btext + "` accumulates gradients over the `range(" + ntext +
            ")` micro-steps before one optimizer step without dividing the loss; each step "
            "applies the sum, not the mean, of `" + ntext + "` gradients",
        "divide the loss by the accumulation count before backward: `(loss / " + ntext +
            ").backward()`");
    d.notes.push_back({f_.inst(step).span, "the optimizer steps here, once per `range(" + ntext + ")` pass"});
    out.report(std::move(d));
  }

  /// `p.grad.data.mul_(1.0 / N)`, `p.grad.div_(N)`, `p.grad /= N` in loop
  /// `l` outside the micro-step loop `inner` (learn2learn's MAML examples
  /// average the summed task gradients over the parameters, then step):
  /// the gradients are rescaled by hand, so the loss need not be.
  bool rescales_grads(uint32_t l, uint32_t inner) const {
    auto grad = [&](ValueId v) {
      for (int depth = 0; v.valid() && depth < 3; ++depth) {
        const ir::Inst& d = f_.def(v);
        if (d.op != Op::GetAttr) return false;
        std::string_view a = ctx_.ir.names.str(d.aux);
        if (a == "grad") return true;
        if (a != "data") return false;
        v = f_.operands(d)[0];
      }
      return false;
    };
    std::vector<InstId> in_inner = loop_insts(ctx_, fid_, inner);
    std::sort(in_inner.begin(), in_inner.end());
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      if (std::binary_search(in_inner.begin(), in_inner.end(), i)) continue;
      const ir::Inst& in = f_.inst(i);
      if (in.op == Op::Call) {
        std::string_view m = call_method(ctx_, f_, in);
        if ((m == "mul_" || m == "div_") && grad(call_receiver(f_, in))) return true;
      } else if (in.op == Op::BinOp && (in.flags & ir::kInplaceOp) && in.nops > 0 && grad(f_.operands(in)[0])) {
        return true;
      }
    }
    return false;
  }

  /// The step is Adam's or AdamW's and nothing in the file clips
  /// gradients: the sum of N gradients is N times their mean, and Adam's
  /// update m / (sqrt(v) + eps) does not change when every gradient is
  /// scaled by one constant (m scales by N, sqrt(v) by N; PyTorch 2.x
  /// torch/optim/adam.py), so the undivided loss steps as the mean would,
  /// up to eps. Not so with clipping (the norm sees the sum), with SGD
  /// and the like (the step is N times larger), or with Adam's
  /// `weight_decay` (L2 added to the gradient: the sum outweighs it N
  /// times; AdamW decouples it). Every optimizer the step may be must be
  /// one of these, built where the file shows it.
  bool scale_invariant_step(InstId s) const {
    const ir::Inst& in = f_.inst(s);
    ValueId opt = positional_count(f_, in) > 0 || call_arg(ctx_, f_, in, -1, "optimizer").valid()
                      ? call_arg(ctx_, f_, in, 0, "optimizer")
                      : call_receiver(f_, in);
    if (!opt.valid()) return false;
    std::span<const uint32_t> objs = ctx_.facts.objects().of(fid_, opt);
    if (objs.empty()) return false;
    for (uint32_t o : objs) {
      const dataflow::AbstractObject& ob = ctx_.facts.objects().obj(o);
      if (ob.kind != dataflow::ObjKind::Optimizer || !ob.site.valid()) return false;
      std::string_view name = call_target_name(ctx_, ob.fn, ob.site);
      if (name == "torch.optim.AdamW") continue;
      if (name != "torch.optim.Adam") return false;
      const ir::Function& g = ctx_.ir.fn(ob.fn);
      // Parameter groups (`[{"params": ..., "weight_decay": wd}]`) may set
      // the L2 decay per group: only parameters a call returns are judged.
      ValueId params = call_arg(ctx_, g, g.inst(ob.site), 0, "params");
      if (!params.valid() || g.def(params).op != Op::Call) return false;
      ValueId wd = call_arg(ctx_, g, g.inst(ob.site), 4, "weight_decay");
      if (!wd.valid()) continue;
      const ir::ConstValue& c = ctx_.facts.res.constant(ob.fn, wd);
      if (!c.is_number() || c.d != 0) return false;
    }
    return !file_calls_any(ctx_, [](std::string_view n) { return n.find("clip_grad") != std::string_view::npos; });
  }

  void check_loop(uint32_t l, DiagSink& out) {
    std::vector<InstId> backwards, steps;
    bool clears_every_iteration = false;
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op == Op::GetAttr && ctx_.ir.names.str(in.aux) == "grad") return;  // grads rescaled by hand
      if (in.op == Op::WithEnter && is_framework_accumulation(in)) return;
      if (in.op != Op::Call) continue;
      if (is_clear(i)) {
        if (every_iteration(l, i)) clears_every_iteration = true;
        continue;
      }
      TorchCall k = torch_call(ctx_, fid_, i);
      if (k == TorchCall::Backward || k == TorchCall::AutogradBackward) {
        // `accelerator.backward(loss)`, `engine.backward(loss)`: the
        // framework scales by its own accumulation count.
        if (k == TorchCall::Backward && positional_count(f_, in) > 0) return;
        if (li_.loop_of(f_.block_of(i)) == l && every_iteration(l, i)) backwards.push_back(i);
      } else if (is_step(i)) {
        if (step_is_engine(i)) return;
        steps.push_back(i);
      }
    }
    // No clear at all is TPF003's finding too; both hold (the guard shows
    // the author means to accumulate).
    if (backwards.empty() || steps.empty() || clears_every_iteration) return;
    for (InstId s : steps) {
      if (li_.loop_of(f_.block_of(s)) != l || every_iteration(l, s)) continue;
      ValueId guard = accumulation_guard(l, s);
      if (!guard.valid()) continue;
      for (InstId b : backwards) {
        ValueId loss = backward_loss(b);
        if (!loss.valid()) continue;
        if (scaling(ctx_, fid_, loss, 0) != Scaling::Unscaled) continue;
        if (scale_invariant_step(s)) return;
        report(b, s, guard, l, out);
        return;  // one finding per loop
      }
    }
  }

  /// The instruction runs in every iteration of loop `l`: its block
  /// dominates each latch.
  bool every_iteration(uint32_t l, InstId i) const {
    BlockId b = f_.block_of(i);
    for (BlockId latch : li_.loops[l].latches)
      if (!dom().dominates(b, latch)) return false;
    return true;
  }

  bool is_clear(InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (call_effects(ctx_, fid_, i) & dataflow::kZeroGrad) return true;
    return call_method(ctx_, f_, in).find("zero_grad") != std::string_view::npos;
  }

  bool is_step(InstId i) const {
    const ir::Inst& in = f_.inst(i);
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::OptimizerStep) {
      if (positional_count(f_, in) == 0) return true;
      ValueId r = call_receiver(f_, in);
      const ir::Referent& ref = ctx_.facts.res.ref(fid_, r);
      if (ref.kind == ir::Referent::Kind::Result &&
          ctx_.ir.names.str(ref.path()).starts_with("torch.optim."))
        return true;
      // `scaler.step(optimizer)` with a scaler we cannot resolve: its
      // argument is something the function calls zero_grad on.
      return is_zeroed(access_key(ctx_, fid_, call_arg(ctx_, f_, in, 0, "optimizer")));
    }
    return k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp;
  }

  bool is_zeroed(const std::string& key) const {
    if (key.empty()) return false;
    for (const ir::Inst& in : f_.insts)
      if (in.op == Op::Call && call_method(ctx_, f_, in) == "zero_grad" &&
          access_key(ctx_, fid_, call_receiver(f_, in)) == key)
        return true;
    return false;
  }

  /// `engine.step()` where the same object also runs `engine.backward(loss)`
  /// (DeepSpeed): the engine accumulates and scales itself.
  bool step_is_engine(InstId s) const {
    std::string key = access_key(ctx_, fid_, call_receiver(f_, f_.inst(s)));
    if (key.empty()) return false;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op == Op::Call && call_method(ctx_, f_, in) == "backward" &&
          access_key(ctx_, fid_, call_receiver(f_, in)) == key)
        return true;
    }
    return false;
  }

  /// `with accelerator.accumulate(model):` (Hugging Face Accelerate divides
  /// the loss by its gradient_accumulation_steps inside `backward`).
  bool is_framework_accumulation(const ir::Inst& enter) const {
    const ir::Inst& mgr = f_.def(f_.operands(enter)[0]);
    return mgr.op == Op::Call && call_method(ctx_, f_, mgr) == "accumulate";
  }

  /// The condition that makes step `s` run only on some iterations: a
  /// branch in the loop that dominates the step, which does not
  /// post-dominate it, testing `i % N` or a loop-carried counter. Returns
  /// the `%` BinOp or the Compare, or kNoValue.
  ValueId accumulation_guard(uint32_t l, InstId s) const {
    BlockId sb = f_.block_of(s);
    for (BlockId d = dom().idom(sb); d.valid() && li_.contains(l, d); d = dom().idom(d)) {
      const ir::Inst& t = f_.terminator(d);
      if (t.op != Op::Branch) continue;
      if (postdom().dominates(sb, d)) continue;
      ValueId g = guard_in(l, f_.operands(t)[0], 0);
      if (g.valid()) return g;
    }
    return ir::kNoValue;
  }

  ValueId guard_in(uint32_t l, ValueId c, int depth) const {
    if (!c.valid() || depth > 4) return ir::kNoValue;
    const ir::Inst& d = f_.def(c);
    auto ops = f_.operands(d);
    if (d.op == Op::UnaryOp) return guard_in(l, ops[0], depth + 1);
    if (d.op == Op::BinOp && static_cast<ast::Op>(d.aux) == ast::Op::Mod) {
      const ir::ConstValue& lhs = ctx_.facts.res.constant(fid_, ops[0]);
      const ir::ConstValue& rhs = ctx_.facts.res.constant(fid_, ops[1]);
      if (lhs.kind == ir::ConstValue::Kind::Str) return ir::kNoValue;  // "%d" % n
      if (rhs.is_number() && rhs.d <= 1) return ir::kNoValue;
      return varies_in(l, ops[0], 0) ? c : ir::kNoValue;
    }
    if (d.op == Op::Compare) {
      for (ValueId o : ops) {
        ValueId g = guard_in(l, o, depth + 1);
        if (g.valid()) return g;
      }
      if (static_cast<ast::Op>(d.aux) == ast::Op::Eq && is_counter(l, ops[0])) return c;
    }
    return ir::kNoValue;
  }

  /// The value changes from one iteration of `l` to the next: it is
  /// computed in the loop from the loop's item or a loop-carried phi.
  bool varies_in(uint32_t l, ValueId v, int depth) const {
    if (!v.valid() || depth > 6) return false;
    const ir::Inst& d = f_.def(v);
    BlockId b = f_.block_of(f_.def_id(v));
    if (!li_.contains(l, b)) return false;
    if (d.op == Op::Phi || d.op == Op::NextItem || d.op == Op::Element) return true;
    if (d.op == Op::BinOp || d.op == Op::GetAttr)
      for (ValueId o : f_.operands(d))
        if (varies_in(l, o, depth + 1)) return true;
    return false;
  }

  /// `count` in `count += 1` ... `if count == N`: a phi at the loop header
  /// (or one step of arithmetic on it) whose back-edge value adds to it.
  bool is_counter(uint32_t l, ValueId v) const {
    const ir::Inst& d = f_.def(v);
    if (d.op == Op::BinOp && static_cast<ast::Op>(d.aux) == ast::Op::Add) {
      auto ops = f_.operands(d);
      const ir::Inst& p = f_.def(ops[0]);
      return p.op == Op::Phi && f_.block_of(f_.def_id(ops[0])) == li_.loops[l].header;
    }
    return false;
  }

  /// The loss a backward call differentiates: `loss` in `loss.backward()`,
  /// `scaler.scale(loss).backward()`, `torch.autograd.backward(loss)`.
  ValueId backward_loss(InstId b) const {
    const ir::Inst& in = f_.inst(b);
    if (torch_call(ctx_, fid_, b) == TorchCall::AutogradBackward)
      return call_arg(ctx_, f_, in, 0, "tensors");
    ValueId r = call_receiver(f_, in);
    if (!r.valid()) return r;
    const ir::Inst& rd = f_.def(r);
    if (rd.op == Op::Call && call_method(ctx_, f_, rd) == "scale" && positional_count(f_, rd) == 1)
      return f_.operands(rd)[1];
    return r;
  }

  void report(InstId b, InstId s, ValueId guard, uint32_t l, DiagSink& out) const {
    const ir::Inst& bi = f_.inst(b);
    std::string btext = call_text(ctx_, f_, bi);
    std::string gtext = value_text(ctx_, f_, guard);
    std::string n = "the number of accumulated steps";
    const ir::Inst& gd = f_.def(guard);
    if (gd.op == Op::BinOp) n = "`" + value_text(ctx_, f_, f_.operands(gd)[1]) + "`";
    else if (gd.op == Op::Compare) n = "`" + value_text(ctx_, f_, f_.operands(gd)[1]) + "`";
    Diagnostic d = make_diagnostic(
        kRule, bi.span,
        "`" + btext + "` accumulates gradients over the iterations skipped by `" + gtext +
            "` without dividing the loss; each step applies the sum, not the mean, of " + n +
            " gradients",
        "divide the loss by the accumulation count before backward: `(loss / " +
            (n.front() == '`' ? n.substr(1, n.size() - 2) : std::string("accum_steps")) +
            ").backward()`");
    d.notes.push_back({f_.inst(s).span, "the optimizer steps here, only when `" + gtext + "` holds"});
    d.fix = divide_fix(b, guard, l);
    out.report(std::move(d));
  }

  /// `loss.backward()` becomes `(loss / N).backward()`, N as the guard
  /// writes it (`accum_steps` in `(i + 1) % accum_steps == 0`), when N is
  /// a name, attribute or number fixed before the loop.
  std::optional<Fix> divide_fix(InstId b, ValueId guard, uint32_t l) const {
    namespace S = ast::slot;
    const ast::Module& a = ctx_.ast;
    const ir::Inst& gd = f_.def(guard);
    if (gd.nops < 2) return std::nullopt;
    ValueId nv = f_.operands(gd)[1];
    if (!nv.valid()) return std::nullopt;
    ast::NodeId n;
    if (gd.op == Op::BinOp) {
      ast::NodeId m = node_at(ctx_, gd.span, ast::NodeKind::BinOp);
      if (m.valid()) n = a.child(m, S::BinOp::right);
    } else if (gd.op == Op::Compare) {
      ast::NodeId c = node_at(ctx_, gd.span, ast::NodeKind::Compare);
      if (c.valid() && a.children(c, S::Compare::comparators).size() == 1)
        n = a.children(c, S::Compare::comparators)[0];
    }
    if (!n.valid()) return std::nullopt;
    ast::NodeKind nk = a[n].kind;
    if (nk != ast::NodeKind::Name && nk != ast::NodeKind::Attribute && nk != ast::NodeKind::Constant)
      return std::nullopt;
    // A name set before the loop, or an attribute of one (`args.accum`):
    // the backward sees the same value the guard does.
    while (nk == ast::NodeKind::Attribute && f_.def(nv).op == Op::GetAttr) {
      nv = f_.operands(f_.def(nv))[0];
      if (!nv.valid()) return std::nullopt;
      nk = f_.def(nv).op == Op::GetAttr ? ast::NodeKind::Attribute : ast::NodeKind::Name;
    }
    if (nk != ast::NodeKind::Constant && li_.contains(l, f_.block_of(f_.def_id(nv))))
      return std::nullopt;  // set inside the loop: maybe not yet at the backward
    std::string ntext(source_text(ctx_, a[n].span));
    if (ntext.find_first_of("\r\n") != std::string::npos) return std::nullopt;
    ast::NodeId call = node_at(ctx_, f_.inst(b).span, ast::NodeKind::Call);
    if (!call.valid()) return std::nullopt;
    // The loss is the receiver of `loss.backward()`, or the first argument
    // of `torch.autograd.backward(loss)` (a sequence of tensors is left alone).
    ast::NodeId loss;
    const TorchCall kind = torch_call(ctx_, fid_, b);
    std::span<const ast::NodeId> args = a.children(call, S::Call::args);
    if (kind == TorchCall::AutogradBackward) {
      if (args.empty()) return std::nullopt;
      const ast::NodeKind lk = a[args[0]].kind;
      if (lk == ast::NodeKind::List || lk == ast::NodeKind::Tuple || lk == ast::NodeKind::Starred)
        return std::nullopt;
      loss = args[0];
    } else {
      ast::NodeId func = a.child(call, S::Call::func);
      if (kind != TorchCall::Backward || a[func].kind != ast::NodeKind::Attribute)
        return std::nullopt;
      loss = a.child(func, S::Attribute::value);
    }
    std::string divided = atom_text(ctx_, loss) + " / " + ntext;
    if (kind != TorchCall::AutogradBackward) divided = "(" + divided + ")";  // a receiver
    const std::string shown = kind == TorchCall::AutogradBackward
                                  ? "torch.autograd.backward(" + divided + ")"
                                  : divided + ".backward()";
    return make_fix("divide the loss: `" + shown + "`", Edit{a[loss].span, divided});
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
  // On first use (FileFacts keeps them): most loops have no backward and
  // step, and never ask.
  const ir::DomTree& dom() const { return ctx_.facts.dom(ctx_.ir, fid_); }
  const ir::DomTree& postdom() const { return ctx_.facts.postdom(ctx_.ir, fid_); }
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // check_loop reports only with a Backward / AutogradBackward call and
    // a step (is_step: an OptimizerStep, ScalerStep or ScalerStepAmp row)
    // in the loop: skip functions without both, before their loops.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!may_backward(fc) || !may_step(fc)) continue;
    if (loops_of(ctx, ir::FunctionId(fi)).loops.empty()) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::accumulation_without_loss_scaling
