// Reductions and the row-wise ops of autograd's save rules (torch 1.13
// derivatives.yaml, checked with saved_tensors_hooks): sum saves nothing;
// mean over a dim saves its input (over everything, only the count);
// var saves its input; std/norm/amax/logsumexp/prod save input and result;
// max/min with a dim save the indices; softmax/log_softmax save their
// result (in float32 under CUDA autocast); where saves the condition;
// masked_fill the mask; gather input and index; einsum its operands.
// requires: tensor_ops.cpp helpers. produces: tensor results, SavedRecords.
#include <array>
#include <cctype>
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

Value tensor_binop(Interp& in, ast::Op op, Value a, Value b, bool inplace);

namespace {

enum class Saves : uint8_t { Nothing, Input, Both };

/// Output shape of a reduction over `dim` (all dims when absent).
std::optional<std::vector<DimId>> reduced(Interp& in, const TensorObj& t, const Args& a,
                                          size_t dim_pos, bool& all) {
  std::optional<Value> d = a.get(in, dim_pos, "dim");
  bool keep = false;
  if (auto k = a.kwarg(in, "keepdim")) keep = in.truth(*k).value_or(false);
  else if (a.pos.size() > dim_pos + 1 && a.pos[dim_pos + 1].kind == VKind::Bool) keep = a.pos[dim_pos + 1].a;
  all = !d || d->kind == VKind::None;
  if (all) return std::vector<DimId>{};
  std::vector<int64_t> ds;
  if (auto* s = in.seq(*d)) {
    for (Value v : *s)
      if (auto i = in.as_int(v)) ds.push_back(*i);
  } else if (auto i = in.as_int(*d)) {
    ds.push_back(*i);
  } else {
    return std::nullopt;
  }
  std::vector<bool> drop(t.shape.size(), false);
  for (int64_t x : ds) {
    auto n = norm_dim(x, t.shape.size());
    if (!n) return std::nullopt;
    drop[static_cast<size_t>(*n)] = true;
  }
  std::vector<DimId> out;
  for (size_t k = 0; k < t.shape.size(); ++k) {
    if (!drop[k]) out.push_back(t.shape[k]);
    else if (keep) out.push_back(in.dims.constant(1));
  }
  return out;
}

/// A reduction whose dim is the `dim_pos`th positional argument (1 for
/// sum/mean, 2 for norm's `(input, p, dim, keepdim)`).
Value reduction(Interp& in, Args& a, Saves s, bool fp32_list, size_t dim_pos = 1) {
  Value x = a.pos.empty() ? Value::unknown() : a.pos[0];
  if (fp32_list) x = autocast_fp32(in, x);
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  bool all = false;
  auto shape = reduced(in, *t, a, dim_pos, all);
  if (!shape) return Value::unknown();
  Dtype dt = dtype_arg(in, a, "dtype").value_or(t->dtype);
  Value out = in.new_tensor(*shape, dt);
  in.link(out, {x});
  // mean over everything only needs the count; over a dim, 1.13 saves self.
  if (s == Saves::Input && !all) in.save(x, out);
  if (s == Saves::Both) {
    in.save(x, out);
    in.save(out, out);
  }
  return out;
}

Value r_sum(Interp& in, Args& a) { return reduction(in, a, Saves::Nothing, true); }
Value r_mean(Interp& in, Args& a) { return reduction(in, a, Saves::Input, false); }
Value r_var(Interp& in, Args& a) {
  Value r = reduction(in, a, Saves::Nothing, false);
  if (in.tensor(r) && !a.pos.empty()) in.save(a.pos[0], r);
  return r;
}
Value r_both(Interp& in, Args& a) { return reduction(in, a, Saves::Both, false); }
/// `x.norm(p, dim, keepdim)`, `torch.norm` and `torch.linalg.norm(x, ord,
/// dim, keepdim)`: the order comes before the dim (torch 1.13 signatures).
Value r_norm(Interp& in, Args& a) { return reduction(in, a, Saves::Both, false, 2); }
Value r_nograd(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  bool all = false;
  auto shape = reduced(in, *t, a, 1, all);
  if (!shape) return Value::unknown();
  return in.new_tensor(*shape, Dtype::Int64);
}

/// max/min: with a dim, (values, indices) saving the indices; else self and result.
Value r_maxmin(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  if (a.pos.size() > 1 && in.tensor(a.pos[1])) return tensor_binop(in, ast::Op::Add, a.pos[0], a.pos[1], false);
  bool all = false;
  auto shape = reduced(in, *t, a, 1, all);
  if (!shape) return Value::unknown();
  Value out = in.new_tensor(*shape, t->dtype);
  in.link(out, {a.pos[0]});
  if (all) {
    in.save(a.pos[0], out);
    in.save(out, out);
    return out;
  }
  Value idx = in.new_tensor(*shape, Dtype::Int64);
  in.save(idx, out);
  return in.make_list({out, idx}, OKind::Tuple);
}

// -------------------------------------------------------------- softmax

Value softmax_impl(Interp& in, Args& a) {
  Value x = a.get(in, 0, "input").value_or(Value::unknown());
  x = autocast_fp32(in, x);
  TensorObj* t = in.tensor(x);
  if (!t) return Value::unknown();
  if (auto dt = dtype_arg(in, a, "dtype"); dt && *dt != t->dtype) {
    x = tensor_copy(in, x, *dt);
    t = in.tensor(x);
  }
  Value out = in.new_tensor(t->shape, t->dtype);
  in.tensor(out)->score = t->score;
  // The report's attention line: where the first explicit softmax(QK^T)
  // of a step runs (the user's call line for a zoo model), unless a
  // transformers model said where its eager attention comes from.
  if (t->score && in.needs_grad({x}) && !in.cfg.explicit_attention && !in.cfg.sdpa) {
    in.cfg.explicit_attention = true;
    if (in.cfg.attention_origin.source.empty())
      in.cfg.attention_origin = {in.user_line(), "explicit softmax(QK^T)"};
  }
  in.link(out, {x});
  in.save(out, out);
  return out;
}
Value f_softmax(Interp& in, Args& a) { return softmax_impl(in, a); }
Value f_log_softmax(Interp& in, Args& a) { return softmax_impl(in, a); }

Value f_where(Interp& in, Args& a) {
  if (a.pos.size() < 3) return Value::unknown();
  TensorObj* c = in.tensor(a.pos[0]);
  TensorObj* x = in.tensor(a.pos[1]);
  TensorObj* y = in.tensor(a.pos[2]);
  if (!c) return Value::unknown();
  std::vector<DimId> s = c->shape;
  Dtype dt = Dtype::Float32;
  if (x) { s = broadcast(in, s, x->shape); dt = x->dtype; }
  if (y) { s = broadcast(in, s, y->shape); dt = x ? promote(dt, y->dtype) : y->dtype; }
  Value out = in.new_tensor(s, dt);
  in.tensor(out)->score = (x && x->score) || (y && y->score);
  in.link(out, {a.pos[1], a.pos[2]});
  in.save(a.pos[0], out);
  return out;
}

Value f_masked_fill(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t || a.pos.size() < 2) return Value::unknown();
  Value out = in.new_tensor(t->shape, t->dtype);
  in.tensor(out)->score = t->score;
  in.link(out, {a.pos[0]});
  in.save(a.pos[1], out);
  return out;
}

Value f_gather(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  TensorObj* idx = tensor_arg(in, a, 2, "index");
  if (!t || !idx) return Value::unknown();
  Value out = in.new_tensor(idx->shape, t->dtype);
  in.link(out, {a.pos[0]});
  in.save(a.pos[0], out);
  in.save(*a.get(in, 2, "index"), out);
  return out;
}

Value f_nograd_like(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  return t ? in.new_tensor(t->shape, t->dtype) : Value::unknown();
}

/// torch.multinomial(probs, num_samples) and torch.topk(x, k): the last
/// dimension becomes num_samples (k). Sampling makes int64 ids; topk gives
/// (values, indices). A decode loop samples its next token with them.
std::optional<std::vector<DimId>> last_dim_to(Interp& in, Args& a, const char* name) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  auto n = a.get(in, 1, name);
  if (!t || t->shape.empty() || !n || n->kind != VKind::Int) return std::nullopt;
  std::vector<DimId> shape = t->shape;
  shape.back() = n->dim();
  return shape;
}

Value f_multinomial(Interp& in, Args& a) {
  auto shape = last_dim_to(in, a, "num_samples");
  return shape ? in.new_tensor(*shape, Dtype::Int64) : Value::unknown();
}

Value f_topk(Interp& in, Args& a) {
  auto shape = last_dim_to(in, a, "k");
  if (!shape) return Value::unknown();
  Value values = in.new_tensor(*shape, in.tensor(a.pos[0])->dtype);
  in.link(values, {a.pos[0]});
  return in.make_list({values, in.new_tensor(*shape, Dtype::Int64)}, OKind::Tuple);
}

/// torch.einsum(equation, *operands) (or a list of operands): the result
/// has one dimension per output subscript, sized by the first operand that
/// carries it; `...` stands for the dimensions the operands do not name (the
/// longest such run). Without `->` the output is the subscripts used once,
/// in alphabetical order (torch.einsum's implicit mode).
Value f_einsum(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  const std::optional<std::string_view> eq = in.as_str(a.pos[0]);
  std::vector<Value> ops(a.pos.begin() + 1, a.pos.end());
  if (ops.size() == 1 && !in.tensor(ops[0]))
    if (auto items = in.iterate(ops[0])) ops = *items;
  auto unknown = [&] {
    in.note_unknown("`torch.einsum` result shape", a.span, false);
    return Value::unknown();
  };
  if (!eq || ops.empty()) return unknown();
  std::string e;
  for (char c : *eq)
    if (c != ' ') e += c;
  const size_t arrow = e.find("->");
  const std::string lhs = e.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t k = 0; k <= lhs.size();) {
    size_t c = std::min(lhs.find(',', k), lhs.size());
    terms.push_back(lhs.substr(k, c - k));
    k = c + 1;
  }
  if (terms.size() != ops.size()) return unknown();
  std::array<std::optional<DimId>, 128> size_of{};
  std::array<int, 128> uses{};
  std::vector<DimId> ellipsis;
  for (size_t k = 0; k < ops.size(); ++k) {
    TensorObj* t = in.tensor(ops[k]);
    if (!t) return unknown();
    std::string term = terms[k];
    const size_t dots = term.find("...");
    const size_t named = term.size() - (dots == std::string::npos ? 0 : 3);
    if (named > t->shape.size() || (dots == std::string::npos && named != t->shape.size())) return unknown();
    const size_t run = t->shape.size() - named;
    if (dots != std::string::npos && run > ellipsis.size())
      ellipsis.assign(t->shape.begin() + static_cast<std::ptrdiff_t>(dots),
                      t->shape.begin() + static_cast<std::ptrdiff_t>(dots + run));
    size_t dim = 0;
    for (size_t i = 0; i < term.size(); ++i) {
      if (term[i] == '.') {
        if (i == dots) dim += run;
        continue;
      }
      const unsigned char c = static_cast<unsigned char>(term[i]);
      if (c >= 128 || !std::isalpha(c)) return unknown();
      if (!size_of[c]) size_of[c] = t->shape[dim];
      ++uses[c];
      ++dim;
    }
  }
  std::string out;
  if (arrow != std::string::npos) {
    out = e.substr(arrow + 2);
  } else {
    if (!ellipsis.empty()) out = "...";
    for (int c = 0; c < 128; ++c)
      if (uses[c] == 1) out += static_cast<char>(c);
  }
  std::vector<DimId> shape;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out.compare(i, 3, "...") == 0) {
      shape.insert(shape.end(), ellipsis.begin(), ellipsis.end());
      i += 2;
      continue;
    }
    const unsigned char c = static_cast<unsigned char>(out[i]);
    if (c >= 128 || !size_of[c]) return unknown();
    shape.push_back(*size_of[c]);
  }
  Value r = in.new_tensor(shape, in.tensor(ops[0])->dtype);
  in.link(r, ops);
  // A product's gradient for one operand needs the others (einsum runs as
  // permuted bmm calls): each operand is saved when another one needs grad.
  for (size_t k = 0; k < ops.size(); ++k)
    for (size_t j = 0; j < ops.size(); ++j)
      if (j != k && in.tensor(ops[j])->requires_grad && in.grad_enabled) {
        in.save(ops[k], r);
        break;
      }
  return r;
}

}  // namespace

void register_tensor_reduce(Builtins& b) {
  auto& m = b.tensor_methods;
  auto both = [&](const char* name, Handler h, bool functional = false) {
    m[name] = h;
    b.functions[std::string("torch.") + name] = h;
    if (functional) b.functions[std::string("torch.nn.functional.") + name] = h;
  };
  both("softmax", f_softmax, true);
  both("log_softmax", f_log_softmax, true);
  both("where", f_where);
  both("masked_fill", f_masked_fill);
  both("gather", f_gather);
  both("sum", r_sum);
  both("mean", r_mean);
  both("var", r_var);
  both("std", r_both);
  both("norm", r_norm);
  b.functions["torch.linalg.norm"] = r_norm;
  b.functions["torch.linalg.vector_norm"] = r_norm;
  both("amax", r_both);
  both("logsumexp", r_both);
  both("prod", r_both);
  both("max", r_maxmin);
  both("min", r_maxmin);
  both("argmax", r_nograd);
  both("argmin", r_nograd);
  both("cumsum", f_nograd_like);
  both("tril", f_nograd_like);
  both("triu", f_nograd_like);
  both("zeros_like", f_nograd_like);
  both("multinomial", f_multinomial);
  both("topk", f_topk);
  b.functions["torch.einsum"] = f_einsum;
}

}  // namespace tpf::memory
