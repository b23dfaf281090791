// TPF023 eval_loader_shuffled
//
// What it finds (notes):
//   - `DataLoader(..., shuffle=True)` for a validation or test split: the
//     loader's variable or its dataset says val / valid / validation / test
//     / eval / dev (`val_loader`, `test_set`, `MNIST(..., train=False)`,
//     `split="test"`), and no loop over the loader trains;
//   - `torch.backends.cudnn.benchmark = True` in a file whose DataLoader
//     pads each batch to its own longest sequence (a `collate_fn` of the
//     file that calls `pad_sequence`).
// Why it costs: a shuffled evaluation gives the same metrics in a random
//   order: predictions saved per batch no longer line up with the dataset,
//   two runs cannot be compared batch by batch, and a metric that depends on
//   the order (the first N batches only) changes from run to run. With
//   cudnn.benchmark, every new input shape runs cuDNN's autotuner again
//   (tens to hundreds of ms each, PyTorch 2.x torch.backends.cudnn docs);
//   per-batch padded lengths make most shapes new, so the run pays for
//   benchmarking instead of getting faster kernels.
// Example:
//     val_loader = DataLoader(val_set, batch_size=256, shuffle=True)
// Fix: `shuffle=False` for evaluation loaders; leave cudnn.benchmark off
//   (or pad to fixed buckets) when input shapes vary.
// Not flagged: training loaders (a loop over the loader backwards or
//   steps), names that also say train (`trainval_loader`), a shuffle the
//   file does not fix or `**kwargs`, cudnn.benchmark with fixed-size inputs
//   (resized images, fixed-length sequences: nothing the rule can see
//   varies), and variable shapes it cannot see (the last partial batch,
//   images of mixed sizes) — the rule stays quiet rather than guess.
#include <algorithm>

#include "checks/facts.h"

namespace tpf::checks::eval_loader_shuffled {

const std::string_view kExplain = R"(TPF023 eval_loader_shuffled: an evaluation DataLoader with shuffle=True, or cudnn.benchmark with per-batch padded shapes

What it finds
  notes on two tuning mistakes:
  - `DataLoader(..., shuffle=True)` for a validation or test split: the
    loader's variable or its dataset says val, valid, validation, test,
    eval or dev (`val_loader`, `test_set`, `MNIST(..., train=False)`,
    `split="test"`), and no loop over the loader trains;
  - `torch.backends.cudnn.benchmark = True` in a file whose DataLoader
    pads each batch to its own longest sequence (a `collate_fn` of the
    file that calls `pad_sequence`).

Why it costs
  a shuffled evaluation gives the same metrics in a random order:
  predictions saved per batch no longer line up with the dataset, two runs
  cannot be compared batch by batch, and a metric over the first N batches
  changes from run to run. With cudnn.benchmark every new input shape runs
  cuDNN's autotuner again (tens to hundreds of milliseconds each); lengths
  padded per batch make most shapes new, so the run pays for benchmarking
  instead of getting faster kernels.

Example
  val_loader = DataLoader(val_set, batch_size=256, shuffle=True)

Fix
  `shuffle=False` for evaluation loaders; leave cudnn.benchmark off (or pad
  to a few fixed lengths) when input shapes vary.

Not flagged
  - training loaders: a loop over the loader backwards or steps
  - names that also say train (`trainval_loader`)
  - a shuffle the file does not fix, and `**kwargs`
  - cudnn.benchmark with fixed-size inputs (resized images, fixed-length
    sequences)
  - variable shapes the rule cannot see: the last partial batch, images of
    mixed sizes, padding done outside the file's collate function
)";

namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF023);

bool eval_word(std::string_view name) {
  return name_has_word(name, {"val", "valid", "validation", "test", "eval", "evaluation", "dev", "testing"}) &&
         !name_has_word(name, {"train", "trainval", "training"});
}

/// The dataset argument denotes an evaluation split: its name, or the
/// call that builds it (`train=False`, `split="val"`).
bool eval_dataset(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f, ir::ValueId ds) {
  if (!ds.valid()) return false;
  std::string k = access_key(ctx, fid, ds);
  if (!k.empty()) {
    std::string_view last = std::string_view(k).substr(k.rfind('.') + 1);
    if (eval_word(last)) return true;
    if (name_has_word(last, {"train", "trainval", "training"})) return false;
  }
  const ir::Inst& d = f.def(ds);
  if (d.op != ir::Op::Call) return false;
  ir::ValueId split = call_arg(ctx, f, d, -1, "split");
  const ir::ConstValue& s = ctx.facts.res.constant(fid, split);
  if (split.valid() && s.kind == ir::ConstValue::Kind::Str && eval_word(s.s)) return true;
  return dataflow::bool_arg(ctx.ir, ctx.facts.res, fid, d, -1, "train") == dataflow::BoolArg::False;
}

void check_shuffled_eval(const CheckContext& ctx, ir::FunctionId fid, ir::InstId li, DiagSink& out) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& in = f.inst(li);
  if (has_unpacked_args(f, in)) return;
  if (dataflow::bool_arg(ctx.ir, ctx.facts.res, fid, in, 2, "shuffle") != dataflow::BoolArg::True) return;
  std::string_view lname = value_var_name(ctx, f, in.result);
  ir::ValueId ds = call_arg(ctx, f, in, 0, "dataset");
  bool by_name = !lname.empty() && eval_word(lname);
  if (!lname.empty() && name_has_word(lname, {"train", "trainval", "training"})) return;
  if (!by_name && !eval_dataset(ctx, fid, f, ds)) return;
  if (in.result.valid() && trained_on(ctx, fid, in.result)) return;
  Diagnostic d = make_diagnostic(
      kRule, in.span,
      "`" + call_text(ctx, f, in) + "` shuffles " +
          (by_name ? "`" + std::string(lname) + "`, an evaluation loader"
                   : "the evaluation split `" + value_text(ctx, f, ds) + "`") +
          "; metrics come out in a random order and per-batch outputs no longer line up with "
          "the dataset",
      "pass `shuffle=False` for validation and test loaders");
  out.report(std::move(d));
}

/// The file's function a `collate_fn=` argument names, when it pads with
/// pad_sequence: the batch's own longest length sets the shape.
bool pads_per_batch(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId fn) {
  if (!fn.valid()) return false;
  const ir::Referent& r = ctx.facts.res.ref(fid, fn);
  if (r.kind != ir::Referent::Kind::Function) return false;
  ir::FunctionId g = r.function();
  const ir::Function& gf = ctx.ir.fn(g);
  for (uint32_t i = 0; i < gf.insts.size(); ++i) {
    if (gf.insts[i].op != ir::Op::Call) continue;
    if (call_target_name(ctx, g, ir::InstId(i)) == "torch.nn.utils.rnn.pad_sequence") return true;
  }
  return false;
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  const ir::Inst* benchmark = nullptr;
  const ir::Inst* padded = nullptr;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op == ir::Op::SetAttr && ctx.ir.names.str(in.aux) == "benchmark") {
        auto ops = f.operands(in);
        ir::PathId q = ctx.facts.res.qualname(fid, ops[0]);
        const ir::ConstValue& c = ctx.facts.res.constant(fid, ops[1]);
        if (q.valid() && ctx.ir.names.str(q) == "torch.backends.cudnn" &&
            c.kind == ir::ConstValue::Kind::Bool && c.i == 1 && !benchmark)
          benchmark = &in;
      }
      if (in.op != ir::Op::Call || !is_dataloader(ctx, fid, ir::InstId(i))) continue;
      check_shuffled_eval(ctx, fid, ir::InstId(i), out);
      if (!padded && pads_per_batch(ctx, fid, call_arg(ctx, f, in, 6, "collate_fn"))) padded = &in;
    }
  }
  if (!benchmark || !padded) return;
  Diagnostic d = make_diagnostic(
      kRule, benchmark->span,
      "`torch.backends.cudnn.benchmark = True` while the DataLoader pads each batch to its own "
      "longest sequence; every new shape reruns cuDNN's autotuner instead of reusing a kernel",
      "leave `cudnn.benchmark` off, or pad to a few fixed lengths (buckets) so shapes repeat");
  d.notes.push_back({padded->span, "batches padded with `pad_sequence` in its `collate_fn`"});
  out.report(std::move(d));
}

}  // namespace tpf::checks::eval_loader_shuffled
