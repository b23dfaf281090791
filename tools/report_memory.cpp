// Renders a memory::Estimate: the text report and the JSON object (see
// tools/report_memory.h). Passes never print; this is where the estimate
// becomes output.
// requires: memory::Estimate. produces: text, JSON.
#include "tools/report_memory.h"

#include "tools/report.h"

#include <sstream>
#include <algorithm>
#include <cstdio>
#include <span>
#include <string>

namespace tpf::tools {
namespace {

using memory::Estimate;
using memory::IntSetting;
using memory::Origin;
using memory::gib;

nlohmann::ordered_json origin_json(const Origin& o) {
  return o.line ? nlohmann::ordered_json(o.line) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json setting_json(const IntSetting& s) {
  nlohmann::ordered_json j;
  j["value"] = s.value ? nlohmann::ordered_json(*s.value) : nlohmann::ordered_json(nullptr);
  j["line"] = origin_json(s.origin);
  j["source"] = s.origin.source;
  if (s.upper_bound) j["upper_bound"] = true;  // a bound of the run's value, not the value
  return j;
}

nlohmann::ordered_json value_json(nlohmann::ordered_json v, const Origin& o) {
  nlohmann::ordered_json j;
  j["value"] = std::move(v);
  j["line"] = origin_json(o);
  j["source"] = o.source;
  return j;
}

std::string gib_num(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(b) / static_cast<double>(targets::kGiB));
  return buf;
}

std::string at(const Origin& o) {
  std::string s;
  if (o.line) s = "line " + std::to_string(o.line);
  if (!o.source.empty()) s += (s.empty() ? "" : ", ") + o.source;
  return s.empty() ? "" : " (" + s + ")";
}

std::string bar(uint64_t part, uint64_t whole, int width, bool unicode) {
  if (whole == 0) return "";
  double f = static_cast<double>(part) / static_cast<double>(whole) * width;
  int full = static_cast<int>(f);
  std::string s;
  for (int k = 0; k < full; ++k) s += unicode ? "█" : "#";
  if (unicode && f - full >= 0.5 && full < width) s += "▌";
  if (s.empty() && part > 0) s = unicode ? "▏" : ".";
  return s;
}

std::string verdict_text(memory::Verdict v, bool unicode) {
  switch (v) {
    case memory::Verdict::Fits: return unicode ? "✓ fits" : "[ok] fits";
    case memory::Verdict::Tight: return unicode ? "~ tight" : "[~] tight";
    case memory::Verdict::Oom: return unicode ? "✗ OOM" : "[x] OOM";
    default: return "? unknown";
  }
}

}  // namespace

std::string precision_text(const memory::TrainingConfig& c) {
  std::string s(memory::dtype_name(c.param_dtype));
  if (c.autocast) s += " weights, " + std::string(memory::dtype_name(*c.autocast)) + " autocast";
  if (c.grad_scaler) s += " + GradScaler";
  return s;
}

std::string with_commas(uint64_t n) {
  std::string s = std::to_string(n), out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (k && (s.size() - k) % 3 == 0) out += ',';
    out += s[k];
  }
  return out;
}

nlohmann::ordered_json unknowns_json(const memory::TrainingConfig& cfg) {
  nlohmann::ordered_json unknowns = nlohmann::ordered_json::array();
  for (const auto& u : cfg.unknowns) {
    nlohmann::ordered_json uj;
    uj["what"] = u.what;
    uj["line"] = u.line ? nlohmann::ordered_json(u.line) : nlohmann::ordered_json(nullptr);
    uj["blocking"] = u.blocking;
    unknowns.push_back(std::move(uj));
  }
  return unknowns;
}

namespace {

/// An inference estimate's inputs: what it is, the sizes and the KV-cache
/// formula's factors (memory/interp/inference.cpp).
nlohmann::ordered_json inference_json(const memory::InferenceReport& r) {
  nlohmann::ordered_json j;
  j["estimate"] = "inference";
  j["kind"] = r.kind;
  j["line"] = r.line ? nlohmann::ordered_json(r.line) : nlohmann::ordered_json(nullptr);
  j["batch"] = r.batch;
  j["prompt_len"] = r.prompt >= 0 ? nlohmann::ordered_json(r.prompt) : nlohmann::ordered_json();
  j["max_new_tokens"] = r.new_tokens;
  j["max_new_tokens_from"] = r.new_tokens_from;
  j["use_cache"] = r.use_cache;
  nlohmann::ordered_json kv;
  kv["layers"] = r.layers;
  kv["kv_heads"] = r.kv_heads;
  kv["head_dim"] = r.head_dim;
  kv["sliding_window"] = r.window ? nlohmann::ordered_json(r.window) : nlohmann::ordered_json(nullptr);
  kv["dtype"] = std::string(memory::dtype_name(r.cache_dtype));
  kv["bytes"] = r.kv_cache_bytes;
  kv["formula"] = r.formula;
  j["kv_cache"] = std::move(kv);
  j["prefill_bytes"] = r.prefill_bytes;
  j["decode_step_bytes"] = r.step_bytes;
  j["peak_at"] = r.peak_at;
  return j;
}

void render_inference(std::ostream& os, const memory::InferenceReport& r) {
  os << "  inference    " << r.kind << (r.line ? " (line " + std::to_string(r.line) + ")" : std::string())
     << ": weights, KV cache and the largest op's live tensors; no gradients, no optimizer\n";
  if (r.kind == "forward") return;
  os << "  generation   batch " << r.batch << ", prompt " << (r.prompt >= 0 ? std::to_string(r.prompt) : "?") << " + " << r.new_tokens << " new tokens ("
     << r.new_tokens_from << ")" << (r.use_cache ? "" : ", use_cache=False") << "\n";
  if (!r.formula.empty())
    os << "  kv cache     " << r.formula << " = " << gib(r.kv_cache_bytes) << " at the full length\n";
  os << "  peak at      " << r.peak_at << "\n";
}

}  // namespace

nlohmann::ordered_json estimate_json(const Estimate& e) {
  nlohmann::ordered_json j;
  j["path"] = e.path;
  j["target"] = e.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.target);
  j["params"] = e.model_found && !e.overflow ? nlohmann::ordered_json(e.params) : nlohmann::ordered_json(nullptr);
  j["params_exact"] = e.model_found && e.params_exact;
  const memory::Components& c = e.components;
  nlohmann::ordered_json comp;
  auto known = [&](uint64_t v, bool k) { return k ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr); };
  comp["weights"] = known(c.weights, c.weights_known);
  comp["gradients"] = known(c.gradients, c.weights_known);
  comp["optimizer_state"] = known(c.optimizer_state, c.weights_known);
  comp["master_weights"] = known(c.master_weights, c.weights_known);
  comp["activations"] = known(c.activations, c.activations_known);
  comp["backward_transients"] = known(c.backward_transients, c.activations_known);
  comp["step_temporaries"] = known(c.step_temporaries, c.weights_known);
  comp["autocast_cache"] = known(c.autocast_cache, c.activations_known);
  if (e.inference) comp["kv_cache"] = known(c.kv_cache, c.activations_known);
  comp["cuda_context"] = c.cuda_context;
  comp["fragmentation"] = known(c.fragmentation, !e.overflow);
  j["components"] = std::move(comp);
  if (e.inference) j["inference"] = inference_json(*e.inference);
  bool all = c.weights_known && c.activations_known;
  j["peak_bytes"] = known(e.peak_bytes, all);
  j["peak_low_bytes"] = known(e.peak_low_bytes, all);
  j["peak_high_bytes"] = known(e.peak_high_bytes, all);
  // Issue 19: the simulated step's live tensors and the caching allocator's
  // segments at the peak, and where the peak falls.
  j["allocated_peak_bytes"] = known(e.allocated_peak_bytes, all);
  j["reserved_peak_bytes"] = known(e.reserved_peak_bytes, all);
  if (!e.peak_phase.empty())
    j["peak_at"] = {{"phase", e.peak_phase}, {"op", e.peak_op}, {"line", e.peak_line}};
  else j["peak_at"] = nullptr;
  j["torch_version"] = {{"version", e.torch_version}, {"from", e.torch_version_from}};
  j["usable_bytes"] = e.target.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.usable_bytes);
  j["verdict"] = std::string(memory::verdict_name(e.verdict));
  const memory::TrainingConfig& cfg = e.config;
  nlohmann::ordered_json conf;
  conf["batch_size"] = setting_json(cfg.batch_size);
  conf["seq_len"] = setting_json(cfg.seq_len);
  conf["image_size"] = setting_json(cfg.image_size);
  conf["precision"] = value_json(precision_text(cfg), cfg.autocast ? cfg.autocast_origin : cfg.param_dtype_origin);
  conf["grad_scaler"] = value_json(cfg.grad_scaler, cfg.grad_scaler_origin);
  nlohmann::ordered_json opts = nlohmann::ordered_json::array();
  for (const memory::OptimizerInfo& o : cfg.optimizers) {
    nlohmann::ordered_json oj;
    oj["kind"] = std::string(memory::optimizer_name(o.kind));
    oj["name"] = o.name;
    oj["line"] = origin_json(o.origin);
    oj["fused"] = o.fused;
    oj["foreach"] = o.foreach;
    oj["params"] = o.params;
    opts.push_back(std::move(oj));
  }
  conf["optimizers"] = std::move(opts);
  conf["gradient_checkpointing"] = value_json(cfg.checkpointing, cfg.checkpointing_origin);
  conf["compiled"] = value_json(cfg.compiled, cfg.compiled_origin);
  conf["grad_accum"] = setting_json(cfg.grad_accum);
  conf["sharding"] = value_json(std::string(memory::sharding_name(cfg.sharding)), cfg.sharding_origin);
  conf["world_size"] = setting_json(cfg.world_size);
  conf["attention"] = value_json(cfg.sdpa                                              ? "sdpa"
                                 : cfg.explicit_attention || e.attention_score_bytes ? "explicit"
                                                                                     : "none",
                                 cfg.attention_origin);
  nlohmann::ordered_json models = nlohmann::ordered_json::array();
  for (const auto& m : cfg.models) {
    nlohmann::ordered_json mj;
    mj["name"] = m.name;
    mj["class"] = m.cls;
    mj["line"] = origin_json(m.origin);
    models.push_back(std::move(mj));
  }
  conf["models"] = std::move(models);
  conf["unknowns"] = unknowns_json(cfg);
  j["config"] = std::move(conf);
  nlohmann::ordered_json sug = nlohmann::ordered_json::array();
  for (const memory::Suggestion& s : e.suggestions) {
    nlohmann::ordered_json sj;
    sj["change"] = s.change;
    sj["key"] = s.key;
    sj["saves_bytes"] = s.saves_bytes;
    sj["peak_after_bytes"] = s.peak_after_bytes;
    sj["fits"] = s.fits;
    sug.push_back(std::move(sj));
  }
  j["suggestions"] = std::move(sug);
  nlohmann::ordered_json stack = nlohmann::ordered_json::array();
  for (const std::string& k : e.smallest_stack) stack.push_back(k);
  j["smallest_stack"] = std::move(stack);
  j["smallest_stack_peak_bytes"] = e.smallest_stack.empty() ? nlohmann::ordered_json(nullptr)
                                                            : nlohmann::ordered_json(e.stack_peak_bytes);
  return j;
}

void render_estimate(std::ostream& os, const Estimate& e, const MemoryTextStyle& st) {
  const memory::TrainingConfig& cfg = e.config;
  os << "memory estimate: " << printable(e.path);
  if (!e.target.empty())
    os << " on " << e.target << " (" << e.gpu_display << ", " << gib_num(e.usable_bytes) << " GiB usable"
       << (e.gpu_count > 1 ? " per GPU, " + std::to_string(e.gpu_count) + " GPUs" : std::string()) << ")";
  os << "\n";
  if (!e.model_found) {
    os << "  no model found: the estimate is unknown\n";
  } else {
    for (const auto& m : cfg.models)
      os << "  model        " << m.name << (m.cls.empty() ? "" : " (" + m.cls + ")") << at(m.origin) << "\n";
    if (e.overflow)
      os << "  parameters   unknown (overflow: more than 2**63)\n";
    else
      os << "  parameters   " << (e.params_exact ? "" : "at least ") << with_commas(e.params) << " ("
         << with_commas(e.trainable_params) << " trainable)\n";
  }
  auto setting = [&](const char* label, const IntSetting& s) {
    if (s.known())
      os << "  " << label << (s.upper_bound ? "at most " : "") << std::to_string(*s.value) << at(s.origin) << "\n";
  };
  setting("batch size   ", cfg.batch_size);
  setting("seq len      ", cfg.seq_len);
  setting("image size   ", cfg.image_size);
  os << "  precision    " << precision_text(cfg)
     << at(cfg.autocast ? cfg.autocast_origin : cfg.param_dtype_origin) << "\n";
  // Weights converted and autocast on top: the conversion has its own line.
  if (cfg.autocast && cfg.param_dtype != memory::Dtype::Float32 && cfg.param_dtype_origin.line)
    os << "  weights      " << memory::dtype_name(cfg.param_dtype) << at(cfg.param_dtype_origin) << "\n";
  if (cfg.grad_scaler) os << "  grad scaler  on" << at(cfg.grad_scaler_origin) << "\n";
  // One optimizer per parameter made at one line (torchtune's and the
  // optimizer-in-backward recipes: `{p: AdamW([p]) for p in params}`) is one
  // line with its count.
  std::vector<std::pair<std::string, size_t>> opt_lines;
  for (const memory::OptimizerInfo& o : cfg.optimizers) {
    std::ostringstream line;
    line << memory::optimizer_name(o.kind) << (o.momentum ? " (momentum)" : "") << (o.amsgrad ? " (amsgrad)" : "")
         << (o.centered ? " (centered)" : "") << (o.fused ? " fused" : "") << (o.foreach ? " foreach" : "")
         << at(o.origin);
    if (!opt_lines.empty() && opt_lines.back().first == line.str()) ++opt_lines.back().second;
    else opt_lines.emplace_back(line.str(), 1);
  }
  for (const auto& [line, count] : opt_lines)
    os << "  optimizer    " << line << (count > 1 ? ", " + std::to_string(count) + " of them" : std::string()) << "\n";
  if (cfg.sdpa) os << "  attention    SDPA" << at(cfg.attention_origin) << "\n";
  else if (cfg.explicit_attention || e.attention_score_bytes) os << "  attention    explicit" << at(cfg.attention_origin) << "\n";
  if (cfg.checkpointing) os << "  checkpoint   on" << at(cfg.checkpointing_origin) << "\n";
  // The estimate follows eager kernels; a compiled graph's fusions usually
  // save less, so say which one this is.
  if (cfg.compiled) os << "  compile      on, estimated as eager" << at(cfg.compiled_origin) << "\n";
  setting("grad accum   ", cfg.grad_accum);
  if (cfg.sharding != memory::Sharding::None)
    os << "  parallel     " << memory::sharding_name(cfg.sharding) << at(cfg.sharding_origin) << "\n";
  setting("world size   ", cfg.world_size);
  if (e.inference) render_inference(os, *e.inference);
  if (!e.peak_phase.empty()) os << "  torch        " << e.torch_version << " (" << e.torch_version_from << ")\n";
  for (const auto& u : cfg.unknowns)
    os << "  " << (u.blocking ? "unknown      " : "note         ") << u.what
       << (u.line ? " (line " + std::to_string(u.line) + ")" : std::string()) << "\n";

  const memory::Components& c = e.components;
  struct Row {
    const char* name;
    uint64_t bytes;
    bool known;  // false: printed as unknown, as in the JSON (null)
  } rows[] = {{"weights", c.weights, c.weights_known},
              {"gradients", c.gradients, c.weights_known},
              {"optimizer state", c.optimizer_state, c.weights_known},
              {"master weights", c.master_weights, c.weights_known},
              {"activations", c.activations, c.activations_known},
              {"backward transients", c.backward_transients, c.activations_known},
              {"step temporaries", c.step_temporaries, c.weights_known},
              {"autocast cache", c.autocast_cache, c.activations_known},
              {"CUDA context", c.cuda_context, true},
              {"fragmentation", c.fragmentation, !e.overflow}};
  const Row inference_rows[] = {{"weights", c.weights, c.weights_known},
                                {"KV cache", c.kv_cache, c.activations_known},
                                {"activations", c.activations, c.activations_known},
                                {"CUDA context", c.cuda_context, true},
                                {"fragmentation", c.fragmentation, !e.overflow}};
  uint64_t total = std::max<uint64_t>(1, e.peak_bytes);
  os << "\n  component               GiB\n";
  std::span<const Row> shown = e.inference ? std::span<const Row>(inference_rows) : std::span<const Row>(rows);
  for (const Row& r : shown) {
    char line[96];
    if (!r.known) {
      std::snprintf(line, sizeof line, "  %-19s %8s\n", r.name, "unknown");
      os << line;
      continue;
    }
    std::snprintf(line, sizeof line, "  %-19s %8s  ", r.name, gib_num(r.bytes).c_str());
    os << line << bar(r.bytes, total, 30, st.unicode) << "\n";
  }
  bool known = c.weights_known && c.activations_known;
  if (!known) {
    os << "  peak                unknown\n";
  } else {
    os << "  peak                " << gib(e.peak_bytes) << "  (" << gib_num(e.peak_low_bytes) << " – "
       << gib_num(e.peak_high_bytes) << " GiB)";
    if (!e.target.empty()) {
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * static_cast<double>(e.peak_bytes) /
                                                 static_cast<double>(std::max<uint64_t>(1, e.usable_bytes)));
      os << "  " << pct << " of " << gib_num(e.usable_bytes) << " GiB";
    }
    os << "\n";
    if (!e.peak_phase.empty()) {
      os << "  allocated / reserved " << gib_num(e.allocated_peak_bytes) << " / " << gib_num(e.reserved_peak_bytes)
         << " GiB at the peak\n";
      os << "  peak at             " << e.peak_phase << ", " << e.peak_op
         << (e.peak_line ? " (line " + std::to_string(e.peak_line) + ")" : std::string()) << "\n";
    }
  }
  os << "  verdict             " << verdict_text(e.verdict, st.unicode) << "\n";
  if (!e.suggestions.empty()) {
    os << "\n  what would make it fit:\n";
    int k = 1;
    for (const memory::Suggestion& s : e.suggestions) {
      os << "  " << k++ << ". " << s.change << "\n     saves " << gib(s.saves_bytes) << ", peak "
         << gib(s.peak_after_bytes) << (s.fits ? (st.unicode ? " ✓" : " (fits)") : "") << "\n";
    }
    if (!e.smallest_stack.empty()) {
      os << "  smallest stack that fits: ";
      for (size_t i = 0; i < e.smallest_stack.size(); ++i) os << (i ? " + " : "") << e.smallest_stack[i];
      os << " -> " << gib(e.stack_peak_bytes) << "\n";
    } else if (e.verdict == memory::Verdict::Oom) {
      // Say it rather than leave the reader looking for the stack.
      os << "  no stack of these changes fits in " << gib_num(e.usable_bytes) << " GiB\n";
    }
  }
  if (st.breakdown && !e.layers.empty()) {
    os << "\n  activations by module (peak backward)\n";
    uint64_t sum = 0;
    for (const memory::LayerRow& r : e.layers) sum += r.bytes;
    // The largest rows; the rest summed in one line.
    constexpr size_t kRows = 30;
    size_t shown = 0;
    uint64_t rest = 0;
    for (const memory::LayerRow& r : e.layers) {
      if (shown++ >= kRows) {
        rest += r.bytes;
        continue;
      }
      char line[160];
      std::snprintf(line, sizeof line, "  %-40s %-22s %10.2f MiB  ", r.module.c_str(), r.cls.c_str(),
                    static_cast<double>(r.bytes) / static_cast<double>(targets::kMiB));
      os << line << bar(r.bytes, std::max<uint64_t>(1, sum), 20, st.unicode) << "  " << r.formula << "\n";
    }
    if (e.layers.size() > kRows) {
      char line[160];
      std::snprintf(line, sizeof line, "  %-40s %-22s %10.2f MiB\n",
                    ("(" + std::to_string(e.layers.size() - kRows) + " more modules)").c_str(), "",
                    static_cast<double>(rest) / static_cast<double>(targets::kMiB));
      os << line;
    }
  }
  os << "\n";
}

}  // namespace tpf::tools
