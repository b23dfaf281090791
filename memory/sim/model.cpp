// The memory model: from what the interpreter found (parameters and their
// dtypes, optimizers, the saved tensors of each backward phase, precision
// and sharding) to the per-GPU components of the peak, its interval and
// the verdict for a target.
//
//   peak = weights + gradients + optimizer state + fp32 master weights
//        + activations (the saved tensors alive at the largest backward,
//          the largest checkpointed segment recomputed, the batch, and the
//          first gradient buffer of backward) + autocast casts of weights
//        + CUDA context + allocator fragmentation.
//
// requires: interp_run. produces: Estimate (without suggestions).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>
#include <unordered_set>

#include "memory/interp/interp.h"
#include "memory/sim/model.h"
#include "memory/interp/modules.h"
#include "memory/sim/timeline.h"

namespace tpf::memory {
namespace {

/// Bytes of optimizer state for one parameter tensor of `elems` elements
/// of `elem_size` bytes (torch 1.13 torch/optim/*.py; the `step` counter is
/// a 4-byte float32 tensor for Adam, AdamW, Adamax, NAdam, RAdam and
/// Adagrad since 1.12, a Python int for SGD, RMSprop and Adadelta).
uint64_t state_bytes(const OptimizerInfo& o, OptimizerKind kind, uint64_t elems, uint64_t elem_size) {
  switch (kind) {
    case OptimizerKind::Sgd: return o.momentum ? elems * elem_size : 0;
    case OptimizerKind::Adam:
    case OptimizerKind::AdamW:
    case OptimizerKind::Adamax:
    case OptimizerKind::RAdam: return elems * elem_size * (o.amsgrad ? 3 : 2) + 4;
    case OptimizerKind::NAdam: return elems * elem_size * 2 + 8;  // step + mu_product
    case OptimizerKind::Adagrad: return elems * elem_size + 4;
    case OptimizerKind::RMSprop:
      return elems * elem_size * (1 + (o.momentum ? 1 : 0) + (o.centered ? 1 : 0));
    case OptimizerKind::Adadelta: return elems * elem_size * 2;
    case OptimizerKind::Lion: return elems * elem_size;
    case OptimizerKind::Adafactor: return elems * 4 / 64;  // factored second moment (rows + cols)
    case OptimizerKind::Adam8bit:
      // bitsandbytes: two uint8 states plus one float32 absmax per 2048
      // elements each; tensors under 4096 elements keep 32-bit states.
      if (elems < 4096) return elems * 8;
      return elems * 2 + ((elems + 2047) / 2048) * 8;
    case OptimizerKind::LBFGS: return elems * elem_size * (2 * 100 + 3);  // history_size=100
    case OptimizerKind::Unknown: return 0;
  }
  return 0;
}

/// How the report names a wrapper type (distributed.cpp's wrap()).
std::string wrapper_display(std::string_view type) {
  if (type == "wrapper.ddp") return "DDP";
  if (type == "wrapper.fsdp") return "FSDP";
  if (type == "wrapper.dp") return "DataParallel";
  if (type == "wrapper.deepspeed") return "a DeepSpeed engine";
  return std::string(type.substr(type.find('.') + 1));
}

uint64_t val(Interp& in, DimId d) { return static_cast<uint64_t>(std::max<int64_t>(0, in.dims.value(d))); }

/// Required arguments the run did not give, with how to give them: the
/// usual reason values are missing.
void name_missing_args(const Interp& in, Estimate& e) {
  auto& unknowns = e.config.unknowns;
  for (const MissingArg& m : in.missing_args) {
    if (m.name.starts_with('{')) {
      std::string first = m.name.substr(1, m.name.find_first_of(",}") - 1);
      unknowns.push_back({"no subcommand `" + m.name + "` is given: pass one after `--` (`tpf-analyze ... SCRIPT -- " +
                              first + "`)",
                          m.line, false});
      continue;
    }
    unknowns.push_back({"the required argument `" + m.name + "` is not given: pass it after `--` (`tpf-analyze ... " +
                            "SCRIPT -- " + (m.positional ? "VALUE" : m.name + " VALUE") + "`)",
                        m.line, false});
  }
}

/// Where the first false assert is: the script's own line, or the call on
/// that line whose code (another module of the project) asserts.
std::string failed_assert(const Interp& in) {
  const std::string at = std::to_string(in.failed_assert_line);
  return (in.failed_assert_in_script ? "the `assert` at line " + at
                                     : "an `assert` in the code the call at line " + at + " runs") +
         " is false with the values the estimate has, and the script stops there";
}

/// A module of a package that runs only through the package's command line
/// (litgpt's pretrain.py: its `setup()` is what `litgpt pretrain` runs, from
/// litgpt/__main__.py): no `__main__` block of its own. The nearest
/// __main__.py of its packages, as a path beside the script's, else "".
std::string package_entry(const Interp& in) {
  const SourceFile* src = in.units[0]->ir->src;
  if (!src || src->text.find("\"__main__\"") != std::string_view::npos ||
      src->text.find("'__main__'") != std::string_view::npos)
    return {};
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::path(src->path).parent_path();
  if (dir.empty()) dir = ".";
  for (int up = 0; up < 8 && fs::is_regular_file(dir / "__init__.py", ec); ++up) {
    fs::path main = (dir / "__main__.py").lexically_normal();
    if (fs::is_regular_file(main, ec) && !fs::equivalent(main, src->path, ec)) return main.string();
    dir = (dir / "..").lexically_normal();
  }
  return {};
}

/// An unknown verdict always says why, in config.unknowns (issue 24): the
/// interpreter's own reasons are blocking unknowns already; otherwise the
/// model was not found or no backward was followed, and this names the
/// line that stopped it. Required arguments the run did not give are listed
/// with how to give them: they are the usual reason values are missing.
void explain_unknown(const Interp& in, Estimate& e, bool has_target) {
  auto& unknowns = e.config.unknowns;
  bool blocking = std::any_of(unknowns.begin(), unknowns.end(), [](auto& u) { return u.blocking; });
  if (!blocking) {
    if (!has_target) {
      unknowns.push_back({"no target GPU: pass --target (see --list-targets)", 0, true});
    } else if (!e.model_found && in.stdlib_only) {
      unknowns.push_back({"no model found: the script imports only Python's standard library", 0, true});
    } else if (!e.model_found && in.unsized_line) {
      // Modules were built, but every parameter's size came from a value
      // the interpreter could not read (a graph's feature count from a file).
      unknowns.push_back({"no model found: " + in.unsized_what +
                              " comes from a value the interpreter could not read, so no parameter has a size",
                          in.unsized_line, true});
    } else if (!e.model_found && in.failed_assert_line) {
      unknowns.push_back({"no model found: " + failed_assert(in), in.failed_assert_line, true});
    } else if (!e.model_found && !package_entry(in).empty()) {
      std::string main = package_entry(in);
      std::error_code ec;
      std::string pkg = std::filesystem::weakly_canonical(main, ec).parent_path().filename().string();
      unknowns.push_back({"no model found: the script has no `if __name__ == \"__main__\":` block and builds no "
                          "model at its top level; its package runs it through " + main + " (`python -m " + pkg +
                              "`): analyze that, with the command and its arguments after `--` (`tpf-analyze ... " +
                              main + " -- COMMAND --name VALUE`)",
                          0, true});
    } else if (!e.model_found) {
      unknowns.push_back({"no model found: the script builds no `nn.Module` with parameters the interpreter "
                          "could follow",
                          0, true});
    } else if (in.unfollowed_backward_line) {
      std::string why = "the loss at line " + std::to_string(in.unfollowed_backward_line) +
                        " comes from values the interpreter could not follow";
      if (!in.synth_failure.empty()) why += ", and " + in.synth_failure;
      unknowns.push_back({why, in.unfollowed_backward_line, true});
    } else if (in.failed_assert_line) {
      unknowns.push_back({"no `.backward()` reached: " + failed_assert(in), in.failed_assert_line, true});
    } else if (!in.synth_failure.empty()) {
      unknowns.push_back({"no `.backward()` reached; " + in.synth_failure, 0, true});
    } else {
      unknowns.push_back({"no `.backward()` reached: the script's training step was not found", 0, true});
    }
  }
  name_missing_args(in, e);
}

}  // namespace

void model_memory(Interp& in, const EstimateOptions& opt, Estimate& e) {
  const TrainingConfig& cfg = in.cfg;
  const Tweaks& tw = opt.tweaks;
  // A size given on the command line that no saved tensor and no batch
  // tensor depends on was not applied (the script's shapes are literals,
  // or its model takes no sequence): the estimate is at the script's own
  // shapes, and the report says so instead of showing the flag's value as
  // if it had been used.
  if (!in.phases.empty()) {
    DimId live = in.phase_live[in.peak_phase];
    // The loader whose batch the peak phase's backward ran on (drawn last
    // before it with gradients on), not the last loader drawn at all.
    const std::optional<DimId>& step_loader = in.phase_loader[in.peak_phase].first;
    const uint32_t step_loader_line = in.phase_loader[in.peak_phase].second;
    auto reaches = [&](std::string_view sym) {
      DimSym s = in.dims.find_symbol(sym);
      if (s == UINT32_MAX) return false;
      if (in.dims.depends_on(live, s)) return true;
      for (const Storage& st : in.storages)
        if (st.role == Role::Input && in.dims.depends_on(st.elems, s)) return true;
      return false;
    };
    // Only when the script names no such size at all (orig == -1): a named
    // one took the flag's value, even where a list built from it (texts *
    // batch_size) carries it on as a plain number.
    // The same when the DataLoader the step drew from was built with a
    // constant of its own (not the name the flag replaced).
    auto unapplied = [&](const std::optional<int64_t>& flag, std::string_view sym,
                         std::string_view name, IntSetting& setting, std::string_view what,
                         int64_t orig) {
      bool const_loader = sym == "B" && step_loader && in.dims.is_const(*step_loader);
      if (!flag || (orig != -1 && !const_loader) || reaches(sym)) return;
      in.note_unknown("--" + std::string(name) + " " + std::to_string(*flag) + " not applied: no tensor depends on a " +
                          std::string(what) + " the script names; estimated at the script's own shapes",
                      {}, false);
      if (setting.value == *flag) setting.origin.source += ", not applied";
    };
    // The batch-size setting is the first value a batch-size name held; the
    // DataLoader the step drew from may use another (a config class names
    // 96, the loader is built with a dict's 40). Report the loader's.
    if (!reaches("B") && step_loader && in.dims.is_const(*step_loader) &&
        in.cfg.batch_size.value != in.dims.value(*step_loader)) {
      // The value the script's own name held (before any --batch-size).
      int64_t named = in.orig_batch != -1 ? in.orig_batch : in.cfg.batch_size.value.value_or(-1);
      std::string was = in.cfg.batch_size.origin.line && named != -1
                            ? " (not " + std::to_string(named) + ", line " + std::to_string(in.cfg.batch_size.origin.line) + ")"
                            : "";
      in.cfg.batch_size = {in.dims.value(*step_loader),
                           {step_loader_line, "DataLoader(batch_size=...)" + was}};
    }
    unapplied(opt.batch_size, "B", "batch-size", in.cfg.batch_size, "batch size", in.orig_batch);
    unapplied(opt.seq_len, "T", "seq-len", in.cfg.seq_len, "sequence length", in.orig_seq);
  }
  // ---- parameters: the trained roots and what optimizers update ----
  std::vector<uint32_t> params;
  std::unordered_set<uint32_t> seen;
  // The parameters of the roots some backward reached, and of the others.
  std::unordered_set<uint32_t> reached_roots, idle_roots;
  uint64_t buffers = 0;
  // Which storages are trainable: a parameter a model registers, with
  // requires_grad; for one no model registers (a bare nn.Parameter an
  // optimizer steps), any parameter tensor over it with requires_grad. A
  // registered parameter made as `nn.Parameter(linear.weight)` shares the
  // storage of a layer that is then dropped (torchtune's LoRALinear): that
  // layer's own weight keeps requires_grad, and must not make the frozen
  // base trainable.
  std::unordered_set<uint32_t> trainable, registered;
  for (ObjId r : in.roots) {
    std::vector<uint32_t> mine;
    bool reached = false;
    for (auto& [n, t] : module_tensors(in, Value::obj(r), Role::Param)) {
      const uint32_t s = in.tensor(t)->storage;
      registered.insert(s);
      if (in.tensor(t)->requires_grad) trainable.insert(s);
      mine.push_back(s);
      reached = reached || in.grad_reached.count(s);
      if (seen.insert(s).second) params.push_back(s);
    }
    (reached ? reached_roots : idle_roots).insert(mine.begin(), mine.end());
    std::unordered_set<uint32_t> bseen;
    for (auto& [n, t] : module_tensors(in, Value::obj(r), Role::Buffer))
      if (bseen.insert(in.tensor(t)->storage).second) buffers += val(in, in.storage_bytes(in.tensor(t)->storage));
  }
  for (const OptimizerInfo& o : cfg.optimizers)
    for (uint32_t s : o.storages)
      if (seen.insert(s).second) params.push_back(s);
  for (ObjId id = 0; id < in.heap.size(); ++id) {
    const Obj& ob = in.heap[id];
    if (ob.kind == OKind::Tensor && ob.t->requires_grad && in.storages[ob.t->storage].role == Role::Param &&
        !registered.count(ob.t->storage))
      trainable.insert(ob.t->storage);
  }
  // A model no backward reached gets no .grad and no optimizer state: a
  // teacher run under no_grad, a network that is only a weight source. A
  // root counts whole once any of its parameters was reached (an op the
  // interpreter does not link must not drop a trained layer).
  // A parameter shared with a trained model (tied weights) stays.
  if (in.backward_seen)
    for (uint32_t s : idle_roots)
      if (!reached_roots.count(s)) trainable.erase(s);
  uint64_t weight_bytes = 0, grad_bytes = 0, trainable_elems = 0;
  for (uint32_t s : params) {
    uint64_t n = val(in, in.storages[s].elems), b = val(in, in.storage_bytes(s));
    e.params += n;
    weight_bytes += b;
    if (trainable.count(s)) {
      e.trainable_params += n;
      trainable_elems += n;
      grad_bytes += b;
    }
  }
  e.buffer_bytes = buffers;
  e.model_found = !params.empty();
  if (in.unsized_line && e.model_found) {
    e.params_exact = false;
    in.cfg.unknowns.push_back({in.unsized_what +
                                   " comes from a value the interpreter could not read: the parameter count "
                                   "is a lower bound",
                               in.unsized_line, false});
  }
  e.step_synthesized = in.step_synthesized;
  // ---- optimizer state ----
  uint64_t opt_bytes = 0, foreach_temp = 0;
  std::vector<uint64_t> resident;  // per tensor, for the timeline
  for (const OptimizerInfo& o : cfg.optimizers) {
    OptimizerKind kind = tw.optimizer ? *tw.optimizer : o.kind;
    uint64_t largest = 0;
    for (uint32_t s : o.storages) {
      // torch's optimizers create state lazily, for a parameter whose .grad
      // is set: a frozen one (requires_grad=False, peft's base model,
      // accelerate cv_example's backbone) gets none, and step() skips it.
      if (!trainable.count(s)) continue;
      uint64_t n = val(in, in.storages[s].elems);
      uint64_t es = dtype_size(in.storages[s].dtype);
      if (cfg.master_weights) es = 4;  // states live with the fp32 master copy
      opt_bytes += state_bytes(o, kind, n, es);
      if (uint64_t sb = state_bytes(o, kind, n, es)) resident.push_back(sb);
      // foreach (torch 2.x's default on CUDA) materializes intermediate
      // lists during step(): about one parameter-sized buffer. With
      // foreach=False the loop holds one tensor's temporary at a time.
      if (!o.fused && !tw.fused_optimizer && kind != OptimizerKind::Sgd && kind != OptimizerKind::Adam8bit) {
        if (o.foreach_off) largest = std::max(largest, n * es);
        else foreach_temp += n * es;
      }
    }
    foreach_temp += largest;
  }
  e.optimizer_state_bytes = opt_bytes;
  e.gradient_bytes = grad_bytes;
  // ---- activations at the peak backward ----
  uint64_t acts = 0, recompute = 0, cache = 0, scores = 0;
  DimId inputs = in.dims.constant(0);
  std::unordered_set<uint32_t> input_seen;
  std::unordered_map<uint32_t, uint64_t> region_cache;  // autocast region -> its casts' bytes
  for (uint32_t s = 0; s < in.storages.size(); ++s) {
    if (in.storages[s].role == Role::Input && input_seen.insert(s).second)
      inputs = in.dims.add(inputs, in.storage_bytes(s));
    if (in.storages[s].role == Role::AutocastCopy) {
      auto r = in.autocast_copy_region.find(s);
      region_cache[r == in.autocast_copy_region.end() ? UINT32_MAX : r->second] += val(in, in.storage_bytes(s));
    }
  }
  for (const auto& [region, bytes] : region_cache) cache = std::max(cache, bytes);
  uint64_t transient = 0;
  if (!in.phases.empty()) {
    const Phase& p = in.phases[in.peak_phase];
    acts = p.live_bytes;
    recompute = p.recompute_bytes;
    // The first gradient buffers of backward are allocated while every
    // saved tensor is still alive: the gradient flowing into the op that
    // saved the largest tensor (log_softmax's output for a language model)
    // and the gradient it produces, twice that tensor.
    std::unordered_set<uint32_t> sseen;
    for (const SavedRecord& r : in.saved) {
      if (r.phase != in.peak_phase || in.storages[r.storage].role != Role::Activation) continue;
      if (!sseen.insert(r.storage).second) continue;
      uint64_t b = val(in, in.storage_bytes(r.storage));
      transient = std::max(transient, 2 * b);
      if (r.score) scores += b;
    }
  }
  e.attention_score_bytes = scores;
  // SDPA keeps q, k, v and the output (already saved by the projections)
  // and a (B, H, T) float32 logsumexp, never the scores.
  if (tw.sdpa) acts -= std::min(acts, scores);
  e.batch_input_bytes = val(in, inputs);
  e.backward_transient_bytes = transient;
  e.phases = in.phases;
  // ---- sharding and data parallelism ----
  Sharding sh = tw.sharding ? *tw.sharding : cfg.sharding;
  // The world size: the suggestion's, the CLI's, the target's GPU count,
  // then what the script says (often an environment default of 1).
  int64_t world = tw.shard_world ? tw.shard_world
                 : opt.world_size ? *opt.world_size
                 : (opt.target && opt.target->count > 1) ? opt.target->count
                 : cfg.world_size.known() ? *cfg.world_size.value : 1;
  if (sh == Sharding::None || sh == Sharding::Ddp) world = std::max<int64_t>(world, 1);
  // What the run holds before a target is named; judge() shards it over
  // the world and charges the target's context and fragmentation.
  Footprint& f = e.footprint;
  f.weights = weight_bytes + buffers;
  f.gradients = grad_bytes;
  f.optimizer_state = opt_bytes;
  f.master_weights = cfg.master_weights ? trainable_elems * 4 : 0;
  f.foreach_temp = foreach_temp;
  f.activations = acts;
  f.recompute = recompute;
  f.batch_input = e.batch_input_bytes;
  f.transient = transient;
  f.autocast_cache = cache;
  f.sharding = sh;
  f.ddp_bucket_view = cfg.ddp_bucket_view;
  f.world = world;
  {
    // FSDP's usual auto-wrap unit: the largest repeated block, or the
    // whole model when it has no block list. Kept for any sharding, since
    // --fit judges an FSDP suggestion on the same footprint.
    uint64_t unit = f.weights;
    for (ObjId r : in.roots) unit = std::min(unit, largest_block_bytes(in, Value::obj(r)));
    f.gathered_unit = unit;
  }
  // At the backward peak the autocast region has been left and its cast
  // cache dropped: the casts still alive are those the graph saved (a
  // Linear keeps its weight's cast) and those of the largest checkpointed
  // segment, recast when it is recomputed under autocast in backward.
  // Without checkpointing that is every weight cast the forward made (the
  // calibration case); with it, one block's. Every cast is alive at the end
  // of the forward instead, a peak of its own (without the gradients).
  f.autocast_cache_kept = cache;
  if (!in.phases.empty()) {
    uint64_t seg_max = 0;
    for (const auto& seg : in.segment_saved) {
      if (seg.empty() || seg[0].phase != in.peak_phase) continue;
      std::unordered_set<uint32_t> seen_copies;
      uint64_t b = 0;
      for (const SavedRecord& r : seg)
        if (in.storages[r.storage].role == Role::AutocastCopy && seen_copies.insert(r.storage).second)
          b += val(in, in.storage_bytes(r.storage));
      seg_max = std::max(seg_max, b);
    }
    f.autocast_cache_kept = std::min(cache, in.phases[in.peak_phase].autocast_copy_bytes + seg_max);
  }
  double widen = 0;
  for (const auto& u : cfg.unknowns)
    if (!u.blocking) widen += 0.05;
  f.widen = std::min(widen, 0.5);
  if (in.dims.overflowed()) {
    e.overflow = true;
    in.cfg.unknowns.push_back({"a size or count overflowed 64 bits (over 9.2e18: nn.Linear(2**40, 2**40), a batch "
                               "of 2**63 - 1): the sizes built from it are not real, so the peak is unknown (overflow)",
                               0, true});
  }
  // Token ids of a text the estimate does not read (memory/interp/inference.cpp
  // prompt_ids) in a training run: their length is no one's guess.
  if (in.infer.prompt_unread_line && !is_inference_run(in))
    in.cfg.unknowns.push_back({"sequence length: the token ids of `" + in.infer.prompt_unread_call +
                                "` come from a text the estimate does not read",
                            in.infer.prompt_unread_line, true});
  bool blocking = std::any_of(cfg.unknowns.begin(), cfg.unknowns.end(), [](auto& u) { return u.blocking; });
  f.judgeable = !blocking && e.model_found && !in.phases.empty() && !e.overflow;
  f.seq_len_at_bound = cfg.seq_len.upper_bound;
  // A script that evaluates or generates: weights, KV cache, the largest op.
  if (is_inference_run(in)) inference_footprint(in, opt, e, f);
  else if (opt.generate)
    in.cfg.unknowns.push_back({"--generate not applied: the script trains (a backward or an optimizer), so the "
                               "estimate is its training step's",
                               0, false});
  // ---- the simulated step (issue 19) ----
  e.torch_version = opt.torch_version ? std::to_string(opt.torch_version->major) + "." +
                                            std::to_string(opt.torch_version->minor)
                                      : "2.x";
  e.torch_version_from = opt.torch_version ? opt.torch_version_from : "current 2.x";
  if (!f.inference && sh == Sharding::None && !in.phases.empty()) {
    TimelineInputs ti;
    ti.resident = std::move(resident);
    for (uint32_t s : params) ti.resident.push_back(val(in, in.storage_bytes(s)));
    if (f.master_weights) ti.resident.push_back(f.master_weights);
    for (ObjId r : in.roots)
      for (auto& [n, t] : module_tensors(in, Value::obj(r), Role::Buffer)) ti.resident.push_back(val(in, in.storage_bytes(in.tensor(t)->storage)));
    std::vector<uint32_t> batch(input_seen.begin(), input_seen.end());
    std::sort(batch.begin(), batch.end());  // a set's order would make the allocator replay vary
    for (uint32_t s : batch) ti.resident.push_back(val(in, in.storage_bytes(s)));
    for (uint32_t s : params)
      if (trainable.count(s)) ti.trainable.push_back(s);
    ti.torch = opt.torch_version.value_or(TorchVersion{});
    ti.cuda = opt.kernels == Kernels::Cuda;
    ti.fused_step = tw.fused_optimizer;
    Timeline tl = compute_timeline(in, ti);
    if (tl.simulated) {
      // SDPA's what-if: the score matrices are gone wherever the peak is
      // in the forward or backward.
      uint64_t less = tw.sdpa && tl.peak_phase != "step" ? std::min(scores, tl.allocated_peak) : 0;
      f.timeline_allocated = tl.allocated_peak - less;
      std::vector<uint64_t> reserved;  // after each op
      f.timeline_reserved = std::max(compute_reserved_peak(tl.ops, &reserved), tl.allocated_peak) - less;
      for (size_t i = 0; i < tl.points.size(); ++i)
        tl.points[i].reserved = tl.point_ops[i] ? reserved[tl.point_ops[i] - 1] : 0;
      std::tie(f.timeline_phase, f.timeline_gradients, f.timeline_step_temp) =
          std::tie(tl.peak_phase, tl.gradients_at_peak, tl.step_temp_at_peak);
      std::tie(e.peak_phase, e.peak_op, e.peak_line) = std::tie(tl.peak_phase, tl.peak_op, tl.peak_line);
      e.timeline = std::move(tl.points);
    }
  }
  // ---- context, fragmentation, interval, verdict ----
  // Without a target the context is a T4's (the components still show).
  const targets::GpuSpec& gpu = opt.target ? *opt.target->gpu : targets::gpu(targets::GpuId::T4);
  Judgement j = judge(f, gpu, opt.target ? opt.target->usable_bytes_per_gpu() : 0);
  Components& c = e.components;
  c = j.components;
  c.activations_known = e.model_found && (!in.phases.empty() || (e.inference && f.judgeable)) && !e.overflow;
  c.weights_known = e.model_found && !e.overflow;
  e.peak_bytes = j.peak_bytes;
  e.peak_low_bytes = j.peak_low_bytes;
  e.peak_high_bytes = j.peak_high_bytes;
  e.foreach_temp_bytes = j.foreach_temp_bytes;
  e.allocated_peak_bytes = j.allocated_peak_bytes;
  e.reserved_peak_bytes = j.reserved_peak_bytes;
  if (opt.target) {
    e.target = opt.target->name;
    e.gpu_display = std::string(opt.target->gpu->display);
    e.usable_bytes = opt.target->usable_bytes_per_gpu();
    e.gpu_count = opt.target->count;
  }
  e.verdict = opt.target ? j.verdict : Verdict::Unknown;
  // Estimated at a bound of the sequence length (the model's position
  // table): over or near the target there says nothing of the run.
  if (cfg.seq_len.upper_bound && (e.verdict == Verdict::Oom || e.verdict == Verdict::Tight)) {
    in.cfg.unknowns.push_back({"sequence length: at its bound, " + std::to_string(*cfg.seq_len.value) + " tokens (" +
                                   cfg.seq_len.origin.source + "), the peak is " + gib(e.peak_bytes) + " against " +
                                   gib(e.usable_bytes) +
                                   " usable, and the run's own length comes from its data: pass --seq-len",
                               cfg.seq_len.origin.line, true});
    e.verdict = Verdict::Unknown;
  }
  e.anchor = in.peak_backward.end > in.peak_backward.begin ? in.peak_backward : in.first_backward;
  // A synthesized step has no backward of the script's: point at the line
  // that built the model it ran.
  if ((in.step_synthesized || e.anchor.end <= e.anchor.begin) && in.synth_model != kNone32 &&
      in.heap[in.synth_model].line && !in.units.empty() && in.units[0]->ir->src) {
    const SourceFile& src = *in.units[0]->ir->src;
    const uint32_t line = in.heap[in.synth_model].line;
    if (line <= src.lines.line_count()) {
      uint32_t b = src.lines.line_start(line), end = b;
      while (b < src.text.size() && (src.text[b] == ' ' || src.text[b] == '\t')) ++b;
      end = b;
      while (end < src.text.size() && src.text[end] != '\n' && src.text[end] != '\r') ++end;
      if (end > b) e.anchor = Span{b, end};
    }
  }
  // ---- per-layer table of the peak phase ----
  if (!in.phase_modules.empty()) {
    // Each name's module, once (a lookup per row was quadratic in the layers).
    std::unordered_map<StrId, ObjId> module_of;
    for (auto& [obj, name] : in.module_names) module_of[name] = obj;
    for (auto& [mod, bytes] : in.phase_modules[in.peak_phase]) {
      LayerRow row;
      row.module = mod == kNone32 ? "<top>" : std::string(in.str(mod));
      if (auto it = module_of.find(mod); it != module_of.end()) row.cls = in.module_classes[it->second];
      row.bytes = val(in, bytes);
      row.formula = in.dims.str(bytes);
      e.layers.push_back(std::move(row));
    }
    std::stable_sort(e.layers.begin(), e.layers.end(),
                     [](const LayerRow& a, const LayerRow& b) { return a.bytes > b.bytes; });
  }
  e.config = cfg;
  if (e.verdict == Verdict::Unknown) explain_unknown(in, e, opt.target.has_value());
  else if (!e.params_exact) name_missing_args(in, e);  // the likely source of the unread size
  // Arguments given for the script that nothing read: say so rather than
  // let them look applied (a click or fire command line, a config file).
  if (!opt.argv.empty() && !in.argv_read)
    e.config.unknowns.push_back({"the script's command line after `--` is not read: the script parses no "
                                 "argparse arguments and reads no `sys.argv`",
                                 0, false});
  // What each optimizer updates, for the report (the JSON's "params").
  for (OptimizerInfo& o : e.config.optimizers) {
    o.param_tensors = o.storages.size();
    o.params = o.param_bytes = 0;
    for (uint32_t s : o.storages) {
      o.params += val(in, in.storages[s].elems);
      o.param_bytes += val(in, in.storage_bytes(s));
    }
  }
  if (!e.config.batch_size.known()) {
    if (auto b = in.dims.find_symbol("B"); b != UINT32_MAX)
      e.config.batch_size.value = in.dims.symbol_value(b);
  }
  // A count of processes with no data parallelism (mnist_hogwild's
  // --num-processes over mp.Process workers sharing one model) is no world
  // size: said once, not shown as one.
  const bool script_only = !tw.shard_world && !opt.world_size && !(opt.target && opt.target->count > 1);
  if (sh == Sharding::None && script_only && cfg.world_size.known() && *cfg.world_size.value > 1) {
    if (in.process_started)
      e.config.unknowns.push_back({std::to_string(*cfg.world_size.value) + " worker processes (" +
                                       cfg.world_size.origin.source +
                                       ") share one model and each runs its own step: the estimate is one "
                                       "worker's; workers on the same GPU add their activations",
                                   cfg.world_size.origin.line, false});
    e.config.world_size = {};
  } else if (world > 1 || e.config.world_size.known()) {
    // Say where the world size used came from: the script's value only
    // when it is the one used.
    const IntSetting& script = cfg.world_size;
    std::string was = script.known() ? " (was " + std::to_string(*script.value) + ", " + script.origin.source + ")" : "";
    Origin o;
    if (script.known() && *script.value == world && !opt.world_size) o = script.origin;
    else if (opt.world_size) o = {script.origin.line, "--world-size" + was};
    else if (opt.target && opt.target->count > 1) o = {script.origin.line, "target GPU count" + was};
    else o = {0, "suggestion"};
    e.config.world_size = {world, o};
  }
  // A wrapper (DDP, FSDP, a DeepSpeed engine) and the module it wraps are
  // one model: listed once, by the wrapper's name, with the wrapped class.
  auto wrapped = [&](ObjId r) -> ObjId {
    const Obj& ob = in.heap[r];
    if (ob.cls != kNone32 || ob.type == kNone32 || !in.str(ob.type).starts_with("wrapper.")) return kNone32;
    const Value* inner = ob.attrs.find(in.intern("module"));
    return inner && in.is_module(*inner) ? inner->a : kNone32;
  };
  std::unordered_set<ObjId> inner_of_wrapper;
  for (ObjId r : in.roots)
    if (ObjId w = wrapped(r); w != kNone32) inner_of_wrapper.insert(w);
  for (ObjId r : in.roots) {
    if (inner_of_wrapper.count(r)) continue;
    ObjId inner = wrapped(r);
    bool listed = false;
    for (auto& m : e.config.models) {
      if (m.object != r && (inner == kNone32 || m.object != inner)) continue;
      listed = true;
      if (inner != kNone32) m.cls += " in " + wrapper_display(in.str(in.heap[r].type));
    }
    if (listed) continue;
    uint64_t n = 0;
    for (auto& [nm, t] : module_tensors(in, Value::obj(r), Role::Param))
      n += val(in, in.numel(*in.tensor(t)));
    if (n == 0) continue;  // a loss module called at top level is no model
    std::string name = in.module_names.count(r) ? std::string(in.str(in.module_names[r])) : "model";
    std::string cls = module_class(in, Value::obj(r));
    uint32_t line = in.o(Value::obj(r)).line;
    if (inner != kNone32) {
      cls = module_class(in, Value::obj(inner)) + " in " + wrapper_display(in.str(in.heap[r].type));
      if (in.o(Value::obj(inner)).line) line = in.o(Value::obj(inner)).line;
    }
    e.config.models.push_back({name, cls, {line, line ? "constructed" : ""}, n, r});
  }
  for (auto& m : e.config.models)
    if (m.params == 0) m.params = e.params;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Fits: return "fits";
    case Verdict::Tight: return "tight";
    case Verdict::Oom: return "oom";
    default: return "unknown";
  }
}

std::string_view optimizer_name(OptimizerKind k) {
  switch (k) {
    case OptimizerKind::Sgd: return "SGD";
    case OptimizerKind::Adam: return "Adam";
    case OptimizerKind::AdamW: return "AdamW";
    case OptimizerKind::Adagrad: return "Adagrad";
    case OptimizerKind::RMSprop: return "RMSprop";
    case OptimizerKind::Adadelta: return "Adadelta";
    case OptimizerKind::Adamax: return "Adamax";
    case OptimizerKind::NAdam: return "NAdam";
    case OptimizerKind::RAdam: return "RAdam";
    case OptimizerKind::Lion: return "Lion";
    case OptimizerKind::Adafactor: return "Adafactor";
    case OptimizerKind::Adam8bit: return "8-bit Adam";
    case OptimizerKind::LBFGS: return "LBFGS";
    default: return "unknown";
  }
}

std::string_view sharding_name(Sharding s) {
  switch (s) {
    case Sharding::None: return "none";
    case Sharding::Ddp: return "DDP";
    case Sharding::Fsdp: return "FSDP";
    case Sharding::Zero1: return "ZeRO-1";
    case Sharding::Zero2: return "ZeRO-2";
    case Sharding::Zero3: return "ZeRO-3";
  }
  return "none";
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / static_cast<double>(targets::kGiB));
  return buf;
}

}  // namespace tpf::memory
