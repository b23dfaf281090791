// Tensors without arithmetic: storages and views, the autograd bookkeeping
// every op shares (graph components, saved-tensor records), tensor
// attributes, factories (torch.randn, torch.arange, torch.tensor, ...), and
// the shape ops (view, reshape, transpose, permute, indexing, split, cat).
// Views share their base's storage, as in PyTorch, so what a view pins is
// the whole storage (the ground truth counts storage().nbytes()).
// requires: interp.h. produces: tensor values and SavedRecords.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

// ------------------------------------------------------------ bookkeeping

Value Interp::new_tensor(std::vector<DimId> shape, Dtype dt, Role role) {
  ObjId id = alloc(OKind::Tensor);
  auto t = std::make_unique<TensorObj>();
  t->shape = std::move(shape);
  t->dtype = dt;
  t->storage = static_cast<uint32_t>(storages.size());
  storages.push_back(Storage{numel(*t), dt, role});
  if (role == Role::Activation || role == Role::AutocastCopy) log_step(StepEvent::Kind::Alloc, t->storage);
  o(id).t = std::move(t);
  if (infer.tracing && role == Role::Activation) infer.created.push_back(id);
  return Value::obj(id);
}

Value Interp::view_of(Value base, std::vector<DimId> shape, std::vector<uint8_t> perm) {
  const TensorObj& b = *tensor(base);
  ObjId id = alloc(OKind::Tensor);
  auto t = std::make_unique<TensorObj>(b);
  t->shape = std::move(shape);
  t->perm = std::move(perm);
  t->grad = kNone32;
  t->score = b.score;
  // A view of a tensor that requires grad is part of its graph (not a leaf).
  if (t->requires_grad) t->leaf = false;
  o(id).t = std::move(t);
  return Value::obj(id);
}

DimId Interp::numel(const TensorObj& t) {
  DimId n = dims.constant(1);
  for (DimId d : t.shape) n = dims.mul(n, d);
  return n;
}

DimId Interp::storage_bytes(uint32_t s) {
  const Storage& st = storages[s];
  auto c = [&](int64_t k) { return dims.constant(k); };
  switch (st.quant) {
    case Quant::None: break;
    // LLM.int8 (bitsandbytes Int8Params): one byte a weight plus a float32
    // scale per output row (SCB).
    case Quant::Int8: return dims.add(st.elems, dims.mul(st.rows.valid() ? st.rows : c(0), c(4)));
    // 4-bit NF4/FP4 (Params4bit): two weights a byte, a float32 absmax per
    // block of 64 weights (bnb_4bit's blocksize).
    case Quant::Nf4:
      return dims.add(dims.floordiv(dims.add(st.elems, c(1)), c(2)),
                      dims.mul(dims.floordiv(dims.add(st.elems, c(63)), c(64)), c(4)));
    // Double quantization (bnb_4bit_use_double_quant): the absmax are
    // themselves 8-bit, with a float32 absmax per 256 of them, a 256-entry
    // float32 code table and a float32 offset per tensor.
    case Quant::Nf4Double: {
      DimId blocks = dims.floordiv(dims.add(st.elems, c(63)), c(64));
      DimId blocks2 = dims.floordiv(dims.add(blocks, c(255)), c(256));
      return dims.add(dims.add(dims.floordiv(dims.add(st.elems, c(1)), c(2)), blocks),
                      dims.add(dims.mul(blocks2, c(4)), c(256 * 4 + 4)));
    }
  }
  return dims.mul(st.elems, c(dtype_size(st.dtype)));
}

int32_t Interp::find_graph(int32_t g) {
  if (g < 0) return g;
  while (graph_parent[static_cast<size_t>(g)] != g) {
    graph_parent[static_cast<size_t>(g)] =
        graph_parent[static_cast<size_t>(graph_parent[static_cast<size_t>(g)])];
    g = graph_parent[static_cast<size_t>(g)];
  }
  return g;
}

bool Interp::needs_grad(std::span<const Value> inputs) {
  if (!grad_enabled) return false;
  for (Value v : inputs)
    if (TensorObj* t = tensor(v); t && t->requires_grad) return true;
  return false;
}
bool Interp::needs_grad(std::initializer_list<Value> inputs) {
  return needs_grad(std::span<const Value>(inputs.begin(), inputs.size()));
}

void Interp::link(Value out, std::span<const Value> inputs) {
  TensorObj* t = tensor(out);
  if (!t) return;
  // An in-place op (`out += identity`, relu_) links a tensor to itself:
  // its graph so far is one of the inputs', so it is read before the reset.
  bool grad = needs_grad(inputs);
  int32_t g = -1;
  if (grad)
    for (Value v : inputs) {
      TensorObj* x = tensor(v);
      if (!x || x->graph < 0) continue;
      int32_t r = find_graph(x->graph);
      if (g < 0) g = r;
      else if (r != g) graph_parent[static_cast<size_t>(r)] = g;
    }
  t->requires_grad = grad;
  t->leaf = !grad;
  t->graph = -1;
  if (!grad) return;
  if (g < 0) {
    g = static_cast<int32_t>(graph_parent.size());
    graph_parent.push_back(g);
  }
  t->graph = g;
  for (Value v : inputs)
    if (TensorObj* x = tensor(v); x && x->requires_grad && storages[x->storage].role == Role::Param)
      param_uses.insert(uint64_t{x->storage} << 32 | static_cast<uint32_t>(g));
}
void Interp::link(Value out, std::initializer_list<Value> inputs) {
  link(out, std::span<const Value>(inputs.begin(), inputs.size()));
}

void Interp::save(Value tv, Value out) {
  TensorObj* t = tensor(tv);
  TensorObj* ot = tensor(out);
  if (!t || !ot || !ot->requires_grad) return;
  StrId mod = module_path.empty() ? kNone32 : module_path.back();
  // Attention scores (q @ k^T and what is derived from them): what
  // explicit attention keeps and SDPA does not.
  SavedRecord r{t->storage, t->score, mod, phase, ot->graph, dropout_depth > 0, segment};
  log_step(StepEvent::Kind::Save, t->storage, ot->graph, segment);
  // Inside a checkpointed segment nothing is kept: it is recomputed in backward.
  if (segment != kNone32) save_segment(r);
  else saved.push_back(r);
}

bool is_contiguous(Interp& in, const TensorObj& t) {
  if (!t.dense) return false;
  if (t.perm.empty()) return true;
  int last = -1;
  for (uint8_t d : t.perm) {
    if (d >= t.shape.size()) continue;
    if (in.dims.value(t.shape[d]) == 1) continue;
    if (static_cast<int>(d) < last) return false;
    last = d;
  }
  return true;
}

// ---------------------------------------------------------------- helpers

std::vector<uint8_t> identity_perm(size_t n) {
  std::vector<uint8_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

std::optional<int64_t> norm_dim(int64_t d, size_t rank) {
  int64_t r = static_cast<int64_t>(rank);
  if (d < 0) d += r;
  if (d < 0 || d >= r) return std::nullopt;
  return d;
}

std::optional<std::vector<DimId>> shape_from(Interp& in, const Args& a, size_t start) {
  std::vector<Value> items;
  if (a.pos.size() == start + 1 && in.seq(a.pos[start])) {
    items = *in.seq(a.pos[start]);
  } else if (a.pos.size() > start) {
    items.assign(a.pos.begin() + static_cast<long>(start), a.pos.end());
  } else if (auto s = a.kwarg(in, "size")) {
    if (auto* q = in.seq(*s)) items = *q;
    else items = {*s};
  } else {
    return std::vector<DimId>{};
  }
  std::vector<DimId> out;
  for (Value v : items) {
    if (v.kind == VKind::Int) out.push_back(v.dim());
    else if (v.kind == VKind::Bool) out.push_back(in.dims.constant(v.a));
    else return std::nullopt;
  }
  return out;
}

std::optional<Dtype> dtype_arg(Interp& in, const Args& a, std::string_view name) {
  auto v = a.kwarg(in, name);
  if (v && v->kind == VKind::Dtype) return static_cast<Dtype>(v->a);
  return std::nullopt;
}

Value requires_grad_kw(Interp& in, const Args& a, Value t) {
  if (auto rg = a.kwarg(in, "requires_grad"); rg && in.truth(*rg).value_or(false)) {
    in.tensor(t)->requires_grad = true;
    in.tensor(t)->leaf = true;
  }
  return t;
}

Value tensor_copy(Interp& in, Value x, std::optional<Dtype> dt) {
  TensorObj* t = in.tensor(x);
  Value out = in.new_tensor(t->shape, dt ? *dt : t->dtype);
  in.tensor(out)->score = t->score;
  in.link(out, {x});
  return out;
}

// ----------------------------------------------------------- attributes

Value tensor_attr(Interp& in, Value tv, std::string_view n, bool& handled) {
  handled = true;
  TensorObj* t = in.tensor(tv);
  if (n == "shape") {
    std::vector<Value> dims;
    for (DimId d : t->shape) dims.push_back(Value::integer(d));
    return in.make_list(std::move(dims), OKind::Tuple);
  }
  if (n == "dtype") return Value::dtype(t->dtype);
  if (n == "device") return in.str_value("cuda");
  if (n == "requires_grad") return Value::boolean(t->requires_grad);
  if (n == "is_leaf") return Value::boolean(t->leaf);
  if (n == "ndim") return in.int_value(static_cast<int64_t>(t->shape.size()));
  // numpy's and torch 2.1+'s element and total sizes in bytes (an array
  // modeled as a tensor: a slice of an np.memmap).
  if (n == "itemsize") return in.int_value(dtype_size(t->dtype));
  if (n == "nbytes") return Value::integer(in.dims.mul(in.numel(*t), dtype_size(t->dtype)));
  if (n == "is_cuda") return Value::boolean(true);
  // Every tensor is modelled on the GPU (is_cuda above), so none is on the
  // meta device: `if freqs.is_meta: return` (torchtune's RoPE) goes on.
  if (n == "is_meta") return Value::boolean(false);
  if (n == "grad") return t->grad == kNone32 ? Value::none() : Value::obj(t->grad);
  if (n == "data") {
    Value d = in.view_of(tv, t->shape, t->perm);
    TensorObj* dt = in.tensor(d);
    dt->requires_grad = false;
    dt->leaf = true;
    dt->graph = -1;
    return d;
  }
  if (n == "T" || n == "mT") {
    size_t r = t->shape.size();
    if (r < 2) return tv;
    std::vector<DimId> s = t->shape;
    std::swap(s[r - 1], s[r - 2]);
    std::vector<uint8_t> p = t->perm.empty() ? identity_perm(r) : t->perm;
    for (uint8_t& d : p) {
      if (d == r - 1) d = static_cast<uint8_t>(r - 2);
      else if (d == r - 2) d = static_cast<uint8_t>(r - 1);
    }
    return in.view_of(tv, s, p);
  }
  if (n == "grad_fn" || n == "layout") return Value::unknown();
  handled = false;
  return Value::unknown();
}

// ------------------------------------------------------------- factories

namespace {

Value factory(Interp& in, Args& a, Dtype def) {
  auto shape = shape_from(in, a, 0);
  if (!shape) return Value::unknown();
  Dtype dt = dtype_arg(in, a, "dtype").value_or(def);
  return requires_grad_kw(in, a, in.new_tensor(*shape, dt));
}
Value t_float_factory(Interp& in, Args& a) { return factory(in, a, in.default_float); }

Value t_like(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  Dtype dt = dtype_arg(in, a, "dtype").value_or(t->dtype);
  return requires_grad_kw(in, a, in.new_tensor(t->shape, dt));
}

/// x.new_zeros(*size) / new_ones / new_empty, and new_full(size, v) /
/// new_tensor(data) whose `sizes` is one argument: x's dtype. The sizes are
/// varargs or one tuple (`weight.new_zeros(nlayers, bsz, nhid)` in an
/// RNN's init_hidden, torch's word_language_model).
Value new_factory(Interp& in, Args& a, size_t sizes) {
  TensorObj* t = in.tensor(a.pos[0]);
  auto shape = shape_from(in, Args{{a.pos.begin() + 1, a.pos.begin() + std::min(1 + sizes, a.pos.size())}, a.kw, a.span}, 0);
  if (!shape) return Value::unknown();
  return in.new_tensor(*shape, dtype_arg(in, a, "dtype").value_or(t->dtype));
}
Value t_new_factory(Interp& in, Args& a) { return new_factory(in, a, a.pos.size()); }
Value t_new_full(Interp& in, Args& a) { return new_factory(in, a, 1); }

Value t_full(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  Args sa{{a.pos[0]}, {}, a.span};
  auto shape = shape_from(in, sa, 0);
  if (!shape) return Value::unknown();
  Dtype def = in.default_float;
  if (a.pos.size() > 1) {
    if (a.pos[1].kind == VKind::Bool) def = Dtype::Bool;
    else if (a.pos[1].kind == VKind::Int) def = Dtype::Int64;
  }
  return requires_grad_kw(in, a, in.new_tensor(*shape, dtype_arg(in, a, "dtype").value_or(def)));
}

Value t_randint(Interp& in, Args& a) {
  // randint(high, size) or randint(low, high, size)
  size_t si = a.pos.size() >= 3 ? 2 : 1;
  if (a.pos.size() <= si && !a.kwarg(in, "size")) return Value::unknown();
  Args sa{{}, a.kw, a.span};
  if (a.pos.size() > si) sa.pos = {a.pos[si]};
  auto shape = shape_from(in, sa, 0);
  if (!shape) return Value::unknown();
  return in.new_tensor(*shape, dtype_arg(in, a, "dtype").value_or(Dtype::Int64));
}

Value t_arange(Interp& in, Args& a) {
  Value lo = in.int_value(0), hi, st = in.int_value(1);
  if (a.pos.size() == 1) hi = a.pos[0];
  else if (a.pos.size() >= 2) {
    lo = a.pos[0];
    hi = a.pos[1];
    if (a.pos.size() >= 3) st = a.pos[2];
  } else if (auto e = a.kwarg(in, "end")) {
    hi = *e;
  }
  if (auto s = a.kwarg(in, "start")) lo = *s;
  bool ints = lo.kind == VKind::Int && hi.kind == VKind::Int && st.kind == VKind::Int;
  Dtype def = ints ? Dtype::Int64 : in.default_float;
  DimId n;
  if (ints && in.dims.value(st.dim()) == 1) {
    n = in.dims.sub(hi.dim(), lo.dim());
  } else {
    auto x = in.as_number(lo), y = in.as_number(hi), z = in.as_number(st);
    if (!x || !y || !z || *z == 0) return Value::unknown();
    n = in.dims.constant(static_cast<int64_t>(std::ceil((*y - *x) / *z)));
  }
  return in.new_tensor({n}, dtype_arg(in, a, "dtype").value_or(def));
}

/// torch.tensor(data): shape from nested lists, dtype from the elements.
/// Data the interpreter could not read (a list built from strings it does
/// not format, an array) has a shape it does not know: Unknown, never a
/// 0-d tensor, which would make a batch of such samples a batch of scalars
/// and the step's activations nearly nothing; so is a list of guessed
/// length (kInexactLen: `[int(c) for c in text]` over a string it could not
/// format, minGPT adder's digits). Only a Python number is 0-d; an unread
/// element of a list (`[x.item(), n]`) is taken as one.
Value t_tensor(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  std::vector<DimId> shape;
  Value v = a.pos[0];
  Dtype dt = Dtype::Int64;
  if (in.tensor(v)) return tensor_copy(in, v, dtype_arg(in, a, "dtype"));
  if (!in.seq(v) && v.kind != VKind::Int && v.kind != VKind::Float && v.kind != VKind::Bool)
    return Value::unknown();
  while (auto* s = in.seq(v)) {
    if (in.o(v).flags & kInexactLen) return Value::unknown();
    shape.push_back(in.dims.constant(static_cast<int64_t>(s->size())));
    if (s->empty()) break;
    v = (*s)[0];
  }
  if (v.kind == VKind::Float) dt = in.default_float;
  else if (v.kind == VKind::Bool) dt = Dtype::Bool;
  else if (v.kind != VKind::Int && !in.seq(v)) dt = in.default_float;
  return requires_grad_kw(in, a, in.new_tensor(shape, dtype_arg(in, a, "dtype").value_or(dt)));
}

Value t_eye(Interp& in, Args& a) {
  if (a.pos.empty() || a.pos[0].kind != VKind::Int) return Value::unknown();
  DimId m = a.pos.size() > 1 && a.pos[1].kind == VKind::Int ? a.pos[1].dim() : a.pos[0].dim();
  return in.new_tensor({a.pos[0].dim(), m}, dtype_arg(in, a, "dtype").value_or(in.default_float));
}

Value t_same_shape_new(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  return tensor_copy(in, a.pos[0], std::nullopt);
}

Value t_parameter(Interp& in, Args& a) {
  Value data = a.get(in, 0, "data").value_or(Value::unknown());
  TensorObj* t = in.tensor(data);
  if (!t) {
    in.note_unsized("the shape of an `nn.Parameter`");
    return Value::unknown();
  }
  // nn.Parameter(t) shares t's storage; it becomes a parameter.
  Value p = in.view_of(data, t->shape, t->perm);
  TensorObj* pt = in.tensor(p);
  in.storages[pt->storage].role = Role::Param;
  bool rg = true;
  if (auto r = a.get(in, 1, "requires_grad")) rg = in.truth(*r).value_or(true);
  pt->requires_grad = rg;
  pt->leaf = true;
  pt->graph = -1;
  return p;
}

}  // namespace

void register_tensor_shape(Builtins& b) {
  auto& f = b.functions;
  for (const char* n : {"randn", "rand", "zeros", "ones", "empty"}) f[std::string("torch.") + n] = t_float_factory;
  for (const char* n : {"randn_like", "rand_like", "zeros_like", "ones_like", "empty_like", "full_like"})
    f[std::string("torch.") + n] = t_like;
  f["torch.full"] = t_full;
  f["torch.randint"] = t_randint;
  f["torch.randperm"] = t_randint;
  f["torch.arange"] = t_arange;
  f["torch.tensor"] = t_tensor;
  f["torch.as_tensor"] = t_tensor;
  f["torch.LongTensor"] = t_tensor;
  f["torch.FloatTensor"] = t_tensor;
  f["torch.eye"] = t_eye;
  f["torch.tril"] = t_same_shape_new;
  f["torch.triu"] = t_same_shape_new;
  f["torch.nn.Parameter"] = t_parameter;
  f["torch.nn.parameter.Parameter"] = t_parameter;
  auto& m = b.tensor_methods;
  for (const char* n : {"new_zeros", "new_ones", "new_empty"}) m[n] = t_new_factory;
  for (const char* n : {"new_full", "new_tensor"}) m[n] = t_new_full;
  m["tril"] = t_same_shape_new;
  m["triu"] = t_same_shape_new;
}

}  // namespace tpf::memory
