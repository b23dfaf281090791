// Python numbers: a value is a Python int/float/bool when every path makes
// one (literals, `.item()`, `len`, sizes, arithmetic of numbers, returns of
// the file's functions); see python_numbers.h.
// requires: compute_resolution, classify_all. produces: answers on demand.
#include "dataflow/python_numbers.h"

#include <algorithm>

#include "dataflow/objects.h"

namespace tpf::dataflow {

namespace {

/// Why this limit: a number is a few operations and calls away from its
/// literal or `.item()`; past it we say No (a state stays as it was).
constexpr int kMaxDepth = 12;

Number meet(Number a, Number b) { return std::min(a, b); }

}  // namespace

PythonNumbers::PythonNumbers(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                             const Objects* objects)
    : m_(m), res_(res), kinds_(kinds), objects_(objects), forward_(m.names.find("forward")) {
  // `round`, `abs`, `sum`, `max` are left out: on a tensor they return one.
  for (std::string_view n : {"builtins.len", "builtins.int", "builtins.float", "builtins.bool"}) {
    ir::PathId p = m.names.find_path(n);
    if (p.valid()) number_builtins_.push_back(p);
  }
  math_ = m.names.find_path("math");
  memo_.resize(m.functions.size());
}

Number PythonNumbers::value(ir::FunctionId f, ir::ValueId v, int depth) {
  if (!v.valid() || depth > kMaxDepth) return Number::No;
  std::vector<uint8_t>& memo = memo_[f.v];
  if (memo.empty()) memo.assign(m_.fn(f).values.size(), 0);
  if (memo[v.v] == 1) return Number::No;  // a cycle (a loop's phi): no evidence from it
  if (memo[v.v] >= 2) return static_cast<Number>(memo[v.v] - 2);
  memo[v.v] = 1;
  const ir::Function& fn = m_.fn(f);
  ir::InstId id = fn.values[v.v].def;
  const ir::Inst& in = fn.inst(id);
  auto ops = fn.operands(in);
  Number r = Number::No;
  switch (in.op) {
    case ir::Op::Const:
      r = res_.constant(f, v).is_number() ? Number::Strong : Number::No;
      break;
    case ir::Op::Param:
      r = param(f, in);
      break;
    case ir::Op::Compare:
      break;  // a tensor compared is a tensor (without a graph, but no number)
    case ir::Op::BinOp:
    case ir::Op::UnaryOp:
    case ir::Op::Phi: {
      // Python arithmetic of numbers gives a number; one tensor operand
      // makes a tensor. A phi is a number when every incoming value is.
      r = Number::Strong;
      bool any = false;
      for (ir::ValueId o : ops) {
        if (!o.valid()) continue;
        any = true;
        r = meet(r, value(f, o, depth + 1));
        if (r == Number::No) break;
      }
      if (!any) r = Number::No;
      break;
    }
    case ir::Op::GetItem: {
      // `x.shape[0]`, `x.size()[1]`: a dimension.
      const ir::Inst& d = fn.def(ops[0]);
      if (d.op == ir::Op::GetAttr && m_.names.str(d.aux) == "shape") r = Number::Strong;
      if (d.op == ir::Op::Call && kinds_[f.v][fn.values[ops[0].v].def.v] == TorchCall::SizeMethod)
        r = Number::Strong;
      break;
    }
    case ir::Op::Element: {
      if (in.flags & ir::kStarElem) break;
      const ir::Inst& u = fn.def(ops[0]);
      if (u.op != ir::Op::Unpack) break;
      ir::ValueId src = fn.operands(u)[0];
      const ir::Inst& s = fn.def(src);
      if (s.op == ir::Op::GetAttr && m_.names.str(s.aux) == "shape") r = Number::Strong;
      else if (s.op == ir::Op::Call)
        r = call(f, fn, s, fn.values[src.v].def, static_cast<int>(in.aux & 0xFFFF), depth);
      break;
    }
    case ir::Op::Call:
      r = call(f, fn, in, id, -1, depth);
      break;
    default:
      break;
  }
  memo[v.v] = static_cast<uint8_t>(static_cast<uint8_t>(r) + 2);
  return r;
}

Number PythonNumbers::call(ir::FunctionId f, const ir::Function& fn, const ir::Inst& in,
                           ir::InstId id, int element, int depth) {
  TorchCall k = kinds_[f.v][id.v];
  if (element >= 0 && k == TorchCall::SizeMethod)  // `seq_len, bsz = x.size()`: the dimensions
    return fn.call_info(in).npos == 0 ? Number::Strong : Number::No;
  if (element < 0) switch (k) {
    case TorchCall::Item:
    case TorchCall::DimMethod:
    case TorchCall::NumelMethod:
      return Number::Strong;
    case TorchCall::SizeMethod:
      return fn.call_info(in).npos > 0 ? Number::Strong : Number::No;  // x.size(0)
    default:
      break;
  }
  ir::CallTarget t = res_.call_target(f, id);
  switch (t.kind) {
    case ir::CallTarget::Kind::External:
      if (std::find(number_builtins_.begin(), number_builtins_.end(), t.name) != number_builtins_.end())
        return Number::Strong;
      if (math_.valid() && t.name.valid() && m_.names.under(t.name, math_)) return Number::Strong;
      return Number::No;
    case ir::CallTarget::Kind::Function:
    case ir::CallTarget::Kind::InstanceCall:
      return t.fn.valid() ? returns(t.fn, element, depth + 1) : Number::No;
    default:
      return model_call(f, fn.operands(in)[0], element, depth + 1);
  }
}

Number PythonNumbers::model_call(ir::FunctionId f, ir::ValueId callee, int element, int depth) {
  if (!objects_ || !callee.valid() || forward_ == ir::kNoSymbol || depth > kMaxDepth) return Number::No;
  std::span<const uint32_t> objs = objects_->of(f, callee);
  if (objs.empty()) return Number::No;
  Number r = Number::Strong;
  for (uint32_t o : objs) {
    const AbstractObject& ob = objects_->obj(o);
    if (ob.kind != ObjKind::Module) return Number::No;
    if (ob.cls.valid()) {
      ir::FunctionId fwd = res_.find_method(ob.cls, forward_);
      if (!fwd.valid()) return Number::No;
      r = meet(r, returns(fwd, element, depth + 1));
    } else if (ob.site.valid()) {
      // `nn.DataParallel(m)`, `DistributedDataParallel(m)`: calling the
      // wrapper runs m's forward (PyTorch 2.x DataParallel.forward).
      ir::CallTarget t = res_.call_target(ob.fn, ob.site);
      if (t.kind != ir::CallTarget::Kind::External || !t.name.valid()) return Number::No;
      std::string_view name = m_.names.str(m_.names.last(t.name));
      if (!name.ends_with("DataParallel")) return Number::No;
      const ir::Function& g = m_.fn(ob.fn);
      const ir::Inst& site = g.inst(ob.site);
      if (g.call_info(site).npos == 0) return Number::No;
      r = meet(r, model_call(ob.fn, g.operands(site)[1], element, depth + 1));
    } else {
      return Number::No;
    }
    if (r == Number::No) return r;
  }
  return r;
}

Number PythonNumbers::returns(ir::FunctionId f, int element, int depth) {
  if (depth > kMaxDepth) return Number::No;
  const ir::Function& g = m_.fn(f);
  if (g.is_generator || g.is_async) return Number::No;
  auto key = std::make_pair(f.v, element);
  auto it = returns_memo_.find(key);
  if (it != returns_memo_.end()) return it->second >= 2 ? static_cast<Number>(it->second - 2) : Number::No;
  returns_memo_[key] = 1;  // recursion: No
  Number r = Number::Strong;
  bool any = false;
  for (const ir::Inst& ret : g.insts) {
    if (ret.op != ir::Op::Return) continue;
    auto ro = g.operands(ret);
    if (ro.empty()) continue;
    ir::ValueId v = ro[0];
    if (!v.valid()) continue;
    any = true;
    if (element >= 0) {
      const ir::Inst& d = g.def(v);
      auto ops = g.operands(d);
      if (d.op != ir::Op::BuildTuple || element >= static_cast<int>(ops.size())) {
        r = Number::No;
        break;
      }
      v = ops[static_cast<size_t>(element)];
    }
    r = meet(r, value(f, v, depth + 1));
    if (r == Number::No) break;
  }
  if (!any) r = Number::No;
  returns_memo_[key] = static_cast<uint8_t>(static_cast<uint8_t>(r) + 2);
  return r;
}

Number PythonNumbers::param(ir::FunctionId f, const ir::Inst& p) const {
  const ir::Function& fn = m_.fn(f);
  if (p.aux >= fn.params.size()) return Number::No;
  // The annotation is not lowered: read it from the parameter's source,
  // `steps: int` (the arg node's span covers name and annotation).
  if (m_.src) {
    std::string_view text = m_.src->text.substr(p.span.begin, p.span.end - p.span.begin);
    size_t colon = text.find(':');
    if (colon != std::string_view::npos) {
      std::string_view ann = text.substr(colon + 1);
      while (!ann.empty() && (ann.front() == ' ' || ann.front() == '\t')) ann.remove_prefix(1);
      while (!ann.empty() && (ann.back() == ' ' || ann.back() == '\t')) ann.remove_suffix(1);
      if (ann == "int" || ann == "float" || ann == "bool") return Number::Strong;
      return Number::No;  // annotated otherwise (a Tensor, a Union...)
    }
  }
  // A default that is a number: the parameter is meant as one.
  const ir::Param& prm = fn.params[p.aux];
  if (!prm.has_default || !fn.parent.valid()) return Number::No;
  size_t index = 0;
  for (uint32_t i = 0; i < p.aux; ++i)
    if (fn.params[i].has_default) ++index;
  if (index >= fn.defaults.size()) return Number::No;
  return res_.constant(fn.parent, fn.defaults[index]).is_number() ? Number::Weak : Number::No;
}

}  // namespace tpf::dataflow
