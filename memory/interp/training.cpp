// The training-loop constructs: optimizers (which parameters each
// updates, fused/foreach/8-bit), autocast and grad-mode contexts,
// GradScaler, `.backward()` (closes a phase of saved tensors and frees its
// graph), activation checkpointing and torch.compile. Distributed wrappers
// are in distributed.cpp, library trainers in trainers.cpp.
// requires: interp.h, modules.h. produces: TrainingConfig entries, Phases.
#include <algorithm>
#include <unordered_set>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

Value construct_data(Interp& in, StrId qualname, Args& a, bool& handled);
Value data_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);
Value construct_distributed(Interp& in, std::string_view q, Args& a, bool& handled);
Value construct_trainer(Interp& in, std::string_view q, Args& a, bool& handled);
Value trainer_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);
Value distributed_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);

namespace {

}  // namespace

// --------------------------------------------------------------- backward

void Interp::save_segment(const SavedRecord& r) { segment_saved[r.segment].push_back(r); }

void Interp::log_step(StepEvent::Kind kind, uint32_t storage, int32_t graph, uint32_t segment_id) {
  // A run of loops may repeat the step many times; the timeline needs the
  // first few steps only, so the log stops growing past a bound.
  constexpr size_t kMaxStepEvents = 1u << 20;
  if (step_log.size() >= kMaxStepEvents) return;
  step_log.push_back({kind, storage, graph, user_line(), module_path.empty() ? kNone32 : module_path.back(),
                      segment_id});
}

void Interp::prune_dead_graphs(int32_t keep) {
  // What the program can reach: every value slot of every frame alive (on
  // the stack, a unit's top level, a closure's), `global` writes, the
  // models and optimizers, and what their containers, attributes and
  // closures hold. A slot is overwritten only when its instruction runs
  // again, so the slots hold every binding a name has now, and at most the
  // previous pass of a loop besides: never less than Python keeps.
  // named_only: of a frame, only the slots of its names (a variable), not
  // the values of expressions Python has already dropped (the output of
  // `model(x).loss`, whose logits die with it).
  std::unordered_set<int32_t> live;
  auto reach = [&](bool named_only) {
    std::vector<uint8_t> seen(heap.size());
    std::unordered_set<const Frame*> frames;
    std::vector<ObjId> work;
    auto value = [&](const Value& v) {
      if (v.kind == VKind::Obj && v.a < heap.size() && !seen[v.a]) seen[v.a] = 1, work.push_back(v.a);
    };
    auto frame = [&](const Frame* f) {
      for (; f && frames.insert(f).second; f = f->parent.get()) {
        const ir::Function* fn = named_only ? &unit(f->module).ir->fn(f->fn) : nullptr;
        for (size_t i = 0; i < f->vals.size(); ++i) {
          if (fn) {
            ir::VarId var = i < fn->values.size() ? fn->values[i].var : ir::VarId();
            if (!var.valid() || fn->vars[var.v].kind != ir::VarKind::Local) continue;
          }
          value(f->vals[i]);
        }
      }
    };
    for (const Frame* f : stack) frame(f);
    for (const auto& u : units) {
      frame(u->top.get());
      for (const auto& [s, v] : u->globals_set) value(v);
    }
    frame(last_class_frame.get());
    for (ObjId r : roots) value(Value::obj(r));
    for (ObjId r : optimizers) value(Value::obj(r));
    while (!work.empty()) {
      Obj& ob = heap[work.back()];
      work.pop_back();
      for (const Value& v : ob.items) value(v);
      for (const auto& [k, v] : ob.attrs.items) value(v);
      if (ob.cls != kNone32) value(Value::obj(ob.cls));
      if (ob.t) {
        if (!named_only && ob.t->graph >= 0) live.insert(find_graph(ob.t->graph));
        if (ob.t->grad != kNone32) value(Value::obj(ob.t->grad));
      }
      frame(ob.closure.get());
    }
    return seen;
  };
  reach(false);
  if (keep >= 0) {
    live.insert(find_graph(keep));
    // Before a backward: the tensors the script still holds in a variable
    // stay alive through it (the logits), graph or not.
    std::vector<uint8_t> held = reach(true);
    for (ObjId id = 0; id < heap.size(); ++id)
      if (held[id] && heap[id].t && storages[heap[id].t->storage].role == Role::Activation)
        log_step(StepEvent::Kind::Kept, heap[id].t->storage);
  }
  // A freed graph's records stay: they are the phase its backward closed.
  std::erase_if(saved, [&](const SavedRecord& r) {
    int32_t g = find_graph(r.graph);
    return !live.count(g) && !graph_released(g);
  });
}

uint64_t Interp::unreleased_activation_bytes() {
  std::unordered_set<uint32_t> counted;
  uint64_t bytes = 0;
  for (const SavedRecord& r : saved)
    if (storages[r.storage].role == Role::Activation && !graph_released(find_graph(r.graph)) &&
        counted.insert(r.storage).second)
      bytes += static_cast<uint64_t>(dims.value(storage_bytes(r.storage)));
  return bytes;
}

bool Interp::graph_released(int32_t g) const {
  return std::find(released.begin(), released.end(), g) != released.end();
}

void Interp::backward(Value loss) {
  TensorObj* t = tensor(loss);
  if (!t || !t->requires_grad) return;
  if (!backward_seen) {
    backward_seen = true;
    first_backward = user_span();
    for (Frame* f : stack)
      if (f->backward_block == kNone32) f->backward_block = f->cur_block;
  }
  prune_dead_graphs(t->graph);
  Phase ph;
  ph.line = user_line();
  std::unordered_set<uint32_t> seen_live, seen_own;
  DimId live = dims.constant(0), own = dims.constant(0);
  std::vector<std::pair<StrId, DimId>> mods;
  for (const SavedRecord& r : saved) {
    int32_t g = find_graph(r.graph);
    if (graph_released(g)) continue;
    const Storage& st = storages[r.storage];
    DimId bytes = storage_bytes(r.storage);
    uint64_t b = static_cast<uint64_t>(dims.value(bytes));
    if (st.role == Role::Activation && seen_live.insert(r.storage).second) live = dims.add(live, bytes);
    if (r.phase != phase || !seen_own.insert(r.storage).second) continue;
    switch (st.role) {
      case Role::Activation: {
        ph.activation_bytes += b;
        own = dims.add(own, bytes);
        if (r.dropout) {
          ph.dropout_mask_bytes += b;
          ph.dropout_mask_elements += b / dtype_size(st.dtype);
        }
        auto it = std::find_if(mods.begin(), mods.end(), [&](auto& p) { return p.first == r.module; });
        if (it == mods.end()) mods.emplace_back(r.module, bytes);
        else it->second = dims.add(it->second, bytes);
        break;
      }
      case Role::Param: ph.param_saved_bytes += b; break;
      case Role::Buffer: ph.buffer_saved_bytes += b; break;
      case Role::Input: ph.input_saved_bytes += b; break;
      case Role::AutocastCopy: ph.autocast_copy_bytes += b; break;
    }
  }
  // Checkpointed segments of this phase are recomputed one at a time in
  // backward: the largest is live on top of what the forward kept.
  for (const auto& seg : segment_saved) {
    if (seg.empty() || seg[0].phase != phase) continue;
    std::unordered_set<uint32_t> s;
    uint64_t b = 0;
    for (const SavedRecord& r : seg)
      if (storages[r.storage].role == Role::Activation && s.insert(r.storage).second)
        b += static_cast<uint64_t>(dims.value(storage_bytes(r.storage)));
    ph.recompute_bytes = std::max(ph.recompute_bytes, b);
  }
  ph.live_bytes = static_cast<uint64_t>(dims.value(live));
  phases.push_back(ph);
  phase_loader.emplace_back(loader_batch, loader_line);
  phase_live.push_back(live);
  phase_own.push_back(own);
  phase_modules.push_back(std::move(mods));
  if (phases.size() == 1 || ph.live_bytes + ph.recompute_bytes >
                                phases[peak_phase].live_bytes + phases[peak_phase].recompute_bytes) {
    peak_phase = static_cast<uint32_t>(phases.size() - 1);
    peak_backward = user_span();
  }
  const int32_t root = find_graph(t->graph);
  std::erase_if(param_uses, [&](uint64_t u) {
    if (find_graph(static_cast<int32_t>(u & 0xffffffffu)) != root) return false;
    grad_reached.insert(static_cast<uint32_t>(u >> 32));
    return true;
  });
  released.push_back(root);
  log_step(StepEvent::Kind::Backward, phase, find_graph(t->graph));
  ++phase;
}

// ---------------------------------------------------------- checkpointing

Value run_checkpointed(Interp& in, Value fn, Args& a, Value module) {
  if (!in.cfg.checkpointing) {
    in.cfg.checkpointing = true;
    in.cfg.checkpointing_origin = {in.user_line(), module.known() ? "gradient_checkpointing_enable()"
                                                                  : "torch.utils.checkpoint"};
  }
  if (!in.grad_enabled || in.segment != kNone32) return in.call(fn, a);
  uint32_t seg = static_cast<uint32_t>(in.segment_saved.size());
  in.segment_saved.emplace_back();
  in.segment = seg;
  Value out;
  try {
    out = in.call(fn, a);
  } catch (...) {
    in.segment = kNone32;
    throw;
  }
  in.segment = kNone32;
  if (!in.segment_saved[seg].empty())
    for (auto& r : in.segment_saved[seg]) r.phase = in.phase;
  // The forward keeps only the segment's tensor inputs (ctx.save_for_backward).
  std::vector<Value> outs;
  if (in.tensor(out)) outs = {out};
  else if (auto* s = in.seq(out)) outs = *s;
  for (Value o : outs) {
    if (!in.tensor(o)) continue;
    for (Value x : a.pos)
      if (in.tensor(x)) in.save(x, o);
  }
  return out;
}

namespace {

Value f_checkpoint(Interp& in, Args& a) {
  if (a.pos.empty()) return Value::unknown();
  Value fn = a.pos[0];
  Args rest{{a.pos.begin() + 1, a.pos.end()}, {}, a.span};
  for (auto& kv : a.kw) {
    std::string_view k = in.str(kv.first);
    if (k != "use_reentrant" && k != "preserve_rng_state" && k != "determinism_check")
      rest.kw.push_back(kv);
  }
  return run_checkpointed(in, fn, rest, Value::unknown());
}

Value f_checkpoint_sequential(Interp& in, Args& a) {
  // checkpoint_sequential(functions, segments, input): each segment run
  // under checkpoint except the last (torch 1.13 and 2.x).
  if (a.pos.size() < 3) return Value::unknown();
  std::vector<Value> fns;
  if (auto items = in.iterate(a.pos[0])) fns = *items;
  int64_t segs = std::max<int64_t>(1, in.as_int(a.pos[1]).value_or(1));
  size_t per = (fns.size() + static_cast<size_t>(segs) - 1) / static_cast<size_t>(segs);
  Value x = a.pos[2];
  // The Sequential handed over is the model: a root named like any other,
  // whose segments and layers run inside it (no models of their own).
  struct Inside {
    Interp& in;
    bool on = false;
    ~Inside() {
      if (on) in.module_path.pop_back();
    }
  } inside{in};
  if (Value m = a.pos[0]; in.is_module(m)) {
    if (in.module_path.empty()) mark_root(in, m);
    auto it = in.module_names.find(m.a);
    in.module_path.push_back(it != in.module_names.end() ? it->second : in.o(m).type);
    inside.on = true;
  }
  for (size_t start = 0; start < fns.size(); start += per) {
    size_t end = std::min(fns.size(), start + per);
    if (end == fns.size()) {
      for (size_t k = start; k < end; ++k) {
        Args ca{{x}, {}, a.span};
        x = in.call(fns[k], ca);
      }
      break;
    }
    // Run the segment as one checkpointed function.
    ObjId seq = in.alloc(OKind::Instance);
    Value sv = Value::obj(seq);
    Args none;
    bool handled = false;
    construct_external(in, in.intern("torch.nn.Sequential"), none, handled, sv);
    for (size_t k = start; k < end; ++k) in.o(seq).attrs.set(in.intern(std::to_string(k - start)), fns[k]);
    Args ca{{x}, {}, a.span};
    x = run_checkpointed(in, sv, ca, Value::unknown());
  }
  return x;
}

// --------------------------------------------------------------- contexts

Value ctx(Interp& in, std::string_view kind) { return new_instance(in, std::string("ctx.") + std::string(kind)); }

Value f_autocast(Interp& in, Args& a, std::string_view device, std::optional<Dtype> def) {
  Value c = ctx(in, "autocast");
  Value dev = a.get(in, 0, "device_type").value_or(Value::unknown());
  std::string d(device);
  if (auto s = in.as_str(dev)) d = *s;
  std::optional<Dtype> dt = dtype_arg(in, a, "dtype");
  if (!dt && device == "cuda" && a.pos.size() > 1 && a.pos[1].kind == VKind::Dtype)
    dt = static_cast<Dtype>(a.pos[1].a);
  if (!dt) dt = def ? def : (d == "cpu" ? Dtype::BFloat16 : Dtype::Float16);
  bool enabled = true;
  if (auto e = a.kwarg(in, "enabled")) enabled = in.truth(*e).value_or(true);
  else if (device.empty() == false && device == "cuda" && !a.pos.empty() && a.pos[0].kind == VKind::Bool)
    enabled = a.pos[0].a;
  in.o(c).attrs.set(in.intern("dtype"), Value::dtype(*dt));
  in.o(c).attrs.set(in.intern("enabled"), Value::boolean(enabled));
  return c;
}
Value f_torch_autocast(Interp& in, Args& a) { return f_autocast(in, a, "", std::nullopt); }
Value f_cuda_autocast(Interp& in, Args& a) { return f_autocast(in, a, "cuda", std::nullopt); }
Value f_cpu_autocast(Interp& in, Args& a) { return f_autocast(in, a, "cpu", Dtype::BFloat16); }

Value f_no_grad(Interp& in, Args&) { return ctx(in, "no_grad"); }
Value f_enable_grad(Interp& in, Args&) { return ctx(in, "enable_grad"); }
Value f_set_grad_enabled(Interp& in, Args& a) {
  Value c = ctx(in, "set_grad_enabled");
  in.o(c).attrs.set(in.intern("mode"), a.pos.empty() ? Value::unknown() : a.pos[0]);
  return c;
}
Value f_null_ctx(Interp& in, Args&) { return ctx(in, "null"); }

/// @contextlib.contextmanager over a generator function: calling the result
/// makes a manager that runs the function to its first `yield` on entry
/// (the `with ... as x` value is what it yields).
Value f_contextmanager(Interp& in, Args& a) {
  if (a.pos.empty() || !in.is_obj(a.pos[0], OKind::Function)) return Value::unknown();
  Value f = ctx(in, "generator_factory");
  in.o(f).items = {a.pos[0]};
  return f;
}

Value f_grad_scaler(Interp& in, Args& a) {
  bool enabled = in.truth(a.kwarg(in, "enabled").value_or(Value::boolean(true))).value_or(true);
  if (enabled && !in.cfg.grad_scaler) {
    in.cfg.grad_scaler = true;
    in.cfg.grad_scaler_origin = {in.user_line(), "GradScaler()"};
  }
  return new_instance(in, "torch.cuda.amp.GradScaler");
}

// ------------------------------------------------------------- optimizers

struct OptRow {
  std::string_view name;
  OptimizerKind kind;
};
constexpr OptRow kOptimizers[] = {
    {"SGD", OptimizerKind::Sgd},         {"Adam", OptimizerKind::Adam},
    {"AdamW", OptimizerKind::AdamW},     {"Adagrad", OptimizerKind::Adagrad},
    {"RMSprop", OptimizerKind::RMSprop}, {"Adadelta", OptimizerKind::Adadelta},
    {"Adamax", OptimizerKind::Adamax},   {"NAdam", OptimizerKind::NAdam},
    {"RAdam", OptimizerKind::RAdam},     {"SparseAdam", OptimizerKind::Adam},
    {"LBFGS", OptimizerKind::LBFGS},     {"Lion", OptimizerKind::Lion},
    {"Adafactor", OptimizerKind::Adafactor}, {"FusedAdam", OptimizerKind::AdamW},
    {"FusedLAMB", OptimizerKind::AdamW}, {"Adam8bit", OptimizerKind::Adam8bit},
    {"AdamW8bit", OptimizerKind::Adam8bit}, {"PagedAdamW8bit", OptimizerKind::Adam8bit},
    {"PagedAdam8bit", OptimizerKind::Adam8bit}, {"PagedAdamW", OptimizerKind::AdamW},
    {"PagedAdamW32bit", OptimizerKind::AdamW}, {"AdamW32bit", OptimizerKind::AdamW},
};

void add_params(Interp& in, OptimizerInfo& info, Value params, std::unordered_set<uint32_t>& seen) {
  auto items = in.iterate(params);
  if (!items) {
    in.note_unknown("the parameters an optimizer updates", {}, false);
    return;
  }
  for (Value v : *items) {
    if (in.is_obj(v, OKind::Dict)) {
      Args ga{{v, in.str_value("params")}, {}, {}};
      bool handled = false;
      Value ps = call_builtin_method(in, v, "get", ga, handled);
      add_params(in, info, ps, seen);
      continue;
    }
    if (auto* pair = in.seq(v); pair && pair->size() == 2 && in.tensor((*pair)[1])) v = (*pair)[1];
    TensorObj* t = in.tensor(v);
    if (!t) continue;
    if (seen.insert(t->storage).second) info.storages.push_back(t->storage);
  }
}

/// The tensors `params` names, each once, added to what `info` updates.
void add_params(Interp& in, OptimizerInfo& info, Value params) {
  // A set, not a search of the list per tensor (quadratic in the parameters).
  std::unordered_set<uint32_t> seen(info.storages.begin(), info.storages.end());
  add_params(in, info, params, seen);
}

}  // namespace

Value make_optimizer(Interp& in, std::string_view q, OptimizerKind kind, Args& a) {
  OptimizerInfo info;
  info.kind = kind;
  info.name = std::string(q);
  info.origin = {in.user_line(), std::string(q)};
  add_params(in, info, a.get(in, 0, "params").value_or(Value::unknown()));
  auto num = [&](size_t pos, std::string_view k) {
    return in.as_number(a.get(in, pos, k).value_or(Value::unknown())).value_or(0.0);
  };
  auto on = [&](std::string_view k) {
    auto v = a.kwarg(in, k);
    return v && in.truth(*v).value_or(false);
  };
  if (kind == OptimizerKind::Sgd) info.momentum = num(2, "momentum") != 0.0;
  if (kind == OptimizerKind::RMSprop) {
    info.momentum = num(5, "momentum") != 0.0;
    info.centered = on("centered");
  }
  info.amsgrad = on("amsgrad");
  // weight_decay's position: SGD/Adam/AdamW/RMSprop (params, lr, x, y, weight_decay), Adagrad 3rd.
  info.weight_decay = num(kind == OptimizerKind::Adagrad ? 3 : 4, "weight_decay") != 0.0;
  info.nesterov = kind == OptimizerKind::Sgd && on("nesterov");
  info.fused = on("fused") || q.find("Fused") != std::string_view::npos;
  info.foreach = on("foreach");
  if (auto f = a.kwarg(in, "foreach"); f && f->kind == VKind::Bool && !f->a) info.foreach_off = true;
  Value o = new_instance(in, q);
  in.o(o).index = static_cast<uint32_t>(in.cfg.optimizers.size());
  // param_groups: one dict per group with its hyperparameters (scripts set lr there).
  Value g = in.make_dict();
  in.setitem(g, in.str_value("lr"), a.get(in, 1, "lr").value_or(Value::real(1e-3)));
  in.o(o).attrs.set(in.intern("param_groups"), in.make_list({g}));
  in.cfg.optimizers.push_back(std::move(info));
  in.optimizers.push_back(o.a);
  in.optimizer_life.push_back({in.steps});
  return o;
}

namespace {

Value f_backward_fn(Interp& in, Args& a) {
  if (!a.pos.empty()) {
    if (auto* s = in.seq(a.pos[0])) {
      for (Value v : *s) in.backward(v);
    } else {
      in.backward(a.pos[0]);
    }
  }
  return Value::none();
}

Value m_backward(Interp& in, Args& a) {
  in.backward(a.pos[0]);
  return Value::none();
}

Value f_true(Interp&, Args&) { return Value::boolean(true); }
Value f_none(Interp&, Args&) { return Value::none(); }
Value f_zero(Interp& in, Args&) { return in.int_value(0); }
Value f_device(Interp& in, Args& a) {
  if (!a.pos.empty() && a.pos[0].kind == VKind::Str) return a.pos[0];
  return in.str_value("cuda");
}
Value f_bf16_supported(Interp& in, Args&) {
  if (in.opt.target) return Value::boolean(in.opt.target->gpu->bf16);
  return Value::unknown();
}
Value f_device_count(Interp& in, Args&) {
  if (in.opt.world_size) return in.int_value(*in.opt.world_size);
  if (in.opt.target) return in.int_value(in.opt.target->count);
  return Value::unknown();
}
Value f_compile(Interp& in, Args& a) {
  in.cfg.compiled = true;
  in.cfg.compiled_origin = {in.user_line(), "torch.compile"};
  return a.pos.empty() ? Value::unknown() : a.pos[0];
}
Value f_clip(Interp& in, Args&) { return in.new_tensor({}, Dtype::Float32); }

/// torch.multiprocessing.spawn(fn, args=(...), nprocs=N): every process
/// runs fn(rank, *args); rank 0 is the one estimated (all train the same).
Value f_spawn(Interp& in, Args& a) {
  Value fn = a.get(in, 0, "fn").value_or(Value::unknown());
  Args ca;
  ca.span = a.span;
  ca.pos = {in.int_value(0)};
  if (auto extra = a.get(in, 1, "args")) {
    if (auto items = in.iterate(*extra)) ca.pos.insert(ca.pos.end(), items->begin(), items->end());
    else if (extra->known()) return Value::unknown();
  }
  in.call(fn, ca);
  return Value::none();
}

/// multiprocessing.Process(target=fn, args=(...)): kept until .start(),
/// which runs fn(*args) for the first process started (the workers of
/// pytorch/examples mnist_hogwild train the same shared model).
Value f_process(Interp& in, Args& a) {
  Value p = new_instance(in, "mp.Process");
  in.o(p).attrs.set(in.intern("target"), a.kwarg(in, "target").value_or(Value::unknown()));
  in.o(p).attrs.set(in.intern("args"), a.kwarg(in, "args").value_or(Value::unknown()));
  return p;
}

/// The zoo's hook for `model.gradient_checkpointing_enable()`: each block
/// runs as a checkpointed segment (transformers' GradientCheckpointingLayer).
/// A second argument names the call the report shows (diffusers'
/// `enable_gradient_checkpointing()`).
Value f_checkpoint_module(Interp& in, Args& a) {
  if (!a.pos.empty() && in.is_module(a.pos[0])) in.o(a.pos[0]).flags |= kCheckpointed;
  if (!in.cfg.checkpointing) {
    auto how = a.pos.size() > 1 ? in.as_str(a.pos[1]) : std::nullopt;
    in.cfg.checkpointing = true;
    in.cfg.checkpointing_origin = {in.user_line(), how ? std::string(*how) : "gradient_checkpointing_enable()"};
  }
  return Value::none();
}

}  // namespace

Value construct_training(Interp& in, StrId qualname, Args& a, bool& handled) {
  handled = true;
  std::string_view q = in.str(qualname);
  size_t dot = q.rfind('.');
  std::string_view last = dot == std::string_view::npos ? q : q.substr(dot + 1);
  bool opt_ns = q.starts_with("torch.optim.") || q.starts_with("bitsandbytes.") ||
                q.starts_with("bnb.") || q.starts_with("apex.") || q.starts_with("transformers.") ||
                q.starts_with("lion_pytorch.") || q.starts_with("timm.optim.");
  if (opt_ns && !q.starts_with("torch.optim.lr_scheduler")) {
    for (const OptRow& r : kOptimizers) {
      if (r.name != last) continue;
      // bitsandbytes' 8-bit optimizers keep states as uint8 (+ block scales).
      OptimizerKind k = r.kind;
      if (q.find("8bit") != std::string_view::npos) k = OptimizerKind::Adam8bit;
      // bitsandbytes.optim.AdamW(..., optim_bits=8) is AdamW8bit by another name.
      if ((q.starts_with("bitsandbytes.") || q.starts_with("bnb.")) &&
          (k == OptimizerKind::Adam || k == OptimizerKind::AdamW))
        if (auto bits = a.kwarg(in, "optim_bits"); bits && in.as_int(*bits) == 8) k = OptimizerKind::Adam8bit;
      return make_optimizer(in, q, k, a);
    }
  }
  if (q.starts_with("torch.optim.lr_scheduler.") || q.find("schedule") != std::string_view::npos)
    return new_instance(in, "scheduler");
  Value r = construct_data(in, qualname, a, handled);
  if (handled) return r;
  handled = true;
  r = construct_distributed(in, q, a, handled);
  if (handled) return r;
  handled = true;
  r = construct_trainer(in, q, a, handled);
  if (handled) return r;
  handled = false;
  return Value::unknown();
}

Value Interp::enter_context(Value mgr, bool enter) {
  Obj* ob = instance(mgr);
  if (!ob || ob->cls != kNone32 || ob->type == kNone32) {
    if (ob && ob->cls != kNone32) {
      Args a{{mgr}, {}, {}};
      return call_method(mgr, intern(enter ? "__enter__" : "__exit__"), a);
    }
    return Value::unknown();
  }
  std::string_view t = str(ob->type);
  if (t == "ctx.autocast") {
    if (enter) {
      bool on = truth(*ob->attrs.find(intern("enabled"))).value_or(true);
      Dtype dt = static_cast<Dtype>(ob->attrs.find(intern("dtype"))->a);
      if (opt.dtype) {
        on = *opt.dtype != Dtype::Float32;
        if (on) dt = *opt.dtype;
      }
      if (on && !cfg.autocast) {
        cfg.autocast = dt;
        cfg.autocast_origin = {user_line(), "torch.autocast(dtype=torch." + std::string(dtype_name(dt)) + ")"};
      }
      autocast.push_back(on ? std::optional<Dtype>(dt) : std::nullopt);
    } else if (!autocast.empty()) {
      autocast.pop_back();
      // Leaving the outermost enabled region drops the cast cache.
      if (!autocast_dtype()) {
        autocast_cache.clear();
        ++autocast_region;
      }
    }
    return mgr;
  }
  if (t == "ctx.no_grad" || t == "ctx.enable_grad" || t == "ctx.set_grad_enabled" ||
      t == "ctx.inference_mode") {
    if (enter) {
      grad_stack.push_back(grad_enabled);
      if (t == "ctx.enable_grad") grad_enabled = true;
      else if (t == "ctx.set_grad_enabled")
        grad_enabled = truth(*ob->attrs.find(intern("mode"))).value_or(grad_enabled);
      else grad_enabled = false;
    } else if (!grad_stack.empty()) {
      grad_enabled = grad_stack.back() != 0;
      grad_stack.pop_back();
    }
    return mgr;
  }
  if (t == "ctx.generator") {
    // The code after the `yield` does not run (the interpreter stops a
    // generator at its first item). What such managers restore there is
    // what the code before it set: torch's default dtype
    // (torchtune's training.set_default_dtype), so it is restored on exit.
    const StrId saved = intern("__default_float__");
    if (enter) {
      ob->attrs.set(saved, Value::dtype(default_float));
      std::vector<Value> items = ob->items;
      Args ca;
      ca.pos.assign(items.begin() + 1, items.end());
      ca.kw = o(mgr).attrs.items;
      std::erase_if(ca.kw, [&](const auto& kv) { return kv.first == saved; });
      Value it = call(items[0], ca);
      auto got = iterate(it);
      return got && !got->empty() ? got->front() : Value::none();
    }
    if (const Value* d = ob->attrs.find(saved); d && d->kind == VKind::Dtype)
      default_float = static_cast<Dtype>(d->a);
    return Value::unknown();
  }
  Args a{{mgr}, {}, {}};
  bool handled = false;
  Value r = exec_method(*this, mgr, enter ? "__enter__" : "__exit__", a, handled);  // open()'s files
  if (handled) return r;
  return distributed_method(*this, mgr, enter ? "__enter__" : "__exit__", a, handled);
}

Value instance_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  Value r = instance_method_stdlib(in, self, n, a, handled);
  if (handled) return r;
  handled = true;
  Obj& ob = in.o(self);
  std::string_view t = ob.type == kNone32 ? std::string_view() : in.str(ob.type);
  if (t == "ctx.generator_factory") {
    if (n != "__call__") return Value::unknown();
    Value m = new_instance(in, "ctx.generator");
    in.o(m).items = {ob.items.front()};
    for (size_t k = 1; k < a.pos.size(); ++k) in.o(m).items.push_back(a.pos[k]);
    for (const auto& kv : a.kw) in.o(m).attrs.set(kv.first, kv.second);
    return m;
  }
  if (t.starts_with("ctx.")) {
    // `@torch.no_grad()` on a function.
    if (n == "__call__" && a.pos.size() > 1 && in.is_obj(a.pos[1], OKind::Function)) {
      if (t == "ctx.no_grad" || t == "ctx.inference_mode") in.o(a.pos[1]).flags |= kNoGradFn;
      return a.pos[1];
    }
    if (n == "__enter__") return in.enter_context(self, true);
    if (n == "__exit__") return in.enter_context(self, false);
    return Value::unknown();
  }
  if (t == "mp.Process") {
    if (n == "start" && !in.process_started) {
      in.process_started = true;
      Value fn = *ob.attrs.find(in.intern("target"));
      Value args = *in.o(self).attrs.find(in.intern("args"));
      Args ca;
      ca.span = a.span;
      if (args.known()) {
        auto items = in.iterate(args);
        if (!items) return Value::none();
        ca.pos = *items;
      }
      in.call(fn, ca);
    }
    return Value::none();
  }
  if (t == "torch.cuda.amp.GradScaler") {
    if (n == "scale") return a.pos.size() > 1 ? a.pos[1] : Value::unknown();
    if (n == "step" && a.pos.size() > 1) {
      Args sa{{a.pos[1]}, {}, a.span};
      return in.call_method(a.pos[1], in.intern("step"), sa);
    }
    return Value::none();
  }
  if (t == "scheduler") return Value::unknown();
  if (std::find(in.optimizers.begin(), in.optimizers.end(), self.a) != in.optimizers.end()) {
    OptimizerInfo& info = in.cfg.optimizers[ob.index];
    if (n == "step") {
      info.stepped = true;
      in.log_step(StepEvent::Kind::Step, ob.index);
      return Value::none();
    }
    if (n == "zero_grad") {
      Value s = a.kwarg(in, "set_to_none").value_or(a.pos.size() > 1 ? a.pos[1] : Value::unknown());
      in.cfg.set_to_none = s.known() ? in.truth(s).value_or(true) : true;
      in.cfg.set_to_none_origin = {in.user_line(), "zero_grad()"};
      in.log_step(StepEvent::Kind::ZeroGrad, 0, s.known() ? static_cast<int32_t>(*in.cfg.set_to_none) : -1);
      return Value::none();
    }
    if (n == "add_param_group" && a.pos.size() > 1) {
      add_params(in, info, in.make_list({a.pos[1]}));
      return Value::none();
    }
    return Value::unknown();
  }
  r = data_method(in, self, n, a, handled);
  if (handled) return r;
  handled = true;
  r = distributed_method(in, self, n, a, handled);
  if (handled) return r;
  handled = true;
  r = trainer_method(in, self, n, a, handled);
  if (handled) return r;
  handled = false;
  return Value::unknown();
}

void register_training(Builtins& b) {
  auto& f = b.functions;
  f["torch.utils.checkpoint.checkpoint"] = f_checkpoint;
  f["torch.utils.checkpoint.checkpoint_sequential"] = f_checkpoint_sequential;
  f["torch.autocast"] = f_torch_autocast;
  f["torch.amp.autocast"] = f_torch_autocast;
  f["torch.cuda.amp.autocast"] = f_cuda_autocast;
  f["torch.cpu.amp.autocast"] = f_cpu_autocast;
  f["torch.no_grad"] = f_no_grad;
  f["torch.inference_mode"] = f_no_grad;
  f["torch.enable_grad"] = f_enable_grad;
  f["torch.set_grad_enabled"] = f_set_grad_enabled;
  f["contextlib.nullcontext"] = f_null_ctx;
  f["contextlib.contextmanager"] = f_contextmanager;
  f["torch.backends.cuda.sdp_kernel"] = f_null_ctx;
  f["torch.nn.attention.sdpa_kernel"] = f_null_ctx;
  f["torch.cuda.amp.GradScaler"] = f_grad_scaler;
  f["torch.amp.GradScaler"] = f_grad_scaler;
  f["torch.GradScaler"] = f_grad_scaler;
  f["torch.autograd.backward"] = f_backward_fn;
  f["torch.cuda.is_available"] = f_true;
  f["torch.cuda.is_bf16_supported"] = f_bf16_supported;
  f["torch.cuda.device_count"] = f_device_count;
  f["torch.device"] = f_device;
  f["torch.compile"] = f_compile;
  f["torch.manual_seed"] = f_none;
  f["torch.set_default_dtype"] = [](Interp& in, Args& a) {
    if (!a.pos.empty() && a.pos[0].kind == VKind::Dtype && is_floating(static_cast<Dtype>(a.pos[0].a))) {
      in.default_float = static_cast<Dtype>(a.pos[0].a);
      in.default_float_line = in.user_line();
      in.default_float_how = "torch.set_default_dtype(torch." + std::string(dtype_name(in.default_float)) + ")";
    }
    return Value::none();
  };
  f["torch.set_default_tensor_type"] = [](Interp& in, Args& a) {
    // "torch.cuda.HalfTensor", torch.cuda.BFloat16Tensor, torch.FloatTensor, ...
    std::string_view n;
    if (!a.pos.empty()) {
      if (auto s = in.as_str(a.pos[0])) n = *s;
      else if (a.pos[0].kind == VKind::Ext) n = in.str(a.pos[0].a);
    }
    std::optional<Dtype> d;
    if (n.ends_with(".HalfTensor")) d = Dtype::Float16;
    else if (n.ends_with(".BFloat16Tensor")) d = Dtype::BFloat16;
    else if (n.ends_with(".FloatTensor")) d = Dtype::Float32;
    else if (n.ends_with(".DoubleTensor")) d = Dtype::Float64;
    if (d) {
      in.default_float = *d;
      in.default_float_line = in.user_line();
      in.default_float_how = "torch.set_default_tensor_type(" + std::string(n) + ")";
    }
    return Value::none();
  };
  f["torch.get_default_dtype"] = [](Interp& in, Args&) { return Value::dtype(in.default_float); };
  f["torch.cuda.manual_seed"] = f_none;
  f["torch.cuda.manual_seed_all"] = f_none;
  f["torch.cuda.set_device"] = f_none;
  f["torch.cuda.empty_cache"] = f_none;
  f["torch.set_float32_matmul_precision"] = f_none;
  f["torch.distributed.get_rank"] = f_zero;
  f["torch.distributed.init_process_group"] = f_none;
  f["torch.distributed.barrier"] = f_none;
  f["torch.distributed.is_initialized"] = f_true;
  f["torch.distributed.get_world_size"] = f_device_count;
  f["torch.nn.utils.clip_grad_norm_"] = f_clip;
  f["torch.nn.utils.clip_grad_value_"] = f_none;
  f["torch._tpf_checkpoint_module"] = f_checkpoint_module;
  f["torch.multiprocessing.spawn"] = f_spawn;
  f["torch.multiprocessing.Process"] = f_process;
  f["multiprocessing.Process"] = f_process;
  f["torch.multiprocessing.start_processes"] = f_spawn;
  b.tensor_methods["backward"] = m_backward;
}

}  // namespace tpf::memory
