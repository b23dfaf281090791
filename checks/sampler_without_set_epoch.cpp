// TPF019 sampler_without_set_epoch
//
// What it finds: a shuffling `DistributedSampler` given to a DataLoader
//   (as `sampler=`, or inside a `BatchSampler` given as `batch_sampler=`)
//   that an epoch loop trains on, in a file that never calls
//   `set_epoch(...)`. Also a sampler a helper of the file returns (its
//   shuffle argument read at the call) or built through a variable naming
//   the class, and loaders handed once to a training function, restarted
//   with `iter()` in a training loop, or re-iterated by a generator helper.
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
//   over the loader (no epoch loop around it), files that step no optimizer
//   (backward passes that score inputs or attention heads train nothing), and samplers or loaders that
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
  trains on, in a file that never calls `set_epoch(...)`. The sampler may be
  built by a helper of the file (its `shuffle` read at the call) or through
  a variable naming the class (`cls = RandomSampler if ... else
  DistributedSampler`); the loader may be handed to a training function,
  started anew with `iter(loader)` when `next()` runs out, or re-iterated
  forever by a generator (`while True: for b in loader: yield b`).

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
  - a file that steps no optimizer: repeated backward passes that score
    inputs or attention heads (`head_importance`) train no model
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
    // A file that steps no optimizer anywhere (not through its helpers,
    // nor through an imported one) trains nothing: its backward passes
    // score inputs or heads (`head_importance`), and repeated passes in the
    // same order change no model.
    bool any = false;
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size() && !any; ++fi)
      any = function_calls(ctx_, ir::FunctionId(fi)).may(dataflow::kOptimizerStep);
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

  /// Where a shuffling sampler is built: its constructor call (in `fn`,
  /// the loader's function or a helper of the file that returns it), and
  /// its `shuffle` argument, read at the helper's call site when the helper
  /// passes a parameter on (`data_sampler(ds, shuffle=True, ...)`).
  struct SamplerSite {
    ir::FunctionId fn;
    ir::InstId ctor;
    ir::InstId helper_call;  ///< in the loader's function, when a helper builds it
    dataflow::BoolArg shuffle = dataflow::BoolArg::Unknown;
  };

  /// The value is the DistributedSampler class itself, or names it on some
  /// path (`train_sampler = RandomSampler if rank == -1 else DistributedSampler`).
  bool names_distributed_sampler(ir::FunctionId fid, ir::ValueId v, int depth = 0) const {
    if (!v.valid() || depth > 4) return false;
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Referent& r = ctx_.facts.res.ref(fid, v);
    if (r.kind == ir::Referent::Kind::External && is_distributed_sampler(ctx_.ir.names.str(r.path())))
      return true;
    const ir::Inst& d = f.def(v);
    if (d.op != ir::Op::Phi) return false;
    for (ir::ValueId o : f.operands(d))
      if (o != v && names_distributed_sampler(fid, o, depth + 1)) return true;
    return false;
  }

  /// A boolean a value holds: a constant, or, for a parameter of helper
  /// `g` called at `call` of `caller`, the argument bound to it there.
  dataflow::BoolArg value_bool(ir::FunctionId g, ir::ValueId v, ir::FunctionId caller,
                               ir::InstId call) const {
    if (!v.valid()) return dataflow::BoolArg::Unknown;
    const ir::ConstValue& c = ctx_.facts.res.constant(g, v);
    if (c.kind == ir::ConstValue::Kind::Bool) return c.i ? dataflow::BoolArg::True : dataflow::BoolArg::False;
    const ir::Function& gf = ctx_.ir.fn(g);
    if (gf.def(v).op != ir::Op::Param || !call.valid()) return dataflow::BoolArg::Unknown;
    const ir::Function& f = ctx_.ir.fn(caller);
    ir::ValueId bound;
    dataflow::bind_call_args(f, f.inst(call), ctx_.facts.res.call_target(caller, call), gf,
                   [&](size_t p, ir::ValueId a) {
                     if (p == gf.def(v).aux) bound = a;
                   });
    const ir::ConstValue& b = ctx_.facts.res.constant(caller, bound);
    if (bound.valid() && b.kind == ir::ConstValue::Kind::Bool)
      return b.i ? dataflow::BoolArg::True : dataflow::BoolArg::False;
    return dataflow::BoolArg::Unknown;
  }

  /// The DistributedSampler call a sampler argument denotes (through a
  /// phi: `sampler = DistributedSampler(ds) if dist else None`, a
  /// BatchSampler's inner sampler, a variable naming the class, and a
  /// helper of the file returning one), or nullopt.
  std::optional<SamplerSite> sampler_ctor(ir::FunctionId fid, ir::ValueId v, int depth = 0) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    if (!v.valid() || depth > 4) return std::nullopt;
    const ir::Inst& d = f.def(v);
    if (d.op == ir::Op::Phi) {
      for (ir::ValueId o : f.operands(d))
        if (o != v)
          if (auto c = sampler_ctor(fid, o, depth + 1)) return c;
      return std::nullopt;
    }
    if (d.op != ir::Op::Call) return std::nullopt;
    ir::InstId ci = f.def_id(v);
    std::string_view n = call_target_name(ctx_, fid, ci);
    if (is_distributed_sampler(n) || (n.empty() && d.nops > 0 && names_distributed_sampler(fid, f.operands(d)[0]))) {
      if (has_unpacked_args(f, d)) return std::nullopt;
      // DistributedSampler(dataset, num_replicas, rank, shuffle=True, seed, drop_last)
      SamplerSite s{fid, ci, {}, dataflow::bool_arg(ctx_.ir, ctx_.facts.res, fid, d, 3, "shuffle")};
      return s;
    }
    if (is_batch_sampler(n)) return sampler_ctor(fid, call_arg(ctx_, f, d, 0, "sampler"), depth + 1);
    ir::CallTarget t = ctx_.facts.res.call_target(fid, ci);
    if (t.kind != ir::CallTarget::Kind::Function || !t.fn.valid() || t.fn == fid || depth > 0 ||
        has_unpacked_args(f, d))
      return std::nullopt;
    // A helper of the file that builds and returns it (`data_sampler(ds, shuffle, distributed)`).
    const ir::Function& g = ctx_.ir.fn(t.fn);
    for (const ir::Inst& r : g.insts) {
      if (r.op != ir::Op::Return || r.nops == 0) continue;
      std::optional<SamplerSite> s = sampler_ctor(t.fn, g.operands(r)[0], depth + 1);
      if (!s || s->fn != t.fn) continue;
      s->helper_call = ci;
      if (s->shuffle == dataflow::BoolArg::Unknown) {
        const ir::Inst& sc = g.inst(s->ctor);
        s->shuffle = value_bool(t.fn, call_arg(ctx_, g, sc, 3, "shuffle"), fid, ci);
      }
      return s;
    }
    return std::nullopt;
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

  /// A loop of a function.
  struct LoopAt {
    ir::FunctionId fn;
    uint32_t loop = UINT32_MAX;
    bool restarts = false;  ///< a loop starting the loader anew (iter(), a generator), not over epochs
    bool found() const { return loop != UINT32_MAX; }
  };

  /// The parameter value of g bound to argument `a` at `call` of f, or kNoValue.
  ir::ValueId bound_param(ir::FunctionId fid, ir::InstId call, ir::ValueId a, ir::FunctionId g) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Function& gf = ctx_.ir.fn(g);
    size_t index = SIZE_MAX;
    dataflow::bind_call_args(f, f.inst(call), ctx_.facts.res.call_target(fid, call), gf, [&](size_t p, ir::ValueId v) {
      if (v == a && index == SIZE_MAX) index = p;
    });
    if (index == SIZE_MAX) return ir::kNoValue;
    for (const ir::Inst& in : gf.insts)
      if (in.op == ir::Op::Param && in.aux == index && in.result.valid()) return in.result;
    return ir::kNoValue;
  }

  /// The loop trains: some call in it (or in the helpers it calls) backwards or steps.
  bool loop_trains(ir::FunctionId fid, uint32_t l) const {
    for (ir::InstId k : loop_insts(ctx_, fid, l))
      if (call_effects(ctx_, fid, k) & (dataflow::kBackward | dataflow::kOptimizerStep)) return true;
    return false;
  }

  /// A generator of the file that iterates parameter `pv` anew in each pass
  /// of a loop (`def sample_data(loader): while True: for b in loader: yield b`):
  /// that loop, or none.
  LoopAt reiterating_generator(ir::FunctionId g, ir::ValueId pv) const {
    const ir::Function& gf = ctx_.ir.fn(g);
    if (!gf.is_generator || !pv.valid()) return {};
    const ir::LoopInfo& li = loops_of(ctx_, g);
    for (uint32_t i = 0; i < gf.insts.size(); ++i) {
      const ir::Inst& it = gf.insts[i];
      if (it.op != ir::Op::GetIter || gf.operands(it)[0] != pv) continue;
      uint32_t l = li.loop_of(gf.block_of(ir::InstId(i)));
      if (l != UINT32_MAX) return {g, l, true};
    }
    return {};
  }

  /// The loop that runs training over the loader once per epoch: the loop
  /// around a training loop over the loader, a loop around a call of the
  /// file's functions that takes the loader and trains, a training loop
  /// that starts the loader anew (`it = iter(loader)` when `next(it)` runs
  /// out), or the loop of a generator helper that re-iterates the loader
  /// for a training consumer; followed into the file's functions the loader
  /// is handed to. Not found: `loop` is UINT32_MAX.
  LoopAt epoch_loop(ir::FunctionId fid, ir::ValueId lv, int depth = 0) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::LoopInfo& li = loops_of(ctx_, fid);
    constexpr uint32_t kTrains = dataflow::kBackward | dataflow::kOptimizerStep;
    if (depth > 3) return {};
    for (ir::ValueId a : aliases(f, lv)) {
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& it = f.insts[i];
        if (it.op == ir::Op::Call && calls_file_function(ctx_, fid, ir::InstId(i))) {
          auto ops = f.operands(it);
          if (std::find(ops.begin() + 1, ops.end(), a) == ops.end()) continue;
          ir::FunctionId g = ctx_.facts.summaries.callee(fid, ir::InstId(i));
          if (!(call_effects(ctx_, fid, ir::InstId(i)) & kTrains)) {
            // `loader = sample_data(loader)` consumed by this training function.
            if (g.valid() && g != fid && function_calls(ctx_, fid).may(kTrains))
              if (LoopAt r = reiterating_generator(g, bound_param(fid, ir::InstId(i), a, g)); r.found())
                return r;
            continue;
          }
          uint32_t l = li.loop_of(f.block_of(ir::InstId(i)));
          if (l != UINT32_MAX) return {fid, l};
          // `train(args, loader, ...)` called once: its own epoch loop.
          if (g.valid() && g != fid)
            if (LoopAt r = epoch_loop(g, bound_param(fid, ir::InstId(i), a, g), depth + 1); r.found())
              return r;
          continue;
        }
        if (it.op == ir::Op::Call && it.nops > 0) {
          // `it = iter(loader)` (or `loader.__iter__()`) run again by a training loop.
          bool restart = (positional_count(f, it) == 1 && f.operands(it)[1] == a &&
                          call_target_name(ctx_, fid, ir::InstId(i)) == "builtins.iter") ||
                         (call_method(ctx_, f, it) == "__iter__" && call_receiver(f, it) == a);
          if (restart) {
            uint32_t l = li.loop_of(f.block_of(ir::InstId(i)));
            if (l != UINT32_MAX && loop_trains(fid, l)) return {fid, l, true};
          }
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
          if (loop_trains(fid, l)) return {fid, li.loops[l].parent};
        }
      }
    }
    return {};
  }

  void check_loader(ir::FunctionId fid, ir::InstId li, DiagSink& out) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& loader = f.inst(li);
    if (has_unpacked_args(f, loader) || !loader.result.valid()) return;
    ir::ValueId sv = call_arg(ctx_, f, loader, 3, "sampler");
    if (!sv.valid()) sv = call_arg(ctx_, f, loader, 4, "batch_sampler");
    std::optional<SamplerSite> site = sampler_ctor(fid, sv);
    if (!site) return;
    const ir::Function& sf = ctx_.ir.fn(site->fn);
    const ir::Inst& sampler = sf.inst(site->ctor);
    if (site->shuffle == dataflow::BoolArg::False || site->shuffle == dataflow::BoolArg::Unknown) return;
    if (escapes(fid, loader.result) || escapes(fid, sv)) return;
    // A helper's sampler leaves it by its return: that is how it reaches the loader.
    if (!site->helper_call.valid() && escapes(fid, sampler.result)) return;
    LoopAt epoch = epoch_loop(fid, loader.result);
    if (!epoch.found()) return;
    std::string name(value_var_name(ctx_, sf, sampler.result));
    if (name.empty()) name = value_var_name(ctx_, f, sv);
    std::string lname(value_var_name(ctx_, f, loader.result));
    // A sampler built inline (`sampler=DistributedSampler(ds)`) or by a
    // helper has no name of its own: the loader's attribute names it.
    bool unnamed = site->helper_call.valid() || (site->fn == fid && sv == sampler.result);
    std::string shown = !name.empty()                   ? name
                        : unnamed && !lname.empty() ? lname + ".sampler"
                                                    : "sampler";
    // A variable naming the class (`sampler_cls(ds)`): the call as written.
    std::string ctext = call_target_name(ctx_, site->fn, site->ctor).empty()
                            ? std::string(source_text(ctx_, sampler.span))
                            : call_text(ctx_, sf, sampler);
    if (ctext.size() > 48 || ctext.find('\n') != std::string::npos) ctext = call_text(ctx_, sf, sampler);
    Diagnostic d = make_diagnostic(
        kRule, sampler.span,
        "`" + ctext + "` shuffles with `seed + epoch`, but `" + shown +
            ".set_epoch(epoch)` is never called; every epoch sees the data in the same order",
        "call `" + shown + ".set_epoch(epoch)` at the top of the epoch loop");
    if (site->helper_call.valid())
      d.notes.push_back({f.inst(site->helper_call).span, "the sampler this helper returns goes to this loader"});
    const ir::Function& ef = ctx_.ir.fn(epoch.fn);
    const ir::Loop& l = loops_of(ctx_, epoch.fn).loops[epoch.loop];
    d.notes.push_back({ef.terminator(l.header).span,
                       epoch.restarts ? "the loop that starts the loader anew" : "the epoch loop"});
    if (site->fn == fid && epoch.fn == fid && !site->helper_call.valid())
      d.fix = set_epoch_fix(fid, site->ctor, epoch.loop);
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
