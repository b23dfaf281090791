// TPF023 eval_loader_shuffled
//
// What it finds (notes):
//   - `DataLoader(..., shuffle=True)` for a validation or test split: the
//     loader's variable or its dataset says val / valid / validation / test
//     / eval / dev (`val_loader`, `test_set`, `MNIST(..., train=False)`,
//     `split="test"`), and no loop over the loader trains;
//   - `torch.backends.cudnn.benchmark = True` in a file that builds a
//     convolution and whose DataLoader pads each batch to its own longest
//     sequence (a `collate_fn` of the file that calls `pad_sequence`, or
//     pads to the `max(...)` of the batch: `torch.zeros(n, max_len)`,
//     `F.pad(x, (0, max_len - len(x)))`).
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
//   steps), loaders only ever drawn from once per fresh iterator
//   (`next(iter(val_loader))` for a grid of sample images), names that also say train (`trainval_loader`), a shuffle the
//   file does not fix or `**kwargs`, cudnn.benchmark with fixed-size inputs
//   (resized images, fixed-length sequences: nothing the rule can see
//   varies), files that build no convolution (benchmark mode only picks
//   convolution algorithms: a padded LSTM or transformer is unaffected),
//   and variable shapes it cannot see or that repeat: the last partial
//   batch, images of mixed sizes, `DataLoader(batch_size=None)` (the
//   dataset decides the shapes), a collate returning lists (the model may
//   resize them to one size), random multi-scale training that picks one
//   of a few sizes per batch (each size is tuned once and then cached, so
//   benchmark still pays off) — the rule stays quiet rather than guess.
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
  - `torch.backends.cudnn.benchmark = True` in a file that builds a
    convolution and whose DataLoader pads each batch to its own longest
    sequence (a `collate_fn` of the file that calls `pad_sequence`, or
    pads to the `max(...)` of the batch).

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
  - loaders only sampled, `next(iter(val_loader))`: one random batch (a
    grid of images to log) is no evaluation pass
  - names that also say train (`trainval_loader`)
  - a shuffle the file does not fix, and `**kwargs`
  - cudnn.benchmark with fixed-size inputs (resized images, fixed-length
    sequences)
  - files that build no convolution: benchmark mode only chooses
    convolution algorithms, so a padded LSTM or transformer is unaffected
  - variable shapes the rule cannot see or that repeat: the last partial
    batch, images of mixed sizes, padding done outside the file's collate
    function, `DataLoader(batch_size=None)` (the dataset decides the
    shapes), a collate that returns lists (the model may resize them to
    one size), random multi-scale training over a few sizes (each size is
    tuned once and cached, so benchmark still pays off)
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
  if (s.kind == ir::ConstValue::Kind::Str && eval_word(s.s)) return true;
  return dataflow::bool_arg(ctx.ir, ctx.facts.res, fid, d, -1, "train") == dataflow::BoolArg::False;
}

/// Every use of the loader built at `li` draws one batch from a fresh
/// iterator, `next(iter(loader))` (PyTorch-GAN's `sample_images()` logs a
/// grid of validation images that way), in whichever function of the file:
/// a random sample is the point there, and no pass over the split runs, so
/// nothing comes out of order. Uses followed through the objects fact
/// (module globals, phis, `iter`); any other use (a `for` loop, a helper,
/// `next(it)` on an iterator kept and drawn again) keeps the finding.
bool only_sampled(const CheckContext& ctx, ir::FunctionId fid, ir::InstId li) {
  const dataflow::Objects& objs = ctx.facts.objects();
  const ir::Function& lf = ctx.ir.fn(fid);
  std::vector<uint32_t> mine;
  for (uint32_t o : objs.of(fid, lf.inst(li).result))
    if (objs.obj(o).kind == dataflow::ObjKind::Loader && objs.obj(o).site == li && objs.obj(o).fn == fid)
      mine.push_back(o);
  if (mine.empty()) return false;
  bool drawn = false;
  for (uint32_t gi = 0; gi < ctx.ir.functions.size(); ++gi) {
    ir::FunctionId g(gi);
    const ir::Function& f = ctx.ir.fn(g);
    std::vector<uint8_t> denotes(f.values.size(), 0);
    std::vector<uint32_t> uses(f.values.size(), 0);
    bool any = false;
    for (uint32_t v = 0; v < f.values.size(); ++v)
      for (uint32_t o : objs.of(g, ir::ValueId(v)))
        if (std::find(mine.begin(), mine.end(), o) != mine.end()) denotes[v] = any = true;
    if (!any) continue;
    for (const ir::Inst& in : f.insts)
      for (ir::ValueId o : f.operands(in))
        if (o.valid()) ++uses[o.v];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      auto ops = f.operands(in);
      for (size_t k = 0; k < ops.size(); ++k) {
        ir::ValueId v = ops[k];
        if (!v.valid() || !denotes[v.v]) continue;
        if (in.op == ir::Op::Phi || in.op == ir::Op::StoreGlobal || in.op == ir::Op::StoreFree)
          continue;  // an alias: its readers denote the loader too
        if (in.op != ir::Op::Call || k == 0) return false;
        std::string_view n = call_target_name(ctx, g, ir::InstId(i));
        if (n == "builtins.iter" || n == "builtins.len") continue;
        const ir::Inst& d = f.def(v);
        // `next(iter(loader))`: the iterator is made for this one draw
        // (used once, in the same block: not `it = iter(l)` before a loop
        // drawing `next(it)` on every turn).
        if (n == "builtins.next" && uses[v.v] == 1 && d.op == ir::Op::Call &&
            call_target_name(ctx, g, f.def_id(v)) == "builtins.iter" &&
            f.block_of(f.def_id(v)) == f.block_of(ir::InstId(i))) {
          drawn = true;
          continue;
        }
        return false;
      }
    }
  }
  return drawn;
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
  if (only_sampled(ctx, fid, li)) return;
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

/// A call that builds or pads a tensor to a given size: torch factories,
/// `F.pad`, `x.new_zeros(...)`.
bool sizes_tensor(const CheckContext& ctx, ir::FunctionId g, const ir::Function& gf, ir::InstId i) {
  std::string_view n = call_target_name(ctx, g, i);
  static constexpr std::string_view kNames[] = {
      "torch.zeros", "torch.ones", "torch.full", "torch.empty", "torch.nn.functional.pad"};
  if (std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames)) return true;
  std::string_view m = call_method(ctx, gf, gf.inst(i));
  return m == "new_zeros" || m == "new_ones" || m == "new_full" || m == "new_empty";
}

/// `max(...)` in function `g` whose result reaches the size of a tensor it
/// builds or pads (directly, through arithmetic, or in a size tuple):
/// `max_len = max(len(s) for s in batch)`, `torch.zeros(n, max_len)`.
bool pads_to_batch_max(const CheckContext& ctx, ir::FunctionId g) {
  const ir::Function& gf = ctx.ir.fn(g);
  for (uint32_t i = 0; i < gf.insts.size(); ++i) {
    if (gf.insts[i].op != ir::Op::Call || !gf.insts[i].result.valid() ||
        call_target_name(ctx, g, ir::InstId(i)) != "builtins.max")
      continue;
    std::vector<ir::ValueId> work{gf.insts[i].result};
    for (size_t k = 0; k < work.size() && work.size() < 32; ++k)
      for (ir::InstId u : users_of(gf, work[k])) {
        const ir::Inst& ui = gf.inst(u);
        if (ui.op == ir::Op::Call && sizes_tensor(ctx, g, gf, u)) return true;
        if ((ui.op == ir::Op::BinOp || ui.op == ir::Op::BuildTuple || ui.op == ir::Op::BuildList) &&
            ui.result.valid())
          work.push_back(ui.result);
      }
  }
  return false;
}

/// The file's function a `collate_fn=` argument names, when it pads each
/// batch to its own longest sequence: it calls pad_sequence, or pads to
/// the `max(...)` of the batch.
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
  return pads_to_batch_max(ctx, g);
}

/// The file builds a convolution: cuDNN's benchmark mode chooses
/// convolution algorithms, so without one it changes nothing.
bool builds_convolution(const CheckContext& ctx) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (f.insts[i].op != ir::Op::Call) continue;
      std::string_view n = call_target_name(ctx, fid, ir::InstId(i));
      if (n.starts_with("torch.nn.Conv") || n.starts_with("torch.nn.ConvTranspose") ||
          n.starts_with("torch.nn.functional.conv"))
        return true;
    }
  }
  return false;
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // Both findings need a DataLoader call (the shuffled loader; the
  // collate_fn that pads): skip files that make none.
  if (!file_calls_any(ctx, is_dataloader_name)) return;
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
  if (!benchmark || !padded || !builds_convolution(ctx)) return;
  Diagnostic d = make_diagnostic(
      kRule, benchmark->span,
      "`torch.backends.cudnn.benchmark = True` while the DataLoader pads each batch to its own "
      "longest sequence; every new shape reruns cuDNN's autotuner instead of reusing a kernel",
      "leave `cudnn.benchmark` off, or pad to a few fixed lengths (buckets) so shapes repeat");
  d.notes.push_back({padded->span, "batches padded to their own longest sequence in its `collate_fn`"});
  out.report(std::move(d));
}

}  // namespace tpf::checks::eval_loader_shuffled
