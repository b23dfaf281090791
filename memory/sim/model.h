// The memory model's entry point inside memory/ (sim/model.cpp), used by
// estimate() (estimate.cpp) and the suggestions (advice.cpp).
// requires: interp_run. produces: an Estimate without suggestions.
#pragma once

#include "memory/interp/interp.h"
#include "memory/memory.h"

namespace tpf::memory {

/// Fills `e` (components, peak, interval, verdict, breakdown, config) from
/// an interpreter that has run the script under `opt`.
void model_memory(Interp& in, const EstimateOptions& opt, Estimate& e);

/// One estimate without suggestions: interpret + model (estimate.cpp).
Estimate estimate_once(const ir::Module& script, const EstimateOptions& opt);

/// The suggestions of what would make `e` fit, each judged by another
/// estimate_once, and the smallest stack of them that fits (advice.cpp);
/// nothing when `opt` asks for none or the run fits.
void add_suggestions(const ir::Module& script, const EstimateOptions& opt, Estimate& e);

}  // namespace tpf::memory
