// TPF012 dataloader_without_workers
//
// What it finds: a `DataLoader` with `num_workers=0` (or unset) or without
//   `pin_memory=True` in a script that trains on CUDA (a backward or
//   optimizer step in a loop, and `.cuda()`, a "cuda" device or
//   `torch.cuda.is_available()` somewhere in the file).
// Why it costs: with no workers, loading and augmentation run in the
//   training process between steps, so the GPU waits for every batch;
//   unpinned (pageable) memory makes host-to-device copies slower and
//   forbids `non_blocking=True` overlap (PyTorch 2.x, torch.utils.data).
// Example:
//     loader = DataLoader(dataset, batch_size=64, shuffle=True)
// Fix: `DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4,
//   pin_memory=True)`.
// Not flagged: scripts that do not use CUDA or do not train, files not run
//   as a program (library code, test suites: no `__name__` test, no
//   `parse_args()`, no training loop at module level), values the file
//   does not fix (`num_workers=args.workers`, `**loader_kwargs`),
//   `TensorDataset`s of tensors already on the GPU, and
//   a loader no loop trains on over a dataset of the file whose
//   `__getitem__` calls nothing (the prompts a generation loop samples
//   before training: nothing to load in a worker or to pin), and a loader
//   whose items go only to a diffusers or transformers pipeline and
//   builtins (prompts, wherever the dataset class is defined).
#include <algorithm>

#include "checks/facts.h"

namespace tpf::checks::dataloader_without_workers {

const std::string_view kExplain = R"(TPF012 dataloader_without_workers: DataLoader without worker processes or pinned memory in a CUDA training script

What it finds
  a `DataLoader` with `num_workers=0` (or unset) or without
  `pin_memory=True` in a script that trains on CUDA: a backward or optimizer
  step in a loop, and `.cuda()`, a "cuda" device or
  `torch.cuda.is_available()` in the file.

Why it costs
  loading then runs in the training process between steps, so the GPU
  waits for every batch; unpinned memory makes host-to-device copies slower
  and synchronous.

Example
  loader = DataLoader(dataset, batch_size=64, shuffle=True)

Fix
  `DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4,
  pin_memory=True)`.

Not flagged
  - scripts that do not use CUDA, files that do not train, and files not
    run as a program (library code, test suites)
  - values the file does not fix: `num_workers=args.workers`, `**loader_kwargs`
  - a `TensorDataset` of tensors already on the GPU
  - a loader no loop trains on, over a dataset class of the file whose
    `__getitem__` calls nothing (prompts sampled for generation): nothing
    to load in a worker or to pin
  - a loader whose items only go to a diffusers or transformers pipeline
    (and builtins): prompts for generation, strings with nothing to pin
)";


namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF012);

using dataflow::BoolArg;

/// `TensorDataset(x.cuda(), y.to(device))`: the data is on the GPU already,
/// so workers and pinning do not apply.
bool dataset_on_device(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f,
                       const ir::Inst& loader) {
  ir::ValueId ds = call_arg(ctx, f, loader, 0, "dataset");
  if (!ds.valid() || f.def(ds).op != ir::Op::Call) return false;
  ir::InstId di = f.def_id(ds);
  if (call_target_name(ctx, fid, di) != "torch.utils.data.TensorDataset") return false;
  auto ops = f.operands(f.inst(di));
  for (size_t a = 1; a < ops.size(); ++a) {
    if (f.def(ops[a]).op != ir::Op::Call) continue;
    dataflow::TorchCall k = torch_call(ctx, fid, f.def_id(ops[a]));
    if (k == dataflow::TorchCall::Cuda || k == dataflow::TorchCall::To) return true;
  }
  return false;
}

/// `Dataset(...)` of a class of the file whose `__getitem__` makes no call
/// (it only indexes or returns what the object already holds), for a
/// loader that no loop trains on: prompts for a generation pass, where
/// workers and pinning have nothing to do. A training loop over in-memory
/// tensors still gains from pinned batches, so it keeps its finding.
bool nothing_to_load(const CheckContext& ctx, ir::FunctionId fid, const ir::Function& f,
                     const ir::Inst& loader) {
  ir::ValueId ds = call_arg(ctx, f, loader, 0, "dataset");
  if (!ds.valid() || f.def(ds).op != ir::Op::Call) return false;
  if (!loader.result.valid() || trained_on(ctx, fid, loader.result)) return false;
  ir::CallTarget t = ctx.facts.res.call_target(fid, f.def_id(ds));
  if (t.kind != ir::CallTarget::Kind::Constructor || !t.cls.valid()) return false;
  const ir::Class& c = ctx.ir.cls(t.cls);
  ir::FunctionId get;
  for (const auto& [name, fn] : c.methods)
    if (ctx.ir.names.str(name) == "__getitem__") get = fn;
  if (!get.valid()) return false;
  for (const ir::Inst& in : ctx.ir.fn(get).insts)
    if (in.op == ir::Op::Call) return false;
  return true;
}

/// The loader built at `li` serves text prompts to a generation pipeline
/// (dreambooth's class-image sampling: `for example in sample_dataloader:
/// pipeline(example["prompt"])`): some loop of the file over it (followed
/// through the objects fact: `accelerator.prepare`, `tqdm`, globals) hands
/// its items, or parts of them, to a diffusers or transformers pipeline,
/// and no loop moves them to a device, casts them or gives them to torch or
/// to any other callee than a pipeline or a builtin. The pipeline
/// tokenizes the prompts itself; the batches hold strings and indices, so
/// there is nothing for workers to load or for pinned memory to speed up.
bool serves_prompts(const CheckContext& ctx, ir::FunctionId fid, ir::InstId li) {
  const dataflow::Objects& objs = ctx.facts.objects();
  std::vector<uint32_t> mine;
  for (uint32_t o : objs.of(fid, ctx.ir.fn(fid).inst(li).result))
    if (objs.obj(o).kind == dataflow::ObjKind::Loader && objs.obj(o).site == li && objs.obj(o).fn == fid)
      mine.push_back(o);
  if (mine.empty()) return false;
  auto is_pipeline = [&](ir::FunctionId g, const ir::Function& f, ir::ValueId callee) {
    const ir::Inst& d = f.def(callee);
    if (d.op != ir::Op::Call) return false;
    std::string_view n = call_target_name(ctx, g, f.def_id(callee));
    return (n.starts_with("diffusers.") && n.find("Pipeline") != std::string_view::npos) ||
           n == "transformers.pipeline" || n == "transformers.pipelines.pipeline";
  };
  bool prompts = false;
  for (uint32_t gi = 0; gi < ctx.ir.functions.size(); ++gi) {
    ir::FunctionId g(gi);
    const ir::Function& f = ctx.ir.fn(g);
    for (uint32_t ni = 0; ni < f.insts.size(); ++ni) {
      const ir::Inst& next = f.insts[ni];
      if (next.op != ir::Op::NextItem || next.nops == 0 || !next.result.valid()) continue;
      bool over = false;
      for (uint32_t o : objs.of(g, f.operands(next)[0]))
        over |= std::find(mine.begin(), mine.end(), o) != mine.end();
      if (!over) continue;
      // The item and what is read out of it: `example["prompt"]`, `a, b = item`.
      std::vector<ir::ValueId> items{next.result};
      for (size_t k = 0; k < items.size(); ++k) {
        if (items.size() > 64) return false;
        for (ir::InstId u : users_of(f, items[k])) {
          const ir::Inst& ui = f.inst(u);
          auto ops = f.operands(ui);
          switch (ui.op) {
            case ir::Op::GetItem:
            case ir::Op::Unpack:
            case ir::Op::Element:
            case ir::Op::GetAttr:
              if (ops[0] == items[k] && ui.result.valid()) items.push_back(ui.result);
              continue;
            case ir::Op::Call: {
              if (ops[0] != items[k] && is_pipeline(g, f, ops[0])) {
                prompts = true;
                continue;
              }
              std::string_view n = call_target_name(ctx, g, u);
              if (ops[0] != items[k] && (n == "builtins.list" || n == "builtins.tuple")) {
                if (ui.result.valid()) items.push_back(ui.result);  // `list(batch)`: the same strings
                continue;
              }
              if (ops[0] != items[k] && n.starts_with("builtins.")) continue;  // len, int, str
              return false;  // a tensor op, a move, a model, a helper: may be tensors
            }
            default:
              continue;  // arithmetic, formatting, comparisons
          }
        }
      }
    }
  }
  return prompts;
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // Only DataLoader calls are reported: skip files that make none.
  if (!file_calls_any(ctx, is_dataloader_name)) return;
  bool asked = false, applies = false;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op != ir::Op::Call || !is_dataloader(ctx, fid, ir::InstId(i))) continue;
      if (!asked) {
        asked = true;
        applies = trains_in_loop(ctx) && uses_cuda(ctx) && is_program(ctx);
      }
      if (!applies) return;
      // DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler,
      //            num_workers, collate_fn, pin_memory, ...)
      BoolArg workers = dataflow::bool_arg(ctx.ir, ctx.facts.res, fid, in, 5, "num_workers");
      BoolArg pin = dataflow::bool_arg(ctx.ir, ctx.facts.res, fid, in, 7, "pin_memory");
      bool no_workers = workers == BoolArg::Absent || workers == BoolArg::False;
      bool no_pin = pin == BoolArg::Absent || pin == BoolArg::False;
      if (!no_workers && !no_pin) continue;
      if (dataset_on_device(ctx, fid, f, in) || nothing_to_load(ctx, fid, f, in) ||
          serves_prompts(ctx, fid, ir::InstId(i)))
        continue;
      std::string text = call_text(ctx, f, in);
      std::string why_workers =
          workers == BoolArg::Absent ? "`num_workers` unset" : "`num_workers=0`";
      std::string message;
      if (no_workers && no_pin)
        message = "`" + text + "` loads every batch in the training process (" + why_workers +
                  ") into pageable memory; the GPU waits for each batch";
      else if (no_workers)
        message = "`" + text + "` loads every batch in the training process (" + why_workers +
                  "); the GPU waits for each batch";
      else
        message = "`" + text +
                  "` does not pin memory; host-to-device copies are slower and cannot overlap "
                  "compute";
      std::string help = no_workers && no_pin ? "pass `num_workers=4` (or more) and `pin_memory=True`"
                         : no_workers         ? "pass `num_workers=4` (or more)"
                                              : "pass `pin_memory=True`";
      out.report(make_diagnostic(kRule, in.span, std::move(message), std::move(help)));
    }
  }
}

}  // namespace tpf::checks::dataloader_without_workers
