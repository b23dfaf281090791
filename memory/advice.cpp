// "What would make it fit": each candidate change is a Tweak; the estimate
// is rerun with it (the interpreter is cheap), so the GiB saved and the
// peak after are the model's own numbers, not rules of thumb. Ranked by
// bytes saved. The smallest stack that fits is found greedily in rank
// order, then pruned of changes it does not need.
// Also the diagnostics TPF013 and TPF022 report from an estimate.
// requires: estimate_once (estimate.cpp). produces: Estimate::suggestions,
// smallest_stack.
#include <algorithm>

#include "memory/interp/interp.h"
#include "memory/sim/model.h"

namespace tpf::memory {

namespace {

struct Candidate {
  std::string key;
  std::string change;
  EstimateOptions opt;
};

bool is_adam(OptimizerKind k) {
  return k == OptimizerKind::Adam || k == OptimizerKind::AdamW || k == OptimizerKind::Adamax ||
         k == OptimizerKind::NAdam || k == OptimizerKind::RAdam;
}

/// Applies every tweak of `b` on top of `a`.
EstimateOptions combine(const EstimateOptions& a, const EstimateOptions& b) {
  EstimateOptions r = a;
  if (b.dtype) r.dtype = b.dtype;
  const Tweaks& t = b.tweaks;
  r.tweaks.checkpoint_blocks |= t.checkpoint_blocks;
  r.tweaks.sdpa |= t.sdpa;
  if (t.optimizer) r.tweaks.optimizer = t.optimizer;
  r.tweaks.fused_optimizer |= t.fused_optimizer;
  if (t.batch_divisor > 1) {
    r.tweaks.batch_divisor = t.batch_divisor;
    r.batch_size = b.batch_size;
  }
  if (t.sharding) {
    r.tweaks.sharding = t.sharding;
    r.tweaks.shard_world = t.shard_world;
  }
  if (t.weight_dtype) r.tweaks.weight_dtype = t.weight_dtype;
  if (t.weight_bits) r.tweaks.weight_bits = t.weight_bits;
  if (t.serve_batch_divisor > 1) r.tweaks.serve_batch_divisor = t.serve_batch_divisor;
  if (t.context_divisor > 1) r.tweaks.context_divisor = t.context_divisor;
  return r;
}

bool fits(const Estimate& e) { return e.usable_bytes > 0 && e.peak_bytes <= e.usable_bytes; }

/// An inference run's changes (memory/interp/inference.cpp applies them): 16-bit
/// or quantized weights, a smaller batch, a shorter context, SDPA.
template <class Add>
void add_inference_candidates(const Estimate& e, bool bf16, Add&& add) {
  const InferenceReport& r = *e.inference;
  if (e.config.param_dtype == Dtype::Float32) {
    if (bf16)
      add("weights_bf16", "load the weights in bf16 (`from_pretrained(..., torch_dtype=torch.bfloat16)`, "
                          "`model.to(torch.bfloat16)`)",
          [](EstimateOptions& o) { o.tweaks.weight_dtype = Dtype::BFloat16; });
    else
      add("weights_fp16", "load the weights in fp16 (`torch_dtype=torch.float16`, `model.half()`; this GPU has no bf16)",
          [](EstimateOptions& o) { o.tweaks.weight_dtype = Dtype::Float16; });
  }
  add("int8", "8-bit weights (`from_pretrained(..., quantization_config=BitsAndBytesConfig(load_in_8bit=True))`)",
      [](EstimateOptions& o) { o.tweaks.weight_bits = 8; });
  add("int4", "4-bit NF4 weights (`BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type=\"nf4\")`)",
      [](EstimateOptions& o) { o.tweaks.weight_bits = 4; });
  for (int64_t d : {2, 4})
    if (r.batch / d >= 1)
      add("batch" + std::to_string(d),
          "generate for " + std::to_string((r.batch + d - 1) / d) + " sequences at a time instead of " +
              std::to_string(r.batch),
          [d](EstimateOptions& o) { o.tweaks.serve_batch_divisor = d; });
  if (r.prompt + r.new_tokens > 1)
    add("context2",
        "a context half as long: a " + std::to_string((r.prompt + 1) / 2) + "-token prompt and " +
            std::to_string((r.new_tokens + 1) / 2) + " new tokens",
        [](EstimateOptions& o) { o.tweaks.context_divisor = 2; });
  if (e.attention_score_bytes > 0 && !e.config.sdpa)
    add("sdpa", "`F.scaled_dot_product_attention` (`attn_implementation=\"sdpa\"`) instead of the explicit "
                "softmax(QK^T) attention",
        [](EstimateOptions& o) { o.tweaks.sdpa = true; });
}

}  // namespace

void add_suggestions(const ir::Module& script, const EstimateOptions& opt, Estimate& e) {
  if (!opt.suggest || !opt.target || !e.model_found || !e.components.activations_known) return;
  // Suggestions are for runs that do not fit comfortably.
  if (e.verdict == Verdict::Fits) return;
  const TrainingConfig& cfg = e.config;
  EstimateOptions base = opt;
  base.suggest = false;
  std::vector<Candidate> cands;
  auto add = [&](std::string key, std::string change, auto&& tweak) {
    Candidate c{std::move(key), std::move(change), base};
    c.opt.tweaks = Tweaks{};
    c.opt.dtype.reset();
    tweak(c.opt);
    cands.push_back(std::move(c));
  };
  bool bf16 = opt.target->gpu->bf16;
  if (e.inference) {
    add_inference_candidates(e, bf16, add);
  } else {
    if (!cfg.autocast && !opt.dtype && cfg.param_dtype == Dtype::Float32) {
      if (bf16)
        add("bf16", "bf16 autocast: `with torch.autocast(\"cuda\", dtype=torch.bfloat16):` around the forward",
            [](EstimateOptions& o) { o.dtype = Dtype::BFloat16; });
      else
        add("fp16", "fp16 autocast with `torch.cuda.amp.GradScaler` (this GPU has no bf16)",
            [](EstimateOptions& o) { o.dtype = Dtype::Float16; });
    }
    if (!cfg.checkpointing)
      add("checkpointing", "gradient checkpointing of each block (`torch.utils.checkpoint.checkpoint`)",
          [](EstimateOptions& o) { o.tweaks.checkpoint_blocks = true; });
    if (e.attention_score_bytes > 0 && !cfg.sdpa)
      add("sdpa", "`F.scaled_dot_product_attention` instead of the explicit softmax(QK^T) attention",
          [](EstimateOptions& o) { o.tweaks.sdpa = true; });
    bool adam = std::any_of(cfg.optimizers.begin(), cfg.optimizers.end(),
                            [](const OptimizerInfo& o) { return is_adam(o.kind); });
    if (adam)
      add("adam8bit", "8-bit AdamW (`bitsandbytes.optim.AdamW8bit`)",
          [](EstimateOptions& o) { o.tweaks.optimizer = OptimizerKind::Adam8bit; });
    if (e.foreach_temp_bytes > 0 && e.components.activations == 0)
      add("fused", "fused optimizer step (`fused=True`)", [](EstimateOptions& o) { o.tweaks.fused_optimizer = true; });
    if (cfg.batch_size.known() && *cfg.batch_size.value > 1) {
      int64_t b = *cfg.batch_size.value;
      for (int64_t d : {2, 4, 8}) {
        if (b / d < 1) break;
        int64_t mb = (b + d - 1) / d;
        add("microbatch" + std::to_string(d),
            "micro-batch " + std::to_string(mb) + " with " + std::to_string(d) +
                " gradient-accumulation steps (same effective batch " + std::to_string(b) + ")",
            [&](EstimateOptions& o) {
              o.tweaks.batch_divisor = d;
              o.batch_size = mb;
            });
      }
    }
    int64_t n = opt.target->count > 1 ? opt.target->count : 8;
    if (cfg.sharding == Sharding::None || cfg.sharding == Sharding::Ddp)
      add("fsdp", "FSDP full sharding over " + std::to_string(n) + " GPUs (" +
                      (opt.target->count > 1 ? opt.target->name : std::to_string(n) + "x" + std::string(opt.target->gpu->name)) +
                      ")",
          [&](EstimateOptions& o) {
            o.tweaks.sharding = Sharding::Fsdp;
            o.tweaks.shard_world = n;
          });
  }

  std::vector<std::pair<Suggestion, EstimateOptions>> ranked, minor;
  for (Candidate& c : cands) {
    Estimate after = estimate_once(script, combine(base, c.opt));
    if (!after.model_found) continue;
    Suggestion s;
    s.key = c.key;
    s.change = c.change;
    s.saves_bytes = e.peak_bytes > after.peak_bytes ? e.peak_bytes - after.peak_bytes : 0;
    s.peak_after_bytes = after.peak_bytes;
    s.fits = fits(after);
    // Changes that save under 1% of the peak alone are not worth listing,
    // but may be what a stack needs once another change has moved the
    // peak (micro-batches after sharding has removed the optimizer state):
    // the stack search tries them last.
    if (after.peak_bytes + e.peak_bytes / 100 >= e.peak_bytes) minor.emplace_back(std::move(s), c.opt);
    else ranked.emplace_back(std::move(s), c.opt);
  }
  auto by_saving = [](auto& a, auto& b) { return a.first.saves_bytes > b.first.saves_bytes; };
  std::stable_sort(ranked.begin(), ranked.end(), by_saving);
  std::stable_sort(minor.begin(), minor.end(), by_saving);
  for (auto& [s, o] : ranked) e.suggestions.push_back(s);
  size_t listed = ranked.size();
  ranked.insert(ranked.end(), minor.begin(), minor.end());
  if (fits(e)) return;
  // Greedy: add changes in rank order (one micro-batch size at most) until
  // the peak fits, then drop any the stack does not need.
  std::vector<size_t> stack;
  EstimateOptions cur = base;
  Estimate last = e;
  bool batch_used = false;
  for (size_t k = 0; k < ranked.size() && !fits(last); ++k) {
    bool is_batch = ranked[k].first.key.starts_with("microbatch") || ranked[k].first.key.starts_with("batch");
    if (is_batch && batch_used) continue;
    EstimateOptions next = combine(cur, ranked[k].second);
    Estimate est = estimate_once(script, next);
    if (est.peak_bytes >= last.peak_bytes) continue;
    cur = next;
    last = est;
    stack.push_back(k);
    batch_used = batch_used || is_batch;
  }
  if (!fits(last)) return;
  for (size_t k = stack.size(); k-- > 0;) {
    EstimateOptions trial = base;
    for (size_t j = 0; j < stack.size(); ++j)
      if (j != k) trial = combine(trial, ranked[stack[j]].second);
    Estimate est = estimate_once(script, trial);
    if (fits(est)) {
      stack.erase(stack.begin() + static_cast<long>(k));
      last = est;
    }
  }
  for (size_t k : stack) {
    e.smallest_stack.push_back(ranked[k].first.key);
    // A minor change the stack needs is listed too, so every key of the
    // stack names a suggestion.
    if (k >= listed) e.suggestions.push_back(ranked[k].first);
  }
  e.stack_peak_bytes = last.peak_bytes;
}

namespace {

/// "the estimate rests on: a, b (line 12)" for the non-blocking unknowns.
std::optional<std::string> guesses_note(const Estimate& e) {
  std::string s;
  for (const TrainingConfig::Unknown& u : e.config.unknowns) {
    if (u.blocking) continue;
    if (!s.empty()) s += "; ";
    s += u.what;
    if (u.line) s += " (line " + std::to_string(u.line) + ")";
  }
  if (s.empty()) return std::nullopt;
  return "the estimate rests on: " + s;
}

}  // namespace

// An estimate that rests on guesses (an input made from the first layer,
// a step synthesized because none of the script's could be followed) is an
// OOM for certain only when even the low end of its interval is over the
// usable memory; the guesses are non-blocking unknowns, so the note names
// them.
bool oom_for_certain(const Estimate& e) {
  if (e.verdict != Verdict::Oom) return false;
  if (e.step_synthesized) return e.peak_low_bytes > e.usable_bytes;
  return !guesses_note(e) || e.peak_low_bytes > e.usable_bytes;
}

std::optional<Diagnostic> tight_on_target(const Estimate& e) {
  const bool tight = e.verdict == Verdict::Tight || (e.verdict == Verdict::Oom && !oom_for_certain(e));
  if (!tight) return std::nullopt;
  Diagnostic d;
  d.code = "TPF024";
  d.severity = Severity::Warning;  // TPF024's default in checks/registry.def
  d.span = e.anchor;
  const uint64_t pct = e.usable_bytes ? (e.peak_bytes * 100 + e.usable_bytes / 2) / e.usable_bytes : 0;
  const std::string interval = "(interval " + gib(e.peak_low_bytes) + " - " + gib(e.peak_high_bytes) + ")";
  if (e.verdict == Verdict::Oom) {
    d.message = "estimated peak " + gib(e.peak_bytes) + " " + interval + " exceeds the " + gib(e.usable_bytes) +
                " usable on `" + e.target + "`, but the estimate rests on guesses: the run may go out of memory";
  } else {
    d.message = "estimated peak " + gib(e.peak_bytes) + " is " + std::to_string(pct) + "% of the " +
                gib(e.usable_bytes) + " usable on `" + e.target + "` " + interval +
                ": the run may go out of memory";
  }
  if (auto g = guesses_note(e)) d.notes.push_back({e.anchor, *g});
  // The least change that leaves room: the fitting suggestion with the
  // highest peak under 90% of the usable memory, else the one saving most.
  const Suggestion* best = nullptr;
  for (const Suggestion& s : e.suggestions) {
    if (!s.fits || s.peak_after_bytes > e.usable_bytes / 10 * 9) continue;
    if (!best || s.peak_after_bytes > best->peak_after_bytes) best = &s;
  }
  if (!best && !e.suggestions.empty()) best = &e.suggestions.front();
  if (best)
    d.help = best->change + " saves " + gib(best->saves_bytes) + " (peak " + gib(best->peak_after_bytes) + ")";
  return d;
}

std::optional<Diagnostic> exceeds_target(const Estimate& e) {
  if (!oom_for_certain(e)) return std::nullopt;
  Diagnostic d;
  d.code = "TPF013";
  d.severity = Severity::Error;  // TPF013's default in checks/registry.def
  d.span = e.anchor;
  d.message = "estimated peak " + gib(e.peak_bytes) + " exceeds the " + gib(e.usable_bytes) +
              " usable on `" + e.target + "`";
  if (e.inference) {
    d.notes.push_back({e.anchor, "inference: weights " + gib(e.components.weights) + ", KV cache " +
                                     gib(e.components.kv_cache) + ", activations " + gib(e.components.activations)});
  } else {
    d.notes.push_back({e.anchor, "weights " + gib(e.components.weights) + ", gradients " +
                                     gib(e.components.gradients) + ", optimizer state " +
                                     gib(e.components.optimizer_state) + ", activations " +
                                     gib(e.components.activations) +
                                     (e.components.backward_transients
                                          ? ", backward transients " + gib(e.components.backward_transients)
                                          : std::string()) +
                                     (e.components.step_temporaries
                                          ? ", step temporaries " + gib(e.components.step_temporaries)
                                          : std::string())});
  }
  if (auto g = guesses_note(e)) {
    d.notes.push_back({e.anchor, *g + "; even the low end of the interval, " + gib(e.peak_low_bytes) +
                                     ", is over the usable memory"});
  }
  if (!e.suggestions.empty()) {
    const Suggestion& s = e.suggestions.front();
    d.help = s.change + " saves " + gib(s.saves_bytes) + " (peak " + gib(s.peak_after_bytes) + ")";
  }
  return d;
}

}  // namespace tpf::memory
