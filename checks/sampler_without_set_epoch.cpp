// TPF019 sampler_without_set_epoch
//
// What it finds: a shuffling `DistributedSampler` given to a DataLoader
//   (as `sampler=`, or inside a `BatchSampler` given as `batch_sampler=`)
//   that an epoch loop trains on, in a file that never calls
//   `set_epoch(...)`.
// Why it costs: DistributedSampler seeds its shuffle with `seed + epoch`,
//   and the epoch only changes through `set_epoch` (PyTorch 2.x,
//   torch/utils/data/distributed.py, `__iter__`). Without it every epoch
//   visits the data in the same order on every rank: the shuffle the run
//   pays for is not there, and models generalize worse.
// Example:
//     sampler = DistributedSampler(train_set)
//     loader = DataLoader(train_set, batch_size=64, sampler=sampler)
//     for epoch in range(epochs):
//         for x, y in loader: ...
// Fix: `sampler.set_epoch(epoch)` (or `loader.sampler.set_epoch(epoch)`)
//   at the top of the epoch loop. Autofix (set_epoch_fix): that line, for
//   a sampler variable bound once and a `for <name> in range(...)` loop.
// Not flagged: any `set_epoch(...)` call in the file (in the loop, in a
//   helper, on `loader.sampler` or a batch sampler), `shuffle=False` or a
//   shuffle the file does not fix (`shuffle=args.shuffle`), a single pass
//   over the loader (no epoch loop around it), and samplers or loaders that
//   escape to code we cannot see: passed to a function of another module or
//   a framework (accelerate, Lightning, a Trainer call set_epoch
//   themselves), stored in an attribute or container, or returned.
#include <algorithm>

#include "checks/facts.h"
#include "checks/fixes.h"
#include "ir/cfg.h"

namespace tpf::checks::sampler_without_set_epoch {

const std::string_view kExplain = R"(TPF019 sampler_without_set_epoch: DistributedSampler without sampler.set_epoch(epoch) in the epoch loop

What it finds
  a shuffling `DistributedSampler` given to a DataLoader (as `sampler=`, or
  inside a `BatchSampler` given as `batch_sampler=`) that an epoch loop
  trains on, in a file that never calls `set_epoch(...)`.

Why it costs
  DistributedSampler seeds its shuffle with `seed + epoch`, and the epoch
  only changes through `set_epoch`. Without it every epoch visits the data
  in the same order on every rank: the shuffle the run pays for is not
  there, and the model generalizes worse for the same GPU hours.

Example
  sampler = DistributedSampler(train_set)
  loader = DataLoader(train_set, batch_size=64, sampler=sampler)
  for epoch in range(epochs):
      for x, y in loader:
          ...

Fix
  call `sampler.set_epoch(epoch)` (or `loader.sampler.set_epoch(epoch)`) at
  the top of the epoch loop, before iterating the loader.

Not flagged
  - any `set_epoch(...)` call in the file: in the loop, in a helper, on
    `loader.sampler` or on a batch sampler
  - `DistributedSampler(..., shuffle=False)`, or a shuffle the file does not
    fix (`shuffle=args.shuffle`)
  - a single pass over the loader: no epoch loop around it
  - samplers or loaders that escape to code tpf-analyze cannot see: passed
    to a function of another module or to a framework (accelerate,
    Lightning and Trainer classes call set_epoch themselves), stored in an
    attribute or container, or returned
)";

namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF019);

bool is_distributed_sampler(std::string_view n) {
  return n == "torch.utils.data.distributed.DistributedSampler" ||
         n == "torch.utils.data.DistributedSampler";
}

bool is_batch_sampler(std::string_view n) {
  return n == "torch.utils.data.BatchSampler" || n == "torch.utils.data.sampler.BatchSampler";
}

/// Calls that may take a loader or sampler without hiding its iteration:
/// the data classes themselves, iteration helpers, progress bars.
bool harmless_consumer(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "builtins.enumerate", "builtins.len",   "builtins.iter",  "builtins.zip",
      "builtins.print",     "builtins.next",  "builtins.isinstance",
      "torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader",
      "torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler",
      "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.tqdm.tqdm"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

class Rule {
 public:
  explicit Rule(const CheckContext& ctx) : ctx_(ctx) {}

  void run(DiagSink& out) {
    // A finding is a DataLoader call in a function with a call whose
    // effects include kBackward or kOptimizerStep (epoch_loop finds the
    // training there): skip files and functions without them.
    if (!file_calls_any(ctx_, is_dataloader_name)) return;
    auto trains = [&](ir::FunctionId fid) {
      return function_calls(ctx_, fid).may(dataflow::kBackward | dataflow::kOptimizerStep);
    };
    bool any = false;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size() && !any; ++fi)
      any = trains(ir::FunctionId(fi));
    if (!any) return;
    if (file_calls_set_epoch()) return;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId fid(fi);
      if (!trains(fid)) continue;
      const ir::Function& f = ctx_.ir.fn(fid);
      for (uint32_t i = 0; i < f.insts.size(); ++i)
        if (f.insts[i].op == ir::Op::Call && is_dataloader(ctx_, fid, ir::InstId(i)))
          check_loader(fid, ir::InstId(i), out);
    }
  }

 private:
  bool file_calls_set_epoch() const {
    for (const ir::Function& f : ctx_.ir.functions)
      for (const ir::Inst& in : f.insts)
        if (in.op == ir::Op::Call && call_method(ctx_, f, in) == "set_epoch") return true;
    return false;
  }

  /// The DistributedSampler call a sampler argument denotes (through a
  /// phi: `sampler = DistributedSampler(ds) if dist else None`, and a
  /// BatchSampler's inner sampler), or an invalid id.
  ir::InstId sampler_ctor(ir::FunctionId fid, ir::ValueId v, int depth = 0) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    if (!v.valid() || depth > 4) return {};
    const ir::Inst& d = f.def(v);
    if (d.op == ir::Op::Phi) {
      for (ir::ValueId o : f.operands(d))
        if (o != v) {
          ir::InstId c = sampler_ctor(fid, o, depth + 1);
          if (c.valid()) return c;
        }
      return {};
    }
    if (d.op != ir::Op::Call) return {};
    ir::InstId ci = f.def_id(v);
    std::string_view n = call_target_name(ctx_, fid, ci);
    if (is_distributed_sampler(n)) return ci;
    if (is_batch_sampler(n)) return sampler_ctor(fid, call_arg(ctx_, f, d, 0, "sampler"), depth + 1);
    return {};
  }

  /// Every value that carries the object on: itself and the phis it feeds.
  std::vector<ir::ValueId> aliases(const ir::Function& f, ir::ValueId v) const {
    std::vector<ir::ValueId> out{v};
    for (size_t k = 0; k < out.size() && out.size() < 32; ++k)
      for (const ir::Inst& in : f.insts) {
        if (in.op != ir::Op::Phi || !in.result.valid()) continue;
        auto ops = f.operands(in);
        if (std::find(ops.begin(), ops.end(), out[k]) != ops.end() &&
            std::find(out.begin(), out.end(), in.result) == out.end())
          out.push_back(in.result);
      }
    return out;
  }

  /// The value leaves for code we cannot see: an argument of a call that
  /// is neither the file's own function nor a known harmless consumer, or
  /// stored / returned.
  bool escapes(ir::FunctionId fid, ir::ValueId v) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    for (ir::ValueId a : aliases(f, v)) {
      if (escapes_by_store(f, a)) return true;
      for (ir::InstId c : calls_taking(f, a)) {
        if (calls_file_function(ctx_, fid, c)) continue;
        if (!harmless_consumer(call_target_name(ctx_, fid, c))) return true;
      }
    }
    return false;
  }

  /// The loop that runs training over the loader once per epoch: the loop
  /// around a training loop over the loader, or a loop around a call of the
  /// file's functions that takes the loader and trains. UINT32_MAX if none.
  uint32_t epoch_loop(ir::FunctionId fid, ir::ValueId lv) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::LoopInfo& li = loops_of(ctx_, fid);
    constexpr uint32_t kTrains = dataflow::kBackward | dataflow::kOptimizerStep;
    for (ir::ValueId a : aliases(f, lv)) {
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& it = f.insts[i];
        if (it.op == ir::Op::Call && calls_file_function(ctx_, fid, ir::InstId(i))) {
          auto ops = f.operands(it);
          if (std::find(ops.begin() + 1, ops.end(), a) == ops.end()) continue;
          if (!(call_effects(ctx_, fid, ir::InstId(i)) & kTrains)) continue;
          uint32_t l = li.loop_of(f.block_of(ir::InstId(i)));
          if (l != UINT32_MAX) return l;
          continue;
        }
        if (it.op != ir::Op::GetIter || !it.result.valid()) continue;
        ir::ValueId src = f.operands(it)[0];
        bool ours = src == a;
        if (!ours && f.def(src).op == ir::Op::Call) {
          auto ops = f.operands(f.def(src));
          ours = std::find(ops.begin() + 1, ops.end(), a) != ops.end();
        }
        // Through any nesting of enumerate / tqdm / zip / iter around the
        // loader (`enumerate(tqdm(loader))`): the same loader object.
        if (!ours) {
          const dataflow::Objects& objs = ctx_.facts.objects();
          for (uint32_t o : objs.of(fid, a))
            if (objs.obj(o).kind == dataflow::ObjKind::Loader) {
              auto in_src = objs.of(fid, src);
              ours |= std::find(in_src.begin(), in_src.end(), o) != in_src.end();
            }
        }
        if (!ours) continue;
        for (uint32_t j = 0; j < f.insts.size(); ++j) {
          const ir::Inst& fi = f.insts[j];
          if (fi.op != ir::Op::ForIter || f.operands(fi)[0] != it.result) continue;
          uint32_t l = li.loop_with_header(f.block_of(ir::InstId(j)));
          if (l == UINT32_MAX || li.loops[l].parent == UINT32_MAX) continue;
          bool trains = false;
          for (ir::InstId k : loop_insts(ctx_, fid, l))
            if (call_effects(ctx_, fid, k) & kTrains) trains = true;
          if (trains) return li.loops[l].parent;
        }
      }
    }
    return UINT32_MAX;
  }

  void check_loader(ir::FunctionId fid, ir::InstId li, DiagSink& out) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& loader = f.inst(li);
    if (has_unpacked_args(f, loader) || !loader.result.valid()) return;
    ir::ValueId sv = call_arg(ctx_, f, loader, 3, "sampler");
    if (!sv.valid()) sv = call_arg(ctx_, f, loader, 4, "batch_sampler");
    ir::InstId si = sampler_ctor(fid, sv);
    if (!si.valid()) return;
    const ir::Inst& sampler = f.inst(si);
    if (has_unpacked_args(f, sampler)) return;
    // DistributedSampler(dataset, num_replicas, rank, shuffle=True, seed, drop_last)
    dataflow::BoolArg shuffle = dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid, sampler, 3, "shuffle");
    if (shuffle == dataflow::BoolArg::False || shuffle == dataflow::BoolArg::Unknown) return;
    if (escapes(fid, loader.result) || escapes(fid, sampler.result) || escapes(fid, sv)) return;
    uint32_t epoch = epoch_loop(fid, loader.result);
    if (epoch == UINT32_MAX) return;
    std::string name(value_var_name(ctx_, f, sampler.result));
    std::string shown = name.empty() ? "sampler" : name;
    Diagnostic d = make_diagnostic(
        kRule, sampler.span,
        "`" + call_text(ctx_, f, sampler) + "` shuffles with `seed + epoch`, but `" + shown +
            ".set_epoch(epoch)` is never called; every epoch sees the data in the same order",
        "call `" + shown + ".set_epoch(epoch)` at the top of the epoch loop");
    const ir::Loop& l = loops_of(ctx_, fid).loops[epoch];
    d.notes.push_back({f.terminator(l.header).span, "the epoch loop"});
    d.fix = set_epoch_fix(fid, si, epoch);
    out.report(std::move(d));
  }

  /// `range(...)`, or a progress bar over one (`tqdm(range(n))`,
  /// `trange(n)`): the items are epoch numbers.
  bool counts_epochs(ir::FunctionId fid, ir::ValueId it, int depth = 0) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    if (!it.valid() || f.def(it).op != ir::Op::Call || depth > 1) return false;
    std::string_view n = call_target_name(ctx_, fid, f.def_id(it));
    if (n == "builtins.range" || n == "tqdm.trange" || n == "tqdm.auto.trange") return true;
    if (n == "tqdm.tqdm" || n == "tqdm.auto.tqdm" || n == "tqdm.tqdm.tqdm")
      return counts_epochs(fid, call_arg(ctx_, f, f.def(it), 0, "iterable"), depth + 1);
    return false;
  }

  /// `sampler.set_epoch(epoch)` as the first statement of the epoch loop,
  /// when the loop is `for <name> in range(...)` and the sampler is a
  /// variable bound once, before the loop (never for a sampler that may be
  /// None, nor one a function of the file may rebind as a global).
  std::optional<Fix> set_epoch_fix(ir::FunctionId fid, ir::InstId si, uint32_t epoch) const {
    namespace S = ast::slot;
    const ir::Function& f = ctx_.ir.fn(fid);
    ir::ValueId sv = f.inst(si).result;
    ir::VarId var = f.values[sv.v].var;
    if (!var.valid() || f.vars[var.v].kind != ir::VarKind::Local || f.binding(var) != sv)
      return std::nullopt;
    std::string name(ctx_.ir.names.str(f.vars[var.v].name));
    if (fid.v == 0)
      for (const ir::Function& g : ctx_.ir.functions)
        for (const ir::Inst& in : g.insts)
          if (in.op == ir::Op::StoreGlobal && ctx_.ir.names.str(in.aux) == name) return std::nullopt;
    const ir::Loop& l = loops_of(ctx_, fid).loops[epoch];
    if (l.blocks.end() != std::find(l.blocks.begin(), l.blocks.end(), f.block_of(si)) ||
        !ctx_.facts.dom(ctx_.ir, fid).dominates(f.block_of(si), l.header))
      return std::nullopt;
    const ir::Inst& head = f.terminator(l.header);
    if (head.op != ir::Op::ForIter) return std::nullopt;  // a while loop has no epoch variable
    ir::ValueId iter = f.operands(head)[0];
    if (f.def(iter).op != ir::Op::GetIter || !counts_epochs(fid, f.operands(f.def(iter))[0]))
      return std::nullopt;
    ast::NodeId loop = statement_at(ctx_, head.span);
    if (!loop.valid() || ctx_.ast[loop].kind != ast::NodeKind::For ||
        ctx_.ast[loop].span.begin != head.span.begin)
      return std::nullopt;
    ast::NodeId target = ctx_.ast.child(loop, S::For::target);
    if (ctx_.ast[target].kind != ast::NodeKind::Name || (ctx_.ast[target].flags & ast::kParenthesized))
      return std::nullopt;
    auto body = ctx_.ast.children(loop, S::For::body);
    if (body.empty()) return std::nullopt;
    std::string code =
        name + ".set_epoch(" + std::string(source_text(ctx_, ctx_.ast[target].span)) + ")";
    std::optional<Edit> e = insert_line_before(ctx_, body[0], code);
    if (!e) return std::nullopt;
    return make_fix("call `" + code + "` at the top of the epoch loop", std::move(*e));
  }

  const CheckContext& ctx_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) { Rule(ctx).run(out); }

}  // namespace tpf::checks::sampler_without_set_epoch
