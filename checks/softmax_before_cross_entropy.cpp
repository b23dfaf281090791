// TPF006 softmax_before_cross_entropy
//
// What it finds: the input of `nn.CrossEntropyLoss` / `F.cross_entropy` is,
//   on every path, the output of `softmax` (functional, method or
//   `nn.Softmax` module, also the last layer of an `nn.Sequential`),
//   followed through views, tuple returns and the model's own `forward`;
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
//   metrics next to a loss on the logits; values not known on every path.
#include "checks/facts.h"

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
)";

namespace {

void check_loss(const CheckContext& ctx, ir::FunctionId fid, ir::InstId call, LossKind kind,
                DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  ir::ValueId input = loss_input(ctx, fid, call);
  if (!input.valid()) return;
  Origins o = trace_origins(ctx, fid, input);
  if (!o.complete || o.leaves.empty()) return;
  std::vector<std::pair<Producer, Span>> leaves;
  for (const Origin& leaf : o.leaves) {
    Span site;
    Producer p = producer_kind(ctx, leaf, &site);
    bool ok = p == Producer::Softmax || (kind == LossKind::CrossEntropy && p == Producer::LogSoftmax);
    if (!ok) return;  // not an activation on every path
    leaves.emplace_back(p, site);
  }
  std::string loss = loss_name(ctx, fid, call);
  for (auto [p, site] : leaves) {
    std::string act = std::string(source_text(ctx, site));
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
    d.notes.push_back({f.inst(call).span, "the loss is computed here"});
    out.report(std::move(d));
  }
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
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
