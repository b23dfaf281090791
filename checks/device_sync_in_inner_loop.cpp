// TPF009 device_sync_in_inner_loop
//
// What it finds: a device-to-host copy (`.item()`, `.cpu()`, `.numpy()`,
//   `.tolist()`) of a value computed per element of an inner loop that is
//   nested in the training step (a loop that backwards or steps, the inner
//   loop itself does neither), or `torch.cuda.synchronize()` on every
//   iteration of the step loop (not under a condition).
// Why it costs: each sync stalls the host until the GPU drains its queue,
//   so the GPU idles between kernels; per-element syncs can make a step
//   many times slower.
// Example:
//     for i in range(len(preds)):
//         if preds[i].item() == labels[i].item():
//             correct += 1
// Fix: compare on the device and sync once: `correct += (preds ==
//   labels).sum().item()`.
// Reported once per inner loop, at its first copy in source order (the
//   loop is what to change); its other copies are notes, and a copy of a
//   copy's result (`.numpy()` after `.cpu()`) is no second sync.
// Not flagged: one `.item()` per step for logging (or per micro-batch of
//   a loop that itself backwards, or per entry of a dict of loss terms:
//   `{k: v.item() for k, v in losses.items()}`, `for k in d: d[k].item()`,
//   or per item of a list of loss terms built in the step and summed into
//   its backward: `losses[k].item()` after `sum(losses).backward()`),
//   per-element loops only some steps run
//   (`if step % eval_every == 0`), syncs outside the
//   training step (evaluation helpers), syncs under no_grad (a validation
//   pass run from the step loop), syncs of values fixed for the inner loop,
//   copies of the loader's batch before it is moved (host tensors), rollout
//   loops whose only `step(action)` is an environment's,
//   synchronize under a condition (a logging interval), synchronize followed
//   in the same step by a host read every step runs (`.item()`, `float(t)`
//   of a tensor, or a project function or method that reads on every path,
//   such as a metrics class's `float(err.mean())`: that read waits for the
//   same queue, so the synchronize adds nothing), synchronize after a host
//   read that runs on every path of the step with only host numbers handled
//   between (`meter.update(loss.item())`: the queue is already drained),
//   synchronize for a timing read in a loop that steps no optimizer (a
//   kernel benchmark: the synchronize is the measurement), copies in a loop
//   over a literal list of field names (`for f in LOG_FIELDS:
//   getattr(info, f).item()`), copies in `test*` functions of a test
//   suite's file (assertions), and synchronize in
//   files not run as a program (test suites, libraries: no `__name__` test,
//   no `parse_args()`) or in `test_*` functions; files that place nothing
//   on a GPU (host tensors: nothing to wait for); copies after a
//   `torch.cuda.synchronize()` with no backward or step since (the queue is
//   empty), copies under a test the elements share but the steps do not
//   (`for l in losses: if step % 50 == 0: l.item()`), and copies of numpy
//   arrays or of a batch from `next(iter(loader))` (host values).
// TODO(checks): `print(tensor)` per element is not recognized yet.
#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include "checks/facts.h"

namespace tpf::checks::device_sync_in_inner_loop {

const std::string_view kExplain = R"(TPF009 device_sync_in_inner_loop: device-to-host sync per element in an inner loop, or cuda synchronize every step

What it finds
  a device-to-host copy (`.item()`, `.cpu()`, `.numpy()`, `.tolist()`,
  `print(tensor)`) per element inside an inner loop of the training step, or
  `torch.cuda.synchronize()` every step.

Why it costs
  each sync stalls the host until the GPU drains its queue, so the GPU
  idles between kernels; per-element syncs can make a step many times
  slower.

Example
  for i in range(len(preds)):
      if preds[i].item() == labels[i].item():
          correct += 1

Fix
  compare on the device and sync once: `correct += (preds ==
  labels).sum().item()`.

  One finding per inner loop, at its first copy; the loop's other copies
  are listed as notes (`.numpy()` after `.cpu()` is no second sync).

Not flagged
  - one `.item()` per step for logging, or per micro-batch of an inner
    loop that itself runs backward (gradient accumulation), or per entry
    of a dict of loss terms (`{k: v.item() for k, v in losses.items()}`,
    or `for name in meters:` over a dict of meters built in the function,
    or `for name in loss_dict: loss_dict[name].item()`, a container indexed
    by its own items: a mapping's keys), or per item of a list of loss
    terms built in the step and summed into what it backwards
    (`terms = [w * crit(p, y) for w, p in zip(weights, preds)]`,
    `sum(terms).backward()`, `for t in terms: t.item()`): one loss per
    stage or head of the model, a handful fixed by the code
  - per-element loops that only some steps run (`if step % eval_every == 0:`)
  - syncs outside the training step (an evaluation helper), and under
    no_grad (a validation pass run every N steps from the step loop)
  - per-batch reads of an evaluation loop beside the batch loop, in an
    epoch loop that itself only steps an lr scheduler (one chosen on a
    branch among several too)
  - `torch.cuda.synchronize()` in files not run as a program (test suites,
    libraries) and in `test_*` functions; any copy in a test suite's file
    (under `tests/`, `test_*.py`, not run as a program): its host reads are
    the checks
  - syncs of values that do not change within the inner loop
  - programs that place nothing on a GPU (no `.cuda()`, `.to(...)`,
    `device=`, cuda in any text, launcher or accelerate import, nor a call
    into another project module that could): their tensors are on the host (a CPU-only
    RL script's `action.item()` for `env.step`, also when its module code
    just calls `train()`)
  - copies of the DataLoader's batch before it is moved to the GPU
    (`[label.tolist() for label in target]`): host tensors, nothing to wait for
  - rollout loops whose only `step(...)` is an environment's
    (`envs.step(action)`): no training step
  - `torch.cuda.synchronize()` under a condition (a logging interval), or
    followed later in the step by a host read that runs every step: a
    `.item()`, `float(t)` / `int(t)` of a tensor (`float(loss)`), or a call
    of a function or method of the project that reads on every path (a
    metrics class of another module doing `float(err.mean())`). That read
    waits for the same queue, so the synchronize adds no stall;
    `float(...)` of a Python number is no read
  - `torch.cuda.synchronize()` after a host read that runs on every path
    of the step, with nothing between them but calls and arithmetic fed
    only host numbers (`meter.update(loss.item(), x.size(0))`, a running
    total of reads): the read already drained the queue. Work queued in
    between (an EMA update, a tensor operator) still counts
  - `torch.cuda.synchronize()` followed by a timing read
    (`start.elapsed_time(end)`, `time.perf_counter()`) in a loop that steps
    no optimizer: a kernel benchmark's forward and backward, no training
    step; the synchronize is the measurement
  - copies in a loop over a literal list of field names, written in the
    loop or bound only to such lists as a module global
    (`for f in LOG_FIELDS: getattr(info, f).item()`): a handful fixed by
    the code
  - copies in `test*` functions of a test suite's file (under `tests/`,
    `test_*.py`), also one run as a program: the reads are assertions
  - copies after a `torch.cuda.synchronize()` with no backward or step
    launched since: the queue is empty, each copy waits for nothing
  - copies under a test that is the same for every element but not for
    every step (`for l in losses: if step % print_freq == 0: l.item()`):
    a log line some steps write
  - copies of numpy arrays (`np.asarray(rows)`, the rows of a loop over
    them) and of the parts of a batch drawn with `next(iter(loader))`,
    also through methods that keep the device (`batch[k].float().mean()`)
)";


namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF009);
constexpr int kNumpySteps = 16;  // see numpy_value

using dataflow::TorchCall;

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {}

  void run(DiagSink& out) {
    if (li_.loops.empty()) return;
    // Per inner loop, its per-element copies: one finding per loop, since
    // the fix (compute on the device, sync once) is one change to the loop,
    // however many copies it makes (`preds[i].item() == y[i].item()`,
    // `x.cpu().numpy()`).
    std::map<uint32_t, std::vector<ir::InstId>> per_loop;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId id(i);
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call) continue;
      uint32_t l = li_.loop_of(f_.block_of(id));
      if (l == UINT32_MAX) continue;
      TorchCall k = torch_call(ctx_, fid_, id);
      if (k == TorchCall::CudaSynchronize) {
        if (steps_in(l) && every_iteration(id, l) && !in_test() && run_as_program() &&
            !synced_after(id, l) && !synced_before(id, l) && !measures(id, l))
          out.report(make_diagnostic(
              kRule, in.span,
              "`" + call_text(ctx_, f_, in) +
                  "` on every training step stalls the host until the GPU drains its queue; "
                  "kernel launches stop overlapping with compute",
              "drop it, or synchronize only when measuring (every N steps)"));
        continue;
      }
      if (k != TorchCall::Item && k != TorchCall::ToList && k != TorchCall::Numpy &&
          k != TorchCall::Cpu)
        continue;
      uint32_t p = li_.loops[l].parent;
      if (p == UINT32_MAX || trains_in(l) || !steps_in(p)) continue;
      // An inner loop only some steps run (`if step % eval_every == 0:`) is
      // periodic logging or evaluation, not a per-step cost.
      if (!every_iteration(first_inst(li_.loops[l].header), p)) continue;
      // The same inside the loop: a copy under a test the elements share
      // but the steps do not (`for l in losses: if step % 50 == 0:`).
      if (periodic_in(id, l, p)) continue;
      // After `torch.cuda.synchronize()` with no step launched since, the
      // queue is empty: each copy finds an idle GPU and waits for nothing.
      if (drained_before(id, l, p)) continue;
      // Under no_grad the inner loop is a validation pass run from the
      // step loop (every N steps), one sync per batch: not per element.
      if (dataflow::under_no_grad(ctx_.facts, fid_, id)) continue;
      if (over_dict(l) || over_names(l)) continue;
      // A unit test's host reads are its checks (`self.assertTrue(
      // torch.isfinite(g).all().item())` per hyper-gradient).
      if (in_test() && test_path()) continue;
      ir::ValueId recv = call_receiver(f_, in);
      if (!recv.valid() || !defined_in(recv, l)) continue;
      // A part of the loader's batch before any `.to(device)`: a host
      // tensor, whose copy waits for nothing.
      if (host_value(recv)) continue;
      if (loss_term(recv, p)) continue;
      per_loop[l].push_back(id);
    }
    for (auto& [l, copies] : per_loop) report(l, copies, out);
  }

 private:
  /// One finding for inner loop `l`, at its first copy in source order;
  /// the others are notes. A copy of a copy's result (`.numpy()` after
  /// `.cpu()`) is no second sync: it is left out.
  void report(uint32_t l, std::vector<ir::InstId>& copies, DiagSink& out) const {
    std::erase_if(copies, [&](ir::InstId c) {
      ir::ValueId recv = call_receiver(f_, f_.inst(c));
      if (f_.def(recv).op != ir::Op::Call) return false;
      TorchCall k = torch_call(ctx_, fid_, f_.def_id(recv));
      return k == TorchCall::Cpu || k == TorchCall::Numpy || k == TorchCall::ToList;
    });
    if (copies.empty()) return;
    std::sort(copies.begin(), copies.end(), [&](ir::InstId a, ir::InstId b) {
      return f_.inst(a).span.begin < f_.inst(b).span.begin;
    });
    const ir::Inst& in = f_.inst(copies[0]);
    Diagnostic d = make_diagnostic(
        kRule, in.span,
        "`" + call_text(ctx_, f_, in) +
            "` copies to the host and waits for the GPU once per element of this inner "
            "loop, many syncs every training step",
        "compute on the device and sync once per step, e.g. `(preds == labels).sum().item()`, "
        "or call `.tolist()` once before the loop");
    d.notes.push_back({f_.block(li_.loops[l].header).first < f_.insts.size()
                           ? f_.insts[f_.block(li_.loops[l].header).first].span
                           : in.span,
                       "the per-element loop"});
    for (size_t c = 1; c < copies.size(); ++c)
      d.notes.push_back({f_.inst(copies[c]).span,
                         "`" + call_text(ctx_, f_, f_.inst(copies[c])) + "`, another sync per element"});
    out.report(std::move(d));
  }

  /// Loop `l` is a step loop: it backwards or steps an optimizer in its own
  /// body, not only in a nested loop (the epoch loop around a batch loop
  /// and a validation loop is no step loop).
  bool steps_in(uint32_t l) const {
    for (ir::InstId k : loop_insts(ctx_, fid_, l))
      if (li_.loop_of(f_.block_of(k)) == l && trains_at(k)) return true;
    return false;
  }

  /// The call backwards or steps an optimizer; an environment's or
  /// sampler's `step(action)` in a rollout loop does neither.
  bool trains_at(ir::InstId k) const {
    return (call_effects(ctx_, fid_, k) & (dataflow::kBackward | dataflow::kOptimizerStep)) &&
           !steps_other_object(ctx_, fid_, k) && !scheduler_step(k);
  }

  /// `scheduler.step()` on an object that may be an lr scheduler and is no
  /// optimizer: when the scheduler is one of several built on different
  /// branches (`if args.scheduler == "cos": ... elif ...: StepLR(...)`)
  /// the call is not told apart from an optimizer's step by its target,
  /// but the epoch loop that runs it trains nothing itself.
  bool scheduler_step(ir::InstId k) const {
    const ir::Inst& in = f_.inst(k);
    if (call_method(ctx_, f_, in) != "step") return false;
    ir::ValueId recv = call_receiver(f_, in);
    return recv.valid() && ctx_.facts.objects().may_be(fid_, recv, dataflow::ObjKind::Scheduler) &&
           !optimizer_value(ctx_, fid_, recv);
  }

  /// Loop `l` backwards or steps anywhere, nested loops included: a loop
  /// over micro-batches is part of the step, one sync per micro-batch is
  /// per-step logging.
  bool trains_in(uint32_t l) const {
    // Any step counts here, an environment's too: a rollout loop
    // (`env.step(action.item())`) copies what the environment needs, once
    // per step of it, not per element.
    for (ir::InstId k : loop_insts(ctx_, fid_, l))
      if (call_effects(ctx_, fid_, k) & (dataflow::kBackward | dataflow::kOptimizerStep)) return true;
    return false;
  }

  ir::InstId first_inst(ir::BlockId b) const { return ir::InstId(f_.block(b).first); }

  /// Loop `l` runs over a dict (`d.items()`, `d.values()`, `d.keys()`, or
  /// a dict built in the function):
  /// the loss terms or metrics of the step, a handful fixed by the code,
  /// logged once per step, not one per sample of the batch.
  bool over_dict(uint32_t l) const {
    const ir::Inst& head = f_.terminator(li_.loops[l].header);
    if (head.op != ir::Op::ForIter) return false;
    ir::ValueId it = f_.operands(head)[0];
    if (f_.def(it).op != ir::Op::GetIter) return false;
    ir::ValueId src = f_.operands(f_.def(it))[0];
    // `for name in meters:` over a dict built here (a literal or a
    // comprehension: `{l: AverageMeter() for l in loss_names}`): its keys.
    if (f_.def(src).op == ir::Op::BuildDict) return true;
    // `for k in d: d[k]`: the loop indexes what it iterates with its own
    // items, the keys of a mapping (a dict of loss terms a closure
    // returned: `for name in loss_dict: loss_dict[name].item()`).
    for (const ir::Inst& x : f_.insts) {
      if (x.op != ir::Op::NextItem || f_.operands(x)[0] != it) continue;
      for (ir::InstId u : users_of(f_, x.result)) {
        const ir::Inst& g = f_.inst(u);
        if (g.op == ir::Op::GetItem && f_.operands(g)[0] == src && f_.operands(g)[1] == x.result) return true;
      }
    }
    if (f_.def(src).op != ir::Op::Call) return false;
    std::string_view m = call_method(ctx_, f_, f_.def(src));
    return m == "items" || m == "values" || m == "keys";
  }

  /// Loop `l` runs over a list or tuple of string literals, written in
  /// the loop or bound once to a module global (`loss_info_fields =
  /// ["model_loss", ...]`, `for field in loss_info_fields:
  /// getattr(info, field).item()`): the named fields of a record, a
  /// handful fixed by the code, not one per sample of the batch.
  bool over_names(uint32_t l) const {
    const ir::Inst& head = f_.terminator(li_.loops[l].header);
    if (head.op != ir::Op::ForIter) return false;
    ir::ValueId it = f_.operands(head)[0];
    if (f_.def(it).op != ir::Op::GetIter) return false;
    ir::ValueId src = f_.operands(f_.def(it))[0];
    const ir::Inst& d = f_.def(src);
    if (d.op != ir::Op::LoadGlobal) return string_list(f_, src, fid_);
    // Every binding of the global in module code is such a list.
    const ir::Function& m = ctx_.ir.fn(ir::FunctionId(0));
    ir::Symbol name = static_cast<ir::Symbol>(d.aux);
    bool any = false;
    for (uint32_t vi = 0; vi < m.values.size(); ++vi) {
      ir::VarId var = m.values[vi].var;
      if (!var.valid() || m.vars[var.v].name != name) continue;
      if (!string_list(m, ir::ValueId(vi), ir::FunctionId(0))) return false;
      any = true;
    }
    return any;
  }

  /// `v` (of function `fn`) is a list or tuple literal of strings only.
  bool string_list(const ir::Function& fn, ir::ValueId v, ir::FunctionId fid) const {
    const ir::Inst& d = fn.def(v);
    if (d.op != ir::Op::BuildList && d.op != ir::Op::BuildTuple) return false;
    for (ir::ValueId o : fn.operands(d))
      if (ctx_.facts.res.constant(fid, o).kind != ir::ConstValue::Kind::Str) return false;
    return fn.operands(d).size() > 0;
  }

  /// The file lies in a test suite by its path (under `tests/`,
  /// `test_*.py`), whether or not it also runs as a program
  /// (`unittest.main()`).
  bool test_path() const {
    std::string_view path = ctx_.src.path;
    size_t slash = path.rfind('/');
    std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
    if (base.starts_with("test_") || base.ends_with("_test.py")) return true;
    for (std::string_view dir : {"tests/", "test/"})
      if (path.starts_with(dir) || path.find(std::string("/") + std::string(dir)) != std::string_view::npos)
        return true;
    return false;
  }

  /// `v` is an item of a list of the step's loss terms: a list built in
  /// step loop `p` (`losses = []` plus `append`, or a comprehension), whose
  /// items are summed into what a backward of `p` differentiates
  /// (`sum(losses).backward()`, `loss = losses[0]; loss += losses[k]`).
  /// Like the dict of loss terms, it holds one loss per stage or head of
  /// the model, a handful fixed by the code, logged once per step.
  bool loss_term(ir::ValueId v, uint32_t p) const {
    const ir::Inst& d = f_.def(v);
    ir::ValueId list;
    if (d.op == ir::Op::GetItem) {
      list = f_.operands(d)[0];
    } else if (d.op == ir::Op::NextItem) {
      const ir::Inst& gi = f_.def(f_.operands(d)[0]);
      if (gi.op == ir::Op::GetIter) list = f_.operands(gi)[0];
    }
    if (!list.valid() || f_.def(list).op != ir::Op::BuildList || !defined_in(list, p)) return false;
    for (ir::InstId k : loop_insts(ctx_, fid_, p)) {
      if (torch_call(ctx_, fid_, k) != TorchCall::Backward) continue;
      if (sums_items_of(call_receiver(f_, f_.inst(k)), list, 0)) return true;
    }
    return false;
  }

  /// `v` adds up items of `list`: the list itself or one of its items,
  /// through arithmetic, phis (`loss += losses[k]` in a loop), `sum(...)`,
  /// torch functions (`torch.stack(losses).sum()`) and tensor methods
  /// (`.mean()`, `scaler.scale(loss)`).
  bool sums_items_of(ir::ValueId v, ir::ValueId list, int depth) const {
    // Why 12: a loss is a sum of weighted terms, scaled and averaged a few
    // times before its backward; a phi chain adds a step per loop.
    if (!v.valid() || depth > 12) return false;
    if (v == list) return true;
    const ir::Inst& d = f_.def(v);
    switch (d.op) {
      case ir::Op::BinOp:
      case ir::Op::UnaryOp:
      case ir::Op::Phi:
        for (ir::ValueId o : f_.operands(d))
          if (sums_items_of(o, list, depth + 1)) return true;
        return false;
      case ir::Op::GetItem:
        return sums_items_of(f_.operands(d)[0], list, depth + 1);
      case ir::Op::Call: {
        ir::InstId ci = f_.def_id(v);
        std::string_view n = call_target_name(ctx_, fid_, ci);
        bool method = call_receiver(f_, d).valid();
        if (n != "builtins.sum" && !n.starts_with("torch.") && !method) return false;
        if (method && sums_items_of(call_receiver(f_, d), list, depth + 1)) return true;
        for (uint32_t a = 0; a < positional_count(f_, d); ++a)
          if (sums_items_of(call_arg(ctx_, f_, d, static_cast<int>(a), ""), list, depth + 1)) return true;
        return false;
      }
      default:
        return false;
    }
  }

  /// After the synchronize, later in the same iteration of step loop `l`,
  /// a device-to-host copy runs on every iteration (`loss.item()` for the
  /// log): that copy waits for the same queue, so the synchronize costs
  /// nothing more (it only makes a timer read after it exact).
  bool synced_after(ir::InstId sync, uint32_t l) const {
    ir::BlockId header = li_.loops[l].header;
    bool found = false;
    reachable(f_, sync, [&](ir::InstId j, const ir::Inst& in) {
      if (f_.block_of(j) == header && j == first_inst(header)) return PathStep::Kill;
      if (found || in.op != ir::Op::Call || li_.loop_of(f_.block_of(j)) != l) return PathStep::Pass;
      // A host read (kSync on every path: `.item()`, `float(t)` of a
      // tensor, or a helper of the project that reads on every path, such
      // as a metrics class's `evaluate` doing `float(err.mean())`).
      if ((call_effects_must(ctx_, fid_, j) & dataflow::kSync) && every_iteration(j, l)) found = true;
      return PathStep::Pass;
    });
    return found;
  }

  /// A host read runs before the synchronize on every path of the
  /// iteration of step loop `l`, and nothing between them queues GPU work
  /// (`loss.item()`, `meter.update(loss.item())`, then the synchronize):
  /// the read already waited for the queue, so the synchronize finds it
  /// empty. A call between them queues nothing when it is fed only host
  /// values (the read's numbers, constants); any other call, a tensor
  /// operator or a project function (`moment_update(model, ema)`) may
  /// launch kernels, which the synchronize then waits for.
  bool synced_before(ir::InstId sync, uint32_t l) const {
    ir::BlockId header = li_.loops[l].header;
    // Backward walk over (block, instruction) from just before the sync.
    std::vector<std::pair<ir::BlockId, uint32_t>> work{{f_.block_of(sync), sync.v}};
    std::vector<bool> seen(f_.blocks.size(), false);
    while (!work.empty()) {
      auto [b, end] = work.back();  // instructions [first, end) of b remain
      work.pop_back();
      const ir::Block& blk = f_.block(b);
      bool read = false;
      for (uint32_t j = end; j-- > blk.first;) {
        const ir::Inst& in = f_.insts[j];
        if (in.op == ir::Op::Call && (call_effects_must(ctx_, fid_, ir::InstId(j)) & dataflow::kSync)) {
          read = true;
          break;
        }
        if (launches(ir::InstId(j), l)) return false;
      }
      if (read) continue;
      // Back at the top of the iteration: the previous step's work may
      // still be queued.
      if (b == header) return false;
      for (ir::BlockId p : ir::preds(f_, b)) {
        if (!li_.contains(l, p)) return false;
        if (seen[p.v]) continue;
        seen[p.v] = true;
        work.push_back({p, f_.block(p).first + f_.block(p).count});
      }
    }
    return true;
  }

  /// The instruction may queue GPU work: a call not fed only host values,
  /// or an operator or subscript on something that is not a host value.
  bool launches(ir::InstId j, uint32_t l) const {
    const ir::Inst& in = f_.inst(j);
    switch (in.op) {
      case ir::Op::Call: {
        std::string_view n = call_target_name(ctx_, fid_, j);
        if (n.starts_with("time.") || n == "builtins.print") return false;
        uint32_t np = positional_count(f_, in);
        const ir::CallInfo& ci = f_.call_info(in);
        if (np + ci.nkw == 0) return !n.starts_with("builtins.");
        for (uint32_t a = 0; a < np; ++a)
          if (!host_number(call_arg(ctx_, f_, in, static_cast<int>(a), ""), l)) return true;
        for (uint32_t k = 0; k < ci.nkw; ++k)
          if (!host_number(f_.operands(in)[1 + np + k], l)) return true;
        return false;
      }
      case ir::Op::BinOp:
      case ir::Op::UnaryOp:
        return !host_number(in.result, l);
      case ir::Op::SetItem:
        for (ir::ValueId o : f_.operands(in))
          if (!host_number(o, l)) return true;
        return false;
      default:
        return false;
    }
  }

  /// `v` is a Python value on the host: a constant, the result of a host
  /// read (`loss.item()`), of `time.*`, or arithmetic, phis and builtins
  /// (`copy.copy`, `float`, `len`) of such values.
  bool host_number(ir::ValueId v, uint32_t l) const {
    std::vector<ir::ValueId> phis;
    return host_number(v, l, 0, phis);
  }

  /// `phis`: the phis on the way here; meeting one again is a running
  /// sum of host numbers (`total += loss.item()`), host if its other
  /// operands are.
  bool host_number(ir::ValueId v, uint32_t l, int depth, std::vector<ir::ValueId>& phis) const {
    // Why 8: a logged number is divided, copied and summed a few times.
    if (!v.valid() || depth > 8) return false;
    if (std::find(phis.begin(), phis.end(), v) != phis.end()) return true;
    if (ctx_.facts.res.constant(fid_, v).kind != ir::ConstValue::Kind::Unknown) return true;
    const ir::Inst& d = f_.def(v);
    switch (d.op) {
      case ir::Op::Const:
      case ir::Op::BuildString:
        return true;
      case ir::Op::BinOp: {
        // A read's number with a value fixed for the loop (`loss.item() /
        // world_size`): arithmetic on the host.
        // The number must come from a read, not be a constant: `grad * 2`
        // of a tensor fixed for the loop launches a kernel.
        ir::ValueId a = f_.operands(d)[0], b = f_.operands(d)[1];
        auto konst = [&](ir::ValueId x) {
          return ctx_.facts.res.constant(fid_, x).kind != ir::ConstValue::Kind::Unknown;
        };
        bool ha = host_number(a, l, depth + 1, phis), hb = host_number(b, l, depth + 1, phis);
        if (ha && hb) return true;
        if (ha && !konst(a)) return loop_invariant(ctx_, fid_, l, b);
        if (hb && !konst(b)) return loop_invariant(ctx_, fid_, l, a);
        return false;
      }
      case ir::Op::GetItem:
        // `x.shape[0]`: a dimension, a Python int.
        return f_.def(f_.operands(d)[0]).op == ir::Op::GetAttr &&
               ctx_.ir.names.str(static_cast<ir::Symbol>(f_.def(f_.operands(d)[0]).aux)) == "shape" &&
               host_number(f_.operands(d)[1], l, depth + 1, phis);
      case ir::Op::UnaryOp:
      case ir::Op::Phi:
        if (d.op == ir::Op::Phi) phis.push_back(v);
        for (ir::ValueId o : f_.operands(d))
          if (!host_number(o, l, depth + 1, phis)) return false;
        return true;
      case ir::Op::Call: {
        ir::InstId ci = f_.def_id(v);
        if (call_effects_must(ctx_, fid_, ci) & dataflow::kSync) return true;
        std::string_view n = call_target_name(ctx_, fid_, ci);
        if (n.starts_with("time.")) return true;
        // A tensor's sizes are host metadata (`x.size(0)`, `x.numel()`).
        std::string_view m = call_method(ctx_, f_, d);
        if (m == "size" || m == "numel" || m == "dim") return true;
        if (n != "copy.copy" && n != "builtins.float" && n != "builtins.int" && n != "builtins.round" &&
            n != "builtins.len")
          return false;
        for (uint32_t a = 0; a < positional_count(f_, d); ++a)
          if (!host_number(call_arg(ctx_, f_, d, static_cast<int>(a), ""), l, depth + 1, phis)) return false;
        return true;
      }
      default:
        return false;
    }
  }

  /// The synchronize times work in a loop that steps no optimizer (a
  /// kernel benchmark's forward and backward, read back with
  /// `start.elapsed_time(end)` or `time.perf_counter()` after it): the
  /// loop is no training step, and the synchronize is the measurement.
  bool measures(ir::InstId sync, uint32_t l) const {
    // Any `step(...)` counts, of an object not known to be an optimizer
    // too (`self.optimizer.step()` where the optimizer is built
    // elsewhere), unless it is an lr scheduler's or an environment's.
    for (ir::InstId k : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(k);
      if (in.op != ir::Op::Call) continue;
      bool step = (call_effects(ctx_, fid_, k) & dataflow::kOptimizerStep) || call_method(ctx_, f_, in) == "step";
      if (step && !steps_other_object(ctx_, fid_, k) && !scheduler_step(k)) return false;
    }
    ir::BlockId header = li_.loops[l].header;
    bool timed = false;
    reachable(f_, sync, [&](ir::InstId j, const ir::Inst& in) {
      if (f_.block_of(j) == header && j == first_inst(header)) return PathStep::Kill;
      if (in.op != ir::Op::Call) return PathStep::Pass;
      std::string_view n = call_target_name(ctx_, fid_, j);
      if (call_method(ctx_, f_, in) == "elapsed_time" || n == "time.time" || n == "time.perf_counter" ||
          n == "time.monotonic")
        timed = true;
      return PathStep::Pass;
    });
    return timed;
  }

  /// `v` lives on the host: a part of the loader's batch before any move,
  /// also through tensor methods that keep the device
  /// (`batch["reward"].float().mean()`), or a numpy array.
  bool host_value(ir::ValueId v) const {
    for (int depth = 0; v.valid() && depth < 6; ++depth) {
      if (loader_host_value(ctx_, fid_, v) || numpy_value(v, 0)) return true;
      const ir::Inst& d = f_.def(v);
      if (d.op != ir::Op::Call) return false;
      std::string_view m = call_method(ctx_, f_, d);
      if (m.empty() || m == "cuda" || m == "to" || m == "to_device" || m == "prepare") return false;
      v = call_receiver(f_, d);
    }
    return false;
  }

  /// `v` is a numpy array: a `numpy.*` call's result (`np.asarray(rows)`),
  /// through numpy's reshaping methods and indexing, or the item of a loop
  /// over numpy arrays (`for r, d in zip(mb_rewards, mb_dones)`: every
  /// zipped array). A numpy call waits for no device.
  bool numpy_value(ir::ValueId v, int depth) const {
    // Why 16: a loop item unpacked twice (`for n, (r, d) in
    // enumerate(zip(...))`) is 6 steps from the loop, and an array is
    // reshaped and indexed a few times before.
    if (!v.valid() || depth > kNumpySteps) return false;
    const ir::Inst& d = f_.def(v);
    switch (d.op) {
      case ir::Op::Call: {
        ir::InstId ci = f_.def_id(v);
        if (call_target_name(ctx_, fid_, ci).starts_with("numpy.")) return true;
        std::string_view m = call_method(ctx_, f_, d);
        if (m == "numpy") return true;
        if (m == "swapaxes" || m == "reshape" || m == "astype" || m == "transpose" || m == "squeeze" ||
            m == "copy" || m == "flatten" || m == "ravel")
          return numpy_value(call_receiver(f_, d), depth + 1);
        return false;
      }
      case ir::Op::GetItem:
        return numpy_value(f_.operands(d)[0], depth + 1);
      case ir::Op::Element:
      case ir::Op::Unpack:
        return numpy_value(f_.operands(d)[0], depth + 1);
      case ir::Op::NextItem: {
        const ir::Inst& gi = f_.def(f_.operands(d)[0]);
        if (gi.op != ir::Op::GetIter) return false;
        return numpy_iterable(f_.operands(gi)[0], depth + 1);
      }
      default:
        return false;
    }
  }

  /// A loop over `v` yields numpy arrays (and, under `enumerate`, counters).
  bool numpy_iterable(ir::ValueId v, int depth) const {
    if (!v.valid() || depth > kNumpySteps) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op == ir::Op::Call) {
      std::string_view n = call_target_name(ctx_, fid_, f_.def_id(v));
      if (n == "builtins.enumerate")
        return positional_count(f_, d) >= 1 && numpy_iterable(call_arg(ctx_, f_, d, 0, ""), depth + 1);
      if (n == "builtins.zip") {
        uint32_t k = positional_count(f_, d);
        for (uint32_t i = 0; i < k; ++i)
          if (!numpy_iterable(call_arg(ctx_, f_, d, static_cast<int>(i), ""), depth + 1)) return false;
        return k > 0;
      }
    }
    return numpy_value(v, depth);
  }

  /// The copy runs under a branch whose test is the same for every
  /// element of inner loop `l` but changes from step to step of `p`
  /// (`if step % print_freq == 0:`): a log line some steps write, like an
  /// inner loop under that test.
  bool periodic_in(ir::InstId id, uint32_t l, uint32_t p) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    ir::BlockId ib = f_.block_of(id);
    for (ir::BlockId d = dom.idom(ib); d.valid() && li_.contains(l, d); d = dom.idom(d)) {
      const ir::Inst& t = f_.terminator(d);
      if (t.op != ir::Op::Branch) continue;
      const ir::Block& db = f_.block(d);
      bool guards = false;
      for (int k = 0; k < 2; ++k)
        if (db.succ[k].valid() && dom.dominates(db.succ[k], ib) && ir::preds(f_, db.succ[k]).size() == 1)
          guards = true;
      ir::ValueId c = f_.operands(t)[0];
      if (guards && loop_invariant(ctx_, fid_, l, c) && !loop_invariant(ctx_, fid_, p, c)) return true;
    }
    return false;
  }

  /// A `torch.cuda.synchronize()` of step loop `p` runs before the copy on
  /// every path (it dominates it) and no backward or step runs between
  /// them: the values read were computed before the synchronize, which
  /// already waited for them.
  bool drained_before(ir::InstId id, uint32_t l, uint32_t p) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    for (ir::InstId s : loop_insts(ctx_, fid_, p)) {
      const ir::Inst& in = f_.inst(s);
      if (in.op != ir::Op::Call || torch_call(ctx_, fid_, s) != TorchCall::CudaSynchronize) continue;
      if (s == id || !dom.dominates(f_, s, id)) continue;
      if (!trains_between(s, id, li_.contains(l, f_.block_of(s)) ? l : p)) return true;
    }
    return false;
  }

  /// A backward or step lies on a path from `a` to `b` within one
  /// iteration of loop `l` (the path ends at its header).
  bool trains_between(ir::InstId a, ir::InstId b, uint32_t l) const {
    ir::BlockId header = li_.loops[l].header;
    std::vector<ir::InstId> training = reachable(f_, a, [&](ir::InstId j, const ir::Inst& in) {
      if (j == b || (f_.block_of(j) == header && j == first_inst(header))) return PathStep::Kill;
      if (in.op == ir::Op::Call && trains_at(j)) return PathStep::Target;
      return PathStep::Pass;
    });
    for (ir::InstId t : training) {
      bool to_b = false;
      reachable(f_, t, [&](ir::InstId j, const ir::Inst&) {
        if (j == a || (f_.block_of(j) == header && j == first_inst(header))) return PathStep::Kill;
        if (j == b) to_b = true;
        return PathStep::Pass;
      });
      if (to_b) return true;
    }
    return false;
  }

  /// A test of a test suite (`test_*`): it synchronizes to check results
  /// step by step, on purpose.
  bool in_test() const {
    if (f_.name == ir::kNoSymbol) return false;
    std::string_view n = ctx_.ir.names.str(f_.name);
    size_t dot = n.rfind('.');
    if (dot != std::string_view::npos) n = n.substr(dot + 1);
    return n.starts_with("test") || n.starts_with("_test");
  }

  /// Module code, or a file run as a program (checks/facts.h): a test
  /// suite or a library synchronizes to check results, on purpose.
  bool run_as_program() const { return fid_.v == 0 || is_program(ctx_); }

  /// The value is computed inside loop `l` (changes per element).
  bool defined_in(ir::ValueId v, uint32_t l) const {
    ir::InstId d = f_.def_id(v);
    if (!d.valid() || f_.def(v).op == ir::Op::Param) return false;
    return li_.contains(l, f_.block_of(d));
  }

  /// The call runs on every iteration: its block dominates every latch.
  bool every_iteration(ir::InstId id, uint32_t l) const {
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    ir::BlockId b = f_.block_of(id);
    for (ir::BlockId latch : li_.loops[l].latches)
      if (!dom.dominates(b, latch)) return false;
    return true;
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
};

}  // namespace

/// Nothing in the file can place a tensor on a GPU: no `.cuda()` or
/// `.to(...)` (any argument: a device may come from anywhere), no text
/// naming cuda or a gpu, no `device=` argument, no `torch.cuda` or
/// distributed API, no accelerate, Lightning, DeepSpeed or other launcher
/// imported, and no call into another project module (which may move
/// what it returns); and the file is a program (a library's functions are
/// handed their tensors by callers elsewhere). Its tensors then live on the host and a copy to a
/// Python value waits for no device (a CPU-only RL script's
/// `action.item()` for `env.step`).
bool host_only_file(const CheckContext& ctx) {
  // A library's functions get their tensors from callers elsewhere.
  if (!is_program(ctx)) return false;
  const ir::Module& m = ctx.ir;
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = m.functions[fi];
    const dataflow::Summaries& sm = ctx.facts.summaries;
    if ((fi < sm.foreign.size() && !sm.foreign[fi].empty()) ||
        (fi < sm.foreign_ctors.size() && !sm.foreign_ctors[fi].empty()))
      return false;
    for (uint32_t vi = 0; vi < f.values.size(); ++vi) {
      const ir::ConstValue& c = ctx.facts.res.constant(fid, ir::ValueId(vi));
      if (c.kind != ir::ConstValue::Kind::Str) continue;
      std::string t(c.s);
      std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      if (t.find("cuda") != std::string::npos || t.find("gpu") != std::string::npos ||
          t.find("mps") != std::string::npos)
        return false;
    }
    for (const ir::Inst& in : f.insts) {
      if (in.op == ir::Op::GetAttr) {
        std::string_view a = m.names.str(static_cast<ir::Symbol>(in.aux));
        if (a == "cuda" || a == "to" || a == "to_device" || a == "prepare" || a == "device") return false;
      } else if (in.op == ir::Op::Import || in.op == ir::Op::ImportStar) {
        std::string n;
        m.names.append(ir::PathId(in.aux), n);
        for (std::string_view p : {"torch.cuda", "torch.distributed", "accelerate", "lightning",
                                   "pytorch_lightning", "deepspeed", "transformers", "ignite", "fabric"})
          if (n == p || (std::string_view(n).starts_with(p) && n[p.size()] == '.')) return false;
        if (in.op == ir::Op::ImportStar) return false;
      } else if (in.op == ir::Op::Call) {
        const ir::CallInfo& ci = f.call_info(in);
        for (uint32_t k = 0; k < ci.nkw; ++k) {
          ir::Symbol kw = f.kw_names[ci.kw_first + k];
          if (kw != ir::kNoSymbol && m.names.str(kw) == "device") return false;
        }
      }
    }
  }
  return true;
}

void check(const CheckContext& ctx, DiagSink& out) {
  std::optional<bool> skip_file;  // asked once, of the first function that could fire
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // Both findings need a CudaSynchronize, Item, ToList, Numpy or Cpu call
    // and a loop with a call whose effects include kBackward or
    // kOptimizerStep (steps_in): skip other functions before their loops.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!fc.may(dataflow::kBackward | dataflow::kOptimizerStep)) continue;
    if (!fc.has(TorchCall::CudaSynchronize) && !fc.has(TorchCall::Item) &&
        !fc.has(TorchCall::ToList) && !fc.has(TorchCall::Numpy) && !fc.has(TorchCall::Cpu))
      continue;
    // Copies of host tensors wait for nothing, and a file without a GPU
    // has no queue to drain.
    // A test suite reads values on the host to check them, on purpose.
    if (!skip_file) skip_file = host_only_file(ctx) || test_suite_file(ctx);
    if (*skip_file) return;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::device_sync_in_inner_loop
