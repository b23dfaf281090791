// TPF014 zero_grad_before_step
//
// What it finds: `optimizer.zero_grad()` on a path from `loss.backward()` to
//   `optimizer.step()` of the same optimizer, in the same iteration of the
//   loops around both, with no second backward between the clear and the
//   step: the step applies cleared gradients.
// Why it costs: zero_grad sets every `.grad` to None (set_to_none=True, the
//   default since PyTorch 2.0) or to zero; `step()` skips parameters whose
//   grad is None and applies a zero update otherwise (torch/optim/*.py).
//   The backward pass was computed for nothing: the model does not learn
//   (or only weight decay and momentum move it) while the GPU bill runs.
// Example:
//     loss.backward()
//     optimizer.zero_grad()
//     optimizer.step()
// Fix: clear before the forward pass (top of the iteration) or after
//   `step()`. Autofix (move_fix): the clear moves to just before the
//   backward when backward, clear and step are lone statements of one block
//   and that backward is the iteration's only one.
// Not flagged: zero_grad at the top of the iteration or after step;
//   gradient accumulation (zero_grad under a condition at the top); a
//   second backward between the clear and the step (two losses, a GAN's
//   generator after the discriminator); zero_grad of another optimizer;
//   a clear after a step of any optimizer that applied the backward (a
//   second model's clear after the reference model's step, a GAN's
//   `D_optimizer.zero_grad()` after `G_optimizer.step()`);
//   gradients written by hand (`p.grad = g`) or by a helper of the file
//   between the clear and the step; `model.zero_grad()` (which parameters
//   the optimizer holds is not known); a deliberate skipped update (the
//   clear and an empty step on a branch that leaves the iteration, beside
//   the normal step).
#include <set>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::zero_grad_before_step {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF014);

const std::string_view kExplain =
    R"(TPF014 zero_grad_before_step: gradients are cleared between backward and the optimizer step

What it finds
  `optimizer.zero_grad()` on a path from `loss.backward()` to
  `optimizer.step()` of the same optimizer, within one iteration, with no
  other backward between the clear and the step.

Why it costs
  zero_grad sets the gradients to None (the default since PyTorch 2.0) or
  to zero, so the step that follows applies nothing: the backward pass was
  wasted and the model does not learn (weight decay and momentum may still
  move it, which hides the problem in the loss curve). Every GPU hour of the
  run is spent on forward and backward passes whose result is thrown away.

Example
  for x, y in loader:
      loss = criterion(model(x), y)
      loss.backward()
      optimizer.zero_grad()
      optimizer.step()

Fix
  for x, y in loader:
      optimizer.zero_grad(set_to_none=True)
      loss = criterion(model(x), y)
      loss.backward()
      optimizer.step()

Not flagged
  - zero_grad at the top of the iteration or right after `step()`
  - gradient accumulation that clears under a condition at the top
  - a second backward between the clear and the step (two models, as in a
    GAN: the discriminator's step, then the generator's clear and backward)
  - zero_grad of a different optimizer than the one stepping
  - a clear after a step of any optimizer, which already applied the
    backward (a second model's clear after the reference model's step, a
    GAN's `D_optimizer.zero_grad()` after `G_optimizer.step()`)
  - gradients written by hand (`p.grad = g`) or by a helper of the file
    between the clear and the step
  - `model.zero_grad()`: which parameters the optimizer holds is not known
  - a deliberate skipped update: on a branch that then leaves the
    iteration (`break`, `continue`, `return`), the clear and an empty step
    kept for the scaler's bookkeeping, beside the normal step the backward
    also reaches (`if skip_grad: opt.zero_grad(); scaler.step(opt);
    continue`)
)";

namespace {

using dataflow::TorchCall;

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {}

  void run(DiagSink& out) {
    std::vector<ir::InstId> backwards, steps, clears;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId id(i);
      if (f_.insts[i].op != ir::Op::Call) continue;
      TorchCall k = torch_call(ctx_, fid_, id);
      if (k == TorchCall::Backward || k == TorchCall::AutogradBackward)
        backwards.push_back(id);
      else if (!step_optimizer(id).empty())
        steps.push_back(id);
      else if (k == TorchCall::ZeroGrad && !cleared_optimizer(id).empty())
        clears.push_back(id);
    }
    if (backwards.empty() || steps.empty() || clears.empty()) return;
    std::set<uint32_t> reported;
    for (ir::InstId b : backwards)
      for (ir::InstId s : steps) {
        ir::InstId z;
        if (!find_clear(b, s, z) || !reported.insert(z.v).second) continue;
        report(b, z, s, out);
      }
  }

 private:
  /// The key of the optimizer a step call steps: `opt` in `opt.step()` (no
  /// arguments, or a torch.optim object), `opt` in `scaler.step(opt)`; "" if
  /// not a step or not named.
  std::string step_optimizer(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    TorchCall k = torch_call(ctx_, fid_, i);
    ir::ValueId v;
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) {
      v = call_arg(ctx_, f_, in, 0, "optimizer");
    } else if (k == TorchCall::OptimizerStep) {
      v = call_receiver(f_, in);
      // `env.step(action)`: a step with arguments only on a torch.optim object.
      if (positional_count(f_, in) != 0 && !is_optimizer(v)) return {};
    } else {
      return {};
    }
    return access_key(ctx_, fid_, v);
  }

  /// `opt` in `opt.zero_grad()` when `opt` is stepped somewhere in the
  /// function or is a torch.optim object (not `model.zero_grad()`).
  std::string cleared_optimizer(ir::InstId i) const {
    ir::ValueId r = call_receiver(f_, f_.inst(i));
    std::string key = access_key(ctx_, fid_, r);
    if (key.empty()) return {};
    if (is_optimizer(r)) return key;
    for (uint32_t j = 0; j < f_.insts.size(); ++j)
      if (f_.insts[j].op == ir::Op::Call && step_optimizer(ir::InstId(j)) == key) return key;
    return {};
  }

  bool is_optimizer(ir::ValueId v) const {
    if (!v.valid()) return false;
    const ir::Referent& r = ctx_.facts.res.ref(fid_, v);
    return r.kind == ir::Referent::Kind::Result &&
           ctx_.ir.names.str(r.path()).starts_with("torch.optim.");
  }

  /// A backward of any kind: `.backward()`, torch.autograd.grad, a helper
  /// of the file that may run one.
  bool any_backward(ir::InstId i) const {
    return f_.inst(i).op == ir::Op::Call && (call_effects(ctx_, fid_, i) & dataflow::kBackward);
  }

  /// Gradients may be written here: `p.grad = g`, `p.grad.copy_(g)`, or a
  /// helper of the file (an all-reduce, a gradient surgery step).
  bool writes_grads(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op == ir::Op::SetAttr && ctx_.ir.names.str(in.aux) == "grad") return true;
    if (in.op != ir::Op::Call) return false;
    if (calls_file_function(ctx_, fid_, i)) return true;
    return touches_grad(ctx_, f_, call_receiver(f_, in));
  }

  /// The iteration boundary: the first instruction of the header of a loop
  /// around both `b` and `s` (a path through it is the next iteration).
  bool next_iteration(ir::InstId j, const std::vector<ir::BlockId>& headers) const {
    ir::BlockId bl = f_.block_of(j);
    if (j != f_.first_inst(bl)) return false;
    for (ir::BlockId h : headers)
      if (h == bl) return true;
    return false;
  }

  /// A zero_grad of `s`'s optimizer on a path backward `b` -> clear -> step
  /// `s` within one iteration, with no backward, grad write or earlier step
  /// (of any optimizer) in between.
  bool find_clear(ir::InstId b, ir::InstId s, ir::InstId& found) const {
    std::string opt = step_optimizer(s);
    if (opt.empty()) return false;
    std::vector<ir::BlockId> headers;
    for (uint32_t l = common_loop(ctx_, fid_, b, s); l != UINT32_MAX; l = li_.loops[l].parent)
      headers.push_back(li_.loops[l].header);
    std::vector<ir::InstId> zs = reachable(f_, b, [&](ir::InstId j, const ir::Inst& in) {
      if (next_iteration(j, headers) || any_backward(j)) return PathStep::Kill;
      if (in.op != ir::Op::Call) return PathStep::Pass;
      // A step of any optimizer applies the backward's gradients: a clear
      // after it wastes nothing (another model's clear, a GAN's D clear
      // after the G step).
      if (!step_optimizer(j).empty()) return PathStep::Kill;
      if (torch_call(ctx_, fid_, j) == TorchCall::ZeroGrad && cleared_optimizer(j) == opt)
        return PathStep::Target;
      return PathStep::Pass;
    });
    for (ir::InstId z : zs) {
      // A grad write anywhere between the clear and the step (also one in
      // a loop a path may skip) means the clear is on purpose.
      bool reaches = false, written = false;
      reachable(f_, z, [&](ir::InstId j, const ir::Inst&) {
        if (next_iteration(j, headers) || any_backward(j)) return PathStep::Kill;
        if (j == s) {
          reaches = true;
          return PathStep::Kill;
        }
        if (writes_grads(j)) written = true;
        return PathStep::Pass;
      });
      if (reaches && !written && !skipped_update(b, z, s, opt, headers)) {
        found = z;
        return true;
      }
    }
    return false;
  }

  /// The clear and its step `s` are a deliberate skipped update: the
  /// backward also reaches another step of the same optimizer without the
  /// clear (the normal update), and from `s` the path leaves the iteration
  /// (`break`, `continue`, `return`) without rejoining it: `if norm too
  /// large and skip_grad: opt.zero_grad(); scaler.step(opt); continue`,
  /// where the empty step only keeps the scaler's bookkeeping.
  bool skipped_update(ir::InstId b, ir::InstId z, ir::InstId s, const std::string& opt,
                      const std::vector<ir::BlockId>& headers) const {
    std::vector<ir::InstId> others = reachable(f_, b, [&](ir::InstId j, const ir::Inst& in) {
      if (j == z || next_iteration(j, headers) || any_backward(j)) return PathStep::Kill;
      if (j != s && in.op == ir::Op::Call && step_optimizer(j) == opt) return PathStep::Target;
      return PathStep::Pass;
    });
    if (others.empty()) return false;
    std::set<uint32_t> join;  // the normal update's blocks and what follows them
    for (ir::InstId o : others) {
      join.insert(f_.block_of(o).v);
      for (ir::BlockId n : ir::succs(f_, f_.block_of(o))) join.insert(n.v);
    }
    bool rejoins = false;
    reachable(f_, s, [&](ir::InstId j, const ir::Inst&) {
      if (next_iteration(j, headers)) return PathStep::Kill;
      if (join.count(f_.block_of(j).v)) {
        rejoins = true;
        return PathStep::Kill;
      }
      return PathStep::Pass;
    });
    return !rejoins;
  }

  void report(ir::InstId b, ir::InstId z, ir::InstId s, DiagSink& out) const {
    const ir::Inst& zi = f_.inst(z);
    std::string ztext = call_text(ctx_, f_, zi);
    std::string btext = call_text(ctx_, f_, f_.inst(b));
    std::string stext = call_text(ctx_, f_, f_.inst(s));
    Diagnostic d = make_diagnostic(
        kRule, zi.span,
        "`" + ztext + "` clears the gradients of `" + btext + "` before `" + stext +
            "` applies them; the step updates nothing and the backward pass is wasted",
        "move `" + ztext + "` to the top of the iteration (before the forward pass) or after `" +
            stext + "`");
    d.notes.push_back({f_.inst(b).span, "the gradients are computed here"});
    d.notes.push_back({f_.inst(s).span, "the optimizer steps here, on cleared gradients"});
    d.fix = move_fix(b, z, s);
    out.report(std::move(d));
  }

  /// The statement of `block` that holds instruction `i`, or kNoNode.
  ast::NodeId statement_in(std::span<const ast::NodeId> block, ir::InstId i) const {
    Span sp = f_.inst(i).span;
    for (ast::NodeId st : block)
      if (ctx_.ast[st].span.begin <= sp.begin && sp.end <= ctx_.ast[st].span.end) return st;
    return ast::kNoNode;
  }

  /// Moves the clear to just before the backward when backward, clear and
  /// step are simple statements of one block (in that order, nothing but
  /// simple statements between them) and the backward is the only one of
  /// the iteration (of the function, without a loop): the gradients the
  /// step applies are then exactly the backward's. Refused for a backward
  /// in an inner loop or under a condition (micro-batches: clearing before
  /// each would drop all but the last), a second backward (clearing before
  /// the second would drop the first's), and a step under a condition.
  std::optional<Fix> move_fix(ir::InstId b, ir::InstId z, ir::InstId s) const {
    ast::NodeId zst = statement_at(ctx_, f_.inst(z).span);
    if (!zst.valid() || ctx_.ast[zst].kind != ast::NodeKind::Expr ||
        !(ctx_.ast[zst].span == f_.inst(z).span))
      return std::nullopt;
    size_t zi = 0;
    std::span<const ast::NodeId> block = enclosing_block(ctx_, zst, zi);
    ast::NodeId bst = statement_in(block, b), sst = statement_in(block, s);
    if (!bst.valid() || !sst.valid()) return std::nullopt;
    size_t bi = 0, si = 0;
    for (size_t k = 0; k < block.size(); ++k) {
      if (block[k] == bst) bi = k;
      if (block[k] == sst) si = k;
    }
    if (!(bi < zi && zi < si)) return std::nullopt;
    for (size_t k = bi; k <= si; ++k)
      if (!is_simple_statement(ctx_, block[k])) return std::nullopt;
    uint32_t loop = li_.loop_of(f_.block_of(b));
    std::vector<ir::InstId> scope;
    if (loop != UINT32_MAX) {
      scope = loop_insts(ctx_, fid_, loop);
    } else {
      for (uint32_t i = 0; i < f_.insts.size(); ++i) scope.push_back(ir::InstId(i));
    }
    for (ir::InstId j : scope)
      if (j != b && any_backward(j)) return std::nullopt;
    std::string zt = call_text(ctx_, f_, f_.inst(z)), bt = call_text(ctx_, f_, f_.inst(b));
    return move_statement(ctx_, zst, ast::kNoNode, bst,
                          "move `" + zt + "` before `" + bt + "`");
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // run() needs a Backward or AutogradBackward call, a step
    // (step_optimizer: an OptimizerStep, ScalerStep or ScalerStepAmp row)
    // and a ZeroGrad call: skip other functions before their loops.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!fc.has(TorchCall::Backward) && !fc.has(TorchCall::AutogradBackward)) continue;
    if (!fc.has(TorchCall::OptimizerStep) && !fc.has(TorchCall::ScalerStep) &&
        !fc.has(TorchCall::ScalerStepAmp))
      continue;
    if (!fc.has(TorchCall::ZeroGrad)) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::zero_grad_before_step
