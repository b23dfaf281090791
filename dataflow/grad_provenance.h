// Autograd provenance: for every SSA value, may it carry an autograd graph
// (GradState), and the grad mode at every instruction. Interprocedural
// within the file: calls into the file's functions are analyzed with the
// caller's argument states and grad mode (memoized per context, recursion
// cut off as Unknown), and each function's own facts use the join of the
// contexts it is called with in the file (Unknown parameters when it is
// never called here or escapes as a value).
// requires: compute_resolution, classify_all. produces: GradProvenance.
#pragma once

#include <cstdint>
#include <vector>

#include "dataflow/grad_mode.h"
#include "dataflow/lattices/grad_state.h"
#include "dataflow/torch_calls.h"

namespace tpf::dataflow {

/// Facts of one function under the context it is analyzed with.
struct FunctionGrad {
  std::vector<GradState> value;  // by ValueId
  std::vector<GradMode> mode;    // by InstId: grad mode just before
  GradState returns = GradState::Bottom;
  GradMode entry = GradMode::Enabled;
  bool called = false;  // has callers in this file (its parameters come from them)
  Converged converged = Converged::Yes;
};

class GradProvenance {
 public:
  GradState state(ir::FunctionId f, ir::ValueId v) const { return fns[f.v].value[v.v]; }
  GradMode mode_at(ir::FunctionId f, ir::InstId i) const { return fns[f.v].mode[i.v]; }
  GradState returns(ir::FunctionId f) const { return fns[f.v].returns; }
  const FunctionGrad& of(ir::FunctionId f) const { return fns[f.v]; }

  std::vector<FunctionGrad> fns;
  size_t not_converged = 0;
};

class Summaries;
class Objects;
struct ForeignFunction;

/// What another project module's function returns, read in its module's
/// provenance (its own context: its parameters unknown); Unknown when its
/// facts are not there or no return is reached.
GradState foreign_returns(const ForeignFunction& ff);

/// `summaries`: the file's, for calls of other project modules' functions
/// and models' methods (their provenance, read in their module), or null.
/// `objects`: the file's, for what a call of a model object returns
/// (python_numbers.h), or null.
GradProvenance compute_grad_provenance(const ir::Module& m, const ir::Resolution& res,
                                       const TorchCalls& calls, const CallKinds& kinds,
                                       const Summaries* summaries = nullptr,
                                       const Objects* objects = nullptr);

/// Whether any value of the file can be GradState::Graph, decided without
/// the analysis: false only when nothing in the file starts a graph. A
/// graph starts only at a call whose torch_calls.def row creates one (a
/// Parameter, a factory with requires_grad=True, requires_grad_(),
/// autograd.grad(create_graph=True), a model's forward), or at a call of a
/// parameter the callers bind to a model (a value that is_model); every
/// other transfer only passes states on. Cheap: one pass over calls and
/// over the values that refer to something.
bool may_create_graph(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls,
                      const CallKinds& kinds);

}  // namespace tpf::dataflow
