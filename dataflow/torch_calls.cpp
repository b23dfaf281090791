// Binding torch_calls.def to a file and matching calls against it. Rows are
// indexed by match kind; a call takes the smallest matching row index, so
// the table's order decides, exactly as if it were scanned top to bottom.
// requires: ir::compute_resolution. produces: TorchCall per call.
#include "dataflow/torch_calls.h"

#include <algorithm>

namespace tpf::dataflow {

namespace {

constexpr TorchCallInfo kRows[] = {
    {"None", CallMatch::Name, "", GradRule::Unknown, 0, ModeAction::Keep},
#define TPF_TORCH_CALL(name, match, pattern, grad, effects, mode) \
  {#name, CallMatch::match, pattern, GradRule::grad, effects, ModeAction::mode},
#include "dataflow/torch_calls.def"
#undef TPF_TORCH_CALL
};
static_assert(sizeof(kRows) / sizeof(kRows[0]) < 256, "TorchCall must fit in a byte");

constexpr std::pair<uint32_t, std::string_view> kEffectNames[] = {
    {kBackward, "backward"}, {kZeroGrad, "zero_grad"}, {kOptimizerStep, "optimizer_step"},
    {kSchedulerStep, "scheduler_step"}, {kSync, "sync"}, {kToDevice, "to_device"},
    {kToHost, "to_host"}, {kEval, "eval"}, {kTrain, "train"}, {kForward, "forward"},
    {kLoss, "loss"}, {kPrint, "print"}, {kSeed, "seed"}, {kFillsGrad, "fills_grad"},
};

/// The rows' patterns split into parts once per process: every file binds
/// the table (TorchCalls' constructor), and looking each distinct part
/// ("torch", "nn", ...) up once per file instead of once per row and
/// occurrence halves that fixed cost.
struct SplitRows {
  std::vector<std::string_view> parts;  // distinct parts, in first-seen order
  // Per row: part indices of the dotted pattern (Name, Prefix, ResultOf),
  // or of `method@receiver.path` (Method: parts[0] is the method name).
  std::vector<std::vector<uint16_t>> row_parts;
  std::vector<uint8_t> has_receiver;  // Method rows with an `@receiver`

  SplitRows() {
    size_t n = sizeof(kRows) / sizeof(kRows[0]);
    row_parts.resize(n);
    has_receiver.assign(n, 0);
    auto part_id = [&](std::string_view s) {
      for (size_t i = 0; i < parts.size(); ++i)
        if (parts[i] == s) return static_cast<uint16_t>(i);
      parts.push_back(s);
      return static_cast<uint16_t>(parts.size() - 1);
    };
    for (size_t row = 1; row < n; ++row) {
      std::string_view pat = kRows[row].pattern;
      if (kRows[row].match == CallMatch::Method) {
        size_t at = pat.find('@');
        row_parts[row].push_back(part_id(pat.substr(0, at)));
        if (at == std::string_view::npos) continue;
        has_receiver[row] = 1;
        pat = pat.substr(at + 1);
      }
      // Table patterns are plain dotted names (no relative-import dots).
      for (size_t i = 0; i < pat.size();) {
        size_t j = pat.find('.', i);
        if (j == std::string_view::npos) j = pat.size();
        row_parts[row].push_back(part_id(pat.substr(i, j - i)));
        i = j + 1;
      }
    }
  }
};

const SplitRows& split_rows() {
  static const SplitRows kSplit;
  return kSplit;
}

}  // namespace

const TorchCallInfo& info(TorchCall c) { return kRows[static_cast<size_t>(c)]; }

std::string effect_names(uint32_t bits) {
  std::string s;
  for (auto [bit, name] : kEffectNames)
    if (bits & bit) {
      if (!s.empty()) s += '|';
      s += name;
    }
  return s.empty() ? std::string("-") : s;
}

TorchCalls::TorchCalls(const ir::Module& m) {
  const ir::Names& names = m.names;
  const SplitRows& split = split_rows();
  std::vector<ir::Symbol> sym(split.parts.size());
  for (size_t i = 0; i < split.parts.size(); ++i) sym[i] = names.find(split.parts[i]);
  // The interned path of parts [first, end) of a row, or kNoPath when the
  // file never names it (the row cannot match here).
  auto path_of = [&](const std::vector<uint16_t>& ps, size_t first) {
    ir::PathId p = ir::kNoPath;
    for (size_t i = first; i < ps.size(); ++i) {
      ir::Symbol s = sym[ps[i]];
      if (s == ir::kNoSymbol) return ir::kNoPath;
      p = names.find_child(p, s);
      if (!p.valid()) return ir::kNoPath;
    }
    return p;
  };
  for (uint8_t row = 1; row < sizeof(kRows) / sizeof(kRows[0]); ++row) {
    const TorchCallInfo& r = kRows[row];
    const std::vector<uint16_t>& ps = split.row_parts[row];
    switch (r.match) {
      case CallMatch::Name: {
        ir::PathId p = path_of(ps, 0);
        if (p.valid()) by_name_.try_emplace(p.v, row);
        break;
      }
      case CallMatch::Prefix: {
        ir::PathId p = path_of(ps, 0);
        if (p.valid()) prefixes_.emplace_back(p, row);
        break;
      }
      case CallMatch::Method: {
        ir::Symbol method = sym[ps[0]];
        if (method == ir::kNoSymbol) break;
        ir::PathId recv;
        if (split.has_receiver[row]) {
          recv = path_of(ps, 1);
          if (!recv.valid()) break;  // the file never names that receiver type
        }
        by_method_[method].push_back(MethodRow{row, recv});
        break;
      }
      case CallMatch::ResultOf: {
        ir::PathId p = path_of(ps, 0);
        if (p.valid()) result_of_.emplace_back(p, row);
        break;
      }
      case CallMatch::ResultSuffix:
        result_suffix_.push_back(row);
        break;
      case CallMatch::LocalModule:
        if (!local_module_) local_module_ = row;
        break;
    }
  }
}

TorchCall TorchCalls::classify_callee(const ir::Module& m, const ir::Resolution& res,
                                      const ir::Referent& callee) const {
  uint8_t best = 0;
  auto take = [&](uint8_t row) {
    if (row && (!best || row < best)) best = row;
  };
  if (callee.kind == ir::Referent::Kind::Result) {
    ir::PathId p = callee.path();
    for (auto [prefix, row] : result_of_)
      if (m.names.under(p, prefix)) {
        take(row);
        break;
      }
    std::string_view last = m.names.str(m.names.last(p));
    for (uint8_t row : result_suffix_) {
      std::string_view suf = kRows[row].pattern;
      if (last.size() >= suf.size() && last.substr(last.size() - suf.size()) == suf) {
        take(row);
        break;
      }
    }
  } else if (callee.kind == ir::Referent::Kind::Instance) {
    if (res.is_module_class(callee.cls())) take(local_module_);
  }
  return static_cast<TorchCall>(best);
}

TorchCall merge_callee_rows(TorchCall a, TorchCall b) {
  if (a == b) return a;
  if (a != TorchCall::None && b != TorchCall::None && info(a).grad == GradRule::Model &&
      info(b).grad == GradRule::Model)
    return a;
  return TorchCall::None;
}

TorchCall TorchCalls::classify_value(const ir::Module& m, const ir::Resolution& res,
                                     ir::FunctionId fid, ir::ValueId v, int depth) const {
  TorchCall c = classify_callee(m, res, res.ref(fid, v));
  if (c != TorchCall::None) return c;
  const ir::Function& f = m.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op != ir::Op::Phi || depth >= 4) return TorchCall::None;
  bool first = true;
  TorchCall r = TorchCall::None;
  for (ir::ValueId o : f.operands(d)) {
    if (o == v || f.def(o).op == ir::Op::Undef) continue;
    TorchCall x = classify_value(m, res, fid, o, depth + 1);
    r = first ? x : merge_callee_rows(r, x);
    first = false;
    if (r == TorchCall::None) break;
  }
  return r;
}

TorchCall TorchCalls::classify_name(const ir::Module& m, ir::PathId name) const {
  uint8_t best = 0;
  auto it = by_name_.find(name.v);
  if (it != by_name_.end()) best = it->second;
  for (auto [prefix, row] : prefixes_)
    if (m.names.under(name, prefix)) {
      if (!best || row < best) best = row;
      break;
    }
  return static_cast<TorchCall>(best);
}

TorchCall TorchCalls::classify(const ir::Module& m, const ir::Resolution& res, ir::FunctionId fid,
                               ir::InstId call) const {
  ir::CallTarget t = res.call_target(fid, call);
  uint8_t best = 0;
  auto take = [&](uint8_t row) {
    if (row && (!best || row < best)) best = row;
  };
  switch (t.kind) {
    case ir::CallTarget::Kind::External:
      take(static_cast<uint8_t>(classify_name(m, t.name)));
      break;
    case ir::CallTarget::Kind::ResultCall:
    case ir::CallTarget::Kind::InstanceCall:
    case ir::CallTarget::Kind::Unknown: {
      const ir::Function& f = m.fn(fid);
      take(static_cast<uint8_t>(classify_value(m, res, fid, f.operands(f.inst(call))[0])));
      break;
    }
    case ir::CallTarget::Kind::Method: {
      auto it = by_method_.find(t.method);
      if (it == by_method_.end()) break;
      const ir::Referent& recv = res.ref(fid, t.receiver);
      for (const MethodRow& mr : it->second) {
        if (mr.receiver_prefix.valid()) {
          if (recv.kind != ir::Referent::Kind::Result || !m.names.under(recv.path(), mr.receiver_prefix))
            continue;
        }
        take(mr.row);
        break;
      }
      break;
    }
    default:
      break;
  }
  return static_cast<TorchCall>(best);
}

}  // namespace tpf::dataflow

namespace tpf::dataflow {

ir::ValueId call_arg(const ir::Module& m, const ir::Function& f, const ir::Inst& call, int pos,
                     std::string_view kw) {
  // Asked of any instruction (a field's value may be a parameter or a
  // phi, not a call): only a call has arguments.
  if (call.op != ir::Op::Call) return ir::kNoValue;
  const ir::CallInfo& c = f.call_info(call);
  auto ops = f.operands(call);
  if (pos >= 0 && static_cast<uint32_t>(pos) < c.npos) {
    // A starred argument before `pos` makes positions unknowable.
    uint32_t mask = pos >= 32 ? c.star_mask : c.star_mask & ((2u << pos) - 1);
    if (!mask) return ops[1 + pos];
  }
  if (!kw.empty())
    for (uint32_t i = 0; i < c.nkw; ++i) {
      ir::Symbol s = f.kw_names[c.kw_first + i];
      if (s != ir::kNoSymbol && m.names.str(s) == kw) return ops[1 + c.npos + i];
    }
  return ir::kNoValue;
}

bool is_parameter(const ir::Module& m, const ir::Resolution& res, ir::FunctionId f, ir::ValueId v) {
  const ir::Referent& r = res.ref(f, v);
  if (r.kind != ir::Referent::Kind::Result) return false;
  std::string_view path = m.names.str(r.path());
  return path == "torch.nn.Parameter" || path == "torch.nn.parameter.Parameter";
}

BoolArg bool_arg(const ir::Module& m, const ir::Resolution& res, ir::FunctionId fid,
                 const ir::Inst& call, int pos, std::string_view kw) {
  const ir::Function& f = m.fn(fid);
  if (call.op != ir::Op::Call) return BoolArg::Unknown;
  ir::ValueId v = call_arg(m, f, call, pos, kw);
  if (!v.valid()) {
    // `**kwargs` or `*args` might pass it.
    const ir::CallInfo& c = f.call_info(call);
    for (uint32_t i = 0; i < c.nkw; ++i)
      if (f.kw_names[c.kw_first + i] == ir::kNoSymbol) return BoolArg::Unknown;
    return c.star_mask ? BoolArg::Unknown : BoolArg::Absent;
  }
  const ir::ConstValue& k = res.constant(fid, v);
  if (k.kind == ir::ConstValue::Kind::Bool || k.kind == ir::ConstValue::Kind::Int)
    return k.i ? BoolArg::True : BoolArg::False;
  if (k.kind == ir::ConstValue::Kind::None) return BoolArg::False;
  return BoolArg::Unknown;
}

CallKinds classify_all(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls) {
  CallKinds kinds(m.functions.size());
  for (uint32_t fi = 0; fi < m.functions.size(); ++fi) {
    const ir::Function& f = m.functions[fi];
    kinds[fi].assign(f.insts.size(), TorchCall::None);
    for (uint32_t i = 0; i < f.insts.size(); ++i)
      if (f.insts[i].op == ir::Op::Call)
        kinds[fi][i] = calls.classify(m, res, ir::FunctionId(fi), ir::InstId(i));
  }
  return kinds;
}

}  // namespace tpf::dataflow
