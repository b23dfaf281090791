// Shape ops on tensors: view/reshape (a copy when the layout forbids a
// view, as torch.reshape does), transpose/permute (tracked as a memory
// order, so `.contiguous()` and batched matmul know when they copy),
// squeeze/unsqueeze/expand, split/chunk/unbind, indexing, casts and
// device moves, cat/stack. None of them saves anything for backward.
// requires: tensor_shape.cpp bookkeeping. produces: view and copy tensors.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {
namespace {

TensorObj* self_t(Interp& in, Args& a) { return in.tensor(a.pos[0]); }

/// Sizes with one -1 inferred from the element count.
std::optional<std::vector<DimId>> resolve_sizes(Interp& in, const TensorObj& t,
                                                std::vector<DimId> sizes) {
  int neg = -1;
  DimId known = in.dims.constant(1);
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (in.dims.value(sizes[k]) == -1) {
      if (neg >= 0) return std::nullopt;
      neg = static_cast<int>(k);
    } else {
      known = in.dims.mul(known, sizes[k]);
    }
  }
  if (neg >= 0) {
    DimId total = in.numel(t);
    if (in.dims.value(known) == 0) return std::nullopt;
    sizes[static_cast<size_t>(neg)] = in.dims.floordiv(total, known);
  }
  return sizes;
}

Value reshape_impl(Interp& in, Args& a, bool is_view) {
  TensorObj* t = self_t(in, a);
  auto s = shape_from(in, a, 1);
  if (!s) return Value::unknown();
  auto sizes = resolve_sizes(in, *t, *s);
  if (!sizes) return Value::unknown();
  if (is_view || is_contiguous(in, *t)) return in.view_of(a.pos[0], *sizes, {});
  Value c = tensor_copy(in, a.pos[0], std::nullopt);
  in.tensor(c)->shape = *sizes;
  return c;
}

Value m_view(Interp& in, Args& a) {
  if (a.pos.size() == 2 && a.pos[1].kind == VKind::Dtype) return Value::unknown();
  return reshape_impl(in, a, true);
}
Value m_reshape(Interp& in, Args& a) { return reshape_impl(in, a, false); }

Value m_view_as(Interp& in, Args& a) {
  TensorObj* o = tensor_arg(in, a, 1, "other");
  if (!o) return Value::unknown();
  return in.view_of(a.pos[0], o->shape, {});
}

Value m_flatten(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  size_t r = t->shape.size();
  if (r == 0) return in.view_of(a.pos[0], {in.dims.constant(1)}, {});
  auto s = norm_dim(int_arg(in, a, 1, "start_dim", 0), r);
  auto e = norm_dim(int_arg(in, a, 2, "end_dim", -1), r);
  if (!s || !e || *s > *e) return Value::unknown();
  std::vector<DimId> out(t->shape.begin(), t->shape.begin() + *s);
  DimId m = in.dims.constant(1);
  for (int64_t k = *s; k <= *e; ++k) m = in.dims.mul(m, t->shape[static_cast<size_t>(k)]);
  out.push_back(m);
  out.insert(out.end(), t->shape.begin() + *e + 1, t->shape.end());
  if (*s == *e) return a.pos[0];
  if (is_contiguous(in, *t)) return in.view_of(a.pos[0], out, {});
  Value c = tensor_copy(in, a.pos[0], std::nullopt);
  in.tensor(c)->shape = out;
  return c;
}

Value m_unflatten(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
  Args sa{{a.pos[0]}, {}, a.span};
  if (a.pos.size() > 2) sa.pos.push_back(a.pos[2]);
  auto s = shape_from(in, sa, 1);
  if (!d || !s) return Value::unknown();
  std::vector<DimId> out(t->shape.begin(), t->shape.begin() + *d);
  TensorObj part = *t;
  part.shape = {t->shape[static_cast<size_t>(*d)]};
  auto sizes = resolve_sizes(in, part, *s);
  if (!sizes) return Value::unknown();
  out.insert(out.end(), sizes->begin(), sizes->end());
  out.insert(out.end(), t->shape.begin() + *d + 1, t->shape.end());
  return in.view_of(a.pos[0], out, is_contiguous(in, *t) ? std::vector<uint8_t>{} : t->perm);
}

Value transpose_dims(Interp& in, Value x, int64_t i, int64_t j) {
  TensorObj* t = in.tensor(x);
  size_t r = t->shape.size();
  auto a = norm_dim(i, r), b = norm_dim(j, r);
  if (!a || !b) return Value::unknown();
  std::vector<DimId> s = t->shape;
  std::swap(s[static_cast<size_t>(*a)], s[static_cast<size_t>(*b)]);
  std::vector<uint8_t> p = t->perm.empty() ? identity_perm(r) : t->perm;
  for (uint8_t& d : p) {
    if (d == *a) d = static_cast<uint8_t>(*b);
    else if (d == *b) d = static_cast<uint8_t>(*a);
  }
  return in.view_of(x, s, p);
}

Value m_transpose(Interp& in, Args& a) {
  return transpose_dims(in, a.pos[0], int_arg(in, a, 1, "dim0", 0), int_arg(in, a, 2, "dim1", 1));
}

Value m_t(Interp& in, Args& a) {
  if (self_t(in, a)->shape.size() < 2) return a.pos[0];
  return transpose_dims(in, a.pos[0], 0, 1);
}

Value m_permute(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto s = shape_from(in, a, 1);
  size_t r = t->shape.size();
  if (!s || s->size() != r) return Value::unknown();
  std::vector<uint8_t> inv(r);
  std::vector<DimId> shape(r);
  for (size_t k = 0; k < r; ++k) {
    auto d = norm_dim(in.dims.value((*s)[k]), r);
    if (!d) return Value::unknown();
    shape[k] = t->shape[static_cast<size_t>(*d)];
    inv[static_cast<size_t>(*d)] = static_cast<uint8_t>(k);
  }
  std::vector<uint8_t> p = t->perm.empty() ? identity_perm(r) : t->perm;
  for (uint8_t& d : p) d = inv[d];
  return in.view_of(a.pos[0], shape, p);
}

Value m_contiguous(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  if (is_contiguous(in, *t)) return a.pos[0];
  return tensor_copy(in, a.pos[0], std::nullopt);
}

Value m_unsqueeze(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  size_t r = t->shape.size();
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), r + 1);
  if (!d) return Value::unknown();
  std::vector<DimId> s = t->shape;
  s.insert(s.begin() + *d, in.dims.constant(1));
  std::vector<uint8_t> p;
  if (!t->perm.empty()) {
    for (uint8_t x : t->perm) p.push_back(static_cast<uint8_t>(x >= *d ? x + 1 : x));
    p.push_back(static_cast<uint8_t>(*d));
  }
  return in.view_of(a.pos[0], s, p);
}

Value drop_dim(Interp& in, Value x, size_t d) {
  TensorObj* t = in.tensor(x);
  std::vector<DimId> s = t->shape;
  s.erase(s.begin() + static_cast<long>(d));
  std::vector<uint8_t> p;
  for (uint8_t k : t->perm)
    if (k != d) p.push_back(static_cast<uint8_t>(k > d ? k - 1 : k));
  return in.view_of(x, s, p);
}

Value m_squeeze(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  if (a.pos.size() > 1 || a.kwarg(in, "dim")) {
    auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
    if (!d) return Value::unknown();
    if (in.dims.value(t->shape[static_cast<size_t>(*d)]) != 1) return a.pos[0];
    return drop_dim(in, a.pos[0], static_cast<size_t>(*d));
  }
  Value v = a.pos[0];
  for (size_t k = t->shape.size(); k-- > 0;)
    if (in.dims.value(in.tensor(v)->shape[k]) == 1) v = drop_dim(in, v, k);
  return v;
}

Value expand_to(Interp& in, Value x, std::vector<DimId> sizes) {
  TensorObj* t = in.tensor(x);
  size_t r = t->shape.size();
  if (sizes.size() < r) return Value::unknown();
  size_t lead = sizes.size() - r;
  bool grew = lead > 0;
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (in.dims.value(sizes[k]) == -1) {
      if (k < lead) return Value::unknown();
      sizes[k] = t->shape[k - lead];
    } else if (k >= lead && sizes[k] != t->shape[k - lead]) {
      grew = grew || in.dims.value(sizes[k]) != in.dims.value(t->shape[k - lead]);
    }
  }
  Value v = in.view_of(x, sizes, {});
  if (grew) in.tensor(v)->dense = false;
  else in.tensor(v)->perm = lead == 0 ? t->perm : std::vector<uint8_t>{};
  return v;
}

Value m_expand(Interp& in, Args& a) {
  auto s = shape_from(in, a, 1);
  if (!s) return Value::unknown();
  return expand_to(in, a.pos[0], *s);
}

Value m_expand_as(Interp& in, Args& a) {
  TensorObj* o = tensor_arg(in, a, 1, "other");
  if (!o) return Value::unknown();
  return expand_to(in, a.pos[0], o->shape);
}

Value m_repeat(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto s = shape_from(in, a, 1);
  if (!s || s->size() < t->shape.size()) return Value::unknown();
  std::vector<DimId> out = *s;
  size_t lead = s->size() - t->shape.size();
  for (size_t k = lead; k < out.size(); ++k) out[k] = in.dims.mul(out[k], t->shape[k - lead]);
  Value c = in.new_tensor(out, t->dtype);
  in.link(c, {a.pos[0]});
  return c;
}

/// x.narrow(dim, start, length) as a view.
Value narrow_view(Interp& in, Value x, size_t d, DimId len) {
  TensorObj* t = in.tensor(x);
  std::vector<DimId> s = t->shape;
  bool partial = in.dims.value(len) != in.dims.value(s[d]);
  s[d] = len;
  Value v = in.view_of(x, s, t->perm);
  // A slice of an inner dimension leaves gaps in the storage.
  if (partial) {
    bool outer = true;
    for (size_t k = 0; k < d; ++k) outer = outer && in.dims.value(t->shape[k]) == 1;
    if (!outer || !t->perm.empty()) in.tensor(v)->dense = false;
  }
  return v;
}

Value split_impl(Interp& in, Value x, std::vector<DimId> sizes, size_t d) {
  std::vector<Value> parts;
  for (DimId s : sizes) parts.push_back(narrow_view(in, x, d, s));
  return in.make_list(std::move(parts), OKind::Tuple);
}

Value m_split(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto d = norm_dim(int_arg(in, a, 2, "dim", 0), t->shape.size());
  Value sz = a.get(in, 1, "split_size_or_sections").value_or(
      a.kwarg(in, "split_size").value_or(Value::unknown()));
  if (!d) return Value::unknown();
  DimId total = t->shape[static_cast<size_t>(*d)];
  std::vector<DimId> sizes;
  if (sz.kind == VKind::Int) {
    int64_t n = in.dims.value(sz.dim()), tot = in.dims.value(total);
    if (n <= 0) return Value::unknown();
    int64_t k = (tot + n - 1) / n;
    for (int64_t i = 0; i < k; ++i)
      sizes.push_back(i + 1 < k || tot % n == 0 ? sz.dim() : in.dims.constant(tot % n));
  } else if (auto* s = in.seq(sz)) {
    for (Value v : *s) {
      if (v.kind != VKind::Int) return Value::unknown();
      sizes.push_back(v.dim());
    }
  } else {
    return Value::unknown();
  }
  return split_impl(in, a.pos[0], sizes, static_cast<size_t>(*d));
}

Value m_chunk(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  int64_t n = int_arg(in, a, 1, "chunks", 1);
  auto d = norm_dim(int_arg(in, a, 2, "dim", 0), t->shape.size());
  if (!d || n <= 0) return Value::unknown();
  DimId total = t->shape[static_cast<size_t>(*d)];
  DimId each = in.dims.floordiv(in.dims.add(total, in.dims.constant(n - 1)), in.dims.constant(n));
  if (in.dims.value(total) % n == 0) each = in.dims.floordiv(total, in.dims.constant(n));
  std::vector<DimId> sizes(static_cast<size_t>(n), each);
  return split_impl(in, a.pos[0], sizes, static_cast<size_t>(*d));
}

Value m_unbind(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
  if (!d) return Value::unknown();
  int64_t n = in.dims.value(t->shape[static_cast<size_t>(*d)]);
  if (n > 4096) return Value::unknown();
  std::vector<Value> parts;
  for (int64_t k = 0; k < n; ++k) parts.push_back(drop_dim(in, a.pos[0], static_cast<size_t>(*d)));
  return in.make_list(std::move(parts), OKind::Tuple);
}

Value m_narrow(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
  Value len = a.get(in, 3, "length").value_or(Value::unknown());
  if (!d || len.kind != VKind::Int) return Value::unknown();
  return narrow_view(in, a.pos[0], static_cast<size_t>(*d), len.dim());
}

Value m_select(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
  if (!d) return Value::unknown();
  Value v = drop_dim(in, a.pos[0], static_cast<size_t>(*d));
  if (*d > 0) in.tensor(v)->dense = false;
  return v;
}

/// Slice length of `lo:hi:st` over an extent, symbolic where it can be.
DimId slice_len(Interp& in, DimId size, Value lo, Value hi, Value st) {
  int64_t n = in.dims.value(size);
  int64_t step = st.kind == VKind::Int ? in.dims.value(st.dim()) : 1;
  if (step <= 0) step = 1;
  DimId start = in.dims.constant(0), stop = size;
  if (lo.kind == VKind::Int) {
    int64_t v = in.dims.value(lo.dim());
    start = v < 0 ? in.dims.add(size, lo.dim()) : lo.dim();
    if (in.dims.value(start) < 0) start = in.dims.constant(0);
    if (in.dims.value(start) > n) start = size;
  }
  if (hi.kind == VKind::Int) {
    int64_t v = in.dims.value(hi.dim());
    stop = v < 0 ? in.dims.add(size, hi.dim()) : hi.dim();
    if (in.dims.value(stop) > n) stop = size;
    if (in.dims.value(stop) < 0) stop = in.dims.constant(0);
  }
  DimId len = in.dims.sub(stop, start);
  if (in.dims.value(len) < 0) return in.dims.constant(0);
  if (step > 1) len = in.dims.floordiv(in.dims.add(len, in.dims.constant(step - 1)), in.dims.constant(step));
  return len;
}

Value m_getitem(Interp& in, Args& a) {
  Value x = a.pos[0];
  Value key = a.pos.size() > 1 ? a.pos[1] : Value::unknown();
  std::vector<Value> idx;
  if (in.is_obj(key, OKind::Tuple)) idx = in.o(key).items;
  else idx = {key};
  auto consumes = [](Value k) { return k.kind != VKind::None && k.kind != VKind::Ellipsis; };
  Value cur = x;
  size_t dim = 0;
  for (size_t pi = 0; pi < idx.size(); ++pi) {
    Value k = idx[pi];
    TensorObj* t = in.tensor(cur);
    if (!t) return Value::unknown();
    if (k.kind == VKind::Ellipsis) {
      // `...` covers every dimension the later indices do not consume.
      size_t after = 0;
      for (size_t j = pi + 1; j < idx.size(); ++j) after += consumes(idx[j]) ? 1 : 0;
      if (t->shape.size() >= after && t->shape.size() - after > dim) dim = t->shape.size() - after;
      continue;
    }
    if (k.kind == VKind::None) {
      Args ua{{cur, in.int_value(static_cast<int64_t>(dim))}, {}, a.span};
      cur = m_unsqueeze(in, ua);
      ++dim;
      continue;
    }
    if (dim >= t->shape.size()) return Value::unknown();
    if (k.kind == VKind::Int || k.kind == VKind::Bool) {
      cur = drop_dim(in, cur, dim);
      if (dim > 0) in.tensor(cur)->dense = false;
      continue;
    }
    if (in.is_obj(k, OKind::Slice)) {
      std::vector<Value> s = in.o(k).items;
      DimId len;
      if (is_index_tensor(in, s[0]) || is_index_tensor(in, s[1])) {
        // `data[i : i + block]` at an index drawn by torch.randint: the
        // length is the offsets' difference whatever `i` is, else unknown
        // (never the whole dimension).
        std::string why;
        auto n = index_window_len(in, t->shape[dim], s[0], s[1], s[2], why);
        if (!n) {
          in.note_unknown("a slice of a tensor with an index tensor for a bound: " + why, a.span,
                          false);
          return Value::unknown();
        }
        len = *n;
      } else {
        len = slice_len(in, t->shape[dim], s[0], s[1], s[2]);
      }
      cur = narrow_view(in, cur, dim, len);
      if (s[2].kind == VKind::Int && in.dims.value(s[2].dim()) > 1) in.tensor(cur)->dense = false;
      ++dim;
      continue;
    }
    if (in.is_obj(k, OKind::List)) {
      // `x[:, [-1], :]`: a list of ints indexes as an int64 tensor of its
      // length would (nanoGPT's generate-time logits).
      const std::vector<Value>& items = in.o(k).items;
      const bool ints = !items.empty() && std::all_of(items.begin(), items.end(), [](Value v) {
        return v.kind == VKind::Int;
      });
      if (!ints) return Value::unknown();
      k = in.new_tensor({in.dims.constant(static_cast<int64_t>(items.size()))}, Dtype::Int64);
      t = in.tensor(cur);
    }
    if (TensorObj* it = in.tensor(k)) {
      // Advanced indexing: a copy; an index tensor is saved for backward.
      std::vector<DimId> s(t->shape.begin(), t->shape.begin() + static_cast<long>(dim));
      if (it->dtype == Dtype::Bool) {
        in.note_unknown("boolean-mask indexing (data-dependent size)", a.span, false);
        return Value::unknown();
      }
      s.insert(s.end(), it->shape.begin(), it->shape.end());
      s.insert(s.end(), t->shape.begin() + static_cast<long>(dim) + 1, t->shape.end());
      Value out = in.new_tensor(s, t->dtype);
      in.link(out, {cur});
      in.save(k, out);
      cur = out;
      dim += it->shape.size();
      continue;
    }
    return Value::unknown();
  }
  return cur;
}

Value m_to(Interp& in, Args& a) {
  std::optional<Dtype> dt = dtype_arg(in, a, "dtype");
  for (size_t k = 1; k < a.pos.size(); ++k) {
    if (a.pos[k].kind == VKind::Dtype) dt = static_cast<Dtype>(a.pos[k].a);
    if (TensorObj* o = in.tensor(a.pos[k])) dt = o->dtype;
  }
  TensorObj* t = self_t(in, a);
  if (!dt || *dt == t->dtype) return a.pos[0];
  return tensor_copy(in, a.pos[0], dt);
}

Value cast_to(Interp& in, Args& a, Dtype d) {
  if (self_t(in, a)->dtype == d) return a.pos[0];
  return tensor_copy(in, a.pos[0], d);
}
/// numpy's `arr.astype(dtype)` on an array modeled as a tensor (a slice of
/// an np.memmap): a copy, even to the same dtype (copy=True, numpy's default).
Value m_astype(Interp& in, Args& a) {
  auto d = a.get(in, 1, "dtype");
  std::optional<Dtype> dt = d ? numpy_dtype(in, *d) : std::nullopt;
  return dt ? tensor_copy(in, a.pos[0], *dt) : Value::unknown();
}
/// An in-place op the table models as returning its receiver: a 0-dim
/// index it changes is no longer the value its offsets were taken from.
Value m_same_inplace(Interp& in, Args& a) {
  forget_index(in, a.pos[0]);
  return a.pos[0];
}
Value m_float(Interp& in, Args& a) { return cast_to(in, a, Dtype::Float32); }
Value m_half(Interp& in, Args& a) { return cast_to(in, a, Dtype::Float16); }
Value m_bf16(Interp& in, Args& a) { return cast_to(in, a, Dtype::BFloat16); }
Value m_double(Interp& in, Args& a) { return cast_to(in, a, Dtype::Float64); }
Value m_long(Interp& in, Args& a) { return cast_to(in, a, Dtype::Int64); }
Value m_int(Interp& in, Args& a) { return cast_to(in, a, Dtype::Int32); }
Value m_bool(Interp& in, Args& a) { return cast_to(in, a, Dtype::Bool); }
Value m_type_as(Interp& in, Args& a) {
  TensorObj* o = tensor_arg(in, a, 1, "other");
  return o ? cast_to(in, a, o->dtype) : a.pos[0];
}
Value m_type(Interp& in, Args& a) {
  if (a.pos.size() > 1 && a.pos[1].kind == VKind::Dtype)
    return cast_to(in, a, static_cast<Dtype>(a.pos[1].a));
  if (a.pos.size() == 1) {
    // x.type(): the legacy tensor type name (llm.c restores the default
    // tensor type from it).
    switch (self_t(in, a)->dtype) {
      case Dtype::Float32: return in.str_value("torch.FloatTensor");
      case Dtype::Float16: return in.str_value("torch.HalfTensor");
      case Dtype::BFloat16: return in.str_value("torch.BFloat16Tensor");
      case Dtype::Float64: return in.str_value("torch.DoubleTensor");
      case Dtype::Int64: return in.str_value("torch.LongTensor");
      default: break;
    }
  }
  return Value::unknown();
}

Value m_same(Interp&, Args& a) { return a.pos[0]; }

Value m_detach(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  Value d = in.view_of(a.pos[0], t->shape, t->perm);
  TensorObj* dt = in.tensor(d);
  dt->requires_grad = false;
  dt->leaf = true;
  dt->graph = -1;
  return d;
}

Value m_clone(Interp& in, Args& a) { return tensor_copy(in, a.pos[0], std::nullopt); }

Value m_size(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  if (a.pos.size() > 1 || a.kwarg(in, "dim")) {
    auto d = norm_dim(int_arg(in, a, 1, "dim", 0), t->shape.size());
    return d ? Value::integer(t->shape[static_cast<size_t>(*d)]) : Value::unknown();
  }
  std::vector<Value> dims;
  for (DimId d : t->shape) dims.push_back(Value::integer(d));
  return in.make_list(std::move(dims), OKind::Tuple);
}

Value m_dim(Interp& in, Args& a) { return in.int_value(static_cast<int64_t>(self_t(in, a)->shape.size())); }
Value m_numel(Interp& in, Args& a) { return Value::integer(in.numel(*self_t(in, a))); }
Value m_element_size(Interp& in, Args& a) { return in.int_value(dtype_size(self_t(in, a)->dtype)); }
Value m_unknown(Interp&, Args&) { return Value::unknown(); }
Value m_none(Interp&, Args&) { return Value::none(); }

Value m_requires_grad_(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  t->requires_grad = a.pos.size() > 1 ? in.truth(a.pos[1]).value_or(true) : true;
  return a.pos[0];
}

Value m_iter(Interp& in, Args& a) {
  TensorObj* t = self_t(in, a);
  if (t->shape.empty()) return Value::unknown();
  int64_t n = in.dims.value(t->shape[0]);
  if (n > 4096) return Value::unknown();
  std::vector<Value> rows;
  for (int64_t k = 0; k < n; ++k) rows.push_back(drop_dim(in, a.pos[0], 0));
  return in.make_list(std::move(rows), OKind::Iter);
}

Value join_impl(Interp& in, Args& a, bool stack) {
  std::optional<Value> list = a.get(in, 0, "tensors");
  if (!list) return Value::unknown();
  auto items = in.iterate(*list);
  if (!items || items->empty()) return Value::unknown();
  TensorObj* first = in.tensor((*items)[0]);
  if (!first) return Value::unknown();
  size_t rank = first->shape.size() + (stack ? 1 : 0);
  auto d = norm_dim(int_arg(in, a, 1, "dim", 0), rank);
  if (!d) return Value::unknown();
  std::vector<DimId> shape = first->shape;
  Dtype dt = first->dtype;
  DimId total = in.dims.constant(0);
  for (Value v : *items) {
    TensorObj* t = in.tensor(v);
    if (!t) return Value::unknown();
    dt = promote(dt, t->dtype);
    if (!stack) total = in.dims.add(total, t->shape.size() > static_cast<size_t>(*d)
                                                 ? t->shape[static_cast<size_t>(*d)]
                                                 : in.dims.constant(0));
  }
  if (stack) {
    // A list a comprehension built over the rows of a tensor of symbolic
    // length keeps that symbol while it has that many items.
    DimId n = in.dims.constant(static_cast<int64_t>(items->size()));
    if (list->kind == VKind::Obj)
      if (const Value* e = in.o(*list).attrs.find(in.intern("__extent__"));
          e && e->kind == VKind::Int &&
          in.dims.value(e->dim()) == static_cast<int64_t>(items->size()))
        n = e->dim();
    shape.insert(shape.begin() + *d, n);
  } else
    shape[static_cast<size_t>(*d)] = total;
  Value out = in.new_tensor(shape, dt);
  in.link(out, *items);
  return out;
}
/// torch.view_as_complex(x): the last dim of 2 (real, imaginary) becomes one
/// complex element of the same storage; view_as_real the reverse. Meta's
/// llama RoPE: `view_as_real(view_as_complex(xq.reshape(..., -1, 2)) *
/// freqs_cis)`.
Value f_view_as_complex(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t || t->shape.empty() || in.dims.value(t->shape.back()) != 2) return Value::unknown();
  if (t->dtype != Dtype::Float32 && t->dtype != Dtype::Float64) return Value::unknown();
  Dtype d = t->dtype == Dtype::Float64 ? Dtype::Complex128 : Dtype::Complex64;
  std::vector<DimId> s(t->shape.begin(), t->shape.end() - 1);
  Value v = in.view_of(a.pos[0], std::move(s), {});
  in.tensor(v)->dtype = d;
  return v;
}

Value f_view_as_real(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t || !is_complex(t->dtype)) return Value::unknown();
  Dtype d = t->dtype == Dtype::Complex128 ? Dtype::Float64 : Dtype::Float32;
  std::vector<DimId> s = t->shape;
  s.push_back(in.dims.constant(2));
  std::vector<uint8_t> p = t->perm;
  if (!p.empty()) p.push_back(static_cast<uint8_t>(p.size()));
  Value v = in.view_of(a.pos[0], std::move(s), std::move(p));
  in.tensor(v)->dtype = d;
  return v;
}

Value t_cat(Interp& in, Args& a) { return join_impl(in, a, false); }
Value t_stack(Interp& in, Args& a) { return join_impl(in, a, true); }

}  // namespace

void register_tensor_views(Builtins& b) {
  auto& m = b.tensor_methods;
  m["view"] = m_view;
  m["reshape"] = m_reshape;
  m["view_as"] = m_view_as;
  m["reshape_as"] = m_view_as;
  m["flatten"] = m_flatten;
  m["unflatten"] = m_unflatten;
  m["transpose"] = m_transpose;
  m["swapaxes"] = m_transpose;
  m["t"] = m_t;
  m["permute"] = m_permute;
  m["contiguous"] = m_contiguous;
  m["unsqueeze"] = m_unsqueeze;
  m["squeeze"] = m_squeeze;
  m["expand"] = m_expand;
  m["expand_as"] = m_expand_as;
  m["repeat"] = m_repeat;
  m["split"] = m_split;
  m["chunk"] = m_chunk;
  m["unbind"] = m_unbind;
  m["narrow"] = m_narrow;
  m["select"] = m_select;
  m["__getitem__"] = m_getitem;
  m["to"] = m_to;
  m["float"] = m_float;
  m["half"] = m_half;
  m["bfloat16"] = m_bf16;
  m["double"] = m_double;
  m["long"] = m_long;
  m["int"] = m_int;
  m["bool"] = m_bool;
  m["type_as"] = m_type_as;
  m["type"] = m_type;
  m["cuda"] = m_same;
  m["cpu"] = m_same;
  m["pin_memory"] = m_same;
  m["detach"] = m_detach;
  m["detach_"] = m_same;
  m["clone"] = m_clone;
  m["size"] = m_size;
  m["dim"] = m_dim;
  m["numel"] = m_numel;
  m["nelement"] = m_numel;
  m["element_size"] = m_element_size;
  m["item"] = m_unknown;
  m["tolist"] = m_unknown;
  m["numpy"] = m_unknown;
  m["requires_grad_"] = m_requires_grad_;
  m["retain_grad"] = m_none;
  m["__iter__"] = m_iter;
  m["__setitem__"] = m_none;
  m["astype"] = m_astype;
  for (const char* n :
       {"fill_", "zero_", "normal_", "uniform_", "copy_", "bernoulli_", "random_", "exponential_",
        "clamp_", "mul_", "add_", "sub_", "div_", "masked_fill_", "index_fill_", "scatter_"})
    if (!m.count(n)) m[n] = m_same_inplace;
  if (!m.count("data_ptr")) m["data_ptr"] = m_same;
  auto& f = b.functions;
  f["torch.cat"] = t_cat;
  f["torch.concat"] = t_cat;
  f["torch.concatenate"] = t_cat;
  f["torch.stack"] = t_stack;
  f["torch.view_as_complex"] = f_view_as_complex;
  f["torch.view_as_real"] = f_view_as_real;
  for (const char* n : {"reshape", "flatten", "transpose", "permute", "unsqueeze", "squeeze",
                        "split", "chunk", "unbind", "narrow", "select", "t", "clone", "numel",
                        "swapaxes"})
    f[std::string("torch.") + n] = m[n];
}

}  // namespace tpf::memory
