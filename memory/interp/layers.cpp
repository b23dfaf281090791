// Built-in torch.nn layers (memory/tables/layers.def): constructors (parameter and
// buffer shapes exactly as torch creates them, so parameter counts are
// exact), forwards through the functional ops of layer_ops.cpp, the
// nn.Module methods scripts call (parameters, to/half, train/eval, apply,
// register_buffer, containers), and the module call that tracks which
// module's forward is running (for the per-layer breakdown).
// requires: layer_ops.cpp. produces: module instances, forward results.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

enum class Layer : uint16_t {
  None,
#define TPF_LAYER(id, name) id,
#include "memory/tables/layers.def"
#undef TPF_LAYER
};

namespace {

constexpr std::string_view kLayerNames[] = {
    "",
#define TPF_LAYER(id, name) name,
#include "memory/tables/layers.def"
#undef TPF_LAYER
};

Layer layer_of(std::string_view qualname) {
  for (std::string_view prefix : {"torch.nn.modules.", "torch.nn."}) {
    if (!qualname.starts_with(prefix)) continue;
    std::string_view rest = qualname.substr(prefix.size());
    size_t dot = rest.rfind('.');
    if (dot != std::string_view::npos) rest = rest.substr(dot + 1);
    for (size_t k = 1; k < std::size(kLayerNames); ++k)
      if (kLayerNames[k] == rest) return static_cast<Layer>(k);
  }
  return Layer::None;
}

bool is_container(Layer l) { return l >= Layer::Sequential; }

Value arg(Interp& in, const Args& a, size_t i, std::string_view name, Value def = Value::none()) {
  return a.get(in, i, name).value_or(def);
}

void set(Interp& in, Value self, std::string_view name, Value v) {
  in.o(self).attrs.set(in.intern(name), v);
}

Dtype param_dtype(Interp& in, const Args& a) {
  if (auto d = dtype_arg(in, a, "dtype")) return *d;
  // Parameters made under torch.set_default_dtype: the weights' precision.
  if (in.default_float != Dtype::Float32 && in.cfg.param_dtype == Dtype::Float32 &&
      in.cfg.param_dtype_origin.source.empty()) {
    in.cfg.param_dtype = in.default_float;
    in.cfg.param_dtype_origin = {in.default_float_line, in.default_float_how};
  }
  return in.default_float;
}

void add_param(Interp& in, Value self, std::string_view name, std::vector<DimId> shape, Dtype dt) {
  Value p = in.new_tensor(std::move(shape), dt, Role::Param);
  in.tensor(p)->requires_grad = true;
  set(in, self, name, p);
}

void add_buffer(Interp& in, Value self, std::string_view name, std::vector<DimId> shape, Dtype dt) {
  set(in, self, name, in.new_tensor(std::move(shape), dt, Role::Buffer));
}

DimId dim_of(Interp& in, Value v, int64_t def) {
  if (v.kind == VKind::Int) return v.dim();
  std::optional<int64_t> k = in.as_int(v);
  if (!k) in.note_unsized("a layer size");
  return in.dims.constant(k.value_or(def));
}

std::vector<DimId> kernel(Interp& in, Value v, size_t n) {
  std::vector<DimId> out;
  if (auto* s = in.seq(v)) {
    for (Value x : *s) out.push_back(dim_of(in, x, 1));
  } else {
    out.assign(n, dim_of(in, v, 1));
  }
  while (out.size() < n) out.push_back(out.back());
  return out;
}

bool flag(Interp& in, const Args& a, size_t i, std::string_view name, bool def) {
  auto v = a.get(in, i, name);
  return v ? in.truth(*v).value_or(def) : def;
}

/// The padding layers: sides as F.pad takes them (2 for 1-d, 4 for 2-d);
/// 0 for any other layer.
int pad_sides(Layer L) {
  switch (L) {
    case Layer::ReflectionPad1d:
    case Layer::ReplicationPad1d:
    case Layer::ConstantPad1d: return 2;
    case Layer::ReflectionPad2d:
    case Layer::ReplicationPad2d:
    case Layer::ZeroPad2d:
    case Layer::ConstantPad2d: return 4;
    default: return 0;
  }
}

void init_layer(Interp& in, Value self, Layer L, Args& a) {
  Dtype dt = param_dtype(in, a);
  Obj& ob = in.o(self);
  ob.layer = static_cast<uint16_t>(L);
  ob.flags |= kIsModule | kTraining;
  if (ob.type == kNone32) ob.type = in.intern(std::string("torch.nn.") + std::string(kLayerNames[static_cast<size_t>(L)]));
  if (int sides = pad_sides(L)) {
    // padding: an int (every side) or the sides as F.pad takes them.
    Value p = arg(in, a, 0, "padding");
    if (p.kind == VKind::Int) p = in.make_list(std::vector<Value>(static_cast<size_t>(sides), p), OKind::Tuple);
    set(in, self, "padding", p);
    return;
  }
  auto& D = in.dims;
  switch (L) {
    case Layer::Linear: {
      Value i = arg(in, a, 0, "in_features"), o = arg(in, a, 1, "out_features");
      set(in, self, "in_features", i);
      set(in, self, "out_features", o);
      add_param(in, self, "weight", {dim_of(in, o, 0), dim_of(in, i, 0)}, dt);
      if (flag(in, a, 2, "bias", true)) add_param(in, self, "bias", {dim_of(in, o, 0)}, dt);
      else set(in, self, "bias", Value::none());
      return;
    }
    case Layer::Conv1d:
    case Layer::Conv2d:
    case Layer::Conv3d:
    case Layer::ConvTranspose1d:
    case Layer::ConvTranspose2d:
    case Layer::ConvTranspose3d: {
      bool tr = L >= Layer::ConvTranspose1d;
      size_t n = static_cast<size_t>(L) - static_cast<size_t>(tr ? Layer::ConvTranspose1d : Layer::Conv1d) + 1;
      Value i = arg(in, a, 0, "in_channels"), o = arg(in, a, 1, "out_channels");
      std::vector<DimId> k = kernel(in, arg(in, a, 2, "kernel_size"), n);
      Value stride = arg(in, a, 3, "stride", in.int_value(1));
      Value pad = arg(in, a, 4, "padding", in.int_value(0));
      Value opad = tr ? arg(in, a, 5, "output_padding", in.int_value(0)) : in.int_value(0);
      int64_t groups = in.as_int(arg(in, a, tr ? 6 : 6, "groups", in.int_value(1))).value_or(1);
      bool bias = flag(in, a, tr ? 7 : 7, "bias", true);
      Value dil = arg(in, a, tr ? 8 : 5, "dilation", in.int_value(1));
      set(in, self, "in_channels", i);
      set(in, self, "out_channels", o);
      set(in, self, "kernel_size", in.make_list({}, OKind::Tuple));
      for (DimId x : k) in.o(in.o(self).attrs.find(in.intern("kernel_size"))->a).items.push_back(Value::integer(x));
      set(in, self, "stride", stride);
      set(in, self, "padding", pad);
      set(in, self, "output_padding", opad);
      set(in, self, "dilation", dil);
      set(in, self, "groups", in.int_value(groups));
      DimId ci = dim_of(in, i, 0), co = dim_of(in, o, 0);
      std::vector<DimId> w = tr ? std::vector<DimId>{ci, D.floordiv(co, D.constant(groups))}
                                : std::vector<DimId>{co, D.floordiv(ci, D.constant(groups))};
      w.insert(w.end(), k.begin(), k.end());
      add_param(in, self, "weight", w, dt);
      if (bias) add_param(in, self, "bias", {co}, dt);
      else set(in, self, "bias", Value::none());
      return;
    }
    case Layer::BatchNorm1d:
    case Layer::BatchNorm2d:
    case Layer::BatchNorm3d:
    case Layer::SyncBatchNorm:
    case Layer::InstanceNorm2d: {
      Value c = arg(in, a, 0, "num_features");
      bool inst = L == Layer::InstanceNorm2d;
      bool affine = flag(in, a, 3, "affine", !inst);
      bool track = flag(in, a, 4, "track_running_stats", !inst);
      set(in, self, "num_features", c);
      set(in, self, "eps", arg(in, a, 1, "eps", Value::real(1e-5)));
      DimId C = dim_of(in, c, 0);
      if (affine) {
        add_param(in, self, "weight", {C}, dt);
        add_param(in, self, "bias", {C}, dt);
      } else {
        set(in, self, "weight", Value::none());
        set(in, self, "bias", Value::none());
      }
      if (track) {
        add_buffer(in, self, "running_mean", {C}, dt);
        add_buffer(in, self, "running_var", {C}, dt);
        add_buffer(in, self, "num_batches_tracked", {}, Dtype::Int64);
      }
      return;
    }
    case Layer::LayerNorm:
    case Layer::RMSNorm: {
      Value ns = arg(in, a, 0, "normalized_shape");
      std::vector<DimId> shape;
      if (auto* s = in.seq(ns)) for (Value x : *s) shape.push_back(dim_of(in, x, 1));
      else shape.push_back(dim_of(in, ns, 1));
      std::vector<Value> nsv;
      for (DimId d : shape) nsv.push_back(Value::integer(d));
      set(in, self, "normalized_shape", in.make_list(nsv, OKind::Tuple));
      set(in, self, "eps", arg(in, a, 1, "eps", L == Layer::LayerNorm ? Value::real(1e-5) : Value::none()));
      if (flag(in, a, 2, "elementwise_affine", true)) {
        add_param(in, self, "weight", shape, dt);
        if (L == Layer::LayerNorm && flag(in, a, 3, "bias", true)) add_param(in, self, "bias", shape, dt);
        else set(in, self, "bias", Value::none());
      }
      return;
    }
    case Layer::GroupNorm: {
      Value g = arg(in, a, 0, "num_groups"), c = arg(in, a, 1, "num_channels");
      set(in, self, "num_groups", g);
      set(in, self, "num_channels", c);
      if (flag(in, a, 3, "affine", true)) {
        add_param(in, self, "weight", {dim_of(in, c, 0)}, dt);
        add_param(in, self, "bias", {dim_of(in, c, 0)}, dt);
      }
      return;
    }
    case Layer::Embedding:
    case Layer::EmbeddingBag: {
      Value n = arg(in, a, 0, "num_embeddings"), d = arg(in, a, 1, "embedding_dim");
      set(in, self, "num_embeddings", n);
      set(in, self, "embedding_dim", d);
      if (L == Layer::EmbeddingBag) set(in, self, "mode", arg(in, a, 5, "mode", in.str_value("mean")));
      add_param(in, self, "weight", {dim_of(in, n, 0), dim_of(in, d, 0)}, dt);
      return;
    }
    case Layer::Dropout:
    case Layer::Dropout1d:
    case Layer::Dropout2d:
    case Layer::Dropout3d:
    case Layer::AlphaDropout:
      set(in, self, "p", arg(in, a, 0, "p", Value::real(0.5)));
      set(in, self, "inplace", arg(in, a, 1, "inplace", Value::boolean(false)));
      return;
    case Layer::ReLU:
    case Layer::ReLU6:
    case Layer::SiLU:
    case Layer::Hardswish:
    case Layer::Hardsigmoid:
      set(in, self, "inplace", arg(in, a, 0, "inplace", Value::boolean(false)));
      return;
    case Layer::LeakyReLU:
    case Layer::ELU:
      set(in, self, "inplace", arg(in, a, 1, "inplace", Value::boolean(false)));
      return;
    case Layer::PReLU:
      add_param(in, self, "weight", {dim_of(in, arg(in, a, 0, "num_parameters", in.int_value(1)), 1)}, dt);
      return;
    case Layer::Softmax:
    case Layer::LogSoftmax:
      set(in, self, "dim", arg(in, a, 0, "dim"));
      return;
    case Layer::Flatten:
      set(in, self, "start_dim", arg(in, a, 0, "start_dim", in.int_value(1)));
      set(in, self, "end_dim", arg(in, a, 1, "end_dim", in.int_value(-1)));
      return;
    case Layer::Unflatten:
      set(in, self, "dim", arg(in, a, 0, "dim"));
      set(in, self, "unflattened_size", arg(in, a, 1, "unflattened_size"));
      return;
    case Layer::MaxPool1d:
    case Layer::MaxPool2d:
    case Layer::AvgPool1d:
    case Layer::AvgPool2d: {
      bool mx = L == Layer::MaxPool1d || L == Layer::MaxPool2d;
      set(in, self, "kernel_size", arg(in, a, 0, "kernel_size"));
      set(in, self, "stride", arg(in, a, 1, "stride"));
      set(in, self, "padding", arg(in, a, 2, "padding", in.int_value(0)));
      set(in, self, "dilation", mx ? arg(in, a, 3, "dilation", in.int_value(1)) : in.int_value(1));
      set(in, self, "ceil_mode", arg(in, a, mx ? 5 : 3, "ceil_mode", Value::boolean(false)));
      return;
    }
    case Layer::AdaptiveAvgPool1d:
    case Layer::AdaptiveAvgPool2d:
    case Layer::AdaptiveMaxPool2d:
      set(in, self, "output_size", arg(in, a, 0, "output_size"));
      return;
    case Layer::Upsample:
      set(in, self, "size", arg(in, a, 0, "size"));
      set(in, self, "scale_factor", arg(in, a, 1, "scale_factor"));
      return;
    case Layer::PixelShuffle: set(in, self, "upscale_factor", arg(in, a, 0, "upscale_factor")); return;

    case Layer::CrossEntropyLoss:
    case Layer::NLLLoss:
    case Layer::MSELoss:
    case Layer::L1Loss:
    case Layer::SmoothL1Loss:
    case Layer::HuberLoss:
    case Layer::BCELoss:
    case Layer::BCEWithLogitsLoss:
    case Layer::KLDivLoss:
      set(in, self, "reduction", a.kwarg(in, "reduction").value_or(in.str_value("mean")));
      return;
    case Layer::Sequential: {
      if (a.pos.size() == 1 && in.is_obj(a.pos[0], OKind::Dict)) {
        std::vector<Value> items = in.o(a.pos[0]).items;
        for (size_t k = 0; k + 1 < items.size(); k += 2)
          if (auto s = in.as_str(items[k])) set(in, self, *s, items[k + 1]);
        return;
      }
      append_children(in, self, a.pos);
      return;
    }
    case Layer::ModuleList:
    case Layer::ParameterList: {
      if (!a.pos.empty())
        if (auto items = in.iterate(a.pos[0]))
          append_children(in, self, *items);
      return;
    }
    case Layer::ModuleDict:
    case Layer::ParameterDict: {
      if (!a.pos.empty() && in.is_obj(a.pos[0], OKind::Dict)) {
        std::vector<Value> items = in.o(a.pos[0]).items;
        for (size_t k = 0; k + 1 < items.size(); k += 2)
          if (auto s = in.as_str(items[k])) set(in, self, *s, items[k + 1]);
      }
      return;
    }
    default: return;
  }
}

}  // namespace

Value construct_zoo(Interp& in, StrId qualname, Args& a, bool& handled, Value self);
Value construct_training(Interp& in, StrId qualname, Args& a, bool& handled);

Value construct_external(Interp& in, StrId qualname, Args& a, bool& handled, Value self) {
  handled = true;
  Layer L = layer_of(in.str(qualname));
  if (L != Layer::None) {
    if (!self.known()) {
      ObjId io = in.alloc(OKind::Instance);
      in.o(io).line = in.user_line();  // where the report says the model was built
      self = Value::obj(io);
    }
    init_layer(in, self, L, a);
    return self;
  }
  if (self.known() && (in.str(qualname) == "torch.nn.Module" || in.str(qualname).ends_with("LightningModule")))
    return self;
  Value r = construct_zoo(in, qualname, a, handled, self);
  if (handled) return r;
  if (self.known()) {
    handled = false;
    return Value::unknown();
  }
  return construct_training(in, qualname, a, handled);
}

bool is_layer(const Obj& ob) { return ob.layer != 0; }
bool is_container_obj(const Obj& ob) { return ob.layer != 0 && is_container(static_cast<Layer>(ob.layer)); }
std::string_view layer_name(uint16_t l) { return kLayerNames[l]; }

// ----------------------------------------------------------------- forward

Value f_linear(Interp&, Args&);
Value f_conv1d(Interp&, Args&);
Value f_conv2d(Interp&, Args&);
Value f_conv3d(Interp&, Args&);
Value f_convt1d(Interp&, Args&);
Value f_convt2d(Interp&, Args&);
Value f_convt3d(Interp&, Args&);
Value f_batch_norm(Interp&, Args&);
Value f_layer_norm(Interp&, Args&);
Value f_group_norm(Interp&, Args&);
Value f_embedding(Interp&, Args&);
Value f_embedding_bag(Interp&, Args&);
Value f_dropout(Interp&, Args&);
Value f_dropout2d(Interp&, Args&);
Value f_max_pool1d(Interp&, Args&);
Value f_max_pool2d(Interp&, Args&);
Value f_avg_pool1d(Interp&, Args&);
Value f_avg_pool2d(Interp&, Args&);
Value f_adaptive_avg1d(Interp&, Args&);
Value f_adaptive_avg2d(Interp&, Args&);
Value f_adaptive_max2d(Interp&, Args&);
Value f_interpolate(Interp&, Args&);
Value f_pad(Interp&, Args&);
Value f_pixel_shuffle(Interp&, Args&);
Value f_cross_entropy(Interp&, Args&);
Value f_nll_loss(Interp&, Args&);
Value f_pointwise_loss(Interp&, Args&);

Value layer_forward(Interp& in, Value m, Args& call) {
  Obj& ob = in.o(m);
  Layer L = static_cast<Layer>(ob.layer);
  auto at = [&](std::string_view n) {
    const Value* v = in.o(m).attrs.find(in.intern(n));
    return v ? *v : Value::none();
  };
  Value x = call.pos.empty() ? Value::unknown() : call.pos[0];
  bool training = (in.o(m).flags & kTraining) != 0;
  auto fn = [&](Handler h, std::vector<Value> pos, std::vector<std::pair<StrId, Value>> kw = {}) {
    Args a{std::move(pos), std::move(kw), call.span};
    return h(in, a);
  };
  auto kw = [&](std::string_view k, Value v) { return std::pair<StrId, Value>(in.intern(k), v); };
  auto method = [&](const char* name, std::vector<Value> pos) {
    // Tensor methods take a tensor receiver; an input the interpreter
    // could not follow (unknown) gives an unknown output.
    if (pos.empty() || !in.tensor(pos[0])) return Value::unknown();
    Handler h = in.builtin.method(name);
    Args a{std::move(pos), {}, call.span};
    return h ? h(in, a) : Value::unknown();
  };
  if (pad_sides(L)) return fn(f_pad, {x, at("padding")});
  switch (L) {
    case Layer::Linear: return fn(f_linear, {x, at("weight"), at("bias")});
    case Layer::Conv1d:
    case Layer::Conv2d:
    case Layer::Conv3d: {
      Handler h = L == Layer::Conv1d ? f_conv1d : L == Layer::Conv2d ? f_conv2d : f_conv3d;
      return fn(h, {x, at("weight"), at("bias"), at("stride"), at("padding"), at("dilation"), at("groups")});
    }
    case Layer::ConvTranspose1d:
    case Layer::ConvTranspose2d:
    case Layer::ConvTranspose3d: {
      Handler h = L == Layer::ConvTranspose1d ? f_convt1d : L == Layer::ConvTranspose2d ? f_convt2d : f_convt3d;
      return fn(h, {x, at("weight"), at("bias"), at("stride"), at("padding"), at("output_padding"),
                    at("groups"), at("dilation")});
    }
    case Layer::BatchNorm1d:
    case Layer::BatchNorm2d:
    case Layer::BatchNorm3d:
    case Layer::SyncBatchNorm:
    case Layer::InstanceNorm2d:
      return fn(f_batch_norm, {x, at("running_mean"), at("running_var"), at("weight"), at("bias"),
                               Value::boolean(training || !in.tensor(at("running_mean")))});
    case Layer::LayerNorm:
      return fn(f_layer_norm, {x, at("normalized_shape"), at("weight"), at("bias"), at("eps")});
    case Layer::RMSNorm: {
      // torch 2.4 F.rms_norm: x * rsqrt(mean(x^2, -1) + eps) * weight.
      Value sq = method("pow", {x, in.int_value(2)});
      Value ms = method("mean", {sq, in.int_value(-1), Value::boolean(true)});
      Value r = method("rsqrt", {in.binop(ast::Op::Add, ms, Value::real(1e-6), false)});
      Value y = in.binop(ast::Op::Mult, x, r, false);
      return in.tensor(at("weight")) ? in.binop(ast::Op::Mult, y, at("weight"), false) : y;
    }
    case Layer::GroupNorm: return fn(f_group_norm, {x, at("num_groups"), at("weight"), at("bias")});
    case Layer::Embedding: return fn(f_embedding, {x, at("weight")});
    case Layer::EmbeddingBag: return fn(f_embedding_bag, {x, at("weight")});
    case Layer::Dropout:
    case Layer::AlphaDropout:
      return fn(f_dropout, {x, at("p"), Value::boolean(training), at("inplace")});
    case Layer::Dropout1d:
    case Layer::Dropout2d:
    case Layer::Dropout3d:
      return fn(f_dropout2d, {x, at("p"), Value::boolean(training), at("inplace")});
    case Layer::ReLU: return fn(in.builtin.function("torch.nn.functional.relu"), {x, at("inplace")});
    case Layer::ReLU6: return fn(in.builtin.function("torch.nn.functional.relu6"), {x, at("inplace")});
    case Layer::LeakyReLU:
    case Layer::ELU:
      return fn(in.builtin.function("torch.nn.functional.leaky_relu"), {x}, {kw("inplace", at("inplace"))});
    case Layer::GELU: return fn(in.builtin.function("torch.nn.functional.gelu"), {x});
    case Layer::SiLU: return fn(in.builtin.function("torch.nn.functional.silu"), {x, at("inplace")});
    case Layer::Tanh: return method("tanh", {x});
    case Layer::Sigmoid: return method("sigmoid", {x});
    case Layer::Softplus: return fn(in.builtin.function("torch.nn.functional.softplus"), {x});
    case Layer::Mish: return fn(in.builtin.function("torch.nn.functional.mish"), {x});
    case Layer::Hardswish:
    case Layer::Hardsigmoid: return fn(in.builtin.function("torch.nn.functional.hardswish"), {x, at("inplace")});
    case Layer::PReLU: return fn(in.builtin.function("torch.nn.functional.hardswish"), {x});
    case Layer::Softmax: return method("softmax", {x, at("dim")});
    case Layer::LogSoftmax: return method("log_softmax", {x, at("dim")});
    case Layer::Identity: return x;
    case Layer::Flatten: return method("flatten", {x, at("start_dim"), at("end_dim")});
    case Layer::Unflatten: return method("unflatten", {x, at("dim"), at("unflattened_size")});
    case Layer::MaxPool1d:
    case Layer::MaxPool2d:
      return fn(L == Layer::MaxPool1d ? f_max_pool1d : f_max_pool2d,
                {x, at("kernel_size"), at("stride"), at("padding"), at("dilation"), at("ceil_mode")});
    case Layer::AvgPool1d:
    case Layer::AvgPool2d:
      return fn(L == Layer::AvgPool1d ? f_avg_pool1d : f_avg_pool2d,
                {x, at("kernel_size"), at("stride"), at("padding"), at("ceil_mode")});
    case Layer::AdaptiveAvgPool1d: return fn(f_adaptive_avg1d, {x, at("output_size")});
    case Layer::AdaptiveAvgPool2d: return fn(f_adaptive_avg2d, {x, at("output_size")});
    case Layer::AdaptiveMaxPool2d: return fn(f_adaptive_max2d, {x, at("output_size")});
    case Layer::Upsample: return fn(f_interpolate, {x, at("size"), at("scale_factor")});
    case Layer::PixelShuffle: return fn(f_pixel_shuffle, {x, at("upscale_factor")});

    case Layer::CrossEntropyLoss: return fn(f_cross_entropy, call.pos, call.kw);
    case Layer::NLLLoss: return fn(f_nll_loss, call.pos, call.kw);
    case Layer::MSELoss:
    case Layer::L1Loss:
    case Layer::SmoothL1Loss:
    case Layer::HuberLoss:
    case Layer::BCELoss:
    case Layer::BCEWithLogitsLoss:
    case Layer::KLDivLoss:
      return fn(f_pointwise_loss, call.pos, {kw("reduction", at("reduction"))});
    case Layer::Sequential: {
      Value cur = x;
      std::vector<Value> children;
      for (auto& [k, v] : in.o(m).attrs.items)
        if (in.is_module(v)) children.push_back(v);
      for (Value c : children) {
        Args a{{cur}, {}, call.span};
        cur = in.call(c, a);
      }
      return cur;
    }
    default: return Value::unknown();
  }
}

}  // namespace tpf::memory
