// TPF006 softmax_before_cross_entropy
//
// What it finds: the input of `nn.CrossEntropyLoss` / `F.cross_entropy` is,
//   on every path, the output of `softmax` (functional, method or
//   `nn.Softmax` module, also the last layer of an `nn.Sequential`),
//   followed through views, tuple returns and the model's own `forward`
//   (also a model class of another project module: its forward is read
//   there, dataflow's Summaries::foreign_forward);
//   likewise softmax probabilities into `NLLLoss`, which wants log-probabilities.
//   `log_softmax` into CrossEntropyLoss is a warning.
// Why it costs: CrossEntropyLoss applies log_softmax itself (PyTorch 2.x,
//   torch/nn/functional.py cross_entropy = nll_loss(log_softmax(x))).
//   Softmax first squashes the scores into [0, 1]: the loss can no longer
//   approach 0, its gradients shrink by up to the number of classes, and
//   training stalls at poor accuracy without any error. log_softmax is
//   idempotent, so log_softmax first leaves the loss unchanged and only
//   costs a redundant pass and a misleading model output.
// Example:
//     def forward(self, x):
//         return F.softmax(self.fc(x), dim=1)
//     loss = nn.CrossEntropyLoss()(model(x), y)
// Fix: return the raw logits from `forward` and apply softmax only where
//   probabilities are needed (metrics, inference).
// Not flagged: LogSoftmax + NLLLoss; softmax inside a block (attention
//   weights) that is not the model's output; a forward that returns softmax
//   only in eval mode (`if self.training: return logits`); softmax used for
//   metrics next to a loss on the logits; values not known on every path,
//   also a loss attribute a method sets to something else elsewhere
//   (`self.loss_fn = CrossEntropyLoss()` only when label smoothing is off);
//   a call of a loss object with arguments the module's forward(input,
//   target) rejects (`self.loss_fn(lprobs, labels, eps, ignore_index=0)`:
//   on that path the attribute is another loss).
#include <algorithm>
#include <tuple>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::softmax_before_cross_entropy {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF006);

const std::string_view kExplain = R"(TPF006 softmax_before_cross_entropy: softmax applied before CrossEntropyLoss

What it finds
  The input of `nn.CrossEntropyLoss()` or `F.cross_entropy` is, on every
  path, the output of a softmax: `F.softmax`, `torch.softmax`, `x.softmax()`,
  an `nn.Softmax` module, or the last layer of an `nn.Sequential`. The value
  is followed through views (`.view`, `.reshape`, slicing), tuple returns
  and the model's own `forward`. Softmax probabilities passed to `NLLLoss`
  (which expects log-probabilities) are reported too, and `log_softmax`
  before CrossEntropyLoss is a warning.

Why it costs
  CrossEntropyLoss applies log_softmax to its input itself. With a softmax
  in front, it computes log_softmax(softmax(x)): the loss can no longer go
  near zero, gradients shrink by up to the number of classes, and training
  stalls at poor accuracy with no error. (log_softmax is idempotent, so
  log_softmax in front leaves the loss unchanged; it only wastes a pass and
  makes the model's output misleading.)

Example
  class Net(nn.Module):
      def forward(self, x):
          return F.softmax(self.fc(x), dim=1)

  loss = nn.CrossEntropyLoss()(model(x), y)

Fix
  Return the raw logits from `forward`; apply softmax only where
  probabilities are needed (metrics, inference):

      def forward(self, x):
          return self.fc(x)

Not flagged
  - `LogSoftmax` / `log_softmax` followed by `NLLLoss`
  - softmax inside a block (attention weights) that is not the output
  - a forward that returns softmax only in eval mode
    (`if self.training: return logits`)
  - softmax computed for metrics while the loss takes the logits
  - a loss attribute that is a CrossEntropyLoss only on some paths: a
    method sets `self.loss_fn` to another function or to an argument too
    (`label_smoothed_nll_loss` when label smoothing is on)
  - a call of a loss object with arguments that the module's
    `forward(input, target)` rejects (`self.loss_fn(lprobs, labels, eps,
    ignore_index=pad)`): on that path the attribute holds another loss
)";

namespace {

namespace S = ast::slot;
using ast::NodeKind;

/// The call's input: positional 0, or `input=` when there is no
/// positional (kNoNode when neither is plain).
ast::NodeId first_input(const CheckContext& ctx, ast::NodeId call) {
  auto args = ctx.ast.children(call, S::Call::args);
  if (!args.empty()) return ctx.ast[args[0]].kind == NodeKind::Starred ? ast::kNoNode : args[0];
  for (ast::NodeId k : ctx.ast.children(call, S::Call::keywords)) {
    uint32_t name = ctx.ast[k].f[S::keyword::arg];
    if (name != ast::kNoSymbol && ctx.ast.name(name) == "input") return ctx.ast.child(k, S::keyword::value);
  }
  return ast::kNoNode;
}

/// The fix at one softmax site: for CrossEntropyLoss drop the activation
/// (`F.softmax(x, dim=1)` -> `x`, `x.softmax(-1)` -> `x`, `self.sm(x)` ->
/// `x`, `nn.Softmax(dim=1)` out of its `nn.Sequential`); for NLLLoss turn
/// softmax into log_softmax where the name says it (`F.softmax`,
/// `x.softmax`, `nn.Softmax` in a Sequential).
std::optional<Fix> site_fix(const CheckContext& ctx, const Origin& leaf, Span site, bool to_log) {
  const ir::Function& f = ctx.ir.fn(leaf.fn);
  const ir::Inst& d = f.def(leaf.value);
  ast::NodeId call = node_at(ctx, site, NodeKind::Call);
  if (!call.valid()) return std::nullopt;
  // `torch.exp(log_softmax(x))` written out: which of the two calls to
  // drop depends on the code around it; no automatic fix.
  std::string_view m = call_method(ctx, f, d);
  if (m == "exp" || call_target_name(ctx, leaf.fn, f.def_id(leaf.value)) == "torch.exp")
    return std::nullopt;
  if (!(site == d.span)) {
    // The last layer of an nn.Sequential(...).
    for (uint32_t i = 0; i < ctx.ast.nodes.size(); ++i) {
      ast::NodeId seq{i};
      if (ctx.ast[seq].kind != NodeKind::Call) continue;
      auto args = ctx.ast.children(seq, S::Call::args);
      auto it = std::find(args.begin(), args.end(), call);
      if (it == args.end()) continue;
      std::optional<Span> name = callee_name_span(ctx, seq);
      if (!name || source_text(ctx, *name) != "Sequential") return std::nullopt;
      if (to_log) {
        std::optional<Span> layer = callee_name_span(ctx, call);
        if (!layer || source_text(ctx, *layer) != "Softmax") return std::nullopt;
        std::optional<Edit> e = rename_callee(ctx, call, "torch.nn.LogSoftmax");
        if (!e) return std::nullopt;
        std::string title = "use `" + e->text + "`";
        return make_fix(std::move(title), std::move(*e));
      }
      std::optional<Edit> e = remove_element(ctx, args, static_cast<size_t>(it - args.begin()));
      if (!e) return std::nullopt;
      return make_fix("remove `" + std::string(source_text(ctx, site)) + "` from the Sequential",
                      std::move(*e));
    }
    return std::nullopt;
  }
  ir::CallTarget t = ctx.facts.res.call_target(leaf.fn, f.def_id(leaf.value));
  ast::NodeId input;
  std::optional<Span> name = callee_name_span(ctx, call);
  bool renamable = name && source_text(ctx, *name) == "softmax";
  if (t.kind == ir::CallTarget::Kind::External) {
    input = first_input(ctx, call);
  } else if (t.kind == ir::CallTarget::Kind::Method) {
    ast::NodeId func = ctx.ast.child(call, S::Call::func);
    if (ctx.ast[func].kind != NodeKind::Attribute) return std::nullopt;
    input = ctx.ast.child(func, S::Attribute::value);
  } else if (t.kind == ir::CallTarget::Kind::ResultCall) {
    renamable = false;  // `self.sm(x)`: the module's name is the user's
    if (ctx.ast.children(call, S::Call::args).size() == 1 &&
        ctx.ast.children(call, S::Call::keywords).empty())
      input = first_input(ctx, call);
  }
  if (to_log) {
    if (!renamable) return std::nullopt;
    if (t.kind == ir::CallTarget::Kind::External) {
      // F.softmax / torch.softmax / softmax imported by name: the same module's log_softmax.
      std::string q(ctx.ir.names.str(t.name));
      if (q.size() < 8 || !q.ends_with(".softmax")) return std::nullopt;
      std::optional<Edit> e = rename_callee(ctx, call, q.substr(0, q.size() - 7) + "log_softmax");
      if (!e) return std::nullopt;
      std::string title = "use `" + e->text + "`";
      return make_fix(std::move(title), std::move(*e));
    }
    return make_fix("use `log_softmax`", Edit{*name, "log_softmax"});
  }
  if (!input.valid()) return std::nullopt;
  std::string text = atom_text(ctx, input);
  return make_fix("pass `" + text + "` on without the activation", Edit{site, text});
}

/// A call of a loss object that `forward(input, target)` of
/// nn.CrossEntropyLoss / nn.NLLLoss would reject (PyTorch 2.x: no other
/// parameter; `ignore_index`, `reduction` belong to the constructor):
/// `self.loss_fn(lprobs, labels, eps, ignore_index=pad)` calls something
/// else (a label-smoothed loss the attribute holds on the other path).
/// The functional forms (`F.cross_entropy`) take more and are not judged.
bool rejected_by_module_forward(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(call);
  ir::CallTarget t = ctx.facts.res.call_target(fid, call);
  if (t.kind == ir::CallTarget::Kind::External) return false;
  const ir::CallInfo& ci = f.call_info(in);
  if (ci.star_mask != 0) return false;
  uint32_t named = 0;
  for (uint32_t k = 0; k < ci.nkw; ++k) {
    ir::Symbol n = f.kw_names[ci.kw_first + k];
    if (n == ir::kNoSymbol) return false;  // `**kwargs`: cannot tell
    std::string_view s = ctx.ir.names.str(n);
    if (s != "input" && s != "target") return true;
    ++named;
  }
  return ci.npos + named > 2;
}

void check_loss(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call, LossKind kind,
                DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  if (rejected_by_module_forward(ctx, fid, call)) return;
  ir::ValueId input = loss_input(ctx, fid, call);
  if (!input.valid()) return;
  Origins o = trace_origins(ctx, fid, input);
  if (!o.complete || o.leaves.empty()) return;
  std::vector<std::tuple<Producer, Span, Origin>> leaves;
  for (const Origin& leaf : o.leaves) {
    Span site;
    Producer p = producer_kind(ctx, leaf, &site);
    bool ok = p == Producer::Softmax || (kind == LossKind::CrossEntropy && p == Producer::LogSoftmax);
    if (!ok) return;  // not an activation on every path
    leaves.emplace_back(p, site, leaf);
  }
  std::string loss = loss_name(ctx, fid, call);
  for (auto [p, site, leaf] : leaves) {
    // A model of another project module: its forward's activation is there.
    std::string where;
    bool foreign = foreign_model_output(ctx, leaf, &where) != Producer::Unknown;
    Diagnostic d;
    if (kind == LossKind::Nll) {
      d = make_diagnostic(
          kRule, site,
          "softmax probabilities go into `" + loss + "`, which expects log-probabilities; "
          "the loss and its gradients are wrong and training stalls",
          "use `log_softmax` here (or drop it and use `CrossEntropyLoss` on the logits)");
    } else if (p == Producer::Softmax) {
      d = make_diagnostic(
          kRule, site,
          "softmax output goes into `" + loss + "`, which applies log_softmax itself; "
          "gradients shrink and training stalls at poor accuracy",
          "pass the raw logits to `" + loss + "` and apply softmax only for metrics or inference");
    } else {
      d = make_diagnostic(
          kRule, site,
          "log_softmax output goes into `" + loss + "`, which applies log_softmax again; "
          "the loss is unchanged but the work is done twice",
          "pass the raw logits to `" + loss + "`, or use `NLLLoss` after `log_softmax`");
      d.severity = Severity::Warning;
    }
    if (foreign) {
      const ir::Function& lf = ctx.ir.fn(leaf.fn);
      std::string model = call_text(ctx, lf, lf.def(leaf.value));
      d.message = "`" + model + "` runs " + where + ", which ends in " +
                  (p == Producer::LogSoftmax ? "log_softmax" : "softmax") + "; " + d.message;
    }
    d.notes.push_back({f.inst(call).span, "the loss is computed here"});
    if (!foreign) d.fix = site_fix(ctx, leaf, site, kind == LossKind::Nll);
    out.report(std::move(d));
  }
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // loss_kind is CrossEntropy or Nll only for a call whose target name
  // says so (named_loss_kind): skip files that call neither.
  if (!file_calls_any(ctx, [](std::string_view n) {
        LossKind k = named_loss_kind(n);
        return k == LossKind::CrossEntropy || k == LossKind::Nll;
      }))
    return;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    const ir::Function& f = ctx.ir.functions[fi];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (f.insts[i].op != ir::Op::Call) continue;
      LossKind k = loss_kind(ctx, ir::FunctionId(fi), ir::InstId(i));
      if (k == LossKind::CrossEntropy || k == LossKind::Nll)
        check_loss(ctx, ir::FunctionId(fi), ir::InstId(i), k, out);
    }
  }
}

}  // namespace tpf::checks::softmax_before_cross_entropy
