// IR execution: runs one ir::Function's blocks with concrete control flow
// (phis pick the operand of the edge taken), evaluates each instruction on
// interpreter Values, and stops the whole run once the first training step
// is complete (the loop around the first `.backward()` comes back to its
// header) or the budget is spent.
// requires: ir::build (SSA, RPO-numbered blocks). produces: values, events.
#include <algorithm>
#include <cstdlib>

#include "ir/cfg.h"
#include "memory/interp/interp.h"

namespace tpf::memory {

Value zoo_value(Interp& in, std::string_view file, std::string_view name);

namespace {

// Budgets (kStepBudget is in interp.h). A training script's construction and one step execute well
// under a million IR instructions (GPT-2 XL's 48 blocks: ~60k); the cap only
// stops runaway loops (`while True` without a step). Call depth 64 is far
// deeper than model nesting (ResNet-152: 6) and stops runaway recursion.
constexpr uint32_t kMaxDepth = 64;

struct StackGuard {
  Interp& in;
  StackGuard(Interp& i, Frame* f) : in(i) {
    in.stack.push_back(f);
    ++in.depth;
  }
  ~StackGuard() {
    in.unknown_loops -= in.stack.back()->unknown_loops;  // loops left by return or break
    in.stack.pop_back();
    --in.depth;
  }
};

Value constant_value(Interp& in, const ast::Constant& c) {
  using K = ast::Constant::Kind;
  switch (c.kind) {
    case K::None_: return Value::none();
    case K::True_: return Value::boolean(true);
    case K::False_: return Value::boolean(false);
    case K::Ellipsis: return Value{VKind::Ellipsis, 0, 0};
    case K::Int: {
      if (c.text.size() > 18) return Value::real(std::strtod(c.text.c_str(), nullptr));
      return in.int_value(std::strtoll(c.text.c_str(), nullptr, 10));
    }
    case K::Float: return Value::real(c.number);
    case K::Str: return in.str_value(c.text);
    default: return Value::unknown();
  }
}

}  // namespace

uint32_t Interp::user_line() const {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (units[(*it)->module]->is_user) return units[(*it)->module]->ir->pos((*it)->cur_span).line;
  return 0;
}

Span Interp::user_span() const {
  for (auto it = stack.rbegin(); it != stack.rend(); ++it)
    if (units[(*it)->module]->is_user) return (*it)->cur_span;
  return {};
}

void Interp::note_unknown(std::string what, Span, bool blocking) {
  for (auto& u : cfg.unknowns) {
    if (u.what == what) {
      u.blocking = u.blocking || blocking;
      return;
    }
  }
  cfg.unknowns.push_back({std::move(what), user_line(), blocking});
}

/// The value a name of `fr`'s function holds now: its latest executed store,
/// or the parameter. nullopt when the function has no such name (bound).
static std::optional<Value> lookup_local(Interp& in, const Frame& fr, ir::Symbol s,
                                         uint32_t* offset = nullptr) {
  const ir::Function& f = in.unit(fr.module).ir->fn(fr.fn);
  ir::VarId var = f.find_var(s);
  if (!var.valid()) return std::nullopt;
  std::span<const uint32_t> st = in.stores(fr.module, fr.fn, var);
  for (size_t i = st.size(); i-- > 0;) {
    const ir::LocalRef& r = f.local_refs[st[i]];
    const Value& v = fr.vals[r.value.v];
    if (v.kind != VKind::Unbound) {
      if (offset) *offset = r.offset;
      return v;
    }
  }
  for (const ir::Inst& inst : f.insts_of(f.entry())) {
    if (inst.op != ir::Op::Param) continue;
    if (f.params[inst.aux].name == s) return fr.vals[inst.result.v];
  }
  return std::nullopt;
}

std::span<const uint32_t> Interp::stores(uint16_t u, ir::FunctionId fn, ir::VarId var) {
  Unit& un = unit(u);
  auto it = un.stores.find(fn.v);
  if (it == un.stores.end()) {
    const ir::Function& f = un.ir->fn(fn);
    Unit::StoreIndex ix;
    ix.start.assign(f.vars.size() + 1, 0);
    for (const ir::LocalRef& r : f.local_refs)
      if (r.store && r.value.valid() && r.var.v < f.vars.size()) ++ix.start[r.var.v + 1];
    for (size_t v = 0; v < f.vars.size(); ++v) ix.start[v + 1] += ix.start[v];
    ix.refs.resize(ix.start.back());
    std::vector<uint32_t> next(ix.start.begin(), ix.start.end() - 1);
    for (uint32_t i = 0; i < f.local_refs.size(); ++i) {
      const ir::LocalRef& r = f.local_refs[i];
      if (r.store && r.value.valid() && r.var.v < f.vars.size()) ix.refs[next[r.var.v]++] = i;
    }
    it = un.stores.emplace(fn.v, std::move(ix)).first;
  }
  const Unit::StoreIndex& ix = it->second;
  if (!var.valid() || var.v + 1 >= ix.start.size()) return {};
  return std::span<const uint32_t>(ix.refs.data() + ix.start[var.v], ix.start[var.v + 1] - ix.start[var.v]);
}

/// A `for` statement's loop header, not a comprehension's: the statement's
/// ForIter spans from its `for` keyword, a comprehension's from its iterable.
static bool is_statement_loop(const Unit& un, const ir::Inst& term) {
  const SourceFile* src = un.ir->src;
  if (!src || term.span.begin + 4 > src->text.size()) return false;
  std::string_view t(src->text.data() + term.span.begin, 4);
  return t == "for " || t == "for\t" || t == "asyn";
}

static Value load_global(Interp& in, uint16_t u, ir::Symbol s) {
  Unit& un = in.unit(u);
  auto g = un.globals_set.find(s);
  if (g != un.globals_set.end()) return g->second;
  if (un.top) {
    uint32_t off = 0;
    if (auto v = lookup_local(in, *un.top, s, &off)) {
      // A module constant of the script named like a batch size or a
      // sequence length is a configuration source.
      if (un.is_user && v->kind == VKind::Int)
        return in.named_source(un.ir->names.str(s), *v, un.ir->pos(Span{off, off}).line,
                               "constant " + std::string(un.ir->names.str(s)));
      return *v;
    }
  }
  std::string_view name = un.ir->names.str(s);
  // `from m import *` of a project module: its names come next.
  for (uint16_t su : un.star_units)
    if (in.star_exports(su, name))
      if (auto v = in.unit_global(su, name)) return *v;
  if (name == "__name__") return in.str_value(un.is_user ? "__main__" : un.name);
  if (name == "__file__") return in.str_value(un.is_user || un.project ? un.ir->src->path : un.name);
  if (name == "__doc__") return Value::none();
  std::string q = "builtins.";
  q += name;
  return Value::ext(in.intern(q));
}

static Value load_free(Interp& in, const Frame& fr, ir::Symbol s) {
  for (const Frame* p = fr.parent.get(); p; p = p->parent.get()) {
    if (in.unit(p->module).ir->fn(p->fn).kind == ir::FunctionKind::Module) break;
    if (auto v = lookup_local(in, *p, s)) return *v;
  }
  return load_global(in, fr.module, s);
}

// Whether block `s` adds to a comprehension's container (ListAppend,
// SetAdd, MapAdd: the ops only comprehensions lower to).
static bool grows_container(const ir::Function& f, ir::BlockId s) {
  if (!s.valid()) return false;
  for (const ir::Inst& i : f.insts_of(s))
    if (i.op == ir::Op::ListAppend || i.op == ir::Op::SetAdd || i.op == ir::Op::MapAdd) return true;
  return false;
}

// A comprehension over the rows of a tensor of symbolic length
// (`[data[i:i+T] for i in torch.randint(n, (batch_size,))]`) has as many
// items as the tensor's first dimension: when its loop ends, one append per
// pass in the body block, the list keeps that extent (`__extent__`), so
// torch.stack of it has the symbol B, not the number it stands for.
static void comprehension_extent(Interp& in, const ir::Function& f, const Frame& fr,
                                 ir::BlockId body, Obj& iter) {
  const Value* ext = iter.attrs.find(in.intern("__extent__"));
  if (!ext || !body.valid()) return;
  for (const ir::Inst& i : f.insts_of(body)) {
    if (i.op != ir::Op::ListAppend) continue;
    const Value list = fr.vals[f.operands(i)[0].v];
    if (auto* items = in.seq(list); items && items->size() == iter.items.size())
      in.o(list).attrs.set(in.intern("__extent__"), *ext);
    return;
  }
}

// Which successor an unknown branch takes: never the one that raises (an
// `assert` we cannot decide holds, whatever its message builds: an
// f-string of the values compared is many ops), a loop header's condition enters the
// loop from before it and leaves it from its back edge (one pass of
// `while step < max_steps:` is all a step needs; `while len(x.shape) < n:`
// on an unknown x would otherwise spin until the budget is spent),
// anything else is skipped (optional features: resume, logging).
static bool unknown_branch(const ir::Function& f, ir::BlockId b, ir::BlockId prev) {
  const ir::Block& bl = f.block(b);
  auto raises = [&](ir::BlockId s) {
    if (!s.valid() || f.terminator(s).op != ir::Op::Raise) return false;
    return (f.terminator(s).flags & ir::kAssert) || f.block(s).count <= 4;
  };
  if (raises(bl.succ[0])) return false;
  if (raises(bl.succ[1])) return true;
  for (ir::BlockId p : ir::preds(f, b))
    if (p.v >= b.v) return !(prev.valid() && prev.v >= b.v);  // b is a loop header: a back edge reaches it
  // A `while` whose condition block is entered from the header.
  return false;
}

bool Interp::forward_loop_steady(const Frame& fr, ir::BlockId header, const ir::Inst& term,
                                 ObjId iter) {
  const Obj& io = heap[iter];
  if (!grad_enabled || backward_seen || fr.tried_block != kNone32 || !module_path.empty() ||
      !(io.flags & kRangeIter) || (io.index != 1 && io.index != 2) || io.items.size() <= 8)
    return false;
  Unit& un = unit(fr.module);
  if (!is_statement_loop(un, term)) return false;
  const uint64_t key = uint64_t{fr.module} << 48 | uint64_t{fr.fn.v} << 24 | header.v;
  auto [memo, fresh] = loop_has_backward.try_emplace(key, false);
  if (fresh) {
    // The statement's text calls `.backward(...)` (a conditional one, a
    // step every k passes): the loop runs until it does.
    const ir::Function& f = un.ir->fn(fr.fn);
    for (const ir::Inst& in : f.insts)
      if (in.op == ir::Op::GetAttr && in.span.begin >= term.span.begin &&
          in.span.end <= term.span.end && un.ir->names.str(in.aux) == "backward") {
        memo->second = true;
        break;
      }
  }
  if (memo->second) return false;
  // The walk below visits at most the heap and the saved records: charged,
  // so nested loops of such forwards stay inside the run's budget.
  charge(heap.size() + saved.size());
  uint64_t modules = 0;
  for (const Obj& ob : heap) modules += (ob.flags & kIsModule) != 0;
  prune_dead_graphs();
  uint64_t live = unreleased_activation_bytes();
  if (io.index == 1) {
    forward_loop_bytes[iter] = {live, modules};
    return false;
  }
  auto first = forward_loop_bytes.find(iter);
  return first != forward_loop_bytes.end() && first->second.first > 0 && live <= first->second.first &&
         modules == first->second.second;
}

Value Interp::run(uint16_t u, ir::FunctionId fid, std::vector<Value> args,
                  std::shared_ptr<Frame> parent, ObjId self_class) {
  if (depth >= kMaxDepth) return Value::unknown();
  Unit& un = unit(u);
  const ir::Module& m = *un.ir;
  const ir::Function& f = m.fn(fid);
  auto fr = std::make_shared<Frame>();
  fr->module = u;
  fr->fn = fid;
  fr->vals.assign(f.values.size(), Value{VKind::Unbound, 0, 0});
  fr->parent = std::move(parent);
  fr->self_class = self_class;
  if (f.kind == ir::FunctionKind::Module) un.top = fr;
  StackGuard guard(*this, fr.get());

  ir::BlockId b = f.entry(), prev;
  while (true) {
    // Every block visit costs a step, so `while True: pass` (a block of
    // only its terminator) ends too.
    if (++steps > kStepBudget) throw StopRun{StopRun::Why::Budget};
    fr->cur_block = b.v;
    std::span<const ir::Inst> insts = f.insts_of(b);
    size_t i = 0;
    // Phis read their operands for the edge taken, all before any is written.
    if (i < insts.size() && insts[i].op == ir::Op::Phi) {
      auto ps = ir::preds(f, b);
      size_t k = 0;
      while (k < ps.size() && ps[k] != prev) ++k;
      std::vector<std::pair<uint32_t, Value>> writes;
      for (; i < insts.size() && insts[i].op == ir::Op::Phi; ++i) {
        auto ops = f.operands(insts[i]);
        Value v = k < ops.size() ? fr->vals[ops[k].v] : Value::unknown();
        if (v.kind == VKind::Unbound) v = Value::unknown();
        writes.emplace_back(insts[i].result.v, v);
      }
      for (auto& [r, v] : writes) fr->vals[r] = v;
    }
    for (; i + 1 < insts.size(); ++i) {
      if (++steps > kStepBudget) throw StopRun{StopRun::Why::Budget};
      const ir::Inst& inst = insts[i];
      fr->cur_span = inst.span;
      Value r = exec(*fr, fr, inst, args);
      if (inst.result.valid()) {
        // `BATCH_SIZE = 32`, `block_size: int = 128` in a config class, a
        // local `seq_len = 512`: a named configuration source.
        if (un.is_user && r.kind == VKind::Int && dims.is_const(r.dim())) {
          ir::VarId var = f.values[inst.result.v].var;
          if (var.valid() && f.vars[var.v].name != ir::kNoSymbol) {
            std::string_view name = m.names.str(f.vars[var.v].name);
            r = named_source(name, r, m.pos(inst.span).line, std::string(name) + " = ...");
          }
        }
        fr->vals[inst.result.v] = r;
      }
    }
    const ir::Inst& term = insts.back();
    fr->cur_span = term.span;
    ir::BlockId next;
    auto val = [&](size_t k) {
      Value v = fr->vals[f.operands(term)[k].v];
      return v.kind == VKind::Unbound ? Value::unknown() : v;
    };
    switch (term.op) {
      case ir::Op::Jump: next = f.block(b).succ[0]; break;
      case ir::Op::Branch: {
        std::optional<bool> t = truth(val(0));
        bool take = t ? *t : unknown_branch(f, b, prev);
        if (!t) fr->guessed = true;
        // A comprehension's filter on an item of data the interpreter could
        // not read (`[f for f in os.listdir(d) if f.endswith(".jpg")]`):
        // the item is kept, so the result is marked as one pass's guess
        // (kInexactLen) instead of an empty list of exact length 0.
        if (!t && unknown_loops > 0 && grows_container(f, f.block(b).succ[0])) take = true;
        if (fr->exit_header == b.v) {
          take = false;
          fr->exit_header = kNone32;
        }
        next = f.block(b).succ[take ? 0 : 1];
        break;
      }
      case ir::Op::ForIter: {
        Value it = val(0);
        bool more = false;
        if (fr->exit_header == b.v) {
          fr->exit_header = kNone32;
        } else if (is_obj(it, OKind::Iter)) {
          Obj& io = o(it);
          // An evaluation loop (`for k in range(eval_iters):` with
          // gradients off) repeats the same inference forward: two passes
          // show its memory, and the rest would spend the step budget
          // before training starts (nanoGPT's 2 x 200 evaluation batches).
          // Statement loops only: a comprehension's items are a value.
          const bool eval_loop = !grad_enabled && (io.flags & kRangeIter) && io.index >= 2 &&
                                 io.items.size() > 8 && is_statement_loop(un, term);
          const bool steady = !eval_loop && forward_loop_steady(*fr, b, term, it.a);
          if (eval_loop) decode_loop_left(*this, static_cast<int64_t>(io.items.size()));
          if (io.index < io.items.size() && !eval_loop && !steady) {
            io.attrs.set(intern("__current__"), io.items[io.index]);
            ++io.index;
            more = true;
            if (io.flags & kUnknownIter) ++fr->unknown_loops, ++unknown_loops;
          } else if ((io.flags & kUnknownIter) && io.index > 0 && fr->unknown_loops > 0) {
            --fr->unknown_loops, --unknown_loops;
          }
          if (!more && !eval_loop && !steady && io.index == io.items.size())
            comprehension_extent(*this, f, *fr, f.block(b).succ[0], io);
        }
        next = f.block(b).succ[more ? 0 : 1];
        break;
      }
      case ir::Op::Return:
        if (f.kind == ir::FunctionKind::ClassBody) last_class_frame = fr;
        return term.nops ? val(0) : Value::none();
      case ir::Op::Raise: {
        // A false assert inside `try:` goes to its handlers, as Python's
        // AssertionError would (`try: import wandb; assert
        // hasattr(wandb, "__version__") except (ImportError,
        // AssertionError): wandb = None`), and so does the re-raise of a
        // handler that did not catch it; the outermost try left, or none,
        // it ends the script there, as Python would: the first one's line
        // names why nothing was reached.
        const bool from_assert = (term.flags & ir::kAssert) || ((term.flags & ir::kReraise) && fr->exc_line);
        if (from_assert && f.block(b).exc.valid()) {
          if (term.flags & ir::kAssert) {
            fr->cur_exc = Value::ext(intern("AssertionError"));
            fr->exc_line = user_line();
            fr->exc_in_script = un.is_user;
          }
          next = f.block(b).exc;  // after the raising block in RPO: no back edge
          break;
        }
        if (from_assert && !failed_assert_line) {
          failed_assert_line = (term.flags & ir::kAssert) ? user_line() : fr->exc_line;
          failed_assert_in_script = (term.flags & ir::kAssert) ? un.is_user : fr->exc_in_script;
        }
        // A `raise` of the script's own, outside any `try:` (a parse_args
        // that raises ValueError without a dataset), before the training
        // step, on a path of its function that no unknown condition chose:
        // the run as given ends there with an error, so what the
        // interpreter goes on with is no run's. Said once, where it is.
        // (Library code of the project raises on states the interpreter
        // only approximates: not taken as the run's.)
        if (!from_assert && !raised && !fr->guessed && !backward_seen && !f.block(b).exc.valid() && un.is_user) {
          raised = true;
          std::string text;
          const std::string_view src = un.ir->src ? std::string_view(un.ir->src->text) : "";
          if (term.span.end <= src.size() && term.span.begin < term.span.end)
            text = " (`" + std::string(src.substr(term.span.begin, std::min<uint32_t>(term.span.end - term.span.begin, 100))) + "`)";
          note_unknown("the script raises here with the values the estimate has" + text +
                           ", and the run stops there: give the run's arguments after `--` (`tpf-analyze ... SCRIPT "
                           "-- --name VALUE`)",
                       {}, true);
        }
        return Value::unknown();
      }
      default: return Value::unknown();
    }
    if (!next.valid()) return Value::unknown();
    // A back edge of a loop that encloses the first backward: the training
    // step ran once, which is all the model needs.
    if (next.v <= b.v && backward_seen && fr->backward_block != kNone32 &&
        next.v <= fr->backward_block)
      throw StopRun{StopRun::Why::StepDone};
    // A back edge of a loop around a backward the interpreter could not
    // follow: a second pass would learn nothing more, so the loop is left
    // by its header's exit edge (`for`, `while cond`); the script goes on
    // to what follows (a later training loop it can follow). A loop whose
    // header has no exit edge (`while True:`) ends the run as a step does.
    // The same header reached again after its exit edge was taken (the
    // exit of `while a or b:` tests b) ends the run too.
    if (next.v <= b.v && !backward_seen && fr->tried_block != kNone32 &&
        next.v <= fr->tried_block) {
      ir::Op hop = f.insts_of(next).back().op;
      if ((hop != ir::Op::ForIter && hop != ir::Op::Branch) || fr->exited_header == next.v)
        throw StopRun{StopRun::Why::StepDone};
      fr->exit_header = fr->exited_header = next.v;
    }
    prev = b;
    b = next;
  }
}

Value Interp::exec(Frame& fr, const std::shared_ptr<Frame>& self, const ir::Inst& in,
                   const std::vector<Value>& args) {
  Unit& un = unit(fr.module);
  const ir::Module& m = *un.ir;
  const ir::Function& f = m.fn(fr.fn);
  auto ops = f.operands(in);
  auto val = [&](size_t k) {
    Value v = fr.vals[ops[k].v];
    return v.kind == VKind::Unbound ? Value::unknown() : v;
  };
  using ir::Op;
  switch (in.op) {
    case Op::Const: return constant_value(*this, m.constant(in.aux));
    case Op::Undef: return Value::unknown();
    case Op::Param: return in.aux < args.size() ? args[in.aux] : Value::unknown();
    case Op::Phi: return Value::unknown();
    case Op::LoadLocal: return Value::unknown();
    case Op::StoreLocal: return Value::unknown();
    case Op::LoadGlobal: return load_global(*this, fr.module, in.aux);
    case Op::StoreGlobal: un.globals_set[in.aux] = val(0); return Value::unknown();
    case Op::DelGlobal: return Value::unknown();
    case Op::LoadFree: return load_free(*this, fr, in.aux);
    case Op::StoreFree: return Value::unknown();
    case Op::Import: {
      std::string q = m.names.str(ir::PathId(in.aux));
      // Zoo files import each other's definitions.
      if (!un.is_user && q.starts_with("tpf_zoo.")) {
        size_t dot = q.find('.', 8);
        if (dot != std::string::npos) return zoo_value(*this, q.substr(8, dot - 8), q.substr(dot + 1));
      }
      return import_value(fr.module, q);
    }
    case Op::ImportStar: {
      Value mv = import_value(fr.module, m.names.str(ir::PathId(in.aux)));
      if (is_obj(mv, OKind::Module)) {
        uint16_t su = static_cast<uint16_t>(o(mv).index);
        auto& stars = un.star_units;
        if (std::find(stars.begin(), stars.end(), su) == stars.end()) stars.push_back(su);
      }
      return Value::unknown();
    }
    case Op::GetAttr: return getattr(val(0), sym(fr.module, in.aux));
    case Op::SetAttr: setattr(val(0), sym(fr.module, in.aux), val(1)); return Value::unknown();
    case Op::DelAttr: {
      if (Obj* ob = instance(val(0))) ob->attrs.erase(sym(fr.module, in.aux));
      return Value::unknown();
    }
    case Op::GetItem: return getitem(val(0), val(1));
    case Op::SetItem: setitem(val(0), val(1), val(2)); return Value::unknown();
    case Op::DelItem: return Value::unknown();
    case Op::BinOp:
      return binop(static_cast<ast::Op>(in.aux), val(0), val(1), (in.flags & ir::kInplaceOp) != 0);
    case Op::UnaryOp: return unaryop(static_cast<ast::Op>(in.aux), val(0));
    case Op::Compare: return compare(static_cast<ast::Op>(in.aux), val(0), val(1));
    case Op::Call: {
      const ir::CallInfo& ci = f.call_info(in);
      Args a;
      a.span = in.span;
      for (uint32_t k = 0; k < ci.npos; ++k) {
        Value v = val(1 + k);
        if (k < 32 && (ci.star_mask >> k) & 1u) {
          if (auto items = iterate(v)) {
            for (Value x : *items) a.pos.push_back(x);
          } else {
            a.pos.push_back(Value::unknown());
          }
        } else {
          a.pos.push_back(v);
        }
      }
      bool unknown_splat = false;  // `**x` with an x the interpreter does not hold
      for (uint32_t k = 0; k < ci.nkw; ++k) {
        ir::Symbol name = f.kw_names[ci.kw_first + k];
        Value v = val(1 + ci.npos + k);
        if (name == ir::kNoSymbol) {
          // OmegaConf's DictConfig unpacks as the mapping it is (hydra's
          // `GPTConfig(**cfg["gpt_config"])`).
          Obj* dc = instance(v);
          const bool config = dc && dc->type != kNone32 && str(dc->type) == "omegaconf.DictConfig";
          unknown_splat = unknown_splat || (!is_obj(v, OKind::Dict) && !config);
          if (is_obj(v, OKind::Dict)) {
            Obj& d = o(v);
            for (size_t j = 0; j + 1 < d.items.size(); j += 2)
              if (auto s = as_str(d.items[j])) a.kw.emplace_back(intern(*s), d.items[j + 1]);
          } else if (config) {
            for (const auto& [k, x] : dc->attrs.items) a.kw.emplace_back(k, x);
          }
          continue;
        }
        a.kw.emplace_back(sym(fr.module, name), v);
      }
      Value callee = val(0);
      // How the script names what it calls (`model`, `s.models["netG"]`):
      // the name of a root module in the per-layer breakdown.
      if (module_path.empty() && is_module(callee)) {
        callee_hint.clear();
        const ir::Inst& d = f.def(ops[0]);
        ir::VarId var = f.values[ops[0].v].var;
        if (d.op == ir::Op::GetItem) {
          if (auto k = as_str(fr.vals[f.operands(d)[1].v])) callee_hint = std::string(*k);
        } else if (d.op == ir::Op::GetAttr) {
          callee_hint = std::string(m.names.str(d.aux));
        }
        if (callee_hint.empty() && var.valid() && f.vars[var.v].name != ir::kNoSymbol)
          callee_hint = std::string(m.names.str(f.vars[var.v].name));
      }
      // A dataclass built from a mapping it cannot see (litgpt's
      // `Config(**yaml.safe_load(f))` of a file that is not there) has
      // unknown fields, not its class defaults: no guessed model from it.
      if (unknown_splat && is_obj(callee, OKind::Class) && (o(callee.a).flags & kDataclass)) return Value::unknown();
      // A generator function yields one item for the step: see call_function.
      Value r = call(callee, a);
      // `loss.backward()`, `accelerator.backward(loss)` the interpreter could
      // not follow (an unknown loss): the step ran as far as it can, so every
      // loop around it is left at its back edge (see run) instead of spinning
      // over unknown values until the budget is spent.
      if (!backward_seen) {
        const ir::Inst& d = f.def(ops[0]);
        if (d.op == ir::Op::GetAttr && m.names.str(d.aux) == "backward") {
          for (Frame* s : stack)
            if (s->tried_block == kNone32) s->tried_block = s->cur_block;
          if (!unfollowed_backward_line) unfollowed_backward_line = user_line();
        }
      }
      return r;
    }
    case Op::BuildTuple:
    case Op::BuildList:
    case Op::BuildSet: {
      std::vector<Value> items;
      for (size_t k = 0; k < ops.size(); ++k) items.push_back(val(k));
      OKind k = in.op == Op::BuildTuple ? OKind::Tuple : in.op == Op::BuildList ? OKind::List
                                                                                : OKind::Set;
      return make_list(std::move(items), k);
    }
    case Op::BuildDict: {
      Value d = make_dict();
      for (size_t k = 0; k + 1 < ops.size(); k += 2) setitem(d, val(k), val(k + 1));
      return d;
    }
    case Op::BuildSlice: {
      ObjId s = alloc(OKind::Slice);
      o(s).items = {val(0), val(1), val(2)};
      return Value::obj(s);
    }
    case Op::BuildString: {
      std::string out;
      for (size_t k = 0; k < ops.size(); ++k) {
        auto s = as_str(val(k));
        if (!s) return Value::unknown();
        out += *s;
      }
      return str_value(out);
    }
    case Op::FormatValue: {
      Value v = val(0);
      if (v.kind == VKind::Str) return v;
      if (v.kind == VKind::Int || v.kind == VKind::Float || v.kind == VKind::Bool)
        return str_value(repr(v));
      return Value::unknown();
    }
    case Op::ListAppend: {
      if (auto* s = seq(val(0))) s->push_back(val(1)), grown(val(0));
      return Value::unknown();
    }
    case Op::ListExtend: {
      if (auto* s = seq(val(0))) {
        grown(val(0));
        if (auto items = iterate(val(1))) s->insert(s->end(), items->begin(), items->end());
      }
      return Value::unknown();
    }
    case Op::SetAdd: {
      if (is_obj(val(0), OKind::Set)) o(val(0)).items.push_back(val(1)), grown(val(0));
      return Value::unknown();
    }
    case Op::MapAdd: setitem(val(0), val(1), val(2)); return Value::unknown();
    case Op::DictUpdate: {
      Value d = val(0), src = val(1);
      if (is_obj(d, OKind::Dict) && is_obj(src, OKind::Dict)) {
        std::vector<Value> items = o(src).items;
        for (size_t k = 0; k + 1 < items.size(); k += 2) setitem(d, items[k], items[k + 1]);
      }
      return Value::unknown();
    }
    case Op::ListToTuple: {
      Value l = val(0);
      if (auto* s = seq(l)) return make_list(*s, OKind::Tuple);
      return Value::unknown();
    }
    case Op::MakeFunction: {
      ObjId fo = alloc(OKind::Function);
      o(fo).module = fr.module;
      o(fo).index = in.aux;
      for (size_t k = 0; k < ops.size(); ++k) o(fo).items.push_back(val(k));
      o(fo).closure = self;
      return Value::obj(fo);
    }
    case Op::MakeClass: return make_class(fr, self, in, ops);
    case Op::MakeTypeAlias: return Value::unknown();
    case Op::GetIter: {
      Value v = val(0);
      if (is_obj(v, OKind::Iter)) return v;
      if (auto items = iterate(v)) {
        const bool range = is_obj(v, OKind::Range);
        const bool inexact = v.kind == VKind::Obj && (o(v).flags & kInexactLen);
        Value it = make_list(std::move(*items), OKind::Iter);
        if (range) o(it).flags |= kRangeIter;
        // The rows of a tensor of symbolic length (the batch size B): what
        // a comprehension over them builds keeps the symbol (comprehension_extent).
        if (TensorObj* t = tensor(v);
            t && !t->shape.empty() && !dims.is_const(t->shape[0]) &&
            dims.value(t->shape[0]) == static_cast<int64_t>(o(it).items.size()))
          o(it).attrs.set(intern("__extent__"), Value::integer(t->shape[0]));
        // Over a container of guessed length: what the loop grows is a guess too.
        if (inexact) o(it).flags |= kUnknownIter;
        return it;
      }
      // Unknown iterable: one unknown item, so the loop body runs once;
      // what the body adds to a container is then a guess of its length.
      Value it = make_list({Value::unknown()}, OKind::Iter);
      o(it).flags |= kUnknownIter;
      return it;
    }
    case Op::NextItem: {
      Value it = val(0);
      if (!is_obj(it, OKind::Iter)) return Value::unknown();
      const Value* cur = o(it).attrs.find(intern("__current__"));
      return cur ? *cur : Value::unknown();
    }
    case Op::Unpack: {
      Value v = val(0);
      uint32_t count = in.aux & 0xffff, star = in.aux >> 16;
      auto items = iterate(v);
      if (!items) return Value::unknown();
      if (star == 0xffff || star >= count) {
        items->resize(count, Value::unknown());
        return make_list(std::move(*items), OKind::Tuple);
      }
      // a, *rest, b: element `star` is the list of the middle items.
      std::vector<Value> out;
      size_t after = count - star - 1;
      if (items->size() < star + after) return Value::unknown();
      for (uint32_t k = 0; k < star; ++k) out.push_back((*items)[k]);
      std::vector<Value> mid(items->begin() + star, items->end() - static_cast<long>(after));
      out.push_back(make_list(std::move(mid)));
      for (size_t k = items->size() - after; k < items->size(); ++k) out.push_back((*items)[k]);
      return make_list(std::move(out), OKind::Tuple);
    }
    case Op::Element: {
      Value t = val(0);
      if (auto* s = seq(t); s && in.aux < s->size()) return (*s)[in.aux];
      return Value::unknown();
    }
    case Op::Yield: throw YieldStop{val(0)};
    case Op::YieldFrom:
    case Op::Await: return Value::unknown();
    case Op::WithEnter: return enter_context(val(0), true);
    // The exceptional exit (a false assert inside `with torch.no_grad():`
    // in a `try:`) leaves the context too: gradients are on again in the
    // handler, as in Python.
    case Op::WithExit: enter_context(val(0), false); return Value::unknown();
    case Op::CurrentExc: return fr.cur_exc;
    case Op::ExceptMatch: {
      // Only a false assert raises in the interpreter: its AssertionError
      // matches AssertionError, Exception and BaseException (alone or in
      // a tuple); nothing else is ever raised, so nothing else matches.
      Value e = val(0), t = val(1);
      if (e.kind != VKind::Ext || str(e.a) != "AssertionError") return Value::boolean(false);
      auto catches = [&](Value c) {
        if (c.kind != VKind::Ext) return false;
        std::string_view n = str(c.a);
        if (size_t dot = n.rfind('.'); dot != std::string_view::npos) n = n.substr(dot + 1);
        return n == "AssertionError" || n == "Exception" || n == "BaseException";
      };
      if (auto* items = seq(t)) {
        for (Value c : *items)
          if (catches(c)) return Value::boolean(true);
        return Value::boolean(false);
      }
      return Value::boolean(catches(t));
    }
    case Op::MatchSeq:
    case Op::MatchMap:
    case Op::MatchCls: return Value::boolean(false);
    case Op::MatchMapRest:
    case Op::MatchClsArg: return Value::unknown();
    default: return Value::unknown();
  }
}

/// MakeClass: runs the class body, collects its names as class attributes.
Value Interp::make_class(Frame& fr, const std::shared_ptr<Frame>& self, const ir::Inst& in,
                         std::span<const ir::ValueId> ops) {
  const ir::Module& m = *unit(fr.module).ir;
  const ir::Class& c = m.cls(ir::ClassId(in.aux));
  ObjId co = alloc(OKind::Class);
  o(co).module = fr.module;
  o(co).index = in.aux;
  o(co).type = sym(fr.module, c.name);
  size_t nbases = c.bases.size();
  for (size_t k = 0; k < nbases && k < ops.size(); ++k) {
    Value b = fr.vals[ops[k].v];
    o(co).items.push_back(b.kind == VKind::Unbound ? Value::unknown() : b);
  }
  class_objs[(uint64_t{fr.module} << 32) | in.aux] = co;
  // Run the body for its attributes (methods, `expansion = 4`, fields).
  run(fr.module, c.body, {}, self, co);
  if (const Frame* body = last_class_frame.get(); body && body->fn == c.body) {
    const ir::Function& bf = m.fn(c.body);
    for (uint32_t v = 0; v < bf.local_count; ++v) {
      if (auto x = lookup_local(*this, *body, bf.vars[v].name))
        o(co).attrs.set(sym(fr.module, bf.vars[v].name), *x);
    }
  }
  if (class_derives(co, "torch.nn.Module")) o(co).flags |= kModuleClass;
  if (class_derives(co, "torch.utils.data.Dataset") ||
      class_derives(co, "torch.utils.data.IterableDataset"))
    o(co).flags |= kDatasetClass;
  return Value::obj(co);
}

}  // namespace tpf::memory
