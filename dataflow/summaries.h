// Function summaries within one file: the call graph of the file's own
// functions, what each function does (CallEffect bits on some path and on
// every path, transitively through its callees), whether it is recursive
// and what it returns (whether its result carries a graph is the grad
// provenance's FunctionGrad::returns). Recursion terminates: effects are
// solved bottom-up over the call graph's strongly connected components
// (Boost), iterating within a component.
// requires: compute_resolution, classify_all. produces: Summaries.
#pragma once

#include <span>
#include <vector>

#include "dataflow/grad_provenance.h"
#include "dataflow/project_facts.h"
#include "dataflow/torch_calls.h"

namespace tpf::dataflow {

struct CallEdge {
  ir::InstId call;
  ir::FunctionId callee;
};

/// A call of a function of another project module (ProjectView::function).
struct ForeignCallEdge {
  ir::InstId call;
  uint32_t index;  ///< into Summaries::foreign_fns
};

struct FunctionSummary {
  uint32_t may = 0;    // CallEffect bits some path performs (own calls and callees')
  uint32_t must = 0;   // bits every path from entry to a normal return performs
  bool recursive = false;
  bool called = false;              // called from elsewhere in the file
  ir::Referent returns;             // what it returns, when every return agrees
  /// Bit i: parameter i names the file or folder a `torch.save` writes (the
  /// path is built from it by joins and templates), directly or through the
  /// file's and imported helpers (`save_checkpoint(model, opt, folder)`).
  uint32_t saves_to = 0;
};

class Summaries {
 public:
  std::vector<FunctionSummary> fn;
  std::vector<std::vector<CallEdge>> calls;  // per function: its calls to the file's functions
  std::vector<std::vector<ForeignCallEdge>> foreign;  // per function: its calls into other project modules
  std::vector<ForeignFunction> foreign_fns;           // the project functions called, once each
  /// Per function: its constructions of another project module's nn.Module
  /// class (`net.Network()`), each to that class's `forward` (index into
  /// foreign_fns), so that what calling the model returns can be read there.
  std::vector<std::vector<ForeignCallEdge>> foreign_ctors;
  /// Per function: its method calls on objects built from other project
  /// modules' classes (`model.nll(x)`, `meter.add(v)`), one edge per class
  /// the receiver may be built from (`MODELS[name](...)`), sorted by call.
  std::vector<std::vector<ForeignCallEdge>> foreign_methods;
  /// Per function, sorted: its `float(t)` / `int(t)` / `bool(t)` /
  /// `round(t)` calls whose argument is a tensor by construction
  /// (tensor_expr in summaries.cpp): host reads that wait for the value,
  /// kSync at the call. The rows of those builtins carry no kSync, since
  /// `float(args.lr)` reads no device.
  std::vector<std::vector<ir::InstId>> tensor_reads;
  /// Per function, sorted: its bare `x.step(a, ...)` calls that step no
  /// optimizer (other_step in summaries.cpp: `env.step(action)`). The
  /// call keeps its row's kOptimizerStep (rules judge the call itself by
  /// objects); the function's may and must do not get it.
  std::vector<std::vector<ir::InstId>> other_steps;

  const FunctionSummary& of(ir::FunctionId f) const { return fn[f.v]; }
  /// The file function a call reaches (through call_target), or invalid.
  ir::FunctionId callee(ir::FunctionId f, ir::InstId call) const;
  /// The other project module's function a call reaches, or null.
  const ForeignFunction* foreign_callee(ir::FunctionId f, ir::InstId call) const;
  /// The `forward` of the other project module's nn.Module class that a
  /// constructor call builds, or null.
  const ForeignFunction* foreign_forward(ir::FunctionId f, ir::InstId ctor) const;
  /// The methods of other modules' classes that a method call may reach.
  std::span<const ForeignCallEdge> foreign_methods_of(ir::FunctionId f, ir::InstId call) const;
  /// The call reaches a function of the file or of another project module.
  bool reaches_project_function(ir::FunctionId f, ir::InstId call) const {
    return callee(f, call).valid() || foreign_callee(f, call) != nullptr;
  }
  /// The call is one of other_steps.
  bool steps_other(ir::FunctionId f, ir::InstId call) const;
  /// The call is one of tensor_reads.
  bool reads_tensor(ir::FunctionId f, ir::InstId call) const;
  /// Effects of one call: its torch_calls.def row plus its callee's `may`
  /// (kSync too for a tensor read, or for a method of another module's
  /// class that may read one: of those methods' effects only kSync is
  /// taken yet).
  uint32_t call_may(ir::FunctionId f, ir::InstId call, const CallKinds& kinds) const;
  /// Effects one call performs on every path: its row plus its callee's
  /// `must` (kSync: a tensor read, or a method call every one of whose
  /// other-module methods reads a device value on every path).
  uint32_t call_must(ir::FunctionId f, ir::InstId call, const CallKinds& kinds) const;
};

/// `project`: what the module sees of its project's other modules (null:
/// the file alone).
Summaries compute_summaries(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                            const ProjectView* project = nullptr);

}  // namespace tpf::dataflow
