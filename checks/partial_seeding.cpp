// TPF010 partial_seeding
//
// What it finds: a training script (a backward or optimizer step in a loop)
//   that draws randomness from several of torch, numpy and Python's random
//   but seeds only some of them (warning, at the first seeding call), or
//   seeds none at all (note, at the first training step). Only in a file
//   run as a program (a `__name__` test, `parse_args()` or module-level
//   training): the seeding of a helper module or a test suite is its
//   caller's business. Torch counts as used in every training script:
//   weight init, dropout and shuffling draw from it.
// Why it costs: an unseeded generator makes runs irreproducible: data
//   order, augmentations and initialization differ, so a change cannot be
//   told apart from noise.
// Example:
//     torch.manual_seed(0)
//     idx = np.random.permutation(n)
// Fix: seed every generator the script uses: `random.seed(s)`,
//   `np.random.seed(s)`, `torch.manual_seed(s)` (or a helper such as
//   `lightning.seed_everything`).
// Not flagged: generators the script does not use (a script using only
//   torch and `torch.manual_seed`), generators built with their own seed
//   (`np.random.default_rng(s)`, `random.Random(s)`), seeding through a
//   known helper (`seed_everything`, `set_seed`, ...), no seeding at all
//   next to a call of an imported start-up helper (`compute_init()`,
//   `setup_distributed()`: it may seed out of sight) or one handed over to
//   be called later (`functools.partial(prepare_torch, ...)`), files that do not
//   train, and modules not run as a program (library code, test suites);
//   torch in a file that imports nothing of it (a numpy-and-gym script);
//   scripts that reseed at random on purpose (a seed from the clock or from
//   another generator on every run, `np.random.seed()` with no argument:
//   runs are meant to differ); draws that only make a seed (`opt.seed =
//   random.randint(...)`) or come once training is over (which test image
//   to show). Seeds that do not set up the run count neither as seeding
//   nor make their generator unseeded: a reseed with a draw of the
//   generator itself, a seed per item in a loop that trains nothing
//   (evolution strategies regenerating a worker's noise from its seed), a
//   seed per worker in a DataLoader's `worker_init_fn`.
#include <algorithm>
#include <bit>
#include <vector>

#include <cctype>

#include "checks/facts.h"

namespace tpf::checks::partial_seeding {

const std::string_view kExplain = R"(TPF010 partial_seeding: randomness seeded for only some of torch, numpy and random, or not at all

What it finds
  a training script (a backward or optimizer step in a loop) that uses
  randomness from several of torch, numpy and Python's random, but seeds
  only some of them (warning), or seeds none at all (note). Only files run
  as a program count: they test `__name__`, parse arguments or train at
  module level. Torch counts as
  used in every training script that may use it (it imports torch or a
  library built on it, star-imports a module, or calls a project module that
  does): weight initialization, dropout and shuffling draw from it.

Why it costs
  an unseeded generator makes runs irreproducible: data order,
  augmentations and initialization differ, so a change cannot be told apart
  from noise.

Example
  torch.manual_seed(0)
  idx = np.random.permutation(n)

Fix
  seed every generator the script uses: `random.seed(s)`,
  `np.random.seed(s)`, `torch.manual_seed(s)` (or a helper such as
  `lightning.seed_everything`).

Not flagged
  - generators the script does not use: a script using only torch and
    `torch.manual_seed`
  - generators built with their own seed: `np.random.default_rng(s)`,
    `random.Random(s)`, `torch.Generator().manual_seed(s)`
  - seeding through a known helper: `seed_everything`, `set_seed`, ...
  - no seeding at all in a script that calls an imported start-up helper
    (`compute_init()`, `setup_distributed()`, `prepare_torch()`), or hands
    one over to be called later (`functools.partial(prepare_torch, ...)`,
    `run(init_fn=setup)`): it may seed in a module this file does not show
  - files that do not train, and modules that are not run as a program
    (helpers, test suites): their caller seeds
  - torch in a script that cannot use it: a numpy-and-gym rollout that
    seeds numpy imports nothing of torch, nor calls a module that does
  - scripts that reseed at random on purpose: a seed drawn from the clock
    or from another generator on every run (`opt.seed = random.randint(1,
    10000)` then `torch.manual_seed(opt.seed)`, `torch.manual_seed(
    int(time.time()) + rank)`), or `np.random.seed()` with no argument
    (numpy reseeds from the OS): their runs are meant to differ. A seed
    drawn only when none was given (`if opt.seed is None:`) is a default
    and still counts as a seed
  - draws that only make a seed (`opt.seed = random.randint(...)`), and
    draws once training is over (`random.randint` picking which test image
    to show after the loop): they decide nothing that is trained
  - as the script's seeding, seeds that do not set up the run: a reseed
    with a draw of the generator itself (`s = np.random.randint(2**31);
    np.random.seed(s)`), a seed per item in a loop that trains nothing
    (evolution strategies regenerating a worker's noise from the seed it
    reported: `np.random.seed(result.seed)`), and a seed per worker in a
    DataLoader's `worker_init_fn` (`lambda wid: np.random.seed(wid)`).
    They neither count as seeding nor leave their generator unseeded: with
    nothing else seeded the script gets the note, naming such a seed
)";


namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF010);

enum Gen : uint8_t { kTorch = 1, kNumpy = 2, kRandom = 4, kAll = 7 };

/// Helpers of other packages (and of the project's own modules) that seed
/// every generator: lightning's `seed_everything`, transformers' and
/// accelerate's `set_seed`, mmcv's `set_random_seed`, ...
bool is_seed_helper(std::string_view name) {
  size_t dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  static constexpr std::string_view kHelpers[] = {
      "seed_everything", "set_seed", "set_random_seed", "seed_all", "random_seed",
      "setup_seed", "init_seeds", "fix_seed", "set_seeds", "fix_random_seed", "seed_torch",
      "set_all_seeds", "set_global_seed"};
  return std::find(std::begin(kHelpers), std::end(kHelpers), last) != std::end(kHelpers);
}

/// A start-up helper imported from outside torch, numpy and the standard
/// library (`nanochat.common.compute_init`, `utils.prepare_torch`,
/// `setup_distributed`): it may seed every generator where we cannot see.
bool is_setup_helper(std::string_view name) {
  size_t dot = name.find('.');
  if (dot == std::string_view::npos) return false;  // not imported: a name of this file or a builtin
  std::string_view top = name.substr(0, dot);
  static constexpr std::string_view kLibraries[] = {
      "torch", "numpy", "random", "builtins", "os", "sys", "math", "time", "logging",
      "argparse", "json", "functools", "itertools", "collections", "dataclasses", "typing"};
  if (std::find(std::begin(kLibraries), std::end(kLibraries), top) != std::end(kLibraries)) return false;
  std::string last(name.substr(name.rfind('.') + 1));
  for (char& c : last) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"init", "setup", "set_up", "prepare", "configure", "seed"})
    if (last.find(w) != std::string::npos) return true;
  return false;
}

/// "`torch`", "`torch` and `numpy`", "`torch`, `numpy` and `random`".
std::string gen_names(uint8_t g) {
  std::vector<std::string_view> names;
  if (g & kTorch) names.push_back("`torch`");
  if (g & kNumpy) names.push_back("`numpy`");
  if (g & kRandom) names.push_back("`random`");
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? " and " : ", ";
    out += names[i];
  }
  return out;
}

/// The callee as written, for calls the resolver left open (`torch` bound
/// again by `import torch.nn.parallel`): "torch.manual_seed",
/// "numpy.random.seed" for `np.random.seed`.
std::string written_name(const CheckContext& ctx, const ir::Function& f, const ir::Inst& call) {
  std::string t = call_text(ctx, f, call);
  if (t.ends_with("()")) t.resize(t.size() - 2);
  if (t.starts_with("np.")) t = "numpy." + t.substr(3);
  return t;
}

struct Site {
  ir::FunctionId fn;
  ir::InstId inst;
  bool valid() const { return inst.valid(); }
};

/// A source of fresh entropy for a seed of generator `gen`: the clock, the
/// OS, or a draw from another generator (`torch.manual_seed(random.randint(0,
/// 2**63))`). A draw from the generator being seeded (`np.random.seed(
/// np.random.randint(65535))`) is deterministic once that one is seeded.
bool entropy_call(std::string_view name, uint8_t gen) {
  if (name.starts_with("random.")) return gen != kRandom;
  if (name.starts_with("numpy.random.")) return gen != kNumpy;
  return name.starts_with("time.") || name == "os.urandom" || name.starts_with("secrets.") ||
         name.starts_with("datetime.");
}

/// Value `v`, the seed of generator `gen` at call `at` of function `fid`, is
/// computed from fresh entropy (entropy_call), through arithmetic,
/// conversions (`int(time.time()) + rank`) and an attribute set from such a
/// value on every path to the call (`opt.seed = random.randint(1, 10000)`;
/// one set only when no seed was given, `if opt.seed is None:`, is a
/// default: the run can be repeated with its seed).
bool random_value(const CheckContext& ctx, ir::FunctionId fid, ir::InstId at, uint8_t gen, ir::ValueId v,
                  int depth) {
  // Why 6: a seed is a draw, a conversion and an offset or two.
  if (!v.valid() || depth > 6) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  switch (d.op) {
    case ir::Op::BinOp:
    case ir::Op::UnaryOp:
      for (ir::ValueId o : f.operands(d))
        if (random_value(ctx, fid, at, gen, o, depth + 1)) return true;
      return false;
    case ir::Op::Call: {
      std::string_view n = call_target_name(ctx, fid, f.def_id(v));
      if (entropy_call(n, gen)) return true;
      if (n == "builtins.int" || n == "builtins.abs" || n == "builtins.hash")
        return positional_count(f, d) == 1 &&
               random_value(ctx, fid, at, gen, call_arg(ctx, f, d, 0, ""), depth + 1);
      return false;
    }
    case ir::Op::GetAttr: {
      ir::Symbol attr = static_cast<ir::Symbol>(d.aux);
      const ir::DomTree& dom = ctx.facts.dom(ctx.ir, fid);
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& st = f.insts[i];
        if (st.op == ir::Op::SetAttr && static_cast<ir::Symbol>(st.aux) == attr &&
            dom.dominates(f, ir::InstId(i), at) &&
            random_value(ctx, fid, ir::InstId(i), gen, f.operands(st)[1], depth + 1))
          return true;
      }
      return false;
    }
    default:
      return false;
  }
}

/// A seeding call of generator `gen` that re-randomises: `np.random.seed()`
/// with no argument (numpy reseeds from the OS), or a seed of fresh entropy
/// (random_value). A script that does this means its runs to differ.
bool reseeds_randomly(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i, uint8_t gen) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& call = f.inst(i);
  if (positional_count(f, call) == 0 && f.call_info(call).nkw == 0) return true;
  return positional_count(f, call) >= 1 && random_value(ctx, fid, i, gen, call_arg(ctx, f, call, 0, ""), 0);
}

/// The call trains: a backward or step, directly or through a function of
/// the file (`train(...)`).
bool trains_at(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i) {
  return (call_effects(ctx, fid, i) & (dataflow::kBackward | dataflow::kOptimizerStep)) &&
         !steps_other_object(ctx, fid, i);
}

/// Randomness drawn once training is over: function `fid` trains, and no
/// training call is reachable from `use` (`random.randint` picking which
/// test image to show after the loop). It decides nothing that is trained.
bool after_training(const CheckContext& ctx, ir::FunctionId fid, ir::InstId use) {
  const ir::Function& f = ctx.ir.fn(fid);
  bool trains = false;
  for (uint32_t i = 0; i < f.insts.size() && !trains; ++i)
    trains = f.insts[i].op == ir::Op::Call && trains_at(ctx, fid, ir::InstId(i));
  if (!trains) return false;
  bool later = false;
  reachable(f, use, [&](ir::InstId j, const ir::Inst& in) {
    if (!later && in.op == ir::Op::Call && trains_at(ctx, fid, j)) later = true;
    return PathStep::Pass;
  });
  return !later;
}

/// The draw only makes a seed: its result is stored as a seed
/// (`opt.seed = random.randint(1, 10000)`, `seed = ...`).
bool draws_a_seed(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i) {
  const ir::Function& f = ctx.ir.fn(fid);
  ir::ValueId r = f.inst(i).result;
  if (!r.valid()) return false;
  if (name_has_word(value_var_name(ctx, f, r), {"seed"})) return true;
  std::vector<ir::InstId> users = users_of(f, r);
  if (users.empty()) return false;
  for (ir::InstId u : users) {
    const ir::Inst& st = f.inst(u);
    if (st.op != ir::Op::SetAttr || f.operands(st)[1] != r ||
        !name_has_word(ctx.ir.names.str(static_cast<ir::Symbol>(st.aux)), {"seed"}))
      return false;
  }
  return true;
}

/// Function `g` is a DataLoader's `worker_init_fn` (a lambda or a function
/// of the file passed so): it runs in each worker process, once per worker.
bool worker_init_fn(const CheckContext& ctx, ir::FunctionId g) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      if (f.insts[i].op != ir::Op::Call || !is_dataloader(ctx, fid, ir::InstId(i))) continue;
      ir::ValueId fn = call_arg(ctx, f, f.insts[i], -1, "worker_init_fn");
      if (!fn.valid()) continue;
      const ir::Referent& r = ctx.facts.res.ref(fid, fn);
      if (r.kind == ir::Referent::Kind::Function && r.function() == g) return true;
    }
  }
  return false;
}

/// Value `v` is drawn from generator `gen` itself (`seed =
/// np.random.randint(65535)`, through `int(...)` and arithmetic): seeding
/// `gen` with it leaves its sequence what its earlier state made it.
bool self_drawn(const CheckContext& ctx, ir::FunctionId fid, uint8_t gen, ir::ValueId v, int depth) {
  // Why 4: a draw, a conversion and an offset.
  if (!v.valid() || depth > 4) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op == ir::Op::BinOp) {
    for (ir::ValueId o : f.operands(d))
      if (self_drawn(ctx, fid, gen, o, depth + 1)) return true;
    return false;
  }
  if (d.op != ir::Op::Call) return false;
  std::string_view n = call_target_name(ctx, fid, f.def_id(v));
  if (n == "builtins.int" || n == "builtins.abs")
    return positional_count(f, d) == 1 && self_drawn(ctx, fid, gen, call_arg(ctx, f, d, 0, ""), depth + 1);
  if (gen == kNumpy) return n.starts_with("numpy.random.") && !n.ends_with(".seed");
  if (gen == kRandom) return n.starts_with("random.") && n != "random.seed";
  return gen == kTorch && (n == "torch.randint" || n == "torch.rand" || n == "torch.randn");
}

/// The seeding call at `i` does not set up the run: it reseeds with a draw
/// of the generator itself (self_drawn), or sets a stream from
/// a seed per item, inside a loop that trains nothing (evolution
/// strategies regenerate a worker's noise from the seed it reported:
/// `np.random.seed(reward.seed); noise = sample_noise(net)`; the worker
/// itself seeds before each perturbation), or per worker process, in a
/// DataLoader's `worker_init_fn` (`lambda wid: np.random.seed(wid)`, for
/// augmentations that differ across workers). Neither seeds the generator
/// the training draws from at start-up.
bool per_item_seed(const CheckContext& ctx, ir::FunctionId fid, ir::InstId i, uint8_t gen) {
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& call = f.inst(i);
  if (gen != kAll && positional_count(f, call) >= 1 && self_drawn(ctx, fid, gen, call_arg(ctx, f, call, 0, ""), 0))
    return true;
  const ir::LoopInfo& li = loops_of(ctx, fid);
  uint32_t l = li.loop_of(f.block_of(i));
  if (l != UINT32_MAX) {
    bool trains = false;
    for (ir::InstId k : loop_insts(ctx, fid, l))
      if (f.inst(k).op == ir::Op::Call && trains_at(ctx, fid, k)) trains = true;
    if (!trains) return true;
  }
  return fid.v != 0 && worker_init_fn(ctx, fid);
}

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // Both findings need a program that trains in a loop; is_program is asked
  // before the scan of every call, which only gathers.
  if (!trains_in_loop(ctx) || !is_program(ctx)) return;
  // torch counts as used (its init and dropout draw from its generator)
  // when the file may use it at all: a numpy-only rollout script seeds numpy
  // alone, rightly.
  uint8_t used = uses_torch(ctx) ? kTorch : 0, seeded = 0;
  bool setup_helper = false;
  // A seed drawn from the clock or another generator, or numpy reseeded
  // from the OS: the script means its runs to differ (not reproducible on
  // purpose), so no generator is missing a seed.
  bool reseeds = false;
  // Generators seeded per item (per_item_seed): not seeded for the run,
  // but their draws follow those seeds, so they are not reported unseeded.
  uint8_t per_item = 0;
  Site first_seed, first_use[8], first_step, first_per_item;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.fn(fid);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op != ir::Op::Call) continue;
      ir::InstId id(i);
      using dataflow::TorchCall;
      TorchCall k = torch_call(ctx, fid, id);
      std::string written;  // owns the name when it is the text as written
      std::string_view name = call_target_name(ctx, fid, id);
      if (name.empty() && k == TorchCall::None) name = written = written_name(ctx, f, in);
      bool with_arg = positional_count(f, in) > 0 || f.call_info(in).nkw > 0;
      uint8_t seeds = 0, uses = 0;
      if (k == TorchCall::ManualSeed || k == TorchCall::CudaManualSeed ||
          k == TorchCall::CudaManualSeedAll || name == "torch.manual_seed" ||
          name == "torch.cuda.manual_seed" || name == "torch.cuda.manual_seed_all" ||
          name == "torch.random.manual_seed")
        seeds = kTorch;
      else if (k == TorchCall::NumpySeed || name == "numpy.random.seed")
        seeds = kNumpy;
      else if (k == TorchCall::RandomSeed || name == "random.seed")
        seeds = kRandom;
      else if (call_method(ctx, f, in) == "manual_seed")
        seeds = 0;  // a torch.Generator seeded on its own
      else if (is_seed_helper(name))
        seeds = kAll;
      else if (is_setup_helper(name))
        setup_helper = true;
      else if (name == "numpy.random.default_rng" || name == "numpy.random.RandomState" ||
               name == "numpy.random.Generator")
        uses = with_arg ? 0 : kNumpy;
      else if (name == "random.Random" || name == "random.SystemRandom")
        uses = with_arg || name == "random.SystemRandom" ? 0 : kRandom;
      else if (name.starts_with("numpy.random.") && name != "numpy.random.get_state" &&
               name != "numpy.random.set_state")
        uses = kNumpy;
      else if (name.starts_with("random.") && name != "random.getstate" &&
               name != "random.setstate")
        uses = kRandom;
      // A start-up helper handed over to be called later
      // (`functools.partial(prepare_torch, ...)`, `run(init_fn=setup)`).
      for (size_t a = 1; a < in.nops && !setup_helper; ++a) {
        ir::PathId q = ctx.facts.res.qualname(fid, f.operands(in)[a]);
        if (q.valid() && is_setup_helper(ctx.ir.names.str(q))) setup_helper = true;
      }
      if (seeds && per_item_seed(ctx, fid, id, seeds)) {
        per_item |= seeds;
        if (!first_per_item.valid()) first_per_item = {fid, id};
        seeds = 0;
      }
      if (seeds && seeds != kAll && reseeds_randomly(ctx, fid, id, seeds)) {
        reseeds = true;
        seeds = 0;
      }
      if ((uses & (kNumpy | kRandom)) && (draws_a_seed(ctx, fid, id) || after_training(ctx, fid, id))) uses = 0;
      if (seeds) {
        seeded |= seeds;
        if (!first_seed.valid()) first_seed = {fid, id};
      }
      for (uint8_t b : {kNumpy, kRandom})
        if ((uses & b) && !first_use[b].valid()) first_use[b] = {fid, id};
      used |= uses;
      if (!first_step.valid() && k != TorchCall::None &&
          (dataflow::info(k).effects & (dataflow::kBackward | dataflow::kOptimizerStep)) &&
          dataflow::in_loop(ctx.facts, ctx.ir, fid, id))
        first_step = {fid, id};
    }
  }
  uint8_t unseeded = used & ~seeded & ~per_item;
  if (!unseeded || reseeds) return;
  if (!seeded) {
    // `compute_init()`, `setup_distributed()` from the project's own
    // modules: start-up helpers that usually seed, out of sight.
    if (setup_helper || !first_step.valid()) return;  // no step of its own to point at
    const ir::Function& f = ctx.ir.fn(first_step.fn);
    Diagnostic d = make_diagnostic(
        kRule, f.inst(first_step.inst).span,
        "no random generator is seeded (" + gen_names(used) +
            " used); two runs of this script train differently",
        "seed every generator once at start-up: " +
            std::string(used & kRandom ? "`random.seed(s)`, " : "") +
            std::string(used & kNumpy ? "`np.random.seed(s)`, " : "") + "`torch.manual_seed(s)`");
    d.severity = Severity::Note;
    if (first_per_item.valid()) {
      const ir::Function& g = ctx.ir.fn(first_per_item.fn);
      d.notes.push_back({g.inst(first_per_item.inst).span,
                         "`" + call_text(ctx, g, g.inst(first_per_item.inst)) +
                             "` seeds per item or per worker, not the run"});
    }
    out.report(std::move(d));
    return;
  }
  const ir::Function& f = ctx.ir.fn(first_seed.fn);
  const ir::Inst& seed = f.inst(first_seed.inst);
  Diagnostic d = make_diagnostic(
      kRule, seed.span,
      "the script seeds " + gen_names(seeded) + " (`" + call_text(ctx, f, seed) +
          "` here), but " + gen_names(unseeded) +
          (std::popcount(unseeded) > 1 ? " are" : " is") + " used unseeded; runs are not reproducible",
      "also seed " + std::string(unseeded & kTorch ? "`torch.manual_seed(s)` " : "") +
          std::string(unseeded & kNumpy ? "`np.random.seed(s)` " : "") +
          std::string(unseeded & kRandom ? "`random.seed(s)` " : "") +
          "next to it, or use one helper such as `lightning.seed_everything(s)`");
  for (uint8_t b : {kNumpy, kRandom}) {
    if (!(unseeded & b) || !first_use[b].valid()) continue;
    const ir::Function& g = ctx.ir.fn(first_use[b].fn);
    d.notes.push_back({g.inst(first_use[b].inst).span,
                       (b == kNumpy ? std::string("`numpy`") : std::string("`random`")) +
                           " randomness, unseeded"});
  }
  out.report(std::move(d));
}

}  // namespace tpf::checks::partial_seeding
