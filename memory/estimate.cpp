// estimate(): the estimator's public entry point (memory.h). Runs the
// interpreter on the script (interp/), models the step's memory from what
// it found (sim/model.cpp), then, for a run that does not fit comfortably,
// the suggestions of what would make it fit (advice.cpp).
// requires: interp_run, model_memory. produces: an Estimate.
#include "memory/interp/interp.h"
#include "memory/sim/model.h"

namespace tpf::memory {

Estimate estimate_once(const ir::Module& script, const EstimateOptions& opt) {
  Interp in(opt);
  interp_run(in, script);
  Estimate e;
  e.path = script.src ? script.src->path : std::string();
  model_memory(in, opt, e);
  return e;
}

Estimate estimate(const ir::Module& script, const EstimateOptions& opt) {
  Estimate e = estimate_once(script, opt);
  add_suggestions(script, opt, e);
  return e;
}

}  // namespace tpf::memory
