// Autograd provenance. Per function and calling context (grad mode at entry,
// the states of up to 8 parameters and what calling each one is), the
// facts of every SSA value come from solve_values with the transfer below;
// calls into torch follow torch_calls.def, calls into the file's functions
// are evaluated in the caller's context (memoized; recursion and nesting
// deeper than kMaxDepth give Unknown).
// requires: compute_resolution, classify_all. produces: GradProvenance.
#include "dataflow/grad_provenance.h"

#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include "dataflow/facts.h"
#include "dataflow/python_numbers.h"
#include "dataflow/summaries.h"

namespace tpf::dataflow {

namespace {

/// Parameters a context tracks; later ones are Unknown. Training helpers
/// take few (model, batch, optimizer, criterion, device...).
constexpr int kMaxParams = 8;
/// Calls followed for a return value, nested: deeper chains give Unknown.
constexpr int kMaxDepth = 6;
/// Rounds of "callers' contexts -> callee facts"; enough for call chains of
/// this depth within a file, and each round is cheap (memoized).
constexpr int kMergeRounds = 3;

struct Context {
  GradMode entry = GradMode::Enabled;
  std::array<GradState, kMaxParams> param{};
  /// What calling parameter i is: the torch_calls.def row its argument's
  /// callee matches (a model -> Model, a loss module -> Propagate), or None.
  std::array<TorchCall, kMaxParams> call{};

  static Context unknown(GradMode entry) {
    Context c;
    c.entry = entry;
    c.param.fill(GradState::Unknown);
    return c;
  }
  uint64_t hash() const {
    uint64_t k = static_cast<uint64_t>(entry);
    for (GradState s : param) k = (k << 2) | static_cast<uint64_t>(s);
    for (TorchCall c : call) k = k * 0x100000001b3ull + static_cast<uint64_t>(c);
    return k;
  }
  bool operator==(const Context&) const = default;
  void join(const Context& o) {
    entry = dataflow::join(entry, o.entry);
    for (int i = 0; i < kMaxParams; ++i) {
      param[i] = dataflow::join(param[i], o.param[i]);
      call[i] = merge_callee_rows(call[i], o.call[i]);
    }
  }
};

/// A function analyzed in a context (the memo key of return values).
struct Evaluation {
  ir::FunctionId fn;
  Context ctx;
  bool operator==(const Evaluation&) const = default;
};
struct EvaluationHash {
  size_t operator()(const Evaluation& e) const {
    return static_cast<size_t>(e.ctx.hash() * 31 + e.fn.v);
  }
};

struct Merge {
  bool any = false;
  Context ctx;
  void add(const Context& c) {
    if (!any) {
      ctx = c;
      any = true;
    } else {
      ctx.join(c);
    }
  }
  bool operator==(const Merge&) const = default;
};

class Provenance {
 public:
  Provenance(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls,
             const CallKinds& kinds, const Summaries* summaries, const Objects* objects)
      : m_(m), res_(res), calls_(calls), kinds_(kinds), summaries_(summaries),
        numbers_(m, res, kinds, objects) {
    for (std::string_view a : {"data", "shape", "grad", "dtype", "device", "requires_grad",
                               "is_cuda", "ndim", "is_leaf", "grad_fn"}) {
      ir::Symbol s = m.names.find(a);
      if (s != ir::kNoSymbol) nograph_attrs_.push_back(s);
    }
    for (std::string_view a : {"append", "extend", "insert", "add", "update", "appendleft",
                               "setdefault", "put"}) {
      ir::Symbol s = m.names.find(a);
      if (s != ir::kNoSymbol) store_methods_.push_back(s);
    }
    size_t n = m.functions.size();
    decorator_.resize(n);
    for (uint32_t f = 0; f < n; ++f) decorator_[f] = decorator_mode(m, res, calls, ir::FunctionId(f));
    find_escapes();
  }

  GradProvenance run();

 private:
  const std::vector<GradMode>& modes(ir::FunctionId f, GradMode entry);
  GradState eval(ir::FunctionId f, Context ctx, int depth);
  Converged analyze(ir::FunctionId f, const Context& ctx, int depth, std::vector<GradFact>& facts);
  /// r, or NoGraph when `in` makes a Python number (python_numbers.h).
  GradState unless_number(ir::FunctionId fid, const ir::Inst& in, GradState r);
  GradState transfer(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in, ir::InstId id,
                     const Context& ctx, int depth, const std::vector<GradFact>& facts,
                     const std::vector<GradMode>& modes);
  GradState call(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in, ir::InstId id,
                 const Context& ctx, int depth, const std::vector<GradFact>& facts, GradMode mode);
  bool callee_context(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in, ir::InstId id,
                      const Context& ctx, const std::vector<GradFact>& facts, GradMode mode,
                      ir::FunctionId& callee, Context& out);
  /// The row calling `v` matches: from its referent, or from the context
  /// when `v` is a parameter the callers pass a callable for.
  TorchCall callee_row(ir::FunctionId fid, const ir::Function& f, ir::ValueId v,
                       const Context& ctx) const;
  GradState returns_of(const ir::Function& f, const std::vector<GradFact>& facts) const;
  /// The attribute read `get` (`self.w`, `model.w`) is an `nn.Parameter`
  /// that requires grad (resolution's referent; the class's stores say
  /// whether it was made with requires_grad=False).
  bool parameter_field(ir::FunctionId fid, const ir::Inst& get);
  Effect absorb(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in, ir::InstId id,
                std::vector<GradFact>& facts) const;
  void find_escapes();
  Context effective(ir::FunctionId f, const std::vector<Merge>& merges) const;

  const ir::Module& m_;
  const ir::Resolution& res_;
  const TorchCalls& calls_;
  const CallKinds& kinds_;
  const Summaries* summaries_;
  PythonNumbers numbers_;
  std::vector<ir::Symbol> nograph_attrs_;
  std::vector<ir::Symbol> store_methods_;  // list.append and friends: the receiver keeps the argument
  std::vector<GradMode> decorator_;
  std::vector<uint8_t> escapes_;
  std::unordered_map<uint64_t, std::vector<GradMode>> modes_;
  std::unordered_map<Evaluation, GradState, EvaluationHash> memo_;
  std::unordered_set<Evaluation, EvaluationHash> in_progress_;
  std::vector<std::vector<GradState>> standalone_;  // facts of each function's own context
  std::unordered_map<uint64_t, bool> frozen_fields_;  // (class, attribute): a requires_grad=False parameter
};

const std::vector<GradMode>& Provenance::modes(ir::FunctionId f, GradMode entry) {
  uint64_t key = (uint64_t(f.v) << 8) | static_cast<uint8_t>(entry);
  auto it = modes_.find(key);
  if (it != modes_.end()) return it->second;
  GradModeFacts g = compute_grad_mode(m_, res_, kinds_, f, entry);
  return modes_.emplace(key, std::move(g.at)).first->second;
}

void Provenance::find_escapes() {
  escapes_.assign(m_.functions.size(), 0);
  for (uint32_t fi = 0; fi < m_.functions.size(); ++fi) {
    const ir::Function& f = m_.functions[fi];
    for (const ir::Inst& in : f.insts) {
      if (in.op == ir::Op::Phi) continue;  // the phi's own uses are checked
      auto ops = f.operands(in);
      for (size_t k = 0; k < ops.size(); ++k) {
        if (in.op == ir::Op::Call && (k == 0 || ((in.flags & ir::kDecorator) && k == 1))) continue;
        const ir::Referent& r = res_.ref(ir::FunctionId(fi), ops[k]);
        if (r.kind == ir::Referent::Kind::Function) escapes_[r.id] = 1;
      }
    }
  }
}

TorchCall Provenance::callee_row(ir::FunctionId fid, const ir::Function& f, ir::ValueId v,
                                 const Context& ctx) const {
  TorchCall c = calls_.classify_value(m_, res_, fid, v);
  if (c != TorchCall::None) return c;
  const ir::Inst& d = f.def(v);
  return d.op == ir::Op::Param && d.aux < kMaxParams ? ctx.call[d.aux] : TorchCall::None;
}

GradState Provenance::returns_of(const ir::Function& f, const std::vector<GradFact>& facts) const {
  if (f.is_generator) return GradState::Unknown;
  GradState r = GradState::Bottom;
  for (const ir::Inst& in : f.insts)
    if (in.op == ir::Op::Return)
      r = join(r, in.nops ? facts[f.operands(in)[0].v].s : GradState::NoGraph);
  return r;
}

bool Provenance::parameter_field(ir::FunctionId fid, const ir::Inst& get) {
  if (!is_parameter(m_, res_, fid, get.result)) return false;
  // The class whose field it is: the receiver's, or the method's own for `self`.
  const ir::Function& f = m_.fn(fid);
  ir::ValueId recv = f.operands(get)[0];
  const ir::Referent& rr = res_.ref(fid, recv);
  ir::ClassId cls = rr.kind == ir::Referent::Kind::Instance ? rr.cls() : ir::ClassId();
  const ir::Inst& rd = f.def(recv);
  if (!cls.valid() && rd.op == ir::Op::Param && rd.aux == 0 && f.owner.valid()) cls = f.owner;
  if (!cls.valid()) return true;
  // `nn.Parameter(t, requires_grad=False)`: a constant the module carries.
  uint64_t key = (uint64_t{cls.v} << 32) | get.aux;
  auto [it, fresh] = frozen_fields_.try_emplace(key, false);
  if (fresh)
    for (const ir::SelfAttr& a : res_.self_attrs(cls))
      if (a.attr == get.aux && a.value.valid() &&
          bool_arg(m_, res_, a.fn, m_.fn(a.fn).def(a.value), 1, "requires_grad") == BoolArg::False)
        it->second = true;
  return !it->second;
}

bool Provenance::callee_context(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in,
                                ir::InstId id, const Context& ctx,
                                const std::vector<GradFact>& facts, GradMode mode,
                                ir::FunctionId& callee, Context& out) {
  ir::CallTarget t = res_.call_target(fid, id);
  if (!t.fn.valid() || (t.kind != ir::CallTarget::Kind::Function &&
                        t.kind != ir::CallTarget::Kind::Constructor &&
                        t.kind != ir::CallTarget::Kind::InstanceCall))
    return false;
  callee = t.fn;
  const ir::Function& g = m_.fn(callee);
  out = Context::unknown(mode == GradMode::Bottom ? GradMode::Enabled : mode);
  std::array<bool, kMaxParams> set{};
  auto assign = [&](size_t p, ir::ValueId v) {
    if (p >= kMaxParams) return;
    out.param[p] = v.valid() ? facts[v.v].s : GradState::NoGraph;
    if (v.valid()) out.call[p] = callee_row(fid, f, v, ctx);
    set[p] = true;
  };
  bind_call_args(f, in, t, g, assign);  // the constructor's new object: kNoValue
  // Parameters left to their defaults (mostly constants) carry no graph.
  for (size_t p = 0; p < g.params.size() && p < kMaxParams; ++p)
    if (!set[p] && g.params[p].has_default) out.param[p] = GradState::NoGraph;
  GradMode deco = decorator_[callee.v];
  if (deco != GradMode::Bottom) out.entry = deco;
  return true;
}

GradState Provenance::call(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in,
                           ir::InstId id, const Context& ctx, int depth,
                           const std::vector<GradFact>& facts, GradMode mode) {
  auto ops = f.operands(in);
  auto st = [&](ir::ValueId v) { return facts[v.v].s; };
  auto computing = [&](GradState x) { return mode == GradMode::Disabled ? GradState::NoGraph : x; };
  auto join_all = [&] {
    GradState r = GradState::Bottom;
    for (ir::ValueId o : ops) r = join(r, st(o));
    return r;
  };
  auto model = [&] {
    return mode == GradMode::Enabled    ? GradState::Graph
           : mode == GradMode::Disabled ? GradState::NoGraph
                                        : GradState::Unknown;
  };
  TorchCall kind = kinds_[fid.v][id.v];
  // Calling a parameter: what the callers pass decides (a model, a loss module).
  if (kind == TorchCall::None && f.def(ops[0]).op == ir::Op::Param) kind = callee_row(fid, f, ops[0], ctx);
  if (in.flags & ir::kDecorator) return GradState::NoGraph;  // a function object
  if (kind != TorchCall::None) {
    switch (info(kind).grad) {
      case GradRule::NoGraph: return GradState::NoGraph;
      case GradRule::Graph: return GradState::Graph;
      case GradRule::Unknown: return GradState::Unknown;
      // The callee of a method call is GetAttr(receiver), whose state is the
      // receiver's: joining all operands covers receiver and arguments.
      case GradRule::Propagate: return computing(join_all());
      case GradRule::Receiver: return computing(st(ops[0]));
      case GradRule::RequiresGradKw:
        switch (bool_arg(m_, res_, fid, in, -1, "requires_grad")) {
          case BoolArg::True: return GradState::Graph;
          case BoolArg::Unknown: return GradState::Unknown;
          default: return GradState::NoGraph;
        }
      case GradRule::RequiresGradArg:
        return bool_arg(m_, res_, fid, in, 0, "requires_grad") == BoolArg::False ? st(ops[0])
                                                                                 : GradState::Graph;
      case GradRule::CreateGraphKw:
        return bool_arg(m_, res_, fid, in, -1, "create_graph") == BoolArg::True ? GradState::Graph
                                                                               : GradState::NoGraph;
      case GradRule::Model: return model();
    }
  }
  ir::FunctionId callee;
  Context cc;
  if (callee_context(fid, f, in, id, ctx, facts, mode, callee, cc)) {
    ir::CallTarget t = res_.call_target(fid, id);
    if (t.kind == ir::CallTarget::Kind::Constructor) return GradState::NoGraph;  // a new object
    return eval(callee, cc, depth + 1);
  }
  // A function of another project module, or a method of a model built
  // from its classes: what it returns there, in its own context (its
  // parameters unknown; a parameter field still starts a graph).
  if (summaries_) {
    if (const ForeignFunction* ff = summaries_->foreign_callee(fid, id)) return computing(foreign_returns(*ff));
    std::span<const ForeignCallEdge> ms = summaries_->foreign_methods_of(fid, id);
    if (!ms.empty()) {
      GradState r = GradState::Bottom;
      for (const ForeignCallEdge& e : ms) r = join(r, foreign_returns(summaries_->foreign_fns[e.index]));
      return computing(r);
    }
  }
  ir::CallTarget t = res_.call_target(fid, id);
  switch (t.kind) {
    case ir::CallTarget::Kind::Method: {
      // list.append(x) and friends return None (the container absorbs x).
      if (std::find(store_methods_.begin(), store_methods_.end(), t.method) != store_methods_.end())
        return GradState::NoGraph;
      // A method we know nothing about: on a tensor (a known state) it
      // likely returns a tensor computed from receiver and arguments; on an
      // object of unknown provenance (a logger, a library handle) we cannot say.
      ir::ValueId recv = f.operands(f.def(ops[0]))[0];
      if (st(recv) == GradState::Unknown) return GradState::Unknown;
      return computing(join_all());
    }
    case ir::CallTarget::Kind::Unknown:
      return GradState::Unknown;
    default:
      return GradState::Unknown;
  }
}

GradState Provenance::transfer(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in,
                               ir::InstId id, const Context& ctx, int depth,
                               const std::vector<GradFact>& facts,
                               const std::vector<GradMode>& modes) {
  GradMode mode = modes[id.v];
  auto ops = f.operands(in);
  auto st = [&](ir::ValueId v) { return facts[v.v].s; };
  auto computing = [&](GradState x) { return mode == GradMode::Disabled ? GradState::NoGraph : x; };
  auto join_all = [&] {
    GradState r = GradState::Bottom;
    for (ir::ValueId o : ops) r = join(r, st(o));
    return r;
  };
  switch (in.op) {
    case ir::Op::Undef:
      return GradState::Bottom;
    case ir::Op::Param:
      return in.aux < kMaxParams ? ctx.param[in.aux] : GradState::Unknown;
    case ir::Op::LoadGlobal: {
      const ir::Referent& r = res_.ref(fid, in.result);
      if (r.kind != ir::Referent::Kind::Unknown && r.kind != ir::Referent::Kind::Result &&
          r.kind != ir::Referent::Kind::Instance)
        return GradState::NoGraph;  // a module, function or class
      ir::ValueId g = fid.v == 0 ? ir::kNoValue : m_.global_binding(in.aux);
      if (g.valid() && !standalone_[0].empty()) return standalone_[0][g.v];
      return GradState::Unknown;
    }
    case ir::Op::LoadFree:
      for (ir::FunctionId p = f.parent; p.valid(); p = m_.fn(p).parent) {
        const ir::Function& pf = m_.fn(p);
        if (pf.kind == ir::FunctionKind::ClassBody) continue;
        ir::VarId v = pf.find_var(in.aux);
        if (!v.valid()) continue;
        ir::ValueId b = pf.binding(v);
        if (b.valid() && !standalone_[p.v].empty()) return standalone_[p.v][b.v];
        break;
      }
      return GradState::Unknown;
    case ir::Op::Yield:
    case ir::Op::YieldFrom:
      return GradState::Unknown;  // whatever the consumer sends in
    case ir::Op::Phi: {
      GradState r = GradState::Bottom;
      for (ir::ValueId o : ops) r = join(r, st(o));
      return r;
    }
    case ir::Op::UnaryOp:
      if (static_cast<ast::Op>(in.aux) == ast::Op::Not) return GradState::NoGraph;
      return computing(st(ops[0]));
    case ir::Op::GetAttr: {
      for (ir::Symbol s : nograph_attrs_)
        if (s == in.aux) return GradState::NoGraph;  // x.data, x.shape, x.grad, ...
      ir::Referent::Kind k = res_.ref(fid, in.result).kind;
      if (k == ir::Referent::Kind::External || k == ir::Referent::Kind::Function ||
          k == ir::Referent::Kind::Class)
        return GradState::NoGraph;
      // A module's parameter: what is computed from it carries a graph,
      // whatever the module object's own state (`self.means` in a method
      // other than forward, `model.log_scale` read by the script).
      if (parameter_field(fid, in)) return computing(GradState::Graph);
      return computing(st(ops[0]));
    }
    case ir::Op::GetItem:
      return computing(st(ops[0]));
    case ir::Op::BinOp:
      return computing(join_all());
    case ir::Op::Call:
      return call(fid, f, in, id, ctx, depth, facts, mode);
    default:
      break;
  }
  uint8_t eff = ir::op_info(in.op).effects;
  if (eff & ir::kNoGraph) return GradState::NoGraph;
  if (eff & ir::kPropagate) return (eff & ir::kComputes) ? computing(join_all()) : join_all();
  return GradState::Unknown;
}

Effect Provenance::absorb(ir::FunctionId fid, const ir::Function& f, const ir::Inst& in,
                          ir::InstId id, std::vector<GradFact>& facts) const {
  // A container holds what is stored into it: `losses.append(loss)`,
  // `d[k] = out` and comprehension results make the container carry the
  // element's state (SSA values are flow-insensitive, so this is the
  // container's state wherever it is used).
  auto ops = f.operands(in);
  auto into = [&](ir::ValueId c, ir::ValueId v) { return facts[c.v].join(facts[v.v]); };
  switch (in.op) {
    case ir::Op::ListAppend:
    case ir::Op::ListExtend:
    case ir::Op::SetAdd:
    case ir::Op::DictUpdate:
      return into(ops[0], ops[1]);
    case ir::Op::MapAdd:
    case ir::Op::SetItem:
      return into(ops[0], ops[2]);
    case ir::Op::Call: {
      if (kinds_[fid.v][id.v] != TorchCall::None) return Effect::Unchanged;
      const ir::Inst& callee = f.def(ops[0]);
      if (callee.op != ir::Op::GetAttr) return Effect::Unchanged;
      if (std::find(store_methods_.begin(), store_methods_.end(), callee.aux) == store_methods_.end())
        return Effect::Unchanged;
      ir::ValueId recv = f.operands(callee)[0];
      Effect e = Effect::Unchanged;
      for (size_t k = 1; k < ops.size(); ++k) e = e | into(recv, ops[k]);
      return e;
    }
    default:
      return Effect::Unchanged;
  }
}

GradState Provenance::unless_number(ir::FunctionId fid, const ir::Inst& in, GradState r) {
  // Arithmetic of Python numbers is a number, whatever the operands' states
  // say (`loss.item() * steps` with `steps` a parameter: Unknown; an element
  // of a model's returned tuple that is `nll.item()`: Graph). A number
  // resting on a parameter's numeric default only settles Unknown.
  if (r != GradState::Unknown && r != GradState::Graph) return r;
  switch (in.op) {
    case ir::Op::BinOp:
    case ir::Op::UnaryOp:
    case ir::Op::Phi:
    case ir::Op::Element:
    case ir::Op::GetItem:
      break;
    default:
      return r;
  }
  Number n = numbers_.of(fid, in.result);
  if (n == Number::Strong || (n == Number::Weak && r == GradState::Unknown)) return GradState::NoGraph;
  return r;
}

Converged Provenance::analyze(ir::FunctionId fid, const Context& ctx, int depth,
                              std::vector<GradFact>& facts) {
  const ir::Function& f = m_.fn(fid);
  const std::vector<GradMode>& md = modes(fid, ctx.entry);
  facts.assign(f.values.size(), GradFact{});
  Converged c = solve_values(f, facts, [&](const ir::Inst& in, ir::InstId id,
                                           std::vector<GradFact>& fs) {
    Effect e = Effect::Unchanged;
    if (in.result.valid()) {
      GradState r = transfer(fid, f, in, id, ctx, depth, fs, md);
      // Only phis and unbound names stay at bottom; anything computed is
      // at least detached (an empty list, a call with no known inputs).
      if (in.op != ir::Op::Phi && in.op != ir::Op::Undef) r = join(r, GradState::NoGraph);
      r = unless_number(fid, in, r);
      e = fs[in.result.v].join(GradFact{r});
    }
    return e | absorb(fid, f, in, id, fs);
  });
  if (c == Converged::No)
    for (GradFact& x : facts) x.join(GradFact{GradState::Unknown});
  return c;
}

GradState Provenance::eval(ir::FunctionId f, Context ctx, int depth) {
  if (depth > kMaxDepth) return GradState::Unknown;
  Evaluation key{f, ctx};
  auto it = memo_.find(key);
  if (it != memo_.end()) return it->second;
  if (!in_progress_.insert(key).second) return GradState::Unknown;  // recursion
  std::vector<GradFact> facts;
  analyze(f, ctx, depth, facts);
  GradState r = returns_of(m_.fn(f), facts);
  in_progress_.erase(key);
  memo_[key] = r;
  return r;
}

Context Provenance::effective(ir::FunctionId f, const std::vector<Merge>& merges) const {
  GradMode deco = decorator_[f.v];
  Context c = Context::unknown(GradMode::Enabled);
  const ir::Function& fn = m_.fn(f);
  if (fn.kind == ir::FunctionKind::Function && merges[f.v].any) {
    c = merges[f.v].ctx;
    // Methods are also called through instances the file passes around
    // (a `model` parameter): callers we cannot see, in an unknown context.
    if (escapes_[f.v] || res_.self_class(f).valid()) c.join(Context::unknown(GradMode::Enabled));
  }
  if (deco != GradMode::Bottom) c.entry = deco;
  return c;
}

GradProvenance Provenance::run() {
  size_t n = m_.functions.size();
  GradProvenance out;
  out.fns.resize(n);
  standalone_.assign(n, {});
  std::vector<Merge> merges(n), next(n);
  std::vector<Context> used(n);
  std::vector<uint8_t> analyzed(n, 0);
  std::vector<std::vector<std::pair<ir::FunctionId, Context>>> contrib(n);
  std::vector<GradFact> facts;
  for (int round = 0; round < kMergeRounds; ++round) {
    // Memoized returns may predate the module's facts (globals) or the
    // merged contexts of this round: recompute them.
    memo_.clear();
    for (uint32_t fi = 0; fi < n; ++fi) {
      ir::FunctionId fid(fi);
      Context ctx = effective(fid, merges);
      if (analyzed[fi] && ctx == used[fi]) continue;
      used[fi] = ctx;
      analyzed[fi] = 1;
      const ir::Function& f = m_.fn(fid);
      Converged c = analyze(fid, ctx, 0, facts);
      FunctionGrad& g = out.fns[fi];
      g.value.resize(facts.size());
      for (size_t i = 0; i < facts.size(); ++i) g.value[i] = facts[i].s;
      g.mode = modes(fid, ctx.entry);
      g.returns = returns_of(f, facts);
      g.entry = ctx.entry;
      g.converged = c;
      standalone_[fi] = g.value;
      if (fi == 0) memo_.clear();  // module globals are known from here on
      // What this function passes to the file's functions it calls.
      contrib[fi].clear();
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& in = f.insts[i];
        if (in.op != ir::Op::Call || g.mode[i] == GradMode::Bottom) continue;
        ir::FunctionId callee;
        Context cc;
        if (callee_context(fid, f, in, ir::InstId(i), ctx, facts, g.mode[i], callee, cc))
          contrib[fi].emplace_back(callee, cc);
      }
    }
    for (Merge& mg : next) mg = Merge{};
    for (const auto& list : contrib)
      for (const auto& [callee, cc] : list) next[callee.v].add(cc);
    if (next == merges) break;
    merges = next;
  }
  for (uint32_t fi = 0; fi < n; ++fi) {
    out.fns[fi].called = merges[fi].any;
    if (out.fns[fi].converged == Converged::No) ++out.not_converged;
  }
  return out;
}

}  // namespace

GradState foreign_returns(const ForeignFunction& ff) {
  if (!ff.facts) return GradState::Unknown;
  GradState r = ff.facts->grad().fns[ff.fn.v].returns;
  return r == GradState::Bottom ? GradState::Unknown : r;
}

GradProvenance compute_grad_provenance(const ir::Module& m, const ir::Resolution& res,
                                       const TorchCalls& calls, const CallKinds& kinds,
                                       const Summaries* summaries, const Objects* objects) {
  Provenance p(m, res, calls, kinds, summaries, objects);
  return p.run();
}

bool may_create_graph(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls,
                      const CallKinds& kinds) {
  // The sources of Graph in Provenance::call, by grad rule of the row.
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    const ir::Function& f = m.functions[fi];
    ir::FunctionId fid(fi);
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      if (in.op != ir::Op::Call) continue;
      TorchCall k = kinds[fi][i];
      if (k == TorchCall::None) continue;
      switch (info(k).grad) {
        case GradRule::Graph:
        case GradRule::Model:
          return true;
        case GradRule::RequiresGradKw:
          if (bool_arg(m, res, fid, in, -1, "requires_grad") == BoolArg::True) return true;
          break;
        case GradRule::RequiresGradArg:
          if (bool_arg(m, res, fid, in, 0, "requires_grad") != BoolArg::False) return true;
          break;
        case GradRule::CreateGraphKw:
          if (bool_arg(m, res, fid, in, -1, "create_graph") == BoolArg::True) return true;
          break;
        default:
          break;
      }
    }
  }
  // A call of a parameter takes the row of what its callers pass
  // (callee_row): a model value anywhere in the file may be passed.
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    for (uint32_t v = 0; v < m.functions[fi].values.size(); ++v) {
      const ir::Referent& r = res.ref(fid, ir::ValueId(v));
      if ((r.kind == ir::Referent::Kind::Result || r.kind == ir::Referent::Kind::Instance) &&
          calls.is_model(m, res, r))
        return true;
    }
  }
  return false;
}

}  // namespace tpf::dataflow
