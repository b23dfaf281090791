// Grad mode analysis. The state is the current mode plus, per lexical `with`
// depth, the mode to restore when that `with` exits (PyTorch's managers
// restore the previous mode in __exit__, torch/autograd/grad_mode.py).
// requires: resolution, call kinds. produces: GradModeFacts.
#include "dataflow/grad_mode.h"

#include <array>

namespace tpf::dataflow {

namespace {

/// Deeper `with` nests than this restore an Unknown mode (never seen in practice).
constexpr int kMaxWithDepth = 8;

struct GradModeState {
  GradMode cur = GradMode::Bottom;
  std::array<GradMode, kMaxWithDepth> saved{};

  static GradModeState bottom() { return {}; }
  Effect join(const GradModeState& o) {
    Effect e = Effect::Unchanged;
    auto j = [&](GradMode& a, GradMode b) {
      GradMode n = dataflow::join(a, b);
      if (n != a) {
        a = n;
        e = Effect::Changed;
      }
    };
    j(cur, o.cur);
    for (int i = 0; i < kMaxWithDepth; ++i) j(saved[i], o.saved[i]);
    return e;
  }
  bool operator==(const GradModeState&) const = default;
  void print(std::ostream& os, const ir::Names&) const { os << name(cur); }
};

GradMode mode_of_manager(const ir::Module& m, const ir::Resolution& res, ir::FunctionId fid,
                         const ir::Inst& call, TorchCall kind, GradMode cur) {
  const TorchCallInfo& row = info(kind);
  switch (row.mode) {
    case ModeAction::Keep:
      return cur;
    case ModeAction::Disable:
      return GradMode::Disabled;
    case ModeAction::Enable:
      return GradMode::Enabled;
    case ModeAction::Inference:
      // inference_mode(mode=True): mode=False leaves grad mode alone.
      switch (bool_arg(m, res, fid, call, 0, "mode")) {
        case BoolArg::False: return cur;
        case BoolArg::Unknown: return GradMode::Unknown;
        default: return GradMode::Disabled;
      }
    case ModeAction::SetEnabled:
      switch (bool_arg(m, res, fid, call, 0, "mode")) {
        case BoolArg::False: return GradMode::Disabled;
        case BoolArg::True: return GradMode::Enabled;
        default: return GradMode::Unknown;
      }
  }
  return cur;
}

class GradModeAnalysis {
 public:
  using Domain = GradModeState;
  static constexpr Direction kDirection = Direction::Forward;

  GradModeAnalysis(const ir::Module& m, const ir::Resolution& res, const CallKinds& kinds,
                   ir::FunctionId fid, GradMode entry)
      : m_(m), res_(res), kinds_(kinds[fid.v]), fid_(fid), f_(m.fn(fid)), entry_(entry) {
    depth_.resize(f_.withs.size());
    for (size_t r = 0; r < f_.withs.size(); ++r) {
      int d = 0;
      for (uint32_t p = f_.withs[r].parent; p != UINT32_MAX; p = f_.withs[p].parent) ++d;
      depth_[r] = d;
    }
    // Calls whose result is a `with` manager take effect at WithEnter.
    manager_.assign(f_.insts.size(), 0);
    for (const ir::Inst& in : f_.insts)
      if (in.op == ir::Op::WithEnter) manager_[f_.def_id(in.ops[0]).v] = 1;
  }

  Domain initial(const ir::Function&) {
    Domain d;
    d.cur = entry_;
    return d;
  }

  void transfer(const ir::Inst& in, ir::InstId id, Domain& d) {
    switch (in.op) {
      case ir::Op::WithEnter: {
        int depth = in.aux < depth_.size() ? depth_[in.aux] : kMaxWithDepth;
        if (depth < kMaxWithDepth) d.saved[depth] = d.cur;
        ir::InstId mgr = f_.def_id(in.ops[0]);
        const ir::Inst& mi = f_.inst(mgr);
        if (mi.op == ir::Op::Call && kinds_[mgr.v] != TorchCall::None)
          d.cur = mode_of_manager(m_, res_, fid_, mi, kinds_[mgr.v], d.cur);
        break;
      }
      case ir::Op::WithExit: {
        int depth = in.aux < depth_.size() ? depth_[in.aux] : kMaxWithDepth;
        d.cur = depth < kMaxWithDepth ? d.saved[depth] : GradMode::Unknown;
        break;
      }
      case ir::Op::Call:
        if (!manager_[id.v] && kinds_[id.v] != TorchCall::None &&
            info(kinds_[id.v]).mode == ModeAction::SetEnabled)
          d.cur = mode_of_manager(m_, res_, fid_, in, kinds_[id.v], d.cur);
        break;
      default:
        break;
    }
  }

 private:
  const ir::Module& m_;
  const ir::Resolution& res_;
  const std::vector<TorchCall>& kinds_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  GradMode entry_;
  std::vector<int> depth_;
  std::vector<uint8_t> manager_;
};

}  // namespace

GradMode decorator_mode(const ir::Module& m, const ir::Resolution& res, const TorchCalls& calls,
                        ir::FunctionId fid) {
  const ir::Function& f = m.fn(fid);
  GradMode mode = GradMode::Bottom;
  for (ir::ValueId d : f.decorators) {
    if (!d.valid()) continue;
    // @torch.no_grad() is a call result; @torch.no_grad the name itself.
    const ir::Function& p = m.fn(f.parent);
    const ir::Inst& di = p.def(d);
    TorchCall kind = TorchCall::None;
    if (di.op == ir::Op::Call) {
      kind = calls.classify(m, res, f.parent, p.def_id(d));
    } else {
      // @torch.no_grad without parentheses: the name decorates directly.
      const ir::Referent& r = res.ref(f.parent, d);
      if (r.kind == ir::Referent::Kind::External) kind = calls.classify_name(m, r.path());
    }
    if (kind == TorchCall::None) continue;
    BoolArg arg = di.op == ir::Op::Call ? bool_arg(m, res, f.parent, di, 0, "mode") : BoolArg::Absent;
    switch (info(kind).mode) {
      case ModeAction::Disable: mode = GradMode::Disabled; break;
      case ModeAction::Enable: mode = GradMode::Enabled; break;
      case ModeAction::Inference:
        if (arg != BoolArg::False) mode = GradMode::Disabled;
        break;
      case ModeAction::SetEnabled:
        switch (arg) {
          case BoolArg::False: mode = GradMode::Disabled; break;
          case BoolArg::True: mode = GradMode::Enabled; break;
          default: mode = GradMode::Unknown; break;
        }
        break;
      case ModeAction::Keep:
        break;
    }
  }
  return mode;
}

GradModeFacts compute_grad_mode(const ir::Module& m, const ir::Resolution& res,
                                const CallKinds& kinds, ir::FunctionId fid, GradMode entry) {
  const ir::Function& f = m.fn(fid);
  // Only `with` entries and set_grad_enabled calls change the mode (see
  // transfer). Without either, every instruction runs in the entry mode
  // (build_cfg keeps only reachable blocks, and to_ssa lays out only their
  // instructions): the solver would find exactly that, one visit per block.
  bool changes = false;
  for (uint32_t i = 0; i < f.insts.size() && !changes; ++i) {
    const ir::Inst& in = f.insts[i];
    changes = in.op == ir::Op::WithEnter ||
              (in.op == ir::Op::Call && kinds[fid.v][i] != TorchCall::None &&
               info(kinds[fid.v][i]).mode == ModeAction::SetEnabled);
  }
  if (!changes) {
    GradModeFacts out;
    out.converged = Converged::Yes;
    out.at.assign(f.insts.size(), entry);
    return out;
  }
  GradModeAnalysis a(m, res, kinds, fid, entry);
  Solution<GradModeState> s = solve(a, f);
  GradModeFacts out;
  out.converged = s.converged;
  out.at.assign(f.insts.size(), s.converged == Converged::Yes ? GradMode::Bottom : GradMode::Unknown);
  if (s.converged == Converged::No) return out;
  replay(a, f, s, [&](ir::InstId id, const GradModeState& st) { out.at[id.v] = st.cur; });
  return out;
}

}  // namespace tpf::dataflow
