// TPF005 ddp_without_distributed_sampler
//
// What it finds: a file that wraps a model in `DistributedDataParallel`
//   (or FSDP, `fully_shard`) and builds a training `DataLoader` (one with
//   `shuffle=True`, or one iterated by a loop that backwards or steps)
//   without a `sampler` or `batch_sampler`.
// Why it costs: every rank then trains on the same batches: N GPUs do the
//   work of one, and each epoch sees the data N times (PyTorch 2.x,
//   torch.utils.data.distributed.DistributedSampler).
// Example:
//     model = DDP(model, device_ids=[rank])
//     loader = DataLoader(dataset, batch_size=64, shuffle=True)
// Fix: `sampler = DistributedSampler(dataset)`, `DataLoader(dataset,
//   sampler=sampler)`, and `sampler.set_epoch(epoch)` every epoch.
// Not flagged: loaders with any sampler or batch_sampler (`sampler=sampler`
//   that is None off the distributed path included), datasets or
//   generators built from the rank (`shard(rank)`, `Subset(ds,
//   idx[rank::world_size])`, a generator seeded with the rank), validation
//   loaders (not shuffled, not iterated by a training loop), `**kwargs`
//   that might pass a sampler, and files where accelerate or Lightning
//   Fabric prepares the loaders (`accelerator.prepare(...)`,
//   `fabric.setup_dataloaders(...)`).
#include <algorithm>
#include <utility>
#include <vector>

#include "checks/facts.h"

namespace tpf::checks::ddp_without_distributed_sampler {

const std::string_view kExplain = R"(TPF005 ddp_without_distributed_sampler: DistributedDataParallel training with a DataLoader that has no DistributedSampler

What it finds
  a script that wraps the model in `DistributedDataParallel` (or FSDP,
  `fully_shard`) and builds its training `DataLoader` (shuffled, or iterated
  by a loop that backwards or steps) without a `sampler` or `batch_sampler`.

Why it costs
  every rank then trains on the same batches: N GPUs do the work of one,
  and each epoch sees the data N times.

Example
  model = DDP(model, device_ids=[rank])
  loader = DataLoader(dataset, batch_size=64, shuffle=True)

Fix
  `sampler = DistributedSampler(dataset)`, `DataLoader(dataset,
  sampler=sampler)`, and `sampler.set_epoch(epoch)` every epoch.

Not flagged
  - loaders with any sampler or batch_sampler (also `sampler=sampler` that is
    None when not distributed)
  - datasets or generators built from the rank: `ds.shard(rank)`,
    `Subset(ds, idx[rank::world_size])`, a generator seeded with the rank,
    also on one branch only (`if world > 1: ds = split_dataset_by_node(ds,
    rank=rank, world_size=world)`)
  - validation loaders: not shuffled and not iterated by a training loop
  - `**kwargs` that might pass a sampler
  - scripts where accelerate or Lightning Fabric prepares the loaders
    (`accelerator.prepare(...)`, `fabric.setup_dataloaders(...)`)
  - test suites not run as programs (a file under `tests/` or named
    `test_*.py` / `*_test.py`): their helpers give every rank the same
    seeded data on purpose, to compare against a control run
)";


namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF005);

bool is_distributed_wrapper(std::string_view n) {
  static constexpr std::string_view kNames[] = {
      "torch.nn.parallel.DistributedDataParallel",
      "torch.nn.parallel.distributed.DistributedDataParallel",
      "torch.distributed.fsdp.FullyShardedDataParallel",
      "torch.distributed.fsdp.fully_sharded_data_parallel.FullyShardedDataParallel",
      "torch.distributed.fsdp.fully_shard",
      "torch.distributed._composable.fsdp.fully_shard"};
  return std::find(std::begin(kNames), std::end(kNames), n) != std::end(kNames);
}

/// Text that ties data to the process: the rank, the world size, shards.
bool mentions_rank(std::string_view text) {
  for (std::string_view w : {"rank", "world_size", "num_replicas", "shard", "world"})
    if (text.find(w) != std::string_view::npos) return true;
  return false;
}

class Rule {
 public:
  explicit Rule(const CheckContext& ctx) : ctx_(ctx) {}

  void run(DiagSink& out) {
    // Nothing is reported without a call of a distributed wrapper
    // (scan_file returns false): look for one among the file's distinct
    // call targets before scanning every call.
    if (!file_calls_any(ctx_, is_distributed_wrapper)) return;
    if (!scan_file()) return;
    // A test suite's helper trains every rank on the same seeded data on
    // purpose, to compare a distributed run against a control run.
    if (test_suite_file(ctx_)) return;
    for (const auto& [fid, i] : loaders_) {
      const ir::Function& f = ctx_.ir.fn(fid);
      const ir::Inst& in = f.inst(i);
      // DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, ...)
      if (call_arg(ctx_, f, in, 3, "sampler").valid() ||
          call_arg(ctx_, f, in, 4, "batch_sampler").valid() || has_unpacked_args(f, in))
        continue;
      if (rank_dependent(f, in)) continue;
      dataflow::BoolArg shuffle = dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid, in, 2, "shuffle");
      if (shuffle != dataflow::BoolArg::True && !iterated_by_training(fid, i)) continue;
      Diagnostic d = make_diagnostic(
          kRule, in.span,
          "`" + call_text(ctx_, f, in) +
              "` has no `DistributedSampler` while the model is wrapped in `" + wrapper_ +
              "`; every rank trains on the same batches, so N GPUs do the work of one",
          std::string("pass `sampler=DistributedSampler(dataset)`") +
              (shuffle == dataflow::BoolArg::True ? " (and drop `shuffle=True`)" : "") +
              ", and call `sampler.set_epoch(epoch)` every epoch");
      const ir::Function& wf = ctx_.ir.fn(wrap_.first);
      d.notes.push_back({wf.inst(wrap_.second).span, "the model is wrapped for distributed training here"});
      out.report(std::move(d));
    }
  }

 private:
  /// Finds the wrapper call and the loaders; false when the rule does not
  /// apply (no wrapper, or accelerate / Fabric prepares the loaders).
  bool scan_file() {
    bool wrapped = false;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId fid(fi);
      const ir::Function& f = ctx_.ir.fn(fid);
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& in = f.insts[i];
        if (in.op != ir::Op::Call) continue;
        ir::InstId id(i);
        std::string_view name = call_target_name(ctx_, fid, id);
        std::string_view m = call_method(ctx_, f, in);
        if (m == "prepare" || m == "prepare_data_loader" || m == "setup_dataloaders") return false;
        if (is_distributed_wrapper(name) && !wrapped) {
          wrapped = true;
          wrap_ = {fid, id};
          wrapper_ = name.ends_with("fully_shard") ? "fully_shard"
                     : name.ends_with("FullyShardedDataParallel") ? "FullyShardedDataParallel"
                                                                  : "DistributedDataParallel";
        }
        if (is_dataloader(ctx_, fid, id)) loaders_.push_back({fid, id});
      }
    }
    return wrapped;
  }

  /// The loader's arguments, or the expression that built its dataset,
  /// mention the rank: the data is split per process another way.
  bool rank_dependent(const ir::Function& f, const ir::Inst& in) const {
    if (mentions_rank(source_text(ctx_, in.span))) return true;
    // The dataset's definitions, through `ds = ds.shard(...)` chains,
    // wrappers and the branches a phi joins (`if world > 1: data =
    // split_dataset_by_node(data, rank=rank, ...)`): split on any path is
    // split where it matters, since the other path has one process.
    std::vector<std::pair<ir::ValueId, int>> work{{call_arg(ctx_, f, in, 0, "dataset"), 0}};
    size_t budget = 32;
    while (!work.empty() && budget-- > 0) {
      auto [ds, depth] = work.back();
      work.pop_back();
      if (!ds.valid() || depth >= 6) continue;
      const ir::Inst& d = f.def(ds);
      if (d.op == ir::Op::Phi) {
        for (ir::ValueId v : f.operands(d)) work.push_back({v, depth + 1});
        continue;
      }
      if (d.op == ir::Op::Param) continue;
      if (mentions_rank(source_text(ctx_, d.span))) return true;
      if (d.op != ir::Op::Call) continue;
      // `ds = ds.shard(...)` chains and wrappers: look one call further in.
      ir::ValueId next = call_receiver(f, d);
      work.push_back({next.valid() ? next : call_arg(ctx_, f, d, 0, ""), depth + 1});
    }
    return false;
  }

  /// The loader value is iterated (directly or through enumerate / tqdm /
  /// zip) by a loop of the same function that backwards or steps.
  bool iterated_by_training(ir::FunctionId fid, ir::InstId loader) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    ir::ValueId lv = f.insts[loader.v].result;
    if (!lv.valid()) return false;
    const ir::LoopInfo& li = loops_of(ctx_, fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& it = f.insts[i];
      if (it.op != ir::Op::GetIter) continue;
      ir::ValueId src = f.operands(it)[0];
      bool ours = src == lv;
      if (!ours && f.def(src).op == ir::Op::Call) {
        auto ops = f.operands(f.def(src));
        ours = std::find(ops.begin() + 1, ops.end(), lv) != ops.end();
      }
      if (!ours || !it.result.valid()) continue;
      for (uint32_t j = 0; j < f.insts.size(); ++j) {
        const ir::Inst& fi = f.insts[j];
        if (fi.op != ir::Op::ForIter || f.operands(fi)[0] != it.result) continue;
        uint32_t l = li.loop_with_header(f.block_of(ir::InstId(j)));
        if (l == UINT32_MAX) continue;
        for (ir::InstId k : loop_insts(ctx_, fid, l))
          if (call_effects(ctx_, fid, k) & (dataflow::kBackward | dataflow::kOptimizerStep))
            return true;
      }
    }
    return false;
  }

  const CheckContext& ctx_;
  std::pair<ir::FunctionId, ir::InstId> wrap_;
  std::string wrapper_;
  std::vector<std::pair<ir::FunctionId, ir::InstId>> loaders_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) { Rule(ctx).run(out); }

}  // namespace tpf::checks::ddp_without_distributed_sampler
