// inference: the estimate of a script that evaluates or generates instead
// of training. While the script runs, each model forward it calls itself
// is traced for its largest op (the op's input and output are what is
// alive under no_grad: nothing is saved for backward), `model.generate`
// runs the prefill and one decode step, and a hand-written decode loop is
// recognized by the KV cache its forward returns. The peak is then the
// larger of the prefill (weights + the prompt's cache + the prefill's
// largest op) and the last decode step (weights + the full cache + the
// step's largest op + the copy torch.cat makes of one layer's cache).
// requires: interp.h (the interpreter calls the hooks), model_memory's
// parameter counts. produces: InferenceFacts, Estimate::inference.
#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "memory/interp/interp.h"
#include "memory/sim/model.h"
#include "memory/interp/modules.h"

namespace tpf::memory {
namespace {

enum class LayerIx : uint16_t {
  None,
#define TPF_LAYER(id, name) id,
#include "memory/tables/layers.def"
#undef TPF_LAYER
};

// Sliding windows of the published configs (hf_configs.def's
// TPF_HF_WINDOW rows): the cache never holds more than the window.
struct WindowRow {
  std::string_view name;
  int64_t window;
};
constexpr WindowRow kWindows[] = {
#define TPF_HF(...)
#define TPF_HF_T5(...)
#define TPF_HF_VIT(...)
#define TPF_HF_WHISPER(...)
#define TPF_HF_CLIP(...)
#define TPF_HF_WINDOW(name, window) {name, window},
#include "memory/tables/hf_configs.def"
#undef TPF_HF_WINDOW
#undef TPF_HF_WHISPER
#undef TPF_HF_CLIP
#undef TPF_HF_VIT
#undef TPF_HF_T5
#undef TPF_HF
};

uint64_t val(Interp& in, DimId d) {
  return static_cast<uint64_t>(std::max<int64_t>(0, in.dims.value(d)));
}

/// Whether `v` is a list or tuple that holds (at any depth up to 3) a
/// rank-4 tensor: a KV cache, (k, v) per layer.
bool holds_cache(Interp& in, Value v, int depth = 0) {
  if (depth > 3) return false;
  if (TensorObj* t = in.tensor(v)) return depth > 0 && t->shape.size() == 4;
  std::vector<Value>* s = in.seq(v);
  if (!s) return false;
  for (Value x : *s)
    if (holds_cache(in, x, depth + 1)) return true;
  return false;
}

/// The rank-4 tensors of a cache nested in a forward's output: the items
/// of its list/tuple items (the top-level tensors are logits).
void collect_cache(Interp& in, Value v, std::vector<TensorObj*>& out, int depth = 0) {
  if (depth > 3) return;
  if (TensorObj* t = in.tensor(v)) {
    if (depth > 1 && t->shape.size() == 4) out.push_back(t);
    return;
  }
  if (std::vector<Value>* s = in.seq(v))
    for (Value x : *s) collect_cache(in, x, out, depth + 1);
}

struct OpBytes {
  uint64_t bytes = 0, bytes_sdpa = 0, scores = 0;
};

/// Runs one top-level forward with its created tensors listed, and returns
/// the largest op's live intermediates: under no_grad an op's input and its
/// output are alive together, and the tensor made just before an op's
/// output is its input in a forward's chain. Tensors the returned cache
/// keeps are the cache's bytes, not the op's.
OpBytes trace(Interp& in, Value model, Args& a, Value& out) {
  InferenceFacts& f = in.infer;
  f.created.clear();
  f.tracing = true;
  struct Reset {
    InferenceFacts& f;
    ~Reset() { f.tracing = false; }
  } reset{f};
  if (in.grad_enabled) f.grad_forward = true;
  out = module_call(in, model, a);
  f.tracing = false;
  ++f.forwards;
  std::vector<TensorObj*> cache;
  collect_cache(in, out, cache);
  std::unordered_set<uint32_t> kept;
  for (TensorObj* t : cache) kept.insert(t->storage);
  OpBytes r;
  uint64_t prev = 0, prev_sdpa = 0;
  for (ObjId id : f.created) {
    const TensorObj& t = *in.heap[id].t;
    if (kept.count(t.storage)) continue;
    uint64_t b = val(in, in.storage_bytes(t.storage));
    r.bytes = std::max(r.bytes, prev + b);
    prev = b;
    if (t.score) {
      r.scores = std::max(r.scores, b);
    } else {
      r.bytes_sdpa = std::max(r.bytes_sdpa, prev_sdpa + b);
      prev_sdpa = b;
    }
  }
  f.created.clear();
  return r;
}

std::optional<int64_t> int_attr(Interp& in, Value obj, std::string_view name) {
  Obj* o = in.instance(obj);
  if (!o) return std::nullopt;
  const Value* v = o->attrs.find(in.intern(name));
  return v ? in.as_int(*v) : std::nullopt;
}

/// The dtype of the model's first floating parameter.
Dtype param_dtype(Interp& in, Value model) {
  for (auto& [n, t] : module_tensors(in, model, Role::Param))
    if (is_floating(in.tensor(t)->dtype)) return in.tensor(t)->dtype;
  return Dtype::Float32;
}

}  // namespace

Value traced_forward(Interp& in, Value model, Args& a) {
  InferenceFacts& f = in.infer;
  bool cached_in = false;
  int64_t in_len = -1;
  std::vector<uint32_t> cache_args;  // the containers a cache is passed in
  auto arg = [&](Value v) {
    if (!holds_cache(in, v)) return;
    cached_in = true;
    cache_args.push_back(v.a);
  };
  for (Value v : a.pos) arg(v);
  for (auto& [k, v] : a.kw) arg(v);
  if (!a.pos.empty())
    if (TensorObj* t = in.tensor(a.pos[0]); t && t->shape.size() == 2)
      in_len = in.dims.value(t->shape[1]);
  const bool grad = in.grad_enabled;
  Value out;
  OpBytes ob = trace(in, model, a, out);
  f.score_bytes = std::max(f.score_bytes, ob.scores);
  if (in.backward_seen || grad) {
    if (f.kind == InferenceFacts::Kind::None) f.kind = InferenceFacts::Kind::Forward;
    f.prefill_bytes = std::max(f.prefill_bytes, ob.bytes);
    f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, ob.bytes_sdpa);
    return out;
  }
  std::vector<TensorObj*> cache;
  collect_cache(in, out, cache);
  if (!cache.empty()) {
    // A forward that returns (k, v) per layer: a decode loop's. Its
    // geometry is read off the cache itself: (batch, kv heads, length,
    // head dim) per tensor, two per layer.
    const TensorObj& k = *cache[0];
    if (f.kind != InferenceFacts::Kind::DecodeLoop) {
      f.kind = InferenceFacts::Kind::DecodeLoop;
      f.line = in.user_line();
      f.model_cls = module_class(in, model);
      f.cache.layers = static_cast<int64_t>((cache.size() + 1) / 2);
      f.cache.kv_heads = in.dims.value(k.shape[1]);
      f.cache.head_dim = in.dims.value(k.shape[3]);
      f.cache.dtype = k.dtype;
      f.batch = in.dims.value(k.shape[0]);
      f.prompt = in.dims.value(k.shape[2]);
    }
    ++f.cache_calls;
    if (std::vector<Value>* items = in.seq(out))
      for (Value v : *items)
        if (v.kind == VKind::Obj &&
            std::find(cache_args.begin(), cache_args.end(), v.a) != cache_args.end())
          f.cache_in_place = true;
    if (cached_in) {
      f.step_model = model.a;
      f.step_pos = a.pos;
      f.step_kw = a.kw;
      f.step_bytes = std::max(f.step_bytes, ob.bytes);
      f.step_bytes_sdpa = std::max(f.step_bytes_sdpa, ob.bytes_sdpa);
    } else {
      f.prefill_bytes = std::max(f.prefill_bytes, ob.bytes);
      f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, ob.bytes_sdpa);
    }
    return out;
  }
  // No cache: a forward on its own, or a loop that feeds the sequence it
  // grows by one token each pass (nanoGPT's generate).
  if (f.kind == InferenceFacts::Kind::Forward && in_len > 0 && f.prompt > 0 &&
      in_len == f.prompt + 1 && f.forwards == 2) {
    f.kind = InferenceFacts::Kind::DecodeLoop;
    f.regrows = true;
    f.use_cache = false;
    f.line = in.user_line();
    f.model_cls = module_class(in, model);
    f.step_model = model.a;
    f.step_pos = a.pos;
    f.step_kw = a.kw;
  }
  if (f.kind == InferenceFacts::Kind::None) {
    f.kind = InferenceFacts::Kind::Forward;
    f.prompt = in_len;
    if (!a.pos.empty())
      if (TensorObj* t = in.tensor(a.pos[0]); t && !t->shape.empty())
        f.batch = in.dims.value(t->shape[0]);
  }
  f.prefill_bytes = std::max(f.prefill_bytes, ob.bytes);
  f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, ob.bytes_sdpa);
  return out;
}

namespace {

/// A copy of a cache argument with every rank-4 tensor at `length` tokens.
Value cache_at(Interp& in, Value v, DimId length, int depth = 0) {
  if (TensorObj* t = in.tensor(v)) {
    if (depth == 0 || t->shape.size() != 4) return v;
    std::vector<DimId> shape = t->shape;
    shape[2] = length;
    return in.new_tensor(std::move(shape), t->dtype);
  }
  std::vector<Value>* s = in.seq(v);
  if (!s || depth > 3) return v;
  std::vector<Value> items;
  for (Value x : std::vector<Value>(*s)) items.push_back(cache_at(in, x, length, depth + 1));
  return in.make_list(std::move(items), in.o(v).kind);
}

}  // namespace

void decode_loop_left(Interp& in, int64_t trips) {
  InferenceFacts& f = in.infer;
  if (f.kind != InferenceFacts::Kind::DecodeLoop || f.loop_trips != 0) return;
  f.loop_trips = trips;
  if (f.step_model == UINT32_MAX) return;
  // The last step attends over prompt + new - 1 cached tokens.
  const int64_t tokens = in.opt.generate ? in.opt.generate->tokens : trips;
  const int64_t prompt = in.opt.generate && in.opt.generate->prompt > 0 ? in.opt.generate->prompt : f.prompt;
  if (f.regrows) {
    // No cache: the last pass feeds prompt + new - 1 tokens, at most the
    // model's learned position table (nanoGPT's generate crops `idx` to
    // block_size, the table's size; a loop that does not crop fails there).
    TensorObj* ids = f.step_pos.empty() ? nullptr : in.tensor(f.step_pos[0]);
    if (!ids || ids->shape.size() != 2) return;
    int64_t len = std::max<int64_t>(1, prompt + tokens - 1);
    std::string table;
    const int64_t cap = position_table(in, Value::obj(f.step_model), &table);
    if (cap > 0 && len > cap) {
      len = cap;
      f.regrow_cap = table;
    }
    f.regrow_len = len;
    Args a{f.step_pos, f.step_kw, in.user_span()};
    a.pos[0] = in.new_tensor({ids->shape[0], in.dims.constant(len)}, ids->dtype, Role::Input);
    Value out;
    OpBytes last = trace(in, Value::obj(f.step_model), a, out);
    f.prefill_bytes = std::max(f.prefill_bytes, last.bytes);
    f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, last.bytes_sdpa);
    f.score_bytes = std::max(f.score_bytes, last.scores);
    return;
  }
  const DimId length = in.dims.constant(std::max<int64_t>(1, prompt + tokens - 1));
  Args a{{}, {}, in.user_span()};
  for (Value v : f.step_pos) a.pos.push_back(holds_cache(in, v) ? cache_at(in, v, length) : v);
  for (auto& [k, v] : f.step_kw)
    a.kw.emplace_back(k, holds_cache(in, v) ? cache_at(in, v, length) : v);
  Value out;
  OpBytes s = trace(in, Value::obj(f.step_model), a, out);
  f.step_bytes = s.bytes;
  f.step_bytes_sdpa = s.bytes_sdpa;
}

Value prompt_ids(Interp& in, std::string_view call, Value text, int rank, int64_t multiple) {
  InferenceFacts& f = in.infer;
  int64_t rows = 1, len = in.opt.generate ? in.opt.generate->prompt : 0;
  // The texts: one string, or a list of them (a batch padded to the longest).
  std::vector<Value> texts{text};
  if (std::vector<Value>* s = in.seq(text)) texts = *s, rows = static_cast<int64_t>(s->size());
  if (len <= 0) {
    // A text the script writes has at most one token per UTF-8 byte (a
    // byte-level BPE token, tiktoken's or GPT-2's, covers one byte or more;
    // sentencepiece falls back to bytes) plus 3: BOS, EOS and
    // sentencepiece's "▁" prefix.
    int64_t bytes = -1;
    for (Value t : texts) {
      auto str = in.as_str(t);
      if (!str) {
        bytes = -1;
        break;
      }
      bytes = std::max<int64_t>(bytes, static_cast<int64_t>(str->size()));
    }
    if (bytes >= 0) {
      len = bytes + 3;
      if (multiple > 1) len = (len + multiple - 1) / multiple * multiple;
      if (len > f.prompt_bound) {
        f.prompt_bound = len;
        f.prompt_bound_line = in.user_line();
        f.prompt_bound_call = std::string(call) + "` are at most " + std::to_string(len) + " tokens, one per byte of the " +
                              (rows > 1 ? "longest text" : "text") + " and 3 special ones" +
                              (multiple > 1 ? ", padded to a multiple of " + std::to_string(multiple) : std::string());
      }
    } else {
      len = 1;
      if (!f.prompt_unread_line) {
        f.prompt_unread_line = in.user_line();
        f.prompt_unread_call = std::string(call);
      }
    }
  }
  std::vector<DimId> shape;
  if (rank == 2) shape.push_back(in.dims.constant(rows));
  shape.push_back(in.dims.constant(len));
  return in.new_tensor(std::move(shape), Dtype::Int64, Role::Input);
}

Value generate_call(Interp& in, Value model, Args& a) {
  InferenceFacts& f = in.infer;
  Value ids = a.get(in, 0, "input_ids").value_or(a.kwarg(in, "inputs").value_or(Value::unknown()));
  TensorObj* t = in.tensor(ids);
  if (!t || t->shape.size() != 2) {
    in.note_unknown("`generate(...)` on input ids the interpreter cannot follow", a.span, true);
    return Value::unknown();
  }
  const int64_t batch0 = in.dims.value(t->shape[0]);
  // --generate's PROMPT replaces the script's prompt length.
  const bool prompt_given = in.opt.generate && in.opt.generate->prompt > 0;
  const int64_t prompt = prompt_given ? in.opt.generate->prompt : in.dims.value(t->shape[1]);
  Value config = in.getattr(model, "config");
  auto layers = int_attr(in, config, "num_hidden_layers");
  auto heads = int_attr(in, config, "num_attention_heads");
  auto kv = int_attr(in, config, "num_key_value_heads");
  auto hidden = int_attr(in, config, "hidden_size");
  auto head_dim = int_attr(in, config, "head_dim");
  if (!layers || !heads || *heads <= 0 || !(head_dim || hidden)) {
    in.note_unknown("`generate(...)` on a model whose config gives no layer and head sizes", a.span,
                    true);
    return Value::unknown();
  }
  CacheGeometry g;
  g.layers = *layers;
  g.kv_heads = kv && *kv > 0 ? *kv : *heads;
  g.head_dim = head_dim && *head_dim > 0 ? *head_dim : *hidden / *heads;
  g.dtype = param_dtype(in, model);
  if (auto w = int_attr(in, config, "sliding_window"); w && *w > 0) g.window = *w;
  if (Obj* c = in.instance(config); c && !g.window)
    if (const Value* nm = c->attrs.find(in.intern("name_or_path")))
      if (auto s = in.as_str(*nm))
        for (const WindowRow& r : kWindows)
          if (r.name == *s) g.window = r.window;
  // The generated length: max_new_tokens, else max_length less the prompt,
  // else GenerationConfig's default max_length of 20 (transformers 4.3x).
  int64_t new_tokens = 0;
  std::string from;
  if (auto m = a.kwarg(in, "max_new_tokens"); m && in.as_int(*m)) {
    new_tokens = *in.as_int(*m);
    from = "max_new_tokens=" + std::to_string(new_tokens);
  } else if (auto ml = a.kwarg(in, "max_length"); ml && in.as_int(*ml)) {
    new_tokens = std::max<int64_t>(0, *in.as_int(*ml) - prompt);
    from = "max_length=" + std::to_string(*in.as_int(*ml)) + " less the prompt";
  } else {
    new_tokens = std::max<int64_t>(0, 20 - prompt);
    from = "GenerationConfig's default max_length=20 less the prompt";
    in.note_unknown(
        "`generate(...)` without max_new_tokens: transformers' default max_length=20 is assumed",
        a.span, false);
  }
  if (in.opt.generate) {
    new_tokens = in.opt.generate->tokens;
    from = "--generate";
  }
  // Learned position tables (GPT-2's 1024) end there: generate() fails.
  if (auto mp = int_attr(in, config, "max_position_embeddings"); mp && *mp > 0 && prompt + new_tokens > *mp)
    in.note_unknown("the prompt and the new tokens, " + std::to_string(prompt + new_tokens) +
                        ", are more than the model's max_position_embeddings, " + std::to_string(*mp),
                    a.span, false);
  int64_t beams = 1;
  if (auto b = a.kwarg(in, "num_beams"); b && in.as_int(*b) && *in.as_int(*b) > 1)
    beams = *in.as_int(*b);
  bool use_cache = true;
  if (auto u = a.kwarg(in, "use_cache"); u && u->known()) use_cache = in.truth(*u).value_or(true);
  // generate() is @torch.no_grad(): nothing is saved for backward.
  const bool grad = in.grad_enabled;
  in.grad_enabled = false;
  struct Restore {
    Interp& in;
    bool g;
    ~Restore() { in.grad_enabled = g; }
  } restore{in, grad};
  const int64_t batch = batch0 * beams;
  auto ids_of = [&](int64_t len) {
    return in.new_tensor({in.dims.constant(batch), in.dims.constant(len)}, Dtype::Int64,
                         Role::Input);
  };
  Value out;
  if (use_cache) {
    Args pa{{beams > 1 || prompt_given ? ids_of(prompt) : ids}, {}, a.span};
    OpBytes p = trace(in, model, pa, out);
    Args sa{{ids_of(1)}, {}, a.span};
    OpBytes s = trace(in, model, sa, out);
    f.prefill_bytes = std::max(f.prefill_bytes, p.bytes);
    f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, p.bytes_sdpa);
    f.step_bytes = std::max(f.step_bytes, s.bytes);
    f.step_bytes_sdpa = std::max(f.step_bytes_sdpa, s.bytes_sdpa);
    f.score_bytes = std::max(f.score_bytes, p.scores);
    // transformers' attention repeats the KV heads for every query head in
    // each decode step over the whole cache (modeling_llama.py repeat_kv,
    // eager and SDPA alike: expand + reshape, a copy): one layer's key and
    // value copies. The zoo's step runs without a cache, so add them here.
    if (g.kv_heads < *heads) {
      const uint64_t copies = 2 * static_cast<uint64_t>(batch) * static_cast<uint64_t>(*heads) *
                              static_cast<uint64_t>(prompt + new_tokens) *
                              static_cast<uint64_t>(g.head_dim) * dtype_size(g.dtype);
      f.step_bytes += copies;
      f.step_bytes_sdpa += copies;
    }
  } else {
    // Without a cache every step runs the whole sequence: the last one,
    // at prompt + new tokens, is the largest forward.
    Args pa{{ids_of(prompt + new_tokens)}, {}, a.span};
    OpBytes p = trace(in, model, pa, out);
    f.prefill_bytes = std::max(f.prefill_bytes, p.bytes);
    f.prefill_bytes_sdpa = std::max(f.prefill_bytes_sdpa, p.bytes_sdpa);
    f.score_bytes = std::max(f.score_bytes, p.scores);
  }
  // Several generate() calls (a loop over batches of prompts, the last one
  // smaller): the sizes are the largest call's.
  if (f.kind == InferenceFacts::Kind::Generate && f.batch * (f.prompt + f.new_tokens) > batch * (prompt + new_tokens))
    return in.new_tensor({in.dims.constant(batch), in.dims.constant(prompt + new_tokens)}, Dtype::Int64);
  f.kind = InferenceFacts::Kind::Generate;
  f.line = in.user_line();
  f.model_cls = module_class(in, model);
  f.cache = g;
  f.batch = batch;
  f.prompt = prompt;
  f.new_tokens = new_tokens;
  f.new_tokens_from = from;
  f.use_cache = use_cache;
  return in.new_tensor({in.dims.constant(batch), in.dims.constant(prompt + new_tokens)},
                       Dtype::Int64);
}

bool is_inference_run(const Interp& in) {
  return !in.backward_seen && in.cfg.optimizers.empty() && !in.step_synthesized &&
         in.unfollowed_backward_line == 0 && in.infer.kind != InferenceFacts::Kind::None;
}

uint64_t kv_cache_bytes(const CacheGeometry& g, int64_t length, int64_t batch) {
  if (g.layers <= 0 || g.kv_heads <= 0 || g.head_dim <= 0 || length <= 0 || batch <= 0) return 0;
  const int64_t len = g.window > 0 ? std::min(length, g.window) : length;
  // Saturates: a product past 64 bits is UINT64_MAX (inference_footprint
  // reports it as an overflow), never a wrapped small number.
  uint64_t b = 2;
  for (uint64_t f : {static_cast<uint64_t>(g.layers), static_cast<uint64_t>(g.kv_heads),
                     static_cast<uint64_t>(g.head_dim), static_cast<uint64_t>(len), static_cast<uint64_t>(batch),
                     static_cast<uint64_t>(dtype_size(g.dtype))})
    if (__builtin_mul_overflow(b, f, &b)) return UINT64_MAX;
  return b;
}

void inference_footprint(Interp& in, const EstimateOptions& opt, Estimate& e, Footprint& fp) {
  const InferenceFacts& x = in.infer;
  const Tweaks& tw = opt.tweaks;
  InferenceReport r;
  r.kind = x.kind == InferenceFacts::Kind::Generate     ? "generate"
           : x.kind == InferenceFacts::Kind::DecodeLoop ? "decode loop"
                                                        : "forward";
  r.line = x.line;
  // ---- weights: as loaded, or in 16 bits, or quantized ----
  // bitsandbytes through transformers quantizes the linear layers' 2-D
  // weights (8-bit: one byte each and a float32 scale per row; 4-bit NF4:
  // half a byte and a float32 absmax per 64) and keeps the embeddings, the
  // output head, norms and biases in 16 bits.
  const bool half = tw.weight_dtype || tw.weight_bits;
  const Dtype half_dtype = tw.weight_dtype ? *tw.weight_dtype : Dtype::Float16;
  std::unordered_set<uint32_t> embedding;
  for (ObjId root : in.roots)
    walk_modules(in, Value::obj(root), "", [&](Value v, const std::string& path) {
      const bool emb = in.o(v).layer == static_cast<uint16_t>(LayerIx::Embedding) ||
                       path.ends_with("lm_head") || path == "lm_head";
      if (!emb) return;
      for (auto& [n, t] : module_tensors(in, v, Role::Param))
        embedding.insert(in.tensor(t)->storage);
    });
  uint64_t weights = 0;
  std::unordered_set<uint32_t> seen;
  for (ObjId root : in.roots)
    for (Role role : {Role::Param, Role::Buffer})
      for (auto& [n, tv] : module_tensors(in, Value::obj(root), role)) {
        const TensorObj& t = *in.tensor(tv);
        if (!seen.insert(t.storage).second) continue;
        const uint64_t elems = val(in, in.storages[t.storage].elems);
        const Dtype dt = in.storages[t.storage].dtype;
        if (!half || !is_floating(dt)) {
          weights += elems * dtype_size(dt);
        } else if (tw.weight_bits && role == Role::Param && t.shape.size() == 2 &&
                   !embedding.count(t.storage)) {
          const uint64_t rows = val(in, t.shape[0]);
          weights +=
              tw.weight_bits == 8 ? elems + rows * 4 : (elems + 1) / 2 + (elems + 63) / 64 * 4;
        } else {
          weights += elems * std::min<uint64_t>(dtype_size(dt), dtype_size(half_dtype));
        }
      }
  // ---- sizes: the script's, --generate's, and the suggestions' ----
  int64_t batch = x.batch > 0 ? x.batch : 1;
  int64_t new_tokens = x.new_tokens;
  std::string from = x.new_tokens_from;
  if (x.kind == InferenceFacts::Kind::DecodeLoop) {
    new_tokens = x.loop_trips ? x.loop_trips : static_cast<int64_t>(x.cache_calls);
    from = x.loop_trips ? "the decode loop's range" : "the decode loop's passes";
  }
  if (opt.generate && x.kind != InferenceFacts::Kind::Forward) {
    new_tokens = opt.generate->tokens;
    from = "--generate";
  }
  const int64_t batch0 = batch;
  if (opt.generate) batch = opt.generate->batch;
  int64_t prompt = std::max<int64_t>(x.prompt, 0);
  // --generate's PROMPT: generate() and the tokenizers already ran at it; a
  // decode loop's own prompt is replaced, its prefill scaled linearly.
  double prompt_scale = 1;
  if (opt.generate && opt.generate->prompt > 0 && x.kind != InferenceFacts::Kind::Forward) {
    if (prompt > 0 && prompt != opt.generate->prompt && !x.regrows)
      prompt_scale = static_cast<double>(opt.generate->prompt) / static_cast<double>(prompt);
    prompt = opt.generate->prompt;
  }
  if (x.prompt_bound > 0 && !(opt.generate && opt.generate->prompt > 0))
    in.cfg.unknowns.push_back({"prompt length: the token ids of `" + x.prompt_bound_call +
                                   " (estimated there; --generate BATCHxPROMPT+TOKENS gives the run's own)",
                               x.prompt_bound_line, false});
  if (x.prompt_unread_line && !(opt.generate && opt.generate->prompt > 0))
    in.cfg.unknowns.push_back({"prompt length: the token ids of `" + x.prompt_unread_call +
                                   "` come from a text the estimate does not read (pass --generate " +
                                   std::to_string(batch) + "xPROMPT+" + std::to_string(std::max<int64_t>(new_tokens, 1)) +
                                   " with the prompt's length in tokens)",
                               x.prompt_unread_line, true});
  if (tw.context_divisor > 1) {
    prompt = (prompt + tw.context_divisor - 1) / tw.context_divisor;
    new_tokens = (new_tokens + tw.context_divisor - 1) / tw.context_divisor;
  }
  if (tw.serve_batch_divisor > 1)
    batch = (batch + tw.serve_batch_divisor - 1) / tw.serve_batch_divisor;
  // Activations are per sample, so they scale with the batch; with a
  // shorter context the prefill scales with the prompt (linearly: an upper
  // bound for the attention scores, which are quadratic); 16-bit weights
  // compute in 16 bits.
  auto scaled = [&](uint64_t b) {
    double s = static_cast<double>(b) * static_cast<double>(batch) / static_cast<double>(batch0);
    if (tw.context_divisor > 1) s /= static_cast<double>(tw.context_divisor);
    if (half && x.cache.dtype == Dtype::Float32) s /= 2;
    return static_cast<uint64_t>(s);
  };
  uint64_t prefill = scaled(static_cast<uint64_t>(
      static_cast<double>(tw.sdpa ? x.prefill_bytes_sdpa : x.prefill_bytes) * prompt_scale));
  uint64_t step = scaled(tw.sdpa ? x.step_bytes_sdpa : x.step_bytes);
  CacheGeometry g = x.cache;
  if (half && g.dtype == Dtype::Float32)
    g.dtype = tw.weight_dtype ? *tw.weight_dtype : Dtype::Float16;
  const bool cached = x.use_cache && g.layers > 0;
  uint64_t kv_full = cached ? kv_cache_bytes(g, prompt + new_tokens, batch) : 0;
  uint64_t kv_prompt = cached ? kv_cache_bytes(g, prompt, batch) : 0;
  if (cached && (g.kv_heads <= 0 || g.head_dim <= 0))
    in.cfg.unknowns.push_back(
        {"the KV cache's heads or head size come from values the interpreter could not read", x.line, true});
  // A cache past 2**62 bytes (--generate 65536x16777216 on a large model)
  // is no size: the verdict is unknown rather than a wrapped number.
  const bool kv_overflow = kv_full > (uint64_t{1} << 62);
  if (kv_overflow) {
    in.cfg.unknowns.push_back({"the KV cache's size overflows (over 4.6e18 bytes): its batch and length are not real",
                               x.line, true});
    kv_full = kv_prompt = 0;
  }
  // Appending a token with torch.cat copies the cache. A cache updated in
  // place (transformers' DynamicCache, a list the forward writes back)
  // holds one layer's old key (then value) tensor beside the new one for a
  // moment. A loop whose forward returns new (k, v) tuples while the
  // caller still holds the old ones (`logits, past = model(x, past)`)
  // keeps the whole old cache until the call returns.
  const bool holds_old = cached && x.kind == InferenceFacts::Kind::DecodeLoop && !x.cache_in_place;
  if (holds_old && !kv_overflow)
    step += kv_cache_bytes(g, prompt + new_tokens - 1, batch);
  else if (cached && !kv_overflow)
    step += kv_full / static_cast<uint64_t>(2 * g.layers);
  uint64_t kv = 0, acts = prefill;
  r.peak_at = "forward";
  if (cached) {
    if (kv_prompt + prefill >= kv_full + step) {
      kv = kv_prompt, acts = prefill, r.peak_at = "prefill";
    } else {
      kv = kv_full, acts = step;
      r.peak_at = holds_old ? "last decode step, beside the old cache the caller still holds"
                            : "last decode step";
    }
  } else if (x.kind != InferenceFacts::Kind::Forward) {
    r.peak_at = "last full-length forward";
    if (x.regrow_len > 0)
      r.peak_at += " (" + std::to_string(x.regrow_len) + " tokens" +
                   (x.regrow_cap.empty() ? std::string() : ", cropped to the position table `" + x.regrow_cap + "`") +
                   ")";
  }
  if (x.kind == InferenceFacts::Kind::Forward) acts += fp.batch_input;
  if (x.grad_forward) {
    in.cfg.unknowns.push_back(
        {"a forward of the model runs with gradients on and no backward follows: autograd keeps "
         "its activations until the output is freed (`torch.no_grad()` drops them); the estimate "
         "counts the largest op only",
         0, false});
  }
  if (x.regrows && x.regrow_len == 0)
    in.cfg.unknowns.push_back(
        {"the decode loop feeds the whole growing sequence each pass (no KV cache): its largest "
         "forward, at the last length, is estimated at the first passes' length",
         x.line, false});
  fp = Footprint{};
  fp.inference = true;
  fp.weights = weights;
  fp.kv_cache = kv;
  fp.activations = acts;
  fp.world = 1;
  fp.widen = 0;
  for (const auto& u : in.cfg.unknowns)
    if (!u.blocking) fp.widen = std::min(fp.widen + 0.05, 0.5);
  bool blocking = std::any_of(in.cfg.unknowns.begin(), in.cfg.unknowns.end(),
                              [](auto& u) { return u.blocking; });
  fp.judgeable = !blocking && e.model_found && !e.overflow;
  r.layers = g.layers;
  r.kv_heads = g.kv_heads;
  r.head_dim = g.head_dim;
  r.window = g.window;
  r.cache_dtype = g.dtype;
  r.batch = batch;
  // A placeholder prompt (prompt_ids) is no length: -1, shown as "?".
  r.prompt = x.prompt_unread_line && !(opt.generate && opt.generate->prompt > 0) ? -1 : prompt;
  r.new_tokens = new_tokens;
  r.new_tokens_from = from;
  r.use_cache = x.use_cache;
  r.kv_cache_bytes = kv_full;
  r.prefill_bytes = prefill;
  r.step_bytes = step;
  if (cached) {
    const int64_t len = prompt + new_tokens;
    r.formula =
        "2 x " + std::to_string(g.layers) + " layers x " + std::to_string(g.kv_heads) +
        " kv heads x " + std::to_string(g.head_dim) + " head dim x " +
        (g.window > 0 && len > g.window
             ? "window " + std::to_string(g.window)
             : "(" + std::to_string(prompt) + " + " + std::to_string(new_tokens) + ") tokens") +
        " x batch " + std::to_string(batch) + " x " + std::to_string(dtype_size(g.dtype)) + " B";
  }
  e.inference = std::move(r);
  e.attention_score_bytes = x.score_bytes;
}

std::optional<GenerateSize> parse_generate(std::string_view text, std::string& error) {
  const std::string form = " (BATCHxTOKENS or BATCHxPROMPT+TOKENS, e.g. --generate 8x2048 or --generate 1x64+500)";
  auto number = [](std::string_view s) -> std::optional<int64_t> {
    int64_t v = 0;
    if (s.empty()) return std::nullopt;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v <= 0) return std::nullopt;
    return v;
  };
  const size_t x = text.find_first_of("xX");
  if (x == std::string_view::npos) {
    error = "--generate '" + std::string(text) + "' is not BATCHxTOKENS or BATCHxPROMPT+TOKENS" +
            " (e.g. --generate 8x2048 or --generate 1x64+500)";
    return std::nullopt;
  }
  std::string_view rest = text.substr(x + 1);
  const size_t plus = rest.find('+');
  auto b = number(text.substr(0, x));
  auto t = number(plus == std::string_view::npos ? rest : rest.substr(plus + 1));
  std::optional<int64_t> p = plus == std::string_view::npos ? std::optional<int64_t>(0) : number(rest.substr(0, plus));
  if (!b || !t || !p) {
    error = "--generate '" + std::string(text) + "': BATCH, PROMPT and TOKENS must be positive integers" + form;
    return std::nullopt;
  }
  if (*b > (1 << 20) || *t > (1 << 24) || *p > (1 << 24)) {
    error = "--generate '" + std::string(text) + "': at most 1048576 sequences of 16777216 prompt and 16777216 new tokens";
    return std::nullopt;
  }
  return GenerateSize{*b, *t, *p};
}

}  // namespace tpf::memory
