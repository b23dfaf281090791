// Python numbers: whether an SSA value is a Python int, float or bool on
// every path (`loss.item() * n`, `len(batch)`, `x.size(0)`, a parameter
// annotated `int`), so that arithmetic on it holds no tensor and no graph.
// Across calls of the file's functions through what they return (a tuple's
// elements one by one: `return loss, nll.item(), bsz`), also of a model
// object (its class's forward, through DataParallel-style wrappers).
// requires: compute_resolution, classify_all. produces: answers on demand.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "dataflow/torch_calls.h"

namespace tpf::dataflow {

class Objects;

/// How sure "a Python number" is. Strong: from the code itself (a literal,
/// `.item()`, `len(...)`, an `int`/`float` annotation). Weak: rests on a
/// parameter whose default is a number (a caller may still pass a tensor),
/// so it may only settle a state that is otherwise Unknown.
enum class Number : uint8_t { No, Weak, Strong };

class PythonNumbers {
 public:
  /// `objects`: the file's, for calls of model objects, or null.
  PythonNumbers(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                const Objects* objects);
  /// What v of function f is (memoized; recursion and depth cut-offs say No).
  Number of(ir::FunctionId f, ir::ValueId v) { return value(f, v, 0); }

 private:
  Number value(ir::FunctionId f, ir::ValueId v, int depth);
  /// What every return of f gives: the value (element < 0) or its tuple
  /// element `element`.
  Number returns(ir::FunctionId f, int element, int depth);
  Number param(ir::FunctionId f, const ir::Inst& p) const;
  /// What calling every object `callee` may denote returns: each must be a
  /// module of a class of the file (its forward), or a wrapper built around
  /// such objects (`nn.DataParallel(model)` runs model's forward).
  Number model_call(ir::FunctionId f, ir::ValueId callee, int element, int depth);
  Number call(ir::FunctionId f, const ir::Function& fn, const ir::Inst& in, ir::InstId id,
              int element, int depth);

  const ir::Module& m_;
  const ir::Resolution& res_;
  const CallKinds& kinds_;
  const Objects* objects_;
  ir::Symbol forward_;
  std::vector<ir::PathId> number_builtins_;  // builtins.len, int, float, bool
  ir::PathId math_;
  /// By function and value: 0 not asked, 1 in progress, else Number + 2.
  std::vector<std::vector<uint8_t>> memo_;
  std::map<std::pair<uint32_t, int>, uint8_t> returns_memo_;
};

}  // namespace tpf::dataflow
