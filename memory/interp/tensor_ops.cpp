// Tensor arithmetic and what autograd saves for it. The save rules are the
// derivative formulas of torch 1.13's tools/autograd/derivatives.yaml as
// its codegen applies them (an input is saved only when the other input's
// gradient needs it), checked against saved_tensors_hooks on torch 1.13
// (test/memory/README.md): mul saves the other operand, a python scalar as
// an 8-byte 0-dim tensor; relu/tanh/sigmoid/exp/sqrt/softmax save their
// result; gelu/silu/log/pow/clamp/mean save their input; sum/add/cat save
// nothing; max(dim) saves indices; batched matmul saves its operands after
// `reshape`, i.e. a copy of a non-contiguous one.
// requires: tensor_shape.cpp. produces: tensor results and SavedRecords.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

// ------------------------------------------------------------- helpers

std::vector<DimId> broadcast(Interp& in, const std::vector<DimId>& a, const std::vector<DimId>& b) {
  size_t r = std::max(a.size(), b.size());
  std::vector<DimId> out(r);
  for (size_t k = 0; k < r; ++k) {
    size_t ia = k + a.size(), ib = k + b.size();
    DimId x = ia >= r ? a[ia - r] : in.dims.constant(1);
    DimId y = ib >= r ? b[ib - r] : in.dims.constant(1);
    out[k] = in.dims.value(x) == 1 ? y : x;
  }
  return out;
}

Dtype promote(Dtype a, Dtype b) {
  if (a == b) return a;
  // Complex wins, at double width when either side is (torch's result_type).
  if (is_complex(a) || is_complex(b)) {
    bool wide = a == Dtype::Complex128 || b == Dtype::Complex128 || a == Dtype::Float64 || b == Dtype::Float64;
    return wide ? Dtype::Complex128 : Dtype::Complex64;
  }
  bool fa = is_floating(a), fb = is_floating(b);
  if (fa != fb) return fa ? a : b;
  if (dtype_size(a) != dtype_size(b)) return dtype_size(a) > dtype_size(b) ? a : b;
  // float16 with bfloat16 promotes to float32, as in torch.
  if (fa) return Dtype::Float32;
  return a == Dtype::Bool ? b : a;
}

TensorObj* tensor_arg(Interp& in, const Args& a, size_t i, std::string_view name) {
  auto v = a.get(in, i, name);
  return v ? in.tensor(*v) : nullptr;
}

int64_t int_arg(Interp& in, const Args& a, size_t i, std::string_view name, int64_t def) {
  auto v = a.get(in, i, name);
  if (!v) return def;
  return in.as_int(*v).value_or(def);
}

Value autocast_lower(Interp& in, Value x) {
  auto ac = in.autocast_dtype();
  TensorObj* t = in.tensor(x);
  if (!ac || !t || !is_floating(t->dtype) || t->dtype == *ac || t->dtype == Dtype::Float64)
    return x;
  // Autocast caches the casts of leaf tensors that require grad (weights)
  // for the enabled region (torch/csrc/autograd autocast_mode.cpp, 1.13 and
  // 2.x): one copy per parameter, kept alive by the graph.
  bool param = in.storages[t->storage].role == Role::Param;
  if (param) {
    auto it = in.autocast_cache.find(t->storage);
    if (it != in.autocast_cache.end()) {
      // Same parameter, maybe another view of it (weight.t()).
      Value c = Value::obj(it->second);
      TensorObj* ct = in.tensor(c);
      if (ct->shape.size() == t->shape.size()) {
        Value v = in.view_of(c, t->shape, t->perm);
        return v;
      }
    }
  }
  Value c = tensor_copy(in, x, *ac);
  TensorObj* ct = in.tensor(c);
  ct->perm = t->perm;
  if (param) {
    in.storages[ct->storage].role = Role::AutocastCopy;
    in.autocast_cache[t->storage] = c.a;
    in.autocast_copy_region[ct->storage] = in.autocast_region;
  }
  return c;
}

Value autocast_fp32(Interp& in, Value x) {
  if (!in.autocast_dtype() || in.opt.kernels == Kernels::Cpu) return x;
  TensorObj* t = in.tensor(x);
  if (!t || (t->dtype != Dtype::Float16 && t->dtype != Dtype::BFloat16)) return x;
  return tensor_copy(in, x, Dtype::Float32);
}

void save_scalar(Interp& in, Value out) {
  TensorObj* ot = in.tensor(out);
  if (!ot || !ot->requires_grad) return;
  // A python number becomes a wrapped 0-dim tensor (int64 or float64).
  Value s = in.new_tensor({}, Dtype::Float64);
  in.save(s, out);
}

namespace {

bool is_number(const Value& v) {
  return v.kind == VKind::Int || v.kind == VKind::Float || v.kind == VKind::Bool;
}

Value as_tensor_operand(Interp& in, Value v) { return in.tensor(v) ? v : Value::unknown(); }

}  // namespace

Value matmul(Interp& in, Value a, Value b);

Value tensor_binop(Interp& in, ast::Op op, Value a, Value b, bool inplace) {
  using ast::Op;
  TensorObj* ta = in.tensor(a);
  TensorObj* tb = in.tensor(b);
  if ((!ta && !is_number(a)) || (!tb && !is_number(b))) return Value::unknown();
  if (op == Op::MatMult) return ta && tb ? matmul(in, a, b) : Value::unknown();
  std::vector<DimId> shape = ta && tb ? broadcast(in, ta->shape, tb->shape) : (ta ? ta : tb)->shape;
  Dtype dt;
  if (ta && tb) {
    // A 0-dim tensor does not promote a dimensioned one of the same kind.
    if (ta->shape.empty() != tb->shape.empty() && is_floating(ta->dtype) == is_floating(tb->dtype))
      dt = ta->shape.empty() ? tb->dtype : ta->dtype;
    else
      dt = promote(ta->dtype, tb->dtype);
  } else {
    TensorObj* t = ta ? ta : tb;
    Value n = ta ? b : a;
    dt = t->dtype;
    if (!is_floating(dt) && !is_complex(dt) && n.kind == VKind::Float) dt = Dtype::Float32;
    if (op == Op::Div && !is_floating(dt) && !is_complex(dt)) dt = Dtype::Float32;
  }
  if (op == Op::Eq || op == Op::FloorDiv || op == Op::Mod || op == Op::BitAnd || op == Op::BitOr ||
      op == Op::BitXor) {
    Value out = in.new_tensor(shape, op == Op::FloorDiv || op == Op::Mod ? dt : Dtype::Bool);
    return out;
  }
  Value out;
  std::vector<Value> inputs;
  if (ta) inputs.push_back(a);
  if (tb) inputs.push_back(b);
  if (inplace && ta) {
    out = a;
    bool req = in.needs_grad(inputs);
    TensorObj* t = in.tensor(out);
    if (req) {
      int32_t g = t->graph;
      in.link(out, inputs);
      (void)g;
    }
  } else {
    out = in.new_tensor(shape, dt);
    // Elementwise results keep the layout of a same-shaped operand (TensorIterator).
    TensorObj* like = ta && ta->shape == shape ? ta : tb && tb->shape == shape ? tb : nullptr;
    if (like && !like->perm.empty() && like->dense) in.tensor(out)->perm = like->perm;
    in.link(out, inputs);
  }
  if ((ta && ta->score) || (tb && tb->score)) in.tensor(out)->score = true;
  // `i + block_size` of a 0-dim integer tensor `i` (an index drawn by
  // torch.randint): the same unknown plus a known offset, which decides a
  // slice's length `(i + block_size) - i` (file_arrays.cpp).
  if ((op == Op::Add || op == Op::Sub) &&
      ((ta && !tb && b.kind == VKind::Int) || (tb && !ta && a.kind == VKind::Int))) {
    Value t = ta ? a : b;
    TensorObj* tt = ta ? ta : tb;
    DimId n = ta ? b.dim() : a.dim();
    const bool index = tt->shape.empty() && !is_floating(tt->dtype) && !is_complex(tt->dtype) &&
                       tt->dtype != Dtype::Bool;
    if (index && op == Op::Add)
      relate_index(in, out, t, n);
    else if (index && ta)
      relate_index(in, out, t, in.dims.mul(n, -1));  // i - n (n - i is no offset of i)
  } else if (inplace && ta && ta->shape.empty()) {
    forget_index(in, out);
  }
  bool ga = ta && ta->requires_grad && in.grad_enabled;
  bool gb = tb && tb->requires_grad && in.grad_enabled;
  switch (op) {
    case Op::Mult:
      if (ga) tb ? in.save(b, out) : save_scalar(in, out);
      if (gb) ta ? in.save(a, out) : save_scalar(in, out);
      break;
    case Op::Div:
      if (ga) tb ? in.save(b, out) : save_scalar(in, out);
      if (gb) {
        if (ta) in.save(a, out);
        in.save(b, out);
      }
      break;
    case Op::Pow:
      if (ta && !tb) {
        in.save(a, out);
      } else if (tb) {
        if (ta) in.save(a, out);
        in.save(out, out);
      }
      break;
    default: break;  // add, sub: nothing
  }
  return out;
}

Value tensor_compare(Interp& in, ast::Op, Value a, Value b) {
  TensorObj* ta = in.tensor(a);
  TensorObj* tb = in.tensor(b);
  std::vector<DimId> shape = ta && tb ? broadcast(in, ta->shape, tb->shape) : (ta ? ta : tb)->shape;
  return in.new_tensor(shape, Dtype::Bool);
}

Value tensor_unary(Interp& in, ast::Op op, Value a) {
  TensorObj* t = in.tensor(a);
  Value out = in.new_tensor(t->shape, op == ast::Op::Invert ? t->dtype : t->dtype);
  if (op != ast::Op::Invert) in.link(out, {a});
  return out;
}

// ----------------------------------------------------------- elementwise

namespace {

enum class Saves : uint8_t { Nothing, Input, Result, Both };

/// An elementwise function: output like the input; `inplace` writes the
/// input's storage (then what is saved is that storage).
Value elementwise(Interp& in, Value x, Saves s, bool inplace, bool fp32_list = false) {
  if (fp32_list) x = autocast_fp32(in, x);
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  Value out;
  if (inplace) {
    out = x;
    std::vector<Value> ins{x};
    if (in.needs_grad(ins)) in.link(out, ins);
  } else {
    out = in.new_tensor(t->shape, t->dtype);
    in.tensor(out)->perm = t->perm;
    in.link(out, {x});
  }
  in.tensor(out)->score = t->score;
  switch (s) {
    case Saves::Input: in.save(x, out); break;
    case Saves::Result: in.save(out, out); break;
    case Saves::Both:
      in.save(x, out);
      in.save(out, out);
      break;
    default: break;
  }
  return out;
}

bool inplace_kw(Interp& in, const Args& a, size_t pos) {
  auto v = a.get(in, pos, "inplace");
  return v && in.truth(*v).value_or(false);
}

#define TPF_EW(fname, saves, fp32)                                                        \
  Value fname(Interp& in, Args& a) {                                                    \
    return a.pos.empty() ? Value::unknown() : elementwise(in, a.pos[0], saves, false, fp32); \
  }
#define TPF_EW_(fname, saves)                                                             \
  Value fname(Interp& in, Args& a) {                                                    \
    return a.pos.empty() ? Value::unknown() : elementwise(in, a.pos[0], saves, true);    \
  }

TPF_EW(e_gelu, Saves::Input, false)
TPF_EW(e_tanh, Saves::Result, false)
TPF_EW(e_sigmoid, Saves::Result, false)
TPF_EW(e_exp, Saves::Result, true)
TPF_EW(e_log, Saves::Input, true)
TPF_EW(e_sqrt, Saves::Result, false)
TPF_EW(e_rsqrt, Saves::Result, true)
TPF_EW(e_abs, Saves::Input, false)
TPF_EW(e_sin, Saves::Input, false)
TPF_EW(e_erf, Saves::Input, false)
TPF_EW(e_neg, Saves::Nothing, false)
TPF_EW(e_softplus, Saves::Input, true)
TPF_EW(e_mish, Saves::Input, false)
TPF_EW(e_hard, Saves::Input, false)
TPF_EW(e_reciprocal, Saves::Result, true)
TPF_EW(e_nosave, Saves::Nothing, false)
TPF_EW_(e_sigmoid_, Saves::Result)
TPF_EW_(e_tanh_, Saves::Result)
TPF_EW_(e_relu_, Saves::Result)
TPF_EW_(e_nosave_, Saves::Nothing)

Value e_relu(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  return elementwise(in, a.pos[0], Saves::Result, inplace_kw(in, a, 1));
}

/// leaky_relu/elu/hardtanh: the input, or the result when in place.
Value e_leaky(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  bool ip = inplace_kw(in, a, 2);
  return elementwise(in, a.pos[0], ip ? Saves::Result : Saves::Input, ip);
}

/// hardtanh/relu6/silu/hardswish/hardsigmoid: the input. In place, the
/// backward still needs the input as it was, so autograd saves a copy of
/// it before the op overwrites it (a CloneBackward0 node; measured with
/// torch 1.13: nn.ReLU6/SiLU/Hardswish/Hardsigmoid(inplace=True) each keep
/// one input-sized clone, while the next layer saves the overwritten
/// storage as its own input). ReLU, LeakyReLU and ELU save their result
/// instead and need no copy (e_relu, e_leaky).
Value saves_input_copy(Interp& in, Args& a, size_t inplace_pos) {
  if (a.pos.empty()) return Value::unknown();
  if (!inplace_kw(in, a, inplace_pos)) return elementwise(in, a.pos[0], Saves::Input, false);
  TensorObj* t = in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  Value copy = in.new_tensor(t->shape, t->dtype);
  in.link(copy, {a.pos[0]});
  Value out = elementwise(in, a.pos[0], Saves::Nothing, true);
  in.save(copy, out);
  return out;
}
Value e_silu_kw(Interp& in, Args& a) { return saves_input_copy(in, a, 1); }
Value e_hardtanh(Interp& in, Args& a) { return saves_input_copy(in, a, 3); }

Value e_pow(Interp& in, Args& a) {
  if (a.pos.size() < 2) return Value::unknown();
  return tensor_binop(in, ast::Op::Pow, a.pos[0], a.pos[1], false);
}

Value e_clamp(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  return elementwise(in, a.pos[0], Saves::Input, false);
}

Value binop_fn(Interp& in, Args& a, ast::Op op) {
  Value x = a.get(in, 0, "input").value_or(Value::unknown());
  Value y = a.get(in, 1, "other").value_or(Value::unknown());
  return tensor_binop(in, op, x, y, false);
}
Value f_add(Interp& in, Args& a) { return binop_fn(in, a, ast::Op::Add); }
Value f_sub(Interp& in, Args& a) { return binop_fn(in, a, ast::Op::Sub); }
Value f_mul(Interp& in, Args& a) { return binop_fn(in, a, ast::Op::Mult); }
Value f_div(Interp& in, Args& a) { return binop_fn(in, a, ast::Op::Div); }
Value f_matmul(Interp& in, Args& a) { return binop_fn(in, a, ast::Op::MatMult); }
Value f_add_(Interp& in, Args& a) {
  if (a.pos.size() < 2) return a.pos.empty() ? Value::unknown() : a.pos[0];
  return tensor_binop(in, ast::Op::Add, a.pos[0], a.pos[1], true);
}
Value f_mul_(Interp& in, Args& a) {
  if (a.pos.size() < 2) return a.pos.empty() ? Value::unknown() : a.pos[0];
  return tensor_binop(in, ast::Op::Mult, a.pos[0], a.pos[1], true);
}

}  // namespace

// ---------------------------------------------------------------- matmul

Value matmul(Interp& in, Value a, Value b) {
  a = autocast_lower(in, a);
  b = autocast_lower(in, b);
  TensorObj* ta = in.tensor(a);
  TensorObj* tb = in.tensor(b);
  if (!ta || !tb || ta->shape.empty() || tb->shape.empty()) return Value::unknown();
  size_t ra = ta->shape.size(), rb = tb->shape.size();
  std::vector<DimId> shape;
  if (ra == 1 && rb == 1) {
    shape = {};
  } else if (rb == 1) {
    shape.assign(ta->shape.begin(), ta->shape.end() - 1);
  } else if (ra == 1) {
    shape.assign(tb->shape.begin(), tb->shape.end() - 2);
    shape.push_back(tb->shape.back());
  } else {
    std::vector<DimId> ba(ta->shape.begin(), ta->shape.end() - 2);
    std::vector<DimId> bb(tb->shape.begin(), tb->shape.end() - 2);
    shape = broadcast(in, ba, bb);
    shape.push_back(ta->shape[ra - 2]);
    shape.push_back(tb->shape[rb - 1]);
  }
  Value out = in.new_tensor(shape, promote(ta->dtype, tb->dtype));
  // q @ k^T: a batched square (..., T, T) product is an attention score matrix.
  size_t ro = shape.size();
  if (ro >= 3 && shape[ro - 1] == shape[ro - 2] && in.dims.value(shape[ro - 1]) > 1 &&
      ta->shape.back() == tb->shape[rb - 2] && ta->shape.back() != shape[ro - 1])
    in.tensor(out)->score = true;
  bool ga = ta->requires_grad && in.grad_enabled, gb = tb->requires_grad && in.grad_enabled;
  in.link(out, {a, b});
  // at::matmul (1.13): 2-D and the folded 3-D @ 2-D case save the operands
  // as they are; the batched case runs bmm on `expand(...).reshape(...)`,
  // which copies an operand that is not contiguous. That copy is saved.
  bool batched = ra >= 3 && rb >= 3;
  bool batched_mixed = (ra >= 3 && rb >= 3) || (ra == 2 && rb >= 3);
  auto operand = [&](Value v) {
    TensorObj* t = in.tensor(v);
    if (!(batched || batched_mixed) || is_contiguous(in, *t)) return v;
    Value c = tensor_copy(in, v, std::nullopt);
    return c;
  };
  if (gb) in.save(operand(a), out);
  if (ga) in.save(operand(b), out);
  return out;
}

Value f_bmm(Interp& in, Args& a) {
  // bmm/mm/baddbmm save their operands as given (no reshape).
  Value x = a.pos.size() > 0 ? a.pos[0] : Value::unknown();
  Value y = a.pos.size() > 1 ? a.pos[1] : Value::unknown();
  x = autocast_lower(in, x);
  y = autocast_lower(in, y);
  TensorObj* tx = in.tensor(x);
  TensorObj* ty = in.tensor(y);
  if (!tx || !ty || tx->shape.size() < 2 || ty->shape.size() < 2) return Value::unknown();
  std::vector<DimId> s(tx->shape.begin(), tx->shape.end() - 1);
  s.push_back(ty->shape.back());
  Value out = in.new_tensor(s, promote(tx->dtype, ty->dtype));
  size_t ro = s.size();
  if (ro >= 3 && s[ro - 1] == s[ro - 2] && in.dims.value(s[ro - 1]) > 1 && tx->shape.back() != s[ro - 1])
    in.tensor(out)->score = true;
  in.link(out, {x, y});
  if (ty->requires_grad) in.save(x, out);
  if (tx->requires_grad) in.save(y, out);
  return out;
}

/// torch.outer(a, b) / torch.ger: (n,) x (m,) -> (n, m); each operand is
/// saved for the other's gradient (rotary caches: `torch.outer(pos, theta)`).
Value f_outer(Interp& in, Args& a) {
  Value x = autocast_lower(in, a.get(in, 0, "input").value_or(Value::unknown()));
  Value y = autocast_lower(in, a.get(in, 1, "vec2").value_or(Value::unknown()));
  TensorObj* tx = in.tensor(x);
  TensorObj* ty = in.tensor(y);
  if (!tx || !ty || tx->shape.size() != 1 || ty->shape.size() != 1) return Value::unknown();
  Value out = in.new_tensor({tx->shape[0], ty->shape[0]}, promote(tx->dtype, ty->dtype));
  in.link(out, {x, y});
  if (in.grad_enabled && ty->requires_grad) in.save(x, out);
  if (in.grad_enabled && tx->requires_grad) in.save(y, out);
  return out;
}

/// torch.polar(abs, angle): abs * (cos + i sin), complex of the operands'
/// width; its backward reads the result (derivatives.yaml polar_backward).
/// RoPE tables: `torch.polar(torch.ones_like(freqs), freqs)`.
Value f_polar(Interp& in, Args& a) {
  Value x = a.get(in, 0, "abs").value_or(Value::unknown());
  Value y = a.get(in, 1, "angle").value_or(Value::unknown());
  TensorObj* tx = in.tensor(x);
  TensorObj* ty = in.tensor(y);
  if (!tx || !ty) return Value::unknown();
  Dtype d = promote(tx->dtype, ty->dtype) == Dtype::Float64 ? Dtype::Complex128 : Dtype::Complex64;
  Value out = in.new_tensor(broadcast(in, tx->shape, ty->shape), d);
  in.link(out, {x, y});
  if (in.needs_grad({x, y})) in.save(out, out);
  return out;
}

Value f_baddbmm(Interp& in, Args& a) {
  if (a.pos.size() < 3) return Value::unknown();
  Args m{{a.pos[1], a.pos[2]}, {}, a.span};
  Value out = f_bmm(in, m);
  if (TensorObj* bias = in.tensor(a.pos[0]); bias && in.tensor(out)) {
    std::vector<Value> ins{out, a.pos[0]};
    in.link(out, ins);
  }
  return out;
}

Value f_addmm(Interp& in, Args& a) {
  if (a.pos.size() < 3) return Value::unknown();
  Value bias = autocast_lower(in, a.pos[0]);
  Value x = autocast_lower(in, a.pos[1]);
  Value w = autocast_lower(in, a.pos[2]);
  TensorObj* tx = in.tensor(x);
  TensorObj* tw = in.tensor(w);
  if (!tx || !tw || tx->shape.size() != 2 || tw->shape.size() != 2) return Value::unknown();
  Value out = in.new_tensor({tx->shape[0], tw->shape[1]}, promote(tx->dtype, tw->dtype));
  in.link(out, {bias, x, w});
  if (tw->requires_grad) in.save(x, out);
  if (tx->requires_grad) in.save(w, out);
  return out;
}

Value f_cmp(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  return tensor_compare(in, ast::Op::Eq, a.pos[0], a.pos.size() > 1 ? a.pos[1] : a.pos[0]);
}

Value f_finfo(Interp& in, Args&) {
  ObjId o = in.alloc(OKind::Instance);
  in.o(o).type = in.intern("torch.finfo");
  in.o(o).attrs.set(in.intern("min"), Value::real(-3.4e38));
  in.o(o).attrs.set(in.intern("max"), Value::real(3.4e38));
  in.o(o).attrs.set(in.intern("eps"), Value::real(1.2e-7));
  return Value::obj(o);
}

void register_tensor_reduce(Builtins& b);

void register_tensor_ops(Builtins& b) {
  register_tensor_reduce(b);
  b.functions["torch.addmm"] = f_addmm;
  b.tensor_methods["addmm"] = f_addmm;
  b.functions["torch.finfo"] = f_finfo;
  b.functions["torch.iinfo"] = f_finfo;
  for (const char* n : {"eq", "ne", "gt", "lt", "ge", "le", "logical_and", "logical_or", "isnan", "isinf"}) {
    b.tensor_methods[n] = f_cmp;
    b.functions[std::string("torch.") + n] = f_cmp;
  }
  auto& m = b.tensor_methods;
  auto both = [&](const char* name, Handler h, bool torch_fn = true, bool functional = false) {
    m[name] = h;
    if (torch_fn) b.functions[std::string("torch.") + name] = h;
    if (functional) b.functions[std::string("torch.nn.functional.") + name] = h;
  };
  both("relu", e_relu, true, true);
  both("relu_", e_relu_, true, true);
  both("gelu", e_gelu, false, true);
  both("silu", e_silu_kw, false, true);
  both("tanh", e_tanh, true, true);
  both("tanh_", e_tanh_);
  both("sigmoid", e_sigmoid, true, true);
  both("sigmoid_", e_sigmoid_);
  both("exp", e_exp);
  both("log", e_log);
  both("log1p", e_log);
  both("sqrt", e_sqrt);
  both("rsqrt", e_rsqrt);
  both("abs", e_abs);
  both("sin", e_sin);
  both("cos", e_sin);
  both("erf", e_erf);
  both("neg", e_neg);
  both("reciprocal", e_reciprocal);
  both("sign", e_nosave);
  both("floor", e_nosave);
  both("round", e_nosave);
  both("logical_not", e_nosave);
  both("pow", e_pow);
  both("square", e_mish);
  both("clamp", e_clamp);
  both("clip", e_clamp);
  both("clamp_min", e_clamp);
  both("add", f_add);
  both("sub", f_sub);
  both("mul", f_mul);
  // Elementwise max/min broadcast as mul does and keep both inputs for
  // backward (which of the two each element came from).
  both("maximum", f_mul);
  both("minimum", f_mul);
  both("fmax", f_mul);
  both("fmin", f_mul);
  both("div", f_div);
  both("matmul", f_matmul);
  both("mm", f_bmm);
  both("bmm", f_bmm);
  both("baddbmm", f_baddbmm);
  both("outer", f_outer);
  both("ger", f_outer);
  b.functions["torch.polar"] = f_polar;
  m["add_"] = f_add_;
  m["mul_"] = f_mul_;
  m["masked_fill_"] = e_nosave_;
  m["fill_"] = e_nosave_;
  m["zero_"] = e_nosave_;
  auto& f = b.functions;
  for (const char* n : {"leaky_relu", "elu"}) {
    f[std::string("torch.nn.functional.") + n] = e_leaky;
    m[n] = e_leaky;
  }
  f["torch.nn.functional.hardtanh"] = e_hardtanh;
  f["torch.nn.functional.relu6"] = e_silu_kw;  // relu6(input, inplace): inplace at 1
  m["hardtanh"] = e_hardtanh;
  f["torch.nn.functional.leaky_relu_"] = e_relu_;
  f["torch.nn.functional.softplus"] = e_softplus;
  f["torch.nn.functional.mish"] = e_mish;
  f["torch.nn.functional.hardswish"] = e_silu_kw;  // (input, inplace): inplace at 1
  f["torch.nn.functional.hardsigmoid"] = e_silu_kw;
  f["torch.nn.functional.glu"] = e_hard;
  f["torch.nn.functional.logsigmoid"] = e_hard;
  f["torch.nn.functional.tanh"] = e_tanh;
  f["torch.nn.functional.sigmoid"] = e_sigmoid;
  (void)as_tensor_operand;
}

}  // namespace tpf::memory
