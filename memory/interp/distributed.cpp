// Data-parallel and sharding wrappers and the launch libraries around
// them: DistributedDataParallel / DataParallel (a module wrapper whose
// forward is the wrapped module's), FullyShardedDataParallel (sharding
// strategy, MixedPrecision), deepspeed.initialize (ZeRO stage, fp16/bf16,
// micro-batch, accumulation and optimizer from the config dict or JSON
// file), and accelerate.Accelerator (mixed precision, accumulation).
// requires: interp.h, modules.h. produces: TrainingConfig sharding entries.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

Value make_optimizer(Interp& in, std::string_view q, OptimizerKind kind, Args& a);

namespace {

/// A module wrapper: forward runs the wrapped module (named "module.*").
Value wrap(Interp& in, std::string_view type, Value inner) {
  Value w = new_instance(in, type);
  in.o(w).flags |= kIsModule | kTraining;
  in.o(w).line = in.user_line();
  in.o(w).attrs.set(in.intern("module"), inner);
  return w;
}

void set_sharding(Interp& in, Sharding s, std::string what) {
  if (in.cfg.sharding != Sharding::None && s == Sharding::Ddp) return;
  in.cfg.sharding = s;
  in.cfg.sharding_origin = {in.user_line(), std::move(what)};
}

Value c_ddp(Interp& in, Args& a) {
  Value m = a.get(in, 0, "module").value_or(Value::unknown());
  set_sharding(in, Sharding::Ddp, "DistributedDataParallel");
  if (auto v = a.kwarg(in, "gradient_as_bucket_view")) in.cfg.ddp_bucket_view = in.truth(*v).value_or(false);
  return in.is_module(m) ? wrap(in, "wrapper.ddp", m) : Value::unknown();
}

Value c_fsdp(Interp& in, Args& a) {
  Value m = a.get(in, 0, "module").value_or(Value::unknown());
  Sharding s = Sharding::Fsdp;
  if (auto st = a.kwarg(in, "sharding_strategy"); st && st->kind == VKind::Ext) {
    std::string_view n = in.str(st->a);
    if (n.ends_with("SHARD_GRAD_OP")) s = Sharding::Zero2;
    else if (n.ends_with("NO_SHARD")) s = Sharding::Ddp;
  }
  set_sharding(in, s, "FullyShardedDataParallel");
  if (auto mp = a.kwarg(in, "mixed_precision"); mp && in.instance(*mp)) {
    const Value* pd = in.o(*mp).attrs.find(in.intern("param_dtype"));
    if (pd && pd->kind == VKind::Dtype && !in.cfg.autocast) {
      in.cfg.autocast = static_cast<Dtype>(pd->a);
      in.cfg.autocast_origin = {in.user_line(), "FSDP MixedPrecision(param_dtype=...)"};
      in.autocast.insert(in.autocast.begin(), in.cfg.autocast);
    }
  }
  return in.is_module(m) ? wrap(in, "wrapper.fsdp", m) : Value::unknown();
}

Value c_mixed_precision(Interp& in, Args& a) {
  Value mp = new_instance(in, "fsdp.MixedPrecision");
  for (auto& [k, v] : a.kw) in.o(mp).attrs.set(k, v);
  return mp;
}

Value c_data_parallel(Interp& in, Args& a) {
  Value m = a.get(in, 0, "module").value_or(Value::unknown());
  return in.is_module(m) ? wrap(in, "wrapper.dp", m) : Value::unknown();
}

/// Reads a DeepSpeed config: a dict value, or a JSON file of the analyzed
/// project. The script is untrusted input: a path that leads outside its
/// project (absolute, `..`, a symlink out), a non-regular file or one over
/// 1 MB is not read, and the report says so.
void read_ds_config(Interp& in, Value cfg, Value model, Args& a, bool from_trainer = false) {
  namespace fs = std::filesystem;
  nlohmann::json j;
  if (auto path = in.as_str(cfg)) {
    std::string p(*path);
    auto found = project_file(in, p, "DeepSpeed config file", a.span);
    if (!found) return;
    std::ifstream f(*found);
    if (!f) {
      in.note_unknown("DeepSpeed config file `" + p + "`", a.span, false);
      return;
    }
    try {
      j = nlohmann::json::parse(f);
    } catch (const nlohmann::json::parse_error& e) {
      // "[json.exception.parse_error.101] parse error at line 3, column 5: ..."
      std::string why = e.what();
      if (size_t at = why.find("parse error"); at != std::string::npos) why = why.substr(at);
      in.note_unknown("DeepSpeed config file `" + p + "` is not valid JSON (" + why +
                          "): its ZeRO stage and precision are not read",
                      a.span, false);
      return;
    }
  } else if (in.is_obj(cfg, OKind::Dict)) {
    std::function<nlohmann::json(Value)> conv = [&](Value v) -> nlohmann::json {
      if (v.kind == VKind::Int) return in.dims.value(v.dim());
      if (v.kind == VKind::Bool) return v.a != 0;
      if (v.kind == VKind::Float) return v.f;
      if (v.kind == VKind::Str) return std::string(in.str(v.a));
      if (in.is_obj(v, OKind::Dict)) {
        nlohmann::json o = nlohmann::json::object();
        std::vector<Value> items = in.o(v).items;
        for (size_t k = 0; k + 1 < items.size(); k += 2)
          if (auto s = in.as_str(items[k])) o[std::string(*s)] = conv(items[k + 1]);
        return o;
      }
      return nullptr;
    };
    j = conv(cfg);
  } else {
    return;
  }
  uint32_t line = in.user_line();
  if (j.contains("zero_optimization") && j["zero_optimization"].contains("stage") &&
      j["zero_optimization"]["stage"].is_number_integer()) {
    const int64_t stage = j["zero_optimization"]["stage"].get<int64_t>();
    if (stage < 0 || stage > 3) {
      // DeepSpeed refuses it at start-up; no sharding is assumed.
      in.note_unknown("DeepSpeed zero_optimization.stage " + std::to_string(stage) +
                          " is not one DeepSpeed accepts (0 to 3): no sharding is assumed",
                      a.span, false);
      return;
    }
    const int st = static_cast<int>(stage);
    in.cfg.zero_stage = {st, {line, "DeepSpeed zero_optimization.stage"}};
    set_sharding(in, st >= 3 ? Sharding::Zero3 : st == 2 ? Sharding::Zero2 : st == 1 ? Sharding::Zero1 : Sharding::Ddp,
                 "DeepSpeed ZeRO stage " + std::to_string(st));
  } else {
    set_sharding(in, Sharding::Ddp, "DeepSpeed");
  }
  for (const char* key : {"bf16", "fp16"}) {
    if (!j.contains(key) || !j[key].is_object() || !j[key].contains("enabled")) continue;
    const nlohmann::json& enabled = j[key]["enabled"];
    // "auto" is the Hugging Face Trainer's: it fills in its own setting
    // (from TrainingArguments, read by trainers.cpp).
    if (!enabled.is_boolean()) {
      if (!from_trainer)
        in.note_unknown(std::string("DeepSpeed ") + key + ".enabled is not true or false", a.span, false);
      continue;
    }
    if (enabled.get<bool>()) {
      Dtype dt = std::string(key) == "bf16" ? Dtype::BFloat16 : Dtype::Float16;
      if (in.is_module(model)) convert_module(in, model, dt, std::string("DeepSpeed ") + key + ".enabled");
      in.cfg.master_weights = true;
      in.cfg.master_weights_origin = {line, std::string("DeepSpeed ") + key + ".enabled"};
    }
  }
  for (const char* key : {"train_micro_batch_size_per_gpu", "gradient_accumulation_steps"})
    if (j.contains(key) && !j[key].is_number_integer() && !from_trainer)
      in.note_unknown(std::string("DeepSpeed ") + key + " is not a number", a.span, false);
  if (j.contains("train_micro_batch_size_per_gpu") && j["train_micro_batch_size_per_gpu"].is_number_integer())
    in.named_source("train_micro_batch_size_per_gpu", in.int_value(j["train_micro_batch_size_per_gpu"].get<int64_t>()),
                    line, "DeepSpeed train_micro_batch_size_per_gpu");
  if (j.contains("gradient_accumulation_steps") && j["gradient_accumulation_steps"].is_number_integer())
    in.cfg.grad_accum = {j["gradient_accumulation_steps"].get<int64_t>(), {line, "DeepSpeed gradient_accumulation_steps"}};
  if (j.contains("optimizer") && j["optimizer"].contains("type") && j["optimizer"]["type"].is_string() &&
      in.is_module(model)) {
    std::string type = j["optimizer"]["type"].get<std::string>();
    OptimizerKind k = type == "SGD" ? OptimizerKind::Sgd : type == "Adagrad" ? OptimizerKind::Adagrad
                                                                             : OptimizerKind::AdamW;
    Args ma;
    bool handled = false;
    Args pa{{model}, {}, a.span};
    ma.pos = {call_module_method(in, model, "parameters", pa, handled)};
    make_optimizer(in, "deepspeed." + type, k, ma);
    // DeepSpeed builds its own FusedAdam for Adam/AdamW unless told
    // "torch_adam" (runtime/engine.py, _configure_basic_optimizer): one
    // kernel, no foreach temporaries.
    const nlohmann::json& params = j["optimizer"].contains("params") ? j["optimizer"]["params"] : nlohmann::json();
    bool torch_adam = params.is_object() && params.contains("torch_adam") && params["torch_adam"].is_boolean() &&
                      params["torch_adam"].get<bool>();
    if (k == OptimizerKind::AdamW && !torch_adam) in.cfg.optimizers.back().fused = true;
  }
}

Value f_ds_initialize(Interp& in, Args& a) {
  Value model = a.kwarg(in, "model").value_or(a.pos.size() > 1 ? a.pos[1] : Value::unknown());
  Value cfg = a.kwarg(in, "config").value_or(a.kwarg(in, "config_params").value_or(Value::unknown()));
  Value opt = a.kwarg(in, "optimizer").value_or(Value::none());
  if (!in.as_str(cfg) && !in.is_obj(cfg, OKind::Dict)) {
    // `deepspeed train.py --deepspeed_config ds.json`: initialize(args=args)
    // reads the config from the parsed arguments.
    Value args = a.get(in, 0, "args").value_or(Value::unknown());
    if (in.instance(args)) cfg = in.getattr(args, "deepspeed_config");
  }
  if (!in.as_str(cfg) && !in.is_obj(cfg, OKind::Dict)) {
    // The ZeRO stage, the precision and often the optimizer live there:
    // without it the estimate has no optimizer state to charge.
    bool has_opt = (opt.known() && opt.kind != VKind::None) || !in.optimizers.empty();
    in.note_unknown("DeepSpeed config (not in the script; ZeRO stage, precision" +
                        std::string(has_opt ? ")" : " and optimizer)"),
                    a.span, !has_opt);
  }
  read_ds_config(in, cfg, model, a);
  if (!in.is_module(model)) return Value::unknown();
  Value engine = wrap(in, "wrapper.deepspeed", model);
  Value optimizer = opt.known() && opt.kind != VKind::None ? opt
                    : in.optimizers.empty() ? Value::unknown() : Value::obj(in.optimizers.back());
  in.o(engine).attrs.set(in.intern("optimizer"), optimizer);
  return in.make_list({engine, optimizer, Value::none(), Value::none()}, OKind::Tuple);
}

/// The estimate is one GPU's run: its process is the first and the main one
/// (as `torch.distributed.get_rank()` is 0). `x ** (1 + accelerator.
/// local_process_index)` and `if state.is_main_process:` then follow it.
/// `num_processes` is the run's world size, as `get_world_size()` gives it
/// (--world-size, else the target's GPU count).
void set_first_process(Interp& in, Value state) {
  Value world = in.opt.world_size ? in.int_value(*in.opt.world_size)
                : in.opt.target   ? in.int_value(in.opt.target->count)
                                  : Value::unknown();
  Obj& ob = in.o(state);
  for (const char* n : {"process_index", "local_process_index"}) ob.attrs.set(in.intern(n), in.int_value(0));
  for (const char* n : {"is_main_process", "is_local_main_process"}) ob.attrs.set(in.intern(n), Value::boolean(true));
  ob.attrs.set(in.intern("num_processes"), world);
}

Value c_accelerator(Interp& in, Args& a) {
  Value acc = new_instance(in, "accelerate.Accelerator");
  set_first_process(in, acc);
  // `accelerator.mixed_precision` is the mode's name ("no" when none is
  // given; accelerate's config file or environment could say otherwise,
  // which the estimate does not read). diffusers' scripts cast their frozen
  // models to weight_dtype by it.
  auto mp = a.kwarg(in, "mixed_precision");
  if (!mp || mp->kind == VKind::None) in.o(acc).attrs.set(in.intern("mixed_precision"), in.str_value("no"));
  if (mp) {
    if (auto s = in.as_str(*mp); s && (*s == "bf16" || *s == "fp16" || *s == "no")) {
      in.o(acc).attrs.set(in.intern("mixed_precision"), in.str_value(*s));
      if (*s != "no")
        in.o(acc).attrs.set(in.intern("dtype"), Value::dtype(*s == "bf16" ? Dtype::BFloat16 : Dtype::Float16));
    }
  }
  if (auto ga = a.kwarg(in, "gradient_accumulation_steps"); ga && in.as_int(*ga))
    in.cfg.grad_accum = {*in.as_int(*ga), {in.user_line(), "Accelerator(gradient_accumulation_steps=...)"}};
  in.o(acc).attrs.set(in.intern("device"), in.str_value("cuda"));
  return acc;
}

/// accelerate's find_executable_batch_size: the decorated function is
/// called with the batch size first, halved after each OOM. The run's first
/// try is at `starting_batch_size` (128 by default), and that is the peak the
/// estimate gives; a note says the decorator would retry smaller.
Value f_find_executable_batch_size(Interp& in, std::string_view q, Args& a) {
  Value fn = !a.pos.empty() ? a.pos[0] : a.kwarg(in, "function").value_or(Value::none());
  Value start = a.kwarg(in, "starting_batch_size").value_or(Value::integer(in.dims.constant(128)));
  if (fn.kind == VKind::None) {
    // @find_executable_batch_size(starting_batch_size=...): the decorator.
    ObjId p = in.alloc(OKind::Partial);
    in.o(p).items = {Value::ext(in.intern(q))};
    in.o(p).attrs.assign({{in.intern("starting_batch_size"), start}});
    return Value::obj(p);
  }
  in.note_unknown("accelerate's find_executable_batch_size halves the batch after an OOM: estimated at its first try, "
                  "batch " + (in.as_int(start) ? std::to_string(*in.as_int(start)) : std::string("unknown")),
                  a.span, false);
  if (start.kind == VKind::Int)
    start = in.named_source("batch_size", start, in.user_line(), "find_executable_batch_size(starting_batch_size=...)");
  ObjId p = in.alloc(OKind::Partial);
  in.o(p).items = {fn, start};
  return Value::obj(p);
}

}  // namespace

/// TrainingArguments(deepspeed=...): the same config, with the Trainer's
/// "auto" values left to TrainingArguments.
void read_trainer_ds_config(Interp& in, Value cfg, Value model, Args& a) {
  if (in.as_str(cfg) || in.is_obj(cfg, OKind::Dict)) read_ds_config(in, cfg, model, a, true);
}

Value construct_distributed(Interp& in, std::string_view q, Args& a, bool& handled) {
  handled = true;
  if (q == "torch.nn.parallel.DistributedDataParallel" || q == "torch.nn.parallel.DDP") return c_ddp(in, a);
  if (q == "torch.nn.DataParallel" || q == "torch.nn.parallel.DataParallel") return c_data_parallel(in, a);
  if (q.ends_with("FullyShardedDataParallel") || q.ends_with(".FSDP")) return c_fsdp(in, a);
  if (q.ends_with("fsdp.MixedPrecision")) return c_mixed_precision(in, a);
  if (q == "accelerate.Accelerator") return c_accelerator(in, a);
  // PartialState: the process's rank and device, no training settings.
  if (q == "accelerate.PartialState" || q == "accelerate.state.PartialState") {
    Value state = new_instance(in, "accelerate.PartialState");
    set_first_process(in, state);
    return state;
  }
  if (q == "deepspeed.initialize") return f_ds_initialize(in, a);
  if (q == "accelerate.notebook_launcher" || q == "accelerate.launchers.notebook_launcher") {
    // notebook_launcher(fn, args, num_processes=N): each process runs
    // fn(*args); one run is one GPU's step.
    Value fn = a.get(in, 0, "function").value_or(Value::unknown());
    Args ca;
    ca.span = a.span;
    if (auto args = a.get(in, 1, "args"))
      if (auto items = in.iterate(*args)) ca.pos = *items;
    if (auto n = a.kwarg(in, "num_processes"); n && n->kind == VKind::Int)
      in.named_source("num_processes", *n, in.user_line(), "notebook_launcher(num_processes=...)");
    return in.call(fn, ca);
  }
  if (q == "accelerate.utils.find_executable_batch_size" || q == "accelerate.find_executable_batch_size" ||
      q == "accelerate.utils.memory.find_executable_batch_size")
    return f_find_executable_batch_size(in, q, a);
  // FSDP2 (torch.distributed.fsdp.fully_shard, torch 2.4+; earlier under
  // _composable.fsdp) shards the module in place and returns it.
  if (q == "torch.distributed.fsdp.fully_shard" || q == "torch.distributed._composable.fsdp.fully_shard" ||
      q == "torch.distributed._composable.fsdp.fully_shard.fully_shard") {
    Value m = a.get(in, 0, "module").value_or(Value::unknown());
    set_sharding(in, Sharding::Fsdp, "fully_shard");
    return in.is_module(m) ? m : Value::unknown();
  }
  // Tensor parallelism (torch.distributed.tensor.parallel, torch 2.2+):
  // parallelize_module(module, device_mesh, plan) shards the module's
  // layers in place and returns it. The estimate keeps the whole module on
  // each GPU, an upper bound, and says so.
  if (q == "torch.distributed.tensor.parallel.parallelize_module" ||
      q == "torch.distributed.tensor.parallel.api.parallelize_module") {
    Value m = a.get(in, 0, "module").value_or(Value::unknown());
    if (!in.is_module(m)) return Value::unknown();
    in.note_unknown("tensor parallelism (`parallelize_module`) shards layers across GPUs: estimated with the whole "
                    "model on each, an upper bound",
                    a.span, false);
    return m;
  }
  // torch.distributed.rpc: rpc_sync / rpc_async / remote(to, func, args=,
  // kwargs=) run func on another worker; the estimate runs it here, as
  // the worker would (pytorch/examples distributed/rpc, where the trainers'
  // loops run inside rpc_async). An RRef or a Future holds the result.
  if (q == "torch.distributed.rpc.rpc_sync" || q == "torch.distributed.rpc.rpc_async" ||
      q == "torch.distributed.rpc.remote") {
    Value fn = a.get(in, 1, "func").value_or(Value::unknown());
    Args ca;
    ca.span = a.span;
    if (auto args = a.get(in, 2, "args"))
      if (auto items = in.iterate(*args)) ca.pos = *items;
    // kwargs= is a dict of str keys (items are key, value pairs); any
    // other value leaves the call unknown.
    if (auto kw = a.get(in, 3, "kwargs"); kw && kw->kind != VKind::None) {
      if (!in.is_obj(*kw, OKind::Dict)) return Value::unknown();
      const std::vector<Value> items = in.o(*kw).items;
      for (size_t j = 0; j + 1 < items.size(); j += 2) {
        auto k = in.as_str(items[j]);
        if (!k) return Value::unknown();
        ca.kw.emplace_back(in.intern(*k), items[j + 1]);
      }
    }
    Value r = in.call(fn, ca);
    if (q.ends_with("rpc_sync")) return r;
    Value held = new_instance(in, "rpc.held");
    in.o(held).items = {r};
    return held;
  }
  if (q == "torch.distributed.rpc.RRef") {
    Value held = new_instance(in, "rpc.held");
    in.o(held).items = {a.get(in, 0, "value").value_or(Value::unknown())};
    return held;
  }
  // Adds --deepspeed and --deepspeed_config to the script's parser.
  if (q == "deepspeed.add_config_arguments") return a.pos.empty() ? Value::unknown() : a.pos[0];
  handled = false;
  return Value::unknown();
}

Value distributed_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  std::string_view t = type_of(in, self);
  // `with state.split_between_processes(inputs) as part:` (Accelerator and
  // PartialState): one process's share of the inputs; on one GPU, all of
  // them (accelerate's distributed inference examples).
  if ((t == "accelerate.Accelerator" || t == "accelerate.PartialState") && n == "split_between_processes") {
    Value split = new_instance(in, "accelerate.split");
    in.o(split).items = {a.get(in, 1, "inputs").value_or(Value::unknown())};
    return split;
  }
  if (t == "accelerate.split") {
    if (n == "__enter__") return in.o(self).items.empty() ? Value::unknown() : in.o(self).items[0];
    return Value::none();
  }
  if (t == "accelerate.Accelerator") {
    if (n == "prepare") {
      std::vector<Value> out(a.pos.begin() + 1, a.pos.end());
      if (const Value* dt = in.o(self).attrs.find(in.intern("dtype"))) {
        // prepare() wraps the model's forward in autocast.
        for (Value v : out)
          if (in.is_module(v)) in.o(v).attrs.set(in.intern("__autocast__"), *dt);
        in.cfg.autocast = static_cast<Dtype>(dt->a);
        in.cfg.autocast_origin = {in.user_line(), "Accelerator(mixed_precision=...)"};
      }
      if (out.size() == 1) return out[0];
      return in.make_list(std::move(out), OKind::Tuple);
    }
    if (n == "backward" && a.pos.size() > 1) {
      in.backward(a.pos[1]);
      return Value::none();
    }
    if (n == "accumulate" || n == "autocast" || n == "no_sync" || n == "main_process_first") {
      ObjId c = in.alloc(OKind::Instance);
      in.o(c).type = in.intern("ctx.null");
      return Value::obj(c);
    }
    if (n == "unwrap_model") return a.pos.size() > 1 ? a.pos[1] : Value::unknown();
    return Value::unknown();
  }
  if (t == "wrapper.deepspeed") {
    if (n == "backward" && a.pos.size() > 1) {
      in.backward(a.pos[1]);
      return Value::none();
    }
    if (n == "step") {
      if (const Value* o = in.o(self).attrs.find(in.intern("optimizer")); o && in.instance(*o)) {
        Args sa{{*o}, {}, a.span};
        return in.call_method(*o, in.intern("step"), sa);
      }
      return Value::none();
    }
  }
  if (t == "rpc.held") {
    // rref.to_here(), local_value(), fut.wait(), value(); rref.rpc_sync()
    // and its kin are proxies whose methods run on the held object.
    if (n == "to_here" || n == "local_value" || n == "wait" || n == "value" || n == "rpc_sync" ||
        n == "rpc_async" || n == "remote")
      return in.o(self).items.empty() ? Value::unknown() : in.o(self).items[0];
    return Value::unknown();
  }
  if (t == "ctx.null") return Value::none();
  handled = false;
  return Value::unknown();
}

}  // namespace tpf::memory
