// TPF015 lr_scheduler_step_misplaced
//
// What it finds: (1) `scheduler.step()` of a torch.optim.lr_scheduler
//   object that comes before `optimizer.step()` of its optimizer within one
//   iteration of the training loop (the epoch loop or the batch loop).
//   (2) an epoch-style scheduler stepped in the batch loop of an
//   epoch loop: StepLR with a constant step_size of at most 100,
//   MultiStepLR with constant milestones all at most 1000, ExponentialLR
//   with a constant gamma of at most 0.98, ReduceLROnPlateau.
// Why it costs: (1) since PyTorch 1.1 the scheduler must step after the
//   optimizer; stepping first skips the first value of the schedule
//   (warmup starts late, a step schedule decays one period early);
//   PyTorch warns once at runtime, easily missed in a log. (2) a schedule
//   meant in epochs runs len(loader) times faster: the learning rate
//   collapses within the first epoch and the rest of the run trains with a
//   learning rate near zero.
// Example:
//     for epoch in range(epochs):
//         scheduler.step()
//         train_one_epoch(model, loader, optimizer)
// Fix: call `scheduler.step()` after `optimizer.step()` (per batch for
//   per-batch schedules, after the batch loop for epoch schedules).
//   Autofix (order_fix, case 1 only): `scheduler.step()` moves below the
//   statement of its block that runs the optimizer step.
// Not flagged: per-batch schedulers stepped per batch (OneCycleLR,
//   CyclicLR, LambdaLR, CosineAnnealingLR, transformers warmup schedules);
//   schedulers whose kind or arguments are not known; `scheduler.step(epoch)`
//   with an explicit epoch; fast-forwarding a scheduler before the training
//   loop on resume; stepping after the batch loop, also inside a loop over
//   phases (`for phase in ["train", "val"]:`) that holds the batch loop.
#include <algorithm>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::lr_scheduler_step_misplaced {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF015);

const std::string_view kExplain =
    R"(TPF015 lr_scheduler_step_misplaced: the learning-rate scheduler steps before the optimizer, or per batch on an epoch schedule

What it finds
  1. `scheduler.step()` before `optimizer.step()` in the same iteration of
     the training loop, for a torch.optim.lr_scheduler scheduler.
  2. An epoch schedule stepped in the batch loop of an epoch loop: StepLR
     (step_size at most 100), MultiStepLR (milestones at most 1000),
     ExponentialLR (gamma at most 0.98) or ReduceLROnPlateau.

Why it costs
  1. Since PyTorch 1.1 `scheduler.step()` belongs after `optimizer.step()`.
     Called first, it skips the schedule's first value: warmup starts late
     and every decay comes one period early. PyTorch warns only once, at
     runtime.
  2. A schedule written in epochs then advances once per batch, hundreds of
     times faster: the learning rate decays to almost zero within the first
     epoch and the remaining GPU hours barely move the model.

Example
  for epoch in range(epochs):
      scheduler.step()
      for x, y in loader:
          ...
          optimizer.step()

Fix
  for epoch in range(epochs):
      for x, y in loader:
          ...
          optimizer.step()
      scheduler.step()

Not flagged
  - per-batch schedules stepped per batch: OneCycleLR, CyclicLR, LambdaLR,
    CosineAnnealingLR, transformers `get_*_schedule_with_warmup`
  - schedulers whose class or arguments are not known (stays silent)
  - `scheduler.step(epoch)` with an explicit epoch
  - fast-forwarding a scheduler on resume, before the training loop
  - `scheduler.step()` after the batch loop, also in a loop over phases
    (`for phase in ["train", "val"]:`) around it, once per phase of an epoch
  - ReduceLROnPlateau stepped on a metric that an evaluation of the same
    iteration returns (`val_loss, acc = evaluate(model, ...)`, a helper
    that puts the model in eval mode): each iteration is an epoch, also in
    full-graph training that steps the optimizer once per epoch
)";

namespace {

using dataflow::TorchCall;

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {}

  void run(DiagSink& out) {
    if (li_.loops.empty()) return;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId x(i);
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call) continue;
      ir::ValueId sched = call_receiver(f_, in);
      TorchCall row = torch_call(ctx_, fid_, x);
      // A scheduler the resolution cannot name (`MultiStepLR(...) if cfg
      // else None`, one handed in as a parameter) is one by its objects.
      if (row != TorchCall::SchedulerStep && !(row == TorchCall::OptimizerStep && scheduler_object(sched)))
        continue;
      std::string kind = scheduler_class(sched);
      if (kind.empty()) continue;
      // ReduceLROnPlateau steps on a metric (`step(val_loss)`): only its
      // frequency matters. Other schedulers given an epoch set the rate
      // explicitly.
      bool plateau = kind == "ReduceLROnPlateau";
      bool args = f_.call_info(in).npos != 0 || f_.call_info(in).nkw != 0;
      if (args && !plateau) continue;
      ir::FunctionId cf;
      ir::InstId cc;
      bool ctor = constructor(sched, cf, cc);
      Scheduled opt;
      if (ctor) {
        const ir::Function& g = ctx_.ir.fn(cf);
        ir::ValueId ov = call_arg(ctx_, g, g.inst(cc), 0, "optimizer");
        auto os = ctx_.facts.objects().of(cf, ov);
        opt.objs.assign(os.begin(), os.end());
        // The optimizer's name where the scheduler was built says nothing
        // in another function (a helper's parameter): its objects do.
        if (cf == fid_) opt.key = access_key(ctx_, cf, ov);
        else opt.none = opt.objs.empty();
      }
      ir::InstId s;
      if (!plateau && steps_first(x, opt, s)) {
        report_order(x, s, out);
        continue;
      }
      if (plateau && evaluated_metric(in)) continue;
      if (ctor && epoch_schedule(kind, cf, cc) && per_batch(x)) report_per_batch(x, kind, out);
    }
  }

 private:
  /// `scheduler.step(val_loss)` on a metric that an evaluation of the same
  /// loop iteration returns (`val_loss, val_acc = evaluate(model, ...)`, a
  /// helper that puts the model in eval mode): the loop evaluates once per
  /// iteration, so each iteration is an epoch, whatever its inner shape
  /// (full-graph training steps once per epoch).
  bool evaluated_metric(const ir::Inst& step) const {
    if (f_.call_info(step).npos == 0) return false;
    // `.item()` / `.mean()` of the metric: its source.
    PartOf p = whole_of(ctx_, f_, call_arg(ctx_, f_, step, 0, "metrics"), {"item", "mean"}, 4);
    if (!p.whole.valid() || p.steps >= 4 || f_.def(p.whole).op != ir::Op::Call) return false;
    return call_effects_must(ctx_, fid_, f_.def_id(p.whole)) & dataflow::kEval;
  }
  /// The one scheduler object v denotes (dataflow/objects.h), built by a
  /// torch.optim.lr_scheduler class, or null.
  const dataflow::AbstractObject* scheduler_object(ir::ValueId v) const {
    const dataflow::AbstractObject* a = ctx_.facts.objects().single(fid_, v);
    return a && a->kind == dataflow::ObjKind::Scheduler && a->fn.valid() ? a : nullptr;
  }

  /// "StepLR" for a torch.optim.lr_scheduler.StepLR object, or "".
  std::string scheduler_class(ir::ValueId v) const {
    if (!v.valid()) return {};
    const ir::Referent& r = ctx_.facts.res.ref(fid_, v);
    std::string p;
    if (r.kind == ir::Referent::Kind::Result) p = ctx_.ir.names.str(r.path());
    else if (const dataflow::AbstractObject* a = scheduler_object(v))
      p = call_target_name(ctx_, a->fn, a->site);
    const std::string_view prefix = "torch.optim.lr_scheduler.";
    if (!p.starts_with(prefix)) return {};
    return p.substr(prefix.size());
  }

  /// The scheduler's constructor call: a local or module-level binding, or
  /// the site of the one scheduler object it denotes.
  bool constructor(ir::ValueId v, ir::FunctionId& cf, ir::InstId& cc) const {
    if (const dataflow::AbstractObject* a = scheduler_object(v)) {
      cf = a->fn;
      cc = a->site;
      return true;
    }
    const ir::Inst& d = f_.def(v);
    if (d.op == ir::Op::Call) {
      cf = fid_;
      cc = f_.def_id(v);
      return true;
    }
    if (d.op == ir::Op::LoadGlobal) {
      ir::ValueId g = ctx_.ir.global_binding(d.aux);
      if (!g.valid() || ctx_.ir.fn(ir::FunctionId(0)).def(g).op != ir::Op::Call) return false;
      cf = ir::FunctionId(0);
      cc = ctx_.ir.fn(cf).def_id(g);
      return true;
    }
    return false;
  }

  /// The optimizer a scheduler schedules, as far as it is known.
  struct Scheduled {
    std::vector<uint32_t> objs;  // its objects (dataflow/objects.h); when known, they decide
    std::string key;             // else its name in this function ("": any optimizer)
    bool none = false;           // named only in another function: no step matches
  };

  /// v denotes the scheduled optimizer; `contains`: or an object that
  /// holds it (a helper handed `self` or `trainer`).
  bool is_scheduled(const Scheduled& opt, ir::ValueId v, bool contains) const {
    if (!opt.objs.empty()) {
      for (uint32_t x : ctx_.facts.objects().of(fid_, v))
        if (std::find(opt.objs.begin(), opt.objs.end(), x) != opt.objs.end()) return true;
      return false;
    }
    if (opt.none) return false;
    if (opt.key.empty()) return true;
    std::string k = access_key(ctx_, fid_, v);
    return contains ? same_object(k, opt.key) : k == opt.key;
  }

  /// An optimizer step of `opt`: a direct step, or a helper of the file
  /// that steps and is handed `opt`.
  bool is_step(ir::InstId j, const Scheduled& opt) const {
    const ir::Inst& in = f_.inst(j);
    if (in.op != ir::Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, j);
    ir::ValueId o;
    if (k == TorchCall::OptimizerStep) {
      if (positional_count(f_, in) != 0) return false;
      o = call_receiver(f_, in);
      if (scheduler_object(o)) return false;  // `sched.step()` on a scheduler handed in
    } else if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) {
      o = call_arg(ctx_, f_, in, 0, "optimizer");
    } else if (calls_file_function(ctx_, fid_, j) &&
               (call_effects(ctx_, fid_, j) & dataflow::kOptimizerStep)) {
      if (opt.objs.empty() && !opt.none && opt.key.empty()) return true;
      auto ops = f_.operands(in);
      for (size_t a = 1; a < ops.size(); ++a)
        if (is_scheduled(opt, ops[a], true)) return true;
      return false;
    } else {
      return false;
    }
    return is_scheduled(opt, o, false);
  }

  /// A step of the scheduler's optimizer reachable from `x` within one
  /// iteration of a loop around both.
  bool steps_first(ir::InstId x, const Scheduled& opt, ir::InstId& found) const {
    std::vector<ir::InstId> cands;
    for (uint32_t j = 0; j < f_.insts.size(); ++j)
      if (is_step(ir::InstId(j), opt)) cands.push_back(ir::InstId(j));
    for (ir::InstId s : cands) {
      uint32_t l = common_loop(ctx_, fid_, x, s);
      if (l == UINT32_MAX) continue;
      ir::BlockId header = li_.loops[l].header;
      bool hit = false;
      reachable(f_, x, [&](ir::InstId j, const ir::Inst&) {
        if (j == f_.first_inst(header) && f_.block_of(j) == header) return PathStep::Kill;
        if (j == s) hit = true;
        return PathStep::Pass;
      });
      if (hit) {
        found = s;
        return true;
      }
    }
    return false;
  }

  bool const_number(ir::FunctionId cf, ir::ValueId v, double& out) const {
    if (!v.valid()) return false;
    const ir::ConstValue& c = ctx_.facts.res.constant(cf, v);
    if (!c.is_number()) return false;
    out = c.kind == ir::ConstValue::Kind::Float ? c.d : static_cast<double>(c.i);
    return true;
  }

  /// The scheduler is an epoch schedule by its class and constant arguments.
  bool epoch_schedule(const std::string& kind, ir::FunctionId cf, ir::InstId cc) const {
    const ir::Function& g = ctx_.ir.fn(cf);
    const ir::Inst& c = g.inst(cc);
    if (has_unpacked_args(g, c)) return false;
    double v;
    if (kind == "ReduceLROnPlateau") return true;
    if (kind == "StepLR")
      return const_number(cf, call_arg(ctx_, g, c, 1, "step_size"), v) && v <= 100;
    if (kind == "ExponentialLR")
      return const_number(cf, call_arg(ctx_, g, c, 1, "gamma"), v) && v <= 0.98;
    if (kind == "MultiStepLR") {
      ir::ValueId m = call_arg(ctx_, g, c, 1, "milestones");
      if (!m.valid()) return false;
      const ir::Inst& md = g.def(m);
      if (md.op != ir::Op::BuildList && md.op != ir::Op::BuildTuple) return false;
      auto ops = g.operands(md);
      if (ops.empty()) return false;
      for (ir::ValueId e : ops)
        if (!const_number(cf, e, v) || v > 1000) return false;
      return true;
    }
    return false;
  }

  /// `x` runs once per batch: it is in a loop that steps the optimizer and
  /// runs backward, and that loop is inside another loop (the epochs). A
  /// loop over a few constants (`for phase in ["train", "val"]:` around the
  /// batch loop) is neither: a step there runs once per phase of an epoch.
  bool per_batch(ir::InstId x) const {
    uint32_t l = li_.loop_of(f_.block_of(x));
    if (l == UINT32_MAX || over_constants(ctx_, fid_, l)) return false;
    if (enclosing_data_loop(ctx_, fid_, l) == UINT32_MAX) return false;
    if (periodic(x, l)) return false;
    bool step = false, backward = false;
    for (ir::InstId j : loop_insts(ctx_, fid_, l)) {
      if (f_.inst(j).op != ir::Op::Call) continue;
      uint32_t e = call_effects(ctx_, fid_, j);
      if ((e & dataflow::kOptimizerStep) && torch_call(ctx_, fid_, j) != TorchCall::SchedulerStep &&
          !scheduler_object(call_receiver(f_, f_.inst(j))))
        step = true;
      if (e & dataflow::kBackward) backward = true;
    }
    return step && backward;
  }

  /// `x` runs under a branch of loop `l` on a step count modulo a period
  /// (`if global_step % eval_every == 0:` around a validation round and its
  /// `scheduler.step(val_score)`): a few times per epoch, not per batch.
  bool periodic(ir::InstId x, uint32_t l) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    ir::BlockId xb = f_.block_of(x);
    for (ir::BlockId b = dom.idom(xb); b.valid() && li_.contains(l, b); b = dom.idom(b)) {
      const ir::Inst& t = f_.terminator(b);
      if (t.op != ir::Op::Branch) continue;
      bool guarded = false;
      for (ir::BlockId sb : f_.block(b).succ)
        if (sb.valid() && ir::preds(f_, sb).size() == 1 && dom.dominates(sb, xb)) guarded = true;
      if (guarded && modulo(f_.operands(t)[0], 0)) return true;
    }
    return false;
  }
  bool modulo(ir::ValueId v, int depth) const {
    if (!v.valid() || depth > 3) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op == ir::Op::BinOp && static_cast<ast::Op>(d.aux) == ast::Op::Mod) return true;
    if (d.op != ir::Op::Compare && d.op != ir::Op::UnaryOp) return false;
    for (ir::ValueId o : f_.operands(d))
      if (modulo(o, depth + 1)) return true;
    return false;
  }

  void report_order(ir::InstId x, ir::InstId s, DiagSink& out) const {
    const ir::Inst& xi = f_.inst(x);
    std::string xt = call_text(ctx_, f_, xi), st = call_text(ctx_, f_, f_.inst(s));
    Diagnostic d =
        make_diagnostic(kRule, xi.span,
                        "`" + xt + "` runs before `" + st +
                            "` in the training loop; the schedule's first "
                            "learning rate is skipped and every change comes one step early",
                        "call `" + xt + "` after `" + st + "`");
    d.notes.push_back({f_.inst(s).span, "the optimizer steps here, after the scheduler"});
    d.fix = order_fix(x, s);
    out.report(std::move(d));
  }

  /// A `break` or `continue` inside `st` that leaves it (its loop is not
  /// inside `st`): the statements after `st` would be skipped.
  bool leaves_early(ast::NodeId st) const {
    Span outer = ctx_.ast[st].span;
    auto inside = [](Span a, Span b) { return b.begin <= a.begin && a.end <= b.end; };
    for (const ast::Node& n : ctx_.ast.nodes) {
      if ((n.kind != ast::NodeKind::Break && n.kind != ast::NodeKind::Continue) ||
          !inside(n.span, outer))
        continue;
      bool own = false;
      for (const ast::Node& l : ctx_.ast.nodes)
        if ((l.kind == ast::NodeKind::For || l.kind == ast::NodeKind::AsyncFor ||
             l.kind == ast::NodeKind::While) &&
            inside(n.span, l.span) && inside(l.span, outer))
          own = true;
      if (!own) return true;
    }
    return false;
  }

  /// Moves `scheduler.step()` to just after the statement of its block
  /// that holds the optimizer step (the step itself, the batch loop, the
  /// call of a training helper), when only simple statements lie between
  /// them and nothing in that statement breaks out of the block: the
  /// scheduler then steps exactly as often as before, after the optimizer.
  std::optional<Fix> order_fix(ir::InstId x, ir::InstId s) const {
    ast::NodeId xst = statement_at(ctx_, f_.inst(x).span);
    if (!xst.valid() || ctx_.ast[xst].kind != ast::NodeKind::Expr ||
        !(ctx_.ast[xst].span == f_.inst(x).span))
      return std::nullopt;
    size_t xi = 0;
    std::span<const ast::NodeId> block = enclosing_block(ctx_, xst, xi);
    Span sp = f_.inst(s).span;
    size_t si = block.size();
    for (size_t k = 0; k < block.size(); ++k)
      if (ctx_.ast[block[k]].span.begin <= sp.begin && sp.end <= ctx_.ast[block[k]].span.end) si = k;
    if (si >= block.size() || si <= xi) return std::nullopt;
    for (size_t k = xi + 1; k < si; ++k)
      if (!is_simple_statement(ctx_, block[k])) return std::nullopt;
    if (leaves_early(block[si])) return std::nullopt;
    std::string xt = call_text(ctx_, f_, f_.inst(x)), st = call_text(ctx_, f_, f_.inst(s));
    bool direct = statement_at(ctx_, sp) == block[si];
    return move_statement(ctx_, xst, block[si], ast::kNoNode,
                          "move `" + xt + "` " +
                              (direct ? "after `" + st + "`"
                                      : "below the statement that runs `" + st + "`"));
  }

  void report_per_batch(ir::InstId x, const std::string& kind, DiagSink& out) const {
    const ir::Inst& xi = f_.inst(x);
    std::string xt = call_text(ctx_, f_, xi);
    std::string cost = kind == "ReduceLROnPlateau"
                           ? "its patience counts batches instead of epochs, so the learning rate "
                             "is cut on per-batch noise, far too early"
                           : "the learning rate decays len(loader) times too fast and the run "
                             "trains with a learning rate near zero";
    Diagnostic d = make_diagnostic(
        kRule, xi.span,
        "`" + xt + "` steps the epoch schedule `" + kind + "` once per batch; " + cost,
        "call `" + xt +
            "` once per epoch, after the batch loop (or use a per-batch schedule "
            "such as OneCycleLR)");
    out.report(std::move(d));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // A `step()` the resolution cannot name may be a scheduler's (one handed
  // in, or `Sched(...) if cfg else None`) only in a file that builds one.
  bool builds = file_calls_any(ctx, [](std::string_view n) {
    return n.starts_with("torch.optim.lr_scheduler.");
  });
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // Only scheduler steps are reported: skip other functions before
    // their loops.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!fc.has(TorchCall::SchedulerStep) && !(builds && fc.has(TorchCall::OptimizerStep))) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::lr_scheduler_step_misplaced
