// mode_layers: the model's constructor, its class's methods and the torch
// layers they build, judged by PyTorch's documented train-mode behaviour.
#include "checks/mode_layers.h"

#include "dataflow/project_facts.h"
#include "ir/project.h"

#include <algorithm>
#include <set>
#include <string>

namespace tpf::checks {

namespace {


ModeLayers worst(ModeLayers a, ModeLayers b) {
  if (a == ModeLayers::Some || b == ModeLayers::Some) return ModeLayers::Some;
  if (a == ModeLayers::Unknown || b == ModeLayers::Unknown) return ModeLayers::Unknown;
  return ModeLayers::None;
}

/// The argument is missing or the constant 0 / False: the layer's
/// train-mode behaviour is off (`nn.LSTM(dropout=0)`, InstanceNorm's
/// default `track_running_stats=False`).
bool off(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  if (!v.valid()) return true;
  const ir::ConstValue& c = ctx.facts.res.constant(fid, v);
  return c.is_number() && (c.kind == ir::ConstValue::Kind::Float ? c.d == 0 : c.i == 0);
}

/// A torch name (call_target_name under `torch.`) that a model builds or
/// calls. Train mode differs for dropout (every p > 0), batch norm (batch
/// statistics, running-average updates), instance norm with
/// `track_running_stats=True`, the recurrent and attention layers' dropout
/// argument (PyTorch 2.x docs of each class; Transformer*Layer defaults to
/// dropout=0.1), and the functional forms. Every other torch.nn layer
/// (Linear, Conv*, LayerNorm, GroupNorm, Embedding, activations, pooling)
/// has no mode. Loaded models (torch.hub, torch.load, TorchScript) are not
/// known.
ModeLayers torch_mode(const CheckContext& ctx, ir::FunctionId fid, ir::InstId ci,
                      std::string_view name) {
  if (name.starts_with("torch.hub.") || name.starts_with("torch.jit.") || name == "torch.load")
    return ModeLayers::Unknown;
  std::string_view last = name.substr(name.rfind('.') + 1);
  if (name.starts_with("torch.nn.functional."))
    return last.find("dropout") != std::string_view::npos || last == "batch_norm" ||
                   last == "instance_norm"
               ? ModeLayers::Some
               : ModeLayers::None;
  if (!name.starts_with("torch.nn.") || name.starts_with("torch.nn.init.") ||
      name.starts_with("torch.nn.utils."))
    return ModeLayers::None;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(ci);
  if (last.find("Dropout") != std::string_view::npos || last.find("BatchNorm") != std::string_view::npos ||
      last == "Transformer" || last == "TransformerEncoderLayer" || last == "TransformerDecoderLayer")
    return ModeLayers::Some;
  if (last.find("InstanceNorm") != std::string_view::npos)
    return off(ctx, fid, call_arg(ctx, f, in, 4, "track_running_stats")) ? ModeLayers::None
                                                                          : ModeLayers::Some;
  // RNN(input_size, hidden_size, num_layers, nonlinearity, bias,
  // batch_first, dropout); LSTM and GRU have no nonlinearity.
  if (last == "RNN" || last == "LSTM" || last == "GRU")
    return off(ctx, fid, call_arg(ctx, f, in, last == "RNN" ? 6 : 5, "dropout"))
               ? ModeLayers::None
               : ModeLayers::Some;
  if (last == "MultiheadAttention")
    return off(ctx, fid, call_arg(ctx, f, in, 2, "dropout")) ? ModeLayers::None : ModeLayers::Some;
  return ModeLayers::None;
}

/// Library models documented as shallow embeddings trained by random
/// walks, with no dropout or norm layer (PyTorch Geometric 2.x
/// `torch_geometric.nn.MetaPath2Vec`, `Node2Vec`): eval mode changes
/// nothing in them. Every other library model is Unknown: it may have
/// dropout.
bool no_mode_library_model(std::string_view name) {
  if (!name.starts_with("torch_geometric.")) return false;
  std::string_view last = name.substr(name.rfind('.') + 1);
  return last == "MetaPath2Vec" || last == "Node2Vec";
}

/// PyTorch Geometric's stock GNNs (torch_geometric/nn/models/basic_gnn.py,
/// BasicGNN: `GCN(in_channels, hidden_channels, num_layers, out_channels=None,
/// dropout=0.0, act, act_first, act_kwargs, norm=None, ...)`): dropout is
/// the only train-mode behaviour and norm the only batch norm, both off by
/// default. Other torch_geometric models are not known.
ModeLayers pyg_mode(const CheckContext& ctx, ir::FunctionId fid, ir::InstId ci, std::string_view name) {
  std::string_view last = name.substr(name.rfind('.') + 1);
  static constexpr std::string_view kBasicGnns[] = {"GCN", "GraphSAGE", "GIN", "GAT", "PNA", "EdgeCNN"};
  if (std::find(std::begin(kBasicGnns), std::end(kBasicGnns), last) == std::end(kBasicGnns) ||
      (!name.starts_with("torch_geometric.nn.models.") && name != "torch_geometric.nn." + std::string(last)))
    return ModeLayers::Unknown;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(ci);
  if (has_unpacked_args(f, in)) return ModeLayers::Unknown;
  ir::ValueId norm = call_arg(ctx, f, in, 8, "norm");
  bool no_norm = !norm.valid() || ctx.facts.res.constant(fid, norm).kind == ir::ConstValue::Kind::None;
  return off(ctx, fid, call_arg(ctx, f, in, 4, "dropout")) && no_norm ? ModeLayers::None : ModeLayers::Some;
}

/// A name outside torch, judged by what it says: the last component
/// mentions dropout ("drop": DropPath, drop_block), a norm layer ("norm"
/// not followed by "al": BatchNorm, norm_layer, but not Normalize,
/// normalize or normal_) or starts with "bn". Data transforms
/// (`torchvision.transforms.Normalize`: fixed per-channel arithmetic) say
/// "normal", so they are no norm layer; nor are weight normalization
/// (`layer.remove_weight_norm()`) and gradient norms.
bool names_mode_layer(std::string_view name) {
  std::string t(name.substr(name.rfind('.') + 1));
  std::transform(t.begin(), t.end(), t.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (t.find("drop") != std::string::npos || t.starts_with("bn")) return true;
  // Weight normalization (`remove_weight_norm`, `nn.utils.weight_norm`) is
  // a reparametrization and gradient norms are arithmetic: no mode.
  for (std::string_view plain : {"weight_norm", "grad_norm"})
    for (size_t p = t.find(plain); p != std::string::npos; p = t.find(plain, p))
      t.replace(p, plain.size(), "");
  for (size_t p = t.find("norm"); p != std::string::npos; p = t.find("norm", p + 1))
    if (t.compare(p + 4, 2, "al") != 0) return true;
  return false;
}

/// The layers a file class builds: every call of its methods (and of its
/// local bases', of the file's classes and functions they call), and
/// `self.training` reads. Names outside torch are judged by what they say
/// (names_mode_layer), as are callees the file does not resolve
/// (`norm_layer(dim)`); calls of `self.<attr>` are the attribute's layer,
/// judged where it is built.
class ClassLayers {
 public:
  explicit ClassLayers(const CheckContext& ctx) : ctx_(ctx) {}

  ModeLayers of_class(ir::ClassId c) {
    if (!seen_classes_.insert(c.v).second) return ModeLayers::None;
    const ir::Class& cls = ctx_.ir.classes[c.v];
    ModeLayers out = ModeLayers::None;
    for (ir::ValueId b : cls.bases) {
      const ir::Referent& r = ctx_.facts.res.ref(cls.defined_in, b);
      if (r.kind == ir::Referent::Kind::Class) out = worst(out, of_class(r.cls()));
    }
    for (const auto& [name, fn] : cls.methods) out = worst(out, of_function(fn));
    return out;
  }

 private:
  ModeLayers of_function(ir::FunctionId fid) {
    if (!seen_functions_.insert(fid.v).second) return ModeLayers::None;
    const ir::Function& f = ctx_.ir.fn(fid);
    ModeLayers out = ModeLayers::None;
    for (uint32_t i = 0; i < f.insts.size() && out != ModeLayers::Some; ++i) {
      const ir::Inst& in = f.inst(ir::InstId(i));
      if (in.op == ir::Op::GetAttr && ctx_.ir.names.str(static_cast<ir::Symbol>(in.aux)) == "training") {
        out = ModeLayers::Some;
        continue;
      }
      if (in.op != ir::Op::Call || in.nops == 0) continue;
      ir::CallTarget t = ctx_.facts.res.call_target(fid, ir::InstId(i));
      switch (t.kind) {
        case ir::CallTarget::Kind::Constructor:
          if (t.cls.valid()) out = worst(out, of_class(t.cls));
          break;
        case ir::CallTarget::Kind::Function:
          if (t.fn.valid()) out = worst(out, of_function(t.fn));
          break;
        case ir::CallTarget::Kind::External: {
          std::string_view name = call_target_name(ctx_, fid, ir::InstId(i));
          if (name.starts_with("torch."))
            out = worst(out, torch_mode(ctx_, fid, ir::InstId(i), name));
          else if (names_mode_layer(name))
            out = ModeLayers::Some;
          break;
        }
        case ir::CallTarget::Kind::Unknown: {
          std::string key = access_key(ctx_, fid, f.operands(in)[0]);
          if (!key.empty() && !key.starts_with("self.") && names_mode_layer(key))
            out = ModeLayers::Some;
          break;
        }
        default:
          break;
      }
    }
    return out;
  }

  const CheckContext& ctx_;
  std::set<uint32_t> seen_classes_, seen_functions_;
};

/// The layers of the class whose `forward` is `fwd`, a function of another
/// project module, judged in that module as a file class is; Unknown when
/// its module or facts are not loaded.
ModeLayers foreign_class_layers(const dataflow::ForeignFunction& fwd) {
  const ir::LoadedModule* lm = fwd.module;
  if (!lm || !fwd.facts || !lm->src || !lm->ast || !lm->ir || !fwd.fn.valid()) return ModeLayers::Unknown;
  const ir::Module& m = *lm->ir;
  ir::ClassId owner = m.fn(fwd.fn).owner;
  if (!owner.valid()) return ModeLayers::Unknown;
  CheckContext there{*lm->src, *lm->ast, m, *fwd.facts};
  return ClassLayers(there).of_class(owner);
}

}  // namespace

/// The layers of a list value `v` of function fid that a container is
/// built from by unpacking: a list display (`[conv, norm(64), nn.ReLU()]`),
/// also filled by a comprehension (the lowering appends each element to
/// the list it builds), or each of the lists a condition picks (a path
/// where the name is unbound builds nothing). Unknown
/// for a list that is grown by method calls, handed in or built elsewhere.
static ModeLayers list_layers(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v, int depth) {
  if (depth > 8 || !v.valid()) return ModeLayers::Unknown;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op == ir::Op::Phi) {
    ModeLayers out = ModeLayers::None;
    // An unbound path (`if a: l = [...] elif b: l = [...]`) builds no model.
    for (ir::ValueId o : f.operands(d))
      if (o != v && f.def(o).op != ir::Op::Undef) out = worst(out, list_layers(ctx, fid, o, depth + 1));
    return out;
  }
  if (d.op != ir::Op::BuildList && d.op != ir::Op::BuildTuple) return ModeLayers::Unknown;
  ModeLayers out = ModeLayers::None;
  for (ir::ValueId e : f.operands(d)) out = worst(out, mode_layers(ctx, fid, e, depth + 1));
  for (const ir::Inst& x : f.insts) {
    auto xo = f.operands(x);
    if (x.op == ir::Op::ListAppend && xo.size() == 2 && xo[0] == v)
      out = worst(out, mode_layers(ctx, fid, xo[1], depth + 1));
    else if (x.op == ir::Op::Call && call_receiver(f, x) == v)
      return ModeLayers::Unknown;  // `layers.append(...)`, `.extend(...)`
  }
  return out;
}

ModeLayers mode_layers(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId model, int depth) {
  if (depth > 8 || !model.valid()) return ModeLayers::Unknown;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(model);
  // `model.to(rank)` on a parameter or a phi: the receiver's layers.
  if (d.op == ir::Op::Call) {
    std::string_view m = call_method(ctx, f, d);
    if (m == "to" || m == "cuda" || m == "cpu" || m == "float" || m == "half" || m == "double" || m == "train") {
      ir::ValueId r = call_receiver(f, d);
      if (r.valid() && (f.def(r).op == ir::Op::Param || f.def(r).op == ir::Op::Phi))
        return mode_layers(ctx, fid, r, depth + 1);
    }
  }
  // `model = GAT(...) if args.gat else GCN(...)`: every model it may be.
  if (d.op == ir::Op::Phi) {
    ModeLayers out = ModeLayers::Unknown;
    for (ir::ValueId o : f.operands(d))
      if (o != model) {
        ModeLayers m = mode_layers(ctx, fid, o, depth + 1);
        if (m == ModeLayers::Unknown) return ModeLayers::Unknown;
        out = out == ModeLayers::Unknown ? m : worst(out, m);
      }
    return out;
  }
  // A parameter of the file's function: the models its plain call sites
  // pass (`run_train(rank, data, model, ...)`), Unknown without one.
  if (d.op == ir::Op::Param) {
    ModeLayers out = ModeLayers::Unknown;
    bool all = each_call_of(ctx, fid, [&](ir::FunctionId gid, const ir::Function& g, const ir::Inst& call,
                                          const ir::CallTarget& t) {
      if (t.bound) return true;
      ir::ValueId arg;
      dataflow::bind_call_args(g, call, t, f, [&](size_t p, ir::ValueId v) {
        if (p == d.aux) arg = v;
      });
      ModeLayers m = mode_layers(ctx, gid, arg, depth + 1);
      if (m == ModeLayers::Unknown) return false;
      out = out == ModeLayers::Unknown ? m : worst(out, m);
      return true;
    });
    return all ? out : ModeLayers::Unknown;
  }
  Origin ctor;
  if (module_constructor(ctx, fid, model, ctor)) {
    const ir::Function& g = ctx.ir.fn(ctor.fn);
    ir::InstId ci = g.def_id(ctor.value);
    const ir::Inst& in = g.inst(ci);
    ir::CallTarget t = ctx.facts.res.call_target(ctor.fn, ci);
    std::string_view m = call_method(ctx, g, in);
    if (t.kind == ir::CallTarget::Kind::Constructor && t.cls.valid())
      return ClassLayers(ctx).of_class(t.cls);
    if (t.kind == ir::CallTarget::Kind::Method &&
        (m == "to" || m == "cuda" || m == "cpu" || m == "float" || m == "half" ||
         m == "double" || m == "train"))
      return mode_layers(ctx, ctor.fn, call_receiver(g, in), depth + 1);
    std::string_view name = call_target_name(ctx, ctor.fn, ci);
    // DDP(model), DataParallel, FSDP, torch.compile: the wrapped model's;
    // so are `torch.jit.script(model)` and `torch.jit.trace(model, x)`,
    // which compile the module with its layers and keep its train/eval
    // switch (a ScriptModule's train() recurses into its submodules, PyTorch
    // 2.x torch.jit docs). A loaded TorchScript file stays unknown.
    if (t.kind == ir::CallTarget::Kind::External &&
        (name.starts_with("torch.nn.parallel.") || name == "torch.nn.DataParallel" ||
         name.starts_with("torch.distributed.") || name == "torch.compile" || name == "torch.jit.script" ||
         name == "torch.jit.trace")) {
      auto ops = g.operands(in);
      return ops.size() > 1 ? mode_layers(ctx, ctor.fn, ops[1], depth + 1) : ModeLayers::Unknown;
    }
    // Another project module's nn.Module class: its own code, read in its
    // module (the class of the `forward` the construction reaches).
    if (const dataflow::ForeignFunction* fwd = ctx.facts.summaries.foreign_forward(ctor.fn, ci))
      return foreign_class_layers(*fwd);
    if (t.kind == ir::CallTarget::Kind::External && no_mode_library_model(name)) return ModeLayers::None;
    if (t.kind == ir::CallTarget::Kind::External && name.starts_with("torch_geometric."))
      return pyg_mode(ctx, ctor.fn, ci, name);
    if (t.kind != ir::CallTarget::Kind::External || !name.starts_with("torch.nn."))
      return ModeLayers::Unknown;
    if (name != "torch.nn.Sequential" && name != "torch.nn.ModuleList")
      return torch_mode(ctx, ctor.fn, ci, name);
    // A container: the layers it is built from, each written out, or a
    // starred list of them (`nn.Sequential(*layers)`).
    const ir::CallInfo& info = g.call_info(in);
    if (info.nkw) return ModeLayers::Unknown;
    ModeLayers out = ModeLayers::None;
    auto ops = g.operands(in);
    for (uint32_t a = 1; a <= info.npos && a < ops.size(); ++a) {
      bool star = a - 1 < 32 && ((info.star_mask >> (a - 1)) & 1u);
      out = worst(out, star ? list_layers(ctx, ctor.fn, ops[a], depth + 1)
                            : mode_layers(ctx, ctor.fn, ops[a], depth + 1));
    }
    return out;
  }
  const ir::Referent& r = ctx.facts.res.ref(fid, model);
  if (r.kind == ir::Referent::Kind::Instance) return ClassLayers(ctx).of_class(r.cls());
  return ModeLayers::Unknown;
}

}  // namespace tpf::checks
