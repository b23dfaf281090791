// The memory model's entry point inside memory/ (model.cpp), used by
// estimate() and the suggestions (advice.cpp).
// requires: interp_run. produces: an Estimate without suggestions.
#pragma once

#include "memory/interp/interp.h"
#include "memory/memory.h"

namespace tpf::memory {

/// Fills `e` (components, peak, interval, verdict, breakdown, config) from
/// an interpreter that has run the script under `opt`.
void model_memory(Interp& in, const EstimateOptions& opt, Estimate& e);

/// One estimate without suggestions: interpret + model.
Estimate estimate_once(const ir::Module& script, const EstimateOptions& opt);

}  // namespace tpf::memory
