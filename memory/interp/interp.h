// The symbolic interpreter behind the estimator (internal to memory/): runs
// a training script's SSA IR abstractly, the way Python would, from the
// module top level (`__name__ == "__main__"`) through model construction,
// the DataLoader and one training step. Python values are modeled exactly
// when they are known (ints as hash-consed DimIds, so sizes derived from
// the batch size stay symbolic), tensors by shape, dtype, storage and
// autograd state, and nn layers / torch ops by what they allocate and what
// autograd saves for backward. Everything else is Unknown; nothing is guessed.
//
// The interpreter is split by topic, one file each: interp.cpp (IR
// execution, calls, attributes), py_builtins.cpp (Python builtins and
// container methods), py_stdlib.cpp (argparse, dataclasses, math, os),
// tensor_ops.cpp / tensor_shape.cpp (torch functions and Tensor methods),
// layers.cpp (nn layer constructors and forwards), training.cpp (optimizers,
// data loading, autocast, backward, checkpointing, distributed wrappers),
// zoo.cpp (torchvision / Hugging Face models from embedded definitions).
//
// requires: ir::build of the script. produces: SavedRecords, PhaseResults,
// TrainingConfig (through interp_run in memory.h's estimate()).
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "dataflow/project_facts.h"
#include "ir/ir.h"
#include "memory/config.h"
#include "memory/dims.h"
#include "memory/dtypes.h"
#include "memory/interp/inference.h"
#include "memory/memory.h"

namespace tpf::memory {

using StrId = uint32_t;
using ObjId = uint32_t;
inline constexpr uint32_t kNone32 = UINT32_MAX;
inline constexpr uint16_t kNone16 = UINT16_MAX;

enum class VKind : uint8_t { Unbound, Unknown, None, Bool, Int, Float, Str, Dtype, Ext, Obj, Ellipsis };

/// A Python value. Int: `a` is a DimId; Str and Ext (a name outside the
/// script, "torch.nn.Linear"): `a` is a StrId; Obj: `a` is an ObjId;
/// Bool: a is 0/1; Dtype: a is the Dtype; Float: `f`.
struct Value {
  VKind kind = VKind::Unknown;
  uint32_t a = 0;
  double f = 0;

  static Value unknown() { return {}; }
  static Value none() { return {VKind::None, 0, 0}; }
  static Value boolean(bool b) { return {VKind::Bool, b ? 1u : 0u, 0}; }
  static Value integer(DimId d) { return {VKind::Int, d.v, 0}; }
  static Value real(double x) { return {VKind::Float, 0, x}; }
  static Value str(StrId s) { return {VKind::Str, s, 0}; }
  static Value dtype(Dtype d) { return {VKind::Dtype, static_cast<uint32_t>(d), 0}; }
  static Value ext(StrId s) { return {VKind::Ext, s, 0}; }
  static Value obj(ObjId o) { return {VKind::Obj, o, 0}; }
  bool is(VKind k) const { return kind == k; }
  bool known() const { return kind != VKind::Unknown && kind != VKind::Unbound; }
  DimId dim() const { return DimId(a); }
};

enum class OKind : uint8_t {
  List, Tuple, Dict, Set, Tensor, Instance, Class, Function, Bound, Method,
  Iter, Range, Slice, Super, Partial, Property, Module
};

/// Ordered attribute table (insertion order = torch's registration order).
struct Attrs {
  /// In insertion order (what iteration sees). Replace the whole list with
  /// assign(), never by writing it, so the index stays true.
  std::vector<std::pair<StrId, Value>> items;
  const Value* find(StrId k) const {
    if (items.size() >= kIndexFrom) {
      const auto& ix = indexed();
      auto it = ix.find(k);
      return it == ix.end() ? nullptr : &items[it->second].second;
    }
    for (const auto& [n, v] : items)
      if (n == k) return &v;
    return nullptr;
  }
  Value* find(StrId k) { return const_cast<Value*>(std::as_const(*this).find(k)); }
  void set(StrId k, Value v) {
    if (Value* p = find(k)) {
      *p = v;
      return;
    }
    items.emplace_back(k, v);
    if (index_ && index_n_ + 1 == items.size()) {  // keep a built index current
      index_->emplace(k, static_cast<uint32_t>(items.size() - 1));
      index_n_ = items.size();
    }
  }
  void erase(StrId k) {
    for (size_t i = 0; i < items.size(); ++i)
      if (items[i].first == k) {
        items.erase(items.begin() + static_cast<long>(i));
        drop_index();
        return;
      }
  }
  void assign(std::vector<std::pair<StrId, Value>> v) {
    items = std::move(v);
    drop_index();
  }
  Attrs() = default;
  // A copy starts without an index (built again on first use); moves keep it.
  Attrs(const Attrs& o) : items(o.items) {}
  Attrs& operator=(const Attrs& o) {
    if (this != &o) {
      items = o.items;
      drop_index();
    }
    return *this;
  }
  Attrs(Attrs&&) noexcept = default;
  Attrs& operator=(Attrs&&) noexcept = default;

 private:
  /// Objects with many attributes (a ModuleList of thousands of layers) are
  /// looked up through a hash index, built on first use: a linear search
  /// per lookup made building and running such a model quadratic.
  static constexpr size_t kIndexFrom = 32;
  const std::unordered_map<StrId, uint32_t>& indexed() const {
    if (!index_ || index_n_ != items.size()) {
      if (!index_) index_ = std::make_unique<std::unordered_map<StrId, uint32_t>>();
      index_->clear();
      for (size_t i = 0; i < items.size(); ++i) index_->emplace(items[i].first, static_cast<uint32_t>(i));
      index_n_ = items.size();
    }
    return *index_;
  }
  void drop_index() {
    index_.reset();
    index_n_ = 0;
  }
  // Behind a pointer: most objects have a few attributes and never build one.
  mutable std::unique_ptr<std::unordered_map<StrId, uint32_t>> index_;
  mutable uint32_t index_n_ = 0;
};

/// What a tensor's storage is, for the saved-tensor categories of the
/// ground truth (test/memory/README.md): parameters and buffers are weight
/// memory, the batch is resident anyway, the rest are activations.
enum class Role : uint8_t { Activation, Param, Buffer, Input, AutocastCopy };

/// How bitsandbytes stores a quantized weight (transformers'
/// BitsAndBytesConfig): the tensor keeps its logical shape and its compute
/// dtype; storage_bytes() charges the packed bytes and the constants.
enum class Quant : uint8_t { None, Int8, Nf4, Nf4Double };

struct Storage {
  DimId elems;
  Dtype dtype;
  Role role;
  Quant quant = Quant::None;
  DimId rows{};  ///< Int8: output rows (one float32 scale each)
};

struct TensorObj {
  std::vector<DimId> shape;
  std::vector<uint8_t> perm;  ///< dims in memory order, outermost first; empty: contiguous
  bool dense = true;          ///< false: a strided subset or a broadcast (expand) of its storage
  bool score = false;         ///< an attention score matrix or derived from one (softmax, mask)
  Dtype dtype = Dtype::Float32;
  bool requires_grad = false;
  bool leaf = true;           ///< a parameter or a tensor created without graph
  uint32_t storage = 0;
  int32_t graph = -1;         ///< autograd graph component (union-find), -1: none
  ObjId grad = kNone32;       ///< `.grad` of a parameter (a tensor), when modeled
};

struct Frame;

/// One heap object. Which fields matter depends on `kind`:
///   List/Tuple/Set: items. Dict: items as key, value, key, value...
///   Range: items = start, stop, step. Slice: lower, upper, step.
///   Instance: cls (Class obj, or kNone32 for built-in kinds), type, layer, attrs.
///   Class: index = ClassId, module, attrs (class body), items = bases.
///   Function: index = FunctionId, module, items = defaults, closure.
///   Bound: items = self, function. Method: items[0] = self, type = method name.
///   Iter: items materialized, index = position.
///   Super: items = self, class where lookup starts (its bases are searched).
///   Partial: items = function, args...; attrs = keyword args.
///   Property: items[0] = getter function, items[1] = setter (when one is set).
///   Module: index = the Unit of a project module (`import utils`).
struct Obj {
  OKind kind;
  StrId type = kNone32;
  uint16_t module = 0;
  uint16_t layer = 0;          ///< Layer (layers.def); 0: none
  uint32_t index = 0;
  uint32_t flags = 0;
  uint32_t line = 0;           ///< Instance: the script line that constructed it
  ObjId cls = kNone32;
  std::vector<Value> items;
  Attrs attrs;
  /// A container module's count of children (modules and tensors among its
  /// attributes), valid while attrs has `child_memo_n - 1` items: appends
  /// and lookups by position stay O(1) in a ModuleList of any length.
  uint32_t child_memo_n = 0;
  uint32_t child_memo_count = 0;
  std::unique_ptr<TensorObj> t;
  std::shared_ptr<Frame> closure;
};

/// Obj::flags bits.
enum ObjFlags : uint32_t {
  kIsModule = 1 << 0,       ///< nn.Module instance (built-in layer or subclass)
  kTraining = 1 << 1,       ///< module.training
  kDataclass = 1 << 2,      ///< class decorated with @dataclass
  kNoGradFn = 1 << 3,       ///< function decorated with torch.no_grad()
  kStatic = 1 << 4,         ///< staticmethod
  kClassMethod = 1 << 5,    ///< classmethod
  kModuleClass = 1 << 6,    ///< class derives from torch.nn.Module
  kDatasetClass = 1 << 7,   ///< class derives from torch.utils.data.Dataset
  kRoot = 1 << 8,           ///< a model trained by the script (optimizer or top-level call)
  kInputSynth = 1 << 9,     ///< tensor synthesized for an unknown model input
  kCheckpointed = 1 << 10,  ///< module wrapped for activation checkpointing
  kGlobalsDict = 1 << 11,   ///< dict from globals(): index = the Unit it writes through to
  kRangeIter = 1 << 12,     ///< iterator over a range()
  kUnknownIter = 1 << 13,   ///< iterator over a value the interpreter could not read (one pass)
  kInexactLen = 1 << 14,    ///< container grown inside such a loop: its length is not the run's
  kAttrsDict = 1 << 15,     ///< an instance's __dict__: index = the instance its writes set
};

/// One tensor autograd saves for backward.
struct SavedRecord {
  uint32_t storage;
  bool score;          ///< an attention score matrix (..., T, T), T > 1
  StrId module;        ///< innermost module whose forward ran, or kNone32 (<top>)
  uint32_t phase;
  int32_t graph;       ///< component of the op output it serves
  bool dropout;        ///< saved inside dropout (a mask)
  uint32_t segment;    ///< checkpoint segment, or kNone32
};

/// One event of the training step as the interpreter ran it, in order:
/// memory/sim/timeline.cpp replays the log into live bytes over time (issue 19).
struct StepEvent {
  enum class Kind : uint8_t { Alloc, Save, Kept, Backward, Step, ZeroGrad };
  Kind kind = Kind::Alloc;
  uint32_t storage = 0;  ///< Alloc, Save, Kept: the storage; Backward: the phase; Step: the optimizer
  int32_t graph = -1;    ///< Save: the output's graph; Backward: the loss's; ZeroGrad: set_to_none (1, 0, -1 default)
  uint32_t line = 0;     ///< the script line running
  StrId module = kNone32;    ///< innermost module whose forward ran
  uint32_t segment = kNone32;  ///< Save: the checkpoint segment, or kNone32
};

/// A frame: one activation of an IR function.
struct Frame {
  uint16_t module = 0;
  ir::FunctionId fn;
  std::vector<Value> vals;
  std::shared_ptr<Frame> parent;  ///< enclosing function's frame (closures)
  ObjId self_class = kNone32;     ///< class of the method (for super())
  uint32_t backward_block = kNone32;  ///< block that (transitively) ran the first backward
  /// Block that (transitively) ran a `.backward(...)` the interpreter could
  /// not follow (loss unknown); the loop around it is left at its back edge.
  uint32_t tried_block = kNone32;
  uint32_t exit_header = kNone32;    ///< loop header whose exit edge is taken next
  uint32_t exited_header = kNone32;  ///< the last header so left
  uint32_t cur_block = 0;
  Span cur_span;
  uint32_t unknown_loops = 0;  ///< loops over unknown iterables entered and not yet left
  /// A branch on a value the interpreter does not know was taken here: the
  /// path from then on is a guess (memory/interp/interp.cpp).
  bool guessed = false;
  /// The exception being handled (a false assert's AssertionError), the
  /// line of that assert and whether it is the script's own.
  Value cur_exc;
  uint32_t exc_line = 0;
  bool exc_in_script = false;
};

/// A parsed and lowered file the interpreter runs: the user's script, or an
/// embedded definition (memory/tables/zoo/*.py).
struct Unit {
  const ir::Module* ir = nullptr;
  std::string name;                 ///< "<script>" or the zoo file's name
  bool is_user = false;
  /// A module of the script's own project (ir/project.h), run like Python
  /// imports it: `__name__` is its dotted name.
  const ir::LoadedModule* project = nullptr;
  /// What the unit sees of the project (the user's: EstimateOptions::project).
  dataflow::ProjectView view;
  std::vector<uint16_t> star_units;  ///< `from m import *` of project modules, in order
  ObjId module_obj = kNone32;        ///< its module object, once made
  std::vector<StrId> sym;           ///< ir Symbol -> interpreter StrId (lazily filled)
  std::shared_ptr<Frame> top;       ///< the module-level frame once run
  std::unordered_map<uint32_t, Value> globals_set;  ///< `global x; x = ...` (by Symbol)
  /// Each function's stores by variable (Interp::stores), made on first ask.
  struct StoreIndex {
    std::vector<uint32_t> start;  ///< [var]..[var + 1]: the var's range of refs
    std::vector<uint32_t> refs;   ///< indices into local_refs, ascending per var
  };
  std::unordered_map<uint32_t, StoreIndex> stores;  ///< by FunctionId
  /// A file run by `exec(open(path).read())`: the unit whose namespace it
  /// reads and writes (kNone16 for an ordinary module).
  uint16_t exec_into = kNone16;
  // Owned only for embedded zoo files (the user's IR belongs to the caller).
  std::unique_ptr<SourceFile> src;
  std::unique_ptr<ast::Module> ast;
  std::unique_ptr<ir::Module> own;
};

struct Interp;

/// The value of a 0-dim integer tensor the interpreter does not know, as
/// an unknown (`anchor`, one per unknown value) plus a known `offset`.
struct IndexRelation {
  uint32_t anchor = 0;
  DimId offset;
};

/// A required argparse argument the run's command line does not give.
struct MissingArg {
  std::string name;     ///< "--data", or the positional's name
  uint32_t line = 0;    ///< its add_argument
  bool positional = false;
};

/// Positional and keyword arguments of one call, with Python-style lookup.
struct Args {
  std::vector<Value> pos;
  std::vector<std::pair<StrId, Value>> kw;
  Span span;
  /// Positional `i`, else keyword `name`, else nullopt.
  std::optional<Value> get(const Interp& in, size_t i, std::string_view name) const;
  std::optional<Value> kwarg(const Interp& in, std::string_view name) const;
  size_t npos() const { return pos.size(); }
};

/// Thrown to end the interpretation (the training step is done, or the
/// budget is spent). Caught in interp_run; never crosses a stage boundary.
struct StopRun {
  enum class Why : uint8_t { StepDone, Budget } why;
};

/// Ends a generator at its first `yield` (one item is all a step needs).
/// Caught where a generator function is called (Interp::call_function);
/// a `yield` outside any function (which ast.parse accepts) ends the run.
struct YieldStop {
  Value item;
};

/// A built-in callable: a torch function, an nn layer constructor, a
/// Python builtin. For methods, pos[0] is the receiver.
using Handler = Value (*)(Interp&, Args&);

/// Hashes std::string keys and std::string_view probes alike, so a lookup
/// by a view (the usual case: a qualified name or a method name) allocates
/// nothing.
struct NameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};
using HandlerTable = std::unordered_map<std::string, Handler, NameHash, std::equal_to<>>;

/// The built-in callables by name. They are plain function pointers, the
/// same for every script, so the tables are built once per process (on
/// first use, thread-safe) and only read afterwards; building them per
/// file cost more than interpreting a typical library module.
struct Builtins {
  HandlerTable functions;       ///< by qualified name ("torch.nn.functional.relu")
  HandlerTable tensor_methods;  ///< Tensor methods by name ("view")
  /// The function's handler, or null.
  Handler function(std::string_view qualname) const {
    auto it = functions.find(qualname);
    return it == functions.end() ? nullptr : it->second;
  }
  /// The Tensor method's handler, or null.
  Handler method(std::string_view name) const {
    auto it = tensor_methods.find(name);
    return it == tensor_methods.end() ? nullptr : it->second;
  }
};

/// The process-wide tables (register_* below fill them once).
const Builtins& builtins();

/// The interpreter state of one estimate. Besides the read-only built-in
/// tables there is no global state: everything lives here and dies with it.
struct Interp {
  explicit Interp(const EstimateOptions& o) : opt(o), builtin(builtins()) {}
  const EstimateOptions& opt;

  // ---- files ----
  std::vector<std::unique_ptr<Unit>> units;  ///< 0: the user's script
  Unit& unit(uint16_t u) { return *units[u]; }
  /// The indices into `fn`'s local_refs of the stores of `var` that hold a
  /// value, in source order (a name's latest executed store is looked up
  /// on every load of it: scanning all the refs made that quadratic).
  std::span<const uint32_t> stores(uint16_t u, ir::FunctionId fn, ir::VarId var);
  /// The zoo file `name` (memory/tables/zoo/<name>.py), loaded and run on first use;
  /// with `text`, a unit of that source under that name (a zoo table row's
  /// arguments, memory/tables/zoo.cpp).
  uint16_t zoo_unit(std::string_view name, std::string_view text = {});
  /// The project module's unit, loaded and its top level run on first use;
  /// kNone16 past the per-estimate bound on project modules.
  uint16_t project_unit(const ir::LoadedModule* m);
  /// `exec(open(path).read())` in the running unit: the file (inside the
  /// project) runs in that unit's namespace, and the names it binds are
  /// that unit's globals from then on (memory/interp/py_exec.cpp).
  void exec_file(std::string_view path, Span at);
  /// Binds a module-level name of unit `u` as an exec'd file or a write to
  /// globals() does: later reads, at the top level and in functions, see
  /// `v`. A configuration name (batch_size, block_size) is a new source.
  void set_global(uint16_t u, std::string_view name, Value v, std::string_view how);
  /// globals() of unit `u`: a dict of its bound module-level names whose
  /// writes go through set_global.
  Value globals_dict(uint16_t u);
  /// The unit whose namespace the running code reads (exec'd files: the
  /// one they run in).
  uint16_t namespace_unit() const;
  uint32_t exec_runs = 0;  ///< exec'd files run (bounded)
  /// Loops over unknown iterables open on the stack: a container grown
  /// meanwhile has the length of one guessed pass, not the run's.
  uint32_t unknown_loops = 0;
  void grown(Value container) {
    if (unknown_loops && container.kind == VKind::Obj) heap[container.a].flags |= kInexactLen;
  }
  /// What `import`/`from ... import` of path `q` binds in unit `u`: a
  /// project module (object) or one of its names, else the External name.
  Value import_value(uint16_t u, std::string_view q);
  /// The module object of a project unit (made on first use).
  Value module_value(uint16_t mu);
  /// Submodule `name` of the project package unit `pkg` (its __init__.py):
  /// NAME.py or NAME/__init__.py beside it, loaded and run on first use, as
  /// Python makes `pkg.name` an attribute once any module imported it;
  /// nullopt when the package has no such file.
  std::optional<Value> package_submodule(uint16_t pkg, std::string_view name);
  /// The package `import a.b` binds as `a` in unit `u` (a/__init__.py),
  /// found from the edge of that statement; nullopt when there is none.
  std::optional<Value> package_of_import(uint16_t u, std::string_view q);
  /// A top-level name of a unit (after its top level ran), through its star
  /// imports; nullopt when it binds none.
  std::optional<Value> unit_global(uint16_t u, std::string_view name, int depth = 0);
  /// Notes each import of unit `u` by a computed name (importlib).
  void note_dynamic_imports(uint16_t u);
  /// `from <unit> import *` binds `name` (its __all__, else the public names).
  bool star_exports(uint16_t u, std::string_view name);

  // ---- strings (Python str values and qualified names) ----
  std::deque<std::string> strs;
  std::unordered_map<std::string_view, StrId> str_index;
  StrId intern(std::string_view s);
  std::string_view str(StrId s) const { return strs[s]; }
  StrId sym(uint16_t u, ir::Symbol s);

  // ---- values and objects ----
  DimArena dims;
  std::deque<Obj> heap;
  ObjId alloc(OKind k);
  Obj& o(ObjId id) { return heap[id]; }
  Obj& o(Value v) { return heap[v.a]; }
  bool is_obj(Value v, OKind k) const { return v.kind == VKind::Obj && heap[v.a].kind == k; }
  TensorObj* tensor(Value v) {
    return v.kind == VKind::Obj && heap[v.a].kind == OKind::Tensor ? heap[v.a].t.get() : nullptr;
  }
  Obj* instance(Value v) {
    return v.kind == VKind::Obj && heap[v.a].kind == OKind::Instance ? &heap[v.a] : nullptr;
  }
  bool is_module(Value v) const {
    return v.kind == VKind::Obj && (heap[v.a].flags & kIsModule) != 0;
  }
  Value int_value(int64_t x) { return Value::integer(dims.constant(x)); }
  Value str_value(std::string_view s) { return Value::str(intern(s)); }
  Value make_list(std::vector<Value> items, OKind k = OKind::List);
  Value make_dict();
  std::vector<Value>* seq(Value v);  ///< items of a list/tuple, else null
  /// Known integer value, or nullopt.
  std::optional<int64_t> as_int(Value v) const;
  std::optional<double> as_number(Value v) const;
  std::optional<std::string_view> as_str(Value v) const;
  std::optional<bool> truth(Value v);
  bool same(Value a, Value b);  ///< Python == on known scalars, identity on objects
  std::string repr(Value v);

  // ---- tensors and autograd ----
  std::vector<Storage> storages;
  std::vector<int32_t> graph_parent;  ///< union-find over graph components
  std::vector<SavedRecord> saved;
  /// Parameter storages an op with a recorded graph read, keyed with that
  /// graph (storage << 32 | graph): a backward of the graph gives them a .grad.
  std::unordered_set<uint64_t> param_uses;
  std::unordered_set<uint32_t> grad_reached;  ///< parameter storages some backward reached
  std::vector<StepEvent> step_log;  ///< the step's allocations, saves and backwards, in order
  void log_step(StepEvent::Kind kind, uint32_t storage, int32_t graph = -1, uint32_t segment = kNone32);
  std::vector<Phase> phases;
  std::vector<std::vector<SavedRecord>> phase_records;  ///< per phase, what it saved
  uint32_t phase = 0;
  bool grad_enabled = true;
  std::vector<std::optional<Dtype>> autocast;  ///< stack; back() is the active setting
  std::vector<StrId> module_path;              ///< modules whose forward is running
  int dropout_depth = 0;
  uint32_t segment = kNone32;                  ///< checkpoint segment being recorded
  std::vector<DimId> segment_bytes;            ///< per checkpoint segment: what it would save
  std::unordered_map<ObjId, StrId> module_names;  ///< qualified module names (breakdown)
  std::unordered_map<ObjId, std::string> module_classes;

  Value new_tensor(std::vector<DimId> shape, Dtype dt, Role role = Role::Activation);
  Value view_of(Value base, std::vector<DimId> shape, std::vector<uint8_t> perm);
  DimId numel(const TensorObj& t);
  DimId storage_bytes(uint32_t storage);
  int32_t find_graph(int32_t g);
  /// Autograd records a graph for an op on these inputs.
  bool needs_grad(std::initializer_list<Value> inputs);
  bool needs_grad(std::span<const Value> inputs);
  /// Marks `out` as produced by a differentiable op over `inputs`.
  void link(Value out, std::span<const Value> inputs);
  void link(Value out, std::initializer_list<Value> inputs);
  /// Records that autograd saves `t` for the backward of the op producing
  /// `out` (only when the op records a graph).
  void save(Value t, Value out);
  std::optional<Dtype> autocast_dtype() const {
    return autocast.empty() ? std::nullopt : autocast.back();
  }

  // ---- execution ----
  std::vector<Frame*> stack;
  uint64_t steps = 0;
  /// A training script's construction and one step take well under a
  /// million units; the cap stops runaway loops and runaway container work.
  static constexpr uint64_t kStepBudget = 1'000'000;
  /// Charges `n` units of work (container elements copied, scanned or
  /// created) to the same budget as IR instructions, so no single
  /// instruction does unbounded work and the whole run stays bounded.
  void charge(uint64_t n) {
    steps += n;
    if (steps > kStepBudget) throw StopRun{StopRun::Why::Budget};
  }
  bool backward_seen = false;
  uint32_t depth = 0;
  Value run(uint16_t u, ir::FunctionId f, std::vector<Value> args, std::shared_ptr<Frame> parent,
            ObjId self_class);
  Value exec(Frame& fr, const std::shared_ptr<Frame>& self, const ir::Inst& in,
             const std::vector<Value>& args);
  Value make_class(Frame& fr, const std::shared_ptr<Frame>& self, const ir::Inst& in,
                   std::span<const ir::ValueId> ops);
  /// `with mgr:` entry (enter) or exit: autocast, no_grad, enable_grad, ...
  Value enter_context(Value mgr, bool enter);
  std::unordered_map<uint64_t, ObjId> class_objs;  ///< (unit << 32 | ClassId) -> Class obj
  std::shared_ptr<Frame> last_class_frame;         ///< the class body frame run last
  /// Line of the innermost frame of the user's script (0 when none).
  uint32_t user_line() const;
  /// Span of the innermost user-script frame's current instruction.
  Span user_span() const;
  Value call(Value callee, Args& args);
  Value call_function(ObjId fn, Args& args, std::optional<Value> self);
  Value construct(ObjId cls, Args& args);
  Value getattr(Value v, StrId name);
  Value getattr(Value v, std::string_view name) { return getattr(v, intern(name)); }
  void setattr(Value obj, StrId name, Value v);
  Value getitem(Value c, Value key);
  void setitem(Value c, Value key, Value v);
  Value binop(ast::Op op, Value a, Value b, bool inplace);
  Value compare(ast::Op op, Value a, Value b);
  Value unaryop(ast::Op op, Value a);
  /// The items iterating `v` yields, or nullopt when unknown.
  std::optional<std::vector<Value>> iterate(Value v);
  /// Class attribute lookup along the bases (the MRO of single inheritance
  /// chains and the usual mixins), starting after `after` when given.
  const Value* class_lookup(ObjId cls, StrId name, ObjId after = kNone32);
  bool class_derives(ObjId cls, std::string_view ext_base);

  // ---- built-in callables ----
  const Builtins& builtin;
  Value call_external(StrId qualname, Args& args);
  Value call_method(Value self, StrId name, Args& args);

  // ---- facts for the memory model ----
  TrainingConfig cfg;
  std::vector<ObjId> roots;        ///< models trained
  std::vector<ObjId> optimizers;   ///< optimizer instances, parallel to cfg.optimizers
  /// When a root or an optimizer was made and when it died: the return of
  /// the call that made it, when nothing live reached it then (`steps` is
  /// the clock; memory/modules.cpp retire_unreachable).
  struct Life {
    uint64_t born = 0;
    uint64_t died = UINT64_MAX;
  };
  std::vector<Life> root_life;       ///< parallel to roots
  std::vector<Life> optimizer_life;  ///< parallel to optimizers
  std::string callee_hint;        ///< name the called value had (root module naming)
  Span first_backward;
  Span peak_backward;
  void note_unknown(std::string what, Span at, bool blocking);
  /// A value read from a named configuration source (argparse dest,
  /// module constant, dataclass field, config dict key): batch-size,
  /// sequence-length and image-size names become symbols (bound to the CLI
  /// override when given) and are recorded in cfg with their origin.
  Value named_source(std::string_view name, Value v, uint32_t line, std::string_view how);
  /// A configuration name rebound after its first source (an exec'd config
  /// file, `globals()[k] = v`): the new value replaces the setting, the old
  /// symbol is renamed, and the origin says what it was.
  Value override_source(std::string_view name, Value v, uint32_t line, std::string_view how);
  std::unordered_map<ObjId, ObjId> autocast_cache;  ///< param storage -> its cast (per region)
  /// Cast storage -> the enabled region (counted from 0, one per outermost
  /// `with autocast`) that made it: the cache is one region's, never the
  /// sum over every evaluation and training forward.
  std::unordered_map<uint32_t, uint32_t> autocast_copy_region;
  uint32_t autocast_region = 0;
  std::vector<int> grad_stack;                      ///< grad mode saved by `with no_grad()` etc.
  std::vector<int32_t> released;                    ///< graph components freed by a backward
  std::vector<std::vector<SavedRecord>> segment_saved;  ///< per checkpoint segment
  std::vector<DimId> phase_live;                    ///< per phase: live activation bytes (symbolic)
  std::vector<DimId> phase_own;                     ///< per phase: its own activation bytes
  std::vector<std::vector<std::pair<StrId, DimId>>> phase_modules;  ///< per phase: bytes by module
  int64_t orig_batch = -1, orig_seq = -1, orig_image = -1;  ///< defaults the symbols replaced
  /// The sequence length so far is a capacity (a model's block_size,
  /// max_seq_len): a later sequence_length that differs is what the run
  /// trains with, and takes over.
  bool seq_from_capacity = false;
  bool process_started = false;  ///< a multiprocessing.Process target has run
  /// The first parameter whose size the interpreter could not read (a
  /// layer size or an nn.Parameter shape from unknown data): the count is
  /// then a lower bound, and says so.
  uint32_t unsized_line = 0;
  std::string unsized_what;
  /// The first `assert` the run's values made false (the script stops
  /// there): the reason an unknown verdict found no model or no step.
  uint32_t failed_assert_line = 0;
  /// The assert is the script's own (else one in code that line calls).
  bool failed_assert_in_script = false;
  /// A `raise` of the script's own outside any `try:` was reached before
  /// the step (memory/interp/interp.cpp): said once, as a blocking unknown.
  bool raised = false;
  void note_unsized(std::string what) {
    if (unsized_line) return;
    unsized_line = user_line();
    unsized_what = std::move(what);
  }
  /// torch.set_default_dtype / set_default_tensor_type: the dtype of new
  /// floating tensors and parameters, and where it was set.
  Dtype default_float = Dtype::Float32;
  uint32_t default_float_line = 0;
  std::string default_float_how;
  /// The batch dimension of the last DataLoader batch drawn with gradients
  /// on, and the line that built the loader: what the training batch really
  /// is when it is not the batch-size setting (another name claimed that
  /// first). A loader drawn under `no_grad` (an evaluation) feeds no backward.
  std::optional<DimId> loader_batch;
  /// Per phase (parallel to phases): the loader batch drawn last before its
  /// backward, and that loader's line. The run's batch is the peak phase's:
  /// an evaluation loader drawn after the step (minGPT's adder scores its
  /// splits from a callback of the training loop) never reaches a backward.
  std::vector<std::pair<std::optional<DimId>, uint32_t>> phase_loader;
  std::vector<MissingArg> missing_args;  ///< required arguments argv does not give
  bool argv_read = false;                ///< a parser read EstimateOptions::argv
  /// Why no backward was followed, for a verdict that stays unknown: the
  /// first `.backward()` on a loss the interpreter could not follow, and
  /// what stopped the synthesized step.
  uint32_t unfollowed_backward_line = 0;
  std::string synth_failure;
  bool step_synthesized = false;  ///< the step estimated is synthesized_step()'s
  uint32_t synth_model = kNone32;  ///< the module object it ran
  bool stdlib_only = false;  ///< not interpreted: it imports only the standard library
  uint32_t loader_line = 0;
  /// Records one `.backward()` on `loss`: closes the phase, frees its graph.
  void backward(Value loss);
  /// Drops the saved tensors of every graph that no tensor the program can
  /// still reach belongs to (`keep`'s graph stays): Python freed it when
  /// the last such tensor died, as a loop's `logits = model(x)` rebinds
  /// the name each pass.
  void prune_dead_graphs(int32_t keep = -1);
  /// The activation bytes still saved in the graphs no backward has freed.
  uint64_t unreleased_activation_bytes();
  /// Whether a backward freed graph component `g` (a find_graph root).
  bool graph_released(int32_t g) const;
  /// A script-level `for` loop over a range with gradients on and no
  /// backward in it (a warm-up, an evaluation without no_grad), at the
  /// header after pass `iter` ran once or twice: true when the second pass
  /// left no more saved activations alive than the first (each pass frees
  /// the last one's graph) and built no module, so the rest would repeat
  /// it and the loop is left. One that keeps more (`total = total + loss`,
  /// a list of outputs) runs on: its graphs pile up as they would on the GPU.
  bool forward_loop_steady(const Frame& fr, ir::BlockId header, const ir::Inst& term, ObjId iter);
  /// Such a loop's live saved bytes and module count after its first pass.
  std::unordered_map<ObjId, std::pair<uint64_t, uint64_t>> forward_loop_bytes;
  /// Loop statement (unit << 48 | function << 24 | header block) -> whether
  /// its text calls `.backward(...)`.
  std::unordered_map<uint64_t, bool> loop_has_backward;
  void save_segment(const SavedRecord& r);
  /// 0-dim integer tensors whose value is unknown, each as an unknown index
  /// plus a known offset (memory/interp/file_arrays.cpp): `i + block_size`
  /// for `i` an element of `torch.randint(...)` is (i's anchor, block_size),
  /// so a slice `data[i : i + block_size]` has a known length. By ObjId; a
  /// tensor absent here is its own anchor, offset 0.
  std::unordered_map<ObjId, IndexRelation> index_relation;
  uint32_t next_index_anchor = 0;
  uint32_t peak_phase = 0;  ///< the phase whose backward sees the most live activations
  InferenceFacts infer;     ///< top-level forwards, generate and decode loops (inference.cpp)
};

// Registration of the built-in tables (one function per file), run once by
// builtins().
void register_builtins(Builtins& b);
void register_stdlib(Builtins& b);
void register_argparse(Builtins& b);
void register_exec(Builtins& b);
void register_cli(Builtins& b);    ///< fire, jsonargparse (py_cli.cpp)
void register_click(Builtins& b);  ///< py_click.cpp
void register_peft(Builtins& b);  ///< zoo_peft.cpp
/// A word of a command line or a config file as the number it spells: an
/// int (unless `ints` is false: then a float), a float, or nullopt (empty,
/// or not all of it a number). Shared by literal_eval, fire, click,
/// HfArgumentParser and the YAML reader (memory/interp/py_builtins.cpp).
std::optional<Value> number_word(Interp& in, const std::string& t, bool ints = true);
void register_config_files(Builtins& b);
/// A file of the analyzed project the script names (a config), or nullopt
/// with a note naming `what` when it is outside the project, missing, not a
/// regular file or over 1 MB (memory/interp/config_files.cpp).
std::optional<std::filesystem::path> project_file(Interp& in, std::string_view path, std::string_view what, Span at);
/// OmegaConf DictConfig's dict-style reads.
Value config_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);
/// The path a str or a pathlib.Path stands for (os.fspath), else nullopt.
std::optional<std::string> fspath(Interp& in, Value v);
/// `a / b` where either is a pathlib.Path and the other a path: the joined
/// Path; nullopt for any other operands.
std::optional<Value> path_div(Interp& in, Value a, Value b);
/// `__call__` of click's decorators and commands, a group's `command` /
/// `group` / `add_command`, a context's `ensure_object`
/// (memory/interp/py_click.cpp).
Value cli_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);
/// One field of a user @dataclass: its name, the scalar type its
/// annotation names ("int", "float", "bool", "str", or ""), whether it has
/// a default, and its line.
struct DataclassField {
  StrId name = kNone32;
  std::string_view type;
  std::string_view annotation;  ///< the annotation's whole text (`List[int]`), "" when none
  /// simple_parsing's `field(..., alias="-b")` / `alias=["-b", "--bs"]`: the
  /// literal strings, as written.
  std::vector<std::string> aliases;
  bool has_default = false;
  uint32_t line = 0;
};
std::vector<DataclassField> dataclass_fields(Interp& in, ObjId cls);
/// Methods of `open()`'s file objects (memory/interp/py_exec.cpp).
Value exec_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled);
/// A write to a globals() dict: rebinds the module's name (no-op for other dicts).
void globals_write(Interp& in, Value dict, Value key, Value v);
void register_tensor_ops(Builtins& b);
void register_tensor_shape(Builtins& b);
void register_tensor_views(Builtins& b);
void register_layer_ops(Builtins& b);
void register_data(Builtins& b);
void register_file_arrays(Builtins& b);  ///< file_arrays.cpp
/// Methods of np.memmap / np.fromfile / torch.load file arrays (`handled`
/// false for any other value).
Value file_array_method(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
/// A numpy element type (`np.uint16`, `"int32"`, `int`, a torch dtype), or nullopt.
std::optional<Dtype> numpy_dtype(Interp& in, Value v);
/// A 0-dim integer tensor: an index a slice bound can be.
bool is_index_tensor(Interp& in, Value v);
/// The length of a slice `lo:hi:step` over an extent `size` whose bound is
/// an index tensor: both bounds one index plus known offsets, step 1
/// (clipped to `size`); else nullopt and `why` says what is missing.
std::optional<DimId> index_window_len(Interp& in, DimId size, Value lo, Value hi, Value step,
                                      std::string& why);
/// The relation of 0-dim integer tensor `t` (made on first ask: a fresh anchor).
IndexRelation index_relation_of(Interp& in, Value t);
/// `out` is `t + delta` (tensor_binop's `+` / `-` of a 0-dim integer tensor and an int).
void relate_index(Interp& in, Value out, Value t, DimId delta);
/// `t` was changed in place by an op not modeled as an offset: a fresh anchor.
void forget_index(Interp& in, Value t);
void register_training(Builtins& b);

// Cross-file entry points.
Value call_builtin_method(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
Value call_module_method(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
Value layer_forward(Interp& in, Value module, Args& args);
/// Constructs an external class (nn layer, zoo model, optimizer, DataLoader);
/// with `self` known, initializes that instance (super().__init__ of a subclass).
Value construct_external(Interp& in, StrId qualname, Args& args, bool& handled, Value self);
/// `key in os.environ` for the variables a launcher sets (RANK, LOCAL_RANK,
/// WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT): true when the
/// run is launched on more than one GPU (--world-size, the target), false
/// for `python train.py`; nullopt for any other variable.
std::optional<bool> environ_contains(const Interp& in, std::string_view key);
/// A new instance of a modelled library type ("argparse.Namespace").
Value new_instance(Interp& in, std::string_view type);
/// The type name new_instance gave a library object ("omegaconf.DictConfig",
/// "torch.utils.data.DataLoader"), or "" for any other value (an instance
/// of a class of the script's too).
std::string_view type_of(Interp& in, Value v);
/// The words note_dynamic_imports puts after an import statement's text;
/// a run-time import that resolves rewrites that note (py_builtins.cpp).
inline constexpr std::string_view kDynamicImportNote =
    " imports a module named at run time: its definitions are not seen";
Value instance_method(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
Value instance_method_stdlib(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
Value argparse_method(Interp& in, Value self, std::string_view name, Args& args, bool& handled);
/// One field option of a simple_parsing dataclass after argparse parsed the
/// run's command line: its spec (an argparse.Action carrying `__sp_dest__`),
/// the value, whether the command line gave it, and the source text.
struct DataclassOption {
  Value spec;
  Value value;
  bool given = false;
  std::string how;
};
/// `parser.add_arguments(Config, dest="config")` of simple_parsing: one
/// argparse option per field (memory/interp/py_simple_parsing.cpp).
Value simple_parsing_add_arguments(Interp& in, Args& a);
/// Sets each dest of `fields` on the namespace to its dataclass, built from
/// the options the command line gave (the rest keep the class's defaults).
void simple_parsing_build(Interp& in, Value ns, const std::vector<DataclassOption>& fields);
void register_simple_parsing(Builtins& b);
/// Whether the tensor's elements are laid out row-major without gaps (a
/// `.view()` is possible; `reshape` and batched matmul copy otherwise).
bool is_contiguous(Interp& in, const TensorObj& t);
Value tensor_attr(Interp& in, Value t, std::string_view name, bool& handled);
/// Runs the script; fills in.cfg, in.phases, in.saved.
void interp_run(Interp& in, const ir::Module& script);

}  // namespace tpf::memory
