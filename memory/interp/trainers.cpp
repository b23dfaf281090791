// Training loops that live in a library: Hugging Face's Trainer (its
// TrainingArguments: per-device batch size, fp16/bf16, gradient
// checkpointing, accumulation, `optim`, DeepSpeed) and PyTorch Lightning's
// Trainer.fit (precision, accumulate_grad_batches, strategy, the module's
// configure_optimizers and training_step); Lightning Fabric (launch,
// setup, backward: the script's own loop is the step). `train()` / `fit()` run one step
// the way the library would: optimizer over the trainable parameters, a
// batch from the dataset (or one synthesized from the model's first
// layer), the forward under the configured autocast, backward.
// requires: interp.h, modules.h. produces: a training step for the estimate.
#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

Value make_optimizer(Interp& in, std::string_view q, OptimizerKind kind, Args& a);
void read_trainer_ds_config(Interp& in, Value cfg, Value model, Args& a);
Value synthesize_input(Interp& in, Value model);
Value collate_sample(Interp& in, Value sample, DimId batch);

namespace {

Value new_instance(Interp& in, std::string_view type, Args& a) {
  ObjId io = in.alloc(OKind::Instance);
  in.o(io).type = in.intern(type);
  for (auto& [k, v] : a.kw) in.o(io).attrs.set(k, v);
  in.o(io).line = in.user_line();
  return Value::obj(io);
}

Value attr(Interp& in, Value o, std::string_view k) {
  const Value* v = in.o(o).attrs.find(in.intern(k));
  return v ? *v : Value::unknown();
}

bool on(Interp& in, Value v) { return v.known() && in.truth(v).value_or(false); }

void set_autocast(Interp& in, Dtype dt, std::string what, uint32_t line) {
  if (in.opt.dtype) dt = *in.opt.dtype;
  if (dt == Dtype::Float32) return;
  if (!in.cfg.autocast) {
    in.cfg.autocast = dt;
    in.cfg.autocast_origin = {line, std::move(what)};
  }
}

/// One step: forward on `batch` (or a synthesized input), backward.
void run_step(Interp& in, Value model, Value batch, bool hf) {
  Args a;
  a.span = in.user_span();
  if (in.is_obj(batch, OKind::Dict)) {
    std::vector<Value> items = in.o(batch).items;
    for (size_t k = 0; k + 1 < items.size(); k += 2)
      if (auto s = in.as_str(items[k])) a.kw.emplace_back(in.intern(*s), items[k + 1]);
  } else if (in.tensor(batch)) {
    a.pos = {batch};
  } else if (auto* s = in.seq(batch)) {
    a.pos = *s;
  }
  if (a.pos.empty() && a.kw.empty()) {
    Value x = synthesize_input(in, model);
    if (!in.tensor(x)) return;
    in.note_unknown("the training batch (synthesized from the model's first layer)", a.span, false);
    a.kw.emplace_back(in.intern("input_ids"), x);
    if (hf) a.kw.emplace_back(in.intern("labels"), x);
  } else if (hf && !a.kwarg(in, "labels") && a.kwarg(in, "input_ids")) {
    a.kw.emplace_back(in.intern("labels"), *a.kwarg(in, "input_ids"));
  }
  bool pushed = in.cfg.autocast.has_value();
  if (pushed) in.autocast.push_back(in.cfg.autocast);
  in.callee_hint = "model";
  Value out = module_call(in, model, a);
  if (pushed) in.autocast.pop_back();
  Value loss = out;
  if (Obj* ob = in.instance(out)) {
    if (const Value* l = ob->attrs.find(in.intern("loss"))) loss = *l;
  } else if (in.is_obj(out, OKind::Dict)) {
    Args ga{{out, in.str_value("loss")}, {}, a.span};
    bool handled = false;
    loss = call_builtin_method(in, out, "get", ga, handled);
  }
  if (in.tensor(loss)) in.backward(loss);
}

// ------------------------------------------------------ Hugging Face

Value hf_trainer_train(Interp& in, Value trainer) {
  Value model = attr(in, trainer, "model");
  Value args = attr(in, trainer, "args");
  if (!in.is_module(model)) {
    in.note_unknown("the model the Trainer trains", {}, true);
    return Value::none();
  }
  std::string optim = "adamw_torch";
  // Settings are reported at the TrainingArguments call that holds them.
  uint32_t line = in.instance(args) ? in.o(args).line : in.o(trainer).line;
  if (in.instance(args)) {
    if (auto s = in.as_str(attr(in, args, "optim"))) optim = *s;
    if (on(in, attr(in, args, "fp16"))) {
      set_autocast(in, Dtype::Float16, "TrainingArguments(fp16=True)", line);
      in.cfg.grad_scaler = true;
      in.cfg.grad_scaler_origin = {line, "TrainingArguments(fp16=True)"};
    }
    if (on(in, attr(in, args, "bf16"))) set_autocast(in, Dtype::BFloat16, "TrainingArguments(bf16=True)", line);
    // fsdp="full_shard auto_wrap" / "shard_grad_op"; deepspeed="ds.json" or a dict.
    if (auto fs = in.as_str(attr(in, args, "fsdp")); fs && !fs->empty()) {
      std::string f(*fs);
      in.cfg.sharding = f.find("shard_grad_op") != std::string::npos ? Sharding::Zero2
                        : f.find("no_shard") != std::string::npos   ? Sharding::Ddp
                                                                    : Sharding::Fsdp;
      in.cfg.sharding_origin = {line, "TrainingArguments(fsdp=\"" + f + "\")"};
    }
    Args da{{}, {}, in.user_span()};
    read_trainer_ds_config(in, attr(in, args, "deepspeed"), model, da);
    if (on(in, attr(in, args, "gradient_checkpointing"))) {
      Args ca{{model}, {}, {}};
      in.call_method(model, in.intern("gradient_checkpointing_enable"), ca);
      in.cfg.checkpointing = true;
      in.cfg.checkpointing_origin = {in.o(args).line, "TrainingArguments(gradient_checkpointing=True)"};
    }
    if (auto g = in.as_int(attr(in, args, "gradient_accumulation_steps")))
      in.cfg.grad_accum = {*g, {in.o(args).line, "TrainingArguments(gradient_accumulation_steps=...)"}};
  }
  if (in.optimizers.empty()) {
    OptimizerKind k = OptimizerKind::AdamW;
    if (optim.find("8bit") != std::string::npos) k = OptimizerKind::Adam8bit;
    else if (optim == "adafactor") k = OptimizerKind::Adafactor;
    else if (optim == "sgd") k = OptimizerKind::Sgd;
    else if (optim.starts_with("lion")) k = OptimizerKind::Lion;
    Args pa{{model}, {}, {}};
    bool handled = false;
    Args oa{{call_module_method(in, model, "parameters", pa, handled)}, {}, {}};
    if (optim.find("fused") != std::string::npos)
      oa.kw.emplace_back(in.intern("fused"), Value::boolean(true));
    make_optimizer(in, "TrainingArguments(optim=\"" + optim + "\")", k, oa);
    in.cfg.optimizers.back().origin.line = line;
  }
  // The Trainer steps on per_device_train_batch_size. A constant that is
  // not the batch-size setting is the run's (alpaca-lora's finetune.py:
  // batch_size=128 is the effective batch, the Trainer gets
  // micro_batch_size=4): the first setting's symbol is renamed after its
  // line, as a sequence capacity is, and B becomes the Trainer's.
  if (in.instance(args) && !in.opt.batch_size) {
    Value pb = attr(in, args, "per_device_train_batch_size");
    if (pb.kind == VKind::Int && in.dims.is_const(pb.dim()) && in.dims.value(pb.dim()) > 0 &&
        in.cfg.batch_size.known() && *in.cfg.batch_size.value != in.dims.value(pb.dim())) {
      const IntSetting old = in.cfg.batch_size;
      if (DimSym b = in.dims.find_symbol("B"); b != UINT32_MAX)
        in.dims.rename_symbol(b, "B_" + std::to_string(old.origin.line));
      in.cfg.batch_size = {in.dims.value(pb.dim()),
                           {line, "TrainingArguments(per_device_train_batch_size=...) (not " +
                                      std::to_string(*old.value) + ", line " + std::to_string(old.origin.line) + ")"}};
    }
  }
  // A batch of the train dataset's first sample, when the dataset is the
  // script's own (a `datasets` dataset is not modeled).
  Value batch;
  Value ds = attr(in, trainer, "train_dataset");
  if (in.instance(ds) && in.cfg.batch_size.known()) {
    Value sample = in.getitem(ds, in.int_value(0));
    if (sample.known()) batch = collate_sample(in, sample, in.dims.symbol("B", *in.cfg.batch_size.value));
  }
  run_step(in, model, batch, true);
  return Value::none();
}

// --------------------------------------------------------- Lightning

Value lightning_fit(Interp& in, Value trainer, Args& a) {
  Value model = a.get(in, 1, "model").value_or(Value::unknown());
  if (!in.is_module(model)) return Value::none();
  if (auto p = attr(in, trainer, "precision"); p.known()) {
    std::string s = p.kind == VKind::Int ? std::to_string(in.as_int(p).value_or(32))
                                         : std::string(in.as_str(p).value_or("32"));
    uint32_t line = in.o(trainer).line;
    // "bf16-true" / "16-true" (Lightning 2.0+, precision.md "True Half
    // Precision"): the module's weights themselves are cast, no autocast,
    // no scaler, no float32 copy.
    if (s == "bf16-true" || s == "16-true") {
      std::string how = "Trainer(precision=\"" + s + "\")";
      convert_module(in, model, s == "bf16-true" ? Dtype::BFloat16 : Dtype::Float16, how);
    } else if (s.starts_with("16")) {
      set_autocast(in, Dtype::Float16, "Trainer(precision=\"" + s + "\")", line);
      in.cfg.grad_scaler = true;
      in.cfg.grad_scaler_origin = {line, "Trainer(precision=\"" + s + "\")"};
    } else if (s.starts_with("bf16")) {
      set_autocast(in, Dtype::BFloat16, "Trainer(precision=\"" + s + "\")", line);
    }
  }
  if (auto g = in.as_int(attr(in, trainer, "accumulate_grad_batches")))
    in.cfg.grad_accum = {*g, {in.o(trainer).line, "Trainer(accumulate_grad_batches=...)"}};
  if (auto st = in.as_str(attr(in, trainer, "strategy"))) {
    std::string s(*st);
    Sharding sh = s.find("fsdp") != std::string::npos ? Sharding::Fsdp
                  : s.find("stage_3") != std::string::npos ? Sharding::Zero3
                  : s.find("stage_2") != std::string::npos ? Sharding::Zero2
                  : s.find("ddp") != std::string::npos ? Sharding::Ddp : Sharding::None;
    if (sh != Sharding::None) {
      in.cfg.sharding = sh;
      in.cfg.sharding_origin = {in.o(trainer).line, "Trainer(strategy=\"" + s + "\")"};
    }
  }
  // configure_optimizers: an optimizer, a list, ([opts], [scheds]) or a dict.
  {
    Args ca{{model}, {}, a.span};
    in.call_method(model, in.intern("configure_optimizers"), ca);
  }
  Value loader = a.get(in, 2, "train_dataloaders").value_or(Value::unknown());
  if (!loader.known()) {
    if (Value dm = a.kwarg(in, "datamodule").value_or(Value::unknown()); dm.known()) {
      Args da{{dm}, {}, a.span};
      loader = in.call_method(dm, in.intern("train_dataloader"), da);
    } else {
      Args ma{{model}, {}, a.span};
      loader = in.call_method(model, in.intern("train_dataloader"), ma);
    }
  }
  // trainer.fit(model, datamodule) (the LightningDataModule passed where
  // train_dataloaders goes: Lightning accepts it there too).
  if (Obj* dm = in.instance(loader); dm && dm->cls != kNone32 && in.class_lookup(dm->cls, in.intern("train_dataloader"))) {
    Args da{{loader}, {}, a.span};
    loader = in.call_method(loader, in.intern("train_dataloader"), da);
  }
  Value batch;
  if (auto items = in.iterate(loader); items && !items->empty()) batch = (*items)[0];
  if (!batch.known()) {
    Value x = synthesize_input(in, model);
    if (!in.tensor(x)) return Value::none();
    batch = x;
  }
  bool pushed = in.cfg.autocast.has_value();
  if (pushed) in.autocast.push_back(in.cfg.autocast);
  Args sa{{model, batch, in.int_value(0)}, {}, a.span};
  in.callee_hint = "model";
  mark_root(in, model);
  std::vector<StrId> path{in.module_names.count(model.a) ? in.module_names[model.a] : kNone32};
  in.module_path.swap(path);
  Value out = in.call_method(model, in.intern("training_step"), sa);
  in.module_path.swap(path);
  if (pushed) in.autocast.pop_back();
  if (in.is_obj(out, OKind::Dict)) {
    Args ga{{out, in.str_value("loss")}, {}, a.span};
    bool handled = false;
    out = call_builtin_method(in, out, "get", ga, handled);
  }
  if (in.tensor(out)) in.backward(out);
  return Value::none();
}

// ------------------------------------------------------------ Fabric

/// Lightning Fabric's precision plugin as the weights and forwards see it:
/// "bf16-true"/"16-true" cast the module at setup, "*-mixed" autocast.
void fabric_precision(Interp& in, Value fabric, Value model) {
  auto p = in.as_str(attr(in, fabric, "precision"));
  if (!p) return;
  std::string s(*p), how = "Fabric(precision=\"" + s + "\")";
  uint32_t line = in.o(fabric).line;
  if (s == "bf16-true" || s == "16-true") {
    if (in.is_module(model)) convert_module(in, model, s == "bf16-true" ? Dtype::BFloat16 : Dtype::Float16, how);
  } else if (s.starts_with("bf16")) {
    set_autocast(in, Dtype::BFloat16, how, line);
  } else if (s.starts_with("16")) {
    set_autocast(in, Dtype::Float16, how, line);
    in.cfg.grad_scaler = true;
    in.cfg.grad_scaler_origin = {line, how};
  }
}

/// fabric.<method>: launch runs the function with the Fabric first (as
/// Fabric.launch does on one process); setup* return what they are given
/// (the module wrapped for the strategy, the same parameters); backward is
/// loss.backward(). Contexts (init_module, init_tensor, no_backward_sync,
/// autocast) and logging are no-ops here.
Value fabric_method(Interp& in, Value self, std::string_view n, Args& a) {
  // a.pos[0] is the Fabric itself.
  std::vector<Value> rest(a.pos.begin() + (a.pos.empty() ? 0 : 1), a.pos.end());
  if (n == "launch") {
    Value fn = rest.empty() ? a.kwarg(in, "function").value_or(Value::unknown()) : rest[0];
    if (!fn.known()) return Value::unknown();
    Args fa{{self}, a.kw, a.span};
    for (size_t k = 1; k < rest.size(); ++k) fa.pos.push_back(rest[k]);
    return in.call(fn, fa);
  }
  if (n == "setup" || n == "setup_module") {
    Value m = rest.empty() ? a.kwarg(in, "module").value_or(Value::unknown()) : rest[0];
    fabric_precision(in, self, m);
    if (n == "setup_module" || rest.size() <= 1) return m;
    return in.make_list(rest, OKind::Tuple);
  }
  if (n == "setup_optimizers" || n == "setup_dataloaders") {
    if (rest.size() == 1) return rest[0];
    return in.make_list(rest, OKind::Tuple);
  }
  if (n == "backward") {
    Value loss = rest.empty() ? a.kwarg(in, "tensor").value_or(Value::unknown()) : rest[0];
    if (in.tensor(loss)) in.backward(loss);
    return Value::none();
  }
  if (n == "all_reduce" || n == "all_gather" || n == "broadcast" || n == "to_device")
    return rest.empty() ? Value::unknown() : rest[0];
  return Value::unknown();
}

}  // namespace

Value construct_trainer(Interp& in, std::string_view q, Args& a, bool& handled) {
  handled = true;
  if (q == "transformers.TrainingArguments" || q == "transformers.Seq2SeqTrainingArguments") {
    Value args = new_instance(in, "hf.TrainingArguments", a);
    if (auto b = a.kwarg(in, "per_device_train_batch_size"))
      in.o(args).attrs.set(in.intern("per_device_train_batch_size"),
                           in.named_source("per_device_train_batch_size", *b, in.user_line(),
                                           "TrainingArguments(per_device_train_batch_size=...)"));
    else
      in.o(args).attrs.set(in.intern("per_device_train_batch_size"),
                           in.named_source("per_device_train_batch_size", in.int_value(8), in.user_line(),
                                           "TrainingArguments default per_device_train_batch_size"));
    return args;
  }
  if (q == "transformers.Trainer" || q == "transformers.Seq2SeqTrainer" || q == "trl.SFTTrainer") {
    Value t = new_instance(in, "hf.Trainer", a);
    if (!a.kwarg(in, "model") && !a.pos.empty()) in.o(t).attrs.set(in.intern("model"), a.pos[0]);
    if (!a.kwarg(in, "args") && a.pos.size() > 1) in.o(t).attrs.set(in.intern("args"), a.pos[1]);
    return t;
  }
  if (q == "pytorch_lightning.Trainer" || q == "lightning.Trainer" || q == "lightning.pytorch.Trainer" ||
      q == "pl.Trainer")
    return new_instance(in, "lightning.Trainer", a);
  if (q == "lightning.Fabric" || q == "lightning.fabric.Fabric" || q == "lightning_fabric.Fabric") {
    Value f = new_instance(in, "lightning.Fabric", a);
    // One process (the run is rank 0 of one unless --world-size says more).
    in.o(f).attrs.set(in.intern("global_rank"), in.int_value(0));
    in.o(f).attrs.set(in.intern("local_rank"), in.int_value(0));
    in.o(f).attrs.set(in.intern("node_rank"), in.int_value(0));
    in.o(f).attrs.set(in.intern("world_size"), in.int_value(1));
    in.o(f).attrs.set(in.intern("is_global_zero"), Value::boolean(true));
    return f;
  }
  handled = false;
  return Value::unknown();
}

Value trainer_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  Obj& ob = in.o(self);
  std::string_view t = ob.type == kNone32 ? std::string_view() : in.str(ob.type);
  if (t == "hf.Trainer") {
    if (n == "train") return hf_trainer_train(in, self);
    return Value::unknown();
  }
  if (t == "lightning.Trainer") {
    if (n == "fit") return lightning_fit(in, self, a);
    return Value::unknown();
  }
  if (t == "lightning.Fabric") return fabric_method(in, self, n, a);
  handled = false;
  return Value::unknown();
}

}  // namespace tpf::memory
