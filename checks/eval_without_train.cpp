// TPF008 eval_without_train
//
// What it finds: `model.eval()` (or a helper of the file that calls it on
//   every path and never calls `train()`) from which a later training
//   step (`optimizer.step()`, directly or in a helper) is reachable
//   without passing `model.train()`: typically a validation pass inside the
//   epoch loop while `train()` is called once, before the loop.
// Why it costs: eval mode turns dropout off and makes batch norm use (and
//   stop updating) its running statistics (PyTorch 2.x, nn.Module.train /
//   nn.BatchNorm*). Every epoch after the first validation trains a
//   different, unregularized model: accuracy drops or the run overfits and
//   nothing reports an error.
// Example:
//     model.train()
//     for epoch in range(epochs):
//         for x, y in loader: ...; optimizer.step()
//         model.eval()
//         validate(model)
// Fix: call `model.train()` at the start of every epoch (before the
//   training loop), or restore it at the end of the validation helper.
// Not flagged: `model.train()` anywhere in the loop (also under a
//   condition: it is not evaluated); validation helpers that restore
//   `train()`; eval of a different object than the trained model (frozen
//   batch-norm layers `m.eval()` over `model.modules()`, a teacher model);
//   eval after the last training step; a training helper that sets the mode
//   itself (`model.eval()` or `model.train()` before each of its steps:
//   what the caller left does not matter); in a file that freezes
//   parameters (`requires_grad = False`), `model.eval()` placed before the
//   training loop on purpose (linear probing of a frozen backbone keeps its
//   batch-norm statistics fixed, as MoCo's linear evaluation does): no
//   loop runs both, and the function sets the mode itself on every path to
//   the step; helpers whose `step(...)` is a sampler's or a game's (positional
//   arguments on a non-optimizer), whose eval is on a model they build, or
//   whose step is under a flag the call passes as False (or a mode test
//   the call's constant or the default fails: `if mode == TRAIN:`);
//   a learning-rate scheduler's bare `step()`, which trains nothing; a
//   step whose known optimizers update only other models;
//   another module's helper that evals only its parameters, given models
//   with no mode-dependent layer; zeroth-order
//   training (eval before each perturbed forward, parameters perturbed by
//   hand in the same pass). Which object is trained is asked of dataflow/objects.h (the
//   models an optimizer's parameters come from, through wrappers, helpers
//   and fields); where the objects are not known, of the names this
//   function runs a forward of with gradients on.
#include <algorithm>
#include <optional>

#include "checks/facts.h"
#include "checks/mode_layers.h"
#include "ir/cfg.h"

namespace tpf::checks::eval_without_train {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF008);

const std::string_view kExplain = R"(TPF008 eval_without_train: the model keeps training in eval mode

What it finds
  `model.eval()` (or a validation helper that calls it and does not restore
  `model.train()`), from which a later `optimizer.step()` is reachable
  without passing `model.train()`. The usual shape: `model.train()` is called
  once before the epoch loop, and the validation pass inside the loop calls
  `model.eval()`.

Why it costs
  Eval mode turns dropout off and makes batch norm normalize with its running
  statistics instead of the batch's, and stop updating them. Every epoch
  after the first validation trains without dropout and with frozen
  batch-norm statistics: the model overfits or converges worse, and nothing
  reports an error.

Example
  model.train()
  for epoch in range(epochs):
      for x, y in train_loader:
          ...
          optimizer.step()
      model.eval()
      evaluate(model, val_loader)

Fix
  for epoch in range(epochs):
      model.train()
      for x, y in train_loader:
          ...
      model.eval()
      evaluate(model, val_loader)

Not flagged
  - `model.train()` anywhere in the loop, also under a condition
  - validation helpers that call `model.train()` before returning
  - a training helper that calls `self.train()` where the class overrides
    `train(self, mode=True)` (handing on to `nn.Module.train`)
  - a training helper that sets train mode through a method of the model's
    own class (`model.train_head()` calling `self.head.train()`), also when
    it sees the model only as a parameter
  - `eval()` on an object that is not the trained model: no optimizer steps
    its parameters (a teacher, a frozen feature extractor, a reward or
    reference model, also one a setup helper loads and returns in eval
    mode), or it is frozen (`requires_grad_(False)`); batch-norm layers
    frozen in a loop over `model.modules()`
  - `model.eval()` outside any loop with the step, after which the model is
    not evaluated before it trains (eval mode chosen for the training,
    as layer-wise distillation does)
  - `model.eval()` after the last training step
  - a training helper that sets the mode itself (`model.eval()` or
    `model.train()` before each of its steps); an eval, or a helper that
    evals, on every pass of the loop that steps, before the step (the mode
    chosen for each step: zeroth-order training's forwards)
  - a helper whose only `step(...)` is no optimizer step: a sampler's
    `scheduler.step(noise, t, latents)` or a game's `env.step(action)`
    (positional arguments, on an object not known as an optimizer), also in
    another module of the project
  - a learning-rate scheduler's `step()` (built by torch.optim.lr_scheduler,
    known as no optimizer, or named so: `self.lr_scheduler.step()`) is no
    training step: only an optimizer's step after it counts
  - a step whose optimizers (`opt.step()`, or those a helper steps through
    its parameters) are all known and update other models only: a reward
    model or discriminator left in eval mode while the policy's optimizer,
    or one over a tensor the script makes (`Adam([log_alpha])`), steps;
    an optimizer over a bare `nn.Parameter` of the model's class
    (`LBFGS([self.temperature])`: calibration of a frozen network)
  - eval of a model's own copy that no optimizer steps: `copy.deepcopy(G)`
    kept as an EMA generator (updated by hand from G's parameters),
    `AveragedModel(model)`, timm's `ModelEma`, ema_pytorch's `EMA` (whose
    `eval()` switches only its copy), also kept in a field (`self.ema`)
  - a step of an optimizer built over tensors the script makes itself
    (`optim.SGD([delta])`: an adversarial perturbation, a latent being
    inverted) is no training step of the model
  - a helper that puts in eval mode only a model it builds itself
    (`model = Model(envs)` from a class handed in)
  - a shared loop helper whose step is under a flag parameter that the
    call passes as False (`self.forward(loader, training=False)`, also
    handed on to an inner helper), or under a test of a mode parameter
    that the call's value, or the parameter's default, fails (`if mode ==
    TRAIN:` with `mode=EVAL`, or `ModeType.EVAL` against `ModeType.TRAIN`)
  - a validation helper of another module that evals only its parameters,
    handed models none of whose layers eval mode changes (weight-normed
    convolutions, LeakyReLU, pooling)
  - `m.train(False)` next to `m.requires_grad_(False)` (before or after it
    on the way to the step): the model frozen midway, mode and all
  - zeroth-order training: the eval in the same pass of the step's loop,
    before the step, in a pass that perturbs the parameters by hand
    (`p.data = p.data + eps * z`): its perturbed forwards run in eval mode
    on purpose
  - a model none of whose layers behaves differently in eval mode (no
    dropout, batch norm, or layer with a dropout argument), as the file
    builds it, also when a helper evals it; of library models only those
    documented without such layers (PyTorch Geometric's MetaPath2Vec and
    Node2Vec), every other one may have dropout
  - in a file that freezes parameters (`requires_grad = False`),
    `model.eval()` before the training loop, outside any loop that runs
    both, in a function that sets the mode itself on every path to the
    step: training a head on a frozen backbone in eval mode keeps the
    backbone's batch-norm statistics fixed on purpose (linear probing)
  - `eval()` and the step keyed by the same flag, on opposite sides
    (`if train: model.train() else: model.eval()` ... `if train:
    optimiser.step()`): the flag does not change within the call, so no
    run goes from the eval() to the step
)";

namespace {

using dataflow::TorchCall;

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid) : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {
    collect_trained();
  }

  void run(DiagSink& out) {
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId e(i);
      if (!is_eval(e)) continue;
      if (frozen_before(e)) continue;
      auto visit = [&](ir::InstId j, const ir::Inst&) {
        if (restores_train(j) || sets_own_mode(j) || freezes(j, e)) return PathStep::Kill;
        return is_step(j) && !steps_other_model(j, e) ? PathStep::Target : PathStep::Pass;
      };
      // Along the paths the flags that guard the eval() allow: `if train:
      // model.train() else: model.eval()` ... `if train: opt.step()` never
      // goes from the eval() to that step.
      std::vector<ir::InstId> steps = reachable_under(ctx_, fid_, e, visit);
      if (steps.empty()) continue;
      ir::InstId s = steps.front();
      // A train() inside the loop that runs both means the author switches
      // modes each iteration; whether the condition around it holds is not
      // evaluated, so stay quiet.
      uint32_t l = common_loop(ctx_, fid_, e, s);
      if (l != UINT32_MAX && loop_restores(l)) continue;
      if (l != UINT32_MAX && mode_for_every_step(l, e, s)) continue;
      if (l != UINT32_MAX && zeroth_order_step(l, e, s)) continue;
      if (l == UINT32_MAX && (deliberate_eval_training(e, s) || trains_after_eval(e, s))) continue;
      report(e, s, out);
    }
  }

 private:
  /// Keys of the objects this function may train: what it calls with grad
  /// enabled (`model(x)`, `self.model(x)`, `model.encode(x)`: a forward,
  /// whether or not the callee resolves), and the arguments of helper calls
  /// that step an optimizer. Torch API calls (`teacher.to(device)`,
  /// `model.parameters()`) and anything run under no_grad (a teacher, an EMA
  /// copy, validation) do not count.
  void collect_trained() {
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call) continue;
      ir::InstId id(i);
      uint32_t eff = call_effects(ctx_, fid_, id);
      bool grad_off = ctx_.facts.grad_mode(fid_, id) == dataflow::GradMode::Disabled;
      TorchCall k = torch_call(ctx_, fid_, id);
      bool forward = k == TorchCall::None ? !is_module_api(call_method(ctx_, f_, in))
                                          : (dataflow::info(k).effects & dataflow::kForward) != 0;
      if (forward && !grad_off && !calls_file_function(ctx_, fid_, id)) {
        std::string key = access_key(ctx_, fid_, f_.operands(in)[0]);
        if (!key.empty()) trained_.push_back(key);
      }
      if (calls_file_function(ctx_, fid_, id) &&
          (eff & (dataflow::kOptimizerStep | dataflow::kBackward))) {
        auto ops = f_.operands(in);
        for (size_t a = 1; a < ops.size(); ++a) {
          std::string key = access_key(ctx_, fid_, ops[a]);
          if (!key.empty()) trained_.push_back(key);
        }
        ir::CallTarget t = ctx_.facts.res.call_target(fid_, id);
        if (t.bound) {
          std::string key = access_key(ctx_, fid_, t.receiver);
          if (!key.empty()) trained_.push_back(key + ".*");
        }
      }
    }
  }

  /// nn.Module methods that are no forward pass.
  static bool is_module_api(std::string_view m) {
    static constexpr std::string_view kApi[] = {
        "parameters", "named_parameters", "modules", "named_modules", "children",
        "named_children", "buffers", "named_buffers", "state_dict", "load_state_dict", "apply",
        "register_buffer", "register_parameter", "register_forward_hook",
        "register_forward_pre_hook", "register_full_backward_hook", "add_module", "requires_grad_",
        "share_memory", "extra_repr", "type", "get_submodule", "get_parameter"};
    return std::find(std::begin(kApi), std::end(kApi), m) != std::end(kApi);
  }

  bool trains(std::string_view key) const {
    for (const std::string& t : trained_) {
      if (t.ends_with(".*")) {
        // A method of `self` that trains: any `self.x` may be its model.
        std::string_view base = std::string_view(t).substr(0, t.size() - 2);
        if (key.starts_with(base) && (key.size() == base.size() || key[base.size()] == '.'))
          return true;
      } else if (same_object(t, key)) {
        return true;
      }
    }
    return false;
  }

  /// The eval runs on every pass of the innermost loop that holds the step,
  /// before it: the mode is chosen for each step, not left over from a
  /// validation pass (zeroth-order training runs its perturbed forwards in
  /// eval mode on purpose).
  bool mode_for_every_step(uint32_t l, ir::InstId e, ir::InstId s) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    ir::BlockId be = f_.block_of(e), bs = f_.block_of(s);
    if (li.loop_of(be) != l || li.loop_of(bs) != l) return false;
    if (be == bs) return e.v < s.v;
    return ctx_.facts.dom(ctx_.ir, fid_).dominates(be, bs);
  }

  /// `m.requires_grad_(False)` on the model the eval `e` is called on: the
  /// model is frozen together with its mode (a text encoder whose training
  /// stops midway), so no step updates it in eval mode.
  bool freezes(ir::InstId j, ir::InstId e) const {
    const ir::Inst& in = f_.inst(j);
    if (in.op != ir::Op::Call || call_method(ctx_, f_, in) != "requires_grad_") return false;
    ir::ValueId flag = call_arg(ctx_, f_, in, 0, "requires_grad");
    const ir::ConstValue& c = ctx_.facts.res.constant(fid_, flag);
    if (!flag.valid() || c.kind != ir::ConstValue::Kind::Bool || c.i != 0) return false;
    std::string model = access_key(ctx_, fid_, call_receiver(f_, f_.inst(e)));
    return !model.empty() && same_object(model, access_key(ctx_, fid_, call_receiver(f_, in)));
  }

  /// The model was frozen earlier in the eval's block.
  bool frozen_before(ir::InstId e) const {
    const ir::Block& b = f_.block(f_.block_of(e));
    for (uint32_t j = b.first; j < e.v; ++j)
      if (freezes(ir::InstId(j), e)) return true;
    return false;
  }

  /// Zeroth-order training (MeZO): the eval runs in the same pass of the
  /// step's innermost loop, before the step, and that pass perturbs the
  /// parameters by hand (`param.data = param.data + eps * z`, in the loop or
  /// in a helper it calls): the perturbed forwards are run in eval mode on
  /// purpose, so that both see the same network.
  bool zeroth_order_step(uint32_t l, ir::InstId e, ir::InstId s) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    if (li.loop_of(f_.block_of(s)) != l) return false;
    ir::BlockId header = li.loops[l].header;
    auto same_pass = [&](ir::InstId j, const ir::Inst&) {
      if (f_.block_of(j) == header) return PathStep::Kill;
      return j == s ? PathStep::Target : PathStep::Pass;
    };
    if (reachable(f_, e, same_pass).empty()) return false;
    for (ir::InstId j : loop_insts(ctx_, fid_, l))
      if (perturbs_parameters(ctx_, fid_, j, 0)) return true;
    return false;
  }

  /// The instruction writes a parameter's `.data` by hand (`p.data = ...`,
  /// `p.data.add_(...)`), or calls a helper that does.
  static bool perturbs_parameters(const CheckContext& c, ir::FunctionId f, ir::InstId i, int depth) {
    const ir::Function& fn = c.ir.fn(f);
    const ir::Inst& in = fn.inst(i);
    if (in.op == ir::Op::SetAttr) return c.ir.names.str(in.aux) == "data";
    if (in.op != ir::Op::Call) return false;
    ir::ValueId r = call_receiver(fn, in);
    if (r.valid()) {
      const ir::Inst& d = fn.def(r);
      std::string_view m = call_method(c, fn, in);
      if (d.op == ir::Op::GetAttr && c.ir.names.str(d.aux) == "data" && m.ends_with("_") &&
          m != "requires_grad_")
        return true;
    }
    if (depth >= 3) return false;
    auto scan = [&](const CheckContext& gc, ir::FunctionId g) {
      const ir::Function& gf = gc.ir.fn(g);
      for (uint32_t j = 0; j < gf.insts.size(); ++j)
        if (perturbs_parameters(gc, g, ir::InstId(j), depth + 1)) return true;
      return false;
    };
    if (ir::FunctionId g = c.facts.summaries.callee(f, i); g.valid() && g != f) return scan(c, g);
    if (const dataflow::ForeignFunction* ff = c.facts.summaries.foreign_callee(f, i))
      return ff->module && ff->module->src && ff->module->ast && ff->module->ir && ff->facts &&
             scan(foreign_context(*ff), ff->fn);
    return false;
  }

  /// `model.eval()` / `model.train(False)` on a trained model, or a helper
  /// call that evals on every path and never trains.
  bool is_eval(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::Eval ||
        (k == TorchCall::Train &&
         dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid_, in, 0, "mode") == dataflow::BoolArg::False)) {
      // A model none of whose layers computes differently in eval mode
      // (no dropout, no batch norm): leaving it there changes nothing.
      ir::ValueId model = call_receiver(f_, in);
      if (averaged_copy_value(model)) return false;
      return trained_value(model) && mode_layers(ctx_, fid_, model) != ModeLayers::None;
    }
    if (!calls_file_function(ctx_, fid_, i)) return false;
    uint32_t may = call_effects(ctx_, fid_, i);
    uint32_t must = call_effects_must(ctx_, fid_, i);
    if (!(must & dataflow::kEval) || (may & (dataflow::kTrain | dataflow::kOptimizerStep)))
      return false;
    // The helper must eval the trained model (`evaluate(model)`), not
    // another one (`evaluate(ema_model)`, a teacher set up by `setup()`),
    // nor one it builds itself (`model = Model(envs)` from a class handed in).
    if (evals_own_models(i)) return false;
    ir::FunctionId g = ctx_.facts.summaries.callee(fid_, i);
    if (g.valid()) {
      Known k = evals_trained(g, 0);
      if (k != Known::Unknown) return k == Known::Yes;
    }
    // A helper of another module that evals only its parameters
    // (`generator.eval()` on parameter `generator`): the models the call
    // passes there are the ones left in eval mode. A model none of whose
    // layers computes differently in eval mode (weight-normed
    // convolutions, LeakyReLU) changes nothing, as at a direct
    // `model.eval()`.
    if (std::optional<std::vector<ir::ValueId>> evaluated = evaluated_args(i)) {
      for (ir::ValueId v : *evaluated)
        if (trained_value(v) && mode_layers(ctx_, fid_, v) != ModeLayers::None) return true;
      return false;
    }
    auto ops = f_.operands(in);
    for (size_t a = 1; a < ops.size(); ++a) {
      // A class or function handed over (`Model=QNetwork`) is what the
      // helper builds its own model from, not the trained model.
      ir::Referent::Kind rk = ctx_.facts.res.ref(fid_, ops[a]).kind;
      if (rk == ir::Referent::Kind::Class || rk == ir::Referent::Kind::Function) continue;
      if (trained_value(ops[a]) && mode_layers(ctx_, fid_, ops[a]) != ModeLayers::None) return true;
    }
    ir::CallTarget t = ctx_.facts.res.call_target(fid_, i);
    return t.bound && trained_value(t.receiver);
  }

  /// A model's averaged copy, built by ema_pytorch's `EMA` / `PostHocEMA`
  /// (whose `eval()` is overridden to switch only the copy: ema_pytorch
  /// 0.4+, ema_pytorch.py), timm's `ModelEma*` or torch's `AveragedModel`
  /// (a deep copy of the model): its eval leaves the trained model's mode
  /// alone, and no optimizer steps it.
  static bool averaged_copy_name(std::string_view n) {
    std::string_view last = n.substr(n.rfind('.') + 1);
    if (n.starts_with("ema_pytorch.")) return last == "EMA" || last == "PostHocEMA";
    if (n.starts_with("timm.")) return last.starts_with("ModelEma");
    return n == "torch.optim.swa_utils.AveragedModel";
  }

  /// Value v (a local, or a field `self.ema` of the method's class) is an
  /// averaged copy: every value it comes from, or every value a method of
  /// the class stores in that field (other than None), is built by
  /// averaged_copy_name.
  bool averaged_copy_value(ir::ValueId v) const {
    if (!v.valid()) return false;
    const ir::Inst& d = f_.def(v);
    auto built = [&](ir::FunctionId g, ir::ValueId x) {
      const ir::Function& gf = ctx_.ir.fn(g);
      return gf.def(x).op == ir::Op::Call && averaged_copy_name(call_target_name(ctx_, g, gf.def_id(x)));
    };
    if (d.op == ir::Op::GetAttr && f_.owner.valid()) {
      const ir::Inst& base = f_.def(f_.operands(d)[0]);
      if (base.op != ir::Op::Param || base.aux != 0) return false;
      bool any = false;
      for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
        ir::FunctionId g(fi);
        const ir::Function& gf = ctx_.ir.fn(g);
        if (gf.owner != f_.owner) continue;
        for (const ir::Inst& x : gf.insts) {
          if (x.op != ir::Op::SetAttr || x.aux != d.aux) continue;
          auto ops = gf.operands(x);
          const ir::Inst& self = gf.def(ops[0]);
          if (self.op != ir::Op::Param || self.aux != 0) continue;
          const ir::ConstValue& c = ctx_.facts.res.constant(g, ops[1]);
          if (c.kind == ir::ConstValue::Kind::None) continue;
          if (!built(g, ops[1])) return false;
          any = true;
        }
      }
      return any;
    }
    Origins os = trace_origins(ctx_, fid_, v);
    if (!os.complete || os.leaves.empty()) return false;
    for (const Origin& o : os.leaves)
      if (!built(o.fn, o.value)) return false;
    return true;
  }

  enum class Known : uint8_t { No, Yes, Unknown };

  /// The arguments call `i` passes to the parameters that the helper of
  /// another project module it reaches puts in eval mode, when every
  /// `x.eval()` / `x.train(False)` there is on a parameter; nullopt
  /// otherwise (a local helper, evals_trained reads it; an eval of a field
  /// or of something the helper builds).
  std::optional<std::vector<ir::ValueId>> evaluated_args(ir::InstId i) const {
    const dataflow::ForeignFunction* ff = ctx_.facts.summaries.foreign_callee(fid_, i);
    if (!ff || !ff->module || !ff->module->src || !ff->module->ast || !ff->module->ir || !ff->facts)
      return std::nullopt;
    CheckContext there = foreign_context(*ff);
    const ir::Function& gf = there.ir.fn(ff->fn);
    std::vector<uint32_t> params;
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      TorchCall k = torch_call(there, ff->fn, ir::InstId(j));
      if (k != TorchCall::Eval && k != TorchCall::Train) continue;
      if (k == TorchCall::Train &&
          dataflow::bool_arg(there.ir, there.facts.res, ff->fn, x, 0, "mode") != dataflow::BoolArg::False)
        continue;
      ir::ValueId r = call_receiver(gf, x);
      if (!r.valid() || gf.def(r).op != ir::Op::Param) return std::nullopt;
      params.push_back(gf.def(r).aux);
    }
    if (params.empty()) return std::nullopt;
    std::vector<ir::ValueId> out;
    dataflow::bind_call_args(f_, f_.inst(i), ctx_.facts.res.call_target(fid_, i), gf, [&](size_t p, ir::ValueId a) {
      if (a.valid() && std::find(params.begin(), params.end(), p) != params.end()) out.push_back(a);
    });
    return out;
  }

  /// The helper a call reaches (of the file or another project module)
  /// puts in eval mode only models it builds itself: every `x.eval()` /
  /// `x.train(False)` in it is on a value made by a call there
  /// (`Model(envs).to(device)`, `copy.deepcopy(m)`), not on a parameter,
  /// a field or a global. Such a model is not the caller's trained one.
  bool evals_own_models(ir::InstId i) const {
    ir::FunctionId g = ctx_.facts.summaries.callee(fid_, i);
    if (g.valid()) return only_own_evals(ctx_, g);
    if (const dataflow::ForeignFunction* ff = ctx_.facts.summaries.foreign_callee(fid_, i))
      return ff->module && ff->module->src && ff->module->ast && ff->module->ir && ff->facts &&
             only_own_evals(foreign_context(*ff), ff->fn);
    return false;
  }

  static bool only_own_evals(const CheckContext& c, ir::FunctionId g) {
    const ir::Function& gf = c.ir.fn(g);
    bool any = false;
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      TorchCall k = torch_call(c, g, ir::InstId(j));
      if (k != TorchCall::Eval && k != TorchCall::Train) continue;
      Origins os = trace_origins(c, g, call_receiver(gf, x));
      if (!os.complete || os.leaves.empty()) return false;
      for (const Origin& o : os.leaves) {
        const ir::Function& of = c.ir.fn(o.fn);
        const ir::Inst& d = of.def(o.value);
        if (o.fn != g || d.op != ir::Op::Call || call_receiver(of, d).valid()) return false;
      }
      any = true;
    }
    return any;
  }

  /// Whether the models function g (and the helpers it calls that eval)
  /// puts in eval mode are trained, by the objects they denote.
  Known evals_trained(ir::FunctionId g, int depth) const {
    if (depth > 3) return Known::Unknown;
    const ir::Function& gf = ctx_.ir.fn(g);
    bool any = false;
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      ir::InstId id(j);
      TorchCall k = torch_call(ctx_, g, id);
      Known r = Known::No;
      if (k == TorchCall::Eval) {
        // A model with no layer that eval mode changes: leaving it there
        // changes nothing.
        ir::ValueId m = call_receiver(gf, x);
        r = mode_layers(ctx_, g, m) == ModeLayers::None ? Known::No : object_trained(g, m);
      } else if (calls_file_function(ctx_, g, id) && (call_effects(ctx_, g, id) & dataflow::kEval)) {
        ir::FunctionId h = ctx_.facts.summaries.callee(g, id);
        r = h.valid() && h != g ? evals_trained(h, depth + 1) : Known::Unknown;
      } else {
        continue;
      }
      if (r != Known::No) return r;
      any = true;
    }
    return any ? Known::No : Known::Unknown;
  }

  /// Whether the models value v of function g may denote are trained;
  /// Unknown when it denotes no model the analysis knows, or the file
  /// shows neither an optimizer nor parameters handed to one.
  Known object_trained(ir::FunctionId g, ir::ValueId v) const {
    const dataflow::Objects& objs = ctx_.facts.objects();
    if (!objs.any_params_given() && !(objs.has_optimizer() && objs.optimizers_known()))
      return Known::Unknown;
    bool any_model = false;
    for (uint32_t o : objs.of(g, v)) {
      dataflow::ObjKind k = objs.obj(o).kind;
      if (k != dataflow::ObjKind::Module && k != dataflow::ObjKind::Engine) continue;
      any_model = true;
      if (objs.may_be_trained(o))
        return Known::Yes;
    }
    return any_model ? Known::No : Known::Unknown;
  }

  /// The value is a model an optimizer steps. Asked of the objects it may
  /// denote when they are models and every optimizer of the file is known
  /// with what it steps (a teacher, a frozen feature extractor, a reward
  /// model: no optimizer steps them); otherwise of the names this function
  /// runs a forward of with gradients on.
  bool trained_value(ir::ValueId v) const {
    Known k = object_trained(fid_, v);
    return k == Known::Unknown ? trains(access_key(ctx_, fid_, v)) : k == Known::Yes;
  }

  /// `x.train()` on anything (not `train(False)`), or a call that may train.
  bool restores_train(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::Train)
      return dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid_, in, 0, "mode") != dataflow::BoolArg::False;
    if (call_effects(ctx_, fid_, i) & dataflow::kTrain) return true;
    return trains_through_method(fid_, i, 0);
  }

  /// A call that reaches, on some path, a method of one of the file's
  /// classes that sets train mode (`discriminator.train_custom()`, which
  /// calls `self.classifier_head.train()`), where the resolution does not
  /// see the method (the receiver is a parameter): asked of the objects the
  /// receiver may denote; or a call of a `train()` override of a class of
  /// the file (`self.train()` where the class defines `train`, which the
  /// torch table leaves to the file). Followed into the file's helpers.
  bool trains_through_method(ir::FunctionId f, ir::InstId i, int depth) const {
    if (depth > 3) return false;
    const ir::Function& fn = ctx_.ir.fn(f);
    const ir::Inst& in = fn.inst(i);
    if (in.op != ir::Op::Call) return false;
    if (ir::FunctionId g = ctx_.facts.summaries.callee(f, i); g.valid()) {
      if (g == f) return false;
      const ir::Function& gf = ctx_.ir.fn(g);
      // The class's own `train(self, mode=True)` override (which hands on
      // to `nn.Module.train(self, mode)`), called without False.
      // A `train(self)` with no mode parameter is a training loop of a
      // trainer class, not the override.
      if (gf.owner.valid() && ctx_.ir.names.str(gf.name) == "train" && gf.params.size() >= 2 &&
          ctx_.ir.names.str(gf.params[1].name) == "mode" &&
          dataflow::bool_arg(ctx_.ir, ctx_.facts.res, f, in, 0, "mode") != dataflow::BoolArg::False)
        return true;
      for (uint32_t j = 0; j < gf.insts.size(); ++j)
        if (gf.insts[j].op == ir::Op::Call && trains_through_method(g, ir::InstId(j), depth + 1)) return true;
      return false;
    }
    ir::ValueId r = call_receiver(fn, in);
    std::string_view m = call_method(ctx_, fn, in);
    if (!r.valid() || m.empty()) return false;
    const dataflow::Objects& objs = ctx_.facts.objects();
    for (uint32_t o : objs.of(f, r)) {
      ir::ClassId c = objs.obj(o).cls;
      if (!c.valid()) continue;
      for (const auto& [name, mf] : ctx_.ir.classes[c.v].methods)
        if (ctx_.ir.names.str(name) == m && (ctx_.facts.summaries.of(mf).may & dataflow::kTrain)) return true;
    }
    return false;
  }

  bool is_step(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    if (k == TorchCall::OptimizerStep)
      return (positional_count(f_, in) == 0 || is_optimizer(i)) && !steps_free_tensors(ctx_, fid_, i) &&
             !other_stepper(ctx_, fid_, i);
    if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) return true;
    return calls_file_function(ctx_, fid_, i) &&
           (call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep) && helper_steps(ctx_, fid_, i, 0);
  }

  bool is_optimizer(ir::InstId i) const { return optimizer_receiver(ctx_, fid_, i); }

  /// Step `s` trains none of the models eval `e` is called on: every
  /// optimizer it steps (`opt.step()`, or the optimizers a helper of the
  /// file or project steps through its parameters,
  /// `bc_update(actor, batch, actor_opt)`) is known with what it steps, and
  /// none of that is the evaluated model, a part of it or a model it is part
  /// of (a discriminator left in eval mode while the actor's optimizer
  /// steps). False where anything is not known: the helper steps another
  /// way, the eval is a helper's, an optimizer comes from a factory.
  /// An optimizer built by torch.optim over a list of tensors made by
  /// torch factories (or values denoting no object, not parameters or
  /// attributes) where it is built (`optim.Adam([log_alpha])` with
  /// `log_alpha = torch.zeros(1, requires_grad=True)`): it steps no model.
  bool steps_made_tensors(const dataflow::AbstractObject& opt) const {
    if (!opt.fn.valid() || !opt.site.valid()) return false;
    const ir::Function& of = ctx_.ir.fn(opt.fn);
    const ir::Inst& d = of.inst(opt.site);
    if (!call_target_name(ctx_, opt.fn, opt.site).starts_with("torch.optim.")) return false;
    ir::ValueId params = call_arg(ctx_, of, d, 0, "params");
    if (!params.valid()) return false;
    const ir::Inst& l = of.def(params);
    if ((l.op != ir::Op::BuildList && l.op != ir::Op::BuildTuple) || of.operands(l).empty()) return false;
    for (ir::ValueId t : of.operands(l)) {
      // A parameter or attribute may be a model's weight; a value unpacked
      // from a tuple the function builds (`actor, log_alpha = Actor(),
      // torch.zeros(1)`) that denotes no object is a tensor of its own.
      ir::Op op = of.def(t).op;
      if (op == ir::Op::GetAttr && bare_parameter_field(opt.fn, t)) continue;
      if (op == ir::Op::Param || op == ir::Op::GetAttr || !ctx_.facts.objects().of(opt.fn, t).empty())
        return false;
      if (op != ir::Op::Call) continue;
      std::string_view n = call_target_name(ctx_, opt.fn, of.def_id(t));
      if (!n.starts_with("torch.") || n.starts_with("torch.nn.") || n.starts_with("torch.optim.")) return false;
    }
    return true;
  }

  /// Value v of function g is a field `self.x` that every method of the
  /// class sets to a bare `nn.Parameter(...)` (a temperature, a prompt
  /// vector): a tensor, no layer of the model, whatever mode it is in.
  bool bare_parameter_field(ir::FunctionId g, ir::ValueId v) const {
    const ir::Function& gf = ctx_.ir.fn(g);
    const ir::Inst& d = gf.def(v);
    if (d.op != ir::Op::GetAttr || !gf.owner.valid()) return false;
    const ir::Inst& base = gf.def(gf.operands(d)[0]);
    if (base.op != ir::Op::Param || base.aux != 0) return false;
    return bare_parameter_attr(gf.owner, d.aux);
  }

  /// Every store of attribute `attr` on `self` in the methods of class c
  /// is an `nn.Parameter(...)`, and there is one.
  bool bare_parameter_attr(ir::ClassId c, uint32_t attr) const {
    if (!c.valid()) return false;
    bool any = false;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId h(fi);
      const ir::Function& hf = ctx_.ir.fn(h);
      if (hf.owner != c) continue;
      for (const ir::Inst& x : hf.insts) {
        if (x.op != ir::Op::SetAttr || x.aux != attr) continue;
        auto ops = hf.operands(x);
        const ir::Inst& self = hf.def(ops[0]);
        if (self.op != ir::Op::Param || self.aux != 0) continue;
        if (hf.def(ops[1]).op != ir::Op::Call) return false;
        std::string_view n = call_target_name(ctx_, h, hf.def_id(ops[1]));
        if (n != "torch.nn.Parameter" && n != "torch.nn.parameter.Parameter") return false;
        any = true;
      }
    }
    return any;
  }

  bool steps_other_model(ir::InstId s, ir::InstId e) const {
    const dataflow::Objects& objs = ctx_.facts.objects();
    TorchCall ek = torch_call(ctx_, fid_, e);
    if (ek != TorchCall::Eval && ek != TorchCall::Train) return false;
    std::vector<uint32_t> model;
    for (uint32_t o : objs.of(fid_, call_receiver(f_, f_.inst(e))))
      if (objs.obj(o).kind == dataflow::ObjKind::Module) model.push_back(o);
    if (model.empty()) return false;
    const ir::Inst& si = f_.inst(s);
    std::vector<ir::ValueId> opts;
    if (torch_call(ctx_, fid_, s) == TorchCall::OptimizerStep) {
      opts.push_back(call_receiver(f_, si));
    } else {
      std::optional<CheckContext> there;
      ir::FunctionId g = ctx_.facts.summaries.callee(fid_, s);
      if (!g.valid()) {
        const dataflow::ForeignFunction* ff = ctx_.facts.summaries.foreign_callee(fid_, s);
        if (!ff || !ff->module || !ff->module->src || !ff->module->ast || !ff->module->ir || !ff->facts)
          return false;
        there.emplace(foreign_context(*ff));
        g = ff->fn;
      }
      const CheckContext& gc = there ? *there : ctx_;
      if (!there && g == fid_) return false;
      const ir::Function& gf = gc.ir.fn(g);
      std::vector<uint32_t> params;
      for (uint32_t j = 0; j < gf.insts.size(); ++j) {
        const ir::Inst& x = gf.insts[j];
        if (x.op != ir::Op::Call) continue;
        ir::InstId id(j);
        TorchCall k = torch_call(gc, g, id);
        if (k == TorchCall::OptimizerStep) {
          if (other_stepper(gc, g, id)) continue;
          ir::ValueId r = call_receiver(gf, x);
          if (!r.valid() || gf.def(r).op != ir::Op::Param) return false;
          params.push_back(gf.def(r).aux);
        } else if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp ||
                   (call_effects(gc, g, id) & dataflow::kOptimizerStep)) {
          return false;
        }
      }
      if (params.empty()) return false;
      size_t bound = 0;
      dataflow::bind_call_args(f_, si, ctx_.facts.res.call_target(fid_, s), gf, [&](size_t p, ir::ValueId a) {
        if (std::find(params.begin(), params.end(), p) == params.end()) return;
        ++bound;
        opts.push_back(a);
      });
      if (bound == 0) return false;
    }
    for (ir::ValueId v : opts) {
      auto os = objs.of(fid_, v);
      if (!v.valid() || os.empty()) return false;
      for (uint32_t o : os) {
        const dataflow::AbstractObject& opt = objs.obj(o);
        if (opt.kind != dataflow::ObjKind::Optimizer) return false;
        if (!opt.steps_known && !steps_made_tensors(opt)) return false;
        for (uint32_t stepped : opt.steps) {
          // A bare parameter of the model's class (`self.temperature`): the
          // step updates no layer that eval mode changes.
          const dataflow::AbstractObject& so = objs.obj(stepped);
          if (so.parent != UINT32_MAX && so.attr != ir::kNoSymbol &&
              bare_parameter_attr(objs.obj(so.parent).cls, static_cast<uint32_t>(so.attr)))
            continue;
          for (uint32_t m : model)
            if (objs.within(stepped, m) || objs.within(m, stepped)) return false;
        }
      }
    }
    return !opts.empty();
  }

  /// A bare `x.step()` of no optimizer: the objects fact knows the receiver
  /// as an lr scheduler only (an optimizer wrapper class of the project is
  /// a module object there, and still steps), or, not known as an
  /// optimizer, its name says it is a scheduler, profiler or
  /// timer (`self.lr_scheduler.step()`). A scheduler's step only changes
  /// the learning rate: no model trains there, in any mode.
  static bool other_stepper(const CheckContext& c, ir::FunctionId f, ir::InstId i) {
    const ir::Function& fn = c.ir.fn(f);
    ir::ValueId recv = call_receiver(fn, fn.inst(i));
    if (!recv.valid()) return false;
    const ir::Referent& r = c.facts.res.ref(f, recv);
    if (r.kind == ir::Referent::Kind::Result && c.ir.names.str(r.path()).starts_with("torch.optim.lr_scheduler."))
      return true;
    if (optimizer_value(c, f, recv)) return false;
    const dataflow::Objects& objs = c.facts.objects();
    auto os = objs.of(f, recv);
    if (!os.empty() && std::all_of(os.begin(), os.end(), [&](uint32_t o) {
          return objs.obj(o).kind == dataflow::ObjKind::Scheduler;
        }))
      return true;
    return key_names(c, f, recv, {"scheduler", "schedule", "sched", "profiler", "prof", "timer"});
  }

  /// `x.step(...)` whose receiver is an optimizer: built by torch.optim, or
  /// an object the analysis knows as one.
  static bool optimizer_receiver(const CheckContext& c, ir::FunctionId f, ir::InstId i) {
    const ir::Function& fn = c.ir.fn(f);
    return optimizer_value(c, f, call_receiver(fn, fn.inst(i)));
  }

  /// A call of a helper (of the file or of another project module) whose
  /// `kOptimizerStep` effect comes from an optimizer step: `opt.step()`, a
  /// scaler's step, or a helper that does one. A `step(...)` with
  /// positional arguments on an object not known as an optimizer is a game
  /// move (`env.step(action)`) or a sampler's step
  /// (`scheduler.step(noise_pred, t, latents)`), as at a direct call.
  /// Past the depth, or where the helper's module is not loaded, the
  /// summary's bit is taken.
  /// Per parameter of a helper: what a call passes for it, or its default
  /// when the call passes nothing: the bool (-1: not a bool constant) and
  /// a key naming the constant ("s:eval" for a string, "p:util.ModeType.EVAL"
  /// for a name of another module; "" when unknown), followed through
  /// parameters handed on (`self._step(x, training=training)`).
  struct Const {
    int8_t truth = -1;
    std::string key;
  };
  using Consts = std::vector<Const>;

  static bool helper_steps(const CheckContext& c, ir::FunctionId f, ir::InstId i, int depth,
                           const Consts& outer = {}) {
    if (depth > 4) return true;
    if (ir::FunctionId g = c.facts.summaries.callee(f, i); g.valid())
      return g != f && function_steps(c, g, depth + 1, call_consts(c, f, i, g, outer));
    if (const dataflow::ForeignFunction* ff = c.facts.summaries.foreign_callee(f, i)) {
      if (!ff->module || !ff->module->src || !ff->module->ast || !ff->module->ir || !ff->facts) return true;
      return function_steps(foreign_context(*ff), ff->fn, depth + 1, {});
    }
    return true;
  }

  /// The constant value v of function f is, as a Const.
  static Const const_of(const CheckContext& c, ir::FunctionId f, ir::ValueId v) {
    Const out;
    if (!v.valid()) return out;
    const ir::ConstValue& k = c.facts.res.constant(f, v);
    if (k.kind == ir::ConstValue::Kind::Bool) out.truth = k.i != 0 ? 1 : 0;
    if (k.kind == ir::ConstValue::Kind::Str) out.key = "s:" + std::string(k.s);
    if (k.known()) return out;
    const ir::Referent& r = c.facts.res.ref(f, v);
    if (r.kind == ir::Referent::Kind::External) out.key = "p:" + std::string(c.ir.names.str(r.path()));
    // `ModeType.EVAL`, an attribute of a class of this file.
    const ir::Function& fn = c.ir.fn(f);
    const ir::Inst& d = fn.def(v);
    if (r.kind == ir::Referent::Kind::Unknown && d.op == ir::Op::GetAttr) {
      const ir::Referent& base = c.facts.res.ref(f, fn.operands(d)[0]);
      if (base.kind == ir::Referent::Kind::Class)
        out.key = "p:" + std::string(c.ir.names.str(c.ir.cls(base.cls()).qualname)) + "." +
                  std::string(c.ir.names.str(static_cast<ir::Symbol>(d.aux)));
    }
    return out;
  }

  static Consts call_consts(const CheckContext& c, ir::FunctionId f, ir::InstId i, ir::FunctionId g,
                            const Consts& outer) {
    const ir::Function& fn = c.ir.fn(f);
    const ir::Function& gf = c.ir.fn(g);
    const ir::Inst& in = fn.inst(i);
    Consts out(gf.params.size());
    bool bound = c.facts.res.call_target(f, i).bound;
    size_t ndefault = 0;  // defaults of the parameters before p
    for (size_t p = 0; p < gf.params.size(); ++p) {
      const ir::Param& pr = gf.params[p];
      size_t di = ndefault;
      if (pr.has_default) ++ndefault;
      if (p == 0 && bound) continue;
      if (pr.kind == ir::ParamKind::VarArgs || pr.kind == ir::ParamKind::KwArgs) continue;
      int pos = pr.kind == ir::ParamKind::KwOnly ? -1 : static_cast<int>(p) - (bound ? 1 : 0);
      std::string_view kw = pr.kind == ir::ParamKind::PosOnly ? std::string_view() : c.ir.names.str(pr.name);
      ir::ValueId v = call_arg(c, fn, in, pos, kw);
      if (!v.valid()) {
        // Not passed: the default, a value of the function defining g.
        if (pr.has_default && !has_unpacked_args(fn, in) && di < gf.defaults.size() && gf.parent.valid())
          out[p] = const_of(c, gf.parent, gf.defaults[di]);
        continue;
      }
      const ir::Inst& d = fn.def(v);
      if (d.op == ir::Op::Param) {
        if (d.aux < outer.size()) out[p] = outer[d.aux];
        continue;
      }
      out[p] = const_of(c, f, v);
    }
    return out;
  }

  /// Which arm of branch `t` of g runs with the constants given: 0 (true),
  /// 1 (false), or -1 when it depends on something else. A parameter tested
  /// for truth, or compared with `==` / `!=` to a constant (`if mode ==
  /// TRAIN:`): two different strings, or two different names of one class
  /// (`ModeType.TRAIN`, `ModeType.EVAL`), are different values.
  static int decided_arm(const CheckContext& c, ir::FunctionId gid, const ir::Function& g, const ir::Inst& t,
                         const Consts& consts) {
    const ir::Inst& d = g.def(g.operands(t)[0]);
    if (d.op == ir::Op::Param) return d.aux < consts.size() && consts[d.aux].truth >= 0 ? (consts[d.aux].truth ? 0 : 1) : -1;
    if (d.op != ir::Op::Compare) return -1;
    auto op = static_cast<ast::Op>(d.aux);
    if (op != ast::Op::Eq && op != ast::Op::NotEq) return -1;
    auto ops = g.operands(d);
    if (ops.size() != 2) return -1;
    for (int side = 0; side < 2; ++side) {
      const ir::Inst& pd = g.def(ops[side]);
      if (pd.op != ir::Op::Param || pd.aux >= consts.size() || consts[pd.aux].key.empty()) continue;
      const std::string& a = consts[pd.aux].key;
      Const other = const_of(c, gid, ops[1 - side]);
      const std::string& b = other.key;
      if (b.size() < 2 || a.compare(0, 2, b, 0, 2) != 0) return -1;  // "s:" vs "p:"
      bool same = a == b;
      if (!same && a.starts_with("p:") && a.substr(0, a.rfind('.')) != b.substr(0, b.rfind('.'))) return -1;
      return (same == (op == ast::Op::Eq)) ? 0 : 1;
    }
    return -1;
  }

  /// The blocks of g that run when its parameters have the constants given:
  /// a branch on such a parameter (`if training:`, `if mode == TRAIN:`)
  /// takes one side only.
  static std::vector<uint8_t> live_blocks(const CheckContext& c, ir::FunctionId gid, const Consts& consts) {
    const ir::Function& g = c.ir.fn(gid);
    std::vector<uint8_t> live(g.blocks.size(), 0);
    if (g.blocks.empty()) return live;
    std::vector<ir::BlockId> work{ir::BlockId(0)};
    live[0] = 1;
    auto push = [&](ir::BlockId b) {
      if (b.valid() && !live[b.v]) live[b.v] = 1, work.push_back(b);
    };
    while (!work.empty()) {
      ir::BlockId b = work.back();
      work.pop_back();
      const ir::Block& blk = g.block(b);
      if (blk.count) {
        const ir::Inst& t = g.inst(ir::InstId(blk.first + blk.count - 1));
        if (t.op == ir::Op::Branch) {
          int arm = decided_arm(c, gid, g, t, consts);
          if (arm >= 0) {
            push(blk.succ[arm]);
            push(blk.exc);
            continue;
          }
        }
      }
      for (ir::BlockId n : ir::succs(g, b)) push(n);
    }
    return live;
  }

  static bool function_steps(const CheckContext& c, ir::FunctionId g, int depth, const Consts& consts) {
    const ir::Function& gf = c.ir.fn(g);
    std::vector<uint8_t> live = live_blocks(c, g, consts);
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      ir::InstId id(j);
      if (!live[gf.block_of(id).v]) continue;
      TorchCall k = torch_call(c, g, id);
      if (k == TorchCall::OptimizerStep) {
        if ((positional_count(gf, x) == 0 || optimizer_receiver(c, g, id)) && !other_stepper(c, g, id))
          return true;
        continue;
      }
      if (k == TorchCall::ScalerStep || k == TorchCall::ScalerStepAmp) return true;
      if (calls_file_function(c, g, id) && (call_effects(c, g, id) & dataflow::kOptimizerStep) &&
          helper_steps(c, g, id, depth, consts))
        return true;
    }
    return false;
  }

  /// A call of a training helper of the file that puts its model in a
  /// mode itself before each of its steps (`model.eval()` for linear
  /// probing, `model.train()`): the mode the caller left does not reach a
  /// step.
  bool sets_own_mode(ir::InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != ir::Op::Call || !calls_file_function(ctx_, fid_, i) ||
        !(call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep))
      return false;
    ir::FunctionId g = ctx_.facts.summaries.callee(fid_, i);
    if (!g.valid() || g == fid_) return false;
    Rule inner(ctx_, g);
    const ir::Function& gf = ctx_.ir.fn(g);
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, g);
    std::vector<ir::InstId> modes, steps;
    for (uint32_t j = 0; j < gf.insts.size(); ++j) {
      const ir::Inst& x = gf.insts[j];
      if (x.op != ir::Op::Call) continue;
      TorchCall k = torch_call(ctx_, g, ir::InstId(j));
      if ((k == TorchCall::Eval || k == TorchCall::Train) &&
          inner.trains(access_key(ctx_, g, call_receiver(gf, x))))
        modes.push_back(ir::InstId(j));
      else if (inner.is_step(ir::InstId(j)))
        steps.push_back(ir::InstId(j));
    }
    if (steps.empty()) return false;
    for (ir::InstId st : steps) {
      bool set = false;
      for (ir::InstId m : modes) set |= dom.dominates(gf, m, st);
      if (!set) return false;
    }
    return true;
  }

  /// `model.eval()` with no loop around it and the step `s`, in a function
  /// that sets the mode itself on every path to `s` (this eval, or an
  /// eval/train chosen by a branch), in a file that freezes parameters:
  /// eval mode chosen for the training itself (a linear probe on frozen
  /// features), not left over from validation.
  bool deliberate_eval_training(ir::InstId e, ir::InstId s) const {
    if (torch_call(ctx_, fid_, e) != TorchCall::Eval) return false;
    auto mode = [&](ir::InstId j, const ir::Inst& in) {
      if (in.op != ir::Op::Call) return PathStep::Pass;
      TorchCall k = torch_call(ctx_, fid_, j);
      if ((k == TorchCall::Eval || k == TorchCall::Train) &&
          trains(access_key(ctx_, fid_, call_receiver(f_, in))))
        return PathStep::Kill;
      return j == s ? PathStep::Target : PathStep::Pass;
    };
    if (!reachable(f_, ir::InstId(f_.block(ir::BlockId(0)).first), mode).empty()) return false;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId g(fi);
      const ir::Function& gf = ctx_.ir.fn(g);
      for (const ir::Inst& in : gf.insts) {
        ir::ValueId flag;
        if (in.op == ir::Op::SetAttr && ctx_.ir.names.str(in.aux) == "requires_grad")
          flag = gf.operands(in)[1];
        else if (in.op == ir::Op::Call && call_method(ctx_, gf, in) == "requires_grad_")
          flag = call_arg(ctx_, gf, in, 0, "requires_grad");
        if (!flag.valid()) continue;
        const ir::ConstValue& c = ctx_.facts.res.constant(g, flag);
        if (c.kind == ir::ConstValue::Kind::Bool && c.i == 0) return true;
      }
    }
    return false;
  }

  /// `model.eval()` outside any loop with the step, after which the model
  /// is never evaluated before the training that follows (no forward of it
  /// under no_grad, no helper that evaluates): eval mode chosen for the
  /// training itself (layer-wise distillation with dropout off), not left
  /// over from a validation pass. Asked of the objects the receiver
  /// denotes; false when they are not known.
  bool trains_after_eval(ir::InstId e, ir::InstId s) const {
    if (torch_call(ctx_, fid_, e) != TorchCall::Eval) return false;
    const dataflow::Objects& objs = ctx_.facts.objects();
    std::vector<uint32_t> model;
    for (uint32_t o : objs.of(fid_, call_receiver(f_, f_.inst(e))))
      if (objs.obj(o).kind == dataflow::ObjKind::Module) model.push_back(o);
    if (model.empty()) return false;
    auto is_model = [&](ir::ValueId v) {
      for (uint32_t o : objs.of(fid_, v))
        for (uint32_t m : model)
          if (objs.within(o, m) || objs.within(m, o)) return true;
      return false;
    };
    // Only what runs between the eval and the step: blocks that reach the step's.
    std::vector<uint8_t> to_step(f_.blocks.size(), 0);
    std::vector<ir::BlockId> work{f_.block_of(s)};
    to_step[work.back().v] = 1;
    while (!work.empty()) {
      ir::BlockId b = work.back();
      work.pop_back();
      for (ir::BlockId p : ir::preds(f_, b))
        if (!to_step[p.v]) {
          to_step[p.v] = 1;
          work.push_back(p);
        }
    }
    bool evaluated = false;
    auto visit = [&](ir::InstId j, const ir::Inst& in) {
      if (in.op != ir::Op::Call || evaluated || !to_step[f_.block_of(j).v]) return PathStep::Pass;
      if (calls_file_function(ctx_, fid_, j) && (call_effects(ctx_, fid_, j) & dataflow::kEval)) {
        evaluated = true;
        return PathStep::Pass;
      }
      if (ctx_.facts.grad_mode(fid_, j) != dataflow::GradMode::Disabled) return PathStep::Pass;
      auto ops = f_.operands(in);
      if (is_model(ops[0]) || is_model(call_receiver(f_, in))) evaluated = true;
      return PathStep::Pass;
    };
    reachable(f_, e, visit);
    return !evaluated;
  }

  bool loop_restores(uint32_t loop) const {
    for (ir::InstId i : loop_insts(ctx_, fid_, loop))
      if (restores_train(i)) return true;
    return false;
  }

  void report(ir::InstId e, ir::InstId s, DiagSink& out) const {
    const ir::Inst& ei = f_.inst(e);
    std::string etext = call_text(ctx_, f_, ei);
    std::string stext = call_text(ctx_, f_, f_.inst(s));
    TorchCall k = torch_call(ctx_, fid_, e);
    std::string model = k == TorchCall::Eval || k == TorchCall::Train
                            ? access_key(ctx_, fid_, call_receiver(f_, ei))
                            : std::string();
    if (model.empty()) model = "model";
    bool direct = k == TorchCall::Eval || k == TorchCall::Train;
    std::string what = direct ? "`" + etext + "` is not undone before the next `" + stext + "`"
                              : "`" + etext + "` leaves the model in eval mode for the next `" +
                                    stext + "`";
    Diagnostic d = make_diagnostic(
        kRule, ei.span,
        what + "; later steps train with dropout off and frozen batch-norm statistics",
        "call `" + model + ".train()` after evaluating, or at the start of every epoch");
    if (!direct) {
      // The chain down to the eval itself: each helper call, then the eval.
      ir::FunctionId g = ctx_.facts.summaries.callee(fid_, e);
      for (int depth = 0; g.valid() && depth <= 3; ++depth) {
        const ir::Function& gf = ctx_.ir.fn(g);
        ir::FunctionId next;
        for (uint32_t j = 0; j < gf.insts.size() && !next.valid(); ++j) {
          const ir::Inst& x = gf.insts[j];
          if (x.op != ir::Op::Call) continue;
          ir::InstId id(j);
          if (torch_call(ctx_, g, id) == TorchCall::Eval) {
            d.notes.push_back({x.span, "the model is put in eval mode here, and not back in train mode"});
            g = ir::FunctionId();
            break;
          }
          if (calls_file_function(ctx_, g, id) && (call_effects_must(ctx_, g, id) & dataflow::kEval)) {
            next = ctx_.facts.summaries.callee(g, id);
            if (next == g) next = ir::FunctionId();
            if (next.valid()) d.notes.push_back({x.span, "which calls `" + call_text(ctx_, gf, x) + "`"});
          }
        }
        if (!g.valid()) break;
        g = next;
      }
    }
    d.notes.push_back({f_.inst(s).span, "the next training step, still in eval mode"});
    out.report(std::move(d));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  std::vector<std::string> trained_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // A finding is an eval (is_eval: an Eval or Train row, or a call of
    // the file whose must-effects include kEval) reaching a step of the
    // same function (is_step): skip functions that cannot have both,
    // before collect_trained builds its keys.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!may_step(fc)) continue;
    if (!fc.has(TorchCall::Eval) && !fc.has(TorchCall::Train) && !fc.may(dataflow::kEval)) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::eval_without_train
