// The memory estimate reporters: the text report (breakdown with bars,
// peak and interval, verdict, suggestions, optional per-layer table) and
// the JSON object of one script under "estimates" (issue 5's schema), and
// --fit's tables over every target (issue 22).
// requires: memory::Estimate. produces: text or JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

#include "memory/memory.h"

namespace tpf::tools {

/// {"path", "target", "params", "components": {...}, "peak_bytes",
///  "peak_low_bytes", "peak_high_bytes", "usable_bytes", "verdict",
///  "config": {"batch_size": {"value", "line"}, ...}, "suggestions": [...]}
/// Bytes are integers; unknown values are null.
nlohmann::ordered_json estimate_json(const memory::Estimate& e);

struct MemoryTextStyle {
  bool breakdown = false;  ///< add the per-layer activation table
  bool unicode = true;     ///< bars and ✓/~/✗ (else ASCII)
};

/// The human report of one estimate. Ends with a blank line.
void render_estimate(std::ostream& os, const memory::Estimate& e, const MemoryTextStyle& style);

/// "124,439,808".
/// --timeline: the simulated step, one row per op with an ASCII plot.
void render_timeline(std::ostream& os, const memory::Estimate& e);
/// --timeline=FILE.json: the same as a Chrome trace (counter events);
/// false with `error` set when the file cannot be written.
bool write_timeline_trace(const std::string& file, const memory::Estimate& e, std::string& error);

std::string with_commas(uint64_t n);
/// "float32 weights, bfloat16 autocast + GradScaler".
std::string precision_text(const memory::TrainingConfig& c);

/// [{"what", "line", "blocking"}] for the config's unknowns.
nlohmann::ordered_json unknowns_json(const memory::TrainingConfig& cfg);

/// How --fit orders the instance table: by size (GPUs x memory per GPU)
/// or by indicative price per hour.
enum class FitOrder : uint8_t { Size, Price };

/// --fit as text: the run as written, the GPU table and the instance
/// table (smallest first), and the closing lines naming the smallest GPU
/// and instance it fits on. When the run cannot be judged, what is
/// missing instead of the tables. Ends with a blank line.
void render_fit(std::ostream& os, const memory::Fit& f, FitOrder order);

/// {"path", "judged", "distributed", "unknowns": [...], "gpus": [...],
///  "instances": [...], "smallest": {...}}: --fit --format json, one per
/// script under "estimates". Bytes are integers.
nlohmann::ordered_json fit_json(const memory::Fit& f, FitOrder order);

}  // namespace tpf::tools
