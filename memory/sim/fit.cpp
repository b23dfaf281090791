// fit: right-sizing (--fit). Interprets the script once per change a
// suggestion could make (never once per target), keeps each run's
// Footprint, and judges those footprints against every GPU of
// targets/gpus.def and every instance of targets/instances.def: the
// verdict as written and the smallest change that makes the run fit.
// requires: estimate_once (advice.cpp), judge (judge.cpp). produces: Fit.
#include <algorithm>
#include <map>

#include "memory/sim/model.h"

namespace tpf::memory {
namespace {

/// GPU counts tried for a distributed script on one kind of GPU: the sizes
/// jobs are launched at (a node of 8, then whole nodes).
constexpr uint32_t kCounts[] = {1, 2, 4, 8, 16, 32, 64};

/// The changes --fit tries, least effort first: a single change that fits
/// is chosen in this order (a precision switch is one line; sharding needs
/// a launcher and a wrapper).
constexpr std::string_view kEffortOrder[] = {
    "bf16",        "fp16",          "weights_bf16", "weights_fp16", "sdpa",   "fused",  "adam8bit",
    "int8",        "int4",          "microbatch2",  "microbatch4",  "microbatch8", "batch2", "batch4",
    "context2",    "checkpointing", "fsdp"};

size_t effort(std::string_view key) {
  for (size_t k = 0; k < std::size(kEffortOrder); ++k)
    if (kEffortOrder[k] == key) return k;
  return std::size(kEffortOrder);
}

bool is_adam(OptimizerKind k) {
  return k == OptimizerKind::Adam || k == OptimizerKind::AdamW || k == OptimizerKind::Adamax ||
         k == OptimizerKind::NAdam || k == OptimizerKind::RAdam;
}

int64_t divisor(std::string_view key) {
  return key.starts_with("microbatch") ? std::stoll(std::string(key.substr(10))) : 1;
}

/// The runs of one script, memoized by the set of interpreter-level
/// changes (FSDP is not one: judge() shards a footprint itself).
class Runs {
 public:
  Runs(const ir::Module& script, const EstimateOptions& opt) : script_(script), opt_(opt) { opt_.suggest = false; }

  /// The batch size the micro-batch changes divide (the run's own).
  void set_batch(int64_t batch) { batch_ = batch; }

  /// The footprint of the run with `keys` applied (sorted, without
  /// "fsdp"), on a GPU with or without bf16 (is_bf16_supported()), on
  /// `world` GPUs: more than one is a launcher's run (torchrun), as
  /// `--target 8xa100` is, so a script that turns on DDP from RANK or
  /// WORLD_SIZE in the environment (nanoGPT, llm.c) is charged DDP there
  /// and only there (issue 24).
  const Estimate& run(const std::vector<std::string>& keys, bool bf16, uint32_t world = 1) {
    std::string id = bf16 ? "1" : "0";
    if (world > 1) id += ",w" + std::to_string(world);
    for (const std::string& k : keys) id += "," + k;
    auto it = memo_.find(id);
    if (it != memo_.end()) return it->second;
    EstimateOptions o = opt_;
    // One GPU that answers is_bf16_supported() as the target would; the
    // context and the verdict are judged per target afterwards.
    o.target = targets::lookup_target(bf16 ? "h100" : "t4").target;
    if (world > 1) o.world_size = world;
    for (const std::string& k : keys) {
      if (k == "bf16") o.dtype = Dtype::BFloat16;
      else if (k == "fp16") o.dtype = Dtype::Float16;
      else if (k == "checkpointing") o.tweaks.checkpoint_blocks = true;
      else if (k == "sdpa") o.tweaks.sdpa = true;
      else if (k == "adam8bit") o.tweaks.optimizer = OptimizerKind::Adam8bit;
      else if (k == "fused") o.tweaks.fused_optimizer = true;
      else if (k == "weights_bf16") o.tweaks.weight_dtype = Dtype::BFloat16;
      else if (k == "weights_fp16") o.tweaks.weight_dtype = Dtype::Float16;
      else if (k == "int8") o.tweaks.weight_bits = 8;
      else if (k == "int4") o.tweaks.weight_bits = 4;
      else if (k == "batch2" || k == "batch4") o.tweaks.serve_batch_divisor = k == "batch2" ? 2 : 4;
      else if (k == "context2") o.tweaks.context_divisor = 2;
      else if (int64_t d = divisor(k); d > 1) {
        o.tweaks.batch_divisor = d;
        o.batch_size = (batch_ + d - 1) / d;
      }
    }
    return memo_.emplace(id, estimate_once(script_, o)).first->second;
  }

 private:
  const ir::Module& script_;
  EstimateOptions opt_;
  int64_t batch_ = 0;
  std::map<std::string, Estimate> memo_;
};

/// What one target is: `count` GPUs of one kind, each its own device.
struct Slot {
  const targets::GpuSpec* gpu;
  uint32_t count;
};

class Fitter {
 public:
  Fitter(Runs& runs, const Estimate& base, const EstimateOptions& opt) : runs_(runs) {
    const TrainingConfig& cfg = base.config;
    const Footprint& f = base.footprint;
    precision_ = !cfg.autocast && !opt.dtype && cfg.param_dtype == Dtype::Float32;
    if (base.inference) {
      // Inference (memory/interp/inference.cpp): 16-bit or quantized weights, a
      // smaller batch, a shorter context, SDPA; never sharded.
      inference_ = true;
      precision_ = cfg.param_dtype == Dtype::Float32;
      const InferenceReport& r = *base.inference;
      if (base.attention_score_bytes > 0 && !cfg.sdpa) keys_.push_back("sdpa");
      keys_.insert(keys_.end(), {"int8", "int4"});
      for (int64_t d : {2, 4})
        if (r.batch / d >= 1) keys_.push_back("batch" + std::to_string(d));
      if (r.prompt + r.new_tokens > 1) keys_.push_back("context2");
      return;
    }
    if (!cfg.checkpointing) keys_.push_back("checkpointing");
    if (base.attention_score_bytes > 0 && !cfg.sdpa) keys_.push_back("sdpa");
    if (std::any_of(cfg.optimizers.begin(), cfg.optimizers.end(), [](auto& o) { return is_adam(o.kind); }))
      keys_.push_back("adam8bit");
    if (f.foreach_temp > 0) keys_.push_back("fused");
    if (cfg.batch_size.known() && *cfg.batch_size.value > 1)
      for (int64_t d : {2, 4, 8})
        if (*cfg.batch_size.value / d >= 1) keys_.push_back("microbatch" + std::to_string(d));
    shardable_ = f.sharding == Sharding::None || f.sharding == Sharding::Ddp;
    seq_bound_ = f.seq_len_at_bound;
  }

  /// The peak per GPU of the run with `keys` on `world` GPUs of `gpu`.
  Judgement judge_with(const std::vector<std::string>& keys, const targets::GpuSpec& gpu, uint32_t world) {
    std::vector<std::string> interp;
    bool fsdp = false;
    for (const std::string& k : keys) {
      if (k == "fsdp") fsdp = true;
      else interp.push_back(k);
    }
    std::sort(interp.begin(), interp.end());
    Footprint f = runs_.run(interp, gpu.bf16, world).footprint;
    if (fsdp) f.sharding = Sharding::Fsdp;
    // Sharded state spreads over every GPU of the target; DDP and a plain
    // script hold the same per GPU whatever the count.
    if (f.sharding != Sharding::None && f.sharding != Sharding::Ddp) f.world = world;
    return judge(f, gpu, gpu.usable_bytes());
  }

  /// The changes that apply on `world` GPUs of `gpu`.
  std::vector<std::string> candidates(const targets::GpuSpec& gpu, uint32_t world) const {
    std::vector<std::string> c;
    if (precision_ && inference_) c.push_back(gpu.bf16 ? "weights_bf16" : "weights_fp16");
    else if (precision_) c.push_back(gpu.bf16 ? "bf16" : "fp16");
    c.insert(c.end(), keys_.begin(), keys_.end());
    if (shardable_ && world > 1) c.push_back("fsdp");
    std::stable_sort(c.begin(), c.end(), [](auto& a, auto& b) { return effort(a) < effort(b); });
    return c;
  }

  /// The smallest change that fits on `world` GPUs of `gpu`: one change,
  /// least effort first; else a stack built greedily by bytes saved and
  /// pruned of what it does not need (advice.cpp's search). Empty `keys`
  /// when nothing fits.
  FitChange smallest_change(const targets::GpuSpec& gpu, uint32_t world) {
    FitChange best;
    // Tight is no fit here: the change asked for must leave room.
    auto fits = [](const Judgement& j) { return j.verdict == Verdict::Fits; };
    std::vector<std::string> cands = candidates(gpu, world);
    Judgement as_written = judge_with({}, gpu, world);
    std::vector<std::pair<uint64_t, std::string>> ranked;  // bytes saved, key
    for (const std::string& k : cands) {
      Judgement j = judge_with({k}, gpu, world);
      if (fits(j)) {
        best.keys = {k};
        best.peak_bytes = j.peak_bytes;
        return best;
      }
      if (j.peak_bytes < as_written.peak_bytes) ranked.emplace_back(as_written.peak_bytes - j.peak_bytes, k);
    }
    std::stable_sort(ranked.begin(), ranked.end(), [](auto& a, auto& b) { return a.first > b.first; });
    std::vector<std::string> stack;
    Judgement last = as_written;
    bool batch_used = false;
    for (auto& [saved, k] : ranked) {
      if (fits(last)) break;
      bool is_batch = k.starts_with("microbatch") || k.starts_with("batch");
      if (is_batch && batch_used) continue;
      std::vector<std::string> next = stack;
      next.push_back(k);
      Judgement j = judge_with(next, gpu, world);
      if (j.peak_bytes >= last.peak_bytes) continue;
      stack = std::move(next);
      last = j;
      batch_used = batch_used || is_batch;
    }
    if (!fits(last)) return best;
    for (size_t k = stack.size(); k-- > 0;) {
      std::vector<std::string> trial = stack;
      trial.erase(trial.begin() + static_cast<long>(k));
      Judgement j = judge_with(trial, gpu, world);
      if (fits(j)) stack = std::move(trial), last = j;
    }
    std::stable_sort(stack.begin(), stack.end(), [](auto& a, auto& b) { return effort(a) < effort(b); });
    best.keys = std::move(stack);
    best.peak_bytes = last.peak_bytes;
    return best;
  }

  FitRow row(std::string name, const targets::GpuSpec& gpu, uint32_t count,
             const targets::InstanceSpec* instance) {
    FitRow r;
    r.name = std::move(name);
    r.gpu = &gpu;
    r.count = count;
    r.instance = instance;
    r.usable_bytes = gpu.usable_bytes();
    Judgement j = judge_with({}, gpu, count);
    r.peak_bytes = j.peak_bytes;
    r.verdict = j.verdict;
    if (j.verdict != Verdict::Fits && j.verdict != Verdict::Unknown) r.change = smallest_change(gpu, count);
    // Over or near the target at a bound of the sequence length says
    // nothing of the run (model.cpp's rule); a change that fits at the
    // bound still fits the run.
    if (seq_bound_ && (r.verdict == Verdict::Oom || r.verdict == Verdict::Tight)) {
      r.verdict = Verdict::Unknown;
      r.at_seq_bound = true;
    }
    return r;
  }

  /// A distributed script on GPUs of one kind: the fewest (of kCounts)
  /// it fits on as written, and with the smallest change.
  void count_needed(FitRow& r) {
    const targets::GpuSpec& gpu = *r.gpu;
    for (uint32_t n : kCounts) {
      Judgement j = judge_with({}, gpu, n);
      if (j.verdict == Verdict::Fits) {
        r.needed = n;
        r.needed_peak_bytes = j.peak_bytes;
        break;
      }
    }
    for (uint32_t n : kCounts) {
      if (r.needed && n >= r.needed) break;
      FitChange c = smallest_change(gpu, n);
      if (!c.keys.empty()) {
        r.needed_with_change = n;
        r.needed_change = std::move(c);
        break;
      }
    }
  }

 private:
  Runs& runs_;
  bool precision_ = false;
  bool inference_ = false;
  bool shardable_ = false;
  bool seq_bound_ = false;
  std::vector<std::string> keys_;
};

uint64_t size_of(const FitRow& r) { return uint64_t{r.count} * r.usable_bytes; }

}  // namespace

std::string change_label(std::string_view key, int64_t batch, uint32_t world) {
  if (key == "bf16") return "bf16 autocast";
  if (key == "fp16") return "fp16 autocast + GradScaler";
  if (key == "checkpointing") return "checkpointing";
  if (key == "sdpa") return "SDPA";
  if (key == "adam8bit") return "8-bit AdamW";
  if (key == "fused") return "fused optimizer step";
  if (key == "weights_bf16") return "bf16 weights";
  if (key == "weights_fp16") return "fp16 weights";
  if (key == "int8") return "8-bit weights";
  if (key == "int4") return "4-bit weights";
  if (key == "batch2" || key == "batch4") {
    const int64_t d = key == "batch2" ? 2 : 4;
    return "batch " + std::to_string((batch + d - 1) / d);
  }
  if (key == "context2") return "half the context";
  if (key == "fsdp") return world > 1 ? "FSDP over " + std::to_string(world) : "FSDP";
  if (int64_t d = divisor(key); d > 1) {
    int64_t mb = (batch + d - 1) / d;
    return "micro-batch " + std::to_string(mb) + ", " + std::to_string(d) + " accumulation steps";
  }
  return std::string(key);
}

Fit compute_fit(const ir::Module& script, const EstimateOptions& opt) {
  Fit fit;
  EstimateOptions base_opt = opt;
  base_opt.world_size.reset();  // each target's GPU count is the world size
  Runs runs(script, base_opt);
  // The run as written, on a bf16 GPU: its config says which changes apply.
  fit.estimate = runs.run({}, true);
  const int64_t batch = fit.estimate.inference                    ? fit.estimate.inference->batch
                        : fit.estimate.config.batch_size.known() ? *fit.estimate.config.batch_size.value
                                                                 : 0;
  runs.set_batch(batch);
  const Footprint& f = fit.estimate.footprint;
  fit.distributed = f.sharding != Sharding::None;
  fit.sharding = f.sharding;
  fit.batch = batch;
  if (!f.judgeable) return fit;
  fit.judged = true;
  Fitter fitter(runs, fit.estimate, base_opt);
  for (const targets::GpuSpec& g : targets::gpus()) {
    FitRow r = fitter.row(std::string(g.name), g, 1, nullptr);
    if (fit.distributed) fitter.count_needed(r);
    fit.gpus.push_back(std::move(r));
  }
  for (const targets::InstanceSpec& i : targets::instances())
    fit.instances.push_back(fitter.row(std::string(i.name), targets::gpu(i.gpu), i.count, &i));
  // Smallest first; ties keep the tables' order.
  auto by_size = [](const FitRow& a, const FitRow& b) { return size_of(a) < size_of(b); };
  std::stable_sort(fit.gpus.begin(), fit.gpus.end(), by_size);
  std::stable_sort(fit.instances.begin(), fit.instances.end(), by_size);
  return fit;
}

}  // namespace tpf::memory
