// Classification of calls by dataflow/torch_calls.def: which row (if any)
// a Call instruction matches, with the row's grad rule, effects and
// grad-mode action. Rules ask `classify(...) == TorchCall::Backward`.
// requires: ir::compute_resolution (paths of the file interned). produces: TorchCall per call.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/ir.h"
#include "ir/resolve.h"

namespace tpf::dataflow {

/// What a call does that rules and summaries track. Bits, OR-ed in summaries.
enum CallEffect : uint32_t {
  kBackward = 1 << 0,       // loss.backward(), torch.autograd.backward/grad
  kZeroGrad = 1 << 1,       // optimizer.zero_grad() / model.zero_grad() (any set_to_none)
  kOptimizerStep = 1 << 2,  // optimizer.step(), scaler.step(optimizer)
  kSchedulerStep = 1 << 3,  // lr_scheduler.step()
  kSync = 1 << 4,           // host read of a value, which waits for it: .item(), .tolist(), float(t) of a tensor
                            // (Summaries::tensor_reads); torch.cuda.synchronize reads nothing
  kToDevice = 1 << 5,       // .to(...), .cuda()
  kToHost = 1 << 6,         // .cpu()
  kEval = 1 << 7,           // module.eval()
  kTrain = 1 << 8,          // module.train()
  kForward = 1 << 9,        // a model's forward pass
  kLoss = 1 << 10,          // a loss function or loss module
  kPrint = 1 << 11,         // print(...)
  kSeed = 1 << 12,          // torch/numpy/random seeding
  kFillsGrad = 1 << 13,     // adds into parameters' .grad (backward; not torch.autograd.grad)
};
/// "backward|zero_grad" for dumps.
std::string effect_names(uint32_t bits);

enum class TorchCall : uint8_t {
  None,
#define TPF_TORCH_CALL(name, match, pattern, grad, effects, mode) name,
#include "dataflow/torch_calls.def"
#undef TPF_TORCH_CALL
};

enum class CallMatch : uint8_t { Name, Prefix, Method, ResultOf, ResultSuffix, LocalModule };
enum class GradRule : uint8_t {
  NoGraph, Graph, Unknown, Propagate, Receiver, RequiresGradKw, RequiresGradArg, CreateGraphKw, Model,
};
enum class ModeAction : uint8_t { Keep, Disable, Enable, Inference, SetEnabled };

struct TorchCallInfo {
  std::string_view name;
  CallMatch match;
  std::string_view pattern;
  GradRule grad;
  uint32_t effects;
  ModeAction mode;
};
const TorchCallInfo& info(TorchCall c);
/// Two callee rows for one value (phi operands, callers of one function):
/// equal rows stay, two kinds of model are still a model, else None.
TorchCall merge_callee_rows(TorchCall a, TorchCall b);

/// The table bound to one file's names (patterns the file never mentions
/// cannot match and are dropped).
class TorchCalls {
 public:
  TorchCalls() = default;
  explicit TorchCalls(const ir::Module& m);

  /// The first row matching the Call `call` of function `f`; None if no row
  /// does (calls to the file's own functions, unknown callees).
  TorchCall classify(const ir::Module& m, const ir::Resolution& res, ir::FunctionId f,
                     ir::InstId call) const;
  /// The row that calling a value with this referent matches (ResultOf /
  /// ResultSuffix / LocalModule rows), or None.
  TorchCall classify_callee(const ir::Module& m, const ir::Resolution& res,
                            const ir::Referent& callee) const;
  /// The Name/Prefix row a qualified name matches (as if it were called).
  TorchCall classify_name(const ir::Module& m, ir::PathId name) const;
  /// The row calling value `v` of function `f` matches: classify_callee of
  /// its referent, merged over a phi's operands (`model = Net()` then
  /// `if ddp: model = DDP(model)` is still a model).
  TorchCall classify_value(const ir::Module& m, const ir::Resolution& res, ir::FunctionId f,
                           ir::ValueId v, int depth = 0) const;
  /// Calling the value is a forward pass (its row's grad rule is Model).
  bool is_model(const ir::Module& m, const ir::Resolution& res, const ir::Referent& r) const {
    TorchCall c = classify_callee(m, res, r);
    return c != TorchCall::None && info(c).grad == GradRule::Model;
  }

 private:
  struct MethodRow {
    uint8_t row;
    ir::PathId receiver_prefix;  // kNoPath: any receiver
  };
  std::unordered_map<uint32_t, uint8_t> by_name_;             // PathId -> first row
  std::vector<std::pair<ir::PathId, uint8_t>> prefixes_;       // in row order
  std::unordered_map<ir::Symbol, std::vector<MethodRow>> by_method_;
  std::vector<std::pair<ir::PathId, uint8_t>> result_of_;      // in row order
  std::vector<uint8_t> result_suffix_;                         // rows
  uint8_t local_module_ = 0;
};

}  // namespace tpf::dataflow

namespace tpf::dataflow {

/// A boolean argument of a call: positional `pos` or keyword `kw`.
enum class BoolArg : uint8_t { Absent, False, True, Unknown };
BoolArg bool_arg(const ir::Module& m, const ir::Resolution& res, ir::FunctionId f,
                 const ir::Inst& call, int pos, std::string_view kw);
/// `v` is an `nn.Parameter` by resolution: an attribute the module's code
/// sets to one (`self.means` where `__init__` did `self.means = nn.Parameter(...)`).
bool is_parameter(const ir::Module& m, const ir::Resolution& res, ir::FunctionId f, ir::ValueId v);
/// The value passed as positional `pos` or keyword `kw`, or kNoValue.
ir::ValueId call_arg(const ir::Module& m, const ir::Function& f, const ir::Inst& call, int pos,
                     std::string_view kw);

/// Which parameter of `callee` (the file's function that target `t` of
/// `call` reaches: Function, Constructor or InstanceCall) receives each
/// argument: `bind(p, v)` for parameter 0 when it is the receiver of a
/// bound method or the called instance (`v` = kNoValue: a constructor's
/// new object), then each positional argument up to the first `*args`, and
/// each keyword that names a parameter (`**kw` binds nothing).
template <class Bind>
void bind_call_args(const ir::Function& f, const ir::Inst& call, const ir::CallTarget& t,
                    const ir::Function& callee, Bind&& bind) {
  auto ops = f.operands(call);
  size_t first = 0;
  // A method with no parameter at all (`@staticmethod def sizes():` called
  // as `self.sizes()`) has no slot for the receiver: bind nothing there.
  if (callee.params.empty()) {
  } else if (t.kind == ir::CallTarget::Kind::InstanceCall) {
    bind(size_t(0), ops[0]);
    first = 1;
  } else if (t.kind == ir::CallTarget::Kind::Constructor) {
    bind(size_t(0), ir::kNoValue);
    first = 1;
  } else if (t.bound) {
    bind(size_t(0), t.receiver);
    first = 1;
  }
  const ir::CallInfo& ci = f.call_info(call);
  for (uint32_t i = 0; i < ci.npos; ++i) {
    if (i < 32 && ((ci.star_mask >> i) & 1)) break;  // *args: the rest is unknown
    size_t p = first + i;
    if (p < callee.params.size() && (callee.params[p].kind == ir::ParamKind::PosOnly ||
                                     callee.params[p].kind == ir::ParamKind::Normal))
      bind(p, ops[1 + i]);
  }
  for (uint32_t i = 0; i < ci.nkw; ++i) {
    ir::Symbol kw = f.kw_names[ci.kw_first + i];
    if (kw == ir::kNoSymbol) continue;
    for (size_t p = 0; p < callee.params.size(); ++p)
      if (callee.params[p].name == kw && callee.params[p].kind != ir::ParamKind::VarArgs &&
          callee.params[p].kind != ir::ParamKind::KwArgs) {
        bind(p, ops[1 + ci.npos + i]);
        break;
      }
  }
}

/// Classification of every call of every function: kinds[f][inst] (None for
/// non-calls).
using CallKinds = std::vector<std::vector<TorchCall>>;
CallKinds classify_all(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls);

}  // namespace tpf::dataflow
