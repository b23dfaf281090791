// nn.Module behaviour shared by built-in layers, the script's own module
// classes and the zoo's: the module tree (children in registration order,
// parameters and buffers deduplicated by storage, as torch's
// named_parameters() does with tied weights), the module call that tracks
// whose forward is running, and the methods scripts call on modules.
// requires: layers.cpp. produces: module tree queries, module methods.
#include <algorithm>
#include <functional>
#include <unordered_set>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"
#include "memory/interp/tensor_util.h"

namespace tpf::memory {

std::vector<std::pair<StrId, Value>> module_children(Interp& in, Value m) {
  std::vector<std::pair<StrId, Value>> out;
  for (auto& [k, v] : in.o(m).attrs.items)
    if (in.is_module(v) && v.a != m.a) out.emplace_back(k, v);
  return out;
}

size_t container_child_count(Interp& in, Value self) {
  Obj& o = in.o(self);
  if (o.child_memo_n != o.attrs.items.size() + 1) {
    uint32_t c = 0;
    for (auto& [k, v] : o.attrs.items) c += in.is_module(v) || in.tensor(v);
    o.child_memo_n = static_cast<uint32_t>(o.attrs.items.size() + 1);
    o.child_memo_count = c;
  }
  return o.child_memo_count;
}

void append_children(Interp& in, Value self, const std::vector<Value>& children) {
  for (Value v : children) {
    in.charge(1);  // the work budget sees a container of 100,000 layers
    const size_t count = container_child_count(in, self);
    const size_t before = in.o(self).attrs.items.size();
    in.o(self).attrs.set(in.intern(std::to_string(count)), v);
    Obj& o = in.o(self);
    if (o.attrs.items.size() == before + 1 && (in.is_module(v) || in.tensor(v))) {
      o.child_memo_n = static_cast<uint32_t>(o.attrs.items.size() + 1);
      o.child_memo_count = static_cast<uint32_t>(count + 1);
    }
  }
}

void walk_modules(Interp& in, Value m, const std::string& prefix,
                  const std::function<void(Value, const std::string&)>& fn) {
  std::unordered_set<ObjId> seen;  // a set: a vector's search was quadratic in the modules
  std::function<void(Value, const std::string&)> rec = [&](Value v, const std::string& p) {
    if (!seen.insert(v.a).second) return;
    fn(v, p);
    for (auto& [k, c] : module_children(in, v))
      rec(c, p.empty() ? std::string(in.str(k)) : p + "." + std::string(in.str(k)));
  };
  rec(m, prefix);
}

std::vector<std::pair<std::string, Value>> module_tensors(Interp& in, Value m, Role role) {
  std::vector<std::pair<std::string, Value>> out;
  std::unordered_set<uint32_t> seen;
  walk_modules(in, m, "", [&](Value mod, const std::string& p) {
    for (auto& [k, v] : in.o(mod).attrs.items) {
      TensorObj* t = in.tensor(v);
      if (!t || in.storages[t->storage].role != role) continue;
      if (!seen.insert(t->storage).second) continue;
      out.emplace_back(p.empty() ? std::string(in.str(k)) : p + "." + std::string(in.str(k)), v);
    }
  });
  return out;
}

std::string module_class(Interp& in, Value m) {
  Obj& ob = in.o(m);
  if (ob.type == kNone32) return "Module";
  std::string_view t = in.str(ob.type);
  size_t dot = t.rfind('.');
  return std::string(dot == std::string_view::npos ? t : t.substr(dot + 1));
}

void name_modules(Interp& in, Value root, const std::string& name) {
  walk_modules(in, root, name, [&](Value m, const std::string& p) {
    if (!in.module_names.count(m.a)) {
      in.module_names[m.a] = in.intern(p);
      in.module_classes[m.a] = module_class(in, m);
    }
  });
}

/// The block list of a model: the container with the most same-class
/// submodules (transformer layers, ResNet stages' blocks), or unknown.
Value block_list(Interp& in, Value root) {
  Value best;
  size_t best_n = 1;
  walk_modules(in, root, "", [&](Value m, const std::string&) {
    auto kids = module_children(in, m);
    if (kids.size() < 2) return;
    std::string cls = module_class(in, kids[0].second);
    size_t same = 0;
    for (auto& [k, v] : kids) same += module_class(in, v) == cls && !in.o(v).layer ? 1 : 0;
    if (same > best_n) {
      best_n = same;
      best = m;
    }
  });
  return best;
}

/// The tweak "checkpoint each block": every child of the block list.
void checkpoint_blocks(Interp& in, Value root) {
  Value best = block_list(in, root);
  if (!best.known()) return;
  for (auto& [k, v] : module_children(in, best)) in.o(v).flags |= kCheckpointed;
}

uint64_t largest_block_bytes(Interp& in, Value root) {
  Value list = block_list(in, root);
  auto bytes = [&](Value m) {
    uint64_t b = 0;
    for (auto& [n, t] : module_tensors(in, m, Role::Param))
      b += static_cast<uint64_t>(in.dims.value(in.storage_bytes(in.tensor(t)->storage)));
    return b;
  };
  if (!list.known()) return bytes(root);
  uint64_t best = 0;
  for (auto& [k, v] : module_children(in, list)) best = std::max(best, bytes(v));
  return best;
}

void mark_root(Interp& in, Value m) {
  Obj& ob = in.o(m);
  if (ob.flags & kRoot) return;
  ob.flags |= kRoot;
  in.roots.push_back(m.a);
  in.root_life.push_back({in.steps});
  if (in.opt.tweaks.checkpoint_blocks) checkpoint_blocks(in, m);
  // `self(idx)` in the model's own method (nanoGPT's generate) names nothing.
  std::string name = in.callee_hint.empty() || in.callee_hint == "self" ? "model" : in.callee_hint;
  if (module_tensors(in, m, Role::Param).empty()) name = module_class(in, m);  // a loss module
  for (ObjId r : in.roots)
    if (r != m.a && in.module_names.count(r) && in.str(in.module_names[r]) == name) name += "_" + std::to_string(in.roots.size());
  name_modules(in, m, name);
}

void retire_unreachable(Interp& in, size_t roots0, size_t opts0, Value ret, std::span<const Value> args) {
  std::vector<char> seen(in.heap.size());
  std::vector<ObjId> work;
  std::unordered_set<const Frame*> frames;
  auto add = [&](const Value& v) {
    if (v.kind == VKind::Obj && v.a < seen.size() && !seen[v.a]) {
      seen[v.a] = 1;
      work.push_back(v.a);
    }
  };
  auto add_frame = [&](const Frame* f) {
    for (; f && frames.insert(f).second; f = f->parent.get()) {
      for (const Value& v : f->vals) add(v);
      add(f->cur_exc);
    }
  };
  add(ret);
  for (const Value& v : args) add(v);
  for (const Frame* f : in.stack) add_frame(f);
  for (const auto& u : in.units) {
    add_frame(u->top.get());
    for (const auto& [k, v] : u->globals_set) add(v);
    if (u->module_obj != kNone32) add(Value::obj(u->module_obj));
  }
  while (!work.empty()) {
    const Obj& ob = in.heap[work.back()];
    work.pop_back();
    for (const Value& v : ob.items) add(v);
    for (const auto& [n, v] : ob.attrs.items) add(v);
    if (ob.cls != kNone32) add(Value::obj(ob.cls));
    add_frame(ob.closure.get());
  }
  for (size_t i = roots0; i < in.roots.size(); ++i)
    if (!seen[in.roots[i]] && in.root_life[i].died == UINT64_MAX) in.root_life[i].died = in.steps;
  for (size_t i = opts0; i < in.optimizers.size(); ++i)
    if (!seen[in.optimizers[i]] && in.optimizer_life[i].died == UINT64_MAX) in.optimizer_life[i].died = in.steps;
}

void keep_largest_live_set(Interp& in) {
  // One entry per root, then per optimizer: its life and parameter storages.
  struct Held {
    Interp::Life life;
    std::vector<uint32_t> storages;  // sorted
  };
  std::vector<Held> held;
  const size_t nr = in.roots.size(), no = in.optimizers.size();
  for (size_t i = 0; i < nr; ++i) {
    Held h{in.root_life[i], {}};
    for (auto& [n, t] : module_tensors(in, Value::obj(in.roots[i]), Role::Param))
      h.storages.push_back(in.tensor(t)->storage);
    held.push_back(std::move(h));
  }
  for (size_t i = 0; i < no; ++i) held.push_back({in.optimizer_life[i], in.cfg.optimizers[i].storages});
  bool any_died = false;
  for (Held& h : held) {
    std::sort(h.storages.begin(), h.storages.end());
    h.storages.erase(std::unique(h.storages.begin(), h.storages.end()), h.storages.end());
    any_died |= h.life.died != UINT64_MAX;
  }
  if (!any_died) return;
  auto shares = [](const Held& a, const Held& b) {
    auto i = a.storages.begin(), j = b.storages.begin();
    while (i != a.storages.end() && j != b.storages.end()) {
      if (*i == *j) return true;
      *i < *j ? ++i : ++j;
    }
    return false;
  };
  // The set alive when each one is made, closed over shared parameters
  // (an optimizer and the model it steps are one), by parameter bytes; of
  // sets with as many, the one with more optimizers, which hold gradients
  // and state besides (timm's benchmark.py builds the same resnet50 for its
  // inference runner, then for its train runner with an SGD: the trained
  // one is the run's peak).
  std::vector<char> best;
  uint64_t best_bytes = 0;
  size_t best_optimizers = 0;
  for (const Held& at : held) {
    std::vector<char> in_set(held.size());
    for (size_t k = 0; k < held.size(); ++k)
      in_set[k] = held[k].life.born <= at.life.born && at.life.born < held[k].life.died;
    for (bool grew = true; grew;) {
      grew = false;
      for (size_t k = 0; k < held.size(); ++k)
        for (size_t j = 0; !in_set[k] && j < held.size(); ++j)
          if (in_set[j] && shares(held[k], held[j])) in_set[k] = grew = true;
    }
    std::unordered_set<uint32_t> storages;
    uint64_t bytes = 0;
    for (size_t k = 0; k < held.size(); ++k)
      if (in_set[k])
        for (uint32_t s : held[k].storages)
          if (storages.insert(s).second) bytes += static_cast<uint64_t>(in.dims.value(in.storage_bytes(s)));
    const size_t optimizers =
        static_cast<size_t>(std::count(in_set.begin() + static_cast<long>(nr), in_set.end(), 1));
    if (best.empty() || bytes > best_bytes ||
        (bytes == best_bytes && optimizers > best_optimizers)) {
      best = std::move(in_set);
      best_bytes = bytes;
      best_optimizers = optimizers;
    }
  }
  // One with no parameters (a loss module) holds nothing to drop.
  for (size_t k = 0; k < best.size(); ++k) best[k] |= held[k].storages.empty();
  if (best.empty() || std::all_of(best.begin(), best.end(), [](char c) { return c != 0; })) return;
  std::unordered_set<uint32_t> kept;
  for (size_t k = 0; k < held.size(); ++k)
    if (best[k]) kept.insert(held[k].storages.begin(), held[k].storages.end());
  // The models listed: a dropped one (its parameters all apart) is named
  // in the note instead.
  std::vector<std::string> dropped;
  std::vector<TrainingConfig::Model> models;
  std::unordered_set<ObjId> listed;
  for (TrainingConfig::Model& m : in.cfg.models) {
    listed.insert(m.object);
    bool apart = false;
    if (m.object != UINT32_MAX && m.object < in.heap.size() && in.is_module(Value::obj(m.object))) {
      auto params = module_tensors(in, Value::obj(m.object), Role::Param);
      apart = !params.empty() && std::none_of(params.begin(), params.end(), [&](auto& p) {
        return kept.count(in.tensor(p.second)->storage) != 0;
      });
    }
    if (!apart) {
      models.push_back(std::move(m));
      continue;
    }
    dropped.push_back("`" + m.name + "` (line " + std::to_string(m.origin.line) + ")");
  }
  in.cfg.models = std::move(models);
  std::vector<ObjId> roots;
  std::vector<Interp::Life> root_life;
  for (size_t i = 0; i < nr; ++i) {
    if (best[i]) {
      roots.push_back(in.roots[i]);
      root_life.push_back(in.root_life[i]);
      continue;
    }
    // A root no listed model names (built in the script, not loaded).
    const ObjId r = in.roots[i];
    if (listed.count(r)) continue;
    dropped.push_back("`" + std::string(in.module_names.count(r) ? in.str(in.module_names[r]) : "model") + "` (" +
                      module_class(in, Value::obj(r)) + ", line " + std::to_string(in.o(Value::obj(r)).line) + ")");
  }
  std::vector<uint32_t> renumber(no, UINT32_MAX);
  std::vector<ObjId> optimizers;
  std::vector<Interp::Life> optimizer_life;
  std::vector<OptimizerInfo> infos;
  for (size_t i = 0; i < no; ++i) {
    if (!best[nr + i]) {
      const OptimizerInfo& o = in.cfg.optimizers[i];
      dropped.push_back("optimizer " + std::string(optimizer_name(o.kind)) + " (line " + std::to_string(o.origin.line) + ")");
      continue;
    }
    renumber[i] = static_cast<uint32_t>(optimizers.size());
    in.o(Value::obj(in.optimizers[i])).index = renumber[i];
    optimizers.push_back(in.optimizers[i]);
    optimizer_life.push_back(in.optimizer_life[i]);
    infos.push_back(std::move(in.cfg.optimizers[i]));
  }
  // A dropped optimizer's step (an earlier phase's, logged with the later
  // one's) updates nothing the timeline holds.
  for (StepEvent& e : in.step_log)
    if (e.kind == StepEvent::Kind::Step && e.storage < no) e.storage = renumber[e.storage];
  in.roots = std::move(roots);
  in.root_life = std::move(root_life);
  in.optimizers = std::move(optimizers);
  in.optimizer_life = std::move(optimizer_life);
  in.cfg.optimizers = std::move(infos);
  // Why 3: a benchmark's baseline and its optimizer, and one more, read at
  // a glance; a script of many trainings in turn gives a count.
  std::string named = dropped.empty() ? "a model" : "";
  for (size_t k = 0; k < dropped.size() && k < 3; ++k) named += (k ? ", " : "") + dropped[k];
  if (dropped.size() > 3) named += " and " + std::to_string(dropped.size() - 3) + " more";
  in.note_unknown(named +
                      ": never alive with the ones counted (each is made in a call that returns without "
                      "keeping it): the estimate counts the largest set of models alive at once",
                  {}, false);
}

namespace {

struct PathGuard {
  Interp& in;
  explicit PathGuard(Interp& i, StrId s) : in(i) { in.module_path.push_back(s); }
  ~PathGuard() { in.module_path.pop_back(); }
};

}  // namespace

Value run_checkpointed(Interp& in, Value fn, Args& a, Value module);
Value synthesize_input(Interp& in, Value model);

Value module_call(Interp& in, Value m, Args& a) {
  // The script's own call of a model: traced for an inference estimate.
  if (in.module_path.empty() && !in.infer.tracing) return traced_forward(in, m, a);
  if (in.module_path.empty()) mark_root(in, m);
  Obj& ob = in.o(m);
  auto it = in.module_names.find(m.a);
  StrId name = it != in.module_names.end() ? it->second : ob.type;
  if ((ob.flags & kCheckpointed) && in.grad_enabled && (ob.flags & kTraining)) {
    ob.flags &= ~kCheckpointed;
    Value r = run_checkpointed(in, m, a, m);
    in.o(m).flags |= kCheckpointed;
    return r;
  }
  if (ob.cls == kNone32 && ob.type != kNone32 && in.str(ob.type).starts_with("wrapper.")) {
    const Value* inner = ob.attrs.find(in.intern("module"));
    return inner ? module_call(in, *inner, a) : Value::unknown();
  }
  // accelerate's prepare() runs the forward under autocast.
  bool pushed = false;
  if (const Value* ac = ob.attrs.find(in.intern("__autocast__")); ac && ac->kind == VKind::Dtype) {
    in.autocast.push_back(static_cast<Dtype>(ac->a));
    pushed = true;
  }
  struct Pop {
    Interp& in;
    bool on;
    ~Pop() {
      if (on) in.autocast.pop_back();
    }
  } pop{in, pushed};
  // The input the script gives its model (an RL policy's one state): a
  // synthesized step, where the loss is lost after the forward (a
  // distribution's log_prob), runs on that shape (memory/interp/run.cpp).
  if (in.module_path.empty() && !a.pos.empty() && in.tensor(a.pos[0]) && !ob.attrs.find(in.intern("__input__")))
    ob.attrs.set(in.intern("__input__"), a.pos[0]);
  // A root called with an input the interpreter could not follow.
  bool any_tensor = false;
  for (Value v : a.pos) any_tensor = any_tensor || in.tensor(v);
  for (auto& [k, v] : a.kw) any_tensor = any_tensor || in.tensor(v);
  if (in.module_path.empty() && !any_tensor && (a.pos.empty() || !a.pos[0].known())) {
    Value x = synthesize_input(in, m);
    if (in.tensor(x)) {
      if (a.pos.empty()) a.pos.push_back(x);
      else a.pos[0] = x;
      in.note_unknown("model input synthesized from the batch size and the first layer", a.span, false);
    }
  }
  PathGuard guard(in, name);
  if (ob.cls != kNone32) {
    const Value* fwd = in.class_lookup(ob.cls, in.intern("forward"));
    if (fwd && in.is_obj(*fwd, OKind::Function)) return in.call_function(fwd->a, a, m);
    if (ob.layer) return layer_forward(in, m, a);
    return Value::unknown();
  }
  if (ob.layer) return layer_forward(in, m, a);
  return Value::unknown();
}

void convert_module(Interp& in, Value m, Dtype dt, std::string how) {
  bool trained = false;
  for (Role r : {Role::Param, Role::Buffer}) {
    for (auto& [n, t] : module_tensors(in, m, r)) {
      TensorObj* tt = in.tensor(t);
      if (!is_floating(tt->dtype)) continue;
      tt->dtype = dt;
      in.storages[tt->storage].dtype = dt;
      trained = trained || (r == Role::Param && tt->requires_grad);
    }
  }
  // The weights' precision as trained: what the report's precision line
  // names (model.half() trains float16 weights, no autocast). A frozen
  // model cast to 16 bits (diffusers' VAE and text encoder, after
  // requires_grad_(False)) is not what trains.
  if (!trained) return;
  in.cfg.param_dtype = dt;
  in.cfg.param_dtype_origin = {in.user_line(), how.empty() ? ".to(" + std::string(dtype_name(dt)) + ")" : how};
}

void set_training(Interp& in, Value m, bool on) {
  walk_modules(in, m, "", [&](Value v, const std::string&) {
    if (on) in.o(v).flags |= kTraining;
    else in.o(v).flags &= ~kTraining;
  });
}

Value call_module_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  auto arg = [&](size_t k) { return k < a.pos.size() ? a.pos[k] : Value::unknown(); };
  Args rest{{a.pos.begin() + 1, a.pos.end()}, a.kw, a.span};
  if (n == "__call__" || n == "forward") return module_call(in, self, rest);
  if (n == "generate") return generate_call(in, self, rest);  // memory/interp/inference.cpp
  if (n == "parameters" || n == "buffers") {
    std::vector<Value> out;
    for (auto& [k, v] : module_tensors(in, self, n == "parameters" ? Role::Param : Role::Buffer))
      out.push_back(v);
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "named_parameters" || n == "named_buffers") {
    std::vector<Value> out;
    for (auto& [k, v] : module_tensors(in, self, n == "named_parameters" ? Role::Param : Role::Buffer))
      out.push_back(in.make_list({in.str_value(k), v}, OKind::Tuple));
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "children" || n == "named_children") {
    std::vector<Value> out;
    for (auto& [k, v] : module_children(in, self))
      out.push_back(n == "children" ? v : in.make_list({Value::str(k), v}, OKind::Tuple));
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "modules" || n == "named_modules") {
    std::vector<Value> out;
    walk_modules(in, self, "", [&](Value v, const std::string& p) {
      out.push_back(n == "modules" ? v : in.make_list({in.str_value(p), v}, OKind::Tuple));
    });
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "to" || n == "type") {
    std::optional<Dtype> dt = dtype_arg(in, a, "dtype");
    for (size_t k = 1; k < a.pos.size(); ++k)
      if (a.pos[k].kind == VKind::Dtype) dt = static_cast<Dtype>(a.pos[k].a);
    if (dt && is_floating(*dt)) convert_module(in, self, *dt);
    return self;
  }
  if (n == "half") { convert_module(in, self, Dtype::Float16, ".half()"); return self; }
  if (n == "bfloat16") { convert_module(in, self, Dtype::BFloat16, ".bfloat16()"); return self; }
  if (n == "float") { convert_module(in, self, Dtype::Float32, ".float()"); return self; }
  if (n == "double") { convert_module(in, self, Dtype::Float64, ".double()"); return self; }
  if (n == "cuda" || n == "cpu" || n == "share_memory" || n == "compile" || n == "to_empty")
    return self;
  if (n == "train") {
    set_training(in, self, a.pos.size() > 1 ? in.truth(arg(1)).value_or(true) : true);
    return self;
  }
  if (n == "eval") { set_training(in, self, false); return self; }
  if (n == "requires_grad_") {
    bool on = a.pos.size() > 1 ? in.truth(arg(1)).value_or(true) : true;
    for (auto& [k, v] : module_tensors(in, self, Role::Param)) in.tensor(v)->requires_grad = on;
    return self;
  }
  if (n == "zero_grad") {
    Value s = a.kwarg(in, "set_to_none").value_or(a.pos.size() > 1 ? arg(1) : Value::unknown());
    // torch >= 2.0 defaults to set_to_none=True (1.13: False).
    in.cfg.set_to_none = s.known() ? in.truth(s).value_or(true) : true;
    in.cfg.set_to_none_origin = {in.user_line(), "zero_grad()"};
    in.log_step(StepEvent::Kind::ZeroGrad, 0, s.known() ? static_cast<int32_t>(*in.cfg.set_to_none) : -1);
    return Value::none();
  }
  if (n == "apply") {
    std::vector<Value> mods;
    walk_modules(in, self, "", [&](Value v, const std::string&) { mods.push_back(v); });
    std::reverse(mods.begin(), mods.end());  // children before their parent, as torch
    for (Value v : mods) {
      Args ca{{v}, {}, a.span};
      in.call(arg(1), ca);
    }
    return self;
  }
  if (n == "register_buffer" || n == "register_parameter") {
    auto name = in.as_str(arg(1));
    if (!name) return Value::none();
    Value t = arg(2);
    if (TensorObj* tt = in.tensor(t)) {
      if (n == "register_buffer") {
        in.storages[tt->storage].role = Role::Buffer;
        tt->requires_grad = false;
      }
    }
    in.o(self).attrs.set(in.intern(*name), t);
    return Value::none();
  }
  if (n == "add_module" || n == "register_module") {
    if (auto name = in.as_str(arg(1))) in.o(self).attrs.set(in.intern(*name), arg(2));
    return Value::none();
  }
  if (n == "get_submodule") {
    auto path = in.as_str(arg(1));
    if (!path) return Value::unknown();
    Value cur = self;
    std::string p(*path);
    size_t start = 0;
    while (start <= p.size() && !p.empty()) {
      size_t dot = p.find('.', start);
      std::string part = p.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      const Value* c = in.o(cur).attrs.find(in.intern(part));
      if (!c) return Value::unknown();
      cur = *c;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return cur;
  }
  if (n == "state_dict" || n == "named_parameters_and_buffers") return Value::unknown();
  if (n == "load_state_dict" || n == "register_forward_hook" || n == "register_forward_pre_hook" ||
      n == "register_full_backward_hook" || n == "extra_repr")
    return Value::unknown();
  // ---- containers: Sequential, ModuleList, ModuleDict, ParameterList ----
  Obj& ob = in.o(self);
  auto child_count = [&] { return container_child_count(in, self); };
  if (n == "__len__") return in.int_value(static_cast<int64_t>(child_count()));
  if (n == "__getitem__") {
    // By position where every attribute is a child (a ModuleList): O(1).
    Value key = arg(1);
    if (auto i = in.as_int(key); i && key.kind != VKind::Float && child_count() == ob.attrs.items.size()) {
      const auto sz = static_cast<int64_t>(ob.attrs.items.size());
      const int64_t k = *i < 0 ? *i + sz : *i;
      return k >= 0 && k < sz ? ob.attrs.items[static_cast<size_t>(k)].second : Value::unknown();
    }
  }
  if (n == "append" || n == "extend" || n == "insert") {
    std::vector<Value> add;
    if (n == "append") add = {arg(1)};
    else if (n == "insert") add = {arg(2)};
    else if (auto items = in.iterate(arg(1))) add = *items;
    append_children(in, self, add);
    return n == "insert" ? Value::none() : self;
  }
  std::vector<std::pair<StrId, Value>> kids;
  for (auto& [k, v] : ob.attrs.items)
    if (in.is_module(v) || in.tensor(v)) kids.emplace_back(k, v);
  if (n == "__iter__" || n == "values") {
    std::vector<Value> out;
    for (auto& [k, v] : kids) out.push_back(v);
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "keys" || n == "items") {
    std::vector<Value> out;
    for (auto& [k, v] : kids)
      out.push_back(n == "keys" ? Value::str(k) : in.make_list({Value::str(k), v}, OKind::Tuple));
    return in.make_list(std::move(out), OKind::Iter);
  }
  if (n == "__getitem__") {
    Value key = arg(1);
    if (auto s = in.as_str(key)) {
      const Value* v = ob.attrs.find(in.intern(*s));
      return v ? *v : Value::unknown();
    }
    if (auto i = in.as_int(key); i && key.kind != VKind::Float) {
      int64_t sz = static_cast<int64_t>(kids.size()), k = *i < 0 ? *i + sz : *i;
      return k >= 0 && k < sz ? kids[static_cast<size_t>(k)].second : Value::unknown();
    }
    if (in.is_obj(key, OKind::Slice)) {
      std::vector<Value> items;
      for (auto& [k, v] : kids) items.push_back(v);
      Value lst = in.make_list(items);
      Value part = in.getitem(lst, key);
      ObjId io = in.alloc(OKind::Instance);
      in.o(io).layer = in.o(self).layer;
      in.o(io).type = in.o(self).type;
      in.o(io).flags = in.o(self).flags & (kIsModule | kTraining);
      if (auto* s = in.seq(part))
        for (size_t k = 0; k < s->size(); ++k) in.o(io).attrs.set(in.intern(std::to_string(k)), (*s)[k]);
      return Value::obj(io);
    }
    return Value::unknown();
  }
  if (n == "__setitem__") {
    if (auto s = in.as_str(arg(1))) ob.attrs.set(in.intern(*s), arg(2));
    ob.child_memo_n = 0;  // a child may have become something else
    return Value::none();
  }
  if (n == "update") {
    if (in.is_obj(arg(1), OKind::Dict)) {
      std::vector<Value> items = in.o(arg(1)).items;
      for (size_t k = 0; k + 1 < items.size(); k += 2)
        if (auto s = in.as_str(items[k])) in.o(self).attrs.set(in.intern(*s), items[k + 1]);
    }
    return Value::none();
  }
  handled = false;
  return Value::unknown();
}

}  // namespace tpf::memory
