// PEFT adapters and bitsandbytes quantization: the peft and
// transformers.BitsAndBytesConfig names the zoo models (memory/tables/zoo/
// peft_lora.py), and the weights from_pretrained(load_in_8bit=...,
// load_in_4bit=..., quantization_config=...) quantizes, stored as
// bitsandbytes stores them (Storage::quant; storage_bytes() charges them).
// requires: interp.h, zoo.cpp's zoo units. produces: zoo values, quantized storages.
#include <string>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"

namespace tpf::memory {

Value zoo_value(Interp& in, std::string_view file, std::string_view name);

namespace {

struct PeftRow {
  std::string_view qualname, name;
};
// Under the names peft and transformers export them.
constexpr PeftRow kPeft[] = {
    {"peft.LoraConfig", "LoraConfig"},
    {"peft.get_peft_model", "get_peft_model"},
    {"peft.prepare_model_for_kbit_training", "prepare_model_for_kbit_training"},
    {"peft.prepare_model_for_int8_training", "prepare_model_for_int8_training"},
    {"peft.get_peft_model_state_dict", "get_peft_model_state_dict"},
    {"peft.set_peft_model_state_dict", "set_peft_model_state_dict"},
    {"transformers.BitsAndBytesConfig", "BitsAndBytesConfig"},
    {"peft.PeftModel.from_pretrained", "peft_model_from_pretrained"},
    {"peft.PeftModelForCausalLM.from_pretrained", "peft_model_from_pretrained"},
    {"peft.PeftModelForSequenceClassification.from_pretrained", "peft_model_from_pretrained"},
};

bool true_flag(Interp& in, std::optional<Value> v) { return v && in.truth(*v).value_or(false); }

/// torch._tpf_quantize(weight, mode, out_features): the zoo's hook marking
/// a Linear's weight as bitsandbytes stores it ("int8", "nf4",
/// "nf4-double"). Frozen, as Int8Params and Params4bit are.
Value f_quantize(Interp& in, Args& a) {
  if (a.pos.size() < 3) return Value::none();
  TensorObj* t = in.tensor(a.pos[0]);
  auto mode = in.as_str(a.pos[1]);
  if (!t || !mode) return Value::none();
  Storage& s = in.storages[t->storage];
  s.quant = *mode == "int8" ? Quant::Int8 : *mode == "nf4-double" ? Quant::Nf4Double : Quant::Nf4;
  if (a.pos[2].kind == VKind::Int) s.rows = a.pos[2].dim();
  t->requires_grad = false;
  return Value::none();
}

bool quantized(Interp& in, Value m) {
  for (auto& [n, t] : module_tensors(in, m, Role::Param))
    if (in.storages[in.tensor(t)->storage].quant != Quant::None) return true;
  return false;
}

Value f_is_quantized(Interp& in, Args& a) {
  return Value::boolean(!a.pos.empty() && in.is_module(a.pos[0]) && quantized(in, a.pos[0]));
}

/// torch._tpf_upcast_unquantized(model): peft's prepare_model_for_kbit_training
/// casts every float16/bfloat16 parameter that is not a quantized weight
/// to float32 (the norms, the embeddings, the output head).
Value f_upcast_unquantized(Interp& in, Args& a) {
  if (a.pos.empty() || !in.is_module(a.pos[0])) return Value::none();
  bool any = false;
  for (auto& [n, v] : module_tensors(in, a.pos[0], Role::Param)) {
    TensorObj* t = in.tensor(v);
    Storage& s = in.storages[t->storage];
    if (s.quant != Quant::None || (t->dtype != Dtype::Float16 && t->dtype != Dtype::BFloat16))
      continue;
    t->dtype = Dtype::Float32;
    s.dtype = Dtype::Float32;
    any = true;
  }
  if (any && !quantized(in, a.pos[0])) {
    in.cfg.param_dtype = Dtype::Float32;
    in.cfg.param_dtype_origin = {in.user_line(), "prepare_model_for_kbit_training()"};
  }
  return Value::none();
}

/// torch._tpf_blocking_unknown(what): the zoo's way to say it cannot go on.
Value f_blocking_unknown(Interp& in, Args& a) {
  auto what = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  in.note_unknown(std::string(what.value_or("a PEFT call")), in.user_span(), true);
  return Value::none();
}

/// torch._tpf_note_unknown(what): a part the zoo leaves out that does not
/// block the estimate (a loaded adapter's few frozen weights).
Value f_note_unknown(Interp& in, Args& a) {
  auto what = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  in.note_unknown(std::string(what.value_or("a PEFT call")), in.user_span(), false);
  return Value::none();
}

}  // namespace

void register_peft(Builtins& b) {
  auto& f = b.functions;
  f["torch._tpf_quantize"] = f_quantize;
  f["torch._tpf_is_quantized"] = f_is_quantized;
  f["torch._tpf_upcast_unquantized"] = f_upcast_unquantized;
  f["torch._tpf_blocking_unknown"] = f_blocking_unknown;
  f["torch._tpf_note_unknown"] = f_note_unknown;
}

/// peft.* and transformers.BitsAndBytesConfig: the zoo's functions and classes.
Value construct_peft(Interp& in, std::string_view q, Args& a, bool& handled) {
  handled = true;
  for (const PeftRow& r : kPeft) {
    if (r.qualname != q) continue;
    Value v = zoo_value(in, "peft_lora", r.name);
    if (in.is_obj(v, OKind::Class)) return in.construct(v.a, a);
    return in.call(v, a);
  }
  // An adapter loaded from a directory (its r and targets are in its
  // adapter_config.json), other tuners (prefix tuning, IA3, ...).
  if (q.starts_with("peft.") &&
      (q.ends_with("from_pretrained") || q.ends_with("Config") || q.ends_with("Model"))) {
    in.note_unknown(
        "PEFT `" + std::string(q) + "` is not modeled (LoraConfig with get_peft_model is)", a.span,
        true);
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

/// The bitsandbytes request of a from_pretrained call: load_in_8bit=True,
/// load_in_4bit=True, or quantization_config=BitsAndBytesConfig(...). Marks
/// the model's Linear weights (all but the output head, or those
/// llm_int8_skip_modules names) and, without torch_dtype, makes the rest
/// float16 as transformers does. False: a quantization it cannot read
/// (GPTQ, AWQ, an unknown config), reported by the caller.
bool quantize_pretrained(Interp& in, Value m, Args& a) {
  bool b8 = true_flag(in, a.kwarg(in, "load_in_8bit")),
       b4 = true_flag(in, a.kwarg(in, "load_in_4bit"));
  bool dq = false;
  Value skip = Value::none();
  if (auto qc = a.kwarg(in, "quantization_config"); qc && qc->kind != VKind::None) {
    Obj* c = in.instance(*qc);
    if (!c || !c->attrs.find(in.intern("bnb_4bit_quant_type"))) return false;
    auto attr = [&](std::string_view k) { return in.getattr(*qc, k); };
    b8 = b8 || in.truth(attr("load_in_8bit")).value_or(false);
    b4 = b4 || in.truth(attr("load_in_4bit")).value_or(false);
    dq = in.truth(attr("bnb_4bit_use_double_quant")).value_or(false);
    skip = attr("llm_int8_skip_modules");
  }
  if (!b8 && !b4) return true;
  if (!in.is_module(m)) return true;
  bool dtype_given = false;
  for (const char* k : {"torch_dtype", "dtype"})
    if (auto v = a.kwarg(in, k); v && v->kind != VKind::None) dtype_given = true;
  // transformers: "Overriding torch_dtype=None with torch_dtype=torch.float16
  // due to requirements of bitsandbytes".
  if (!dtype_given)
    convert_module(in, m, Dtype::Float16,
                   std::string("from_pretrained(") + (b4 ? "load_in_4bit" : "load_in_8bit") + ")");
  std::string mode = b4 ? (dq ? "nf4-double" : "nf4") : "int8";
  Value fn = zoo_value(in, "peft_lora", "quantize_model");
  Args qa{{m, in.str_value(mode), skip}, {}, a.span};
  in.call(fn, qa);
  return true;
}

}  // namespace tpf::memory
