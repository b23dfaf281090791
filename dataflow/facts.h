// FileFacts: every fact the rules and the memory estimator read, computed
// once per file in a fixed order, plus the queries they ask of them (is
// this point in a loop, under no_grad, inside which `with`; does a
// container outlive the loop iteration; which SSA value a name denotes at a
// source offset). Also the --dump-facts=NAME text.
// requires: ir::build. produces: FileFacts.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dataflow/grad_provenance.h"
#include "dataflow/objects.h"
#include "dataflow/summaries.h"
#include "dataflow/torch_calls.h"
#include "ir/cfg.h"
#include "ir/resolve.h"

namespace tpf::dataflow {

struct FileFacts {
  ir::Resolution res;
  TorchCalls calls;
  CallKinds kinds;           // kinds[f][inst]: the torch_calls.def row of each call
  Summaries summaries;

  TorchCall call_kind(ir::FunctionId f, ir::InstId i) const { return kinds[f.v][i.v]; }
  /// Autograd provenance and grad modes, computed on first use: the costliest
  /// fact, and the rules ask for it only in files with torch calls worth
  /// checking (a library module without a training step never does).
  const GradProvenance& grad() const;
  GradState grad_state(ir::FunctionId f, ir::ValueId v) const { return grad().state(f, v); }
  GradMode grad_mode(ir::FunctionId f, ir::InstId i) const { return grad().mode_at(f, i); }
  /// Some value of the file may carry a graph (may_create_graph; cheap, kept).
  bool may_create_graph() const;
  /// Functions whose provenance hit the solver budget (computes it).
  size_t not_converged() const { return grad().not_converged; }

  /// Abstract objects by allocation site (objects.h), computed on first use.
  const Objects& objects() const;

  /// Dominators, post-dominators and natural loops of a function, computed
  /// on first use (most functions of a file are never asked) and kept.
  const ir::DomTree& dom(const ir::Module& m, ir::FunctionId f) const;
  const ir::DomTree& postdom(const ir::Module& m, ir::FunctionId f) const;
  const ir::LoopInfo& loops(const ir::Module& m, ir::FunctionId f) const;

 private:
  friend FileFacts compute_facts(ir::Module& m, const ProjectView* project, ir::Resolution* res);
  friend class ProjectFacts;
  /// Held while an on-demand fact is computed or looked up, when set: an
  /// imported module's facts (ProjectFacts) are asked from every thread.
  /// Recursive: loops() asks dom().
  std::unique_lock<std::recursive_mutex> lock() const {
    return lazy_mu_ ? std::unique_lock<std::recursive_mutex>(*lazy_mu_) : std::unique_lock<std::recursive_mutex>();
  }
  mutable std::unique_ptr<std::recursive_mutex> lazy_mu_;
  const ir::Module* m_ = nullptr;  // the IR these facts are about (it outlives them)
  mutable std::optional<GradProvenance> grad_;
  mutable std::optional<bool> may_create_graph_;
  mutable std::unique_ptr<const Objects> objects_;
  // One pointer per function until asked (a file of 300,000 functions kept
  // 65 MB of empty optionals once any one of them was).
  mutable std::vector<std::unique_ptr<const ir::DomTree>> dom_, postdom_;
  mutable std::vector<std::unique_ptr<const ir::LoopInfo>> loops_;
};

/// Resolution, call classification and summaries, in that order (grad mode
/// and provenance, dominators and loops on demand). Interns paths in m.names (resolution).
/// `project`: the module's view of its project (null: the file alone).
/// `res`: the module's resolution when already computed (an imported
/// module's, made when it was loaded: LoadedModule::res), moved in.
FileFacts compute_facts(ir::Module& m, const ProjectView* project = nullptr,
                        ir::Resolution* res = nullptr);

// ---- queries ----

/// The instruction is inside a loop of its function (natural loop).
bool in_loop(const FileFacts& ff, const ir::Module& m, ir::FunctionId fid, ir::InstId i);
/// Autograd is off here (torch.no_grad / inference_mode / set_grad_enabled(False),
/// including a decorator or every in-file caller running it so).
inline bool under_no_grad(const FileFacts& ff, ir::FunctionId f, ir::InstId i) {
  return ff.grad_mode(f, i) == GradMode::Disabled;
}
/// The lexical `with` regions around an instruction, innermost first
/// (Function::withs indices; withs[r].mgr is the manager value).
std::vector<uint32_t> with_regions_at(const ir::Function& f, ir::InstId i);
/// The innermost loop containing `use` that the container value was created
/// outside of — so what is stored in it at `use` survives that loop's
/// iteration — or UINT32_MAX (the container is created fresh each iteration,
/// or `use` is in no loop). Follows phis: a container re-created each
/// iteration (`hist = []` inside the loop) does not outlive it.
uint32_t outlived_loop(const FileFacts& ff, const ir::Module& m, ir::FunctionId fid,
                       ir::ValueId container, ir::InstId use);
/// The SSA value the local name `name` denotes at source `offset` (a load
/// or store of that name starting there), or kNoValue.
ir::ValueId value_at(const ir::Module& m, const ir::Function& f, std::string_view name,
                     uint32_t offset);

// ---- dumps ----

/// Fact sets --dump-facts accepts: grad, calls, summaries, loops, resolve, all.
bool is_fact_name(std::string_view name);
/// Appends the text of fact set `name` for every function.
void dump_facts(const ir::Module& m, const FileFacts& ff, std::string_view name, std::string& out);

}  // namespace tpf::dataflow
