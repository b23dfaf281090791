// Facts across the modules of a project: the FileFacts of each imported
// module (computed once per run, shared by every input and -j worker) and
// what one module sees of another's functions (their effect summaries),
// so helpers defined elsewhere in the repository count as the file's own.
// Imported modules' facts are computed under one lock (they are few next
// to the inputs, whose facts stay parallel); an import cycle is cut where
// it closes: the module being computed is not yet visible to its importers.
// requires: ir::ModuleStore. produces: ProjectFacts, ProjectView, ForeignFunction.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/project.h"

namespace tpf::dataflow {

struct FileFacts;

/// A function of another project module, as a call site sees it.
struct ForeignFunction {
  uint32_t may = 0, must = 0;  ///< its summary's CallEffect bits
  uint32_t saves_to = 0;       ///< its summary's FunctionSummary::saves_to
  std::string name;            ///< "fp16_util.zero_grad" (module's last part, qualname)
  std::string file;            ///< the module's path
  uint32_t line = 0;           ///< its `def` line
  const ir::LoadedModule* module = nullptr;
  const FileFacts* facts = nullptr;  ///< the module's (complete: nothing lazy left)
  ir::FunctionId fn;
};

class ProjectFacts {
 public:
  explicit ProjectFacts(ir::ModuleStore& s);
  ~ProjectFacts();
  ir::ModuleStore& store;
  /// The facts of an imported module, computed on first use; null when it
  /// did not load, or while it is being computed (an import cycle).
  const FileFacts* facts(const ir::LoadedModule* m);

 private:
  std::recursive_mutex mu_;
  std::map<const ir::LoadedModule*, std::unique_ptr<FileFacts>> facts_;
  std::vector<const ir::LoadedModule*> computing_;
};

/// What one module's facts see of the project: its context and imports.
struct ProjectView {
  ProjectFacts* project = nullptr;
  const ir::ModuleContext* ctx = nullptr;
  const std::vector<ir::ImportEdge>* edges = nullptr;

  /// The project function a dotted IR path names ("utils.clear_grads",
  /// ".fp16_util.zero_grad", a star-imported name as "builtins.f"), with
  /// its summary; nullopt when it is no function of the project's.
  std::optional<ForeignFunction> function(std::string_view dotted) const;
  /// The project module and name a dotted path denotes (no facts needed).
  ir::ProjectName name(std::string_view dotted) const;
  /// What the module's star imports bind to libraries (`torch` from
  /// `from utils import *` where utils does `import torch`), for each global
  /// `m` loads and never binds; paths interned in m.names. Sorted by name.
  std::vector<ir::StarBinding> star_bindings(ir::Module& m) const;
};

}  // namespace tpf::dataflow
