// Abstract objects by allocation site (see objects.h): a monotone points-to
// fixpoint over every function of the file, then what each optimizer steps.
#include "dataflow/objects.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "dataflow/summaries.h"
#include "dataflow/torch_calls.h"

namespace tpf::dataflow {

using ir::FunctionId;
using ir::InstId;
using ir::Op;
using ir::ValueId;

std::string_view obj_kind_name(ObjKind k) {
  switch (k) {
    case ObjKind::Module: return "module";
    case ObjKind::Params: return "parameters";
    case ObjKind::Optimizer: return "optimizer";
    case ObjKind::Scheduler: return "scheduler";
    case ObjKind::Loader: return "loader";
    case ObjKind::Sampler: return "sampler";
    case ObjKind::Scaler: return "scaler";
    case ObjKind::Criterion: return "criterion";
    case ObjKind::Engine: return "engine";
    case ObjKind::Instance: return "instance";
  }
  return "?";
}

namespace {

/// A value denotes at most this many objects; more is as good as unknown.
constexpr size_t kMaxSet = 24;
/// Rounds over the file before the fixpoint is given up (each adds only).
constexpr int kMaxRounds = 12;

using Set = std::vector<uint32_t>;

AbstractObject object_at(ObjKind k, FunctionId f, InstId i) {
  AbstractObject a;
  a.kind = k;
  a.fn = f;
  a.site = i;
  return a;
}

bool add(Set& to, uint32_t o) {
  auto it = std::lower_bound(to.begin(), to.end(), o);
  if (it != to.end() && *it == o) return false;
  if (to.size() >= kMaxSet) return false;
  to.insert(it, o);
  return true;
}
bool add_all(Set& to, const Set& from) {
  bool changed = false;
  for (uint32_t o : from) changed |= add(to, o);
  return changed;
}

bool starts(std::string_view s, std::string_view p) { return s.starts_with(p); }
bool ends(std::string_view s, std::string_view p) { return s.ends_with(p); }

/// What building `name` (a qualified name) makes, or false when it makes
/// none of the objects rules ask about.
/// A model's averaged copy (SWA / EMA): a module of its own, built from the
/// model's deep copy, that no optimizer steps unless one is given it.
bool averaged_copy(std::string_view n) {
  return n == "torch.optim.swa_utils.AveragedModel" ||
         (starts(n, "timm.utils.") && n.substr(n.rfind('.') + 1).starts_with("ModelEma"));
}

bool constructed_kind(std::string_view n, ObjKind& k) {
  if (n.empty()) return false;
  std::string_view last = n.substr(n.rfind('.') + 1);
  if (starts(n, "torch.optim.lr_scheduler.") || (starts(n, "transformers.") && n.find("schedule") != n.npos) ||
      starts(n, "diffusers.optimization.get_")) {
    k = ObjKind::Scheduler;
    return true;
  }
  if (averaged_copy(n)) {
    k = ObjKind::Module;
    return true;
  }
  if (starts(n, "torch.optim.") || starts(n, "bitsandbytes.optim.") || starts(n, "apex.optimizers.") ||
      starts(n, "deepspeed.ops.adam.") || starts(n, "deepspeed.ops.lamb.") ||
      n == "transformers.AdamW" || n == "transformers.Adafactor" ||
      n == "transformers.optimization.AdamW" || n == "transformers.optimization.Adafactor" ||
      ends(n, "ZeroRedundancyOptimizer") || starts(n, "timm.optim.create_optimizer")) {
    if (n.find("swa_utils") != n.npos) return false;
    k = ObjKind::Optimizer;
    return true;
  }
  if (n == "torch.utils.data.DataLoader" || n == "torch.utils.data.dataloader.DataLoader") {
    k = ObjKind::Loader;
    return true;
  }
  if (ends(last, "Sampler")) {
    k = ObjKind::Sampler;
    return true;
  }
  if (ends(last, "GradScaler")) {
    k = ObjKind::Scaler;
    return true;
  }
  if (starts(n, "torch.nn.") && ends(last, "Loss")) {
    k = ObjKind::Criterion;
    return true;
  }
  if (last == "from_pretrained" || last == "from_config") {
    // Cls.from_pretrained(...) of any library or of the project: a model,
    // unless the class is a config, tokenizer, processor or pipeline.
    std::string_view cls = n.substr(0, n.rfind('.'));
    cls = cls.substr(cls.rfind('.') + 1);
    for (std::string_view no : {"Config", "Tokenizer", "Processor", "Extractor", "Scheduler",
                                "Pipeline", "Dataset"})
      if (cls.find(no) != cls.npos) return false;
    if (cls.empty() || !(cls[0] >= 'A' && cls[0] <= 'Z')) return false;
    k = ObjKind::Module;
    return true;
  }
  bool upper = !last.empty() && last[0] >= 'A' && last[0] <= 'Z';
  if ((starts(n, "torch.nn.") && upper && !starts(n, "torch.nn.functional.") &&
       !starts(n, "torch.nn.init.") && !starts(n, "torch.nn.utils.") && last != "Parameter" &&
       last != "ParameterList" && last != "ParameterDict") ||
      starts(n, "torchvision.models.") || starts(n, "timm.create_model") ||
      (starts(n, "transformers.") && upper && n.find("Model") != n.npos && n.find("Config") == n.npos) ||
      (starts(n, "diffusers.") && upper && n.find("Model") != n.npos)) {
    k = ObjKind::Module;
    return true;
  }
  return false;
}

/// A class name the analysis cannot follow (CamelCase, outside the
/// standard library and torch, whose classes constructed_kind knows).
bool opaque_class(std::string_view n) {
  if (n.empty()) return false;
  std::string_view root = n.substr(0, n.find('.'));
  static constexpr std::string_view kKnown[] = {
      "builtins", "torch", "argparse", "collections", "typing", "dataclasses", "logging", "pathlib",
      "numpy", "os", "sys", "json", "re", "functools", "itertools", "datetime", "time", "random",
      "threading", "multiprocessing", "queue", "enum", "contextlib", "PIL", "pandas", "accelerate",
      "tqdm", "wandb", "tensorboardX", "torchvision", "transformers", "datasets", "omegaconf", "hydra"};
  if (n.find('.') != n.npos && std::find(std::begin(kKnown), std::end(kKnown), root) != std::end(kKnown))
    return false;
  std::string_view last = n.substr(n.rfind('.') + 1);
  if (last.size() < 2 || !(last[0] >= 'A' && last[0] <= 'Z')) return false;
  bool lower = false;
  for (char c : last) lower |= c >= 'a' && c <= 'z';
  return lower;  // not a CONSTANT
}

/// Calls that return (an alias of) their first argument: wrappers.
bool wraps_first_arg(std::string_view n) {
  return n == "torch.nn.parallel.DistributedDataParallel" || n == "torch.nn.DataParallel" ||
         n == "torch.nn.parallel.DataParallel" ||
         n == "torch.nn.parallel.distributed.DistributedDataParallel" ||
         n == "torch.distributed.fsdp.FullyShardedDataParallel" ||
         ends(n, "fully_sharded_data_parallel.FullyShardedDataParallel") || n == "torch.compile" ||
         n == "peft.get_peft_model" || n == "peft.prepare_model_for_kbit_training" ||
         n == "torch.nn.SyncBatchNorm.convert_sync_batchnorm" || n == "builtins.iter" ||
         n == "builtins.enumerate" || n == "builtins.list" || n == "builtins.tuple" ||
         n == "builtins.filter" || n == "builtins.sorted" || n == "builtins.reversed" ||
         ends(n, "tqdm") || n == "torch.jit.script" || n == "copy.copy";
}
/// Calls whose result holds every argument's objects.
bool joins_args(std::string_view n) {
  return n == "builtins.zip" || n == "itertools.chain" || n == "itertools.chain.from_iterable";
}

/// Methods that return their receiver (nn.Module and Tensor).
bool returns_receiver(std::string_view m) {
  return m == "to" || m == "cuda" || m == "cpu" || m == "train" || m == "eval" || m == "half" ||
         m == "float" || m == "double" || m == "bfloat16" || m == "requires_grad_" ||
         m == "share_memory" || m == "apply" || m == "to_empty" || m == "xpu" || m == "npu";
}

}  // namespace

class ObjectSolver {
 public:
  ObjectSolver(const ir::Module& m, const ir::Resolution& res, const Summaries* summaries, Objects& out)
      : m_(m), res_(res), summaries_(summaries), o_(out) {}

  void run() {
    size_t nf = m_.functions.size();
    o_.pts_.resize(nf);
    callee_.resize(nf);
    params_.resize(nf);
    ret_.resize(nf);
    ret_elems_.resize(nf);
    for (size_t f = 0; f < nf; ++f) {
      o_.pts_[f].resize(m_.functions[f].values.size());
      params_[f].resize(m_.functions[f].params.size());
    }
    indexed_.assign(nf, 0);
    self_.resize(m_.classes.size());
    for (size_t c = 0; c < m_.classes.size(); ++c) {
      AbstractObject a = object_at(res_.is_module_class(ir::ClassId(c)) ? ObjKind::Module : ObjKind::Instance, FunctionId(), InstId());
      a.cls = ir::ClassId(c);
      self_[c].push_back(make(a));
    }
    s_requires_grad_ = m_.names.find("requires_grad");
    for (round_ = 0; round_ < kMaxRounds; ++round_) {
      changed_ = round_ == 0;
      for (size_t f = 0; f < nf; ++f) function(FunctionId(f));
      if (!changed_) break;
    }
    optimizers();
    freezing();
  }

 private:
  Set& pts(FunctionId f, ValueId v) { return o_.pts_[f.v][v.v]; }
  void put(FunctionId f, ValueId v, const Set& s) {
    if (v.valid() && &pts(f, v) != &s) changed_ |= add_all(pts(f, v), s);
  }
  void put1(FunctionId f, ValueId v, uint32_t o) {
    if (v.valid()) changed_ |= add(pts(f, v), o);
  }

  uint32_t make(const AbstractObject& a) {
    o_.objs_.push_back(a);
    return static_cast<uint32_t>(o_.objs_.size() - 1);
  }
  /// The object built at a call site (one per site, made on first visit).
  uint32_t site_object(FunctionId f, InstId i, ObjKind k, ir::ClassId cls = ir::ClassId()) {
    uint64_t key = (uint64_t(f.v) << 32) | i.v;
    auto it = sites_.find(key);
    if (it != sites_.end()) return it->second;
    AbstractObject a = object_at(k, f, i);
    a.cls = cls;
    uint32_t o = make(a);
    sites_.emplace(key, o);
    if (cls.valid()) add_instance(cls, o);
    return o;
  }
  /// `self` in the methods of a class and of its local bases may be o.
  void add_instance(ir::ClassId c, uint32_t o) {
    for (int depth = 0; c.valid() && depth < 32; ++depth) {
      changed_ |= add(self_[c.v], o);
      const ir::Class& cl = m_.cls(c);
      ir::ClassId next;
      for (ValueId b : cl.bases) {
        if (!b.valid()) continue;
        const ir::Referent& r = res_.ref(cl.defined_in, b);
        if (r.kind == ir::Referent::Kind::Class) next = r.cls();
      }
      c = next;
    }
  }
  /// The part `attr` of object o (made on first use), or o's field.
  uint32_t part(uint32_t o, ir::Symbol attr) {
    uint64_t key = (uint64_t(o) << 32) | attr;
    auto it = parts_.find(key);
    if (it != parts_.end()) return it->second;
    AbstractObject a = object_at(o_.objs_[o].kind, FunctionId(), InstId());
    a.parent = o;
    a.attr = attr;
    uint32_t p = make(a);
    parts_.emplace(key, p);
    return p;
  }
  uint32_t params_of(uint32_t o) {
    auto it = params_of_.find(o);
    if (it != params_of_.end()) return it->second;
    AbstractObject a = object_at(ObjKind::Params, FunctionId(), InstId());
    a.parent = o;
    uint32_t p = make(a);
    params_of_.emplace(o, p);
    return p;
  }

  Set& field(uint32_t o, ir::Symbol attr) { return fields_[(uint64_t(o) << 32) | attr]; }

  /// The tuple elements a value holds (`return model, opt`, prepare(...)).
  std::vector<Set>& elems(FunctionId f, ValueId v) { return elems_[(uint64_t(f.v) << 32) | v.v]; }
  const std::vector<Set>* find_elems(FunctionId f, ValueId v) const {
    auto it = elems_.find((uint64_t(f.v) << 32) | v.v);
    return it == elems_.end() ? nullptr : &it->second;
  }
  void put_elem(FunctionId f, ValueId v, size_t i, const Set& s) {
    if (!v.valid() || i >= 64) return;
    std::vector<Set>& e = elems(f, v);
    if (e.size() <= i) {
      e.resize(i + 1);
      changed_ = true;
    }
    changed_ |= add_all(e[i], s);
  }
  void put_elems(FunctionId f, ValueId v, const std::vector<Set>& es) {
    for (size_t i = 0; i < es.size(); ++i) put_elem(f, v, i, es[i]);
  }

  /// Names of a scope (module globals, an enclosing function's locals):
  /// the union over every value stored under the name.
  /// The values are visited in id order, as a scan of the scope's values
  /// would: a set full at kMaxSet keeps the same objects.
  Set name_objects(FunctionId scope, ir::Symbol name) {
    Set s;
    auto vs = values_named_.find((uint64_t(scope.v) << 32) | name);
    if (!indexed_[scope.v]) {
      index_names(scope);
      vs = values_named_.find((uint64_t(scope.v) << 32) | name);
    }
    if (vs != values_named_.end())
      for (uint32_t v : vs->second) add_all(s, o_.pts_[scope.v][v]);
    auto it = stored_globals_.find(name);
    if (scope.v == 0 && it != stored_globals_.end()) add_all(s, it->second);
    return s;
  }

  /// values_named_ for one scope: each local name's values, in id order
  /// (name_objects ran over every value of the scope per load: on a module
  /// of many functions reading its globals, a tenth of the whole run).
  void index_names(FunctionId scope) {
    indexed_[scope.v] = 1;
    const ir::Function& g = m_.fn(scope);
    for (size_t v = 0; v < g.values.size(); ++v) {
      ir::VarId var = g.values[v].var;
      if (var.valid() && g.vars[var.v].kind == ir::VarKind::Local)
        values_named_[(uint64_t(scope.v) << 32) | g.vars[var.v].name].push_back(static_cast<uint32_t>(v));
    }
  }

  void function(FunctionId fid) {
    const ir::Function& f = m_.fn(fid);
    // Attributes only called (`model.to`, `model.parameters`) are methods,
    // not parts of the model.
    std::vector<uint8_t>& callee = callee_[fid.v];
    if (callee.empty()) {
      callee.assign(f.values.size() + 1, 0);
      for (const ir::Inst& in : f.insts)
        if (in.op == Op::Call && in.nops > 0 && f.operands(in)[0].valid())
          callee[f.operands(in)[0].v] = 1;
    }
    for (uint32_t i = 0; i < f.insts.size(); ++i) inst(fid, f, InstId(i), f.insts[i]);
  }

  void inst(FunctionId fid, const ir::Function& f, InstId id, const ir::Inst& in) {
    auto ops = f.operands(in);
    ValueId r = in.result;
    switch (in.op) {
      case Op::Phi:
        for (ValueId v : ops)
          if (v.valid()) {
            put(fid, r, pts(fid, v));
            if (const auto* e = find_elems(fid, v)) put_elems(fid, r, std::vector<Set>(*e));
          }
        return;
      case Op::Param: {
        if (in.aux < params_[fid.v].size()) put(fid, r, params_[fid.v][in.aux]);
        ir::ClassId c = res_.self_class(fid);
        if (in.aux == 0 && c.valid()) put(fid, r, self_[c.v]);
        return;
      }
      case Op::LoadGlobal:
        if (fid.v != 0) put(fid, r, name_objects(FunctionId(0), in.aux));
        return;
      case Op::LoadFree:
        if (f.parent.valid()) put(fid, r, name_objects(f.parent, in.aux));
        return;
      case Op::StoreGlobal:
        if (!ops.empty() && ops[0].valid()) changed_ |= add_all(stored_globals_[in.aux], pts(fid, ops[0]));
        return;
      case Op::GetAttr: {
        if (ops.empty() || !ops[0].valid()) return;
        Set base = pts(fid, ops[0]);
        for (uint32_t o : base) {
          auto it = fields_.find((uint64_t(o) << 32) | in.aux);
          auto pt = parts_.find((uint64_t(o) << 32) | in.aux);
          if (it != fields_.end() && !it->second.empty()) {
            put(fid, r, it->second);
          } else if (pt != parts_.end()) {
            put1(fid, r, pt->second);
          } else if ((o_.objs_[o].kind == ObjKind::Module || o_.objs_[o].kind == ObjKind::Engine) &&
                     !callee_[fid.v][r.v] && round_ > 0) {
            // (Not in the first round: the fields `__init__` stores are
            // known only after it, and a field is no part.)
            put1(fid, r, part(o, in.aux));
          }
        }
        return;
      }
      case Op::SetAttr: {
        if (ops.size() < 2 || !ops[0].valid() || !ops[1].valid()) return;
        Set base = pts(fid, ops[0]);
        Set val = pts(fid, ops[1]);
        for (uint32_t o : base) changed_ |= add_all(field(o, in.aux), val);
        // A model stored in an attribute of another is a part of it (the
        // first owner it is stored into).
        for (uint32_t v : val)
          for (uint32_t o : base)
            if (v != o && o_.objs_[v].kind == ObjKind::Module && owner_.emplace(v, o).second)
              changed_ = true;
        return;
      }
      case Op::BuildTuple:
      case Op::BuildList:
      case Op::BuildSet:
        for (size_t k = 0; k < ops.size(); ++k)
          if (ops[k].valid()) {
            put(fid, r, pts(fid, ops[k]));
            if (in.op != Op::BuildSet) put_elem(fid, r, k, pts(fid, ops[k]));
          }
        return;
      case Op::BuildDict:
        for (size_t k = 1; k < ops.size(); k += 2)
          if (ops[k].valid()) put(fid, r, pts(fid, ops[k]));
        return;
      case Op::ListAppend:
      case Op::ListExtend:
      case Op::SetAdd:
      case Op::DictUpdate:
        if (ops.size() >= 2 && ops[0].valid() && ops[1].valid()) put(fid, ops[0], pts(fid, ops[1]));
        return;
      case Op::MapAdd:
      case Op::SetItem:
        if (ops.size() >= 3 && ops[0].valid() && ops[2].valid()) put(fid, ops[0], pts(fid, ops[2]));
        return;
      case Op::BinOp:  // list(a.parameters()) + list(b.parameters())
        for (ValueId v : ops)
          if (v.valid()) put(fid, r, pts(fid, v));
        return;
      case Op::ListToTuple:
      case Op::GetIter:
      case Op::Await:
        if (!ops.empty() && ops[0].valid()) {
          put(fid, r, pts(fid, ops[0]));
          if (const auto* e = find_elems(fid, ops[0])) put_elems(fid, r, std::vector<Set>(*e));
        }
        return;
      case Op::NextItem:
        // Items of a container of models or parameters are those; a
        // loader's items are batches.
        if (!ops.empty() && ops[0].valid()) put(fid, r, items(pts(fid, ops[0])));
        return;
      case Op::Unpack:
        if (!ops.empty() && ops[0].valid()) {
          put(fid, r, pts(fid, ops[0]));
          if (const auto* e = find_elems(fid, ops[0])) put_elems(fid, r, std::vector<Set>(*e));
        }
        return;
      case Op::Element: {
        if (ops.empty() || !ops[0].valid()) return;
        const auto* e = find_elems(fid, ops[0]);
        if (e && !(in.flags & ir::kStarElem)) {
          if (in.aux < e->size()) put(fid, r, (*e)[in.aux]);
        } else {
          put(fid, r, items(pts(fid, ops[0])));
        }
        return;
      }
      case Op::GetItem: {
        if (ops.size() < 2 || !ops[0].valid()) return;
        const ir::ConstValue& c = res_.constant(fid, ops[1]);
        const auto* e = find_elems(fid, ops[0]);
        if (e && c.kind == ir::ConstValue::Kind::Int && c.i >= 0 && size_t(c.i) < e->size())
          put(fid, r, (*e)[c.i]);
        else
          put(fid, r, items(pts(fid, ops[0])));
        return;
      }
      case Op::Return:
        if (!ops.empty() && ops[0].valid()) {
          changed_ |= add_all(ret_[fid.v], pts(fid, ops[0]));
          if (const auto* e = find_elems(fid, ops[0])) {
            auto& re = ret_elems_[fid.v];
            if (re.size() < e->size()) {
              re.resize(e->size());
              changed_ = true;
            }
            for (size_t k = 0; k < e->size(); ++k) changed_ |= add_all(re[k], (*e)[k]);
          }
        }
        return;
      case Op::Call:
        call(fid, f, id, in);
        return;
      default:
        return;
    }
  }

  Set items(const Set& s) const {
    Set out;
    for (uint32_t o : s) {
      ObjKind k = o_.objs_[o].kind;
      if (k == ObjKind::Loader || k == ObjKind::Sampler) continue;
      out.push_back(o);
    }
    return out;
  }

  void bind_param(FunctionId g, size_t p, const Set& s) {
    if (p < params_[g.v].size()) changed_ |= add_all(params_[g.v][p], s);
  }

  void call(FunctionId fid, const ir::Function& f, InstId id, const ir::Inst& in) {
    auto ops = f.operands(in);
    ValueId r = in.result;
    const ir::CallInfo& ci = f.call_info(in);
    auto pos = [&](uint32_t k) { return k < ci.npos ? ops[1 + k] : ir::kNoValue; };
    auto kw = [&](std::string_view name) {
      for (uint32_t k = 0; k < ci.nkw; ++k) {
        ir::Symbol s = f.kw_names[ci.kw_first + k];
        if (s != ir::kNoSymbol && m_.names.str(s) == name) return ops[1 + ci.npos + k];
      }
      return ir::kNoValue;
    };
    auto arg_pts = [&](ValueId v) { return v.valid() ? pts(fid, v) : Set(); };
    ir::CallTarget t = res_.call_target(fid, id);

    // The file's own functions and classes: arguments to parameters.
    if (t.fn.valid() && (t.kind == ir::CallTarget::Kind::Function ||
                         t.kind == ir::CallTarget::Kind::Constructor ||
                         t.kind == ir::CallTarget::Kind::InstanceCall)) {
      // (A constructor's `self` is bound where its object is made, below.)
      bind_call_args(f, in, t, m_.fn(t.fn), [&](size_t p, ValueId v) {
        if (v.valid()) bind_param(t.fn, p, arg_pts(v));
      });
      if (t.kind == ir::CallTarget::Kind::Function) {
        put(fid, r, ret_[t.fn.v]);
        put_elems(fid, r, std::vector<Set>(ret_elems_[t.fn.v]));
      }
    }
    if (t.kind == ir::CallTarget::Kind::Constructor && t.cls.valid()) {
      ObjKind k = res_.is_module_class(t.cls) ? ObjKind::Module : ObjKind::Instance;
      put1(fid, r, site_object(fid, id, k, t.cls));
      return;
    }

    std::string_view name;
    if ((t.kind == ir::CallTarget::Kind::External || t.kind == ir::CallTarget::Kind::ResultCall) &&
        t.name.valid())
      name = m_.names.str(t.name);
    std::string_view method;
    ValueId recv;
    if (!ops.empty() && ops[0].valid()) {
      const ir::Inst& cd = f.def(ops[0]);
      if (cd.op == Op::GetAttr) {
        method = m_.names.str(cd.aux);
        recv = f.operands(cd)[0];
      }
    }

    ObjKind k;
    if (t.kind == ir::CallTarget::Kind::External && constructed_kind(name, k)) {
      uint32_t o = site_object(fid, id, k);
      put1(fid, r, o);
      // nn.Sequential(a, b), nn.ModuleList([a, b]): the layers are parts of
      // it. An averaged copy (`AveragedModel(model)`) holds a deep copy of
      // its argument, not the model itself.
      if (k == ObjKind::Module && !averaged_copy(name))
        for (uint32_t k2 = 0; k2 < ci.npos; ++k2)
          for (uint32_t x : arg_pts(pos(k2)))
            if (x != o && o_.objs_[x].kind == ObjKind::Module && owner_.emplace(x, o).second)
              changed_ = true;
      if (k == ObjKind::Optimizer && !optimizer_args_.count(o)) {
        ValueId p = pos(0);
        if (!p.valid()) p = kw("params");
        if (!p.valid()) p = kw("model_or_params");
        optimizer_args_.emplace(o, std::make_pair(fid, p));
      }
      return;
    }
    if (name == "deepspeed.initialize") {
      deepspeed(fid, id, r, kw("model").valid() ? kw("model") : pos(1), kw("optimizer"),
                kw("model_parameters"), kw("training_data"), kw("lr_scheduler"));
      return;
    }
    if (wraps_first_arg(name)) {
      ValueId a = pos(0);
      if (!a.valid()) a = kw("module");
      if (!a.valid()) a = kw("model");
      if (!a.valid()) a = kw("iterable");
      if (a.valid()) {
        put(fid, r, pts(fid, a));
        if (const auto* e = find_elems(fid, a)) put_elems(fid, r, std::vector<Set>(*e));
      }
      return;
    }
    if (joins_args(name)) {
      for (uint32_t k2 = 0; k2 < ci.npos; ++k2) put(fid, r, arg_pts(pos(k2)));
      return;
    }
    if (t.kind == ir::CallTarget::Kind::Unknown || t.kind == ir::CallTarget::Kind::External) {
      // A class the file cannot see (`from models import *`, another
      // module's class): a model built here, if the script treats it as one.
      std::string_view callee = name;
      if (callee.empty() && !ops.empty() && ops[0].valid()) {
        const ir::Inst& cd = f.def(ops[0]);
        if (cd.op == Op::LoadGlobal || cd.op == Op::LoadFree || cd.op == Op::GetAttr)
          callee = m_.names.str(cd.aux);
      }
      // Another project module's nn.Module class (summaries.h
      // foreign_forward): a model, whatever its name (`GPT(config)`).
      if (opaque_class(callee) || (summaries_ && summaries_->foreign_forward(fid, id))) {
        put1(fid, r, site_object(fid, id, ObjKind::Module));
        return;
      }
    }
    if (!recv.valid()) return;
    if (method == "parameters" || method == "named_parameters") {
      demand_module(fid, f, recv, method);
      for (uint32_t o : Set(pts(fid, recv)))
        if (o_.objs_[o].kind == ObjKind::Module || o_.objs_[o].kind == ObjKind::Engine)
          put1(fid, r, params_of(o));
      return;
    }
    if (returns_receiver(method)) {
      demand_module(fid, f, recv, method);
      put(fid, r, pts(fid, recv));
      return;
    }
    if (method == "prepare" && ci.npos >= 1 && is_accelerator(fid, recv)) {
      if (ci.npos == 1) {
        put(fid, r, arg_pts(pos(0)));
      } else {
        for (uint32_t k2 = 0; k2 < ci.npos; ++k2) put_elem(fid, r, k2, arg_pts(pos(k2)));
      }
      return;
    }
    if ((method == "append" || method == "extend" || method == "add" || method == "insert") &&
        ci.npos >= 1) {
      put(fid, recv, arg_pts(pos(ci.npos - 1)));
      return;
    }
  }

  /// A call's result the script uses as a model (`.eval()`, `.train()`,
  /// `.parameters()`) with nothing known of it: a model built there by a
  /// factory the analysis cannot follow (`config.instantiate(cfg)`,
  /// `build_model(args)` of another module).
  void demand_module(FunctionId fid, const ir::Function& f, ValueId recv, std::string_view method) {
    if (method != "eval" && method != "train" && method != "parameters" &&
        method != "named_parameters" && method != "requires_grad_")
      return;
    if (!pts(fid, recv).empty()) return;
    const ir::Inst& d = f.def(recv);
    if (d.op == Op::Call) {
      put1(fid, recv, site_object(fid, f.def_id(recv), ObjKind::Module));
    } else if (d.op == Op::GetAttr && f.operands(d)[0].valid()) {
      // `self._model.parameters()`, the field holding what no visible call
      // built: a model that is a part of its owner.
      for (uint32_t o : Set(pts(fid, f.operands(d)[0]))) {
        if (o_.objs_[o].kind != ObjKind::Instance) continue;
        uint32_t p = part(o, d.aux);
        o_.objs_[p].kind = ObjKind::Module;
        put1(fid, recv, p);
      }
    }
  }

  bool is_accelerator(FunctionId fid, ValueId recv) const {
    const ir::Referent& ref = res_.ref(fid, recv);
    if (ref.kind == ir::Referent::Kind::Result &&
        m_.names.str(ref.path()).starts_with("accelerate."))
      return true;
    const ir::Function& f = m_.fn(fid);
    const ir::Inst& d = f.def(recv);
    std::string_view n;
    if (d.op == Op::GetAttr || d.op == Op::LoadGlobal || d.op == Op::LoadFree) n = m_.names.str(d.aux);
    else if (f.values[recv.v].var.valid()) n = m_.names.str(f.vars[f.values[recv.v].var.v].name);
    return n.find("accelerator") != n.npos;
  }

  /// deepspeed.initialize(...) -> (engine, optimizer, loader, scheduler).
  /// The engine, its optimizer and (given training_data) its loader are
  /// made on the first visit of the call.
  void deepspeed(FunctionId fid, InstId id, ValueId r, ValueId model, ValueId opt,
                 ValueId model_params, ValueId data, ValueId sched) {
    auto [it, first] = ds_.try_emplace((uint64_t(fid.v) << 32) | id.v);
    DeepSpeedSite& ds = it->second;
    if (first) {
      ds.engine = make(object_at(ObjKind::Engine, fid, id));
      ds.optimizer = make(object_at(ObjKind::Optimizer, fid, id));
      optimizer_args_.emplace(ds.optimizer, std::make_pair(fid, model_params.valid() ? model_params : model));
      if (data.valid()) ds.loader = make(object_at(ObjKind::Loader, fid, id));
    }
    Set e{ds.engine};
    if (model.valid()) add_all(e, pts(fid, model));
    put(fid, r, e);
    put_elem(fid, r, 0, e);
    Set o{ds.optimizer};
    if (opt.valid()) add_all(o, pts(fid, opt));
    put_elem(fid, r, 1, o);
    put_elem(fid, r, 2, ds.loader != UINT32_MAX ? Set{ds.loader} : Set{});
    put_elem(fid, r, 3, sched.valid() ? pts(fid, sched) : Set{});
  }

  /// What each optimizer steps: the models of the parameter objects its
  /// `params` argument holds (or models passed directly).
  void optimizers() {
    for (auto& [o, arg] : optimizer_args_) {
      AbstractObject& opt = o_.objs_[o];
      const auto& [fid, v] = arg;
      if (!v.valid()) continue;
      for (uint32_t x : pts(fid, v)) {
        const AbstractObject& a = o_.objs_[x];
        if (a.kind == ObjKind::Params) add(opt.steps, a.parent);
        else if (a.kind == ObjKind::Module || a.kind == ObjKind::Engine) add(opt.steps, x);
      }
      opt.steps_known = !opt.steps.empty();
    }
    for (const AbstractObject& a : o_.objs_)
      if (a.kind == ObjKind::Optimizer) {
        o_.has_optimizer_ = true;
        if (!a.steps_known) o_.optimizers_known_ = false;
      }
    // Parameters handed to a call that is no known optimizer, clipping or
    // builtin: an optimizer built by a factory (`config.instantiate(cfg,
    // model.parameters())`).
    for (size_t fi = 0; fi < m_.functions.size(); ++fi) {
      FunctionId fid(fi);
      const ir::Function& f = m_.fn(fid);
      std::vector<uint8_t> used(f.values.size(), 0);
      for (const ir::Inst& in : f.insts)
        for (ValueId v : f.operands(in))
          if (v.valid()) used[v.v] = 1;
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& in = f.insts[i];
        // An optimizer is kept: a call whose result is dropped
        // (`validate_dtypes(model.named_parameters())`) builds none.
        if (in.op != Op::Call || in.nops < 2 || !in.result.valid() || !used[in.result.v]) continue;
        ir::CallTarget t = res_.call_target(fid, InstId(i));
        std::string_view n = t.name.valid() && (t.kind == ir::CallTarget::Kind::External ||
                                                t.kind == ir::CallTarget::Kind::ResultCall)
                                 ? std::string_view(m_.names.str(t.name))
                                 : std::string_view();
        ObjKind k;
        if (n.starts_with("builtins.") || n.starts_with("torch.nn.utils.") || n.starts_with("itertools.") ||
            (constructed_kind(n, k) && k == ObjKind::Optimizer))
          continue;
        if (!n.empty() && n.find("clip_grad") != n.npos) continue;
        auto ops = f.operands(in);
        // A method of a parameter tensor (`p.lerp(p_ema, beta)` in an EMA
        // update over `zip(ema.parameters(), model.parameters())`) is
        // tensor arithmetic, never an optimizer factory.
        if (ops[0].valid() && f.def(ops[0]).op == Op::GetAttr) {
          ValueId recv = f.operands(f.def(ops[0]))[0];
          bool on_params = false;
          if (recv.valid())
            for (uint32_t x : pts(fid, recv)) on_params |= o_.objs_[x].kind == ObjKind::Params;
          if (on_params) continue;
        }
        for (size_t a = 1; a < ops.size(); ++a) {
          if (!ops[a].valid()) continue;
          for (uint32_t x : pts(fid, ops[a]))
            if (o_.objs_[x].kind == ObjKind::Params) {
              o_.objs_[o_.objs_[x].parent].params_given = true;
              o_.any_params_given_ = true;
            }
        }
      }
    }
    // A field's owner becomes its parent, never so that an object is its
    // own ancestor (a module that stores itself, `self.data = self`, as
    // points-to may say of a value it cannot tell apart): every walk up
    // the parents ends.
    for (auto& [part, owner] : owner_) {
      if (o_.objs_[part].parent != UINT32_MAX) continue;
      bool cycle = false;
      for (uint32_t x = owner; x != UINT32_MAX && !cycle; x = o_.objs_[x].parent) cycle = x == part;
      if (!cycle) o_.objs_[part].parent = owner;
    }
  }

  /// `m.requires_grad_(False)`, and `p.requires_grad = False` for the
  /// items `p` of a loop over m.parameters().
  void freezing() {
    for (size_t fi = 0; fi < m_.functions.size(); ++fi) {
      FunctionId fid(fi);
      const ir::Function& f = m_.fn(fid);
      for (uint32_t ii = 0; ii < f.insts.size(); ++ii) {
        const ir::Inst& in = f.insts[ii];
        if (in.op == Op::Call && in.result.valid() && frozen_embedding(fid, InstId(ii))) {
          for (uint32_t o : pts(fid, in.result)) o_.objs_[o].frozen = true;
          continue;
        }
        ValueId target, flag;
        if (in.op == Op::SetAttr && in.aux == s_requires_grad_) {
          target = f.operands(in)[0];
          flag = f.operands(in)[1];
        } else if (in.op == Op::Call && in.nops > 0) {
          const ir::Inst& cd = f.def(f.operands(in)[0]);
          if (cd.op != Op::GetAttr || m_.names.str(cd.aux) != "requires_grad_") continue;
          target = f.operands(cd)[0];
          const ir::CallInfo& ci = f.call_info(in);
          if (ci.npos >= 1) flag = f.operands(in)[1];
        }
        if (!target.valid() || !flag.valid()) continue;
        const ir::ConstValue& c = res_.constant(fid, flag);
        if (c.kind != ir::ConstValue::Kind::Bool || c.i != 0) continue;
        for (uint32_t o : pts(fid, target)) {
          uint32_t m = o_.objs_[o].kind == ObjKind::Params ? o_.objs_[o].parent : o;
          o_.objs_[m].frozen = true;
        }
      }
    }
  }

  /// `nn.Embedding.from_pretrained(weights)` (and EmbeddingBag's): frozen
  /// unless `freeze=False` (PyTorch 2.x default freeze=True); a freeze
  /// flag that is not a constant, or may come through `*args`/`**kwargs`,
  /// is not taken as frozen.
  bool frozen_embedding(FunctionId fid, InstId id) const {
    ir::CallTarget t = res_.call_target(fid, id);
    if (t.kind != ir::CallTarget::Kind::External || !t.name.valid()) return false;
    std::string_view n = m_.names.str(t.name);
    if (n != "torch.nn.Embedding.from_pretrained" && n != "torch.nn.EmbeddingBag.from_pretrained" &&
        n != "torch.nn.modules.sparse.Embedding.from_pretrained")
      return false;
    BoolArg freeze = bool_arg(m_, res_, fid, m_.fn(fid).inst(id), 1, "freeze");
    return freeze == BoolArg::Absent || freeze == BoolArg::True;
  }

  const ir::Module& m_;
  const ir::Resolution& res_;
  const Summaries* summaries_;  // null: the file alone (no other module's classes known)
  Objects& o_;
  bool changed_ = false;
  int round_ = 0;
  ir::Symbol s_requires_grad_ = ir::kNoSymbol;
  std::vector<std::vector<uint8_t>> callee_;  // [fn][value]: called
  std::vector<std::vector<Set>> params_;  // [fn][param]
  std::vector<Set> ret_;
  std::vector<std::vector<Set>> ret_elems_;
  std::vector<Set> self_;  // [class]
  std::unordered_map<uint64_t, uint32_t> sites_, parts_;
  std::unordered_map<uint32_t, uint32_t> params_of_, owner_;
  struct DeepSpeedSite {
    uint32_t engine = UINT32_MAX, optimizer = UINT32_MAX, loader = UINT32_MAX;
  };
  std::unordered_map<uint64_t, DeepSpeedSite> ds_;  // by call site
  std::unordered_map<uint64_t, Set> fields_;
  std::unordered_map<uint64_t, std::vector<Set>> elems_;
  std::unordered_map<ir::Symbol, Set> stored_globals_;
  std::vector<uint8_t> indexed_;  // [fn]: values_named_ holds its names
  std::unordered_map<uint64_t, std::vector<uint32_t>> values_named_;  // (fn, name) -> values
  std::unordered_map<uint32_t, std::pair<FunctionId, ValueId>> optimizer_args_;
};

std::span<const uint32_t> Objects::of(FunctionId f, ValueId v) const {
  if (!v.valid() || f.v >= pts_.size() || v.v >= pts_[f.v].size()) return {};
  return pts_[f.v][v.v];
}

const AbstractObject* Objects::single(FunctionId f, ValueId v) const {
  auto s = of(f, v);
  return s.size() == 1 ? &objs_[s[0]] : nullptr;
}

bool Objects::may_be(FunctionId f, ValueId v, ObjKind k) const {
  for (uint32_t o : of(f, v))
    if (objs_[o].kind == k) return true;
  return false;
}

bool Objects::within(uint32_t a, uint32_t b) const {
  for (int depth = 0; a != UINT32_MAX && depth < 64; ++depth) {
    if (a == b) return true;
    // A field stored through `self` belongs to the class's own object,
    // which stands for every instance of the class.
    const AbstractObject& x = objs_[a];
    if (!x.fn.valid() && x.parent == UINT32_MAX && x.cls.valid() && objs_[b].cls == x.cls) return true;
    a = x.parent;
  }
  return false;
}

bool Objects::frozen(uint32_t o) const {
  for (uint32_t x = o; x != UINT32_MAX; x = objs_[x].parent)
    if (objs_[x].frozen) return true;
  return false;
}

bool Objects::trained(uint32_t module) const {
  if (frozen(module)) return false;
  for (const AbstractObject& a : objs_) {
    if (a.kind != ObjKind::Optimizer) continue;
    for (uint32_t s : a.steps)
      if (within(module, s) || within(s, module)) return true;
  }
  return false;
}

bool Objects::may_be_trained(uint32_t module) const {
  if (trained(module)) return true;
  if (frozen(module)) return false;
  for (uint32_t o = 0; o < objs_.size(); ++o)
    if (objs_[o].params_given && (within(module, o) || within(o, module))) return true;
  return false;
}

Objects compute_objects(const ir::Module& m, const ir::Resolution& res, const Summaries* summaries) {
  Objects out;
  ObjectSolver(m, res, summaries, out).run();
  return out;
}

void dump_objects(const ir::Module& m, const Objects& o, std::string& out) {
  auto where = [&](const AbstractObject& a) {
    if (!a.fn.valid()) return std::string();
    const ir::Function& f = m.fn(a.fn);
    LineCol lc = m.pos(f.inst(a.site).span);
    return fmt::format(" {}:{}", lc.line, lc.col);
  };
  for (size_t i = 0; i < o.all().size(); ++i) {
    const AbstractObject& a = o.all()[i];
    out += fmt::format("  o{} {}{}", i, obj_kind_name(a.kind), where(a));
    if (a.cls.valid()) out += fmt::format(" class {}", m.names.str(m.cls(a.cls).qualname));
    if (a.parent != UINT32_MAX) {
      out += fmt::format(" of o{}", a.parent);
      if (a.attr != ir::kNoSymbol) out += fmt::format(".{}", m.names.str(a.attr));
    }
    if (a.kind == ObjKind::Optimizer) {
      out += a.steps_known ? " steps" : " steps unknown";
      for (uint32_t s : a.steps) out += fmt::format(" o{}", s);
    }
    if (a.frozen) out += " frozen";
    if (a.kind == ObjKind::Module && o.trained(uint32_t(i))) out += " trained";
    else if (a.kind == ObjKind::Module && o.may_be_trained(uint32_t(i))) out += " maybe-trained";
    out += '\n';
  }
  for (size_t fi = 0; fi < m.functions.size(); ++fi) {
    const ir::Function& f = m.functions[fi];
    bool header = false;
    for (size_t v = 0; v < f.values.size(); ++v) {
      auto s = o.of(FunctionId(fi), ValueId(v));
      if (s.empty()) continue;
      if (!header) {
        out += fmt::format("function {}\n", m.names.str(f.qualname));
        header = true;
      }
      LineCol lc = m.pos(f.def(ValueId(v)).span);
      out += fmt::format("  %{} ->", v);
      for (uint32_t x : s) out += fmt::format(" o{}", x);
      out += fmt::format("  {}:{}", lc.line, lc.col);
      ir::VarId var = f.values[v].var;
      if (var.valid() && f.vars[var.v].name != ir::kNoSymbol)
        out += fmt::format("  ; {}", m.names.str(f.vars[var.v].name));
      out += '\n';
    }
  }
}

}  // namespace tpf::dataflow
