// interp_run: sets up the interpreter on the user's script (built-in
// tables, the CLI's --dtype), runs the module top level as `__main__`
// until the first training step is complete, and, when the script never
// reaches a `.backward()` the interpreter can follow (a Trainer, a loop it
// cannot enter), runs one synthesized step on the model it built: a
// forward on an input made from its first layer and the configured batch
// size, and a backward of the loss or of the output.
// requires: ir::build of the script. produces: the Interp's facts.
#include <algorithm>
#include <iterator>
#include <string_view>

#include "memory/interp/interp.h"
#include "memory/interp/modules.h"

namespace tpf::memory {

Value synthesize_input(Interp& in, Value model);

namespace {

/// The module the script built and trains, when no forward was reached:
/// the one whose parameters an optimizer updates, else the largest module
/// that is no other module's child.
Value find_model(Interp& in) {
  std::vector<ObjId> children;
  Value best;
  uint64_t best_params = 0;
  for (ObjId id = 0; id < in.heap.size(); ++id) {
    Obj& ob = in.heap[id];
    if (ob.kind != OKind::Instance || !(ob.flags & kIsModule)) continue;
    for (auto& [k, v] : ob.attrs.items)
      if (in.is_module(v) && v.a != id) children.push_back(v.a);
  }
  std::sort(children.begin(), children.end());
  std::vector<uint32_t> stepped;  // parameter storages an optimizer holds
  for (const OptimizerInfo& o : in.cfg.optimizers) stepped.insert(stepped.end(), o.storages.begin(), o.storages.end());
  std::sort(stepped.begin(), stepped.end());
  uint64_t best_optimized = 0;
  for (ObjId id = 0; id < in.heap.size(); ++id) {
    Obj& ob = in.heap[id];
    if (ob.kind != OKind::Instance || !(ob.flags & kIsModule)) continue;
    if (std::binary_search(children.begin(), children.end(), id)) continue;
    if (in.units[ob.module]->is_user == false && ob.cls != kNone32) {
      // zoo-internal helper modules are never the model on their own
    }
    uint64_t n = 0, optimized = 0;
    for (auto& [name, t] : module_tensors(in, Value::obj(id), Role::Param)) {
      const TensorObj* pt = in.tensor(t);
      const auto elems = static_cast<uint64_t>(in.dims.value(in.numel(*pt)));
      n += elems;
      if (std::binary_search(stepped.begin(), stepped.end(), pt->storage)) optimized += elems;
    }
    // What an optimizer updates wins over size: a model loaded only as a
    // weight source (llm.c's GPT2LMHeadModel in from_pretrained) is not run.
    if (optimized > best_optimized || (optimized == best_optimized && n > best_params)) {
      best_optimized = optimized;
      best_params = n;
      best = Value::obj(id);
    }
  }
  // A library wrapper (DDP, DataParallel, FSDP) runs its `.module`: the
  // synthesized forward goes to the model itself.
  if (best.known() && in.o(best).type != kNone32 && in.str(in.o(best).type).starts_with("wrapper.")) {
    Value* inner = in.o(best).attrs.find(in.intern("module"));
    if (inner && in.is_module(*inner)) best = *inner;
  }
  return best;
}

void synthesized_step(Interp& in) {
  Value model = find_model(in);
  if (!model.known()) return;
  in.synth_model = model.a;
  in.callee_hint = "model";
  Value x;
  if (const Value* seen = in.o(model).attrs.find(in.intern("__input__")); seen && in.tensor(*seen)) {
    const TensorObj& t = *in.tensor(*seen);
    x = in.new_tensor(t.shape, t.dtype, Role::Input);
  } else {
    x = synthesize_input(in, model);
  }
  std::string cls = module_class(in, model);
  if (!in.tensor(x)) {
    in.synth_failure = "no input could be made for `" + cls +
                       "`: its first layer is not an Embedding, Linear or Conv of known size";
    return;
  }
  in.note_unknown("no training step the interpreter could follow; one step was synthesized", {}, false);
  in.step_synthesized = true;
  Args a;
  a.pos = {x};
  // Hugging Face models compute their loss from labels shaped like the input.
  Obj& mo = in.o(model);
  if (mo.cls != kNone32 && in.class_lookup(mo.cls, in.intern("checkpoint_units")))
    a.kw.emplace_back(in.intern("labels"), x);
  if (in.cfg.autocast) in.autocast.push_back(in.cfg.autocast);
  // The synthesized step stands for the one the script would take: the
  // graphs its own forwards left (the pass of a loop whose backward could
  // not be followed) are that step's forward, not a second one beside it.
  in.saved.clear();
  Value out = module_call(in, model, a);
  Value loss;
  if (in.tensor(out)) {
    loss = out;
  } else if (Obj* ob = in.instance(out)) {
    if (const Value* l = ob->attrs.find(in.intern("loss")); l && in.tensor(*l)) loss = *l;
    else if (const Value* g = ob->attrs.find(in.intern("logits")); g && in.tensor(*g)) loss = *g;
  } else if (auto* s = in.seq(out); s && !s->empty()) {
    loss = (*s)[0];
  }
  if (in.tensor(loss) && in.tensor(loss)->requires_grad) in.backward(loss);
  else in.synth_failure = "the forward of `" + cls + "` on a synthesized input gave no output the interpreter could follow";
}

constexpr std::string_view kStdlibModules[] = {
#define TPF_STDLIB_MODULE(name) name,
#include "memory/tables/stdlib_modules.def"
#undef TPF_STDLIB_MODULE
};
static_assert(std::is_sorted(std::begin(kStdlibModules), std::end(kStdlibModules)));

/// Whether the script imports only Python's standard library (and its own
/// package, relatively): then no value it builds can be a tensor or a
/// module, and interpreting it could only spend the budget on its loops
/// (a benchmark script, a data-preparation tool).
bool imports_only_stdlib(const ir::Module& script) {
  for (const ir::Function& f : script.functions)
    for (const ir::Inst& inst : f.insts) {
      if (inst.op != ir::Op::Import && inst.op != ir::Op::ImportStar) continue;
      std::string_view q = script.names.str(ir::PathId(inst.aux));
      if (q.starts_with('.')) continue;  // the script's own package: not loaded
      std::string_view top = q.substr(0, q.find('.'));
      if (!std::binary_search(std::begin(kStdlibModules), std::end(kStdlibModules), top)) return false;
    }
  return true;
}

}  // namespace

const Builtins& builtins() {
  // Later registrations override earlier ones under the same name, so the
  // order is the one the tables were always filled in.
  static const Builtins kTables = [] {
    Builtins b;
    register_builtins(b);
    register_stdlib(b);
    register_tensor_shape(b);
    register_tensor_views(b);
    register_tensor_ops(b);
    register_layer_ops(b);
    register_data(b);
    register_file_arrays(b);
    register_training(b);
    register_peft(b);
    return b;
  }();
  return kTables;
}

void interp_run(Interp& in, const ir::Module& script) {
  auto u = std::make_unique<Unit>();
  u->ir = &script;
  u->name = "<script>";
  u->is_user = true;
  if (in.opt.project) u->view = *in.opt.project;
  in.units.push_back(std::move(u));
  // CLI values are known before the script says anything about them.
  if (in.opt.batch_size) in.cfg.batch_size = {*in.opt.batch_size, {0, "--batch-size"}};
  if (in.opt.seq_len) in.cfg.seq_len = {*in.opt.seq_len, {0, "--seq-len"}};
  // --dtype bf16/fp16: the whole forward runs under autocast in that dtype.
  if (in.opt.dtype && *in.opt.dtype != Dtype::Float32) {
    in.autocast.push_back(*in.opt.dtype);
    in.cfg.autocast = *in.opt.dtype;
    in.cfg.autocast_origin = {0, "--dtype " + std::string(dtype_name(*in.opt.dtype))};
  } else if (in.opt.dtype) {
    // --dtype fp32 turns the script's autocast off: say it is the flag's.
    in.cfg.param_dtype_origin = {0, "--dtype float32"};
  }
  if (imports_only_stdlib(script)) {
    in.stdlib_only = true;
    return;
  }
  in.note_dynamic_imports(0);
  try {
    in.run(0, ir::FunctionId(0), {}, nullptr, kNone32);
  } catch (const StopRun& s) {
    if (s.why == StopRun::Why::Budget)
      in.note_unknown("the script runs longer than the interpreter's budget before a training step", {},
                      !in.backward_seen);
  } catch (const YieldStop&) {
    // `yield` at module level: ast.parse accepts it, CPython's compiler
    // does not; the script never runs, so the run ends here.
  }
  in.stack.clear();
  in.module_path.clear();
  in.segment = kNone32;
  // A script that only evaluates or generates is estimated as inference
  // (memory/interp/inference.cpp), not as a synthesized training step.
  if (!in.backward_seen && !is_inference_run(in)) {
    try {
      synthesized_step(in);
    } catch (const StopRun&) {
    } catch (const YieldStop&) {
    }
  }
  keep_largest_live_set(in);
}

}  // namespace tpf::memory
