// The questions rules ask of the IR and the dataflow facts, in one place, so
// rules stay short and the raw IR walking that changes with ir/ and
// dataflow/ is kept here: what a call does (its effects, through the file's
// own functions), its receiver and source text, a stable key for the object
// a value names ("self.model"), which instructions are reachable from a
// point without passing a "kill", and where a value was produced (through
// views, tuple returns and the file's own forward methods).
// requires: CheckContext (ir::build, dataflow::compute_facts). produces: queries only.
#pragma once

#include <bitset>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "checks/check.h"

namespace tpf::checks {

// ----------------------------------------------------------- call index ----

/// torch_calls.def rows, TorchCall::None included.
inline constexpr size_t kTorchCallRows = 1
#define TPF_TORCH_CALL(name, match, pattern, grad, effects, mode) +1
#include "dataflow/torch_calls.def"
#undef TPF_TORCH_CALL
    ;

/// What one function's calls may do, as far as rules ask before walking
/// it. Every rule's finding needs certain calls in the function it reports
/// in (a backward and a step in a loop, a `.item()` in a training loop, a
/// scheduler step); a rule tests these bits first and skips the function,
/// without asking for its loops or dominators and without its
/// per-instruction queries, when they are missing.
struct FunctionCalls {
  /// OR over its calls of call_effects | call_effects_must: every bit a
  /// call_effects / call_effects_must query on any instruction of the
  /// function can return (0 for non-calls).
  uint32_t effects = 0;
  /// OR over its calls of their own row's effects (no callees): every bit
  /// `dataflow::info(torch_call(...)).effects` can have here.
  uint32_t row_effects = 0;
  /// Some call without a row (TorchCall::None) calls an instance of one of
  /// the file's nn.Module classes (call_target InstanceCall, a module
  /// class): a forward pass the table does not name.
  bool module_instance_call = false;
  /// Some call without a row has an Unknown or ResultCall target: a callee
  /// the file does not resolve (a parameter, a call's result).
  bool unresolved_call = false;
  /// The torch_calls.def rows (torch_call) of its calls.
  std::bitset<kTorchCallRows> rows;

  bool has(dataflow::TorchCall k) const { return rows[static_cast<size_t>(k)]; }
  bool may(uint32_t bits) const { return (effects & bits) != 0; }
};

/// One pass over a file's calls whose result every rule consults: per
/// function, what its calls may do; per call, the qualified name it targets
/// (what call_target_name returns, kept so rules scanning every call do not
/// resolve each again). Built on first use, kept in the CheckContext.
struct CallIndex {
  std::vector<FunctionCalls> fns;
  FunctionCalls file;  // the union over every function
  /// The distinct paths calls of the file target, sorted, and their text.
  std::vector<ir::PathId> names;
  std::vector<std::string_view> texts;
  /// targets[first[f] + i]: 1 + the index in `names` of call_target_name's
  /// path for instruction i of function f, or 0 (not an External or
  /// ResultCall call; 0 so the table starts zeroed).
  std::vector<uint32_t> first;
  std::vector<uint32_t> targets;

  const FunctionCalls& of(ir::FunctionId f) const { return fns[f.v]; }
};

/// Builds the index (the first query of a file does).
std::shared_ptr<const CallIndex> build_call_index(const CheckContext& ctx);
inline const CallIndex& call_index(const CheckContext& ctx) {
  if (!ctx.call_index_cache) ctx.call_index_cache = build_call_index(ctx);
  return *ctx.call_index_cache;
}
inline const FunctionCalls& function_calls(const CheckContext& ctx, ir::FunctionId f) {
  return call_index(ctx).of(f);
}
/// What the grad provenance says of a function's values: some value is
/// Graph / some value is neither NoGraph nor Bottom. Computes the file's
/// provenance (the costliest fact): ask after the cheap gates.
struct GraphStates {
  bool any_graph = false;
  bool any_carrier = false;
};
GraphStates graph_states(const CheckContext& ctx, ir::FunctionId f);
/// Some call of the file targets a name (call_target_name) `pred` accepts.
bool file_calls_any(const CheckContext& ctx, const std::function<bool(std::string_view)>& pred);
/// Some call may run a backward: a Backward or AutogradBackward row, or a
/// call whose effects (its row's, its callee's) include kBackward.
bool may_backward(const FunctionCalls& fc);
/// Some call may step an optimizer: an OptimizerStep, ScalerStep or
/// ScalerStepAmp row, or a call whose effects include kOptimizerStep.
bool may_step(const FunctionCalls& fc);

// ---------------------------------------------------------------- calls ----

/// The torch_calls.def row of a Call (TorchCall::None for other instructions).
dataflow::TorchCall torch_call(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);

/// CallEffect bits a call may perform: its own row's plus, for calls into
/// the file's functions, everything the callee may do (summaries). 0 for
/// non-calls.
uint32_t call_effects(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);
/// The bits every path through the call performs.
uint32_t call_effects_must(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);

/// The call reaches one of the file's functions (or a local module's forward).
bool calls_file_function(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);

/// `recv` in `recv.name(...)`, or kNoValue when the callee is no attribute.
ir::ValueId call_receiver(const ir::Function& f, const ir::Inst& call);
/// `name` in `recv.name(...)`, or "".
std::string_view call_method(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call);
/// The qualified name an External or ResultCall target names
/// ("torch.nn.functional.softmax", "torch.nn.Linear"), or "".
std::string_view call_target_name(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);
/// Positional arguments of a call (starred ones included).
uint32_t positional_count(const ir::Function& f, const ir::Inst& call);

/// The value passed as positional `pos` or keyword `kw`, or kNoValue.
ir::ValueId call_arg(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call, int pos,
                     std::string_view kw);
/// The value names the host: a "cpu" string, or `torch.device("cpu")`
/// (`torch.device("cpu", 0)`); false when it is unknown.
bool host_device(const CheckContext& ctx, ir::FunctionId f, ir::ValueId dev);

// ------------------------------------------------------- source text ----

std::string_view source_text(const CheckContext& ctx, Span s);
/// How a message names a call: the callee's source text plus "()"
/// (`loss.backward()`, `scaler.scale(loss).backward()`), shortened to one
/// line.
std::string call_text(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call);
/// The source text of a value's defining expression, one line, shortened.
std::string value_text(const CheckContext& ctx, const ir::Function& f, ir::ValueId v);

// ------------------------------------------------------------ objects ----

/// A stable name for the object a value denotes, for telling objects apart
/// across SSA values: "model", "self.model", "self.model.module"; "" when
/// the value has no such name (a call result used inline, a subscript).
std::string access_key(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v);
/// Keys `a` and `b` name the same object or one contains the other
/// ("model" and "model.module").
bool same_object(std::string_view a, std::string_view b);

// ------------------------------------------------------------- paths ----

/// What a path search does at an instruction.
enum class PathStep : uint8_t {
  Pass,    // go on
  Kill,    // the path ends here (checked first)
  Target,  // record it and go on
};

/// Every instruction `visit` calls Target, reachable from just after
/// `from` along normal control flow without passing an instruction it
/// calls Kill; `from` itself is reached again only around a loop. Exception
/// edges are not followed: a defect only on an exceptional path is not
/// worth a finding. Result in layout order.
std::vector<ir::InstId> reachable(const ir::Function& f, ir::InstId from,
                                  const std::function<PathStep(ir::InstId, const ir::Inst&)>& visit);

/// reachable, kept to the blocks of one loop of `f` (`from` lies in it):
/// a path that leaves the loop ends there, one that takes its back edge
/// goes around into the next iteration.
std::vector<ir::InstId> reachable_in_loop(const CheckContext& ctx, ir::FunctionId f, uint32_t loop,
                                          ir::InstId from,
                                          const std::function<PathStep(ir::InstId, const ir::Inst&)>& visit);

/// A branch's test of a flag: the access key of the value tested (through
/// `not`, `is None`, `is not None`) and the arm (0: the true successor, 1:
/// the false one) taken when the flag is set (truthy, not None). An empty
/// key: the block ends in no such test (a call, arithmetic, a loop item).
struct FlagTest {
  std::string key;
  int set_arm = 0;
};
FlagTest flag_test(const CheckContext& ctx, ir::FunctionId f, ir::BlockId b);
/// A flag instruction `i` runs under: the test's key, and whether `i` runs
/// when the flag is set.
struct FlagGuard {
  std::string key;
  bool when_set = true;
};
/// The flag tests deciding whether `i` runs: branches dominating it with an
/// arm that has no other predecessor and dominates `i` (`if self.scaler:`
/// around `self.scaler.scale(loss).backward()`).
std::vector<FlagGuard> flag_guards(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);
/// The edge `from` -> `to` leaves a second test of a guarded flag the way
/// the guard rules out (`if self.scaler:` again, to its false side): a run
/// that passed the guards takes the other edge there. Flags are taken not to
/// change between the two tests (a mode fixed for the run: `self.scaler`,
/// `args.amp`).
bool guards_rule_out(const CheckContext& ctx, ir::FunctionId f, const std::vector<FlagGuard>& guards,
                     ir::BlockId from, ir::BlockId to);
/// reachable from `from` along the paths consistent with the flag tests
/// that guard it (flag_guards, guards_rule_out): after `if self.scaler:
/// scaled_backward()`, a later `if self.scaler:` takes its true side.
std::vector<ir::InstId> reachable_under(const CheckContext& ctx, ir::FunctionId f, ir::InstId from,
                                        const std::function<PathStep(ir::InstId, const ir::Inst&)>& visit);

/// The natural loops of a function (computed on first use, kept).
const ir::LoopInfo& loops_of(const CheckContext& ctx, ir::FunctionId f);
/// The innermost natural loop containing both instructions, or UINT32_MAX.
uint32_t common_loop(const CheckContext& ctx, ir::FunctionId f, ir::InstId a, ir::InstId b);
/// The loop runs over a literal list, tuple or set of at most
/// kFewConstants constants written in place (`for phase in ["train",
/// "val"]:`, `for split in ("val", "test"):`): a loop over phases or modes
/// around the batch loop, not a batch loop, and not the epoch loop either.
bool over_constants(const CheckContext& ctx, ir::FunctionId f, uint32_t loop);
/// The loop around `loop` that is no loop over constants (over_constants
/// ones are skipped: the epoch loop around a phase loop is still the epoch
/// loop), or UINT32_MAX.
uint32_t enclosing_data_loop(const CheckContext& ctx, ir::FunctionId f, uint32_t loop);
/// Instructions of a loop's blocks, in layout order.
std::vector<ir::InstId> loop_insts(const CheckContext& ctx, ir::FunctionId f, uint32_t loop);
/// Value `v` is the same in every iteration of `loop`: defined before the
/// loop, or computed in it from such values and constants by attribute
/// reads, comparisons and arithmetic (`args.amp`, `step % k == 0` in a loop
/// nested in the one over `step`).
bool loop_invariant(const CheckContext& ctx, ir::FunctionId f, uint32_t loop, ir::ValueId v);

// ----------------------------------------------------------- origins ----

/// A value somewhere in the file: the function and the SSA value.
struct Origin {
  ir::FunctionId fn;
  ir::ValueId value;
};

/// Where a value was produced. Followed: phis (every operand), views and
/// casts that keep the values (`.view`, `.reshape`, `.squeeze`, `.float()`,
/// `.to()`, slicing `x[:, -1]`), tuple elements (`a, b = f()`, `out[0]`),
/// and calls into the file's functions and local modules' `forward` (every
/// return). Leaves are the producing values; `complete` is false when the
/// search was cut (depth or size), so rules that need "every path" stay
/// silent then.
struct Origins {
  std::vector<Origin> leaves;
  bool complete = true;
};
Origins trace_origins(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v);

/// The constructor call of the module a callee names (`criterion` in
/// `criterion(out, y)`): a call here, a module global, `self.m` assigned
/// once in the class, or what a helper of the file returns. `ctor.value`
/// is the constructor call's result. False when not known.
bool module_constructor(const CheckContext& ctx, ir::FunctionId f, ir::ValueId callee, Origin& ctor);

/// The loss call sums over the batch instead of averaging: it passes
/// `reduction="sum"` (or the legacy `size_average=False`), or its criterion
/// was built so (`criterion = nn.BCELoss(reduction="sum").cuda()`, found
/// by module_constructor). Sub-batch sums then add up to the batch's sum.
bool sum_reduction(const CheckContext& ctx, ir::FunctionId f, ir::InstId call);

/// What kind of producer a leaf is, as far as output activations go.
enum class Producer : uint8_t {
  Unknown,
  Softmax,     // F.softmax, torch.softmax, x.softmax(), nn.Softmax()(x)
  LogSoftmax,  // F.log_softmax, x.log_softmax(), nn.LogSoftmax()(x)
  Sigmoid,     // torch.sigmoid, F.sigmoid, x.sigmoid(), nn.Sigmoid()(x)
  Affine,      // unbounded scores: nn.Linear/Conv*/Bilinear, F.linear, matmul, `@`
};

/// Classifies a leaf; also looks inside `nn.Sequential(..., last)` for the
/// module called. `site` is set to the span to point at: the activation
/// call, or the `nn.Softmax(...)` inside a Sequential.
Producer producer_kind(const CheckContext& ctx, const Origin& o, Span* site = nullptr);

/// The `forward` of another project module's nn.Module class that every
/// object the callee value may denote was built from (dataflow's
/// Summaries::foreign_forward at each object's constructor call), or null.
const dataflow::ForeignFunction* foreign_forward(const CheckContext& ctx, ir::FunctionId f,
                                                 ir::ValueId callee);
/// The foreign function's module, as a rule sees a file.
CheckContext foreign_context(const dataflow::ForeignFunction& ff);
/// What calling such a model produces (a leaf `model(x)` or
/// `model.forward(x)` whose class is another module's): its forward's
/// producer on every return path, read in that module; Unknown otherwise.
/// `where` gets the forward and the activation's place,
/// "`network.Network.forward` (network.py:42)".
Producer foreign_model_output(const CheckContext& ctx, const Origin& o, std::string* where = nullptr);

// -------------------------------------------------------------- losses ----

enum class LossKind : uint8_t { None, CrossEntropy, Nll, Bce, BceWithLogits, Other };

/// The loss a call computes: F.cross_entropy(...), or calling an
/// nn.CrossEntropyLoss() instance (wherever it is stored), ...
LossKind loss_kind(const CheckContext& ctx, ir::FunctionId f, ir::InstId call);
/// The loss a call targeting `name` (call_target_name) computes by its name
/// alone: CrossEntropy, Nll, Bce, BceWithLogits or None. loss_kind gives
/// one of the four exactly when this does.
LossKind named_loss_kind(std::string_view name);
/// The loss call's input (positional 0 or `input=`), or kNoValue.
ir::ValueId loss_input(const CheckContext& ctx, ir::FunctionId f, ir::InstId call);
/// "CrossEntropyLoss", "F.cross_entropy", ... as the source wrote the callee.
std::string loss_name(const CheckContext& ctx, ir::FunctionId f, ir::InstId call);


// ---------------------------------------------------- training scripts ----

/// The call builds a `torch.utils.data.DataLoader`.
bool is_dataloader(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);
/// The qualified name (call_target_name) is the DataLoader class.
bool is_dataloader_name(std::string_view name);
/// The call unpacks `*args` or `**kwargs`: an argument not written out may
/// be among them.
bool has_unpacked_args(const ir::Function& f, const ir::Inst& call);
/// A loop over the loader value (directly or through enumerate / tqdm /
/// zip) backwards or steps, or the loader is handed to a function of the
/// file that does.
bool trained_on(const CheckContext& ctx, ir::FunctionId f, ir::ValueId loader);
/// The file runs a training step (`backward()` or `optimizer.step()`,
/// directly) inside a loop: a training script, not library code.
bool trains_in_loop(const CheckContext& ctx);
/// The file puts work on a CUDA device: `.cuda()`, a "cuda..." string
/// passed to a call (`torch.device("cuda")`, `.to("cuda:0")`), or
/// `torch.cuda.is_available()`.
bool uses_cuda(const CheckContext& ctx);
/// The loop of `f` around instruction `i` that is outermost, or UINT32_MAX.
uint32_t outermost_loop(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);

// ------------------------------------------------- programs and names ----

/// The file is run as a program, not imported as a library: it tests
/// `__name__ == "__main__"` at module level, calls `parse_args()`,
/// backwards in a loop at module level, or calls there a function of the
/// file that may backward (`train()` on the script's last line).
bool is_program(const CheckContext& ctx);
/// The file belongs to a test suite and is not run as a program: it sits
/// in a `tests` / `test` folder or is named `test_*.py` / `*_test.py` /
/// `*_tests.py` / `conftest.py`, and is_program() is false. Its training
/// loops compare runs on purpose (the same seeded data on every rank
/// against a control run).
bool test_suite_file(const CheckContext& ctx);
/// The file is code of another array framework, not PyTorch: it imports
/// MXNet, JAX (flax, optax), TensorFlow or Keras and nothing of torch or
/// the libraries built on it. Their `backward` / `Trainer.step` follow other
/// rules (MXNet's default `grad_req='write'` overwrites gradients).
bool other_framework(const CheckContext& ctx);
/// The file may use torch: it imports torch or a library built on it
/// (Lightning, transformers, ...), star-imports a module, or calls a
/// function of a project module that does. A numpy-and-gym script does not.
bool uses_torch(const CheckContext& ctx);
/// The calls of `f` that take `v` as an argument (positional or keyword,
/// not as the callee or a method's receiver), in layout order.
std::vector<ir::InstId> calls_taking(const ir::Function& f, ir::ValueId v);
/// The value escapes the function other than as a call argument: stored
/// in an attribute, subscript or container, returned or yielded (a nested
/// function's use through a free variable is not seen).
bool escapes_by_store(const ir::Function& f, ir::ValueId v);
/// The identifier's words (split at `_` and lowercase-uppercase
/// boundaries, lowercased) include one of `words`: "val_loader" and
/// "valLoader" have "val".
bool name_has_word(std::string_view name, std::initializer_list<std::string_view> words);

/// The last part of v's access_key (`self.lr_scheduler` -> `lr_scheduler`)
/// has one of `words` (name_has_word); false for a value with no key.
bool key_names(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v,
               std::initializer_list<std::string_view> words);
/// The local variable name a value was stored into, or "".
std::string_view value_var_name(const CheckContext& ctx, const ir::Function& f, ir::ValueId v);

// ------------------------------------------------------ tensors, uses ----

/// The value's receiver chain reads `.grad` (`p.grad.zero_()`,
/// `p.grad.data.copy_(g)`): the code writes gradients by hand.
bool touches_grad(const CheckContext& ctx, const ir::Function& f, ir::ValueId v);

/// The value is a torch.Tensor on every path, as far as the file shows:
/// every origin (trace_origins) is a tensor factory (`torch.randn`,
/// `torch.tensor`, `torch.from_numpy`, `torch.stack`, ...), the output of a
/// torch.nn / torchvision / timm module, or an item of a loop over a
/// `torch.utils.data.DataLoader` built in the file with the default collate
/// function (`for x, y in loader`, `batch["input_ids"]`). False when any
/// origin is unknown (a parameter, a helper's result, a module of the file):
/// rules that need "is a tensor, not an nn.Module" stay silent then.
bool is_tensor(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v);

/// The whole that `v` is a part of: back through tuple elements, unpacking
/// and subscripts (`x, y = batch`, `batch["input_ids"]`), and through
/// calls of the `through` methods on their receiver (`batch[0].to(device)`,
/// `val_loss.item()`), at most `max_steps` steps. `starred`: a starred
/// element (`first, *rest = batch`) was on the way, whose parts are not
/// known one by one.
struct PartOf {
  ir::ValueId whole;
  int steps = 0;
  bool starred = false;
};
PartOf whole_of(const CheckContext& ctx, const ir::Function& f, ir::ValueId v,
                std::initializer_list<std::string_view> through, int max_steps);

/// `v` is a part of a batch a DataLoader of this file yields, not moved
/// since: the loop item, its tuple elements and subscripts, and the items
/// of loops over those (`for label in target`). A DataLoader's batches are
/// host tensors (collated in the workers, pinned at most), so copying them
/// to the host is no device sync.
bool loader_host_value(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v);

/// A `.step(...)` with arguments on an object not known to be an optimizer
/// (`envs.step(action)`, a sampler's `scheduler.step(noise, t, x)`), or on
/// an instance of a file class with outside bases none of which is an
/// optimizer (a `gym.Wrapper` whose step calls `super().step(action)`): an
/// environment or a sampler, no training step. Optimizers take at most a
/// closure, and their object is known (objects, or a `torch.optim` result).
bool steps_other_object(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);
/// `opt.step()` of a torch.optim optimizer built in this function over a
/// list of tensors the script made itself (`optim.SGD([delta])` for an
/// adversarial perturbation, a latent being inverted): it steps no model.
bool steps_free_tensors(const CheckContext& ctx, ir::FunctionId f, ir::InstId i);

/// `v` is an optimizer: a `torch.optim` result, or an object the analysis
/// knows as an optimizer or a training engine (DeepSpeed).
bool optimizer_value(const CheckContext& ctx, ir::FunctionId f, ir::ValueId v);

/// The value the `for` loop whose body starts with NextItem `item` iterates,
/// through `enumerate(...)`, `tqdm(...)`, `iter(...)`, `zip(a, ...)` (first
/// argument), or kNoValue.
ir::ValueId loop_iterable(const CheckContext& ctx, ir::FunctionId f, ir::ValueId item);

/// The values of function `f` that use `v` as an operand (computed per call).
std::vector<ir::InstId> users_of(const ir::Function& f, ir::ValueId v);
/// Some instruction of `f` uses `v` as an operand: !users_of(f, v).empty(),
/// stopping at the first.
bool has_users(const ir::Function& f, ir::ValueId v);

/// Visits every call in the file of the file's function `callee`:
/// fn(caller id, caller, call, target) for each, bound method calls
/// included (target.bound says so). Stops at the first call fn returns false
/// for and returns false; true when every call was visited.
template <class Fn>
bool each_call_of(const CheckContext& ctx, ir::FunctionId callee, Fn&& fn) {
  for (uint32_t gi = 0; gi < ctx.ir.functions.size(); ++gi) {
    ir::FunctionId gid(gi);
    const ir::Function& g = ctx.ir.fn(gid);
    for (uint32_t i = 0; i < g.insts.size(); ++i) {
      if (g.insts[i].op != ir::Op::Call) continue;
      ir::CallTarget t = ctx.facts.res.call_target(gid, ir::InstId(i));
      if (t.kind != ir::CallTarget::Kind::Function || t.fn != callee) continue;
      if (!fn(gid, g, g.insts[i], t)) return false;
    }
  }
  return true;
}

}  // namespace tpf::checks
