// The IR of a project: the module graph of the script's own repository.
// A script's imports are resolved the way Python resolves them, restricted
// to the project the script lives in (the nearest folder holding .git,
// pyproject.toml, setup.py or setup.cfg): `import a.b as c`, `from a.b
// import x`, relative imports, packages with and without __init__.py,
// src/ layouts, `from m import *`, re-exports, imports inside functions and
// try/except, and static `sys.path.insert(0, ...)` / `sys.path.append(...)`.
// Nothing is executed or imported. Modules outside the project, and the
// libraries the tool models (torch, transformers, ...), stay External paths.
//
// ModuleStore is shared by every input of a run (and its -j workers): each
// module is read, parsed and lowered once, under per-module locks, within
// bounds on modules and bytes (a named note when one is hit).
//
// Files: ir/project.h (this), ir/module_graph.cpp (project roots, search
// paths, import scanning and resolution, the --dump-facts=imports text),
// ir/module_store.cpp (loading once, the per-run bounds, lookups across
// modules).
// requires: a script path (and its parsed AST). produces: ModuleContext,
// ModuleStore, ImportEdge lists, cross-module name lookups.
#pragma once

#include <atomic>
#include <functional>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/version.h"

namespace tpf::ir {

/// Where a module sits: what Python would know about it when it runs.
struct ModuleContext {
  std::string path;      ///< the file as given or found
  std::string canonical; ///< realpath (the store's key, with `base`)
  std::string name;      ///< dotted module name ("pkg.model"); "__main__" for a script
  std::string package;   ///< package of relative imports ("pkg"; "" at top level)
  std::string package_dir;  ///< folder of `package` (the module's folder)
  std::string root;      ///< the project root ("" when no marker was found)
  std::string marker;    ///< what marked it (".git", "pyproject.toml", ...), or "no marker"
  std::vector<std::string> search;  ///< sys.path within the project, in order
  bool follow = true;    ///< false: the project is a modeled library's own tree
};

/// How one import was resolved.
enum class ImportHow : uint8_t {
  Module,       ///< a project module file (a.py)
  Package,      ///< a package (a/__init__.py)
  Namespace,    ///< a folder without __init__.py (namespace package)
  Name,         ///< `from m import x`: x is a name defined in project module m
  Library,      ///< a library the tool models (torch, transformers, ...): not followed
  External,     ///< outside the project (stdlib, installed packages): not followed
  Missing,      ///< looks like the project's own (relative, or its top folder exists) but no file
  Dynamic,      ///< importlib.import_module / __import__ with a non-constant name
  Off,          ///< following imports is turned off
};
std::string_view how_name(ImportHow h);

/// One import statement's name, as resolved.
struct ImportEdge {
  Span span;
  std::string written;   ///< "from .fp16_util import zero_grad", "import model"
  std::string target;    ///< absolute dotted name looked for ("pkg.fp16_util.zero_grad")
  ImportHow how = ImportHow::External;
  std::string file;      ///< the module file it reached (Module/Package/Name), else ""
  std::string why;       ///< Missing/Dynamic: what was not found
  bool star = false;     ///< `from m import *`
};

/// Per-run bounds; the defaults hold the largest real repositories tried.
struct ProjectOptions {
  bool follow = true;
  PyVersion python = kNewestPy;     ///< the grammar imported modules are read with
  size_t max_modules = 2000;        ///< modules loaded per run (inputs aside)
  size_t max_bytes = 256u << 20;    ///< bytes of source loaded per run
  size_t max_file_bytes = 16u << 20;  ///< a larger imported file is not loaded
  /// The text of a module file as an editor holds it (unsaved), read instead
  /// of the file; null or returning false: the file on disk. Called with the
  /// path the import resolved to. (The language server's open documents.)
  std::function<bool(const std::string& file, std::string& text)> open_text;
};

/// One imported module, loaded once: its source, AST and IR (IR points
/// into both), its context and its resolved imports. Immutable once the
/// store hands it out, except for what compute_facts interns in ir->names
/// (done once, by whoever owns the module's facts, before it is shared).
struct LoadedModule {
  ModuleContext ctx;
  /// The file's source, AST and IR: shared by every module loaded from the
  /// same file (one per importer's search path and name; they depend only
  /// on the bytes), read-only once loaded.
  std::shared_ptr<SourceFile> src;
  std::shared_ptr<ast::Module> ast;
  std::shared_ptr<Module> ir;
  /// The module's resolution, computed when it is loaded: resolving interns
  /// paths in ir->names, and once the module is published every thread may
  /// read those names (importers' summaries, the estimator), so nothing may
  /// write them after load. ProjectFacts moves it into the module's
  /// FileFacts, once, under its lock.
  mutable std::unique_ptr<Resolution> res;
  std::vector<ImportEdge> imports;
  std::string error;  ///< why it could not be loaded ("" when ir is set)
  uint32_t id = 0;    ///< position in the store (stable for the run)
};

/// The context of a script given on the command line: its folder first on
/// sys.path, its project root and search path, the package it sits in.
ModuleContext script_context(const std::string& path, bool follow);
/// Scans a parsed module for its imports and resolves each against ctx.
/// `sys.path` insertions of the module itself are added to ctx.search first.
std::vector<ImportEdge> scan_imports(const ast::Module& ast, const SourceFile& src, ModuleContext& ctx);
/// `import dotted` resolved against ctx as scan_imports resolves one: a
/// module named at run time (importlib.import_module, hydra's `_target_`).
ImportEdge resolve_module_name(const ModuleContext& ctx, const std::string& dotted);
/// The top-level name of a library the tool models (never followed).
bool is_modeled_library(std::string_view top);

/// What a dotted name used in one module denotes in the project.
struct ProjectName {
  const LoadedModule* module = nullptr;  ///< the project module it lies in
  std::string rest;   ///< the name within it ("" for the module itself); dotted for Cls.meth
  bool defined = false;  ///< rest's first part is bound at the module's top level
  bool is_module() const { return module && rest.empty(); }
};

class ModuleStore {
 public:
  explicit ModuleStore(ProjectOptions o = {}) : opt_(o) {}
  ModuleStore(const ModuleStore&) = delete;
  ModuleStore& operator=(const ModuleStore&) = delete;

  const ProjectOptions& options() const { return opt_; }
  /// The module an edge reached (loaded on first use), or null (not a
  /// project module, or it could not be loaded: then `error` says why).
  const LoadedModule* get(const ModuleContext& importer, const ImportEdge& e);
  /// What `dotted` (an IR path as written in a module of context `ctx`
  /// whose imports are `edges`: "utils.clear_grads", ".fp16_util.zero_grad",
  /// "model.GPT") denotes: a project module and a name in it, following
  /// re-exports (`from .a import f` in __init__.py) and star imports. Null
  /// module when it is not the project's.
  ProjectName lookup(const ModuleContext& ctx, const std::vector<ImportEdge>& edges, std::string_view dotted,
                     int depth = 0);
  /// The dotted path of a module outside the project ("torch",
  /// "torch.nn") that the global `name`, bound by no statement of the
  /// module, gets from the module's star imports (`from utils import *`
  /// where utils does `import torch`, through further star imports); ""
  /// when none brings it or it is the project's own.
  std::string star_external(const ModuleContext& ctx, const std::vector<ImportEdge>& edges,
                            std::string_view name, int depth = 0);
  /// A file a module runs with `exec(open(path).read())` (nanoGPT's
  /// configurator.py and the config file it names), loaded once as a module
  /// of `importer`'s name and context. Only a regular file inside the
  /// importer's project (its root, else its folder): null with `why` set
  /// otherwise, or when it cannot be loaded.
  const LoadedModule* load_exec(const ModuleContext& importer, const std::string& file, std::string& why);
  /// Notes of the run (bounds hit), in the order they happened.
  std::vector<std::string> notes() const;

 private:
  const LoadedModule* load(const ModuleContext& importer, const std::string& file, const std::string& name);
  ProjectName lookup_in(const LoadedModule* m, const std::string& rest, int depth);
  void note(std::string n);
  struct Slot {
    std::once_flag once;
    std::unique_ptr<LoadedModule> mod;
  };
  /// One file read, parsed, lowered and resolved: what every LoadedModule
  /// of that file shares (the stdlib as a project loaded os.py 19 times,
  /// once per folder of importers).
  struct Parsed {
    std::once_flag once;
    std::shared_ptr<SourceFile> src;
    std::shared_ptr<ast::Module> ast;
    std::shared_ptr<Module> ir;
    std::unique_ptr<Resolution> res;  ///< copied into each LoadedModule
    std::string error;
  };
  const Parsed& parsed(const std::string& file);
  ProjectOptions opt_;
  mutable std::mutex mu_;
  std::map<std::string, std::unique_ptr<Slot>> slots_;  ///< by canonical path + '\n' + base
  std::map<std::string, std::unique_ptr<Parsed>> parsed_;  ///< by the path as loaded
  std::atomic<size_t> modules_{0}, bytes_{0};
  std::vector<std::string> notes_;
  std::atomic<uint32_t> next_id_{0};
};

/// Appends the --dump-facts=imports text: the project, its search path and,
/// for the script and every module it reaches (breadth first), each import
/// with how it was resolved.
void dump_imports(ModuleStore& store, const ModuleContext& script, const SourceFile& script_src,
                  const std::vector<ImportEdge>& edges, std::string& out);

}  // namespace tpf::ir
