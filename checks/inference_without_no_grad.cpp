// TPF002 inference_without_no_grad
//
// What it finds: a `for` loop over a data loader (a
//   `torch.utils.data.DataLoader`, or any iterable whose items the loop
//   moves to a device, or a loop pulling batches by hand with `next()` from
//   a loader's iterator) that runs a model's forward pass with autograd
//   recording, when nothing in the loop trains (no backward, no optimizer
//   step, no `requires_grad_`, no call handed the optimizer) and no backward
//   is reachable from the forward in the same iteration of the enclosing
//   loops or after the loop. Decided by behaviour, not names: a "model" is a
//   torch_calls.def Model row, an instance of the file's nn.Module classes,
//   or an object the function calls `.eval()` / `.train()` /
//   `.parameters()` on.
// Why it costs: with grad mode on, every forward records a graph and keeps
//   the activations autograd would need (PyTorch 2.x, torch.no_grad docs:
//   "reduces memory consumption for computations that would otherwise have
//   requires_grad=True"); evaluation needs several times the memory and runs
//   slower.
// Example:
//     model.eval()
//     for x, y in val_loader:
//         correct += (model(x).argmax(1) == y).sum().item()
// Fix: `with torch.inference_mode():` around the loop, or `@torch.no_grad()`.
// Not flagged: grad mode off by a `with`, a decorator or every in-file caller;
//   loops that differentiate on purpose (adversarial examples, input
//   optimization); functions no code of the file calls (another file may
//   call them under no_grad); methods of nn.Module classes; loops whose
//   outputs leave the function (returned, stored on an object, handed to a
//   helper of the project that trains or stores what it is given): a
//   caller may backward through them; torch.nn layers without parameters;
//   loops that call `train()` every iteration; forwards of
//   `Variable(x, volatile=True)` inputs when the project declares torch 0.3
//   or older (CheckContext::torch: a pin, the README, --torch-version).
#include <algorithm>
#include <bitset>
#include <set>

#include "checks/facts.h"

namespace tpf::checks::inference_without_no_grad {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF002);

const std::string_view kExplain = R"(TPF002 inference_without_no_grad: forward pass in an inference loop without no_grad or inference_mode

What it finds
  A loop over a data loader that runs the model's forward pass with
  autograd recording, while nothing in it trains: no backward, no optimizer
  step, and no backward reachable after it. Decided by what the code does
  (iterating a loader, no backward), not by the function's name. Batches
  pulled by hand count too (`it = loader.__iter__()`, then `it.next()` or
  `next(it)` in a `for i in range(n)` loop).

Why it costs
  Without no_grad, autograd records every forward: activations are kept
  for a backward that never comes, so evaluation uses several times the
  memory it needs and runs slower.

Example
  model.eval()
  for x, y in val_loader:
      correct += (model(x).argmax(1) == y).sum().item()

Fix
  wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`),
  or decorate the function with `@torch.no_grad()`.

Not flagged
  - forwards under no_grad set by a `with`, a decorator or every caller in
    the file, or by a `with` on the file's own @contextmanager helper that
    yields under no_grad / inference_mode / set_grad_enabled(False)
  - loops that backward on purpose (adversarial attacks, input optimization)
    or hand the optimizer to a helper, and forwards of the file's modules
    that make a leaf requiring grad or differentiate inside themselves
  - functions the file never calls (another file may call them under no_grad)
    and methods of nn.Module classes
  - loops whose outputs are returned or stored on an object (a caller may
    train on them)
  - models whose parameters are all frozen (`p.requires_grad = False` over
    them, `requires_grad_(False)`, `nn.Embedding.from_pretrained(w)`) run
    on a loader's batches: nothing is recorded
  - modules whose own forward computes what it returns with grad mode off
    (`@torch.no_grad()` on `forward`, or `with torch.no_grad():` around its
    body): an EMA teacher, a sampler, a metric network
  - forwards in a comprehension whose result feeds a loss that is
    backpropagated after it
  - a project helper's inference loop handed the averaged copy of a timm
    `ModelEma` (`utils.bn_update(loader, model_ema.ema)`): its `__init__`
    sets `requires_grad_(False)` on every parameter, so nothing records a
    graph
  - forwards of `Variable(x, volatile=True)` inputs when the project
    declares torch 0.3 or older (a requirements pin, the README's
    "PyTorch 0.3.1", --torch-version or [tool.tpf] torch-version): volatile
    turned autograd off there. On 0.4 and later the flag does nothing, and
    the finding says so
  - torch.nn layers without parameters (`nn.CosineSimilarity()`, an
    activation, a pooling): they record a graph only when their input
    carries one, which is its producer's forward
  - loops that put a model in train mode every iteration (`trainer.train()`
    before `trainer(batch)` and `trainer.update()`: a wrapper whose forward
    runs the backward itself)
)";

namespace {

using dataflow::GradMode;
using dataflow::TorchCall;
using ir::BlockId;
using ir::InstId;
using ir::Op;
using ir::ValueId;

/// Source text on one line, at most 48 bytes.
std::string one_line(std::string_view t) {
  std::string out;
  for (char c : t) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
    out += c;
  }
  if (out.size() > 48) {
    size_t cut = 45;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

/// torch.nn layers that hold no parameters (PyTorch 2.x: activations,
/// distances, pooling, reshaping, padding, upsampling, dropout).
bool parameter_free(std::string_view name) {
  if (!name.starts_with("torch.nn.")) return false;
  std::string_view last = name.substr(name.rfind('.') + 1);
  static constexpr std::string_view kExact[] = {
      "CosineSimilarity", "PairwiseDistance", "Softmax", "LogSoftmax", "Softmin", "Softmax2d",
      "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
      "Tanh", "Hardtanh", "Hardswish", "Hardsigmoid", "Hardshrink", "Softshrink", "Softplus",
      "Softsign", "Tanhshrink", "Threshold", "GLU", "LogSigmoid", "Flatten", "Unflatten",
      "Identity", "Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
      "PixelUnshuffle", "ChannelShuffle", "AlphaDropout", "FeatureAlphaDropout"};
  if (std::find(std::begin(kExact), std::end(kExact), last) != std::end(kExact)) return true;
  for (std::string_view p : {"MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "LPPool",
                             "ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad",
                             "Dropout", "MaxUnpool", "FractionalMaxPool"})
    if (last.starts_with(p)) return true;
  return false;
}

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {
    collect_models();
  }

  void run(DiagSink& out) {
    for (uint32_t l = 0; l < li_.loops.size(); ++l) check_loop(l, out);
  }

 private:
  /// Objects this function treats as models by what it does with them:
  /// `m.eval()`, `m.train()`, `m.parameters()`, `m.state_dict()`.
  void collect_models() {
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != Op::Call) continue;
      std::string_view m = call_method(ctx_, f_, in);
      if (m == "zero_grad") {
        std::string key = access_key(ctx_, fid_, call_receiver(f_, in));
        if (!key.empty()) zeroed_.insert(key);
      }
      if (m == "eval" || m == "train" || m == "parameters" || m == "named_parameters" ||
          m == "state_dict") {
        std::string key = access_key(ctx_, fid_, call_receiver(f_, in));
        if (!key.empty()) models_.push_back(key);
      }
    }
  }

  /// A model's forward pass: a torch_calls.def Model row (nn modules,
  /// torchvision/timm/transformers models, the file's nn.Module classes),
  /// or calling an object the function uses as a model.
  bool is_forward(InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (in.op != Op::Call) return false;
    TorchCall k = torch_call(ctx_, fid_, i);
    ir::CallTarget t = ctx_.facts.res.call_target(fid_, i);
    if (t.kind == ir::CallTarget::Kind::InstanceCall && t.cls.valid() &&
        (forward_without_grad(t.cls) || forward_needs_grad(t.cls)))
      return false;
    if (k != TorchCall::None) {
      if (dataflow::info(k).grad != dataflow::GradRule::Model) return false;
      // transformers and friends also build tokenizers and processors,
      // which run no forward pass, and pipelines (`pipeline(...)`,
      // `TextGenerationPipeline(...)`, diffusers' `StableDiffusionPipeline`),
      // which run their model under no_grad / inference_mode themselves.
      std::string_view name = call_target_name(ctx_, fid_, i);
      for (std::string_view no : {"Tokenizer", "Processor", "FeatureExtractor", "pipeline", "Pipeline", "Config"})
        if (name.find(no) != std::string::npos) return false;
      // A torch.nn module without parameters (`nn.CosineSimilarity()`,
      // an activation, a pooling) records a graph only when its input
      // carries one, and that graph is its input's producer's.
      if (k == TorchCall::TorchModule && parameter_free(name)) return false;
      return true;
    }
    if (t.kind == ir::CallTarget::Kind::InstanceCall)
      return t.cls.valid() && ctx_.facts.res.is_module_class(t.cls);
    if (t.kind != ir::CallTarget::Kind::Unknown && t.kind != ir::CallTarget::Kind::ResultCall &&
        t.kind != ir::CallTarget::Kind::Method)
      return false;
    // `self.model(x)` is a Method target too (an attribute of self called):
    // a forward when the function treats `self.model` as a model.
    std::string key = access_key(ctx_, fid_, f_.operands(in)[0]);
    if (key.empty()) return false;
    for (const std::string& m : models_)
      if (m == key) return true;
    return calls_model_part(in);
  }

  /// The class's `forward` computes everything it returns with grad mode
  /// off (`@torch.no_grad()` on it, or a `with torch.no_grad():` around its
  /// body): a sampler, an EMA teacher, a metric network. Calling it records
  /// no graph, whatever the caller's mode.
  bool forward_without_grad(ir::ClassId cls) const {
    ir::Symbol fwd = ctx_.ir.names.find("forward");
    if (fwd == ir::kNoSymbol) return false;
    ir::FunctionId g = ctx_.facts.res.find_method(cls, fwd);
    if (!g.valid()) return false;
    const ir::Function& gf = ctx_.ir.fn(g);
    if (gf.is_generator) return false;
    bool returns = false;
    for (uint32_t i = 0; i < gf.insts.size(); ++i) {
      const ir::Inst& in = gf.insts[i];
      if (in.op != Op::Return) continue;
      auto ops = gf.operands(in);
      if (ops.empty() || !ops[0].valid()) continue;  // `return` / falling off the end: None
      const ir::Inst& d = gf.def(ops[0]);
      if (d.op == Op::Const) continue;
      if (ctx_.facts.grad_mode(g, InstId(i)) != GradMode::Disabled &&
          ctx_.facts.grad_mode(g, gf.def_id(ops[0])) != GradMode::Disabled)
        return false;
      returns = true;
    }
    return returns;
  }

  /// `i` runs inside `with ctx():` (any enclosing `with`) where `ctx` is
  /// the file's own `@contextlib.contextmanager` generator whose every
  /// `yield` runs with grad mode off (`with torch.inference_mode(),
  /// torch.no_grad(): yield`): the `with` body runs under no_grad too.
  bool under_no_grad_manager(InstId i) const {
    ir::BlockId b = f_.block_of(i);
    if (!b.valid()) return false;
    for (uint32_t r = f_.blocks[b.v].with_region; r < f_.withs.size(); r = f_.withs[r].parent) {
      ValueId mgr = f_.withs[r].mgr;
      if (!mgr.valid() || f_.def(mgr).op != Op::Call) continue;
      ir::CallTarget t = ctx_.facts.res.call_target(fid_, f_.def_id(mgr));
      if (t.kind == ir::CallTarget::Kind::Function && t.fn.valid() && no_grad_contextmanager(t.fn)) return true;
    }
    return false;
  }

  /// `g` is decorated `@contextlib.contextmanager` (or the bare imported
  /// `@contextmanager`), is a generator, and grad mode is off at each of
  /// its `yield`s: what its caller's `with` body runs sees no_grad.
  bool no_grad_contextmanager(ir::FunctionId g) const {
    const ir::Function& gf = ctx_.ir.fn(g);
    if (!gf.is_generator || !gf.parent.valid()) return false;
    bool decorated = false;
    for (ValueId d : gf.decorators) {
      if (!d.valid()) continue;
      const ir::Referent& r = ctx_.facts.res.ref(gf.parent, d);
      if (r.kind == ir::Referent::Kind::External &&
          ctx_.ir.names.str(r.path()) == "contextlib.contextmanager")
        decorated = true;
    }
    if (!decorated) return false;
    bool yields = false;
    for (uint32_t k = 0; k < gf.insts.size(); ++k) {
      const ir::Inst& in = gf.insts[k];
      if (in.op != Op::Yield && in.op != Op::YieldFrom) continue;
      if (ctx_.facts.grad_mode(g, InstId(k)) != GradMode::Disabled) return false;
      yields = true;
    }
    return yields;
  }

  /// The class's `forward` differentiates inside itself: it makes a leaf
  /// that requires grad (`x.requires_grad_()`, `torch.zeros(...,
  /// requires_grad=True)`) or calls backward / `torch.autograd.grad` (an
  /// unrolled inner optimization, an SGLD-refined or attacked input). It
  /// needs autograd on; no_grad around the call would break it.
  bool forward_needs_grad(ir::ClassId cls) const {
    ir::Symbol fwd = ctx_.ir.names.find("forward");
    if (fwd == ir::kNoSymbol) return false;
    ir::FunctionId g = ctx_.facts.res.find_method(cls, fwd);
    if (!g.valid()) return false;
    const ir::Function& gf = ctx_.ir.fn(g);
    for (uint32_t k = 0; k < gf.insts.size(); ++k) {
      const ir::Inst& in = gf.insts[k];
      if (in.op != Op::Call) continue;
      if (call_effects(ctx_, g, InstId(k)) & dataflow::kBackward) return true;
      if (torch_call(ctx_, g, InstId(k)) == TorchCall::RequiresGradMethod &&
          dataflow::bool_arg(ctx_.ir, ctx_.facts.res, g, in, 0, "requires_grad") != dataflow::BoolArg::False)
        return true;
      if (dataflow::bool_arg(ctx_.ir, ctx_.facts.res, g, in, -1, "requires_grad") == dataflow::BoolArg::True)
        return true;
    }
    return false;
  }

  /// `model.network(batch)`, `model.module(x)`, `model.backbone(x)`: the
  /// callee is an attribute of a model the function uses (collect_models)
  /// and that attribute is itself an object, not a method: a wrapper's
  /// module (`DistributedDataParallel.module`, `torch.compile`'s
  /// `_orig_mod`, PEFT's `base_model`), a module or DeepSpeed engine the
  /// objects fact puts in it (a field, a part some other code reads
  /// `model.network.x` of), or an attribute this function also reads
  /// attributes of (`model.backbone.eval()`). An attribute only ever
  /// called may be a method (`model.generate(...)`, which HF runs under
  /// no_grad itself): not a forward.
  bool calls_model_part(const ir::Inst& call) const {
    ValueId callee = f_.operands(call)[0];
    const ir::Inst& ga = f_.def(callee);
    if (ga.op != Op::GetAttr || ga.nops == 0) return false;
    ValueId base = f_.operands(ga)[0];
    std::string owner = access_key(ctx_, fid_, base);
    if (owner.empty() || std::find(models_.begin(), models_.end(), owner) == models_.end())
      return false;
    std::string_view attr = ctx_.ir.names.str(ga.aux);
    if (attr == "module" || attr == "_orig_mod" || attr == "base_model") return true;
    const dataflow::Objects& objs = ctx_.facts.objects();
    // A DeepSpeed engine stored there (`model.network, opt, _, _ =
    // deepspeed.initialize(model=model.network, ...)`) runs its module's forward.
    if (objs.may_be(fid_, callee, dataflow::ObjKind::Module) ||
        objs.may_be(fid_, callee, dataflow::ObjKind::Engine))
      return true;
    for (uint32_t o : objs.of(fid_, base))
      for (const dataflow::AbstractObject& p : objs.all())
        if (p.parent == o && p.attr == ga.aux &&
            (p.kind == dataflow::ObjKind::Module || p.kind == dataflow::ObjKind::Engine))
          return true;
    std::string part = owner + "." + std::string(attr);
    for (const ir::Inst& in : f_.insts)
      if (in.op == Op::GetAttr && in.nops > 0 && access_key(ctx_, fid_, f_.operands(in)[0]) == part)
        return true;
    return false;
  }

  /// Some argument is an optimizer: a `torch.optim` object, or something
  /// the function calls `zero_grad()` on.
  bool passes_optimizer(const ir::Inst& call) const {
    auto ops = f_.operands(call);
    for (size_t a = 1; a < ops.size(); ++a) {
      const ir::Referent& r = ctx_.facts.res.ref(fid_, ops[a]);
      if (r.kind == ir::Referent::Kind::Result &&
          ctx_.ir.names.str(r.path()).starts_with("torch.optim."))
        return true;
      std::string key = access_key(ctx_, fid_, ops[a]);
      if (!key.empty() && zeroed_.count(key)) return true;
    }
    return false;
  }

  /// The value the loop iterates, through `enumerate(...)`, `tqdm(...)`,
  /// `iter(...)`, `zip(a, ...)` (its first argument).
  ValueId iterable(uint32_t l) const {
    const ir::Inst& t = f_.terminator(li_.loops[l].header);
    if (t.op != Op::ForIter) return ir::kNoValue;
    const ir::Inst& gi = f_.def(f_.operands(t)[0]);
    if (gi.op != Op::GetIter) return ir::kNoValue;
    ValueId v = f_.operands(gi)[0];
    for (int depth = 0; v.valid() && depth < 4; ++depth) {
      const ir::Inst& d = f_.def(v);
      if (d.op != Op::Call) break;
      std::string_view n = call_target_name(ctx_, fid_, f_.def_id(v));
      if (n == "builtins.enumerate" || n == "builtins.iter" || n == "builtins.zip" ||
          n.starts_with("tqdm") || n.starts_with("rich.progress")) {
        if (positional_count(f_, d) == 0) break;
        v = f_.operands(d)[1];
        continue;
      }
      break;
    }
    return v;
  }

  /// The loop iterates a data loader: the iterable is a
  /// `torch.utils.data.DataLoader`, or the loop moves what it gets to a
  /// device (`x.to(device)`, `batch.cuda()`), as batches from a loader are.
  /// A value is a data loader: a DataLoader object (dataflow/objects.h),
  /// or, handed in, named as one (`self.val_data_loader`).
  bool is_loader(ValueId v) const {
    if (ctx_.facts.objects().may_be(fid_, v, dataflow::ObjKind::Loader)) return true;
    return key_names(ctx_, fid_, v, {"loader", "dataloader"});
  }

  /// The loop pulls its batches by hand from an iterator of a data loader
  /// (`it = loader.__iter__()` or `iter(loader)`, then `batch = it.next()`
  /// or `next(it)` in a `for i in range(n)` loop).
  bool pulls_from_loader(uint32_t l) const {
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op != Op::Call || in.nops == 0) continue;
      ValueId iter;
      std::string_view m = call_method(ctx_, f_, in);
      if ((m == "next" || m == "__next__") && positional_count(f_, in) == 0)
        iter = call_receiver(f_, in);
      else if (positional_count(f_, in) >= 1 && call_target_name(ctx_, fid_, i) == "builtins.next")
        iter = f_.operands(in)[1];
      if (!iter.valid()) continue;
      std::vector<ValueId> defs{iter};
      for (size_t k = 0; k < defs.size() && k < 8; ++k) {
        const ir::Inst& d = f_.def(defs[k]);
        if (d.op == Op::Phi) {
          for (ValueId o : f_.operands(d))
            if (std::find(defs.begin(), defs.end(), o) == defs.end() && f_.def(o).op != Op::Undef)
              defs.push_back(o);
          continue;
        }
        if (d.op != Op::Call) continue;
        InstId di = f_.def_id(defs[k]);
        if (call_method(ctx_, f_, d) == "__iter__" && is_loader(call_receiver(f_, d))) return true;
        if (positional_count(f_, d) == 1 && call_target_name(ctx_, fid_, di) == "builtins.iter" &&
            is_loader(f_.operands(d)[1]))
          return true;
      }
    }
    return false;
  }

  bool iterates_loader(uint32_t l, ValueId it, const std::vector<InstId>& forwards) const {
    if (pulls_from_loader(l)) return true;
    if (it.valid()) {
      const ir::Referent& r = ctx_.facts.res.ref(fid_, it);
      if (r.kind == ir::Referent::Kind::Result &&
          ctx_.ir.names.str(r.path()).starts_with("torch.utils.data."))
        return true;
    }
    // Items of `range(...)` are indices, not batches: what a helper makes
    // of one (`sample_z(fix_class=idx)`) is no batch either.
    bool indices = it.valid() && f_.def(it).op == Op::Call &&
                   call_target_name(ctx_, fid_, f_.def_id(it)) == "builtins.range";
    BlockId body = f_.block(li_.loops[l].header).succ[0];
    if (!body.valid()) return false;
    InstId next = f_.first_inst(body);
    if (f_.inst(next).op != Op::NextItem) return false;
    // The loop's item and the parts it unpacks into.
    std::vector<ValueId> items{f_.inst(next).result};
    for (size_t k = 0; k < items.size() && k < 64; ++k) {
      ValueId v = items[k];
      for (InstId i : loop_insts(ctx_, fid_, l)) {
        const ir::Inst& in = f_.inst(i);
        auto ops = f_.operands(in);
        // GetIter and NextItem: the loop of an inlined comprehension over
        // the batch (`tuple(t.to(device) for t in batch)`).
        if (in.op == Op::Unpack || in.op == Op::Element || in.op == Op::GetItem ||
            in.op == Op::GetIter || in.op == Op::NextItem) {
          if (!ops.empty() && ops[0] == v && in.result.valid()) items.push_back(in.result);
        } else if (in.op == Op::Call) {
          std::string_view m = call_method(ctx_, f_, in);
          if ((m == "to" || m == "cuda") && call_receiver(f_, in) == v) return true;
          // `x = prepare(batch)`, `list(batch)`: what a helper of the file
          // or a container builtin makes of the batch is still the batch.
          if (indices || !in.result.valid() || std::find(ops.begin() + 1, ops.end(), v) == ops.end())
            continue;
          std::string_view n = call_target_name(ctx_, fid_, i);
          if (calls_file_function(ctx_, fid_, i) || n == "builtins.tuple" || n == "builtins.list" ||
              n == "builtins.dict")
            if (std::find(items.begin(), items.end(), in.result) == items.end())
              items.push_back(in.result);
        }
      }
    }
    // Or the batches go straight into the model (`model(**batch)`,
    // `model(images)`), as with Accelerate's prepared loaders that put them
    // on the device themselves.
    for (InstId fw : forwards) {
      auto ops = f_.operands(f_.inst(fw));
      for (size_t a = 1; a < ops.size(); ++a)
        if (std::find(items.begin(), items.end(), ops[a]) != items.end()) return true;
    }
    return false;
  }

  void check_loop(uint32_t l, DiagSink& out) const {
    ValueId it = iterable(l);
    if (!it.valid() && f_.terminator(li_.loops[l].header).op != Op::ForIter) return;
    std::vector<InstId> forwards;
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op != Op::Call) continue;
      uint32_t eff = call_effects(ctx_, fid_, i);
      // A loop that trains or differentiates on purpose (adversarial
      // examples, input optimization) is no inference loop.
      if (eff & (dataflow::kBackward | dataflow::kOptimizerStep)) return;
      TorchCall k = torch_call(ctx_, fid_, i);
      if (k == TorchCall::RequiresGradMethod) return;
      // `trainer.train()` every step: the loop trains, through a wrapper
      // whose forward and update run backward and the step themselves.
      if (k == TorchCall::Train &&
          dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid_, in, 0, "mode") != dataflow::BoolArg::False)
        return;
      // `loss_scaler(loss, optimizer)`, `engine.update(loss, opt)`: a call
      // handed the optimizer trains, whatever it is called.
      if (passes_optimizer(in)) return;
      if (dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid_, in, -1, "requires_grad") ==
          dataflow::BoolArg::True)
        return;
      if (is_forward(i) && ctx_.facts.grad_mode(fid_, i) == GradMode::Enabled && !records_nothing(i) &&
          !under_no_grad_manager(i))
        forwards.push_back(i);
    }
    if (forwards.empty()) return;
    if (!iterates_loader(l, it, forwards)) return;
    InstId fw = forwards.front();
    if (backward_after(l, fw)) return;
    if (outputs_escape(forwards)) return;
    // `Variable(x, volatile=True)` inputs: on torch 0.3 and older the whole
    // forward is volatile (no graph); since 0.4 the flag does nothing.
    bool fw_volatile = volatile_input(fw);
    if (fw_volatile && ctx_.torch && *ctx_.torch < memory::TorchVersion{0, 4} &&
        std::all_of(forwards.begin() + 1, forwards.end(), [&](InstId i) { return volatile_input(i); }))
      return;
    report(l, fw, fw_volatile, out);
  }

  /// A forward handed a `Variable(x, volatile=True)` (any argument, every
  /// origin of it): torch <= 0.3 records no graph for it or anything
  /// computed from it.
  bool volatile_input(InstId i) const {
    auto ops = f_.operands(f_.inst(i));
    for (size_t a = 1; a < ops.size(); ++a) {
      if (!ops[a].valid()) continue;
      Origins o = trace_origins(ctx_, fid_, ops[a]);
      if (!o.complete || o.leaves.empty()) continue;
      bool all = std::all_of(o.leaves.begin(), o.leaves.end(), [&](const Origin& leaf) {
        const ir::Function& g = ctx_.ir.fn(leaf.fn);
        const ir::Inst& d = g.def(leaf.value);
        if (d.op != Op::Call) return false;
        std::string_view t = call_target_name(ctx_, leaf.fn, g.def_id(leaf.value));
        if (t != "torch.autograd.Variable" && t != "torch.autograd.variable.Variable") return false;
        dataflow::BoolArg v = dataflow::bool_arg(ctx_.ir, ctx_.facts.res, leaf.fn, d, -1, "volatile");
        return v == dataflow::BoolArg::True || v == dataflow::BoolArg::Unknown;
      });
      if (all) return true;
    }
    return false;
  }

  /// The forward of a model whose parameters are all frozen
  /// (`p.requires_grad = False` over `model.parameters()`,
  /// `model.requires_grad_(False)`, `nn.Embedding.from_pretrained(w)`) on
  /// inputs that carry no graph: autograd records nothing, so no_grad would
  /// change nothing (a frozen network run over a test set).
  bool records_nothing(InstId i) const {
    const ir::Inst& in = f_.inst(i);
    auto ops = f_.operands(in);
    const dataflow::Objects& objs = ctx_.facts.objects();
    std::span<const uint32_t> os = objs.of(fid_, ops[0]);
    if (os.empty()) return false;
    for (uint32_t o : os)
      if (objs.obj(o).kind != dataflow::ObjKind::Module || !objs.frozen(o)) return false;
    for (size_t a = 1; a < ops.size(); ++a) {
      if (!ops[a].valid()) continue;
      dataflow::GradState g = ctx_.facts.grad_state(fid_, ops[a]);
      if (g != dataflow::GradState::NoGraph && g != dataflow::GradState::Bottom && !loop_item(ops[a]))
        return false;
    }
    return true;
  }

  /// A part of a loop's item, moved or cast (`batch[0].to(device)`): data
  /// a loader yields, which carries no graph.
  bool loop_item(ValueId v) const {
    PartOf p = whole_of(ctx_, f_, v, {"to", "cuda", "float", "half", "long", "contiguous"}, 7);
    return p.whole.valid() && p.steps < 7 && f_.def(p.whole).op == Op::NextItem;
  }

  /// Loop `l` is a comprehension's (`[f(x) for x in xs]`, lowered in
  /// line): its body's first block binds a comprehension's own target.
  bool comprehension_loop(uint32_t l) const {
    BlockId h = li_.loops[l].header;
    BlockId body = f_.blocks[h.v].succ[0];
    if (f_.terminator(h).op != Op::ForIter || !body.valid()) return false;
    for (const ir::Inst& in : f_.insts_of(body))
      if (in.result.valid() && f_.values[in.result.v].var.valid() &&
          f_.vars[f_.values[in.result.v].var.v].kind == ir::VarKind::CompLocal)
        return true;
    return false;
  }

  /// A backward (or optimizer step) reachable from the forward within the
  /// same iteration of the enclosing loops or after the loop: the forward's
  /// graph may be used. Paths back through an enclosing loop's header (the
  /// next epoch's training) do not count.
  bool backward_after(uint32_t l, InstId fw) const {
    std::string model = access_key(ctx_, fid_, f_.operands(f_.inst(fw))[0]);
    // A comprehension around the loop is left through its header: only the
    // headers of statement loops (the epochs) end the search.
    std::vector<BlockId> outer_headers;
    for (uint32_t p = li_.loops[l].parent; p != UINT32_MAX; p = li_.loops[p].parent)
      if (!comprehension_loop(p)) outer_headers.push_back(li_.loops[p].header);
    auto visit = [&](InstId j, const ir::Inst& in) {
      BlockId b = f_.block_of(j);
      if (j == f_.first_inst(b))
        for (BlockId h : outer_headers)
          if (h == b) return PathStep::Kill;
      if (in.op != Op::Call ||
          !(call_effects(ctx_, fid_, j) & (dataflow::kBackward | dataflow::kOptimizerStep)))
        return PathStep::Pass;
      // A helper of the file counts when it is handed the model or an
      // output (`main()` training another model later does not).
      if (!calls_file_function(ctx_, fid_, j)) return PathStep::Target;
      auto ops = f_.operands(in);
      for (size_t a = 1; a < ops.size(); ++a) {
        if (ops[a] == f_.inst(fw).result) return PathStep::Target;
        std::string key = access_key(ctx_, fid_, ops[a]);
        if (!key.empty() && same_object(key, model)) return PathStep::Target;
      }
      ir::CallTarget t = ctx_.facts.res.call_target(fid_, j);
      if (t.bound) return PathStep::Target;
      return PathStep::Pass;
    };
    return !reachable(f_, fw, visit).empty();
  }

  /// A call of a helper of the project that may backward or step, or
  /// stores anything beyond its locals (an attribute, a global, a free
  /// variable, an item or an append to a container it was handed): it may
  /// keep a graph it is handed for a later backward.
  bool helper_keeps(InstId call) const {
    if (call_effects(ctx_, fid_, call) & (dataflow::kBackward | dataflow::kOptimizerStep)) return true;
    if (const dataflow::ForeignFunction* ff = ctx_.facts.summaries.foreign_callee(fid_, call))
      return !ff->module->src || !ff->module->ast || function_keeps(foreign_context(*ff), ff->fn, 0);
    return function_keeps(ctx_, ctx_.facts.summaries.callee(fid_, call), 0);
  }

  /// helper_keeps for function g of context c (the file or another project
  /// module), looking into the project functions it calls (3 levels).
  static bool function_keeps(const CheckContext& c, ir::FunctionId g, int depth) {
    if (!g.valid() || depth > 3) return true;
    const ir::Function& gf = c.ir.fn(g);
    if (gf.is_generator) return true;
    for (uint32_t i = 0; i < gf.insts.size(); ++i) {
      const ir::Inst& in = gf.insts[i];
      if (in.op == Op::SetAttr || in.op == Op::StoreGlobal || in.op == Op::StoreFree) return true;
      if (in.op == Op::SetItem && gf.def(gf.operands(in)[0]).op == Op::Param) return true;
      if (in.op != Op::Call) continue;
      // Appending to a list it was handed or an attribute's (a local list
      // it returns carries on as its result).
      if (call_method(c, gf, in) == "append") {
        ir::ValueId r = call_receiver(gf, in);
        ir::Op rop = r.valid() ? gf.def(r).op : Op::Param;
        if (rop == Op::Param || rop == Op::GetAttr || rop == Op::LoadGlobal || rop == Op::LoadFree)
          return true;
      }
      if (!calls_file_function(c, g, InstId(i))) continue;
      if (call_effects(c, g, InstId(i)) & (dataflow::kBackward | dataflow::kOptimizerStep)) return true;
      ir::FunctionId h = c.facts.summaries.callee(g, InstId(i));
      if (h == g) return true;
      if (h.valid()) {
        if (function_keeps(c, h, depth + 1)) return true;
      } else if (const dataflow::ForeignFunction* ff = c.facts.summaries.foreign_callee(g, InstId(i))) {
        if (!ff->module->src || !ff->module->ast || function_keeps(foreign_context(*ff), ff->fn, depth + 1))
          return true;
      }
    }
    return false;
  }

  /// A forward's result leaves the function (returned, yielded, stored on
  /// an object): a caller may still backward through it.
  bool outputs_escape(const std::vector<InstId>& forwards) const {
    std::vector<uint8_t> in(f_.values.size(), 0);
    std::vector<ValueId> work;
    for (InstId i : forwards) work.push_back(f_.inst(i).result);
    std::vector<std::vector<InstId>> users(f_.values.size());
    for (uint32_t i = 0; i < f_.insts.size(); ++i)
      for (ValueId o : f_.operands(f_.insts[i]))
        if (o.valid()) users[o.v].push_back(InstId(i));
    size_t n = 0;
    while (!work.empty()) {
      ValueId v = work.back();
      work.pop_back();
      if (!v.valid() || in[v.v]) continue;
      in[v.v] = 1;
      if (++n > 1024) return true;
      for (InstId u : users[v.v]) {
        const ir::Inst& ui = f_.inst(u);
        switch (ui.op) {
          case Op::Return:
          case Op::Yield:
          case Op::YieldFrom:
          case Op::StoreGlobal:
          case Op::StoreFree:
          case Op::SetAttr:
            return true;
          case Op::Call:
            // A helper of the file: the graph gets away when it trains or
            // stores what it is given; otherwise what it returns carries on.
            if (calls_file_function(ctx_, fid_, u)) {
              if (helper_keeps(u)) return true;
              // What it returns carries no graph (`.item()` of it): nothing gets through.
              if (ui.result.valid() && ctx_.facts.grad_state(fid_, ui.result) == dataflow::GradState::NoGraph)
                continue;
            }
            if (torch_call(ctx_, fid_, u) != TorchCall::None &&
                dataflow::info(torch_call(ctx_, fid_, u)).grad == dataflow::GradRule::NoGraph)
              continue;  // `.item()`, `.argmax()`: nothing of the graph gets through
            break;
          default:
            break;
        }
        if (ui.result.valid()) work.push_back(ui.result);
        // `preds.append(out)`: the container now holds the graph.
        if (ui.op == Op::Call && call_method(ctx_, f_, ui) == "append") {
          ValueId r = call_receiver(f_, ui);
          if (r.valid()) work.push_back(r);
        }
        // `[model(x) for x in xs]`: the comprehension's list.
        if (ui.op == Op::ListAppend || ui.op == Op::SetAdd || ui.op == Op::MapAdd ||
            ui.op == Op::SetItem)
          work.push_back(f_.operands(ui)[0]);
      }
    }
    return false;
  }

  void report(uint32_t l, InstId fw, bool volatile_in, DiagSink& out) const {
    const ir::Inst& fi = f_.inst(fw);
    std::string ftext = one_line(source_text(ctx_, fi.span));
    // The iterable as written (`enumerate(val_loader)`): a value's own
    // definition may be far away (a phi, a parameter).
    const ir::Inst& t = f_.terminator(li_.loops[l].header);
    std::string over = t.op == Op::ForIter
                           ? one_line(source_text(ctx_, f_.def(f_.operands(t)[0]).span))
                           : std::string();
    std::string loop = over.empty() ? "a loop" : "the loop over `" + over + "`";
    std::string fn = f_.kind == ir::FunctionKind::Function
                         ? std::string(ctx_.ir.names.str(f_.name))
                         : std::string();
    std::string help = "wrap the loop in `with torch.inference_mode():` (or `torch.no_grad()`)";
    if (!fn.empty()) help += ", or decorate `" + fn + "` with `@torch.no_grad()`";
    Diagnostic d = make_diagnostic(
        kRule, fi.span,
        "`" + ftext + "` runs with autograd recording in " + loop +
            ", which never calls backward; every batch keeps activations for a backward that "
            "never comes" +
            (volatile_in ? std::string("; `volatile=True` has had no effect since torch 0.4") : std::string()),
        std::move(help));
    d.notes.push_back({f_.inst(f_.first_inst(li_.loops[l].header)).span, "the inference loop"});
    out.report(std::move(d));
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
  std::vector<std::string> models_;
  std::set<std::string> zeroed_;  // receivers of zero_grad(): optimizers
};

/// Grad mode on entry is known: module code, or a function the file calls
/// (its mode is the join over those callers). A function nobody here calls
/// may run under another file's `torch.no_grad()`.
/// A call of `f` can be a forward (Rule::is_forward): a row whose grad rule
/// is Model; without a row, an instance of the file's nn.Module classes, or
/// an Unknown / ResultCall callee whose key collect_models found, or a
/// part of such a model called (`model.network(batch)`, a Method target);
/// both need a call of a method named eval, train, parameters,
/// named_parameters or state_dict. check_loop reports nothing without a
/// forward, so other functions are skipped before their loops.
bool may_forward(const CheckContext& ctx, ir::FunctionId fid) {
  static const std::bitset<kTorchCallRows> kModelRows = [] {
    std::bitset<kTorchCallRows> rows;
    for (size_t k = 1; k < kTorchCallRows; ++k)
      if (dataflow::info(static_cast<TorchCall>(k)).grad == dataflow::GradRule::Model) rows.set(k);
    return rows;
  }();
  const FunctionCalls& fc = function_calls(ctx, fid);
  if ((fc.rows & kModelRows).any() || fc.module_instance_call) return true;
  const ir::Function& f = ctx.ir.fn(fid);
  for (const ir::Inst& in : f.insts) {
    if (in.op != Op::Call) continue;
    std::string_view m = call_method(ctx, f, in);
    if (m == "eval" || m == "train" || m == "parameters" || m == "named_parameters" ||
        m == "state_dict")
      return true;
  }
  return false;
}

bool entry_known(const CheckContext& ctx, ir::FunctionId f) {
  const ir::Function& fn = ctx.ir.fn(f);
  if (fn.kind == ir::FunctionKind::Module) return true;
  if (fn.kind != ir::FunctionKind::Function) return false;
  // Methods of the file's nn.Module classes run inside someone's forward.
  if (fn.owner.valid() && ctx.facts.res.is_module_class(fn.owner)) return false;
  return ctx.facts.grad().of(f).called;
}

/// `v` is the averaged copy of a timm `ModelEma` / `ModelEmaV2` /
/// `ModelEmaV3` (`model_ema.ema`, `model_ema.module`): their `__init__`
/// calls `requires_grad_(False)` on every parameter of the copy (timm
/// 0.4-1.0, timm/utils/model_ema.py), so a forward of it records no graph
/// for inputs that need no grad.
bool frozen_ema_copy(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  if (!v.valid()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op != ir::Op::GetAttr) return false;
  std::string_view a = ctx.ir.names.str(d.aux);
  if (a != "ema" && a != "module") return false;
  auto ema = [&](ir::ValueId o) {
    const ir::Referent& r = ctx.facts.res.ref(fid, o);
    if (r.kind != ir::Referent::Kind::Result) return false;
    std::string_view p = ctx.ir.names.str(r.path());
    return p.starts_with("timm.utils.") && p.find("ModelEma") != std::string_view::npos;
  };
  ir::ValueId owner = f.operands(d)[0];
  if (ema(owner)) return true;
  // `model_ema = None` ... `if args.model_ema: model_ema = ModelEma(...)`:
  // where the copy is read, it is the EMA (None has no `.ema`).
  const ir::Inst& od = f.def(owner);
  if (od.op != ir::Op::Phi) return false;
  bool any = false;
  for (ir::ValueId o : f.operands(od)) {
    if (ctx.facts.res.constant(fid, o).kind == ir::ConstValue::Kind::None) continue;
    if (!ema(o)) return false;
    any = true;
  }
  return any;
}

}  // namespace

/// Calls, with autograd recording, of another project module's function
/// whose inference loop has no no_grad (a `test()` in utils.py called every
/// epoch): reported at the call, naming the helper, since that module's own
/// analysis cannot know its callers. Only helpers their own module never
/// calls: the others are judged there.
void check_foreign_calls(const CheckContext& ctx, ir::FunctionId fid, DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  if (ctx.facts.summaries.foreign.empty() || ctx.facts.summaries.foreign[fid.v].empty()) return;
  if (!entry_known(ctx, fid)) return;
  for (const dataflow::ForeignCallEdge& e : ctx.facts.summaries.foreign[fid.v]) {
    const dataflow::ForeignFunction& ff = ctx.facts.summaries.foreign_fns[e.index];
    if (!ff.facts || !ff.module || !ff.module->ast) continue;
    if (ctx.facts.grad_mode(fid, e.call) != GradMode::Enabled) continue;
    if (ff.may & (dataflow::kBackward | dataflow::kOptimizerStep)) continue;
    // The model handed over is a frozen EMA copy: nothing records a graph.
    const ir::Inst& call = f.inst(e.call);
    bool frozen = false;
    for (uint32_t a = 1; a < call.nops; ++a) frozen |= frozen_ema_copy(ctx, fid, f.operands(call)[a]);
    if (frozen) continue;
    CheckContext fctx{*ff.module->src, *ff.module->ast, *ff.module->ir, *ff.facts};
    if (!may_forward(fctx, ff.fn) || loops_of(fctx, ff.fn).loops.empty()) continue;
    if (ff.facts->grad().of(ff.fn).called) continue;
    DiagSink found;
    Rule(fctx, ff.fn).run(found);
    if (found.diagnostics().empty()) continue;
    const Diagnostic& inner = found.diagnostics().front();
    LineCol at = ff.module->src->pos(inner.span.begin);
    std::string where = ff.file.substr(ff.file.rfind('/') + 1) + ":" + std::to_string(at.line);
    std::string ctext = one_line(source_text(ctx, f.inst(e.call).span));
    std::string fname = ff.name.substr(ff.name.rfind('.') + 1);
    Diagnostic d = make_diagnostic(
        kRule, f.inst(e.call).span,
        "`" + ctext + "` runs the inference loop of " + ff.name + " (" + where +
            ") with autograd recording; every batch keeps activations for a backward that never comes "
            "(via " + ff.name + " (" + ff.file.substr(ff.file.rfind('/') + 1) + ":" + std::to_string(ff.line) + "))",
        "wrap the call in `with torch.inference_mode():` (or `torch.no_grad()`), or decorate `" + fname +
            "` with `@torch.no_grad()`");
    out.report(std::move(d));
  }
}

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId f(fi);
    check_foreign_calls(ctx, f, out);
    // entry_known reads the provenance (the costliest fact): asked last.
    if (!may_forward(ctx, f) || loops_of(ctx, f).loops.empty() || !entry_known(ctx, f)) continue;
    Rule(ctx, f).run(out);
  }
}

}  // namespace tpf::checks::inference_without_no_grad
