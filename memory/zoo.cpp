// The model zoo: modules whose definitions are not in the script. They are
// Python (memory/zoo/*.py, embedded at build time) run by the same
// interpreter, so their parameters and saved tensors follow from the same
// op rules: torch.nn's composite layers (MultiheadAttention, Transformer*,
// LSTM/GRU), torchvision models by name, and Hugging Face models from
// from_pretrained("...") with the published configs of memory/hf_configs.def,
// and timm models by registered name (memory/zoo_timm.cpp).
// requires: interp.h. produces: zoo module instances.
#include <algorithm>
#include <cctype>

#include "lexer/lexer.h"
#include "memory/interp.h"
#include "memory/modules.h"
#include "parser/parser.h"

namespace tpf::memory {

std::string_view zoo_source(std::string_view name);
Value create_timm(Interp& in, std::string_view q, Args& a);  // zoo_timm.cpp

uint16_t Interp::zoo_unit(std::string_view name, std::string_view text) {
  for (size_t k = 0; k < units.size(); ++k)
    if (units[k]->name == name) return static_cast<uint16_t>(k);
  auto u = std::make_unique<Unit>();
  u->name = std::string(name);
  u->src = std::make_unique<SourceFile>();
  DiagSink diags;
  if (text.empty()) text = zoo_source(name);
  if (!lexer::make_source("<zoo>/" + std::string(name) + ".py", std::string(text), *u->src, diags))
    ir::internal_error("memory zoo file does not load");
  lexer::TokenStream toks = lexer::tokenize(*u->src, diags);
  u->ast = std::make_unique<ast::Module>(parser::parse(*u->src, toks, diags));
  if (diags.has_errors()) ir::internal_error("memory zoo file does not parse: " + diags.diagnostics()[0].message);
  u->own = std::make_unique<ir::Module>(ir::build(*u->ast, *u->src, diags, ir::kVerify));
  u->ir = u->own.get();
  uint16_t id = static_cast<uint16_t>(units.size());
  units.push_back(std::move(u));
  // Run its top level: defines the classes and functions.
  std::vector<Frame*> saved_stack;
  saved_stack.swap(stack);
  std::vector<StrId> saved_path;
  saved_path.swap(module_path);
  uint32_t saved_depth = depth;
  depth = 0;
  run(id, ir::FunctionId(0), {}, nullptr, kNone32);
  depth = saved_depth;
  stack.swap(saved_stack);
  module_path.swap(saved_path);
  return id;
}

/// A name defined at the top level of a zoo file (`from tpf_zoo.<file>
/// import <name>` in zoo code resolves through this too).
Value zoo_value(Interp& in, std::string_view file, std::string_view name) {
  uint16_t u = in.zoo_unit(file);
  Unit& un = in.unit(u);
  ir::Symbol s = un.ir->names.find(name);
  if (s == ir::kNoSymbol || !un.top) return Value::unknown();
  const ir::Function& f = un.ir->fn(ir::FunctionId(0));
  ir::VarId var = f.find_var(s);
  if (!var.valid()) return Value::unknown();
  std::span<const uint32_t> st = in.stores(u, ir::FunctionId(0), var);
  for (size_t i = st.size(); i-- > 0;) {
    const ir::LocalRef& r = f.local_refs[st[i]];
    if (un.top->vals[r.value.v].kind != VKind::Unbound) return un.top->vals[r.value.v];
  }
  return Value::unknown();
}

namespace {

struct ZooRow {
  std::string_view qualname;  ///< after torch.nn. / torchvision.models.
  std::string_view file;
  std::string_view name;
};

constexpr ZooRow kNn[] = {
    {"MultiheadAttention", "nn_composite", "MultiheadAttention"},
    {"TransformerEncoderLayer", "nn_composite", "TransformerEncoderLayer"},
    {"TransformerEncoder", "nn_composite", "TransformerEncoder"},
    {"TransformerDecoderLayer", "nn_composite", "TransformerDecoderLayer"},
    {"TransformerDecoder", "nn_composite", "TransformerDecoder"},
    {"LSTM", "nn_composite", "LSTM"},
    {"GRU", "nn_composite", "GRU"},
    {"LSTMCell", "nn_composite", "LSTMCell"},
};

// timm's training helpers train.py calls (zoo/timm_train.py), by the
// names timm exports them under.
constexpr ZooRow kTimmTrain[] = {
    {"timm.data.resolve_data_config", "timm_train", "resolve_data_config"},
    {"timm.data.create_dataset", "timm_train", "create_dataset"},
    {"timm.data.create_loader", "timm_train", "create_loader"},
    {"timm.loss.LabelSmoothingCrossEntropy", "timm_train", "LabelSmoothingCrossEntropy"},
    {"timm.loss.SoftTargetCrossEntropy", "timm_train", "SoftTargetCrossEntropy"},
    {"timm.optim.create_optimizer_v2", "timm_train", "create_optimizer_v2"},
    {"timm.optim.optimizer_kwargs", "timm_train", "optimizer_kwargs"},
    {"timm.task.ClassificationTask", "timm_train", "ClassificationTask"},
};

constexpr std::string_view kVision[] = {
    "resnet18", "resnet34", "resnet50", "resnet101", "resnet152", "wide_resnet50_2",
    "resnext50_32x4d", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19",
    "vgg19_bn", "mobilenet_v2", "mobilenet_v3_large", "mobilenet_v3_small", "efficientnet_b0",
    "vit_b_16", "vit_b_32", "vit_l_16", "alexnet"};

// Hugging Face published configs (config.json of each checkpoint on the Hub).
struct HfRow {
  std::string_view name;
  std::string_view family;  ///< zoo builder: gpt2, bert, roberta, distilbert, llama
  int64_t layers, hidden, heads, kv_heads, inter, vocab, max_pos;
  bool tied;   ///< tie_word_embeddings
  bool bias;   ///< attention qkv bias (qwen2)
  int64_t head_dim;  ///< per-head width (T5's d_kv; hidden / heads elsewhere)
  bool gated;        ///< T5 gated-GELU feed-forward (v1.1, flan-t5)
};
constexpr HfRow kHf[] = {
#define TPF_HF(name, family, layers, hidden, heads, kv, inter, vocab, pos, tied, bias) \
  {name, family, layers, hidden, heads, kv, inter, vocab, pos, tied, bias, (hidden) / (heads), false},
#define TPF_HF_T5(name, layers, d_model, d_kv, heads, d_ff, vocab, tied, gated) \
  {name, "t5", layers, d_model, heads, heads, d_ff, vocab, 0, tied, false, d_kv, gated},
#define TPF_HF_WINDOW(name, window)  // read by inference.cpp
#include "memory/hf_configs.def"
#undef TPF_HF_WINDOW
#undef TPF_HF_T5
#undef TPF_HF
};

const HfRow* hf_row(std::string_view name) {
  std::string low(name);
  for (char& c : low)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  // The Hub moved the first checkpoints under these organizations; the
  // old names still resolve to the same repositories.
  for (std::string_view org : {"openai-community/", "google-bert/", "facebookai/", "distilbert/", "google-t5/"})
    if (low.starts_with(org)) {
      low.erase(0, org.size());
      break;
    }
  for (const HfRow& r : kHf) {
    std::string rn(r.name);
    for (char& c : rn)
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (rn == low) return &r;
    size_t slash = rn.find('/');
    if (slash != std::string::npos && rn.substr(slash + 1) == low) return &r;
  }
  return nullptr;
}

Value hf_config(Interp& in, const HfRow& r) {
  ObjId c = in.alloc(OKind::Instance);
  in.o(c).type = in.intern("transformers.PretrainedConfig");
  auto set = [&](std::string_view k, Value v) { in.o(c).attrs.set(in.intern(k), v); };
  set("name_or_path", in.str_value(r.name));
  set("model_type", in.str_value(r.family));
  set("num_hidden_layers", in.int_value(r.layers));
  set("hidden_size", in.int_value(r.hidden));
  set("num_attention_heads", in.int_value(r.heads));
  set("num_key_value_heads", in.int_value(r.kv_heads));
  set("intermediate_size", in.int_value(r.inter));
  set("vocab_size", in.int_value(r.vocab));
  set("max_position_embeddings", in.int_value(r.max_pos));
  set("tie_word_embeddings", Value::boolean(r.tied));
  set("attention_bias", Value::boolean(r.bias));
  set("head_dim", in.int_value(r.head_dim));
  set("gated_ffn", Value::boolean(r.gated));
  set("num_labels", in.int_value(2));
  return Value::obj(c);
}

/// The head a transformers class name asks for: "lm", "mlm", "cls" or "base".
std::string hf_head(std::string_view cls) {
  if (cls.find("CausalLM") != std::string_view::npos || cls.find("LMHead") != std::string_view::npos ||
      cls.find("ConditionalGeneration") != std::string_view::npos || cls.find("Seq2SeqLM") != std::string_view::npos)
    return "lm";
  if (cls.find("MaskedLM") != std::string_view::npos || cls.find("ForPreTraining") != std::string_view::npos) return "mlm";
  if (cls.find("SequenceClassification") != std::string_view::npos) return "cls";
  return "base";
}

/// Runs the zoo builder of `family` on a config object (the published one,
/// or one the script changed) with the head `cls` names.
Value build_hf(Interp& in, std::string_view family, Value config, std::string_view cls, Args& a) {
  std::string_view file = family == "llama" ? "hf_llama" : family == "t5" ? "hf_t5" : "hf_models";
  Value builder = zoo_value(in, file, std::string("build_") + std::string(family));
  if (!builder.known()) return Value::unknown();
  Args ba{{config, in.str_value(hf_head(cls))}, {}, a.span};
  if (auto nl = a.kwarg(in, "num_labels")) in.o(config).attrs.set(in.intern("num_labels"), *nl);
  Value m = in.call(builder, ba);
  // torch_dtype= (dtype= in newer transformers): a torch dtype or its name;
  // "auto" is the checkpoint's own dtype, which the table does not hold.
  for (const char* k : {"torch_dtype", "dtype"}) {
    auto dt = a.kwarg(in, k);
    if (!dt || !in.is_module(m)) continue;
    std::optional<Dtype> d;
    if (dt->kind == VKind::Dtype) d = static_cast<Dtype>(dt->a);
    else if (auto s = in.as_str(*dt); s && *s != "auto") d = parse_dtype(*s);
    if (d) convert_module(in, m, *d, "from_pretrained(" + std::string(k) + "=...)");
    else if (auto s = in.as_str(*dt); s && *s == "auto")
      in.note_unknown("from_pretrained(" + std::string(k) +
                          "=\"auto\"): the checkpoint's stored dtype is not in the table; the weights are counted as "
                          "float32, an upper bound when it is stored in 16 bits",
                      a.span, false);
  }
  return m;
}

/// transformers.<Class>.from_pretrained("name"): the zoo builder for the
/// checkpoint's family, with the head the class names. Tokenizers and
/// processors load no network (data.cpp models their calls); a config
/// class gives the published config, for from_config.
Value from_pretrained(Interp& in, std::string_view cls, Args& a, bool& handled) {
  handled = true;
  if (cls.find("Tokenizer") != std::string_view::npos || cls.find("Processor") != std::string_view::npos ||
      cls.find("FeatureExtractor") != std::string_view::npos) {
    ObjId t = in.alloc(OKind::Instance);
    in.o(t).type = in.intern("tokenizer");
    return Value::obj(t);
  }
  Value name = a.get(in, 0, "pretrained_model_name_or_path").value_or(Value::unknown());
  auto n = in.as_str(name);
  const HfRow* r = n ? hf_row(*n) : nullptr;
  // A config alone is no model: an unknown one is reported where a model
  // is built from it (from_config).
  if (cls.ends_with("Config")) return r ? hf_config(in, *r) : Value::unknown();
  if (!r) {
    in.note_unknown("Hugging Face checkpoint " + (n ? "`" + std::string(*n) + "`" : std::string("(name not known)")) +
                        " is not in the built-in config table",
                    a.span, true);
    return Value::unknown();
  }
  // 4-/8-bit weights (bitsandbytes through transformers) are not modeled:
  // estimating them as full-precision weights would be a silent guess.
  for (std::string_view k : {"load_in_8bit", "load_in_4bit", "quantization_config"}) {
    auto v = a.kwarg(in, k);
    if (v && v->kind != VKind::None && !(v->kind == VKind::Bool && !v->a)) {
      in.note_unknown("quantized weights (`from_pretrained(" + std::string(k) + "=...)`) are not modeled", a.span, true);
      break;
    }
  }
  Value m = build_hf(in, r->family, hf_config(in, *r), cls, a);
  in.cfg.models.push_back({std::string(*n), std::string(cls), {in.user_line(), "from_pretrained"}, 0,
                           m.kind == VKind::Obj ? m.a : UINT32_MAX});
  return m;
}

/// transformers.<Class>.from_config(config): the same builders on a config
/// object from AutoConfig.from_pretrained, with whatever the script changed
/// in it (`config.num_hidden_layers = 6`).
Value from_config(Interp& in, std::string_view cls, Args& a, bool& handled) {
  handled = true;
  Value config = a.get(in, 0, "config").value_or(Value::unknown());
  Obj* c = in.instance(config);
  const Value* family = c && c->type != kNone32 && in.str(c->type) == "transformers.PretrainedConfig"
                            ? c->attrs.find(in.intern("model_type"))
                            : nullptr;
  auto fam = family ? in.as_str(*family) : std::nullopt;
  if (!fam) {
    in.note_unknown("Hugging Face model from a config the interpreter cannot follow", a.span, true);
    return Value::unknown();
  }
  std::string name;
  if (const Value* nm = c->attrs.find(in.intern("name_or_path")))
    if (auto s = in.as_str(*nm)) name = std::string(*s);
  Value m = build_hf(in, *fam, config, cls, a);
  // A config the script built (GPT2Config(n_layer=6)) has no checkpoint name.
  in.cfg.models.push_back({name.empty() ? std::string(cls) : name, name.empty() ? "from a config" : std::string(cls),
                           {in.user_line(), name.empty() ? "constructed" : "from_config"}, 0,
                           m.kind == VKind::Obj ? m.a : UINT32_MAX});
  return m;
}

/// A transformers `<Family>Config(...)` the script builds: the class's own
/// defaults (configuration_<family>.py, transformers 4.3x; not a
/// checkpoint's) with the keyword arguments it passes, under the field
/// names the zoo builders read. nullopt for a config class not modeled.
struct ConfigClass {
  std::string_view cls, family;
  HfRow defaults;  ///< name unused
  /// The class's own keyword names for layers, hidden, heads, intermediate,
  /// max positions (empty: the generic HF name).
  std::string_view layers, hidden, heads, inter, pos;
};
constexpr ConfigClass kConfigClasses[] = {
    {"GPT2Config", "gpt2", {"", "gpt2", 12, 768, 12, 12, 0, 50257, 1024, true, true, 64, false},
     "n_layer", "n_embd", "n_head", "n_inner", "n_positions"},
    {"BertConfig", "bert", {"", "bert", 12, 768, 12, 12, 3072, 30522, 512, true, true, 64, false}, "", "", "", "", ""},
    {"RobertaConfig", "roberta", {"", "roberta", 12, 768, 12, 12, 3072, 30522, 512, true, true, 64, false},
     "", "", "", "", ""},
    {"DistilBertConfig", "distilbert", {"", "distilbert", 6, 768, 12, 12, 3072, 30522, 512, true, true, 64, false},
     "n_layers", "dim", "n_heads", "hidden_dim", ""},
    {"LlamaConfig", "llama", {"", "llama", 32, 4096, 32, 0, 11008, 32000, 2048, false, false, 128, false},
     "", "", "", "", ""},
    {"MistralConfig", "llama", {"", "llama", 32, 4096, 32, 8, 14336, 32000, 131072, false, false, 128, false},
     "", "", "", "", ""},
    {"Qwen2Config", "llama", {"", "llama", 32, 4096, 32, 32, 22016, 151936, 32768, false, true, 128, false},
     "", "", "", "", ""},
    {"T5Config", "t5", {"", "t5", 6, 512, 8, 8, 2048, 32128, 0, true, false, 64, false},
     "num_layers", "d_model", "num_heads", "d_ff", ""},
};

Value config_class(Interp& in, const ConfigClass& cc, Args& a) {
  HfRow r = cc.defaults;
  auto num = [&](std::string_view own, std::string_view generic, int64_t& field) {
    for (std::string_view k : {own, generic}) {
      if (k.empty()) continue;
      if (auto v = a.kwarg(in, k)) {
        if (auto n = in.as_int(*v)) field = *n;
        else if (v->kind != VKind::None) return false;  // a value it cannot follow
      }
    }
    return true;
  };
  bool ok = num(cc.layers, "num_hidden_layers", r.layers) && num(cc.hidden, "hidden_size", r.hidden) &&
            num(cc.heads, "num_attention_heads", r.heads) && num(cc.inter, "intermediate_size", r.inter) &&
            num(cc.pos, "max_position_embeddings", r.max_pos) && num("", "vocab_size", r.vocab) &&
            num("", "num_key_value_heads", r.kv_heads) && num("d_kv", "head_dim", r.head_dim);
  // Sizes torch would reject (a head count of 0 would also divide by zero here).
  ok = ok && r.layers >= 0 && r.hidden > 0 && r.heads > 0 && r.inter >= 0 && r.vocab > 0 && r.kv_heads >= 0 &&
       r.head_dim >= 0 && r.layers <= 4096 && r.hidden <= (1 << 20);
  if (!ok) {
    in.note_unknown("`transformers." + std::string(cc.cls) + "(...)` with a size the interpreter cannot follow",
                    a.span, true);
    return Value::unknown();
  }
  if (r.kv_heads == 0) r.kv_heads = r.heads;  // Llama: num_key_value_heads=None means heads
  if (r.inter == 0) r.inter = 4 * r.hidden;    // GPT-2: n_inner=None means 4 * n_embd
  if (cc.family != "t5") r.head_dim = r.hidden / r.heads;
  if (auto t = a.kwarg(in, "tie_word_embeddings"); t && t->kind == VKind::Bool) r.tied = t->a;
  if (cc.family == "t5")
    if (auto f = a.kwarg(in, "feed_forward_proj"); f && in.as_str(*f)) r.gated = in.as_str(*f)->starts_with("gated");
  if (cc.family == "llama" && cc.cls == "LlamaConfig")
    if (auto b = a.kwarg(in, "attention_bias"); b && b->kind == VKind::Bool) r.bias = b->a;
  r.name = "";  // no checkpoint: the model is named by its class
  return hf_config(in, r);
}

}  // namespace

Value construct_zoo(Interp& in, StrId qualname, Args& a, bool& handled, Value self) {
  handled = true;
  std::string_view q = in.str(qualname);
  if (q.starts_with("torch.nn.")) {
    std::string_view rest = q.substr(9);
    for (const ZooRow& r : kNn) {
      if (r.qualname != rest) continue;
      Value cls = zoo_value(in, r.file, r.name);
      if (!in.is_obj(cls, OKind::Class)) break;
      if (self.known()) {
        const Value* init = in.class_lookup(cls.a, in.intern("__init__"));
        if (init && in.is_obj(*init, OKind::Function)) in.call_function(init->a, a, self);
        return self;
      }
      return in.construct(cls.a, a);
    }
  }
  if (q.starts_with("torchvision.models.")) {
    std::string_view rest = q.substr(19);
    size_t dot = rest.rfind('.');
    if (dot != std::string_view::npos) rest = rest.substr(dot + 1);
    if (std::find(std::begin(kVision), std::end(kVision), rest) != std::end(kVision)) {
      Value fn = zoo_value(in, "torchvision_models", rest);
      Value m = in.call(fn, a);
      in.cfg.models.push_back({std::string(rest), "torchvision", {in.user_line(), std::string(q)}, 0,
                               m.kind == VKind::Obj ? m.a : UINT32_MAX});
      return m;
    }
    in.note_unknown("torchvision model `" + std::string(rest) + "` is not in the built-in zoo", a.span, true);
    return Value::unknown();
  }
  if (q.starts_with("transformers.") && q.ends_with(".from_pretrained")) {
    std::string_view cls = q.substr(13, q.size() - 13 - 16);
    return from_pretrained(in, cls, a, handled);
  }
  if (q.starts_with("transformers.") && q.find('.', 13) == std::string_view::npos) {
    std::string_view cls = q.substr(13);
    for (const ConfigClass& cc : kConfigClasses)
      if (cc.cls == cls) return config_class(in, cc, a);
    // `GPT2LMHeadModel(config)`: a model class on a config the script built.
    Value config = a.get(in, 0, "config").value_or(Value::unknown());
    Obj* c = in.instance(config);
    if (c && c->type != kNone32 && in.str(c->type) == "transformers.PretrainedConfig") {
      Args fa{{config}, {}, a.span};
      return from_config(in, cls, fa, handled);
    }
    if (cls.ends_with("Model") || cls.find("For") != std::string_view::npos) {
      in.note_unknown("`transformers." + std::string(cls) + "(...)` on a config the interpreter cannot follow", a.span,
                      true);
      return Value::unknown();
    }
  }
  if (q.starts_with("transformers.") && q.ends_with(".from_config")) {
    std::string_view cls = q.substr(13, q.size() - 13 - 12);
    return from_config(in, cls, a, handled);
  }
  // LoRA and other adapters change which parameters train and add their
  // own: not modeled, so the estimate says so instead of counting the
  // full model as trained.
  if (q.starts_with("peft.") && (q.ends_with("get_peft_model") || q.ends_with("prepare_model_for_kbit_training") ||
                                 q.ends_with(".from_pretrained"))) {
    in.note_unknown("PEFT adapters (`" + std::string(q) + "`) are not modeled", a.span, true);
    return Value::unknown();
  }
  if (q == "timm.create_model" || q == "timm.models.create_model") return create_timm(in, q, a);
  for (const ZooRow& r : kTimmTrain) {
    if (r.qualname != q) continue;
    // Only the optimizers zoo/timm_train.py maps to torch's: another name
    // (lamb, lion, adafactor, ...) has state the estimate would not count.
    if (r.name == "create_optimizer_v2") {
      auto opt = in.as_str(a.get(in, 1, "opt").value_or(in.str_value("sgd")));
      std::string n(opt ? *opt : "");
      for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      n = n.substr(n.rfind('_') == std::string::npos ? 0 : n.rfind('_') + 1);
      constexpr std::string_view kOpts[] = {"sgd", "momentum", "nesterov", "adam", "adamw", "rmsprop", "rmsproptf"};
      if (std::find(std::begin(kOpts), std::end(kOpts), n) == std::end(kOpts)) {
        in.note_unknown("timm optimizer " + (opt ? "`" + std::string(*opt) + "`" : std::string("(name not known)")) +
                            " (`create_optimizer_v2(opt=...)`) is not modeled",
                        a.span, true);
        return Value::unknown();
      }
    }
    Value v = zoo_value(in, r.file, r.name);
    if (in.is_obj(v, OKind::Class)) return in.construct(v.a, a);
    return in.call(v, a);
  }
  // timm.models.<arch>(), torch.hub.load(...): a model from outside the
  // zoo. timm's other helpers (utils, schedulers, logging) build none.
  if (q.starts_with("timm.models.") || q.starts_with("torch.hub.")) {
    in.note_unknown("model from `" + std::string(q) + "` (not modeled)", a.span, true);
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

}  // namespace tpf::memory
