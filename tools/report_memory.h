// The memory estimate reporters: the text report (breakdown with bars,
// peak and interval, verdict, suggestions, optional per-layer table) and
// the JSON object of one script under "estimates" (issue 5's schema).
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

}  // namespace tpf::tools
