// TPF018 validation_in_train_mode
//
// What it finds: an evaluation loop (a model's forward under
//   `torch.no_grad()` / `inference_mode`, no backward, no optimizer step)
//   reachable from a training step of that model without passing
//   `model.eval()`: validation inside the epoch loop with the model still in
//   train mode. Also through a helper: `evaluate(model, loader)` whose body
//   is such a loop and never calls `eval()`, called after training without
//   `model.eval()` at the call site; helpers nested up to 3 deep, the model
//   handed over inside an object (`validate(ctx)` evaluating `ctx.model`),
//   and `model.generate(...)` (Hugging Face generation runs the forward).
// Why it costs: in train mode dropout keeps dropping activations and batch
//   norm normalizes with the validation batch's statistics and updates its
//   running averages with validation data (PyTorch 2.x, nn.Module.train,
//   nn.BatchNorm*). The validation metrics are noisy and pessimistic, so
//   checkpoint selection and early stopping act on wrong numbers, and the
//   batch-norm statistics of the saved model are polluted.
// Example:
//     for epoch in range(epochs):
//         model.train()
//         for x, y in train_loader: ...; optimizer.step()
//         with torch.no_grad():
//             for x, y in val_loader: correct += (model(x).argmax(1) == y).sum()
// Fix: call `model.eval()` before the validation loop (and `model.train()`
//   at the top of each epoch).
// Not flagged: `model.eval()` (or a helper of the file that may call it, or
//   any call handed the model) between the training step and the
//   validation; helpers that call `eval()` themselves; loops with grad
//   enabled (TPF002's case); loops over `range(...)` (RL rollouts,
//   generation); functions no training step leads to (an inference
//   script, MC dropout after an explicit `model.train()`); models the file
//   does not train in that function; models with no layer train mode
//   changes (eval() would change nothing): a torch.nn layer such as
//   `nn.Linear`, a Sequential of such layers, an instance of the file's
//   class whose code builds none (judged by torch names, other names by
//   what they say: a data transform's `Normalize` is no norm layer), also
//   another project module's class, a PyTorch Geometric stock GNN (`GCN`,
//   `GAT`, `GraphSAGE`, ... with the defaults dropout=0.0, norm=None, also
//   compiled by torch.jit.script); a Hugging Face from_pretrained model in a
//   file that never calls train() (loaded in eval mode); the
//   mode set on every member of a container holding the model (a
//   comprehension or loop over it); callees that are no model (another
//   module's function, a star-imported name nothing treats as a model, a
//   loss). Other models (parameters, torchvision, timm) are not looked
//   into: the model must be one the function trains, then evaluates.
#include <algorithm>
#include <set>

#include "checks/facts.h"
#include "checks/mode_layers.h"

namespace tpf::checks::validation_in_train_mode {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF018);

const std::string_view kExplain =
    R"(TPF018 validation_in_train_mode: validation runs with the model in train mode

What it finds
  An evaluation loop (the model's forward under `torch.no_grad()` or
  `torch.inference_mode()`, no backward, no optimizer step) reached from a
  training step of the same model with no `model.eval()` in between, for
  example validation at the end of each epoch. A helper such as
  `evaluate(model, loader)` that runs such a loop and never calls `eval()`
  is reported at its call site when the call follows training without
  `model.eval()`, also when it reaches the loop through other helpers
  (`validate(ctx)` calling `predict(ctx.model, loader)`). A Hugging Face
  `model.generate(...)` over the batches counts as the forward.

Why it costs
  In train mode dropout is still active and batch norm normalizes with each
  validation batch's own statistics, and updates its running averages with
  validation data. Validation loss and accuracy come out noisy and wrong,
  so checkpoint selection, early stopping and hyperparameter searches pick
  on bad numbers (paid for in extra runs), and the saved model carries
  polluted batch-norm statistics.

Example
  for epoch in range(epochs):
      model.train()
      for x, y in train_loader:
          ...
          optimizer.step()
      with torch.no_grad():
          for x, y in val_loader:
              correct += (model(x).argmax(1) == y).sum().item()

Fix
  for epoch in range(epochs):
      model.train()
      for x, y in train_loader:
          ...
      model.eval()
      with torch.no_grad():
          for x, y in val_loader:
              ...

Not flagged
  - `model.eval()` (or `model.train(False)`) between training and
    validation, at the call site or inside the validation helper
  - calls between them that are handed the model or may call eval()
    (a helper of the file, another library's function)
  - loops that record gradients (that is TPF002's finding)
  - loops over `range(...)`: RL rollouts and token-by-token generation
  - models with no layer that train mode changes (train and eval mode
    then compute the same thing): a torch.nn layer such as `nn.Linear`, an
    `nn.Sequential` of such layers, or an instance of the file's own class
    that builds no dropout, batch norm, instance norm with running stats,
    recurrent or attention dropout, and reads no `self.training`
    (`torchvision.transforms.Normalize` in the data pipeline is no norm
    layer), also a class of another module of the project, a PyTorch
    Geometric stock GNN (`GCN`, `GAT`, `GraphSAGE`, `GIN`, `PNA`,
    `EdgeCNN`) with the defaults dropout=0.0 and norm=None, a Sequential
    unpacking lists of such layers (`nn.Sequential(*stem, *blocks)`, also
    filled by a comprehension or picked by a condition), and such a
    model compiled by `torch.jit.script` / `torch.jit.trace`; other models
    from libraries or parameters are not looked into
  - a model (or a pipeline's component, `pipe.unet`) loaded by Hugging
    Face's `from_pretrained` (transformers, diffusers), which leaves it in
    eval mode, in a file that never calls `train()`
  - the mode set on every member of a container that holds the model:
    `[parts[k].eval() for k in parts]`, `for net in parts.values()`,
    `for net in (encoder, decoder)`
  - calls that are no model: a function of another project module or one
    a star import brings, a loss (`stft_loss`, `criterion`)
  - evaluation no training step of the same model leads to (inference
    scripts, Monte Carlo dropout after an explicit `model.train()`)
)";

namespace {

using dataflow::TorchCall;

bool trains(uint32_t effects) {
  return (effects & (dataflow::kBackward | dataflow::kOptimizerStep)) != 0;
}

/// The function treats the object `key` names as a model: it calls
/// `.train()`, `.eval()`, `.parameters()` or `.named_parameters()` on it.
bool treated_as_model(const CheckContext& ctx, ir::FunctionId fid, std::string_view key) {
  if (key.empty()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  for (const ir::Inst& in : f.insts) {
    if (in.op != ir::Op::Call) continue;
    std::string_view m = call_method(ctx, f, in);
    if ((m == "train" || m == "eval" || m == "parameters" || m == "named_parameters") &&
        access_key(ctx, fid, call_receiver(f, in)) == key)
      return true;
  }
  return false;
}

/// Forward calls: calling an object (not a function of the file, not a
/// torch API name), keyed by the object's access key. Calling an attribute
/// (`state.model(x)`, a Method target) counts when the function treats it
/// as a model.
std::string forward_key(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(i);
  if (in.op != ir::Op::Call || in.nops == 0) return {};
  ir::CallTarget t = ctx.facts.res.call_target(fid, i);
  // A function of another project module (`mask_from_lens(...)` imported
  // from the project's utils) is no model.
  if (ctx.facts.summaries.foreign_callee(fid, i)) return {};
  // `model.generate(...)` (Hugging Face generation) runs the model's forward.
  if (t.kind != ir::CallTarget::Kind::Function && call_method(ctx, f, in) == "generate")
    return access_key(ctx, fid, call_receiver(f, in));
  if (t.kind == ir::CallTarget::Kind::InstanceCall) {
    if (!t.cls.valid() || !ctx.facts.res.is_module_class(t.cls)) return {};
  } else if (t.kind == ir::CallTarget::Kind::Method) {
    std::string key = access_key(ctx, fid, f.operands(in)[0]);
    return treated_as_model(ctx, fid, key) ? key : std::string();
  } else if (t.kind != ir::CallTarget::Kind::Unknown && t.kind != ir::CallTarget::Kind::ResultCall) {
    return {};
  }
  TorchCall k = torch_call(ctx, fid, i);
  if (k != TorchCall::None && dataflow::info(k).grad != dataflow::GradRule::Model) return {};
  std::string key = access_key(ctx, fid, f.operands(in)[0]);
  if (key.empty()) return key;
  // A global the file cannot resolve (a function a star import brings) is
  // a model only when something says so: it is built as a module here, or
  // the function treats it as one (`.train()`, `.parameters()`, ...).
  ir::ValueId callee = f.operands(in)[0];
  if (t.kind == ir::CallTarget::Kind::Unknown && f.def(callee).op == ir::Op::LoadGlobal) {
    Origin ctor;
    if (!module_constructor(ctx, fid, callee, ctor) && !treated_as_model(ctx, fid, key)) return {};
  }
  // A loss (`stft_loss`, `criterion`) computes the metric; it is not the
  // model whose mode the evaluation needs.
  std::string last = key.substr(key.rfind('.') + 1);
  std::transform(last.begin(), last.end(), last.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (last.find("loss") != std::string::npos || last.find("criterion") != std::string::npos) return {};
  return key;
}

/// What `key` is called inside file function g that call `c` of fid
/// reaches: the parameter bound to it ("model"), or to the object holding
/// it (`validate(context)` with key "context.model": "context.model" in g,
/// named by g's parameter); "" when no argument carries it.
std::string key_in_callee(const CheckContext& ctx, ir::FunctionId fid, ir::InstId c,
                          const std::string& key, ir::FunctionId g) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Function& gf = ctx.ir.fn(g);
  std::string out;
  dataflow::bind_call_args(f, f.inst(c), ctx.facts.res.call_target(fid, c), gf,
                           [&](size_t p, ir::ValueId v) {
                             if (!out.empty() || !v.valid()) return;
                             std::string k = access_key(ctx, fid, v);
                             std::string param(ctx.ir.names.str(gf.params[p].name));
                             if (k.empty() || param.empty()) return;
                             if (k == key) out = param;
                             else if (key.size() > k.size() && key.starts_with(k) && key[k.size()] == '.')
                               out = param + key.substr(k.size());
                           });
  return out;
}

/// The first forward of `key` in a no-grad evaluation loop of `fid`, or an
/// invalid id: in a loop with no training call, with autograd off; also
/// in the file's helpers it hands the model to (`validate(ctx)` calling
/// `predict(ctx.model, ...)`) that neither train nor change the mode.
/// `where` gets the function of the forward found.
ir::InstId eval_forward(const CheckContext& ctx, ir::FunctionId fid, const std::string& key,
                        ir::FunctionId* where = nullptr, int depth = 0) {
  const ir::Function& f = ctx.ir.fn(fid);
  if (where) *where = fid;
  const ir::LoopInfo& li = loops_of(ctx, fid);
  for (uint32_t l = 0; l < li.loops.size(); ++l) {
    if (f.terminator(li.loops[l].header).op != ir::Op::ForIter) continue;
    // Over data, not over `range(...)`: rollouts of an RL policy and
    // token-by-token generation run in train mode by convention.
    ir::BlockId body = f.block(li.loops[l].header).succ[0];
    if (!body.valid() || f.inst(f.first_inst(body)).op != ir::Op::NextItem) continue;
    ir::ValueId it = loop_iterable(ctx, fid, f.inst(f.first_inst(body)).result);
    if (!it.valid()) continue;
    if (f.def(it).op == ir::Op::Call &&
        call_target_name(ctx, fid, f.def_id(it)) == "builtins.range")
      continue;
    std::vector<ir::InstId> insts = loop_insts(ctx, fid, l);
    bool train = false;
    for (ir::InstId j : insts) train = train || trains(call_effects(ctx, fid, j));
    if (train) continue;
    for (ir::InstId j : insts) {
      if (f.inst(j).op != ir::Op::Call ||
          ctx.facts.grad_mode(fid, j) != dataflow::GradMode::Disabled)
        continue;
      std::string k = forward_key(ctx, fid, j);
      if (!k.empty() && k == key) return j;
    }
  }
  if (depth >= 3 || !where) return {};
  constexpr uint32_t kModes =
      dataflow::kEval | dataflow::kTrain | dataflow::kBackward | dataflow::kOptimizerStep;
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    ir::InstId c(i);
    if (f.insts[i].op != ir::Op::Call || !calls_file_function(ctx, fid, c) ||
        (call_effects(ctx, fid, c) & kModes))
      continue;
    ir::FunctionId g = ctx.facts.summaries.callee(fid, c);
    if (!g.valid() || g == fid) continue;
    std::string k = key_in_callee(ctx, fid, c, key, g);
    if (k.empty()) continue;
    ir::InstId inner = eval_forward(ctx, g, k, where, depth + 1);
    if (inner.valid()) return inner;
  }
  if (where) *where = fid;
  return {};
}

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid) : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {}

  void run(DiagSink& out) {
    std::set<uint32_t> reported;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId s(i);
      std::vector<std::string> models = trained_models(s);
      for (const std::string& m : models) {
        ir::InstId target, inner;
        if (!find_eval(s, m, target, inner) || !reported.insert(target.v).second) continue;
        ir::ValueId mv = model_value(target, inner, m);
        if (without_mode_layers(mv) || loaded_in_eval_mode(mv)) continue;
        report(s, target, inner, m, out);
      }
    }
  }

 private:
  /// The model value at the reported call: the callee of a forward, the
  /// argument named `key` of an evaluation helper call.
  ir::ValueId model_value(ir::InstId target, ir::InstId inner, const std::string& key) const {
    auto ops = f_.operands(f_.inst(target));
    if (!inner.valid()) return ops[0];
    for (size_t a = 1; a < ops.size(); ++a)
      if (access_key(ctx_, fid_, ops[a]) == key) return ops[a];
    return ir::kNoValue;
  }

  /// eval() would change nothing: every layer the evaluated model is known
  /// to build computes the same in train and eval mode.
  bool without_mode_layers(ir::ValueId model) const {
    return model.valid() && mode_layers(ctx_, fid_, model) == ModeLayers::None;
  }

  /// The model, or the pipeline it is a component of (`pipe.unet`), is
  /// loaded by Hugging Face's `from_pretrained` (transformers
  /// PreTrainedModel and diffusers ModelMixin / DiffusionPipeline put the
  /// loaded modules in eval mode: `model.eval()` in from_pretrained,
  /// transformers 4.x, diffusers 0.2x), and nothing in the file calls
  /// `train()`: it never left eval mode.
  bool loaded_in_eval_mode(ir::ValueId model) const {
    ir::FunctionId g = fid_;
    for (int depth = 0; model.valid() && depth < 6; ++depth) {
      const ir::Function& gf = ctx_.ir.fn(g);
      const ir::Inst& d = gf.def(model);
      if (d.op == ir::Op::GetAttr) {
        model = gf.operands(d)[0];
        continue;
      }
      if (d.op != ir::Op::Call) return false;
      std::string_view m = call_method(ctx_, gf, d);
      if (m == "to" || m == "cuda" || m == "half" || m == "float") {
        model = call_receiver(gf, d);
        continue;
      }
      std::string_view n = call_target_name(ctx_, g, gf.def_id(model));
      if (!n.ends_with(".from_pretrained") || !(n.starts_with("diffusers.") || n.starts_with("transformers.")))
        return false;
      for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
        const ir::Function& h = ctx_.ir.fn(ir::FunctionId(fi));
        for (uint32_t j = 0; j < h.insts.size(); ++j)
          if (h.insts[j].op == ir::Op::Call && call_method(ctx_, h, h.insts[j]) == "train") return false;
      }
      return true;
    }
    return false;
  }

  /// The models a training step trains: for a direct `opt.step()` /
  /// `loss.backward()` in a loop, the objects that loop calls with grad
  /// enabled; for a helper of the file that trains (and never evals), the
  /// objects handed to it.
  std::vector<std::string> trained_models(ir::InstId s) const {
    std::vector<std::string> out;
    const ir::Inst& in = f_.inst(s);
    if (in.op != ir::Op::Call) return out;
    uint32_t e = call_effects(ctx_, fid_, s);
    if (!trains(e)) return out;
    if (calls_file_function(ctx_, fid_, s)) {
      if (e & dataflow::kEval) return out;
      auto ops = f_.operands(in);
      for (size_t a = 1; a < ops.size(); ++a) {
        std::string k = access_key(ctx_, fid_, ops[a]);
        if (!k.empty()) out.push_back(k);
      }
      return out;
    }
    uint32_t l = loops_of(ctx_, fid_).loop_of(f_.block_of(s));
    if (l == UINT32_MAX) return out;
    for (ir::InstId j : loop_insts(ctx_, fid_, l)) {
      if (ctx_.facts.grad_mode(fid_, j) != dataflow::GradMode::Enabled) continue;
      std::string k = forward_key(ctx_, fid_, j);
      if (!k.empty() && std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
    }
    return out;
  }

  /// Puts `model` in eval mode, or may: eval/train(False) on it or its
  /// container, a helper of the file that may eval, any other call handed
  /// the model (torch functions excepted).
  bool may_eval(ir::InstId j, const std::string& model) const {
    const ir::Inst& in = f_.inst(j);
    if (in.op != ir::Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, j);
    std::string_view m = call_method(ctx_, f_, in);
    std::string recv = access_key(ctx_, fid_, call_receiver(f_, in));
    if ((k == TorchCall::Eval || k == TorchCall::Train || m == "apply" || m == "eval") &&
        (same_object(recv, model) || may_be_member(call_receiver(f_, in), model)))
      return true;
    if (call_effects(ctx_, fid_, j) & dataflow::kEval) return true;
    std::string_view name = call_target_name(ctx_, fid_, j);
    if (name.starts_with("torch.")) return false;
    auto ops = f_.operands(in);
    for (size_t a = 1; a < ops.size(); ++a)
      if (same_object(access_key(ctx_, fid_, ops[a]), model)) return true;
    return false;
  }

  /// `v` may be `model` as a member of a container: `parts[k]`, the item
  /// of a loop over `parts` or `parts.values()` (a comprehension is such a
  /// loop: `[parts[k].eval() for k in parts]`), or over a list or tuple
  /// that names it (`for net in (enc, dec)`), with `model` the container or
  /// inside it (`parts.encoder`).
  bool may_be_member(ir::ValueId v, const std::string& model) const {
    if (!v.valid()) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op == ir::Op::GetItem) return same_object(access_key(ctx_, fid_, f_.operands(d)[0]), model);
    if (d.op != ir::Op::NextItem) return false;
    ir::ValueId it = loop_iterable(ctx_, fid_, v);
    if (!it.valid()) return false;
    const ir::Inst& src = f_.def(it);
    if (src.op == ir::Op::BuildList || src.op == ir::Op::BuildTuple) {
      for (ir::ValueId e : f_.operands(src))
        if (same_object(access_key(ctx_, fid_, e), model)) return true;
      return false;
    }
    std::string_view m = src.op == ir::Op::Call ? call_method(ctx_, f_, src) : std::string_view();
    if (m == "values" || m == "children" || m == "modules")
      return same_object(access_key(ctx_, fid_, call_receiver(f_, src)), model);
    return same_object(access_key(ctx_, fid_, it), model);
  }

  /// `header` (a ForIter) heads a loop that sets the mode of the members
  /// of a container holding `model` (`[parts[k].eval() for k in parts]`,
  /// `for net in (enc, dec): net.eval()`): the container has members, so
  /// the loop runs and the path through it passes the mode change.
  bool loop_sets_member_mode(ir::InstId header, const std::string& model) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    ir::BlockId hb = f_.block_of(header);
    for (uint32_t l = 0; l < li.loops.size(); ++l) {
      if (li.loops[l].header != hb) continue;
      // The loop is over that container: its item is a member.
      ir::BlockId body = f_.block(hb).succ[0];
      if (!body.valid() || f_.inst(f_.first_inst(body)).op != ir::Op::NextItem ||
          !may_be_member(f_.inst(f_.first_inst(body)).result, model))
        return false;
      for (ir::InstId j : loop_insts(ctx_, fid_, l)) {
        const ir::Inst& in = f_.inst(j);
        if (in.op != ir::Op::Call) continue;
        std::string_view m = call_method(ctx_, f_, in);
        if ((m == "eval" || m == "train") && may_be_member(call_receiver(f_, in), model)) return true;
      }
    }
    return false;
  }

  /// The parameter of `g` that a call's argument `a` (operand index) binds.
  static ir::Symbol param_for(const ir::Function& f, const ir::Inst& call, const ir::Function& g,
                              bool bound, size_t a) {
    const ir::CallInfo& ci = f.call_info(call);
    if (ci.star_mask) return ir::kNoSymbol;
    size_t skip = bound ? 1 : 0;
    if (a >= 1 && a <= ci.npos) {
      size_t p = a - 1 + skip;
      if (p >= g.params.size()) return ir::kNoSymbol;
      ir::ParamKind pk = g.params[p].kind;
      if (pk != ir::ParamKind::PosOnly && pk != ir::ParamKind::Normal) return ir::kNoSymbol;
      return g.params[p].name;
    }
    size_t kw = a - 1 - ci.npos;
    if (kw >= ci.nkw) return ir::kNoSymbol;
    return f.kw_names[ci.kw_first + kw];
  }

  /// A file function call that evaluates `model` in a no-grad loop and
  /// never changes the mode itself: returns its inner forward.
  bool eval_helper(ir::InstId c, const std::string& model, ir::InstId& inner) const {
    const ir::Inst& in = f_.inst(c);
    if (in.op != ir::Op::Call || !calls_file_function(ctx_, fid_, c)) return false;
    uint32_t e = call_effects(ctx_, fid_, c);
    if (e & (dataflow::kEval | dataflow::kTrain | dataflow::kBackward | dataflow::kOptimizerStep))
      return false;
    ir::FunctionId gid = ctx_.facts.summaries.callee(fid_, c);
    if (!gid.valid()) return false;
    const ir::Function& g = ctx_.ir.fn(gid);
    bool bound = ctx_.facts.res.call_target(fid_, c).bound;
    auto ops = f_.operands(in);
    for (size_t a = 1; a < ops.size(); ++a) {
      if (access_key(ctx_, fid_, ops[a]) != model) continue;
      ir::Symbol p = param_for(f_, in, g, bound, a);
      if (p == ir::kNoSymbol) continue;
      inner = eval_forward(ctx_, gid, std::string(ctx_.ir.names.str(p)), &inner_fn_);
      if (inner.valid()) return true;
    }
    // The model inside an object handed over (`validate(context)`, the
    // model being `context.model`), or a helper that does not loop itself.
    std::string k = key_in_callee(ctx_, fid_, c, model, gid);
    if (k.empty()) return false;
    inner = eval_forward(ctx_, gid, k, &inner_fn_);
    return inner.valid();
  }

  /// From training step `s`: a no-grad evaluation of `model` (a forward in
  /// an evaluation loop here, or an evaluation helper call) reachable
  /// without passing anything that may put the model in eval mode.
  bool find_eval(ir::InstId s, const std::string& model, ir::InstId& target,
                 ir::InstId& inner) const {
    ir::InstId direct = eval_forward(ctx_, fid_, model);
    bool found = false;
    reachable(f_, s, [&](ir::InstId j, const ir::Inst& in) {
      if (found) return PathStep::Kill;
      if (in.op == ir::Op::ForIter && loop_sets_member_mode(j, model)) return PathStep::Kill;
      if (in.op != ir::Op::Call) return PathStep::Pass;
      if (j == direct) {
        found = true;
        target = j;
        inner = ir::InstId();
        return PathStep::Kill;
      }
      ir::InstId h;
      if (eval_helper(j, model, h)) {
        found = true;
        target = j;
        inner = h;
        return PathStep::Kill;
      }
      return may_eval(j, model) ? PathStep::Kill : PathStep::Pass;
    });
    return found;
  }

  void report(ir::InstId s, ir::InstId target, ir::InstId inner, const std::string& model,
              DiagSink& out) const {
    const ir::Inst& ti = f_.inst(target);
    std::string tt = call_text(ctx_, f_, ti);
    // A decorated helper's callee is the decorator's result: name the function.
    if (inner.valid())
      tt = std::string(
               ctx_.ir.names.str(ctx_.ir.fn(ctx_.facts.summaries.callee(fid_, target)).name)) +
           "()";
    std::string message =
        inner.valid() ? "`" + tt + "` evaluates `" + model +
                            "` under no_grad while it is still in train "
                            "mode; dropout and batch norm make the validation metrics wrong"
                      : "`" + model +
                            "` runs this no_grad evaluation loop in train mode; dropout and batch "
                            "norm make the validation metrics wrong and batch norm learns from "
                            "validation data";
    Diagnostic d = make_diagnostic(kRule, ti.span, std::move(message),
                                   "call `" + model + ".eval()` before evaluating (and `" + model +
                                       ".train()` before the next training step)");
    d.notes.push_back({f_.inst(s).span, "trained here, in train mode"});
    if (inner.valid()) {
      const ir::Function& g = ctx_.ir.fn(inner_fn_);
      d.notes.push_back({g.inst(inner).span, "the evaluation forward pass"});
    }
    out.report(std::move(d));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  mutable ir::FunctionId inner_fn_;  ///< the function of the last eval_helper's inner forward
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // trained_models is empty unless the call's effects include kBackward
    // or kOptimizerStep: skip functions with no such call.
    if (!function_calls(ctx, ir::FunctionId(fi))
             .may(dataflow::kBackward | dataflow::kOptimizerStep))
      continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::validation_in_train_mode
