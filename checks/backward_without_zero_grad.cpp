// TPF003 backward_without_zero_grad
//
// What it finds: a loop with a path from one `optimizer.step()` to the
//   next (around the loop) that runs `loss.backward()` (directly or through
//   the file's own helpers) and clears no gradients: no `zero_grad()`
//   (optimizer's or model's, any `set_to_none`), no `p.grad = None`, no
//   `p.grad.zero_()` on it. Also a clear on some paths only (`if step %
//   log_every == 0: opt.zero_grad()` with a step every iteration). A loop
//   that calls a helper whose own loop has the finding is that finding
//   (reported once, in the helper, with the call as a note).
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
// Not flagged: zero_grad on every path from a step to the next (a helper
//   whose only step is an environment's, `env.step(action)`, is no step:
//   dataflow/summaries.cpp other_step); gradient
//   accumulation (step and zero_grad under one guard, or under two tests
//   of one counter: `if i % k == 0: zero_grad()` ... `if (i + 1) % k == 0:
//   step()`; conditions are not evaluated); zero_grad in a helper the loop
//   calls, or in a loop over the parameters; gradient accumulation across an inner loop
//   with step and zero_grad in the outer one; DeepSpeed-style engines whose
//   `engine.backward(loss)` / `engine.step()` clear gradients themselves
//   (also through a helper the engine object is handed to: every step the
//   helper takes is on an Engine object, dataflow/objects.h);
//   `torch.autograd.grad` (it does not accumulate); L-BFGS closures; an
//   optimizer built in the iteration over tensors made in the iteration
//   (`SGD([x.detach().clone()])`: new leaves every step, whose gradients
//   start empty), or over the parameters of a model built in the iteration
//   too (a test over cases, a sweep); a model built anew in the iteration
//   (stored on `self` by a setup helper, or a local) and handed to helpers
//   of the file that run backward and step on it once; a clear and a step decided by the same
//   test of a value fixed for the loop (`if opt is not None: opt.zero_grad()`
//   ... `if opt is None: sgd(...) else: opt.step()`; an assert between
//   them picks no iterations); the `step()` of what a
//   `with` yields (a profiler, a FLOP counter); files of another framework
//   (MXNet, JAX, TensorFlow) that import nothing of torch.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "checks/facts.h"
#include "checks/fixes.h"
#include "ir/cfg.h"

namespace tpf::checks::backward_without_zero_grad {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF003);

const std::string_view kExplain = R"(TPF003 backward_without_zero_grad: gradients are never cleared between optimizer steps

What it finds
  A loop where some path from one `optimizer.step()` to the next runs
  `loss.backward()` (directly or through helper functions of the same file)
  and clears no gradients: no `optimizer.zero_grad()`, `model.zero_grad()`,
  `p.grad = None` or `p.grad.zero_()` on that path. A clear that runs on
  some iterations only (`if step % log_every == 0: optimizer.zero_grad()`,
  or only in an `else`) while the step runs on others is such a path.

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
  - zero_grad on every path from a step to the next
  - gradient accumulation: step and zero_grad under one guard
    (`if (i + 1) % k == 0: optimizer.step(); optimizer.zero_grad()`), or
    under two tests of the same counter (`if i % k == 0: zero_grad()` at
    the top, `if (i + 1) % k == 0: step()` at the bottom)
  - zero_grad inside a helper the loop calls
  - a profiler's or scheduler's `step()` (`self._profiler.step()`,
    `lr_scheduler.step()`) every iteration: it is no optimizer step; nor is
    a helper whose only `step(...)` has an argument that is no closure or
    optimizer (a rollout helper's `env.step(action)`), so the path from the
    learner's step through it to the next clear is no step-to-step path
  - accumulation over an inner loop with step and zero_grad in the outer loop
  - engines that clear gradients in their own step (DeepSpeed
    `engine.backward(loss)` + `engine.step()`), also when the engine that
    deepspeed.initialize returned is handed to a training helper or stored
    on an object (`train(loader, model_engine)`, `model.network.step()`),
    or when the stepped object is asked `is_gradient_accumulation_boundary()`
  - optimizers kept in a list (`self.opts[k]`), each cleared before its
    own backward: two unnamed optimizers are told apart by their text
  - `torch.autograd.grad(...)`, which returns gradients instead of accumulating
  - an optimizer built in the iteration over tensors made in the iteration
    (`SGD([x.detach().clone()])`, latent optimization in a sampling loop):
    new leaves every step, whose gradients start empty
  - a model and its optimizer both built anew in each iteration (a unit
    test over cases, a sweep over seeds): their gradients start empty; also
    when a setup helper stores the new model on `self` (`self._build(w)`)
    and a helper runs backward and step on it once (`self._fit(self.net)`).
    Two such helper calls on one model in an iteration are still flagged
  - a clear and a step decided by the same test of a value fixed for the
    loop: `if optimizer is not None: optimizer.zero_grad()` ... `if
    optimizer is None: sgd(params) else: optimizer.step()`, also when an
    `assert` or an `if inference: continue` stands between (`if not
    inference: opt.zero_grad()` ... `if inference: continue` ...
    `opt.step()`): a branch whose other arm leaves the loop picks no
    iterations
  - two clears under opposite tests of one value fixed for the loop
    (`if args.clear_early: opt.zero_grad()` ... `if not args.clear_early:
    opt.zero_grad()`): one of them runs in every iteration
  - the `step()` of what a `with` yields (`with profile(cfg) as ctx:
    ... ctx.step()`): an optimizer is no context manager
  - code of another framework (MXNet Gluon, JAX, TensorFlow) in a file that
    imports nothing of torch: Gluon's default `grad_req='write'` overwrites
    gradients on each backward
)";

namespace {

using dataflow::TorchCall;

/// A path that steps on gradients nothing cleared: from a step, around
/// the loop, through `backward` to `step`.
struct Finding {
  ir::FunctionId fn;
  ir::InstId backward, step;
  ir::InstId skipped;  // a clear of the loop the path goes around, if any
  std::vector<DiagNote> chain;  // outer loops that reach it through helpers
  bool dropped = false;         // the same bug as a finding inside the helper it calls
};

/// What an instruction of a loop does to gradients, for the path search.
enum class Event : uint8_t { None, Clears, Backward, Step, BackwardStep, Rebuilds };

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
      if (positional_count(f_, in) == 0) return !named_other_stepper(call_receiver(f_, in));
      return is_optimizer(call_receiver(f_, in));
    }
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) return true;
    return calls_file_function(ctx_, fid_, i) &&
           (call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep);
  }

  /// `self._profiler.step()`, `self._lr_scheduler.step()`: a bare step of
  /// an object the objects fact knows to be no optimizer (a scheduler), or
  /// whose name says it is a profiler, scheduler, timer or environment.
  bool named_other_stepper(ir::ValueId recv) const {
    if (!recv.valid()) return false;
    const dataflow::Objects& objs = ctx_.facts.objects();
    auto os = objs.of(fid_, recv);
    if (!os.empty()) {
      bool optimizer = false;
      for (uint32_t o : os) {
        dataflow::ObjKind k = objs.obj(o).kind;
        optimizer |= k == dataflow::ObjKind::Optimizer || k == dataflow::ObjKind::Engine;
      }
      if (!optimizer) return true;
    }
    // The `as` value of a `with` (`with profile(cfg) as prof_ctx:`, a
    // FLOP counter): an optimizer is no context manager (torch.optim has
    // no `__enter__`), so what a manager yields and steps is a profiler's
    // or counter's schedule.
    if (f_.def(recv).op == ir::Op::WithEnter) return true;
    return key_names(ctx_, fid_, recv, {"profiler", "prof", "scheduler", "schedule", "sched", "warmup", "timer", "env"});
  }

  bool is_backward(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call || is_engine_call(i)) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::Backward || k == TorchCall::AutogradBackward) return true;
    // A helper that runs a backward filling .grad (not only
    // torch.autograd.grad, which returns the gradients).
    return calls_file_function(ctx_, fid_, i) &&
           (call_effects(ctx_, fid_, i) & dataflow::kFillsGrad);
  }

  /// The finding of each loop with a path from a step to the next step
  /// through a backward without a clear; only the innermost such loop of a
  /// nest (an outer loop around it is the same finding).
  void run(std::vector<Finding>& found) {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    std::vector<std::optional<Finding>> per_loop;
    per_loop.reserve(li.loops.size());
    for (uint32_t l = 0; l < li.loops.size(); ++l) per_loop.push_back(search(l));
    std::set<uint32_t> reported;  // the backward of each finding
    for (uint32_t l = 0; l < li.loops.size(); ++l) {
      if (!per_loop[l]) continue;
      // Inner loops come after the loops containing them.
      bool inner_flagged = false;
      for (uint32_t m = l + 1; m < li.loops.size() && !inner_flagged; ++m)
        inner_flagged = li.contains(l, li.loops[m].header) && per_loop[m];
      if (inner_flagged || !reported.insert(per_loop[l]->backward.v).second) continue;
      found.push_back(std::move(*per_loop[l]));
    }
  }

  void report(const Finding& fd, DiagSink& out) const { report(fd.backward, fd.step, fd.skipped, fd.chain, out); }

 private:
  /// Limits the pairs of steps tried per loop: a loop has a handful of
  /// steps and backwards; past this the loop is generated code, not a
  /// training loop worth a finding.
  static constexpr size_t kMaxTries = 64;

  std::vector<Event> events(uint32_t loop, bool& any_clear) const {
    std::vector<Event> ev(f_.insts.size(), Event::None);
    any_clear = false;
    for (ir::InstId i : loop_insts(ctx_, fid_, loop)) {
      if (clears(i)) {
        ev[i.v] = Event::Clears;
        any_clear = true;
      } else if (is_backward(i)) {
        ev[i.v] = is_step(i) ? Event::BackwardStep : Event::Backward;  // a helper may do both
      } else if (is_step(i) && !fresh_step(i, loop)) {
        ev[i.v] = Event::Step;
      }
    }
    mark_rebuilds(loop, ev);
    return ev;
  }

  /// Marks the instructions of loop l that build anew the model every
  /// backward of the loop runs on, when each backward is a helper of the
  /// file handed that model (`self._build(w)` storing a new module on
  /// `self.net`, then `self._fit(self.net)`; `stack = nn.Sequential(...)`,
  /// then `train_once(stack, x)`): a path through the rebuild reaches
  /// parameters whose gradients start empty. A step the loop takes itself
  /// (`opt.step()`, its optimizer maybe over an older model) or a backward
  /// it writes (fresh_models decides those) leaves the loop unmarked.
  void mark_rebuilds(uint32_t l, std::vector<Event>& ev) const {
    std::vector<ir::InstId> insts = loop_insts(ctx_, fid_, l);
    std::set<uint32_t> sites;
    bool any = false;
    for (ir::InstId b : insts) {
      if (ev[b.v] == Event::Step) return;
      if (ev[b.v] != Event::Backward && ev[b.v] != Event::BackwardStep) continue;
      if (!calls_file_function(ctx_, fid_, b)) return;
      bool found = false;
      const ir::Inst& in = f_.inst(b);
      for (uint32_t k = 0, n = positional_count(f_, in); k < n; ++k) {
        ir::ValueId v = call_arg(ctx_, f_, in, static_cast<int>(k), "");
        if (!v.valid()) continue;
        if (built_in_loop(l, v)) {
          sites.insert(f_.def_id(v).v);
          found = true;
          continue;
        }
        std::string key = access_key(ctx_, fid_, v);
        if (!key.starts_with("self.") || key.find('.', 5) != std::string::npos) continue;
        for (ir::InstId r : insts)
          if (ev[r.v] == Event::None && stores_new_model(r, key.substr(5))) {
            sites.insert(r.v);
            found = true;
          }
      }
      if (!found) return;
      any = true;
    }
    if (!any) return;
    for (uint32_t r : sites)
      if (ev[r] == Event::None) ev[r] = Event::Rebuilds;
  }

  /// v is a model built by a call in loop l (`nn.Sequential(...)`,
  /// `Cls.from_pretrained(...)`), by the objects it may denote.
  bool built_in_loop(uint32_t l, ir::ValueId v) const {
    ir::InstId d = f_.def_id(v);
    if (!d.valid() || f_.def(v).op != ir::Op::Call || !loops_of(ctx_, fid_).contains(l, f_.block_of(d)))
      return false;
    const dataflow::Objects& objs = ctx_.facts.objects();
    auto os = objs.of(fid_, v);
    for (uint32_t o : os) {
      const dataflow::AbstractObject& a = objs.obj(o);
      if (a.kind != dataflow::ObjKind::Module || a.fn != fid_ || a.site != d) return false;
    }
    return !os.empty();
  }

  /// Call r is `self.helper(...)` of the file whose helper stores a model
  /// it builds on `self.<attr>` (`self.model = Cls.from_pretrained(path)`),
  /// every store of that attribute being some call's result.
  bool stores_new_model(ir::InstId r, std::string_view attr) const {
    const ir::Inst& in = f_.inst(r);
    if (in.op != ir::Op::Call || !calls_file_function(ctx_, fid_, r) ||
        access_key(ctx_, fid_, call_receiver(f_, in)) != "self")
      return false;
    ir::FunctionId g = ctx_.facts.summaries.callee(fid_, r);
    if (!g.valid() || g == fid_) return false;
    const ir::Function& gf = ctx_.ir.fn(g);
    const dataflow::Objects& objs = ctx_.facts.objects();
    bool fresh = false;
    for (const ir::Inst& x : gf.insts) {
      if (x.op != ir::Op::SetAttr || ctx_.ir.names.str(x.aux) != attr) continue;
      auto ops = gf.operands(x);
      if (access_key(ctx_, g, ops[0]) != "self") continue;
      if (gf.def(ops[1]).op != ir::Op::Call) return false;
      auto os = objs.of(g, ops[1]);
      bool built = !os.empty();
      for (uint32_t o : os) {
        const dataflow::AbstractObject& a = objs.obj(o);
        built = built && a.kind == dataflow::ObjKind::Module && a.fn == g && a.site.valid();
      }
      fresh |= built;
    }
    return fresh;
  }

  /// Path-sensitive: some path of the loop from one step to the next runs
  /// a backward and no clear. A clear under a condition (`if step %
  /// log_every == 0: opt.zero_grad()`) leaves the path that skips it; a
  /// clear in a nested loop (`for p in model.parameters(): p.grad = None`)
  /// is taken to run, as a loop over parameters does. Gradient
  /// accumulation stays silent: its step and clear share one guard, so the
  /// step is followed by the clear, or they sit under two tests of the same
  /// counter (`if i % k == 0: zero_grad()` ... `if (i + 1) % k == 0:
  /// step()`), which pick the same iterations; the conditions are not
  /// evaluated, a shared counter is taken to mean that.
  std::optional<Finding> search(uint32_t l) {
    bool any_clear = false;
    std::vector<Event> ev = events(l, any_clear);
    std::vector<ir::InstId> steps, clear_insts;
    bool any_backward = false;
    for (uint32_t i = 0; i < ev.size(); ++i) {
      if (ev[i] == Event::Step || ev[i] == Event::BackwardStep) steps.push_back(ir::InstId(i));
      if (ev[i] == Event::Backward || ev[i] == Event::BackwardStep) any_backward = true;
      if (ev[i] == Event::Clears) clear_insts.push_back(ir::InstId(i));
    }
    if (steps.empty() || !any_backward) return std::nullopt;
    bool rebuilt = std::find(ev.begin(), ev.end(), Event::Rebuilds) != ev.end();
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    // Headers of loops nested in l that clear: entering one clears.
    std::set<uint32_t> clearing_headers;
    for (uint32_t m = l + 1; m < li.loops.size(); ++m) {
      if (!li.contains(l, li.loops[m].header)) continue;
      for (ir::InstId c : clear_insts)
        if (li.contains(m, f_.block_of(c))) {
          clearing_headers.insert(f_.block(li.loops[m].header).first);
          break;
        }
    }
    ir::InstId current;  // the step whose next step the search looks for
    auto blocked = [&](ir::InstId i) {
      if (clearing_headers.count(i.v) != 0) return true;
      if (ev[i.v] == Event::Rebuilds) return true;
      return ev[i.v] == Event::Clears && !clears_other_optimizer(i, current);
    };
    size_t tries = 0;
    for (ir::InstId s : steps) {
      current = s;
      std::vector<ir::InstId> bws = reachable_in_loop(ctx_, fid_, l, s, [&](ir::InstId i, const ir::Inst&) {
        if (blocked(i)) return PathStep::Kill;
        return ev[i.v] == Event::Backward || ev[i.v] == Event::BackwardStep ? PathStep::Target
                                                                           : PathStep::Pass;
      });
      // Report a backward the loop writes (`loss.backward()`) before a
      // helper that may run one.
      std::stable_partition(bws.begin(), bws.end(), [&](ir::InstId b) {
        TorchCall k = torch_call(ctx_, fid_, b);
        return k == TorchCall::Backward || k == TorchCall::AutogradBackward;
      });
      for (ir::InstId b : bws) {
        std::vector<ir::InstId> next;
        if (ev[b.v] == Event::BackwardStep) next.push_back(b);
        else
          next = reachable_in_loop(ctx_, fid_, l, b, [&](ir::InstId i, const ir::Inst&) {
            if (blocked(i)) return PathStep::Kill;
            return ev[i.v] == Event::Step || ev[i.v] == Event::BackwardStep ? PathStep::Target
                                                                           : PathStep::Pass;
          });
        for (ir::InstId s2 : next) {
          if (++tries > kMaxTries) return std::nullopt;
          // From one step of an optimizer to its next: between the steps
          // of two optimizers (a GAN's, `opt_a` then `opt_b`) each clears
          // its own gradients at its own place.
          if (!same_optimizer_text(s, s2)) continue;
          if (opposite_arms(l, s, s2)) continue;
          if (!clear_insts.empty() && same_iterations(l, s2, clear_insts)) continue;
          if (!clear_insts.empty() && cleared_when_stepping(l, s2, clear_insts)) continue;
          if (complementary_clears(l, clear_insts)) continue;
          Finding fd;
          fd.fn = fid_;
          fd.backward = b;
          // With the model rebuilt each iteration, the gradients that add
          // up are the first helper's: report the call that leaves them.
          if (ev[s.v] == Event::BackwardStep && rebuilt) fd.backward = s;
          fd.step = s2;
          if (!clear_insts.empty()) fd.skipped = clear_insts.front();
          return fd;
        }
      }
    }
    return std::nullopt;
  }

  /// `a` and `b` lie in the two arms of a branch of loop l whose condition
  /// is the same in every iteration (`if use_amp:` on a flag of the
  /// function): no run goes from one arm to the other, so no path from `a`
  /// to `b` around the loop is taken.
  bool opposite_arms(uint32_t l, ir::InstId a, ir::InstId b) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    ir::BlockId ab = f_.block_of(a), bb = f_.block_of(b);
    for (ir::BlockId d = dom.idom(ab); d.valid() && li.contains(l, d); d = dom.idom(d)) {
      const ir::Inst& t = f_.terminator(d);
      if (t.op != ir::Op::Branch || !loop_invariant(ctx_, fid_, l, f_.operands(t)[0])) continue;
      const ir::Block& db = f_.block(d);
      for (int k = 0; k < 2; ++k) {
        ir::BlockId mine = db.succ[k], other = db.succ[1 - k];
        if (mine.valid() && other.valid() && dom.dominates(mine, ab) && dom.dominates(other, bb))
          return true;
      }
    }
    return false;
  }

  /// The step and some clear run under two different branches of the loop
  /// that test the same value changing per iteration (the loop's item, a
  /// counter carried around it): an accumulation window.
  bool same_iterations(uint32_t l, ir::InstId step, const std::vector<ir::InstId>& clear_insts) const {
    std::vector<std::pair<ir::InstId, std::set<std::string>>> sg = guards(l, step);
    if (sg.empty()) return false;
    for (ir::InstId c : clear_insts)
      for (const auto& [cb, cleaves] : guards(l, c))
        for (const auto& [sb, sleaves] : sg) {
          if (cb == sb) continue;  // two arms of one branch run in different iterations
          for (const std::string& k : cleaves)
            if (sleaves.count(k)) return true;
        }
    return false;
  }

  /// One test of a loop-invariant value, on the arm taken: `opt is not
  /// None` on its true arm and `opt is None` on its false arm are both
  /// {"opt", "is None", false}.
  struct Test {
    std::string key, what;
    bool holds;
    bool operator==(const Test&) const = default;
  };

  /// The invariant tests of loop l that decide whether `i` runs: the
  /// branches with an arm only `i`'s side enters (nullopt: one of them tests
  /// a value that changes per iteration).
  std::optional<std::vector<Test>> invariant_tests(uint32_t l, ir::InstId i) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    const ir::DomTree& postdom = ctx_.facts.postdom(ctx_.ir, fid_);
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    std::vector<Test> out;
    ir::BlockId ib = f_.block_of(i);
    for (ir::BlockId d = dom.idom(ib); d.valid() && li.contains(l, d); d = dom.idom(d)) {
      const ir::Inst& t = f_.terminator(d);
      if (t.op != ir::Op::Branch || postdom.dominates(ib, d)) continue;
      // The arm `i` lies in: entered from d alone, and dominating i. A join
      // reached from both arms (`if a: x()` then i) decides nothing.
      const ir::Block& db = f_.block(d);
      int arm = -1;
      for (int k = 0; k < 2; ++k)
        if (db.succ[k].valid() && dom.dominates(db.succ[k], ib) && ir::preds(f_, db.succ[k]).size() == 1)
          arm = k;
      if (arm < 0) continue;
      // The other arm leaves the loop for good (a failed `assert`, a
      // `raise`, `return` or `break`): no later iteration follows it, so
      // the branch picks no iterations.
      ir::BlockId other = db.succ[1 - arm];
      if (!other.valid() || !li.contains(l, other)) continue;
      ir::ValueId c = f_.operands(t)[0];
      if (!loop_invariant(ctx_, fid_, l, c)) return std::nullopt;
      bool holds = arm == 0;
      while (f_.def(c).op == ir::Op::UnaryOp && static_cast<ast::Op>(f_.def(c).aux) == ast::Op::Not) {
        c = f_.operands(f_.def(c))[0];
        holds = !holds;
      }
      Test test{"", "truth", holds};
      const ir::Inst& cd = f_.def(c);
      auto op = static_cast<ast::Op>(cd.aux);
      if (cd.op == ir::Op::Compare && (op == ast::Op::Is || op == ast::Op::IsNot || op == ast::Op::Eq ||
                                       op == ast::Op::NotEq)) {
        auto ops = f_.operands(cd);
        const ir::ConstValue& rhs = ctx_.facts.res.constant(fid_, ops[1]);
        if (rhs.known()) {
          c = ops[0];
          test.what = rhs.kind == ir::ConstValue::Kind::None ? std::string("is None")
                                                            : "== " + value_text(ctx_, f_, ops[1]);
          if (op == ast::Op::IsNot || op == ast::Op::NotEq) test.holds = !test.holds;
        }
      }
      test.key = access_key(ctx_, fid_, c);
      if (test.key.empty()) test.key = "%" + std::to_string(c.v);
      out.push_back(std::move(test));
    }
    return out;
  }

  /// Some clear runs in every iteration in which step `s` runs: the only
  /// branches deciding it test values fixed for the loop, and the step's
  /// branches test the same ones the same way (`if opt is not None:
  /// opt.zero_grad()` ... `if opt is None: manual_update() else:
  /// opt.step()`): a path that skips the clear takes the other arm there too.
  bool cleared_when_stepping(uint32_t l, ir::InstId s, const std::vector<ir::InstId>& clear_insts) const {
    std::optional<std::vector<Test>> st = invariant_tests(l, s);
    if (!st || st->empty()) return false;
    for (ir::InstId c : clear_insts) {
      std::optional<std::vector<Test>> ct = invariant_tests(l, c);
      if (!ct || ct->empty()) continue;
      bool implied = true;
      for (const Test& t : *ct)
        implied = implied && std::find(st->begin(), st->end(), t) != st->end();
      if (implied) return true;
    }
    return false;
  }

  /// Two clears under opposite tests of one value fixed for the loop
  /// (`if zero_first: clear()` ... `if not zero_first: clear()`), each
  /// decided by that test alone: one of them runs in every iteration.
  bool complementary_clears(uint32_t l, const std::vector<ir::InstId>& clear_insts) const {
    std::vector<Test> single;
    for (ir::InstId c : clear_insts) {
      std::optional<std::vector<Test>> ct = invariant_tests(l, c);
      if (ct && ct->size() == 1) single.push_back(ct->front());
    }
    for (size_t a = 0; a < single.size(); ++a)
      for (size_t b = a + 1; b < single.size(); ++b)
        if (single[a].key == single[b].key && single[a].what == single[b].what &&
            single[a].holds != single[b].holds)
          return true;
    return false;
  }

  /// The branches of loop l that decide whether `i` runs (they dominate it
  /// and `i` does not post-dominate them), each with the per-iteration
  /// values its condition reads.
  std::vector<std::pair<ir::InstId, std::set<std::string>>> guards(uint32_t l, ir::InstId i) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    const ir::DomTree& postdom = ctx_.facts.postdom(ctx_.ir, fid_);
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    std::vector<std::pair<ir::InstId, std::set<std::string>>> out;
    ir::BlockId ib = f_.block_of(i);
    for (ir::BlockId d = dom.idom(ib); d.valid() && li.contains(l, d); d = dom.idom(d)) {
      const ir::Inst& t = f_.terminator(d);
      if (t.op != ir::Op::Branch || postdom.dominates(ib, d)) continue;
      std::set<std::string> leaves;
      varying_leaves(l, f_.operands(t)[0], leaves, 0);
      if (!leaves.empty()) out.emplace_back(ir::InstId(f_.block(d).first + f_.block(d).count - 1), std::move(leaves));
    }
    return out;
  }

  /// The values a condition is computed from (through comparisons,
  /// arithmetic and `not`) that change per iteration of l: the loop's item
  /// and its parts, phis in the loop (counters), attributes read in the
  /// loop (`self.global_step`) by their access key.
  void varying_leaves(uint32_t l, ir::ValueId v, std::set<std::string>& out, int depth) const {
    if (!v.valid() || depth > 6) return;
    const ir::Inst& d = f_.def(v);
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    switch (d.op) {
      case ir::Op::Compare:
      case ir::Op::BinOp:
      case ir::Op::UnaryOp:
        for (ir::ValueId o : f_.operands(d)) varying_leaves(l, o, out, depth + 1);
        return;
      case ir::Op::Phi:
      case ir::Op::NextItem:
      case ir::Op::Element:
        if (li.contains(l, f_.block_of(f_.def_id(v)))) out.insert("%" + std::to_string(v.v));
        return;
      case ir::Op::GetAttr: {
        std::string k = access_key(ctx_, fid_, v);
        if (!k.empty() && li.contains(l, f_.block_of(f_.def_id(v)))) out.insert(k);
        return;
      }
      default:
        return;
    }
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
    if (fresh_models(opt, params, loop)) return true;
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

  /// The optimizer `opt` (built in loop l) steps only models built in the
  /// same iteration (`layer = nn.Linear(w, 2)` ... `SGD(layer.parameters())`,
  /// a test over cases, a sweep over seeds): by the objects it steps, or,
  /// when they are not known, by its `params` argument, traced through
  /// `.parameters()` / `.values()` and a comprehension over
  /// `model.named_parameters()` to the model's constructor.
  bool fresh_models(ir::ValueId opt, ir::ValueId params, uint32_t l) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    const dataflow::Objects& objs = ctx_.facts.objects();
    auto built_here = [&](uint32_t m) {
      const dataflow::AbstractObject& a = objs.obj(m);
      return a.kind == dataflow::ObjKind::Module && a.fn == fid_ && a.site.valid() &&
             li.contains(l, f_.block_of(a.site));
    };
    bool any = false, all = true;
    for (uint32_t o : objs.of(fid_, opt)) {
      const dataflow::AbstractObject& a = objs.obj(o);
      if (a.kind != dataflow::ObjKind::Optimizer || !a.steps_known) {
        all = false;
        break;
      }
      for (uint32_t m : a.steps) {
        any = true;
        all = all && built_here(m);
      }
    }
    if (any) return all;
    ir::ValueId model = params_model(params, 0);
    if (!model.valid()) return false;
    for (uint32_t m : objs.of(fid_, model))
      if (!built_here(m)) return false;
    return !objs.of(fid_, model).empty();
  }

  /// The model whose parameters value v holds: `m.parameters()`,
  /// `d.values()` of a dict built from `m.named_parameters()`, or kNoValue.
  ir::ValueId params_model(ir::ValueId v, int depth) const {
    if (!v.valid() || depth > 6) return ir::kNoValue;
    const ir::Inst& d = f_.def(v);
    auto ops = f_.operands(d);
    switch (d.op) {
      case ir::Op::Call: {
        std::string_view m = call_method(ctx_, f_, d);
        if (m == "parameters" || m == "named_parameters") return call_receiver(f_, d);
        if (m == "values" || m == "items") return params_model(call_receiver(f_, d), depth + 1);
        std::string_view n = call_target_name(ctx_, fid_, f_.def_id(v));
        if ((n == "builtins.list" || n == "builtins.filter") && ops.size() > 1)
          return params_model(ops.back(), depth + 1);
        return ir::kNoValue;
      }
      case ir::Op::NextItem:
      case ir::Op::Element:
      case ir::Op::Unpack:
        return params_model(d.op == ir::Op::NextItem ? loop_iterable(ctx_, fid_, v) : ops[0], depth + 1);
      default:
        return comprehension_model(v, depth);
    }
  }

  /// A list or dict the function fills in a loop over a model's
  /// parameters (`{n: p for n, p in m.named_parameters() if ...}`): that model.
  ir::ValueId comprehension_model(ir::ValueId container, int depth) const {
    ir::ValueId found;
    for (const ir::Inst& in : f_.insts) {
      if ((in.op != ir::Op::MapAdd && in.op != ir::Op::ListAppend) || in.nops < 2) continue;
      auto ops = f_.operands(in);
      if (ops[0] != container && !phi_of(ops[0], container)) continue;
      ir::ValueId m = params_model(ops.back(), depth + 1);
      if (!m.valid() || (found.valid() && found != m)) return ir::kNoValue;
      found = m;
    }
    return found;
  }

  /// v is a phi with `of` as an operand (a container carried around the
  /// comprehension's loop).
  bool phi_of(ir::ValueId v, ir::ValueId of) const {
    const ir::Inst& d = f_.def(v);
    if (d.op != ir::Op::Phi) return false;
    auto ops = f_.operands(d);
    return std::find(ops.begin(), ops.end(), of) != ops.end();
  }

  bool is_optimizer(ir::ValueId v) const {
    if (!v.valid()) return false;
    const ir::Referent& r = ctx_.facts.res.ref(fid_, v);
    if (r.kind != ir::Referent::Kind::Result) return false;
    return ctx_.ir.names.str(r.path()).starts_with("torch.optim.");
  }

  /// Objects with both `.backward(...)` and `.step()` called on them are
  /// training engines (DeepSpeed): their step also clears the gradients.
  /// So is a stepped object asked a DeepSpeed engine's own question
  /// (`model.is_gradient_accumulation_boundary()`, DeepSpeedEngine only),
  /// its backward taken in a helper.
  void find_engines() {
    std::set<std::string> backward_keys, step_keys;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call) continue;
      std::string_view m = call_method(ctx_, f_, in);
      if (m == "is_gradient_accumulation_boundary" || m == "set_gradient_accumulation_boundary")
        m = "backward";
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
  /// The optimizer value a step steps (`opt` in `opt.step()` and in
  /// `scaler.step(opt)`), or kNoValue.
  ir::ValueId stepped_optimizer(ir::InstId s) const {
    const ir::Inst& in = f_.inst(s);
    TorchCall k = torch_call(ctx_, fid_, s);
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp)
      return call_arg(ctx_, f_, in, 0, "optimizer");
    if (k == TorchCall::OptimizerStep) return call_receiver(f_, in);
    return ir::kNoValue;
  }

  /// `other.zero_grad()` on an optimizer known (by objects) to be another
  /// than the one step `s` steps, over models unrelated to that one's
  /// (`optimizer_E.zero_grad()` never clears `optimizer_D`'s gradients).
  /// False whenever either side is not known: the clear is taken to clear.
  bool clears_other_optimizer(ir::InstId c, ir::InstId s) const {
    if (!s.valid()) return false;
    const ir::Inst& in = f_.inst(c);
    if (in.op != ir::Op::Call || torch_call(ctx_, fid_, c) != TorchCall::ZeroGrad) return false;
    const dataflow::Objects& objs = ctx_.facts.objects();
    auto cleared = objs.of(fid_, call_receiver(f_, in));
    auto stepped = objs.of(fid_, stepped_optimizer(s));
    if (cleared.empty() || stepped.empty()) return false;
    for (uint32_t a : cleared) {
      const dataflow::AbstractObject& ca = objs.obj(a);
      if (ca.kind != dataflow::ObjKind::Optimizer || !ca.steps_known) return false;
      for (uint32_t b : stepped) {
        const dataflow::AbstractObject& sb = objs.obj(b);
        if (a == b || sb.kind != dataflow::ObjKind::Optimizer || !sb.steps_known) return false;
        for (uint32_t x : ca.steps)
          for (uint32_t y : sb.steps)
            if (objs.within(x, y) || objs.within(y, x)) return false;
      }
    }
    return true;
  }

  /// Steps `a` and `b` name the same optimizer. Where a receiver has no
  /// access key (`self.actor_optimizer[agent]`, an element of a list of
  /// optimizers) the step calls' source texts are compared: two such
  /// optimizers are not one because neither has a name.
  bool same_optimizer_text(ir::InstId a, ir::InstId b) const {
    std::string ka = access_key(ctx_, fid_, stepped_optimizer(a));
    std::string kb = access_key(ctx_, fid_, stepped_optimizer(b));
    if (stepped_optimizer(a).valid() && stepped_optimizer(b).valid() && (ka.empty() || kb.empty()))
      return call_text(ctx_, f_, f_.inst(a)) == call_text(ctx_, f_, f_.inst(b));
    return optimizer_text(a) == optimizer_text(b);
  }

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

  void report(ir::InstId b, ir::InstId s, ir::InstId skipped, const std::vector<DiagNote>& chain,
              DiagSink& out) const {
    const ir::Inst& bi = f_.inst(b);
    std::string btext = call_text(ctx_, f_, bi);
    std::string stext = call_text(ctx_, f_, f_.inst(s));
    std::string opt = optimizer_text(s);
    std::string message;
    bool other = skipped.valid() && clears_other_optimizer(skipped, s);
    if (other)
      message = "`" + btext + "` adds to gradients that nothing in the loop clears: `" +
                call_text(ctx_, f_, f_.inst(skipped)) + "` clears another optimizer's; each `" +
                stext + "` applies the sum of all earlier steps' gradients";
    else if (skipped.valid())
      message = "`" + btext + "` adds to gradients that are cleared on some iterations only; on the "
                "others `" + stext + "` applies the sum of the gradients since the last clear";
    else if (b == s)
      message = "`" + btext + "` runs backward and step every iteration and nothing in the loop "
                "clears the gradients; each step applies the sum of all earlier gradients";
    else
      message = "`" + btext + "` adds to gradients that nothing in the loop clears; each `" +
                stext + "` applies the sum of all earlier steps' gradients";
    Diagnostic d = make_diagnostic(
        kRule, bi.span, std::move(message),
        "call `" + opt + ".zero_grad(set_to_none=True)` once per iteration, before the backward pass");
    if (b != s) d.notes.push_back({f_.inst(s).span, "the optimizer steps here"});
    if (other)
      d.notes.push_back({f_.inst(skipped).span,
                         "this clears the parameters of another optimizer only"});
    else if (skipped.valid())
      d.notes.push_back({f_.inst(skipped).span,
                         "this clears the gradients on some iterations only; the path that "
                         "skips it steps on summed gradients"});
    for (const DiagNote& n : chain) d.notes.push_back(n);
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

namespace {

/// One bug, one finding: a loop that calls a helper whose own loop has
/// the finding (`for epoch in ...: one_epoch(...)` where one_epoch's batch
/// loop never clears) is the same bug, fixed inside the helper. Links such
/// findings to the helper's, and resolves where each is reported.
class Findings {
 public:
  Findings(const CheckContext& ctx, std::vector<Finding> all) : ctx_(ctx), all_(std::move(all)) {
    for (uint32_t k = 0; k < all_.size(); ++k) by_fn_.emplace(all_[k].fn.v, k);
  }

  /// Drops each finding at a call whose helper has one of its own, with
  /// the call as a note on the helper's.
  void merge() {
    for (uint32_t k = 0; k < all_.size(); ++k) {
      uint32_t t = through_call(all_[k].fn, all_[k].backward, 0);
      if (t == UINT32_MAX || t == k) continue;
      all_[k].dropped = true;
      const ir::Function& f = ctx_.ir.fn(all_[k].fn);
      const ir::Inst& call = f.inst(all_[k].backward);
      all_[t].chain.push_back({call.span, "an outer loop runs it through `" + call_text(ctx_, f, call) + "` here"});
    }
  }

  const std::vector<Finding>& all() const { return all_; }

 private:
  /// Nesting of helpers followed: a training loop is rarely more than a few
  /// calls below the epoch loop, and recursion must end.
  static constexpr int kMaxDepth = 4;

  /// The finding a call of fn's instruction i leads to, inside the file
  /// function it calls (or one that function calls), or UINT32_MAX.
  uint32_t through_call(ir::FunctionId fn, ir::InstId i, int depth) const {
    if (depth > kMaxDepth || !calls_file_function(ctx_, fn, i)) return UINT32_MAX;
    if (!(call_effects(ctx_, fn, i) & dataflow::kFillsGrad)) return UINT32_MAX;
    ir::FunctionId g = ctx_.facts.summaries.callee(fn, i);
    if (!g.valid() || g == fn) return UINT32_MAX;
    return in_function(g, depth + 1);
  }

  /// The finding reported for g: its own (or, when its own is itself at a
  /// call of a helper with one, that helper's), else one reached through
  /// g's calls.
  uint32_t in_function(ir::FunctionId g, int depth) const {
    auto it = by_fn_.find(g.v);
    if (it != by_fn_.end()) {
      uint32_t deeper = through_call(g, all_[it->second].backward, depth);
      return deeper != UINT32_MAX ? deeper : it->second;
    }
    const ir::Function& gf = ctx_.ir.fn(g);
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      if (gf.insts[j].op != ir::Op::Call) continue;
      uint32_t t = through_call(g, ir::InstId(j), depth);
      if (t != UINT32_MAX) return t;
    }
    return UINT32_MAX;
  }

  const CheckContext& ctx_;
  std::vector<Finding> all_;
  std::multimap<uint32_t, uint32_t> by_fn_;  // function -> its findings, in order
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  if (other_framework(ctx)) return;
  std::map<uint32_t, Rule> rules;
  std::vector<Finding> found;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // A flagged loop has a backward (is_backward) and a step (is_step) of
    // this function: skip functions whose calls can be neither, before
    // their loops and the engine scan.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!may_backward(fc) || !may_step(fc)) continue;
    if (loops_of(ctx, ir::FunctionId(fi)).loops.empty()) continue;
    rules.try_emplace(fi, ctx, ir::FunctionId(fi)).first->second.run(found);
  }
  Findings all(ctx, std::move(found));
  all.merge();
  for (const Finding& fd : all.all())
    if (!fd.dropped) rules.at(fd.fn.v).report(fd, out);
}

}  // namespace tpf::checks::backward_without_zero_grad
