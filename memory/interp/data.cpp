// Data loading: DataLoader yields one batch (the first step is all the
// estimate needs), built the way torch's default_collate builds it (each
// sample tensor stacked under a new batch dimension; ints -> int64, floats
// -> float64 tensors) from TensorDataset, the script's own Dataset
// (__getitem__(0)), torchvision datasets with their known sample shapes and
// transforms, and tokenizer calls. When the data are not modeled, the model
// input is synthesized from its first layer, the batch size and the
// sequence length or image size; without those it stays unknown.
// requires: interp.h, modules.h. produces: batch tensors (role Input).
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {
namespace {

/// default_collate of one sample under batch dimension `b`.
Value collate(Interp& in, Value s, DimId b) {
  if (TensorObj* t = in.tensor(s)) {
    std::vector<DimId> shape{b};
    shape.insert(shape.end(), t->shape.begin(), t->shape.end());
    return in.new_tensor(shape, t->dtype, Role::Input);
  }
  if (s.kind == VKind::Int || s.kind == VKind::Bool) return in.new_tensor({b}, Dtype::Int64, Role::Input);
  if (s.kind == VKind::Float) return in.new_tensor({b}, Dtype::Float64, Role::Input);
  if (auto* items = in.seq(s)) {
    std::vector<Value> out;
    std::vector<Value> copy = *items;
    for (Value v : copy) out.push_back(collate(in, v, b));
    return in.make_list(std::move(out));
  }
  if (in.is_obj(s, OKind::Dict)) {
    Value d = in.make_dict();
    std::vector<Value> items = in.o(s).items;
    for (size_t k = 0; k + 1 < items.size(); k += 2) in.setitem(d, items[k], collate(in, items[k + 1], b));
    return d;
  }
  return Value::unknown();
}

/// The sample a dataset's __getitem__(0) returns, or unknown.
Value first_sample(Interp& in, Value ds) {
  std::string_view t = type_of(in, ds);
  if (t == "torch.utils.data.TensorDataset") {
    std::vector<Value> out;
    for (Value x : in.o(ds).items) {
      TensorObj* tt = in.tensor(x);
      if (!tt || tt->shape.empty()) return Value::unknown();
      std::vector<DimId> s(tt->shape.begin() + 1, tt->shape.end());
      out.push_back(in.new_tensor(s, tt->dtype));
    }
    return in.make_list(std::move(out), OKind::Tuple);
  }
  if (t == "dataset.sample") return in.o(ds).items.empty() ? Value::unknown() : in.o(ds).items[0];
  if (Obj* ob = in.instance(ds); ob && ob->cls != kNone32) {
    if (in.class_lookup(ob->cls, in.intern("__getitem__"))) {
      Args a{{ds, in.int_value(0)}, {}, {}};
      return in.call_method(ds, in.intern("__getitem__"), a);
    }
    if (in.class_lookup(ob->cls, in.intern("__iter__"))) {
      Args a{{ds}, {}, {}};
      Value it = in.call_method(ds, in.intern("__iter__"), a);
      if (in.is_obj(it, OKind::Iter) && !in.o(it).items.empty()) return in.o(it).items[0];
    }
  }
  return Value::unknown();
}

Value c_tensor_dataset(Interp& in, Args& a) {
  Value ds = new_instance(in, "torch.utils.data.TensorDataset");
  in.o(ds).items = a.pos;
  return ds;
}

Value c_dataloader(Interp& in, Args& a) {
  Value dl = new_instance(in, "torch.utils.data.DataLoader");
  Value ds = a.get(in, 0, "dataset").value_or(Value::unknown());
  Value bs = a.kwarg(in, "batch_size").value_or(a.pos.size() > 1 ? a.pos[1] : in.int_value(1));
  if (auto bsamp = a.kwarg(in, "batch_sampler"); bsamp && bsamp->known() && bsamp->kind != VKind::None)
    bs = Value::unknown();
  bs = in.named_source("batch_size", bs, in.user_line(), "DataLoader(batch_size=...)");
  in.o(dl).line = in.user_line();
  in.o(dl).attrs.set(in.intern("dataset"), ds);
  in.o(dl).attrs.set(in.intern("batch_size"), bs);
  in.o(dl).attrs.set(in.intern("collate_fn"), a.kwarg(in, "collate_fn").value_or(Value::none()));
  return dl;
}

/// litdata's streaming data (litgpt's pretraining data): a
/// `StreamingDataset` whose `item_loader` is a `TokensLoader(block_size=N)`
/// yields windows of N token ids (int32, as litgpt's prepare scripts
/// write them), `CombinedStreamingDataset` mixes datasets of one item
/// shape, and `StreamingDataLoader` batches as a DataLoader does. A
/// dataset of any other item loader reads chunks the interpreter cannot
/// see: its items are a named unknown.
Value c_litdata(Interp& in, std::string_view last, Args& a, bool& handled) {
  handled = true;
  if (last == "TokensLoader") {
    Value tl = new_instance(in, "litdata.TokensLoader");
    in.o(tl).attrs.set(in.intern("block_size"), a.get(in, 0, "block_size").value_or(Value::none()));
    return tl;
  }
  if (last == "StreamingDataset") {
    Value il = a.kwarg(in, "item_loader").value_or(Value::none());
    const Value* bs = type_of(in, il) == "litdata.TokensLoader" ? in.o(il).attrs.find(in.intern("block_size"))
                                                                 : nullptr;
    if (!bs || bs->kind != VKind::Int) {
      in.note_unknown(bs ? "the block size of litdata's `TokensLoader`"
                         : "the items of litdata's `StreamingDataset` (only a `TokensLoader` item loader is read)",
                      a.span, true);
      return Value::unknown();
    }
    Value ds = new_instance(in, "dataset.sample");
    in.o(ds).items = {in.new_tensor({bs->dim()}, Dtype::Int32)};
    return ds;
  }
  if (last == "CombinedStreamingDataset") {
    Value dss = a.get(in, 0, "datasets").value_or(Value::unknown());
    std::vector<Value>* s = in.seq(dss);
    return s && !s->empty() ? (*s)[0] : Value::unknown();
  }
  if (last == "StreamingDataLoader") return c_dataloader(in, a);
  handled = false;
  return Value::unknown();
}

Value loader_batch(Interp& in, Value dl) {
  Obj& ob = in.o(dl);
  Value ds = *ob.attrs.find(in.intern("dataset"));
  Value bs = *ob.attrs.find(in.intern("batch_size"));
  Value cf = *ob.attrs.find(in.intern("collate_fn"));
  Value sample = first_sample(in, ds);
  if (!sample.known()) return Value::unknown();
  if (bs.kind == VKind::None) return collate(in, sample, in.dims.constant(1));
  if (bs.kind != VKind::Int) return Value::unknown();
  if (in.grad_enabled) {
    in.loader_batch = bs.dim();
    in.loader_line = ob.line;
  }
  if (cf.known() && cf.kind != VKind::None) {
    int64_t n = std::min<int64_t>(in.dims.value(bs.dim()), 4096);
    Args ca{{in.make_list(std::vector<Value>(static_cast<size_t>(n), sample))}, {}, {}};
    return in.call(cf, ca);
  }
  return collate(in, sample, bs.dim());
}

// ----------------------------------------------------- torchvision data

struct DatasetShape {
  std::string_view name;
  int64_t c, h, w;
};
constexpr DatasetShape kDatasets[] = {
    {"MNIST", 1, 28, 28},     {"FashionMNIST", 1, 28, 28}, {"KMNIST", 1, 28, 28},
    {"EMNIST", 1, 28, 28},    {"QMNIST", 1, 28, 28},       {"CIFAR10", 3, 32, 32},
    {"CIFAR100", 3, 32, 32},  {"SVHN", 3, 32, 32},         {"STL10", 3, 96, 96},
    {"ImageFolder", 3, 0, 0}, {"ImageNet", 3, 0, 0},       {"Food101", 3, 0, 0},
    {"Places365", 3, 0, 0},   {"CelebA", 3, 218, 178},     {"Flowers102", 3, 0, 0},
    {"OxfordIIITPet", 3, 0, 0}, {"CocoDetection", 3, 0, 0},
};

/// The (C, H, W) a transform chain produces from (c, h, w); h == 0: unknown.
/// `Lambda` transforms are collected in `lambdas`, to be run on the sample
/// tensor afterwards (`Lambda(lambda x: torch.flatten(x))` changes its shape).
void apply_transforms(Interp& in, Value tf, int64_t& c, DimId& h, DimId& w, bool& known,
                      std::vector<Value>& lambdas) {
  std::string_view t = type_of(in, tf);
  if (t == "transform.Compose") {
    std::vector<Value> steps = in.o(tf).items;
    for (Value s : steps) apply_transforms(in, s, c, h, w, known, lambdas);
    return;
  }
  if (t == "transform.lambda") {
    lambdas.push_back(in.o(tf).items[0]);
    return;
  }
  if (t == "transform.size") {
    Value s = in.o(tf).items[0];
    if (auto* p = in.seq(s); p && p->size() == 2 && (*p)[0].kind == VKind::Int && (*p)[1].kind == VKind::Int) {
      h = (*p)[0].dim();
      w = (*p)[1].dim();
      known = true;
    } else if (s.kind == VKind::Int) {
      h = w = s.dim();
      known = true;
    }
    return;
  }
  if (t == "transform.gray") c = 1;
}

Value c_vision_dataset(Interp& in, std::string_view name, Args& a) {
  for (const DatasetShape& d : kDatasets) {
    if (d.name != name) continue;
    int64_t c = d.c;
    DimId h = in.dims.constant(d.h), w = in.dims.constant(d.w);
    bool known = d.h != 0;
    std::vector<Value> lambdas;
    std::optional<Value> tf = a.kwarg(in, "transform");
    // ImageFolder(root, transform) and the like pass it by position: the
    // first positional that is a transform.
    for (size_t k = 1; !tf && k < a.pos.size(); ++k)
      if (type_of(in, a.pos[k]).starts_with("transform.")) tf = a.pos[k];
    if (tf) apply_transforms(in, *tf, c, h, w, known, lambdas);
    if (!known) {
      in.note_unknown("image size of `" + std::string(name) + "` (no resize/crop transform)", a.span, true);
      return Value::unknown();
    }
    Value x = in.new_tensor({in.dims.constant(c), h, w}, Dtype::Float32);
    for (Value fn : lambdas) {
      Args la;
      la.pos = {x};
      la.span = a.span;
      x = in.call(fn, la);
      if (!in.tensor(x)) {
        in.note_unknown("the sample shape after a `transforms.Lambda`", a.span, true);
        return Value::unknown();
      }
    }
    Value sample = in.make_list({x, in.int_value(0)}, OKind::Tuple);
    Value ds = new_instance(in, "dataset.sample");
    in.o(ds).items = {sample};
    return ds;
  }
  return Value::unknown();
}

Value c_compose(Interp& in, Args& a) {
  Value t = new_instance(in, "transform.Compose");
  if (!a.pos.empty())
    if (auto items = in.iterate(a.pos[0])) in.o(t).items = *items;
  return t;
}

Value c_transform(Interp& in, std::string_view name, Args& a) {
  if (name == "Resize" || name == "CenterCrop" || name == "RandomCrop" || name == "RandomResizedCrop" ||
      name == "RandomSizedCrop") {
    Value t = new_instance(in, "transform.size");
    Value s = a.get(in, 0, "size").value_or(Value::unknown());
    s = in.named_source("image_size", s, in.user_line(), std::string("transforms.") + std::string(name));
    in.o(t).items = {s};
    return t;
  }
  if (name == "Grayscale") return new_instance(in, "transform.gray");
  if (name == "Lambda") {
    Value t = new_instance(in, "transform.lambda");
    in.o(t).items = {a.get(in, 0, "lambd").value_or(Value::unknown())};
    return t;
  }
  return new_instance(in, "transform.other");
}

// ------------------------------------------------------------ tokenizers

Value c_tokenizer(Interp& in, Args&) { return new_instance(in, "tokenizer"); }

Value tokenize(Interp& in, Args& a) {
  Value text = a.get(in, 1, "text").value_or(Value::unknown());
  Value ml = a.kwarg(in, "max_length").value_or(Value::unknown());
  Value pad = a.kwarg(in, "padding").value_or(Value::unknown());
  bool fixed = in.as_str(pad) && *in.as_str(pad) == "max_length";
  if (!fixed || ml.kind != VKind::Int) {
    in.note_unknown("token count of a tokenizer call without padding=\"max_length\"", a.span, false);
    return Value::unknown();
  }
  ml = in.named_source("max_length", ml, in.user_line(), "tokenizer(max_length=...)");
  DimId n = in.dims.constant(1);
  if (auto* s = in.seq(text)) n = in.dims.constant(static_cast<int64_t>(s->size()));
  Value d = in.make_dict();
  in.setitem(d, in.str_value("input_ids"), in.new_tensor({n, ml.dim()}, Dtype::Int64, Role::Input));
  in.setitem(d, in.str_value("attention_mask"), in.new_tensor({n, ml.dim()}, Dtype::Int64, Role::Input));
  return d;
}

Value f_random_split(Interp& in, Args& a) {
  Value ds = a.get(in, 0, "dataset").value_or(Value::unknown());
  size_t n = 2;
  if (auto* s = in.seq(a.get(in, 1, "lengths").value_or(Value::unknown()))) n = s->size();
  return in.make_list(std::vector<Value>(n, ds));
}

Value f_first(Interp&, Args& a) { return a.pos.empty() ? Value::unknown() : a.pos[0]; }

}  // namespace

Value collate_sample(Interp& in, Value sample, DimId batch) { return collate(in, sample, batch); }

// ------------------------------------------------- reinforcement learning

/// Gymnasium's classic-control and Box2D environments: the length of their
/// flat float32 observation (gymnasium/envs/*: CartPole's cart position,
/// velocity, pole angle, angular velocity is 4).
/// `steps` is the TimeLimit each id is registered with (max_episode_steps).
struct EnvObservation {
  std::string_view id;
  int64_t n, steps;
};
constexpr EnvObservation kEnvs[] = {
    {"CartPole-v0", 4, 200},        {"CartPole-v1", 4, 500},    {"Acrobot-v1", 6, 500},
    {"MountainCar-v0", 2, 200},     {"MountainCarContinuous-v0", 2, 999}, {"Pendulum-v1", 3, 200},
    {"LunarLander-v2", 8, 1000},    {"LunarLander-v3", 8, 1000},
};

/// `gym.make("CartPole-v1")`: an environment whose `reset()` and `step()`
/// give one observation, a float32 vector (pytorch/examples
/// reinforcement_learning: the policy runs on one state at a time).
Value c_gym_env(Interp& in, Args& a) {
  Value id = a.get(in, 0, "id").value_or(Value::unknown());
  auto name = in.as_str(id);
  for (const EnvObservation& e : kEnvs) {
    if (!name || *name != e.id) continue;
    Value env = new_instance(in, "gym.env");
    in.o(env).attrs.set(in.intern("__observation__"), in.int_value(e.n));
    in.o(env).attrs.set(in.intern("__limit__"), in.int_value(e.steps));
    in.o(env).attrs.set(in.intern("__steps__"), in.int_value(0));
    return env;
  }
  in.note_unknown("observation shape of the environment " + (name ? "`" + std::string(*name) + "`" : std::string("made here")),
                  a.span, false);
  return Value::unknown();
}

/// reset() -> (observation, info); step(action) -> (observation, reward,
/// terminated, truncated, info), gymnasium 0.26+. The episode runs to its
/// time limit, never terminated before: the longest episode, whose graphs
/// a policy-gradient script keeps until its backward.
Value gym_env_method(Interp& in, Value env, std::string_view n) {
  Obj& ob = in.o(env);
  const int64_t len = *in.as_int(*ob.attrs.find(in.intern("__observation__")));
  const int64_t limit = *in.as_int(*ob.attrs.find(in.intern("__limit__")));
  int64_t steps = *in.as_int(*ob.attrs.find(in.intern("__steps__")));
  Value obs = in.new_tensor({in.dims.constant(len)}, Dtype::Float32, Role::Input);
  if (n == "reset") {
    in.o(env).attrs.set(in.intern("__steps__"), in.int_value(0));
    return in.make_list({obs, in.make_dict()}, OKind::Tuple);
  }
  if (n == "step") {
    in.o(env).attrs.set(in.intern("__steps__"), in.int_value(++steps));
    return in.make_list({obs, Value::real(1.0), Value::boolean(false), Value::boolean(steps >= limit), in.make_dict()},
                        OKind::Tuple);
  }
  return Value::unknown();
}

Value construct_data(Interp& in, StrId qualname, Args& a, bool& handled) {
  handled = true;
  std::string_view q = in.str(qualname);
  size_t dot = q.rfind('.');
  std::string_view last = dot == std::string_view::npos ? q : q.substr(dot + 1);
  if (q == "torch.utils.data.DataLoader" || q == "torch.utils.data.dataloader.DataLoader")
    return c_dataloader(in, a);
  if (q == "torch.utils.data.TensorDataset") return c_tensor_dataset(in, a);
  if (q.starts_with("litdata.")) {
    Value r = c_litdata(in, last, a, handled);
    if (handled) return r;
    handled = true;
  }
  if (q == "gymnasium.make" || q == "gym.make") return c_gym_env(in, a);
  if (q == "torch.utils.data.Subset") return a.pos.empty() ? Value::unknown() : a.pos[0];
  if (q.starts_with("torch.utils.data.") && (last.ends_with("Sampler")))
    return new_instance(in, "sampler");
  if (q.starts_with("torchvision.datasets.")) {
    Value r = c_vision_dataset(in, last, a);
    if (r.known()) return r;
    in.note_unknown("dataset `" + std::string(q) + "`", a.span, false);
    return Value::unknown();
  }
  if (q.starts_with("torchvision.transforms.")) {
    if (last == "Compose") return c_compose(in, a);
    return c_transform(in, last, a);
  }
  if (q.starts_with("transformers.") && (last.find("Tokenizer") != std::string_view::npos))
    return c_tokenizer(in, a);
  // tiktoken's encodings (nanoGPT's sample.py) and sentencepiece's
  // processor: tokenizers whose encode() gives ids of the text's length.
  if (q == "tiktoken.get_encoding" || q == "tiktoken.encoding_for_model" ||
      q == "sentencepiece.SentencePieceProcessor")
    return c_tokenizer(in, a);
  handled = false;
  return Value::unknown();
}

Value data_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  std::string_view t = type_of(in, self);
  if (t == "torch.utils.data.DataLoader") {
    if (n == "__iter__") {
      Value b = loader_batch(in, self);
      return in.make_list({b}, OKind::Iter);
    }
    if (n == "__len__") return Value::unknown();
    return Value::unknown();
  }
  if (t == "torch.utils.data.TensorDataset" || t == "dataset.sample") {
    if (n == "__getitem__") return first_sample(in, self);
    return Value::unknown();
  }
  if (t == "gym.env") return gym_env_method(in, self, n);
  if (Value r = file_array_method(in, self, n, a, handled); handled) return r;
  handled = true;
  if (t == "tokenizer") {
    // Prompts encoded for a model: ids of a length the texts decide
    // (memory/interp/inference.cpp). A batch padded to max_length is the
    // tokenizer call's own.
    Value text = a.get(in, 1, "text").value_or(Value::unknown());
    auto rt = a.kwarg(in, "return_tensors");
    const bool pt = rt && in.as_str(*rt) && *in.as_str(*rt) == "pt";
    auto pad = a.kwarg(in, "padding");
    const bool max_length = pad && in.as_str(*pad) && *in.as_str(*pad) == "max_length";
    if (n == "encode" || n == "EncodeAsIds" || n == "encode_ordinary")
      return prompt_ids(in, "." + std::string(n) + "(...)", text, pt ? 2 : 1);
    // A call on texts the script writes (a collate function's texts are
    // data: its count stays the tokenizer call's).
    bool written = in.as_str(text).has_value();
    if (std::vector<Value>* s = in.seq(text)) {
      written = !s->empty();
      for (Value v : *s) written = written && in.as_str(v).has_value();
    }
    if ((n == "__call__" || n == "encode_plus") && pt && !max_length && written) {
      int64_t multiple = 1;
      if (auto m = a.kwarg(in, "pad_to_multiple_of"); m && in.as_int(*m)) multiple = *in.as_int(*m);
      Value d = in.make_dict();
      Value ids = prompt_ids(in, "tokenizer(...)", text, 2, multiple);
      in.setitem(d, in.str_value("input_ids"), ids);
      if (TensorObj* t = in.tensor(ids))
        in.setitem(d, in.str_value("attention_mask"), in.new_tensor(t->shape, Dtype::Int64, Role::Input));
      return d;
    }
    if (n == "__call__" || n == "encode_plus" || n == "batch_encode_plus") return tokenize(in, a);
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

int64_t position_table(Interp& in, Value model, std::string* path, bool constant) {
  int64_t positions = 0;
  walk_modules(in, model, "", [&](Value m, const std::string& p) {
    if (positions) return;
    Obj& ob = in.o(m);
    if (!ob.layer || layer_name(ob.layer) != "Embedding") return;
    std::string_view leaf = p;
    if (size_t dot = leaf.rfind('.'); dot != std::string_view::npos) leaf = leaf.substr(dot + 1);
    if (leaf.find("position") == std::string_view::npos && leaf != "wpe" && leaf != "pos_emb" &&
        leaf != "pos_embedding" && leaf != "pos_embed")
      return;
    const Value* n = ob.attrs.find(in.intern("num_embeddings"));
    if (!n || n->kind != VKind::Int || (constant && !in.dims.is_const(n->dim()))) return;
    positions = in.dims.value(n->dim());
    if (path) *path = p;
  });
  return positions;
}

/// A sequence length the script leaves to its data (a tokenizer that pads
/// to the longest, a collator): the model's learned position table
/// (`position_embeddings`, GPT-2's `wpe`, BART's `embed_positions`) is the
/// most it can take. A rotary model (Llama, SmolLM) has no table: its
/// Hugging Face config's `max_position_embeddings` is the context it was
/// trained for, and the tokenizer's `model_max_length` that truncation
/// stops at. The length becomes that bound, marked as one (the verdict may
/// then say "fits", never "oom"), with a note naming it.
static bool bound_seq_by_positions(Interp& in, Value model) {
  std::string table;
  int64_t positions = position_table(in, model, &table, true);
  if (positions <= 0 && in.is_module(model)) {
    Value config = in.getattr(model, in.intern("config"));
    if (in.instance(config)) {
      Value mp = in.getattr(config, in.intern("max_position_embeddings"));
      if (mp.kind == VKind::Int && in.dims.is_const(mp.dim()) && in.dims.value(mp.dim()) > 0) {
        positions = in.dims.value(mp.dim());
        table = "config.max_position_embeddings";
      }
    }
  }
  if (positions <= 0) return false;
  const uint32_t line = in.heap[model.a].line;
  const bool rotary = table == "config.max_position_embeddings";
  in.cfg.seq_len = {positions, {line, std::string(rotary ? "the model's context `" : "the model's position table `") +
                                          table + "`"}};
  in.cfg.seq_len.upper_bound = true;
  in.note_unknown("sequence length: the run's length comes from its data; estimated at the model's maximum, " +
                      std::to_string(positions) + " positions (`" + table +
                      "`): a fit there is a fit, pass --seq-len for the run's own",
                  {}, false);
  return true;
}

/// Input for a model called with an unknown argument: token ids for an
/// embedding first layer, images for a convolution, a 1x1 latent map for a
/// transposed convolution (a generator), features for a linear.
Value synthesize_input(Interp& in, Value model) {
  Value first;
  walk_modules(in, model, "", [&](Value m, const std::string&) {
    if (first.known()) return;
    Obj& ob = in.o(m);
    if (!ob.layer) return;
    std::string_view l = layer_name(ob.layer);
    if (l == "Embedding" || l == "EmbeddingBag" || l == "Linear" || l.starts_with("Conv"))
      first = m;
  });
  if (!first.known()) return Value::unknown();
  Obj& ob = in.o(first);
  std::string_view l = layer_name(ob.layer);
  auto attr = [&](std::string_view k) {
    const Value* v = ob.attrs.find(in.intern(k));
    return v ? *v : Value::unknown();
  };
  if (!in.cfg.batch_size.known()) {
    in.note_unknown("batch size (pass --batch-size)", {}, true);
    return Value::unknown();
  }
  DimId b = in.dims.symbol("B", *in.cfg.batch_size.value);
  if (l == "Embedding" || l == "EmbeddingBag") {
    if (!in.cfg.seq_len.known() && !bound_seq_by_positions(in, model)) {
      in.note_unknown("sequence length (pass --seq-len)", {}, true);
      return Value::unknown();
    }
    // A capacity (`max_len`, `block_size`) and no input of the script's
    // that shows the run's length: the capacity is a bound, not the run's.
    if (in.seq_from_capacity && !in.cfg.seq_len.upper_bound) {
      in.cfg.seq_len.upper_bound = true;
      in.note_unknown("sequence length: no input of the script's shows the run's length; estimated at the capacity `" +
                          in.cfg.seq_len.origin.source + "` (" + std::to_string(*in.cfg.seq_len.value) +
                          "): a fit there is a fit, pass --seq-len for the run's own",
                      {}, false);
    }
    return in.new_tensor({b, in.dims.symbol("T", *in.cfg.seq_len.value)}, Dtype::Int64, Role::Input);
  }
  if (l == "Linear") {
    Value f = attr("in_features");
    if (f.kind != VKind::Int) return Value::unknown();
    return in.new_tensor({b, f.dim()}, Dtype::Float32, Role::Input);
  }
  Value c = attr("in_channels");
  if (c.kind != VKind::Int) return Value::unknown();
  if (l.starts_with("ConvTranspose")) {
    // A generator (DCGAN and its kin): the input is a latent vector as a
    // 1x1 map, `torch.randn(B, nz, 1, 1)`, not an image.
    DimId one = in.dims.constant(1);
    if (l == "ConvTranspose1d") return in.new_tensor({b, c.dim(), one}, Dtype::Float32, Role::Input);
    if (l == "ConvTranspose3d") return in.new_tensor({b, c.dim(), one, one, one}, Dtype::Float32, Role::Input);
    return in.new_tensor({b, c.dim(), one, one}, Dtype::Float32, Role::Input);
  }
  if (!in.cfg.image_size.known()) {
    in.note_unknown("input image size", {}, true);
    return Value::unknown();
  }
  DimId s = in.dims.symbol("S", *in.cfg.image_size.value);
  if (l == "Conv1d") return in.new_tensor({b, c.dim(), s}, Dtype::Float32, Role::Input);
  return in.new_tensor({b, c.dim(), s, s}, Dtype::Float32, Role::Input);
}

void register_data(Builtins& b) {
  b.functions["torch.utils.data.random_split"] = f_random_split;
  b.functions["torch.utils.data.ConcatDataset"] = f_first;
  // An observation (a tensor here) shares its memory with the array.
  b.functions["torch.from_numpy"] = [](Interp& in, Args& a) {
    return !a.pos.empty() && in.tensor(a.pos[0]) ? a.pos[0] : Value::unknown();
  };
}

}  // namespace tpf::memory
