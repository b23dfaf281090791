// TPF007 bce_activation_mismatch
//
// What it finds: (a) the input of `nn.BCEWithLogitsLoss` /
//   `F.binary_cross_entropy_with_logits` is, on every path, a sigmoid
//   output (`torch.sigmoid`, `F.sigmoid`, `x.sigmoid()`, `nn.Sigmoid`);
//   (b) the input of `nn.BCELoss` / `F.binary_cross_entropy` is, on every
//   path, an unbounded score straight from a linear or convolution layer or
//   a matmul. Values are followed like TPF006 (views, tuples, forward).
// Why it costs: BCEWithLogitsLoss applies the sigmoid itself (PyTorch 2.x,
//   torch/nn/modules/loss.py). A sigmoid in front computes
//   sigmoid(sigmoid(x)), which lives in [0.5, 0.73]: predictions cannot
//   become confident, gradients vanish, training stalls silently. BCELoss
//   requires inputs in [0, 1]: logits outside that range abort the run
//   ("all elements of input should be between 0 and 1", a device-side assert
//   on CUDA), or, when they happen to stay inside, train on a wrong loss.
// Example:
//     probs = torch.sigmoid(model(x))
//     loss = nn.BCEWithLogitsLoss()(probs, y)
// Fix: pass the logits to BCEWithLogitsLoss (numerically stable); use
//   BCELoss only on probabilities.
// Not flagged: sigmoid + BCELoss; logits + BCEWithLogitsLoss; a sigmoid
//   applied only on some paths; inputs whose producer is not known (a
//   parameter, an imported model, a clamp); a BCELoss input read from a
//   tensor written by item assignment first (`out[..., idx] =
//   torch.sigmoid(out[..., idx])`: some channels made probabilities).
#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::bce_activation_mismatch {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF007);

const std::string_view kExplain = R"(TPF007 bce_activation_mismatch: sigmoid before BCEWithLogitsLoss, or logits into BCELoss

What it finds
  - The input of `nn.BCEWithLogitsLoss()` or
    `F.binary_cross_entropy_with_logits` is, on every path, a sigmoid output
    (`torch.sigmoid`, `F.sigmoid`, `x.sigmoid()`, `nn.Sigmoid`).
  - The input of `nn.BCELoss()` or `F.binary_cross_entropy` is, on every
    path, a raw score straight from `nn.Linear`, a convolution or a matmul.
  Values are followed through views, tuple returns and the model's `forward`.

Why it costs
  BCEWithLogitsLoss applies the sigmoid itself. With a sigmoid in front it
  computes sigmoid(sigmoid(x)), which stays between 0.5 and 0.73: the model
  can never make a confident prediction, gradients vanish and training
  stalls with no error.
  BCELoss requires probabilities in [0, 1]. Logits outside that range stop
  the run ("all elements of input should be between 0 and 1", a device-side
  assert on CUDA), possibly hours in.

Example
  probs = torch.sigmoid(model(x))
  loss = nn.BCEWithLogitsLoss()(probs, y)

Fix
  loss = nn.BCEWithLogitsLoss()(model(x), y)      # logits in, stable
  probs = torch.sigmoid(logits)                   # only for metrics

Not flagged
  - sigmoid followed by BCELoss, logits into BCEWithLogitsLoss
  - a sigmoid applied on some paths only
  - inputs whose producer is not known (a function parameter, an imported
    model, a clamp)
  - a BCELoss input read from a tensor written by item assignment before
    the loss (`out[..., idx] = torch.sigmoid(out[..., idx])`, a YOLO head
    making its box and objectness channels probabilities)
)";

namespace {

namespace S = ast::slot;

/// The loss with the other BCE: `nn.BCELoss` <-> `nn.BCEWithLogitsLoss`
/// at the constructor, `F.binary_cross_entropy` <->
/// `F.binary_cross_entropy_with_logits` at the call. Refused when the
/// constructor also serves another loss call, or passes `pos_weight`
/// (BCELoss has none).
std::optional<Fix> swap_fix(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call,
                            bool to_logits) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(call);
  ir::CallTarget t = ctx.facts.res.call_target(fid, call);
  ast::NodeId node;  // the call whose callee is renamed
  std::string_view from = to_logits ? "BCELoss" : "BCEWithLogitsLoss";
  std::string_view to = to_logits ? "BCEWithLogitsLoss" : "BCELoss";
  if (t.kind == ir::CallTarget::Kind::External) {
    node = node_at(ctx, in.span, ast::NodeKind::Call);
    from = to_logits ? "binary_cross_entropy" : "binary_cross_entropy_with_logits";
    to = to_logits ? "binary_cross_entropy_with_logits" : "binary_cross_entropy";
  } else {
    Origin ctor;
    if (!module_constructor(ctx, fid, f.operands(in)[0], ctor)) return std::nullopt;
    // Every loss call built from this constructor is this one.
    for (uint32_t gi = 0; gi < ctx.ir.functions.size(); ++gi) {
      const ir::Function& g = ctx.ir.functions[gi];
      for (uint32_t i = 0; i < g.insts.size(); ++i) {
        if (g.insts[i].op != ir::Op::Call || (gi == fid.v && i == call.v)) continue;
        if (loss_kind(ctx, ir::FunctionId(gi), ir::InstId(i)) == LossKind::None) continue;
        Origin other;
        if (module_constructor(ctx, ir::FunctionId(gi), g.operands(g.insts[i])[0], other) &&
            other.fn == ctor.fn && other.value == ctor.value)
          return std::nullopt;
      }
    }
    const ir::Function& cf = ctx.ir.fn(ctor.fn);
    node = node_at(ctx, cf.def(ctor.value).span, ast::NodeKind::Call);
  }
  if (!node.valid()) return std::nullopt;
  std::optional<Span> name = callee_name_span(ctx, node);
  if (!name || source_text(ctx, *name) != from) return std::nullopt;
  if (!to_logits) {
    // pos_weight has no counterpart: by keyword, or BCEWithLogitsLoss's 5th
    // positional (F.binary_cross_entropy_with_logits's 6th).
    size_t max_pos = t.kind == ir::CallTarget::Kind::External ? 5 : 4;
    if (ctx.ast.children(node, S::Call::args).size() > max_pos) return std::nullopt;
    for (ast::NodeId k : ctx.ast.children(node, S::Call::keywords)) {
      uint32_t kw = ctx.ast[k].f[S::keyword::arg];
      if (kw == ast::kNoSymbol || ctx.ast.name(kw) == "pos_weight") return std::nullopt;
    }
  }
  const std::string module = t.kind == ir::CallTarget::Kind::External ? "torch.nn.functional."
                                                                       : "torch.nn.";
  std::optional<Edit> e = rename_callee(ctx, node, module + std::string(to));
  if (!e) return std::nullopt;  // imported by name, and nothing binds the other loss
  std::string title = "use `" + e->text + "`";
  return make_fix(std::move(title), std::move(*e));
}

void check_with_logits(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call,
                       const Origins& o, DiagSink& out) {
  std::vector<Span> sites;
  for (const Origin& leaf : o.leaves) {
    Span site;
    if (producer_kind(ctx, leaf, &site) != Producer::Sigmoid) return;
    sites.push_back(site);
  }
  std::string loss = loss_name(ctx, fid, call);
  for (Span site : sites) {
    Diagnostic d = make_diagnostic(
        kRule, site,
        "sigmoid output goes into `" + loss + "`, which applies sigmoid itself; predictions "
        "cannot become confident, gradients vanish and training stalls",
        "pass the logits to `" + loss + "` and apply `torch.sigmoid` only for metrics");
    d.notes.push_back({ctx.ir.fn(fid).inst(call).span, "the loss is computed here"});
    d.fix = swap_fix(ctx, fid, call, false);
    out.report(std::move(d));
  }
}

/// The loss input, or a tensor it is read from (through indexing and
/// method calls: `out[..., :2]` of `out = conv(x).permute(0, 2, 3, 1)`),
/// is written by item assignment before the loss (`out[..., idx] =
/// torch.sigmoid(out[..., idx])`): its channels no longer hold what the
/// producer made, so the producer says nothing about them.
bool written_by_item(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call, ir::ValueId v) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::DomTree& dom = ctx.facts.dom(ctx.ir, fid);
  // Why 8: a few views and indexings between the producer and the loss.
  for (int depth = 0; v.valid() && depth < 8; ++depth) {
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op == ir::Op::SetItem && f.operands(in)[0] == v && dom.dominates(f, ir::InstId(i), call))
        return true;
    }
    const ir::Inst& d = f.def(v);
    if (d.op == ir::Op::GetItem) v = f.operands(d)[0];
    else if (d.op == ir::Op::Call && !call_method(ctx, f, d).empty()) v = call_receiver(f, d);
    else return false;
  }
  return false;
}

void check_probabilities(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call,
                         const Origins& o, DiagSink& out) {
  if (written_by_item(ctx, fid, call, loss_input(ctx, fid, call))) return;
  Span first;
  for (const Origin& leaf : o.leaves) {
    Span site;
    if (producer_kind(ctx, leaf, &site) != Producer::Affine) return;
    if (first == Span{}) first = site;
  }
  std::string loss = loss_name(ctx, fid, call);
  Diagnostic d = make_diagnostic(
      kRule, ctx.ir.fn(fid).inst(call).span,
      "`" + loss + "` gets raw logits, not probabilities; values outside [0, 1] stop the run "
      "with an error (a device-side assert on CUDA)",
      "use `nn.BCEWithLogitsLoss()` on the logits (numerically stable), or apply "
      "`torch.sigmoid` first");
  d.notes.push_back({first, "the logits come from here"});
  d.fix = swap_fix(ctx, fid, call, true);
  out.report(std::move(d));
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // loss_kind is Bce or BceWithLogits only for a call whose target name
  // says so (named_loss_kind): skip files that call neither.
  if (!file_calls_any(ctx, [](std::string_view n) {
        LossKind k = named_loss_kind(n);
        return k == LossKind::Bce || k == LossKind::BceWithLogits;
      }))
    return;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    const ir::Function& f = ctx.ir.functions[fi];
    ir::FunctionId fid(fi);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (f.insts[i].op != ir::Op::Call) continue;
      LossKind k = loss_kind(ctx, fid, ir::InstId(i));
      if (k != LossKind::Bce && k != LossKind::BceWithLogits) continue;
      ir::ValueId input = loss_input(ctx, fid, ir::InstId(i));
      if (!input.valid()) continue;
      Origins o = trace_origins(ctx, fid, input);
      if (!o.complete || o.leaves.empty()) continue;
      if (k == LossKind::BceWithLogits) check_with_logits(ctx, fid, ir::InstId(i), o, out);
      else check_probabilities(ctx, fid, ir::InstId(i), o, out);
    }
  }
}

}  // namespace tpf::checks::bce_activation_mismatch
