// Grad mode at every program point: is autograd recording here? A forward
// dataflow analysis on the solver. `with torch.no_grad():` (and
// inference_mode, set_grad_enabled(False), enable_grad) set the mode at
// WithEnter and restore the saved one at WithExit; a bare
// `torch.set_grad_enabled(False)` call sets it for the rest of the path.
// requires: compute_resolution, classify_all. produces: GradModeFacts.
#pragma once

#include <vector>

#include "dataflow/lattices/grad_state.h"
#include "dataflow/solver.h"
#include "dataflow/torch_calls.h"

namespace tpf::dataflow {

struct GradModeFacts {
  std::vector<GradMode> at;  // by InstId: the mode just before the instruction
  Converged converged = Converged::Yes;
};

/// The mode a function's decorators impose on its body (@torch.no_grad(),
/// @torch.inference_mode(), @torch.enable_grad()), or Bottom when none does.
GradMode decorator_mode(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls,
                        ir::FunctionId f);

/// Solves grad mode for `f` entered in mode `entry`.
GradModeFacts compute_grad_mode(const ir::Module& m, const ir::Resolution& res,
                                const CallKinds& kinds, ir::FunctionId f, GradMode entry);

}  // namespace tpf::dataflow
