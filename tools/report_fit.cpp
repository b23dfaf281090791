// Renders a memory::Fit (--fit): the run as written, a table per kind of
// target (GPUs, then cloud instances) with the verdict as written and the
// smallest change that fits, and the closing lines; or, when the run
// cannot be judged, what is missing. Text and JSON carry the same facts.
// requires: memory::Fit (memory/sim/fit.cpp). produces: text, JSON.
#include <algorithm>
#include <cstdio>
#include <string>

#include "tools/report.h"
#include "tools/report_memory.h"

namespace tpf::tools {
namespace {

using memory::Fit;
using memory::FitChange;
using memory::FitRow;
using memory::Verdict;
using memory::gib;

/// "bf16 autocast + checkpointing".
std::string change_text(const FitChange& c, int64_t batch, uint32_t world) {
  std::string s;
  for (const std::string& k : c.keys) s += (s.empty() ? "" : " + ") + memory::change_label(k, batch, world);
  return s;
}

/// The table's last column: nothing when it fits, the change and the
/// peak it gives, or why there is none.
std::string change_cell(const FitRow& r, int64_t batch) {
  if (r.verdict == Verdict::Fits) return "";
  std::string bound = r.at_seq_bound ? "over at the sequence-length bound (pass --seq-len); " : "";
  if (r.change.keys.empty()) return bound + "none of the suggestions fits";
  return bound + change_text(r.change, batch, r.count) + " (needs " + gib(r.change.peak_bytes) + ")";
}

/// The smallest row (first in `rows`) that fits as written, and the
/// smallest that fits with its change.
struct Smallest {
  const FitRow* as_written = nullptr;
  const FitRow* with_change = nullptr;
};

Smallest smallest(const std::vector<const FitRow*>& rows) {
  Smallest s;
  for (const FitRow* r : rows) {
    if (!s.as_written && r->verdict == Verdict::Fits) s.as_written = r;
    if (!s.with_change && (r->verdict == Verdict::Fits || !r->change.keys.empty())) s.with_change = r;
  }
  return s;
}

Smallest smallest(const std::vector<FitRow>& rows) {
  std::vector<const FitRow*> all;
  for (const FitRow& r : rows) all.push_back(&r);
  return smallest(all);
}

/// A distributed script: the GPU kind with the least total memory it fits
/// on as written, and the one with a change.
struct Fewest {
  const FitRow* as_written = nullptr;
  const FitRow* with_change = nullptr;
};

Fewest fewest(const std::vector<FitRow>& rows) {
  Fewest f;
  auto total = [](const FitRow& r, uint32_t n) { return uint64_t{n} * r.usable_bytes; };
  for (const FitRow& r : rows) {
    if (r.needed && (!f.as_written || total(r, r.needed) < total(*f.as_written, f.as_written->needed)))
      f.as_written = &r;
    if (r.needed_with_change &&
        (!f.with_change || total(r, r.needed_with_change) < total(*f.with_change, f.with_change->needed_with_change)))
      f.with_change = &r;
  }
  return f;
}

/// "$32.77/h (2024-09-28)", or "-" where no dated price was found.
std::string price_cell(const FitRow& r) {
  if (!r.instance || !r.instance->priced()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "$%.2f/h (%s)", r.instance->usd_per_hour, std::string(r.instance->price_date).c_str());
  return buf;
}

/// The instance rows in the order asked for: by size (as computed), or
/// by price with the unpriced ones after, by size.
std::vector<const FitRow*> ordered(const std::vector<FitRow>& rows, FitOrder order) {
  std::vector<const FitRow*> out;
  for (const FitRow& r : rows) out.push_back(&r);
  if (order == FitOrder::Price)
    std::stable_sort(out.begin(), out.end(), [](const FitRow* a, const FitRow* b) {
      const bool pa = a->instance->priced(), pb = b->instance->priced();
      if (pa != pb) return pa;
      return pa && a->instance->usd_per_hour < b->instance->usd_per_hour;
    });
  return out;
}

std::string instance_gpus(const FitRow& r) { return std::to_string(r.count) + " x " + std::string(r.gpu->name); }

nlohmann::ordered_json change_json(const FitChange& c, int64_t batch, uint32_t world) {
  if (c.keys.empty()) return nullptr;
  nlohmann::ordered_json j;
  j["keys"] = c.keys;
  j["text"] = change_text(c, batch, world);
  j["peak_bytes"] = c.peak_bytes;
  return j;
}

nlohmann::ordered_json row_json(const FitRow& r, int64_t batch, bool distributed) {
  nlohmann::ordered_json j;
  j["target"] = r.name;
  if (r.instance) {
    j["provider"] = std::string(targets::to_string(r.instance->provider));
    if (r.instance->priced()) {
      j["usd_per_hour"] = r.instance->usd_per_hour;
      j["price_date"] = std::string(r.instance->price_date);
      j["price_source"] = std::string(r.instance->price_source);
    } else {
      j["usd_per_hour"] = nullptr;
    }
  }
  j["gpu"] = std::string(r.gpu->name);
  j["gpus"] = r.count;
  j["usable_bytes_per_gpu"] = r.usable_bytes;
  j["peak_bytes"] = r.peak_bytes;
  j["verdict"] = std::string(memory::verdict_name(r.verdict));
  j["change"] = change_json(r.change, batch, r.count);
  if (distributed && !r.instance) {
    j["needed_gpus"] = r.needed ? nlohmann::ordered_json(r.needed) : nlohmann::ordered_json(nullptr);
    j["needed_gpus_with_change"] =
        r.needed_with_change ? nlohmann::ordered_json(r.needed_with_change) : nlohmann::ordered_json(nullptr);
    j["needed_change"] = change_json(r.needed_change, batch, r.needed_with_change);
  }
  return j;
}

nlohmann::ordered_json pick_json(const FitRow* r) {
  if (!r) return nullptr;
  return r->name;
}

}  // namespace

void render_fit(std::ostream& os, const Fit& f, FitOrder order) {
  const memory::Estimate& e = f.estimate;
  const memory::TrainingConfig& cfg = e.config;
  os << "fit: " << printable(e.path) << ", estimated once and judged on every GPU and cloud instance\n";
  for (const auto& m : cfg.models)
    os << "  model        " << m.name << (m.cls.empty() ? "" : " (" + m.cls + ")") << "\n";
  if (e.model_found && !e.overflow)
    os << "  parameters   " << (e.params_exact ? "" : "at least ") << with_commas(e.params) << "\n";
  if (cfg.batch_size.known()) os << "  batch size   " << *cfg.batch_size.value << "\n";
  if (cfg.seq_len.known()) os << "  seq len      " << (cfg.seq_len.upper_bound ? "at most " : "") << *cfg.seq_len.value << "\n";
  os << "  precision    " << precision_text(cfg) << "\n";
  if (f.distributed) os << "  parallel     " << memory::sharding_name(f.sharding) << ": the world size is each target's GPU count\n";
  if (!f.judged) {
    // No table of guesses: say what the estimate lacks.
    os << "  the run cannot be judged on any target:\n";
    for (const auto& u : cfg.unknowns)
      if (u.blocking) os << "  unknown      " << u.what << (u.line ? " (line " + std::to_string(u.line) + ")" : "") << "\n";
    for (const auto& u : cfg.unknowns)
      if (!u.blocking) os << "  note         " << u.what << (u.line ? " (line " + std::to_string(u.line) + ")" : "") << "\n";
    os << "\n";
    return;
  }
  const memory::Footprint& fp = e.footprint;
  if (fp.inference && e.inference) {
    const memory::InferenceReport& r = *e.inference;
    os << "  inference    " << r.kind << ": batch " << r.batch << ", prompt " << (r.prompt >= 0 ? std::to_string(r.prompt) : "?") << " + " << r.new_tokens
       << " new tokens; peak at the " << r.peak_at << "\n";
    os << "  as written   weights " << gib(fp.weights) << ", KV cache " << gib(fp.kv_cache) << ", activations "
       << gib(fp.activations) << "\n";
  } else {
    // Each term is what its name says (issue 24), as in the estimate's rows:
    // the optimizer's state alone, the saved activations with the batch and a
    // recomputed segment, and backward's first gradient buffers and the
    // step's foreach temporaries apart, when the run has them.
    os << "  as written   weights " << gib(fp.weights) << ", gradients " << gib(fp.gradients) << ", optimizer state "
       << gib(fp.optimizer_state);
    if (fp.master_weights) os << ", master weights " << gib(fp.master_weights);
    os << ", activations " << gib(fp.activations + fp.recompute + fp.batch_input);
    if (fp.transient) os << ", backward transients " << gib(fp.transient);
    if (fp.foreach_temp) os << ", step temporaries " << gib(fp.foreach_temp);
    os << (f.distributed ? " (before sharding)" : "") << "\n";
  }
  for (const auto& u : cfg.unknowns)
    if (!u.blocking) os << "  note         " << u.what << (u.line ? " (line " + std::to_string(u.line) + ")" : "") << "\n";

  char line[256];
  os << "\n  GPUs, smallest first (peak per GPU)\n";
  std::snprintf(line, sizeof line, "  %-15s %10s %10s  %-7s  %s\n", "gpu", "usable", "peak", "verdict",
                f.distributed ? "GPUs needed" : "smallest change that fits");
  os << line;
  for (const FitRow& r : f.gpus) {
    std::string last = change_cell(r, f.batch);
    if (f.distributed) {
      last = r.needed ? std::to_string(r.needed) : "over 64";
      if (r.needed_with_change && (!r.needed || r.needed_with_change < r.needed))
        last += "; " + std::to_string(r.needed_with_change) + " with " +
                change_text(r.needed_change, f.batch, r.needed_with_change) + " (needs " +
                gib(r.needed_change.peak_bytes) + ")";
    }
    std::snprintf(line, sizeof line, "  %-15s %10s %10s  %-7s  ", r.name.c_str(), gib(r.usable_bytes).c_str(),
                  gib(r.peak_bytes).c_str(), std::string(memory::verdict_name(r.verdict)).c_str());
    os << line << last << "\n";
  }
  const std::vector<const FitRow*> instances = ordered(f.instances, order);
  os << "\n  Cloud instances, " << (order == FitOrder::Price ? "cheapest first" : "smallest first")
     << " (peak per GPU; on-demand prices are indicative, as published on the date shown)\n";
  std::snprintf(line, sizeof line, "  %-27s %-6s %-18s %10s %10s  %-7s  %-21s  %s\n", "instance", "cloud", "GPUs",
                "usable", "peak", "verdict", "price", "smallest change that fits");
  os << line;
  for (const FitRow* r : instances) {
    std::snprintf(line, sizeof line, "  %-27s %-6s %-18s %10s %10s  %-7s  %-21s  ", r->name.c_str(),
                  std::string(targets::to_string(r->instance->provider)).c_str(), instance_gpus(*r).c_str(),
                  gib(r->usable_bytes).c_str(), gib(r->peak_bytes).c_str(),
                  std::string(memory::verdict_name(r->verdict)).c_str(), price_cell(*r).c_str());
    os << line << change_cell(*r, f.batch) << "\n";
  }
  os << "  (- : no dated public price found; targets/instances.def cites each price's source)\n\n";
  if (f.distributed) {
    Fewest k = fewest(f.gpus);
    std::string sh(memory::sharding_name(f.sharding));
    os << "  fewest GPUs: ";
    if (k.as_written) os << "fits on " << k.as_written->needed << "x " << k.as_written->name << " with " << sh;
    else os << "fits on no count up to 64 of one GPU kind with " << sh << " as written";
    const FitRow* c = k.as_written && k.as_written->needed_with_change ? k.as_written : k.with_change;
    if (c && c->needed_with_change && (!k.as_written || c->needed_with_change < k.as_written->needed))
      os << "; " << c->needed_with_change << "x" << (c == k.as_written ? "" : " " + c->name) << " with " << sh << " + "
         << change_text(c->needed_change, f.batch, c->needed_with_change);
    os << "\n";
  }
  auto closing = [&](const char* what, const std::vector<const FitRow*>& rows, bool instance) {
    Smallest s = smallest(rows);
    auto name = [&](const FitRow& r) {
      std::string price = instance && order == FitOrder::Price ? ", " + price_cell(r) : std::string();
      return r.name + " (" + (instance ? instance_gpus(r) + ", " : std::string()) + gib(r.usable_bytes) + price + ")";
    };
    os << "  " << (instance && order == FitOrder::Price ? "cheapest " : "smallest ") << what << " that fits: ";
    if (s.as_written) os << name(*s.as_written) << " as written";
    else os << "none as written";
    if (s.with_change && s.with_change != s.as_written)
      os << "; " << name(*s.with_change) << " with " << change_text(s.with_change->change, f.batch, s.with_change->count)
         << " (needs " << gib(s.with_change->change.peak_bytes) << ")";
    else if (!s.with_change)
      os << "; none with the suggestions";
    os << "\n";
  };
  std::vector<const FitRow*> gpus;
  for (const FitRow& r : f.gpus) gpus.push_back(&r);
  closing("GPU", gpus, false);
  closing("instance", instances, true);
  os << "\n";
}

nlohmann::ordered_json fit_json(const Fit& f, FitOrder order) {
  const memory::Estimate& e = f.estimate;
  nlohmann::ordered_json j;
  j["path"] = e.path;
  j["fit"] = true;
  j["judged"] = f.judged;
  j["distributed"] = f.distributed;
  j["sharding"] = std::string(memory::sharding_name(f.sharding));
  j["params"] = e.model_found && !e.overflow ? nlohmann::ordered_json(e.params) : nlohmann::ordered_json(nullptr);
  j["batch_size"] = f.batch ? nlohmann::ordered_json(f.batch) : nlohmann::ordered_json(nullptr);
  j["precision"] = precision_text(e.config);
  if (e.inference) {
    j["estimate"] = "inference";
    j["kv_cache_bytes"] = e.footprint.kv_cache;
  }
  j["unknowns"] = unknowns_json(e.config);
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array(), instances = nlohmann::ordered_json::array();
  for (const FitRow& r : f.gpus) gpus.push_back(row_json(r, f.batch, f.distributed));
  const std::vector<const FitRow*> by_order = ordered(f.instances, order);
  for (const FitRow* r : by_order) instances.push_back(row_json(*r, f.batch, f.distributed));
  j["gpus"] = std::move(gpus);
  j["instances"] = std::move(instances);
  j["instance_order"] = order == FitOrder::Price ? "price" : "size";
  j["prices"] = "indicative on-demand USD per hour, dated; see targets/instances.def for each source";
  nlohmann::ordered_json sm;
  Smallest g = smallest(f.gpus), i = smallest(by_order);
  sm["gpu"] = pick_json(g.as_written);
  sm["gpu_with_change"] = pick_json(g.with_change);
  sm["instance"] = pick_json(i.as_written);
  sm["instance_with_change"] = pick_json(i.with_change);
  if (f.distributed) {
    Fewest k = fewest(f.gpus);
    sm["fewest_gpus"] = k.as_written ? nlohmann::ordered_json({{"gpu", k.as_written->name}, {"count", k.as_written->needed}})
                                     : nlohmann::ordered_json(nullptr);
    sm["fewest_gpus_with_change"] =
        k.with_change ? nlohmann::ordered_json({{"gpu", k.with_change->name}, {"count", k.with_change->needed_with_change}})
                      : nlohmann::ordered_json(nullptr);
  }
  j["smallest"] = std::move(sm);
  return j;
}

}  // namespace tpf::tools
