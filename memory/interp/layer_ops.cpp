// torch.nn.functional ops behind the layers: linear, convolutions, norms,
// embeddings, dropout, pooling, losses and scaled-dot-product attention,
// with their output shapes and what autograd saves (torch 1.13
// derivatives.yaml; CUDA kernels unless EstimateOptions::kernels is Cpu):
//   linear/conv: input and weight;  batch_norm: input + save_mean/invstd (C,
//   fp32);  layer_norm: input + mean/rstd per row (fp32 on CUDA, the input
//   dtype on CPU);  embedding: indices;  dropout: a mask (bool on CUDA's
//   fused kernel, input dtype on CPU);  max_pool: input + int64 indices;
//   cross_entropy: log_softmax output, target, a 4-byte total weight;
//   SDPA (flash / memory-efficient, torch >= 2.0): q, k, v, output,
//   logsumexp (B, H, T fp32), never the (T, T) scores.
// requires: tensor_ops.cpp. produces: F.* handlers.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

Value matmul(Interp& in, Value a, Value b);
Value tensor_binop(Interp& in, ast::Op op, Value a, Value b, bool inplace);

namespace {

Value arg(Interp& in, const Args& a, size_t i, std::string_view name) {
  return a.get(in, i, name).value_or(Value::unknown());
}

/// An int or per-dim tuple argument, expanded to `n` values.
std::vector<DimId> tuple_arg(Interp& in, Value v, size_t n, int64_t def) {
  std::vector<DimId> out;
  if (auto* s = in.seq(v)) {
    for (Value x : *s) out.push_back(x.kind == VKind::Int ? x.dim() : in.dims.constant(def));
  } else if (v.kind == VKind::Int) {
    out.assign(n, v.dim());
  }
  if (out.empty()) out.assign(n, in.dims.constant(def));
  while (out.size() < n) out.push_back(out.back());
  return out;
}

/// floor((x + 2p - d(k-1) - 1) / s) + 1, or ceil with ceil_mode.
DimId conv_out(Interp& in, DimId x, DimId k, DimId s, DimId p, DimId d, bool ceil_mode) {
  auto& D = in.dims;
  DimId span = D.add(D.mul(d, D.sub(k, D.constant(1))), D.constant(1));
  DimId num = D.sub(D.add(x, D.mul(p, 2)), span);
  if (ceil_mode) num = D.add(num, D.sub(s, D.constant(1)));
  return D.add(D.floordiv(num, s), D.constant(1));
}

}  // namespace

Value f_linear(Interp& in, Args& a) {
  Value x = autocast_lower(in, arg(in, a, 0, "input"));
  Value w = autocast_lower(in, arg(in, a, 1, "weight"));
  Value b = arg(in, a, 2, "bias");
  if (in.tensor(b)) b = autocast_lower(in, b);
  TensorObj* tx = in.tensor(x);
  TensorObj* tw = in.tensor(w);
  if (!tx || !tw || tx->shape.empty()) return Value::unknown();
  std::vector<DimId> s(tx->shape.begin(), tx->shape.end() - 1);
  s.push_back(tw->shape[0]);
  Value out = in.new_tensor(s, promote(tx->dtype, tw->dtype));
  in.link(out, {x, w, b});
  if (tw->requires_grad) in.save(x, out);
  if (tx->requires_grad) in.save(w, out);
  return out;
}

/// conv{1,2,3}d / conv_transpose{1,2,3}d (spatial = 1, 2, 3).
Value conv_impl(Interp& in, Args& a, size_t spatial, bool transposed) {
  Value x = autocast_lower(in, arg(in, a, 0, "input"));
  Value w = autocast_lower(in, arg(in, a, 1, "weight"));
  Value b = arg(in, a, 2, "bias");
  if (in.tensor(b)) b = autocast_lower(in, b);
  TensorObj* tx = in.tensor(x);
  TensorObj* tw = in.tensor(w);
  if (!tx || !tw || tx->shape.size() < spatial + 1) return Value::unknown();
  bool batched = tx->shape.size() == spatial + 2;
  size_t lead = batched ? 2 : 1;
  std::vector<DimId> stride = tuple_arg(in, arg(in, a, 3, "stride"), spatial, 1);
  Value pv = arg(in, a, 4, "padding");
  std::vector<DimId> dil, pad, outpad;
  int64_t groups = 1;
  if (transposed) {
    outpad = tuple_arg(in, arg(in, a, 5, "output_padding"), spatial, 0);
    groups = in.as_int(arg(in, a, 6, "groups")).value_or(1);
    dil = tuple_arg(in, arg(in, a, 7, "dilation"), spatial, 1);
  } else {
    dil = tuple_arg(in, arg(in, a, 5, "dilation"), spatial, 1);
    groups = in.as_int(arg(in, a, 6, "groups")).value_or(1);
  }
  (void)groups;
  auto ksz = [&](size_t k) { return tw->shape[2 + k]; };
  bool same = false;
  if (auto s = in.as_str(pv)) {
    same = *s == "same";
    pad.assign(spatial, in.dims.constant(0));
  } else {
    pad = tuple_arg(in, pv, spatial, 0);
  }
  std::vector<DimId> shape;
  if (batched) shape.push_back(tx->shape[0]);
  shape.push_back(transposed ? in.dims.mul(tw->shape[1], groups) : tw->shape[0]);
  auto& D = in.dims;
  for (size_t k = 0; k < spatial; ++k) {
    DimId xi = tx->shape[lead + k];
    if (same) {
      shape.push_back(xi);
    } else if (transposed) {
      DimId o = D.add(D.sub(D.mul(D.sub(xi, D.constant(1)), stride[k]), D.mul(pad[k], 2)),
                      D.add(D.mul(dil[k], D.sub(ksz(k), D.constant(1))), D.add(outpad[k], 1)));
      shape.push_back(o);
    } else {
      shape.push_back(conv_out(in, xi, ksz(k), stride[k], pad[k], dil[k], false));
    }
  }
  Value out = in.new_tensor(shape, promote(tx->dtype, tw->dtype));
  in.link(out, {x, w, b});
  in.save(x, out);
  in.save(w, out);
  return out;
}
Value f_conv1d(Interp& in, Args& a) { return conv_impl(in, a, 1, false); }
Value f_conv2d(Interp& in, Args& a) { return conv_impl(in, a, 2, false); }
Value f_conv3d(Interp& in, Args& a) { return conv_impl(in, a, 3, false); }
Value f_convt1d(Interp& in, Args& a) { return conv_impl(in, a, 1, true); }
Value f_convt2d(Interp& in, Args& a) { return conv_impl(in, a, 2, true); }
Value f_convt3d(Interp& in, Args& a) { return conv_impl(in, a, 3, true); }

Value f_batch_norm(Interp& in, Args& a) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t || t->shape.size() < 2) return Value::unknown();
  Value w = arg(in, a, 3, "weight"), b = arg(in, a, 4, "bias");
  bool training = in.truth(arg(in, a, 5, "training")).value_or(false);
  Value out = in.new_tensor(t->shape, t->dtype);
  in.link(out, {x, w, b});
  in.save(x, out);
  if (in.tensor(w)) in.save(w, out);
  Value rm = arg(in, a, 1, "running_mean"), rv = arg(in, a, 2, "running_var");
  if (in.tensor(rm) && (!training || in.opt.kernels == Kernels::Cpu)) {
    in.save(rm, out);
    in.save(rv, out);
  }
  if (training) {
    // save_mean and save_invstd: one float per channel each.
    in.save(in.new_tensor({t->shape[1]}, Dtype::Float32), out);
    in.save(in.new_tensor({t->shape[1]}, Dtype::Float32), out);
  }
  return out;
}

Value f_layer_norm(Interp& in, Args& a) {
  Value x = autocast_fp32(in, arg(in, a, 0, "input"));
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  Value ns = arg(in, a, 1, "normalized_shape");
  size_t nd = 1;
  if (auto* s = in.seq(ns)) nd = s->size();
  if (nd > t->shape.size()) return Value::unknown();
  Value w = arg(in, a, 2, "weight"), b = arg(in, a, 3, "bias");
  TensorObj* tw = in.tensor(w);
  Dtype dt = tw ? promote(t->dtype, tw->dtype) : t->dtype;
  if (tw && in.autocast_dtype() && in.opt.kernels == Kernels::Cpu) dt = t->dtype;
  Value out = in.new_tensor(t->shape, dt);
  in.link(out, {x, w, b});
  in.save(x, out);
  if (tw) in.save(w, out);
  if (in.tensor(b)) in.save(b, out);
  std::vector<DimId> stat(t->shape.begin(), t->shape.end() - static_cast<long>(nd));
  for (size_t k = 0; k < nd; ++k) stat.push_back(in.dims.constant(1));
  // mean and rstd: the accumulation type on CUDA, the input dtype on CPU.
  Dtype sd = in.opt.kernels == Kernels::Cpu ? t->dtype : Dtype::Float32;
  if (sd == Dtype::Float64 || !is_floating(sd)) sd = t->dtype;
  in.save(in.new_tensor(stat, sd), out);
  in.save(in.new_tensor(stat, sd), out);
  return out;
}

Value f_group_norm(Interp& in, Args& a) {
  Value x = autocast_fp32(in, arg(in, a, 0, "input"));
  TensorObj* t = in.tensor(x);
  if (!t || t->shape.empty()) return Value::unknown();
  DimId g = in.as_int(arg(in, a, 1, "num_groups")) ? arg(in, a, 1, "num_groups").dim()
                                                   : in.dims.constant(1);
  Value w = arg(in, a, 2, "weight"), b = arg(in, a, 3, "bias");
  Value out = in.new_tensor(t->shape, t->dtype);
  in.link(out, {x, w, b});
  in.save(x, out);
  if (in.tensor(w)) in.save(w, out);
  in.save(in.new_tensor({t->shape[0], g}, Dtype::Float32), out);
  in.save(in.new_tensor({t->shape[0], g}, Dtype::Float32), out);
  return out;
}

Value f_embedding(Interp& in, Args& a) {
  Value idx = arg(in, a, 0, "input"), w = arg(in, a, 1, "weight");
  TensorObj* ti = in.tensor(idx);
  TensorObj* tw = in.tensor(w);
  if (!ti || !tw || tw->shape.size() != 2) return Value::unknown();
  std::vector<DimId> s = ti->shape;
  s.push_back(tw->shape[1]);
  Value out = in.new_tensor(s, tw->dtype);
  in.link(out, {w});
  in.save(idx, out);
  return out;
}

Value f_embedding_bag(Interp& in, Args& a) {
  Value idx = arg(in, a, 0, "input"), w = arg(in, a, 1, "weight");
  TensorObj* ti = in.tensor(idx);
  TensorObj* tw = in.tensor(w);
  if (!ti || !tw || ti->shape.size() != 2) return Value::unknown();
  DimId bags = ti->shape[0];
  Value out = in.new_tensor({bags, tw->shape[1]}, tw->dtype);
  in.link(out, {w});
  // indices (a view of the input), offsets, offset2bag (n + 1), bag_size,
  // max_indices: _embedding_bag's saved outputs (1.13).
  in.save(idx, out);
  DimId n = in.numel(*ti);
  in.save(in.new_tensor({bags}, Dtype::Int64), out);
  in.save(in.new_tensor({in.dims.add(n, 1)}, Dtype::Int64), out);
  in.save(in.new_tensor({bags}, Dtype::Int64), out);
  in.save(in.new_tensor({bags}, Dtype::Int64), out);
  return out;
}

Value dropout_impl(Interp& in, Args& a, bool feature) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  double p = in.as_number(arg(in, a, 1, "p")).value_or(0.5);
  bool training = true;
  if (auto tr = a.get(in, 2, "training")) training = in.truth(*tr).value_or(true);
  bool inplace = in.truth(arg(in, a, 3, "inplace")).value_or(false);
  // torch skips the kernel for p == 0 and in eval (at::dropout).
  if (!training || p <= 0.0) return x;
  Value out = inplace ? x : in.new_tensor(t->shape, t->dtype);
  std::vector<Value> ins{x};
  in.link(out, ins);
  std::vector<DimId> ms = t->shape;
  if (feature && ms.size() > 2)
    for (size_t k = 2; k < ms.size(); ++k) ms[k] = in.dims.constant(1);
  Dtype md = in.opt.kernels == Kernels::Cpu || feature ? t->dtype : Dtype::Bool;
  Value mask = in.new_tensor(ms, md);
  in.tensor(mask)->score = in.tensor(out)->score = t->score;
  ++in.dropout_depth;
  in.save(mask, out);
  --in.dropout_depth;
  return out;
}
Value f_dropout(Interp& in, Args& a) { return dropout_impl(in, a, false); }
Value f_dropout2d(Interp& in, Args& a) { return dropout_impl(in, a, true); }

Value pool_impl(Interp& in, Args& a, size_t spatial, bool max) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t || t->shape.size() < spatial + 1) return Value::unknown();
  std::vector<DimId> k = tuple_arg(in, arg(in, a, 1, "kernel_size"), spatial, 1);
  Value sv = arg(in, a, 2, "stride");
  std::vector<DimId> s = (sv.kind == VKind::None || !sv.known()) ? k : tuple_arg(in, sv, spatial, 1);
  std::vector<DimId> p = tuple_arg(in, arg(in, a, 3, "padding"), spatial, 0);
  std::vector<DimId> d = max ? tuple_arg(in, arg(in, a, 4, "dilation"), spatial, 1)
                             : std::vector<DimId>(spatial, in.dims.constant(1));
  bool ceil_mode = in.truth(arg(in, a, max ? 5 : 4, "ceil_mode")).value_or(false);
  std::vector<DimId> shape(t->shape.begin(), t->shape.end() - static_cast<long>(spatial));
  size_t lead = t->shape.size() - spatial;
  for (size_t i = 0; i < spatial; ++i)
    shape.push_back(conv_out(in, t->shape[lead + i], k[i], s[i], p[i], d[i], ceil_mode));
  Value out = in.new_tensor(shape, t->dtype);
  in.link(out, {x});
  in.save(x, out);
  if (max) {
    Value idx = in.new_tensor(shape, Dtype::Int64);
    in.save(idx, out);
    if (in.truth(arg(in, a, 6, "return_indices")).value_or(false))
      return in.make_list({out, idx}, OKind::Tuple);
  }
  return out;
}
Value f_max_pool1d(Interp& in, Args& a) { return pool_impl(in, a, 1, true); }
Value f_max_pool2d(Interp& in, Args& a) { return pool_impl(in, a, 2, true); }
Value f_avg_pool1d(Interp& in, Args& a) { return pool_impl(in, a, 1, false); }
Value f_avg_pool2d(Interp& in, Args& a) { return pool_impl(in, a, 2, false); }

Value adaptive_impl(Interp& in, Args& a, size_t spatial, bool max) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t || t->shape.size() < spatial + 1) return Value::unknown();
  Value os = arg(in, a, 1, "output_size");
  std::vector<DimId> o;
  size_t lead = t->shape.size() - spatial;
  if (auto* s = in.seq(os)) {
    for (size_t i = 0; i < s->size() && i < spatial; ++i)
      o.push_back((*s)[i].kind == VKind::Int ? (*s)[i].dim() : t->shape[lead + i]);
  } else {
    o = tuple_arg(in, os, spatial, 1);
  }
  std::vector<DimId> shape(t->shape.begin(), t->shape.begin() + static_cast<long>(lead));
  shape.insert(shape.end(), o.begin(), o.end());
  Value out = in.new_tensor(shape, t->dtype);
  in.link(out, {x});
  in.save(x, out);
  if (max) in.save(in.new_tensor(shape, Dtype::Int64), out);
  return out;
}
Value f_adaptive_avg1d(Interp& in, Args& a) { return adaptive_impl(in, a, 1, false); }
Value f_adaptive_avg2d(Interp& in, Args& a) { return adaptive_impl(in, a, 2, false); }
Value f_adaptive_max2d(Interp& in, Args& a) { return adaptive_impl(in, a, 2, true); }

Value f_interpolate(Interp& in, Args& a) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t || t->shape.size() < 3) return Value::unknown();
  size_t spatial = t->shape.size() - 2;
  std::vector<DimId> shape(t->shape.begin(), t->shape.begin() + 2);
  Value size = arg(in, a, 1, "size"), sf = arg(in, a, 2, "scale_factor");
  if (size.known() && size.kind != VKind::None) {
    std::vector<DimId> s = tuple_arg(in, size, spatial, 1);
    shape.insert(shape.end(), s.begin(), s.end());
  } else if (auto f = in.as_number(sf)) {
    for (size_t k = 0; k < spatial; ++k) {
      double v = static_cast<double>(in.dims.value(t->shape[2 + k])) * *f;
      if (*f == static_cast<int64_t>(*f)) shape.push_back(in.dims.mul(t->shape[2 + k], static_cast<int64_t>(*f)));
      else shape.push_back(in.dims.constant(static_cast<int64_t>(v)));
    }
  } else {
    return Value::unknown();
  }
  Value out = in.new_tensor(shape, t->dtype);
  in.link(out, {x});
  return out;
}

/// F.pixel_shuffle(x, r): (*, C*r*r, H, W) -> (*, C, H*r, W*r), the
/// sub-pixel convolution's upscale (ESPCN, pytorch/examples
/// super_resolution); a copy, as in torch.
Value f_pixel_shuffle(Interp& in, Args& a) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  auto r = in.as_int(arg(in, a, 1, "upscale_factor"));
  if (!t || t->shape.size() < 3 || !r || *r <= 0) return Value::unknown();
  const size_t n = t->shape.size();
  std::vector<DimId> s = t->shape;
  s[n - 3] = in.dims.floordiv(s[n - 3], in.dims.constant(*r * *r));
  s[n - 2] = in.dims.mul(s[n - 2], *r);
  s[n - 1] = in.dims.mul(s[n - 1], *r);
  Value out = in.new_tensor(s, t->dtype);
  in.link(out, {x});
  return out;
}

Value f_pad(Interp& in, Args& a) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  auto* p = in.seq(arg(in, a, 1, "pad"));
  if (!t || !p) return Value::unknown();
  std::vector<DimId> s = t->shape;
  for (size_t k = 0; k + 1 < p->size() && k / 2 < s.size(); k += 2) {
    size_t d = s.size() - 1 - k / 2;
    if ((*p)[k].kind != VKind::Int || (*p)[k + 1].kind != VKind::Int) return Value::unknown();
    s[d] = in.dims.add(s[d], in.dims.add((*p)[k].dim(), (*p)[k + 1].dim()));
  }
  Value out = in.new_tensor(s, t->dtype);
  in.link(out, {x});
  return out;
}

Value f_one_hot(Interp& in, Args& a) {
  TensorObj* t = tensor_arg(in, a, 0, "tensor");
  Value n = arg(in, a, 1, "num_classes");
  if (!t || n.kind != VKind::Int) return Value::unknown();
  std::vector<DimId> s = t->shape;
  s.push_back(n.dim());
  return in.new_tensor(s, Dtype::Int64);
}

Value f_normalize(Interp& in, Args& a) {
  Value x = arg(in, a, 0, "input");
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  int64_t dim = in.as_int(arg(in, a, 2, "dim")).value_or(1);
  auto d = norm_dim(dim, t->shape.size());
  if (!d) return Value::unknown();
  // x / x.norm(dim, keepdim).clamp_min(eps).expand_as(x) (torch 1.13).
  std::vector<DimId> rs = t->shape;
  rs[static_cast<size_t>(*d)] = in.dims.constant(1);
  Value n = in.new_tensor(rs, t->dtype);
  in.link(n, {x});
  in.save(x, n);
  in.save(n, n);
  Value c = in.new_tensor(rs, t->dtype);
  in.link(c, {n});
  in.save(n, c);
  Value out = in.new_tensor(t->shape, t->dtype);
  in.link(out, {x, c});
  in.save(c, out);
  in.save(x, out);
  return out;
}

// ----------------------------------------------------------------- losses

Value f_nll_loss_impl(Interp& in, Value logp, Value target, Value reduction) {
  TensorObj* t = in.tensor(logp);
  if (!t) return Value::unknown();
  bool none = in.as_str(reduction) && *in.as_str(reduction) == "none";
  std::vector<DimId> s;
  if (none && in.tensor(target)) s = in.tensor(target)->shape;
  Value out = in.new_tensor(s, t->dtype);
  in.link(out, {logp});
  in.save(logp, out);
  if (in.tensor(target)) in.save(target, out);
  if (!none) in.save(in.new_tensor({}, t->dtype), out);  // total_weight
  return out;
}

Value f_cross_entropy(Interp& in, Args& a) {
  Value x = autocast_fp32(in, arg(in, a, 0, "input"));
  Value target = arg(in, a, 1, "target");
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  if (in.autocast_dtype() && in.opt.kernels == Kernels::Cpu && t->dtype != Dtype::Float32)
    x = tensor_copy(in, x, Dtype::Float32), t = in.tensor(x);
  Value logp = in.new_tensor(t->shape, t->dtype);
  in.link(logp, {x});
  in.save(logp, logp);
  TensorObj* tt = in.tensor(target);
  if (tt && is_floating(tt->dtype)) {
    // Class probabilities: -(target * logp).sum(1).mean()
    Value prod = tensor_binop(in, ast::Op::Mult, target, logp, false);
    Value out = in.new_tensor({}, t->dtype);
    in.link(out, {prod});
    return out;
  }
  return f_nll_loss_impl(in, logp, target, arg(in, a, 5, "reduction"));
}

Value f_nll_loss(Interp& in, Args& a) {
  return f_nll_loss_impl(in, arg(in, a, 0, "input"), arg(in, a, 1, "target"), arg(in, a, 5, "reduction"));
}

/// mse/l1/smooth_l1/huber/bce/bce_with_logits/kl_div: input and target.
Value f_pointwise_loss(Interp& in, Args& a) {
  Value x = autocast_fp32(in, arg(in, a, 0, "input"));
  Value target = arg(in, a, 1, "target");
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  Value red = a.kwarg(in, "reduction").value_or(Value::unknown());
  bool none = in.as_str(red) && *in.as_str(red) == "none";
  Value out = in.new_tensor(none ? t->shape : std::vector<DimId>{}, t->dtype);
  in.link(out, {x, target});
  in.save(x, out);
  if (in.tensor(target)) in.save(target, out);
  return out;
}

// -------------------------------------------------------------- attention

Value f_sdpa(Interp& in, Args& a) {
  Value q = autocast_lower(in, arg(in, a, 0, "query"));
  Value k = autocast_lower(in, arg(in, a, 1, "key"));
  Value v = autocast_lower(in, arg(in, a, 2, "value"));
  Value mask = arg(in, a, 3, "attn_mask");
  TensorObj* tq = in.tensor(q);
  TensorObj* tk = in.tensor(k);
  TensorObj* tv = in.tensor(v);
  if (!tq || !tk || !tv || tq->shape.size() < 2) return Value::unknown();
  if (!in.cfg.sdpa) {
    in.cfg.sdpa = true;
    in.cfg.attention_origin = {in.user_line(), "F.scaled_dot_product_attention"};
  }
  std::vector<DimId> os = tq->shape;
  os.back() = tv->shape.back();
  double p = in.as_number(arg(in, a, 4, "dropout_p")).value_or(0.0);
  if (in.opt.kernels == Kernels::Cpu) {
    // The math path: scores, softmax, dropout, weighted sum.
    Args ta{{k, in.int_value(-2), in.int_value(-1)}, {}, a.span};
    Value kt = in.builtin.method("transpose")(in, ta);
    Value s = matmul(in, q, kt);
    s = tensor_binop(in, ast::Op::Mult, s, Value::real(1.0), false);
    if (in.tensor(mask)) s = tensor_binop(in, ast::Op::Add, s, mask, false);
    Args sa{{s, in.int_value(-1)}, {}, a.span};
    s = in.builtin.function("torch.softmax")(in, sa);
    if (p > 0) {
      Args da{{s, Value::real(p)}, {}, a.span};
      s = f_dropout(in, da);
    }
    return matmul(in, s, v);
  }
  // Flash / memory-efficient kernels: output laid out (B, T, H, hd).
  Value out = in.new_tensor(os, tq->dtype);
  if (os.size() == 4) in.tensor(out)->perm = {0, 2, 1, 3};
  in.link(out, {q, k, v, mask});
  in.save(q, out);
  in.save(k, out);
  in.save(v, out);
  in.save(out, out);
  std::vector<DimId> lse(tq->shape.begin(), tq->shape.end() - 1);
  in.save(in.new_tensor(lse, Dtype::Float32), out);
  if (in.tensor(mask)) in.save(mask, out);
  if (p > 0) in.save(in.new_tensor({in.dims.constant(2)}, Dtype::Int64), out);  // philox seed, offset
  return out;
}

void register_layer_ops(Builtins& b) {
  auto& f = b.functions;
  const std::string F = "torch.nn.functional.";
  f[F + "linear"] = f_linear;
  f[F + "conv1d"] = f_conv1d;
  f[F + "conv2d"] = f_conv2d;
  f[F + "conv3d"] = f_conv3d;
  f["torch.conv2d"] = f_conv2d;
  f[F + "conv_transpose1d"] = f_convt1d;
  f[F + "conv_transpose2d"] = f_convt2d;
  f[F + "conv_transpose3d"] = f_convt3d;
  f[F + "batch_norm"] = f_batch_norm;
  f[F + "layer_norm"] = f_layer_norm;
  f[F + "group_norm"] = f_group_norm;
  f[F + "embedding"] = f_embedding;
  f[F + "embedding_bag"] = f_embedding_bag;
  f[F + "dropout"] = f_dropout;
  f[F + "dropout1d"] = f_dropout2d;
  f[F + "dropout2d"] = f_dropout2d;
  f[F + "dropout3d"] = f_dropout2d;
  f[F + "alpha_dropout"] = f_dropout;
  f["torch.dropout"] = f_dropout;
  f[F + "max_pool1d"] = f_max_pool1d;
  f[F + "max_pool2d"] = f_max_pool2d;
  f[F + "avg_pool1d"] = f_avg_pool1d;
  f[F + "avg_pool2d"] = f_avg_pool2d;
  f[F + "adaptive_avg_pool1d"] = f_adaptive_avg1d;
  f[F + "adaptive_avg_pool2d"] = f_adaptive_avg2d;
  f[F + "adaptive_max_pool2d"] = f_adaptive_max2d;
  f[F + "interpolate"] = f_interpolate;
  f[F + "upsample"] = f_interpolate;
  f[F + "pixel_shuffle"] = f_pixel_shuffle;
  f[F + "pad"] = f_pad;
  f[F + "one_hot"] = f_one_hot;
  f[F + "normalize"] = f_normalize;
  f[F + "cross_entropy"] = f_cross_entropy;
  f[F + "nll_loss"] = f_nll_loss;
  for (const char* n : {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
                        "binary_cross_entropy_with_logits", "kl_div", "cosine_embedding_loss"})
    f[F + n] = f_pointwise_loss;
  f[F + "scaled_dot_product_attention"] = f_sdpa;
}

}  // namespace tpf::memory
