// TPF001 loss_appended_with_graph
//
// What it finds: inside a loop, a tensor that carries an autograd graph is
//   stored in something that outlives the iteration: `losses.append(loss)`,
//   `total += loss`, `history[step] = loss`, `self.hist.append(out.loss)`.
//   Warning when a backward in the same loop already ran through the value
//   (its graph's nodes stay alive); error when no backward ran on it and the
//   grad analysis proves it holds the graph of a forward pass or a loss
//   (every activation stays alive).
// Why it costs: a stored tensor keeps its grad_fn chain, and with it every
//   node (and, before backward, every saved activation) of that step
//   (PyTorch 2.x autograd: a graph lives as long as a tensor refers to its
//   grad_fn). Memory grows every step until CUDA runs out of memory.
// Example:
//     for x, y in loader:
//         loss = criterion(model(x), y)
//         loss.backward()
//         losses.append(loss)
// Fix: `losses.append(loss.item())` or `losses.append(loss.detach())`.
// Not flagged: `.item()`, `.detach()`, values computed under no_grad or
//   inference_mode; containers created fresh each iteration; containers a
//   later backward reads (chunked losses summed and backwarded, pipeline
//   schedules calling `out.backward(grad)`); accumulators reset inside the
//   loop (one window's graphs at most); accumulators backwarded after
//   the loop; tensors written into a preallocated tensor (`buf[i] = x`);
//   parameters collected into a list; Python numbers (`.item() * n`);
//   per-layer loops of a method over `self`'s layers, per-model loops that
//   step each model's own optimizer (a container local to the call). With
//   no backward in the loop, also
//   silent when the container leaves the function (returned, stored on an
//   object, handed to a call we cannot see; also through an outer
//   container it is put into: the rows of tiles a tiled VAE decode joins
//   and returns), in nn.Module methods (a
//   forward collecting features for the caller's loss), and when the grad
//   state is only Unknown (a model handed in as a parameter). A value that
//   is detached after its backward on one path and carries an unused graph
//   on the other (cached losses) counts as one no backward ran on.
#include <optional>
#include <set>

#include "checks/facts.h"
#include "checks/fixes.h"

namespace tpf::checks::loss_appended_with_graph {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF001);

const std::string_view kExplain = R"(TPF001 loss_appended_with_graph: a graph-carrying tensor is stored across loop iterations

What it finds
  Inside a loop, a tensor that carries an autograd graph is stored in
  something that outlives the iteration: `losses.append(loss)`,
  `total += loss`, `history[step] = loss`, `self.hist.append(out.loss)`,
  also inside a record (`rows.append({"loss": loss})`) or through a method
  of the file's class that keeps its argument (`meter.update(loss)` whose
  `update` does `self.sum += value * n`). The value may come from a
  model's method other than forward (`model.nll(x)` computed from its
  parameters), also of a class of another project module, or of one of a
  dict of such classes (`MODELS[name](...)`).
  A warning when the loop's backward already ran through the value (the
  graph's nodes stay alive); an error when no backward ran on it (every
  activation of every iteration stays alive).

Why it costs
  A stored tensor keeps its whole autograd graph alive. Memory grows every
  step until the run dies with CUDA out of memory, often hours in.

Example
  losses = []
  for x, y in loader:
      loss = criterion(model(x), y)
      loss.backward()
      losses.append(loss)

Fix
  store a number or a detached tensor: `losses.append(loss.item())` or
  `losses.append(loss.detach())`.

Not flagged
  - detached values (`.item()`, `.detach()`) and values computed under
    `torch.no_grad()` / `torch.inference_mode()`
  - containers created fresh each iteration
  - stored losses that a later backward uses (chunked losses summed and
    backwarded, pipeline schedules, a total backwarded after the loop)
  - a running total reset inside the loop (`running_loss = 0` after each
    optimizer step): it holds one accumulation window, it does not grow
  - a micro-batch loop inside one optimizer step (no step in the loop, the
    step after it) whose container is created fresh for that step: per
    iteration of the enclosing loop, or as a local of a function that
    steps once (a trainer's `train()` summing its accumulation losses)
  - values written into a preallocated tensor (`buf[i] = x`), parameters
    collected in a list
  - Python numbers: arithmetic of `.item()`, sizes and numbers
    (`loss.item() * accum` with `accum: int` or `accum=1`), also returned
    by a function of the file or a model's forward (through
    `nn.DataParallel`), tuple element by element
  - a method's loop over the layers of `self` that it calls (`for layer
    in self.layers: x = layer(x); states.append(x)`): one forward's
    states, local to the call, whatever the class derives from
  - a loop over models that steps each one's own optimizer (`for k in
    range(n_agents): ... self.optims[k].step(); losses.append(loss)`):
    one update's losses, one per model
  - without a backward in the loop: containers returned or stored on an
    object, also through an outer container they are put into (a caller
    may still need the graphs: rows of tiles joined into the returned
    image), nn.Module methods
    (a forward collecting features), models the analysis cannot see
  - test suites not run as programs (under `tests/`, `test_*.py`): a few
    fixed iterations whose outputs are kept to compare, nothing grows
  - a value detached right after its backward on the path that runs it,
    and on the other path a graph no backward has used (`if with_backward:
    part.backward(); part = part.detach()`, then `parts.append(part)` and
    `return sum(parts)`): judged as on a loop without backward
)";

namespace {

using dataflow::GradState;
using dataflow::TorchCall;
using ir::BlockId;
using ir::InstId;
using ir::Op;
using ir::ValueId;

// Why these limits: a stored loss is a few operations away from its
// forward pass or its backward; past them we do not claim anything.
constexpr int kMaxDepth = 10;
constexpr size_t kMaxSlice = 512;

/// One store of a value into something that may outlive the iteration.
struct Store {
  InstId at;
  ValueId container;  // the list / dict / accumulator phi
  ValueId value;      // what is stored
  uint32_t loop;      // the loop the container outlives
  bool accumulator;   // `total += loss`
  bool attribute;     // the container is reached through `self.x` / `obj.x`
};

bool from_forward(const CheckContext& c, ir::FunctionId fid, ValueId v, int depth);

/// A function of another module returns a forward pass or a loss (read in
/// that module).
bool foreign_from_forward(const dataflow::ForeignFunction& ff, int depth) {
  if (!ff.module->src || !ff.module->ast || !ff.facts) return false;
  CheckContext fc = foreign_context(ff);
  const ir::Function& g = fc.ir.fn(ff.fn);
  if (g.is_generator) return false;
  for (const ir::Inst& r : g.insts)
    if (r.op == Op::Return && r.nops && from_forward(fc, ff.fn, g.operands(r)[0], depth + 1))
      return true;
  return false;
}

/// `v` comes from a forward pass or a loss computed with autograd on:
/// the grad state says Graph and a producer is a model call or a loss.
bool from_forward(const CheckContext& c, ir::FunctionId fid, ValueId v, int depth) {
  if (!v.valid() || depth > kMaxDepth) return false;
  const ir::Function& f = c.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  auto ops = f.operands(d);
  switch (d.op) {
    case Op::GetAttr:
      // A module's method computing on its own parameters is its forward
      // pass, by whatever name (`self.nll(x)` reading `self.means`).
      if (f.owner.valid() && c.facts.res.is_module_class(f.owner) &&
          dataflow::is_parameter(c.ir, c.facts.res, fid, v))
        return true;
      [[fallthrough]];
    case Op::BinOp:
    case Op::UnaryOp:
    case Op::GetItem:
      for (ValueId o : ops)
        if (from_forward(c, fid, o, depth + 1)) return true;
      return false;
    case Op::Element: {
      const ir::Inst& u = f.def(ops[0]);
      return u.op == Op::Unpack && from_forward(c, fid, f.operands(u)[0], depth + 1);
    }
    case Op::Call: {
      InstId ci = f.def_id(v);
      if (c.facts.grad_mode(fid, ci) != dataflow::GradMode::Enabled) return false;
      TorchCall k = torch_call(c, fid, ci);
      if (k != TorchCall::None && (dataflow::info(k).effects & (dataflow::kForward | dataflow::kLoss))) {
        // transformers' tokenizers and processors match the model rows
        // but run no forward pass.
        std::string_view name = call_target_name(c, fid, ci);
        for (std::string_view no : {"Tokenizer", "Processor", "FeatureExtractor", "pipeline"})
          if (name.find(no) != std::string::npos) return false;
        return true;
      }
      if (loss_kind(c, fid, ci) != LossKind::None) return true;
      ir::CallTarget t = c.facts.res.call_target(fid, ci);
      if (t.kind == ir::CallTarget::Kind::InstanceCall)
        return t.cls.valid() && c.facts.res.is_module_class(t.cls);
      // A method of a model other than forward (`model.nll(x)`) that returns
      // a graph: computed from the model's parameters or layers, a forward pass.
      if (t.kind == ir::CallTarget::Kind::Function && t.bound && t.fn.valid()) {
        const ir::Function& g = c.ir.fn(t.fn);
        return g.owner.valid() && c.facts.res.is_module_class(g.owner) &&
               c.facts.grad().fns[t.fn.v].returns == GradState::Graph;
      }
      // A torch function computing from a forward (`torch.logsumexp(out)`).
      if (call_target_name(c, fid, ci).starts_with("torch."))
        for (size_t i = 1; i < ops.size(); ++i)
          if (from_forward(c, fid, ops[i], depth + 1)) return true;
      // A function of another project module: what it returns there; a
      // method of a model built from another module's class, as above.
      if (const dataflow::ForeignFunction* ff = c.facts.summaries.foreign_callee(fid, ci))
        return foreign_from_forward(*ff, depth);
      for (const dataflow::ForeignCallEdge& e : c.facts.summaries.foreign_methods_of(fid, ci)) {
        const dataflow::ForeignFunction& ff = c.facts.summaries.foreign_fns[e.index];
        if (!ff.facts) continue;
        ir::ClassId owner = ff.module->ir->fn(ff.fn).owner;
        if (owner.valid() && ff.facts->res.is_module_class(owner) &&
            dataflow::foreign_returns(ff) == GradState::Graph)
          return true;
      }
      // A tensor method keeps the forward it is called on (the grad state
      // says whether a graph survives: `.argmax()` has none).
      if (t.kind == ir::CallTarget::Kind::Method)
        return from_forward(c, fid, call_receiver(f, d), depth + 1);
      return false;
    }
    default:
      return false;
  }
}

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), li_(loops_of(ctx, fid)) {}

  /// `backward`: some call of the function may run a backward.
  void run(DiagSink& out, bool backward) {
    bool prepared = false;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      std::optional<Store> s = store_at(InstId(i));
      if (!s) continue;
      if (!prepared) {
        // Only a function with a store worth checking pays for the grad
        // provenance (check_store reports a stored value that is Graph, or
        // one that is not NoGraph or Bottom in a loop with a backward),
        // the users table and the backward slice: most loops store nothing.
        GraphStates gs = graph_states(ctx_, fid_);
        if (!gs.any_graph && !(gs.any_carrier && backward)) return;
        prepare();
        prepared = true;
      }
      check_store(*s, out);
    }
  }

 private:
  // ---- stores ----

  std::optional<Store> store_at(InstId i) const {
    const ir::Inst& in = f_.inst(i);
    if (!li_.in_loop(f_.block_of(i))) return std::nullopt;
    Store s{i, ir::kNoValue, ir::kNoValue, UINT32_MAX, false, false};
    if (in.op == Op::Call) {
      ir::CallTarget t = ctx_.facts.res.call_target(fid_, i);
      if (t.kind == ir::CallTarget::Kind::Function && t.bound && t.fn.valid()) {
        // `meter.update(loss)` whose method keeps its argument in the
        // object (`self.vals.append(v)`, `self.sum += v * n`): a store
        // into the receiver.
        const ir::CallInfo& ci = f_.call_info(in);
        for (uint32_t k = 0; k < ci.npos && k < 8; ++k)
          if (method_keeps_param(t.fn, k + 1)) {
            s.value = f_.operands(in)[1 + k];
            s.container = t.receiver;
            s.attribute = true;
            break;
          }
        if (!s.value.valid()) return std::nullopt;
      } else if (t.kind != ir::CallTarget::Kind::Method) {
        return std::nullopt;
      } else if (!ctx_.facts.summaries.foreign_methods_of(fid_, i).empty()) {
        // `meter.add(loss)` on an object of another module's class: its
        // own method, not a list's or a set's (what it keeps is not read).
        return std::nullopt;
      }
    }
    if (in.op == Op::Call) {
      if (!s.value.valid()) {
        std::string_view m = call_method(ctx_, f_, in);
        uint32_t npos = positional_count(f_, in);
        if ((m == "append" || m == "appendleft" || m == "add") && npos == 1)
          s.value = f_.operands(in)[1];
        else if (m == "insert" && npos == 2)
          s.value = f_.operands(in)[2];
        else
          return std::nullopt;
        s.container = call_receiver(f_, in);
      }
    } else if (in.op == Op::SetItem) {
      // `d["loss"] = loss` overwrites one entry: only a key that changes
      // every iteration (`history[step] = loss`) keeps one graph per step.
      if (!varies(f_.operands(in)[1], i, 0)) return std::nullopt;
      s.container = f_.operands(in)[0];
      s.value = f_.operands(in)[2];
    } else if (in.op == Op::BinOp && accumulator(i, s)) {
      return s;
    } else {
      return std::nullopt;
    }
    // `self.hist.append(x)`, `logs[k].append(x)`: the object that holds the
    // container decides how long it lives.
    ValueId base = s.container;
    for (int depth = 0; base.valid() && depth < 8; ++depth) {
      const ir::Inst& d = f_.def(base);
      if (d.op != Op::GetAttr && d.op != Op::GetItem) break;
      if (d.op == Op::GetAttr) s.attribute = true;
      base = f_.operands(d)[0];
    }
    if (!base.valid()) return std::nullopt;
    const ir::Inst& bd = f_.def(base);
    // Only containers built here (`[]`, `{}`, `list()`, `defaultdict(list)`),
    // parameters and attributes: not tensors written in place (`buf[i] = x`
    // on a preallocated tensor copies values, it keeps no graph).
    bool builder = bd.op == Op::BuildList || bd.op == Op::BuildDict || bd.op == Op::BuildSet ||
                   bd.op == Op::Phi || bd.op == Op::Param || bd.op == Op::Call;
    if (!builder && !s.attribute) return std::nullopt;
    if (in.op == Op::SetItem && !s.attribute && !is_container(base, 0)) return std::nullopt;
    s.loop = dataflow::outlived_loop(ctx_.facts, ctx_.ir, fid_, base, i);
    if (s.loop == UINT32_MAX) return std::nullopt;
    return s;
  }

  /// Method g keeps its parameter p in its object: appends it (or an
  /// expression of it) to a container reached from `self`, or adds it to
  /// an attribute of `self` (`self.sum += val * n`).
  bool method_keeps_param(ir::FunctionId g, uint32_t p) const {
    const ir::Function& gf = ctx_.ir.fn(g);
    if (gf.params.size() <= p || gf.params[0].kind == ir::ParamKind::VarArgs) return false;
    ValueId self, pv;
    for (const ir::Inst& in : gf.insts)
      if (in.op == Op::Param) {
        if (in.aux == 0) self = in.result;
        if (in.aux == p) pv = in.result;
      }
    if (!self.valid() || !pv.valid()) return false;
    auto from_self = [&](ValueId v) {
      for (int d = 0; v.valid() && d < 4; ++d) {
        if (v == self) return true;
        const ir::Inst& di = gf.def(v);
        if (di.op != Op::GetAttr && di.op != Op::GetItem) return false;
        v = gf.operands(di)[0];
      }
      return false;
    };
    auto of_param = [&](ValueId v, auto&& rec, int d) -> bool {
      if (v == pv) return true;
      if (!v.valid() || d > 2) return false;
      const ir::Inst& di = gf.def(v);
      if (di.op != Op::BinOp && di.op != Op::BuildTuple && di.op != Op::BuildDict) return false;
      for (ValueId o : gf.operands(di))
        if (rec(o, rec, d + 1)) return true;
      return false;
    };
    for (const ir::Inst& in : gf.insts) {
      auto ops = gf.operands(in);
      if (in.op == Op::Call && ops.size() == 2) {
        std::string_view m = call_method(ctx_, gf, in);
        if ((m == "append" || m == "appendleft" || m == "add") && from_self(call_receiver(gf, in)) &&
            of_param(ops[1], of_param, 0))
          return true;
      } else if (in.op == Op::SetItem && from_self(ops[0]) && of_param(ops[2], of_param, 0)) {
        return true;
      } else if (in.op == Op::SetAttr && ops[0] == self && gf.def(ops[1]).op == Op::BinOp &&
                 static_cast<ast::Op>(gf.def(ops[1]).aux) == ast::Op::Add) {
        auto add = gf.operands(gf.def(ops[1]));
        const ir::Inst& lhs = gf.def(add[0]);
        if (lhs.op == Op::GetAttr && lhs.aux == in.aux && gf.operands(lhs)[0] == self &&
            of_param(add[1], of_param, 0))
          return true;
      }
    }
    return false;
  }

  /// The value changes from one iteration of the loops around `at` to the
  /// next: computed inside the innermost one from its item or a phi.
  bool varies(ValueId v, InstId at, int depth) const {
    if (!v.valid() || depth > 6) return false;
    uint32_t l = li_.loop_of(f_.block_of(at));
    if (l == UINT32_MAX || !li_.contains(l, f_.block_of(f_.def_id(v)))) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op == Op::Phi || d.op == Op::NextItem || d.op == Op::Element) return true;
    if (d.op == Op::BinOp || d.op == Op::GetAttr || d.op == Op::BuildTuple || d.op == Op::Call ||
        d.op == Op::BuildString || d.op == Op::FormatValue)
      for (ValueId o : f_.operands(d))
        if (varies(o, at, depth + 1)) return true;
    return false;
  }

  /// The value is a Python list / dict / set built in this function.
  bool is_container(ValueId v, int depth) const {
    if (!v.valid() || depth > 4) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op == Op::BuildList || d.op == Op::BuildDict || d.op == Op::BuildSet) return true;
    if (d.op == Op::Phi) {
      for (ValueId o : f_.operands(d))
        if (o != v && is_container(o, depth + 1)) return true;
      return false;
    }
    if (d.op == Op::Call) {
      std::string_view n = call_target_name(ctx_, fid_, f_.def_id(v));
      return n == "builtins.list" || n == "builtins.dict" || n == "collections.defaultdict" ||
             n == "collections.OrderedDict";
    }
    return false;
  }

  /// `total += loss` / `total = total + loss`: a BinOp Add on a phi at the
  /// header of a loop containing it, which the phi gets back next iteration.
  bool accumulator(InstId i, Store& s) const {
    const ir::Inst& in = f_.inst(i);
    if (static_cast<ast::Op>(in.aux) != ast::Op::Add) return false;
    auto ops = f_.operands(in);
    const ir::Inst& p = f_.def(ops[0]);
    if (p.op != Op::Phi) return false;
    BlockId pb = f_.block_of(f_.def_id(ops[0]));
    uint32_t l = li_.loop_with_header(pb);
    if (l == UINT32_MAX || !li_.contains(l, f_.block_of(i))) return false;
    if (!flows_back(ops[0], in.result, 0)) return false;
    // `running_loss = 0` after the optimizer step: a window that is reset
    // inside the loop holds at most one accumulation window's graphs, it
    // does not grow with the run (torchtune's recipes log it per step).
    if (reset_in_loop(ops[0], l, 0)) return false;
    s.container = ops[0];
    s.value = ops[1];
    s.loop = l;
    s.accumulator = true;
    return true;
  }

  /// Phi `p` receives, from inside loop `l` (directly or through the phis
  /// of a branch), a value that carries no graph: the accumulator is reset
  /// there.
  bool reset_in_loop(ValueId p, uint32_t l, int depth) const {
    if (depth > 3) return false;
    for (ValueId o : f_.operands(f_.def(p))) {
      if (!o.valid() || o == p) continue;
      ir::InstId d = f_.def_id(o);
      if (!d.valid() || !li_.contains(l, f_.block_of(d))) continue;
      if (f_.def(o).op == Op::Phi) {
        if (reset_in_loop(o, l, depth + 1)) return true;
      } else if (ctx_.facts.grad_state(fid_, o) == GradState::NoGraph) {
        return true;
      }
    }
    return false;
  }

  /// Phi `p` receives `v` (directly or through phis of conditional updates).
  bool flows_back(ValueId p, ValueId v, int depth) const {
    if (depth > 3) return false;
    for (ValueId o : f_.operands(f_.def(p))) {
      if (o == v) return true;
      if (o != p && f_.def(o).op == Op::Phi && flows_back(o, v, depth + 1)) return true;
    }
    return false;
  }

  // ---- evidence ----

  /// The values a backward call differentiates, and everything they are
  /// computed from through graph-keeping operations: after that backward,
  /// each of them holds a graph whose saved tensors were freed.
  void prepare() {
    users_.resize(f_.values.size());
    for (uint32_t i = 0; i < f_.insts.size(); ++i)
      for (ValueId o : f_.operands(f_.insts[i]))
        if (o.valid()) users_[o.v].push_back(InstId(i));
    collect_backwarded();
  }

  void collect_backwarded() {
    backwarded_.assign(f_.values.size(), 0);
    std::vector<ValueId> work;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      const ir::Inst& in = f_.insts[i];
      if (in.op != Op::Call) continue;
      TorchCall k = torch_call(ctx_, fid_, InstId(i));
      if (k == TorchCall::Backward) {
        // `loss.backward()`, `out.backward(grad)`, `accelerator.backward(loss)`
        work.push_back(call_receiver(f_, in));
        if (positional_count(f_, in) > 0) work.push_back(call_arg(ctx_, f_, in, 0, ""));
      } else if (k == TorchCall::AutogradBackward) {
        work.push_back(call_arg(ctx_, f_, in, 0, "tensors"));
      }
    }
    while (!work.empty()) {
      ValueId v = work.back();
      work.pop_back();
      if (!v.valid() || backwarded_[v.v]) continue;
      backwarded_[v.v] = 1;
      std::string key = access_key(ctx_, fid_, v);
      if (!key.empty()) backwarded_keys_.insert(key);
      const ir::Inst& d = f_.def(v);
      auto ops = f_.operands(d);
      switch (d.op) {
        case Op::BinOp:
        case Op::UnaryOp:
        case Op::GetItem:
        case Op::Phi:
          for (ValueId o : ops) work.push_back(o);
          break;
        case Op::Call: {
          std::string_view m = call_method(ctx_, f_, d);
          // `scaler.scale(loss)`, `loss.mean()`, `(a + b).sum()`
          if (m == "scale" || m == "mean" || m == "sum" || m == "float" || m == "squeeze")
            for (ValueId o : ops.subspan(1)) work.push_back(o);
          if (m == "mean" || m == "sum" || m == "float" || m == "squeeze")
            work.push_back(call_receiver(f_, d));
          break;
        }
        default:
          break;
      }
    }
  }

  /// Also by name: `out.loss.backward()` then `hist.append(out.loss)` reads
  /// the attribute twice.
  bool backwarded(ValueId v) const {
    if (!v.valid()) return false;
    if (backwarded_[v.v]) return true;
    std::string key = access_key(ctx_, fid_, v);
    return !key.empty() && backwarded_keys_.count(key);
  }

  bool from_forward(ir::FunctionId fid, ValueId v, int depth) const {
    return loss_appended_with_graph::from_forward(ctx_, fid, v, depth);
  }

  // ---- exemptions ----

  /// What the container flows into, in this function: a backward (the
  /// stored graphs are used: chunked losses, pipeline schedules) or a way
  /// out (returned, yielded, stored on an object, handed to a function).
  struct Uses {
    bool backward = false;
    bool escapes = false;
  };

  /// `ins`, a user of `v`, takes it out of the function: returns or yields
  /// it, stores it in a global or a closure cell, or as the value (not the
  /// target) of an attribute or item store.
  bool stores_away(const ir::Inst& ins, ValueId v) const {
    switch (ins.op) {
      case Op::Return:
      case Op::Yield:
      case Op::YieldFrom:
      case Op::StoreGlobal:
      case Op::StoreFree:
        return true;
      case Op::SetAttr:
      case Op::SetItem:
        return f_.operands(ins)[0] != v;
      default:
        return false;
    }
  }

  Uses uses_of(ValueId container) const {
    Uses u;
    std::vector<uint8_t> in(f_.values.size(), 0);
    std::vector<ValueId> work{container};
    size_t n = 0;
    while (!work.empty() && n < kMaxSlice) {
      ValueId v = work.back();
      work.pop_back();
      if (in[v.v]) continue;
      in[v.v] = 1;
      ++n;
      for (InstId ui : users_[v.v]) {
        const ir::Inst& ins = f_.inst(ui);
        if (stores_away(ins, v)) u.escapes = true;
        switch (ins.op) {
          case Op::Call: {
            if (call_effects(ctx_, fid_, ui) & dataflow::kBackward) u.backward = true;
            if (calls_file_function(ctx_, fid_, ui)) u.escapes = true;
            ir::CallTarget t = ctx_.facts.res.call_target(fid_, ui);
            if (t.kind == ir::CallTarget::Kind::Unknown) u.escapes = true;
            // Put into an outer container (`rows.append(row)`): follow that
            // one too, its uses are this one's (tiles of a nested loop
            // joined into the returned image).
            std::string_view m = call_method(ctx_, f_, ins);
            ValueId outer = call_receiver(f_, ins);
            if ((m == "append" || m == "extend" || m == "insert" || m == "add" ||
                 m == "appendleft") &&
                outer.valid() && outer != v)
              work.push_back(outer);
            break;
          }
          case Op::ListAppend:
          case Op::ListExtend:
          case Op::SetAdd:
          case Op::MapAdd:
            if (f_.operands(ins)[0] != v) work.push_back(f_.operands(ins)[0]);
            break;
          default:
            break;
        }
        if (ins.result.valid()) work.push_back(ins.result);
      }
    }
    if (!work.empty()) u.escapes = u.backward = true;  // cut: assume the worst
    return u;
  }

  /// The NextItem of loop l's own `for` (its iterator made outside the
  /// loop), or kNoValue (a while loop).
  ValueId loop_item(uint32_t l) const {
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op != Op::NextItem || li_.loop_of(f_.block_of(i)) != l) continue;
      ValueId it = f_.operands(in)[0];
      if (it.valid() && !li_.contains(l, f_.block_of(f_.def_id(it)))) return in.result;
    }
    return ir::kNoValue;
  }

  /// v is the loop's item or one element of it (`for i, layer in
  /// enumerate(self.layers)`).
  bool is_item(ValueId v, ValueId item) const {
    if (!v.valid() || !item.valid()) return false;
    if (v == item) return true;
    const ir::Inst& d = f_.def(v);
    if (d.op != Op::Element) return false;
    const ir::Inst& u = f_.def(f_.operands(d)[0]);
    return u.op == Op::Unpack && f_.operands(u)[0] == item;
  }

  /// Loop l runs the layers of a model, in one call of a method: it
  /// iterates an attribute of `self` and calls its item (`for layer in
  /// self.layers: x = layer(x); inner_states.append(x)`). Its iterations are
  /// the model's depth, not training steps: a container local to the call
  /// holds one forward's values and dies with it (a decoder's per-layer
  /// states, whatever the class derives from).
  bool per_layer_loop(uint32_t l) const {
    if (!f_.owner.valid() || f_.params.empty()) return false;
    ValueId item = loop_item(l);
    if (!item.valid()) return false;
    ValueId seq = loop_iterable(ctx_, fid_, item);
    if (!seq.valid()) return false;
    if (f_.def(seq).op == Op::Call && call_target_name(ctx_, fid_, f_.def_id(seq)) == "builtins.reversed" &&
        positional_count(f_, f_.def(seq)) > 0)
      seq = f_.operands(f_.def(seq))[1];
    const ir::Inst& get = f_.def(seq);
    if (get.op != Op::GetAttr) return false;
    const ir::Inst& self = f_.def(f_.operands(get)[0]);
    if (self.op != Op::Param || self.aux != 0) return false;
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(i);
      if (in.op == Op::Call && is_item(f_.operands(in)[0], item)) return true;
    }
    return false;
  }

  /// Loop l updates one model per iteration: every optimizer step in it is
  /// on the optimizer its item selects (`for agent in range(n):
  /// ... self.critic_optimizer[agent].step()`, `for opt in optimizers`).
  /// Its iterations are the models of one update (MADDPG's agents), not
  /// training steps: a list local to the call holds one loss per model.
  bool per_model_loop(uint32_t l) const {
    ValueId item = loop_item(l);
    if (!item.valid()) return false;
    bool any = false;
    for (InstId i : loop_insts(ctx_, fid_, l)) {
      if (!steps_optimizer(i)) continue;
      ValueId opt = call_receiver(f_, f_.inst(i));
      if (!opt.valid()) return false;
      const ir::Inst& d = f_.def(opt);
      bool picked = is_item(opt, item) || (d.op == Op::GetItem && is_item(f_.operands(d)[1], item));
      if (!picked) return false;
      any = true;
    }
    return any;
  }

  bool in_module_method() const {
    ir::ClassId c = f_.owner;
    return c.valid() && ctx_.facts.res.is_module_class(c);
  }

  // ---- the check ----

  void check_store(Store s, DiagSink& out) const {
    if (dataflow::under_no_grad(ctx_.facts, fid_, s.at)) return;
    // `hist.append((loss, preds))`, `rows.append({"loss": loss})`: the
    // tuple, list or dict built for the store holds the loss.
    s.value = held_value(s.value);
    if (ctx_.facts.grad_mode(fid_, s.at) != dataflow::GradMode::Enabled) return;
    GradState g = ctx_.facts.grad_state(fid_, s.value);
    if (g == GradState::NoGraph || g == GradState::Bottom) return;
    bool after_backward = after_backward_value(s.value, 0) && backward_in_loop(s.loop) &&
                          backwarded_on_graph_paths(s.value);
    if (!after_backward) {
      // No backward ran on it: claim a graph only when the analysis proves
      // one (Graph, produced by a forward pass or a loss) and the container
      // stays here, where we can see every use.
      if (g != GradState::Graph || s.attribute || in_module_method()) return;
      if (!from_forward(fid_, s.value, 0)) return;
    }
    // One forward's layers, or one update's models: the container lives
    // for that call (a container on an object outlives it).
    if (!s.attribute && (per_layer_loop(s.loop) || (after_backward && per_model_loop(s.loop)))) return;
    Uses u = uses_of(s.container);
    if (u.backward) return;
    if (!after_backward && u.escapes) return;
    if (after_backward && one_step_window(s)) return;
    report(s, after_backward, out);
  }

  bool steps_optimizer(InstId i) const {
    return f_.inst(i).op == Op::Call && (call_effects(ctx_, fid_, i) & dataflow::kOptimizerStep);
  }

  /// The loop the value is stored across is a micro-batch loop inside one
  /// optimizer step, and the container lives for that step only: no
  /// optimizer step inside the loop, and the step comes after it in the
  /// container's own scope. That scope is an iteration of the enclosing loop
  /// the container is created fresh in (`losses = []` per batch, then
  /// `for chunk in chunks: ...backward(); losses.append(loss)`, then
  /// `optimizer.step()`), or a call of a function whose local it is and
  /// that steps once outside any loop (a GAN trainer's `train()` summing
  /// `total_disc_loss` over its accumulation loop). The backward already
  /// freed each graph's activations; what is kept is one step's nodes.
  bool one_step_window(const Store& s) const {
    std::vector<InstId> inner = loop_insts(ctx_, fid_, s.loop);
    for (InstId i : inner)
      if (steps_optimizer(i)) return false;
    uint32_t parent = li_.loops[s.loop].parent;
    // Where the container is created: the accumulator's value from before
    // the loop, or the list itself.
    ValueId init = s.container;
    if (s.accumulator)
      for (ValueId o : f_.operands(f_.def(s.container)))
        if (o.valid() && !li_.contains(s.loop, f_.block_of(f_.def_id(o)))) init = o;
    ir::InstId d = f_.def_id(init);
    if (!d.valid() || li_.contains(s.loop, f_.block_of(d))) return false;
    if (parent != UINT32_MAX && !li_.contains(parent, f_.block_of(d))) return false;
    if (parent == UINT32_MAX && li_.in_loop(f_.block_of(d))) return false;
    if (leaves_function(s.container)) return false;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      if (!steps_optimizer(InstId(i))) continue;
      if (li_.loop_of(f_.block_of(InstId(i))) == parent) return true;
    }
    return false;
  }

  /// The container (or the accumulator's value) is returned, yielded,
  /// stored globally or on an object, or handed to a call other than a
  /// builtin or torch's: it, or what is made from it, may outlive the step.
  bool leaves_function(ValueId container) const {
    std::vector<ValueId> vals{container};
    if (f_.def(container).op == Op::Phi)
      for (ValueId o : f_.operands(f_.def(container)))
        if (o.valid()) vals.push_back(o);
    for (ValueId v : vals)
      for (InstId ui : users_[v.v]) {
        const ir::Inst& ins = f_.inst(ui);
        if (stores_away(ins, v)) return true;
        switch (ins.op) {
          case Op::Call: {
            // Handed to a call other than a builtin or torch's (`sum(losses)`,
            // `torch.stack(losses)`): a helper may keep it, or a value made
            // from it (`meter.update(list_mean(losses))`).
            auto ops = f_.operands(ins);
            bool as_arg = false;
            for (size_t a = 1; a < ops.size(); ++a) as_arg |= ops[a] == v;
            if (!as_arg) break;
            std::string_view n = call_target_name(ctx_, fid_, ui);
            if (!n.starts_with("builtins.") && !n.starts_with("torch.")) return true;
            break;
          }
          default:
            break;
        }
      }
    return false;
  }

  /// A backward ran through v, or v is arithmetic on such values and
  /// values that carry no graph (`loss * x.size(0)` after `loss.backward()`:
  /// the activations were freed by that backward, only graph nodes stay).
  bool after_backward_value(ValueId v, int depth) const {
    if (backwarded(v)) return true;
    if (depth > 3) return false;
    const ir::Inst& d = f_.def(v);
    if (d.op != Op::BinOp && d.op != Op::UnaryOp) return false;
    bool any = false;
    for (ValueId o : f_.operands(d)) {
      if (!o.valid()) continue;
      GradState g = ctx_.facts.grad_state(fid_, o);
      if (g == GradState::NoGraph || g == GradState::Bottom) continue;
      if (!after_backward_value(o, depth + 1)) return false;
      any = true;
    }
    return any;
  }

  /// On every path into phi `v` whose value carries a graph, a backward
  /// through that value ran first (its call dominates the edge). Not so for
  /// the cached-loss shape `if with_backward: part.backward(); part =
  /// part.detach()`: the path with the backward stores a detached value, the
  /// other a graph no backward has used yet (one for the caller to use).
  /// True for a value that is no phi.
  bool backwarded_on_graph_paths(ValueId v) const {
    const ir::Inst& d = f_.def(v);
    if (d.op != Op::Phi || backwarded_[v.v]) return true;  // a backward after the merge
    const ir::DomTree& dom = ctx_.facts.dom(ctx_.ir, fid_);
    auto ops = f_.operands(d);
    auto preds = ir::preds(f_, f_.block_of(f_.def_id(v)));
    for (size_t k = 0; k < ops.size() && k < preds.size(); ++k) {
      if (!ops[k].valid()) continue;
      GradState g = ctx_.facts.grad_state(fid_, ops[k]);
      if (g == GradState::NoGraph || g == GradState::Bottom) continue;
      // A backward ran through the value (collect_backwarded), and one
      // dominates the edge.
      bool ran = false;
      for (uint32_t i = 0; i < f_.insts.size() && !ran && backwarded_[ops[k].v]; ++i) {
        TorchCall c = f_.insts[i].op == Op::Call ? torch_call(ctx_, fid_, InstId(i)) : TorchCall::None;
        if ((c == TorchCall::Backward || c == TorchCall::AutogradBackward) &&
            dom.dominates(f_.block_of(InstId(i)), preds[k]))
          ran = true;
      }
      if (!ran) return false;
    }
    return true;
  }

  /// The element of a tuple / list / dict literal that carries a graph
  /// (one a backward ran through first), or v itself.
  ValueId held_value(ValueId v) const {
    const ir::Inst& d = f_.def(v);
    if (d.op != Op::BuildTuple && d.op != Op::BuildList && d.op != Op::BuildDict) return v;
    auto ops = f_.operands(d);
    ValueId pick = v;
    for (size_t k = d.op == Op::BuildDict ? 1 : 0; k < ops.size(); k += d.op == Op::BuildDict ? 2 : 1) {
      if (!ops[k].valid()) continue;
      GradState g = ctx_.facts.grad_state(fid_, ops[k]);
      if (g == GradState::NoGraph || g == GradState::Bottom) continue;
      if (backwarded(ops[k])) return ops[k];
      if (pick == v) pick = ops[k];
    }
    return pick;
  }

  bool backward_in_loop(uint32_t l) const {
    for (InstId i : loop_insts(ctx_, fid_, l))
      if (f_.inst(i).op == Op::Call && (call_effects(ctx_, fid_, i) & dataflow::kBackward)) return true;
    return false;
  }

  void report(const Store& s, bool after_backward, DiagSink& out) const {
    const ir::Inst& in = f_.inst(s.at);
    std::string v = name_of(s.value);
    std::string message;
    if (s.accumulator) {
      message = "`" + one_line_text(in.span) + "` chains every iteration's autograd graph into `" +
                name_of(s.container) + "`; ";
    } else {
      std::string what = one_line_text(in.span);
      if (in.op == Op::SetItem) what += " = " + v;
      message = "`" + what + "` stores `" + v + "` with its autograd graph; ";
    }
    std::string help;
    if (after_backward) {
      message += "the graph of every step stays alive after its backward and memory grows every step";
      help = "store a number or a detached tensor: `" + v + ".item()` or `" + v + ".detach()`";
    } else {
      message += "the activations of every iteration stay alive and memory grows until CUDA runs out";
      help = "store `" + v + ".detach()`, or compute it under `torch.no_grad()`";
    }
    Diagnostic d = make_diagnostic(kRule, in.span, std::move(message), std::move(help));
    if (after_backward) d.severity = Severity::Warning;
    if (ast::NodeId e = stored_expr(s); e.valid())
      d.fix = make_fix("store `" + atom_text(ctx_, e) + ".detach()`", append_to(ctx_, e, ".detach()"));
    out.report(std::move(d));
  }

  /// The expression the source stores at `s.at`, for the fix: the argument
  /// of `append(x)`, the right side of `total += x` / `total = total + x`
  /// / `d[k] = x`. kNoNode when it cannot be told apart.
  ast::NodeId stored_expr(const Store& s) const {
    const ir::Inst& in = f_.inst(s.at);
    const ast::Module& a = ctx_.ast;
    namespace S = ast::slot;
    if (in.op == Op::Call) {
      ast::NodeId call = node_at(ctx_, in.span, ast::NodeKind::Call);
      if (!call.valid() || has_unpacked_args(f_, in)) return ast::kNoNode;
      auto args = a.children(call, S::Call::args);
      for (size_t p = 0; p < args.size(); ++p)
        if (call_arg(ctx_, f_, in, static_cast<int>(p), "") == s.value) return args[p];
      return ast::kNoNode;
    }
    if (in.op == Op::BinOp) {
      if (ast::NodeId n = node_at(ctx_, in.span, ast::NodeKind::AugAssign); n.valid())
        return a.child(n, S::AugAssign::value);
      if (ast::NodeId n = node_at(ctx_, in.span, ast::NodeKind::BinOp); n.valid())
        return a.child(n, S::BinOp::right);
      return ast::kNoNode;
    }
    if (in.op == Op::SetItem) {
      ast::NodeId st = statement_at(ctx_, in.span);
      if (st.valid() && a[st].kind == ast::NodeKind::Assign &&
          a.children(st, S::Assign::targets).size() == 1)
        return a.child(st, S::Assign::value);
    }
    return ast::kNoNode;
  }

  /// How a message names a value: its variable, else its source text.
  std::string name_of(ValueId v) const {
    ir::VarId var = f_.values[v.v].var;
    if (var.valid() && f_.vars[var.v].name != ir::kNoSymbol && f_.vars[var.v].kind == ir::VarKind::Local)
      return std::string(ctx_.ir.names.str(f_.vars[var.v].name));
    return one_line_text(f_.def(v).span);
  }

  std::string one_line_text(Span sp) const {
    std::string out;
    for (char c : source_text(ctx_, sp)) {
      if (c == '\n' || c == '\r') c = ' ';
      if (c == ' ' && !out.empty() && out.back() == ' ') continue;
      out += c;
    }
    if (out.size() > 60) {
      size_t cut = 57;
      while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
      out = out.substr(0, cut) + "...";
    }
    return out;
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  const ir::LoopInfo& li_;
  std::vector<std::vector<InstId>> users_;
  std::vector<uint8_t> backwarded_;
  std::set<std::string> backwarded_keys_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  // A test suite's loops run a few fixed iterations and keep their outputs
  // to compare them: nothing grows for hours.
  if (test_suite_file(ctx)) return;
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // check_store reports a stored value of this function whose GradState
    // is Graph, or, after a backward ran through it, one that is not
    // NoGraph or Bottom in a loop with a call whose effects include
    // kBackward (backward_in_loop). A file where nothing starts a graph
    // has no Graph value (may_create_graph): without a backward, skip the
    // function before its loops; Rule::run asks the provenance itself at
    // the first store.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    bool backward = fc.may(dataflow::kBackward);
    if (!backward && !ctx.facts.may_create_graph()) continue;
    if (loops_of(ctx, ir::FunctionId(fi)).loops.empty()) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out, backward);
  }
}

}  // namespace tpf::checks::loss_appended_with_graph
