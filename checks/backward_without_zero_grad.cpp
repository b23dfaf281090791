// TPF003 backward_without_zero_grad
//
// What it finds: a loop whose body runs `loss.backward()` and
//   `optimizer.step()` (directly or through the file's own helpers) but
//   never clears the gradients: no `zero_grad()` (optimizer's or model's,
//   any `set_to_none`), no `p.grad = None`, no `p.grad.zero_()` anywhere in
//   that loop.
// Why it costs: `backward()` adds into `.grad` (PyTorch 2.x,
//   torch/autograd/__init__.py: "gradients are accumulated in the leaves").
//   Without clearing, step k applies the sum of the gradients of steps
//   1..k: the effective learning rate grows every step and training
//   diverges or silently converges to something worse.
// Example:
//     for x, y in loader:
//         loss = criterion(model(x), y)
//         loss.backward()
//         optimizer.step()
// Fix: call `optimizer.zero_grad(set_to_none=True)` once per step, before
//   `backward()` (or right after `step()`).
// Not flagged: zero_grad anywhere in the loop (also under a condition, as
//   gradient accumulation does: the condition is not evaluated); zero_grad
//   in a helper the loop calls; gradient accumulation across an inner loop
//   with step and zero_grad in the outer one; DeepSpeed-style engines whose
//   `engine.backward(loss)` / `engine.step()` clear gradients themselves
//   (also through a helper the engine object is handed to: every step the
//   helper takes is on an Engine object, dataflow/objects.h);
//   `torch.autograd.grad` (it does not accumulate); L-BFGS closures; an
//   optimizer built in the iteration over tensors made in the iteration
//   (`SGD([x.detach().clone()])`: new leaves every step, whose gradients
//   start empty).
#include <set>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::backward_without_zero_grad {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF003);

const std::string_view kExplain = R"(TPF003 backward_without_zero_grad: gradients are never cleared between optimizer steps

What it finds
  A loop that runs `loss.backward()` and `optimizer.step()` every iteration
  (directly or through helper functions of the same file) and never clears
  the gradients: no `optimizer.zero_grad()`, `model.zero_grad()`,
  `p.grad = None` or `p.grad.zero_()` anywhere in the loop.

Why it costs
  `backward()` adds into each parameter's `.grad`; it does not overwrite it.
  Without clearing, step k applies the sum of the gradients of all steps so
  far. The effective learning rate grows every step: the loss explodes, or
  the run converges to a worse model and nothing reports an error.

Example
  for x, y in loader:
      loss = criterion(model(x), y)
      loss.backward()
      optimizer.step()

Fix
  for x, y in loader:
      optimizer.zero_grad(set_to_none=True)
      loss = criterion(model(x), y)
      loss.backward()
      optimizer.step()

Not flagged
  - zero_grad anywhere in the loop, also under a condition (gradient
    accumulation: `if (i + 1) % k == 0: optimizer.step(); optimizer.zero_grad()`)
  - zero_grad inside a helper the loop calls
  - accumulation over an inner loop with step and zero_grad in the outer loop
  - engines that clear gradients in their own step (DeepSpeed
    `engine.backward(loss)` + `engine.step()`), also when the engine that
    deepspeed.initialize returned is handed to a training helper or stored
    on an object (`train(loader, model_engine)`, `model.network.step()`)
  - `torch.autograd.grad(...)`, which returns gradients instead of accumulating
  - an optimizer built in the iteration over tensors made in the iteration
    (`SGD([x.detach().clone()])`, latent optimization in a sampling loop):
    new leaves every step, whose gradients start empty
)";

namespace {

using dataflow::TorchCall;

struct Events {
  std::vector<ir::InstId> steps, backwards;
  bool clears = false;  // some instruction of the loop clears gradients
};

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid) : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {
    find_engines();
  }

  /// Clears gradients: zero_grad on anything, `.grad = None`, `del p.grad`,
  /// an in-place op on `.grad`, an engine's step, or a call whose name says so.
  bool clears(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if ((in.op == ir::Op::SetAttr || in.op == ir::Op::DelAttr) &&
        ctx_.ir.names.str(in.aux) == "grad")
      return true;
    if (in.op != ir::Op::Call) return false;
    if (call_effects(ctx_, fid_, i) & dataflow::kZeroGrad) return true;
    std::string_view m = call_method(ctx_, f_, in);
    if (m.find("zero_grad") != std::string_view::npos || m.find("clear_grad") != std::string_view::npos)
      return true;
    if (touches_grad(ctx_, f_, call_receiver(f_, in))) return true;
    if (is_engine_call(i)) return true;
    // A helper handed a DeepSpeed engine (`train(loader, model_engine)`)
    // steps through it: the engine clears the gradients.
    if (calls_file_function(ctx_, fid_, i) && (call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep)) {
      ir::FunctionId g = ctx_.facts.summaries.callee(fid_, i);
      if (g.valid() && g != fid_ && steps_engine(g, 0)) return true;
    }
    return false;
  }

  /// Every step function g takes (directly or through the file's helpers)
  /// is a DeepSpeed engine's (`model.network.step()` on the engine
  /// deepspeed.initialize returned), by the objects its receivers denote.
  bool steps_engine(ir::FunctionId g, int depth) const {
    if (depth > 3) return false;
    const ir::Function& gf = ctx_.ir.fn(g);
    const dataflow::Objects& objs = ctx_.facts.objects();
    bool any = false;
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      ir::InstId id(j);
      if (torch_call(ctx_, g, id) == TorchCall::OptimizerStep) {
        if (!objs.may_be(g, call_receiver(gf, x), dataflow::ObjKind::Engine)) return false;
        any = true;
      } else if (calls_file_function(ctx_, g, id) && (call_effects(ctx_, g, id) & dataflow::kOptimizerStep)) {
        ir::FunctionId h = ctx_.facts.summaries.callee(g, id);
        if (!h.valid() || h == g || !steps_engine(h, depth + 1)) return false;
        any = true;
      }
    }
    return any;
  }

  bool is_step(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call || is_engine_call(i)) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::OptimizerStep) {
      // `env.step(action)`, `sampler.step(x)`: a bare `step` with arguments is
      // an optimizer only when the receiver is one (`opt.step(closure)`).
      if (positional_count(f_, in) == 0) return true;
      return is_optimizer(call_receiver(f_, in));
    }
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) return true;
    return calls_file_function(ctx_, fid_, i) &&
           (call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep);
  }

  bool is_backward(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call || is_engine_call(i)) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::Backward || k == TorchCall::AutogradBackward) return true;
    return calls_file_function(ctx_, fid_, i) &&
           (call_effects(ctx_, fid_, i) & dataflow::kBackward);
  }

  void run(DiagSink& out) {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    std::vector<Events> ev;
    ev.reserve(li.loops.size());
    for (uint32_t l = 0; l < li.loops.size(); ++l) ev.push_back(events(l));
    auto flagged = [&](uint32_t l) {
      return !ev[l].clears && !ev[l].steps.empty() && !ev[l].backwards.empty();
    };
    std::set<uint32_t> reported;  // first backward of each flagged loop
    for (uint32_t l = 0; l < li.loops.size(); ++l) {
      if (!flagged(l)) continue;
      // Report the innermost such loop only: an outer loop around it is the
      // same finding. (Inner loops come after the loops containing them.)
      bool inner_flagged = false;
      for (uint32_t m = l + 1; m < li.loops.size() && !inner_flagged; ++m)
        inner_flagged = li.contains(l, li.loops[m].header) && flagged(m);
      if (inner_flagged) continue;
      ir::InstId b = ev[l].backwards.front(), s = ev[l].steps.front();
      if (!reported.insert(b.v).second) continue;
      report(b, s, out);
    }
  }

 private:
  Events events(uint32_t loop) const {
    Events ev;
    for (ir::InstId i : loop_insts(ctx_, fid_, loop)) {
      if (clears(i)) ev.clears = true;
      else if (is_backward(i)) {
        ev.backwards.push_back(i);
        if (is_step(i)) ev.steps.push_back(i);  // a helper that does both
      } else if (is_step(i) && !fresh_step(i, loop)) {
        ev.steps.push_back(i);
      }
    }
    return ev;
  }

  /// `opt.step()` of an optimizer built in this iteration over tensors
  /// made in this iteration (`opt = SGD([x_in])` with `x_in =
  /// x.detach().clone()`): every step has new leaves whose gradients start
  /// empty, so nothing accumulates across iterations.
  bool fresh_step(ir::InstId i, uint32_t loop) const {
    if (torch_call(ctx_, fid_, i) != TorchCall::OptimizerStep) return false;
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    ir::ValueId opt = call_receiver(f_, f_.inst(i));
    if (!opt.valid() || f_.def(opt).op != ir::Op::Call || !is_optimizer(opt)) return false;
    ir::InstId ctor = f_.def_id(opt);
    if (!li.contains(loop, f_.block_of(ctor))) return false;
    ir::ValueId params = call_arg(ctx_, f_, f_.inst(ctor), 0, "params");
    if (!params.valid()) return false;
    const ir::Inst& pd = f_.def(params);
    if (pd.op != ir::Op::BuildList && pd.op != ir::Op::BuildTuple) return false;
    auto elems = f_.operands(pd);
    if (elems.empty()) return false;
    for (ir::ValueId e : elems) {
      ir::InstId d = f_.def_id(e);
      if (!d.valid() || f_.def(e).op == ir::Op::Param || !li.contains(loop, f_.block_of(d)))
        return false;
      // A fresh leaf: a copy or a new tensor, not a module's parameter.
      if (f_.def(e).op != ir::Op::Call) return false;
      std::string_view m = call_method(ctx_, f_, f_.def(e));
      std::string_view n = call_target_name(ctx_, fid_, d);
      bool copy = m == "clone" || m == "detach" || m == "requires_grad_";
      bool factory = n.starts_with("torch.") && !n.starts_with("torch.nn.");
      if (!copy && !factory) return false;
    }
    return true;
  }

  bool is_optimizer(ir::ValueId v) const {
    if (!v.valid()) return false;
    const ir::Referent& r = ctx_.facts.res.ref(fid_, v);
    if (r.kind != ir::Referent::Kind::Result) return false;
    return ctx_.ir.names.str(r.path()).starts_with("torch.optim.");
  }

  /// Objects with both `.backward(...)` and `.step()` called on them are
  /// training engines (DeepSpeed): their step also clears the gradients.
  void find_engines() {
    std::set<std::string> backward_keys, step_keys;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call) continue;
      std::string_view m = call_method(ctx_, f_, in);
      if (m != "backward" && m != "step") continue;
      std::string key = access_key(ctx_, fid_, call_receiver(f_, in));
      if (key.empty()) continue;
      (m == "backward" ? backward_keys : step_keys).insert(key);
    }
    for (const std::string& k : backward_keys)
      if (step_keys.count(k)) engines_.insert(k);
  }

  bool is_engine_call(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    std::string_view m = call_method(ctx_, f_, in);
    if (m != "backward" && m != "step") return false;
    ir::ValueId r = call_receiver(f_, in);
    if (ctx_.facts.objects().may_be(fid_, r, dataflow::ObjKind::Engine)) return true;
    return !engines_.empty() && engines_.count(access_key(ctx_, fid_, r)) != 0;
  }

  /// The optimizer expression a step call names: `opt` in `opt.step()`,
  /// `opt` in `scaler.step(opt)`; "optimizer" when not written there.
  std::string optimizer_text(ir::InstId s) const {
    const ir::Inst& in = f_.inst(s);
    TorchCall k = torch_call(ctx_, fid_, s);
    ir::ValueId v;
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp)
      v = call_arg(ctx_, f_, in, 0, "optimizer");
    else if (k == TorchCall::OptimizerStep)
      v = call_receiver(f_, in);
    std::string t = access_key(ctx_, fid_, v);
    return t.empty() ? std::string("optimizer") : t;
  }

  void report(ir::InstId b, ir::InstId s, DiagSink& out) const {
    const ir::Inst& bi = f_.inst(b);
    std::string btext = call_text(ctx_, f_, bi);
    std::string stext = call_text(ctx_, f_, f_.inst(s));
    std::string opt = optimizer_text(s);
    std::string message;
    if (b == s)
      message = "`" + btext + "` runs backward and step every iteration and nothing in the loop "
                "clears the gradients; each step applies the sum of all earlier gradients";
    else
      message = "`" + btext + "` adds to gradients that nothing in the loop clears; each `" +
                stext + "` applies the sum of all earlier steps' gradients";
    Diagnostic d = make_diagnostic(
        kRule, bi.span, std::move(message),
        "call `" + opt + ".zero_grad(set_to_none=True)` once per iteration, before the backward pass");
    if (b != s) d.notes.push_back({f_.inst(s).span, "the optimizer steps here"});
    d.fix = zero_grad_fix(s);
    out.report(std::move(d));
  }

  /// `opt.zero_grad(set_to_none=True)` on a line of its own right after
  /// the step: every step then starts from cleared gradients, and a step
  /// under an accumulation guard keeps accumulating until it runs.
  std::optional<Fix> zero_grad_fix(ir::InstId s) const {
    const ir::Inst& in = f_.inst(s);
    TorchCall k = torch_call(ctx_, fid_, s);
    ast::NodeId call = node_at(ctx_, in.span, ast::NodeKind::Call);
    if (!call.valid()) return std::nullopt;
    namespace S = ast::slot;
    ast::NodeId opt;
    if (k == TorchCall::OptimizerStep) {
      ast::NodeId func = ctx_.ast.child(call, S::Call::func);
      if (ctx_.ast[func].kind != ast::NodeKind::Attribute) return std::nullopt;
      opt = ctx_.ast.child(func, S::Attribute::value);
    } else if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) {
      auto args = ctx_.ast.children(call, S::Call::args);
      if (args.size() != 1) return std::nullopt;
      opt = args[0];
    }
    if (!opt.valid()) return std::nullopt;
    ast::NodeKind kind = ctx_.ast[opt].kind;
    if (kind != ast::NodeKind::Name && kind != ast::NodeKind::Attribute) return std::nullopt;
    std::string text(source_text(ctx_, ctx_.ast[opt].span));
    if (text.find_first_of("\r\n") != std::string::npos) return std::nullopt;
    std::string code = text + ".zero_grad(set_to_none=True)";
    std::optional<Edit> e = insert_line_after(ctx_, in.span, code);
    if (!e) return std::nullopt;
    return make_fix("add `" + code + "` after the step", std::move(*e));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  std::set<std::string> engines_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // A flagged loop has a backward (is_backward) and a step (is_step) of
    // this function: skip functions whose calls can be neither, before
    // their loops and the engine scan.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!may_backward(fc) || !may_step(fc)) continue;
    if (loops_of(ctx, ir::FunctionId(fi)).loops.empty()) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::backward_without_zero_grad
