// TPF016 tensor_move_discarded
//
// What it finds: `x.to(device)`, `x.cuda()`, `x.cpu()`, `x.half()`,
//   `x.float()`, `x.double()` or `x.bfloat16()` as a statement of its own,
//   its result discarded, where `x` is a tensor (decided by dataflow: a
//   batch of a DataLoader, a torch factory, the output of a torch.nn,
//   torchvision or timm module) and `x` is used again afterwards.
// Why it costs: for a tensor these methods return a new tensor and leave
//   `x` as it was (PyTorch 2.x, Tensor.to docs: "returns a Tensor"); only
//   nn.Module.to/cuda/half move or cast in place. The code that follows
//   runs on the old device or dtype: a device-mismatch error hours into a
//   job, a silent CPU run, or fp32 where fp16 was intended.
// Example:
//     for x, y in loader:
//         x.to(device)
//         out = model(x)
// Fix: assign the result: `x = x.to(device)`.
// Not flagged: modules (`model.to(device)`, `self.cuda()`, layers, the
//   file's nn.Module classes); anything whose origin is not known to be a
//   tensor (a parameter, a helper's result, a custom collate_fn's batch, a
//   transformers BatchEncoding, whose `.to` moves in place); a tensor never
//   used again (`torch.zeros(1).cuda()` to initialize CUDA, `out.cpu()` as
//   a sync point in a benchmark), and a cast to the dtype the tensor is
//   known to have already (`x = torch.zeros(n, dtype=torch.float32)` then
//   `x.float()` or `x.to(torch.float32)`: the discarded result equals `x`;
//   a dtype only the dataflow cannot see stays flagged, as after an
//   interpolate in fp32 cast back with `.to(orig_dtype)`).
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::tensor_move_discarded {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF016);

const std::string_view kExplain =
    R"(TPF016 tensor_move_discarded: a tensor's `.to()`, `.cuda()` or cast is discarded

What it finds
  `x.to(device)`, `x.cuda()`, `x.cpu()`, `x.half()`, `x.float()`,
  `x.double()` or `x.bfloat16()` written as a statement, its result thrown
  away, where `x` is a tensor (a DataLoader batch, a torch factory's
  result, a module's output) that is used again afterwards.

Why it costs
  Unlike `nn.Module.to()`, which moves a module's parameters in place,
  `Tensor.to()` and the casts return a new tensor and leave `x` unchanged.
  The code after it still sees the old device or dtype: the job fails with
  a device-mismatch error after the setup time is paid, trains on the CPU
  while the GPU idles, or computes in fp32 where fp16 or bf16 was meant.

Example
  for x, y in loader:
      x.to(device)
      y.to(device)
      loss = criterion(model(x), y)

Fix
  for x, y in loader:
      x, y = x.to(device), y.to(device)
      loss = criterion(model(x), y)

Not flagged
  - modules: `model.to(device)`, `self.cuda()`, layers, instances of the
    file's nn.Module classes (their `.to()` works in place)
  - values not known to be tensors: parameters of a function, results of
    helpers, batches of a DataLoader with a custom `collate_fn`, objects
    whose `.to()` works in place (transformers' BatchEncoding)
  - a tensor not used again (`torch.zeros(1).cuda()` to initialize CUDA,
    `out.cpu()` as a synchronization point)
  - a cast to the dtype the tensor already has (`torch.zeros(n,
    dtype=torch.float32)` then `.float()`): discarding it changes nothing
)";

namespace {

/// `x.to(device)` as a statement becomes `x = x.to(device)`, for a
/// receiver that is a name or an attribute (`self.buf`). In a function the
/// name must be one of its locals: assigning a global or a closure's
/// variable would make it local and the read before it fail.
std::optional<Fix> assign_fix(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId recv_value,
                              Span call_span) {
  namespace S = ast::slot;
  ast::NodeId st = statement_at(ctx, call_span);
  if (!st.valid() || ctx.ast[st].kind != ast::NodeKind::Expr || !(ctx.ast[st].span == call_span))
    return std::nullopt;
  ast::NodeId call = ctx.ast.child(st, S::Expr::value);
  if (ctx.ast[call].kind != ast::NodeKind::Call) return std::nullopt;
  ast::NodeId func = ctx.ast.child(call, S::Call::func);
  if (ctx.ast[func].kind != ast::NodeKind::Attribute) return std::nullopt;
  ast::NodeId recv = ctx.ast.child(func, S::Attribute::value);
  ast::NodeKind k = ctx.ast[recv].kind;
  if ((k != ast::NodeKind::Name && k != ast::NodeKind::Attribute) ||
      (ctx.ast[recv].flags & ast::kParenthesized))
    return std::nullopt;
  if (k == ast::NodeKind::Name && fid.v != 0) {
    const ir::Function& f = ctx.ir.fn(fid);
    ir::VarId var = f.values[recv_value.v].var;
    if (!var.valid() || f.vars[var.v].kind != ir::VarKind::Local) return std::nullopt;
    ir::Op d = f.def(recv_value).op;
    if (d == ir::Op::LoadGlobal || d == ir::Op::LoadFree) return std::nullopt;
  }
  std::string target(source_text(ctx, ctx.ast[recv].span));
  if (target.find_first_of("\r\n") != std::string::npos) return std::nullopt;
  return make_fix("assign the result to `" + target + "`",
                  Edit{{call_span.begin, call_span.begin}, target + " = "});
}

/// The canonical name of a torch dtype constant (`torch.float` is
/// "torch.float32", `torch.half` "torch.float16"), or "" for anything else.
std::string_view canonical_dtype(std::string_view q) {
  static constexpr std::pair<std::string_view, std::string_view> kAliases[] = {
      {"torch.float", "torch.float32"},   {"torch.half", "torch.float16"},
      {"torch.double", "torch.float64"},  {"torch.long", "torch.int64"},
      {"torch.int", "torch.int32"},       {"torch.short", "torch.int16"},
      {"torch.cfloat", "torch.complex64"}, {"torch.cdouble", "torch.complex128"}};
  static constexpr std::string_view kDtypes[] = {
      "torch.float32", "torch.float16", "torch.float64", "torch.bfloat16", "torch.int64",
      "torch.int32",   "torch.int16",   "torch.int8",    "torch.uint8",    "torch.bool",
      "torch.complex64", "torch.complex128"};
  for (const auto& [alias, name] : kAliases)
    if (q == alias) return name;
  for (std::string_view d : kDtypes)
    if (q == d) return d;
  return {};
}

/// The dtype constant a value names, canonical, or "".
std::string_view dtype_constant(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  if (!v.valid()) return {};
  ir::PathId q = ctx.facts.res.qualname(fid, v);
  return q.valid() ? canonical_dtype(ctx.ir.names.str(q)) : std::string_view();
}

/// The dtype a cast call converts to: `.float()`, `.half()`, `.double()`,
/// `.bfloat16()`, or `.to(dtype)` / `.to(dtype=...)` with nothing else
/// passed (a device or `copy=True` changes more than the dtype). "" when
/// the call is no such cast.
std::string_view cast_dtype(const CheckContext& ctx, ir::FunctionId fid, const ir::Inst& call) {
  const ir::Function& f = ctx.ir.fn(fid);
  std::string_view m = call_method(ctx, f, call);
  if (m == "float") return "torch.float32";
  if (m == "half") return "torch.float16";
  if (m == "double") return "torch.float64";
  if (m == "bfloat16") return "torch.bfloat16";
  if (m != "to" || call.nops != 2) return {};
  return dtype_constant(ctx, fid, call_arg(ctx, f, call, 0, "dtype"));
}

/// The dtype a tensor value has on every path, as far as the function
/// shows: the result of a cast (cast_dtype), of a torch function given
/// `dtype=` (`torch.zeros(n, dtype=torch.float32)`),
/// or a phi whose operands agree. "" when not known: a parameter, a call
/// without `dtype=` (PyTorch's default dtype can be changed by
/// `torch.set_default_dtype`), anything else.
std::string_view known_dtype(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v,
                             int depth = 0) {
  const ir::Function& f = ctx.ir.fn(fid);
  if (!v.valid() || depth > 8) return {};
  const ir::Inst& d = f.def(v);
  if (d.op == ir::Op::Phi) {
    std::string_view common;
    for (ir::ValueId o : f.operands(d)) {
      std::string_view t = known_dtype(ctx, fid, o, depth + 1);
      if (t.empty() || (!common.empty() && t != common)) return {};
      common = t;
    }
    return common;
  }
  if (d.op != ir::Op::Call) return {};
  if (std::string_view c = cast_dtype(ctx, fid, d); !c.empty()) return c;
  std::string_view kw = dtype_constant(ctx, fid, call_arg(ctx, f, d, -1, "dtype"));
  if (kw.empty()) return {};
  return call_target_name(ctx, fid, f.def_id(v)).starts_with("torch.") ? kw : std::string_view();
}

bool is_move(std::string_view m) {
  return m == "to" || m == "cuda" || m == "cpu" || m == "half" || m == "float" || m == "double" ||
         m == "bfloat16";
}

/// The symbols of is_move's names the file has. Symbols are interned (one
/// per text), so a call's method is a move only if its attribute's symbol
/// is one of these.
struct MoveSymbols {
  std::vector<ir::Symbol> syms;
  explicit MoveSymbols(const ir::Names& names) {
    for (std::string_view m : {"to", "cuda", "cpu", "half", "float", "double", "bfloat16"})
      if (ir::Symbol s = names.find(m); s != ir::kNoSymbol) syms.push_back(s);
  }
  /// `call` may be `x.<move>(...)` (call_method would name one).
  bool may_move(const ir::Function& f, const ir::Inst& call) const {
    if (call.nops == 0) return false;
    const ir::Inst& cd = f.def(f.operands(call)[0]);
    return cd.op == ir::Op::GetAttr && std::find(syms.begin(), syms.end(), cd.aux) != syms.end();
  }
};

void check_function(const CheckContext& ctx, ir::FunctionId fid, const MoveSymbols& moves,
                    DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  for (uint32_t i = 0; i < f.insts.size(); ++i) {
    const ir::Inst& in = f.insts[i];
    if (in.op != ir::Op::Call || !moves.may_move(f, in)) continue;
    ir::InstId id(i);
    std::string_view m = call_method(ctx, f, in);
    if (!is_move(m)) continue;
    if (ctx.facts.res.call_target(fid, id).kind != ir::CallTarget::Kind::Method) continue;
    if (has_users(f, in.result)) continue;  // the result is used
    ir::ValueId recv = call_receiver(f, in);
    if (!recv.valid() || access_key(ctx, fid, recv).empty()) continue;
    // The receiver is used again after the statement (not only by it).
    ir::InstId getattr = f.def_id(f.operands(in)[0]);
    bool used_after = !reachable(f, id, [&](ir::InstId j, const ir::Inst& u) {
                         if (j == getattr || j == id) return PathStep::Pass;
                         for (ir::ValueId o : f.operands(u))
                           if (o == recv) return PathStep::Target;
                         return PathStep::Pass;
                       }).empty();
    if (!used_after || !is_tensor(ctx, fid, recv)) continue;
    // A cast to the dtype the tensor has already returns a tensor equal to
    // it: nothing is lost by discarding it.
    if (std::string_view to = cast_dtype(ctx, fid, in); !to.empty() && known_dtype(ctx, fid, recv) == to)
      continue;
    std::string key = access_key(ctx, fid, recv);
    std::string moved = value_text(ctx, f, in.result);
    Diagnostic d =
        make_diagnostic(kRule, in.span,
                        "`" + moved + "` returns a new tensor and the result is discarded; `" +
                            key + "` keeps its old " +
                            (m == "to"                     ? "device and dtype"
                             : (m == "cuda" || m == "cpu") ? "device"
                                                           : "dtype") +
                            " (tensors are not moved in place, unlike modules)",
                        "assign the result: `" + key + " = " + moved + "`");
    d.fix = assign_fix(ctx, fid, recv, in.span);
    out.report(std::move(d));
  }
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  MoveSymbols moves(ctx.ir.names);
  if (moves.syms.empty()) return;  // the file never names a move method
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi)
    check_function(ctx, ir::FunctionId(fi), moves, out);
}

}  // namespace tpf::checks::tensor_move_discarded
