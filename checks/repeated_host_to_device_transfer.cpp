// TPF011 repeated_host_to_device_transfer
//
// What it finds: `.cuda()` or `.to(<device>)` of a value defined before
//   the loop (not reassigned in it), in the innermost loop that runs a
//   training step (backward or optimizer step): a constant tensor
//   `.cuda()`'d every step, a tensor field moved in the batch loop.
// Why it costs: each repeat copies the same bytes over PCIe again (the
//   host tensor stays where it is), stealing time from every step.
// Example:
//     for x, y in loader:
//         weights = class_weights.cuda()
// Fix: move loop-invariant values once, before the loop.
// Not flagged: batch tensors (they change every iteration), device-to-host
//   copies (`.cpu()`, `.to("cpu")`, `.to(torch.device("cpu"))`), dtype casts (`.to(torch.float16)`),
//   deliberate move-and-restore (the same object moved back to the host in
//   the loop: offloading), `.to(out.device)` with `out` computed in the
//   loop (aligning devices: a no-op when the value is there already),
//   sampling loops whose only `step` takes arguments (`scheduler.step(pred,
//   t, latents)` is no optimizer step), moves in a loop that does not train (the epoch
//   loop), moves inside helpers called from the loop, and modules (moved
//   in place: a repeat copies nothing).
#include <algorithm>

#include "checks/facts.h"

namespace tpf::checks::repeated_host_to_device_transfer {

const std::string_view kExplain = R"(TPF011 repeated_host_to_device_transfer: loop-invariant host-to-device transfer repeated every iteration

What it finds
  a host-to-device transfer (`.cuda()`, `.to(device)`) of a value defined
  before the loop and not reassigned in it, repeated every iteration of the
  loop that runs the training step: a constant tensor `.cuda()`'d every
  step, a tensor kept in a field moved in the batch loop.

Why it costs
  each repeat copies the same bytes over PCIe again (`.to()` of a host
  tensor returns a new device copy, the original stays on the host),
  stealing time from every step.

Example
  for x, y in loader:
      weights = class_weights.cuda()

Fix
  move loop-invariant values once, before the loop.

Not flagged
  - batch tensors (they change every iteration)
  - device-to-host copies (`.cpu()`, `.to("cpu")`, `.to(torch.device("cpu"))`)
    and dtype casts
    (`.to(torch.float16)`)
  - deliberate move-and-restore: the same object moved back to the host in
    the loop (offloading)
  - `.to(out.device)` with `out` computed in the loop: aligning devices, a
    no-op when the value is on that device already
  - moves in a loop that does not itself train (once per epoch), such as a
    diffusion sampling loop (`scheduler.step(pred, t, latents)` is no
    optimizer step)
  - moves inside helpers called from the loop
  - modules (`model.to(device)`, `self.ema.to(device)`): nn.Module.to moves
    the parameters in place, so once they are on the device a repeat
    copies nothing; known as a module by the objects fact, by being called
    (`model(x)`), or by module-only methods (`.parameters()`, `.eval()`)
)";


namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF011);

using dataflow::TorchCall;

class Rule {
 public:
  Rule(const CheckContext& ctx, ir::FunctionId fid) : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)) {}

  void run(DiagSink& out) {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    if (li.loops.empty()) return;
    for (uint32_t i = 0; i < f_.insts.size(); ++i) {
      ir::InstId id(i);
      const ir::Inst& in = f_.insts[i];
      if (in.op != ir::Op::Call || !to_device(id)) continue;
      uint32_t l = li.loop_of(f_.block_of(id));
      if (l == UINT32_MAX || !trains_in(l)) continue;
      ir::ValueId recv = call_receiver(f_, in);
      if (!recv.valid() || !invariant(recv, l, 0)) continue;
      std::string key = access_key(ctx_, fid_, recv);
      if (key.empty() || moved_back(key, l) || module_value(recv, key)) continue;
      std::string text = call_text(ctx_, f_, in);
      Diagnostic d = make_diagnostic(
          kRule, in.span,
          "`" + key + "` does not change in the loop, yet `" + text +
              "` copies it to the device again every iteration",
          "move `" + key + "` to the device once, before the loop");
      out.report(std::move(d));
    }
  }

 private:
  /// `.cuda()`, or `.to(...)` with a device: a "cuda..." string, a value
  /// whose text names a device (`device`, `args.device`, `x.device`), or
  /// `torch.device(...)`. Not `.to(torch.float16)` nor `.to("cpu")`.
  bool to_device(ir::InstId id) const {
    TorchCall k = torch_call(ctx_, fid_, id);
    const ir::Inst& in = f_.inst(id);
    if (k == TorchCall::Cuda) return true;
    if (k != TorchCall::To) return false;
    ir::ValueId dev = call_arg(ctx_, f_, in, 0, "device");
    if (!dev.valid() || host_device(ctx_, fid_, dev)) return false;
    const ir::ConstValue& c = ctx_.facts.res.constant(fid_, dev);
    if (c.kind == ir::ConstValue::Kind::Str) return c.s.starts_with("cuda");
    if (c.known()) return false;
    // `.to(out.device)` with `out` computed in the loop: aligning with this
    // iteration's tensor, a no-op when the value is there already (an
    // embedding computed on the GPU before the loop); not known to copy.
    const ir::Inst& dd = f_.def(dev);
    if (dd.op == ir::Op::GetAttr && ctx_.ir.names.str(dd.aux) == "device") {
      ir::InstId od = f_.def_id(f_.operands(dd)[0]);
      uint32_t l = loops_of(ctx_, fid_).loop_of(f_.block_of(id));
      if (od.valid() && l != UINT32_MAX && loops_of(ctx_, fid_).contains(l, f_.block_of(od)) &&
          f_.def(f_.operands(dd)[0]).op != ir::Op::Param)
        return false;
    }
    std::string_view t = source_text(ctx_, f_.def(dev).span);
    return t.find("device") != std::string_view::npos || t.find("cuda") != std::string_view::npos;
  }

  /// The moved value is an nn.Module. `Module.to(device)` / `.cuda()`
  /// moves the parameters in place (nn.Module._apply); once they are on the
  /// device, each `Tensor.to` there returns the tensor itself and nothing
  /// is copied (PyTorch 2.x), so a repeat in the loop costs no transfer.
  /// Known by the objects fact (a model built in the file, an instance of
  /// its module class), or by what no tensor has: the value is called
  /// (`model(x)`: tensors are not callable) or given module-only methods
  /// (`.parameters()`, `.state_dict()`, `.eval()`, also on a part of it,
  /// `self.ema.ema_model.eval()`) anywhere in the file.
  bool module_value(ir::ValueId v, const std::string& key) const {
    const dataflow::Objects& objs = ctx_.facts.objects();
    for (uint32_t o : objs.of(fid_, v)) {
      const dataflow::AbstractObject& a = objs.obj(o);
      if (a.kind == dataflow::ObjKind::Module && (a.site.valid() || a.cls.valid())) return true;
    }
    static constexpr std::string_view kModuleOnly[] = {
        "parameters", "named_parameters", "modules", "named_modules", "children", "named_children",
        "state_dict", "load_state_dict", "eval", "train", "zero_grad", "register_buffer"};
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId g(fi);
      const ir::Function& gf = ctx_.ir.fn(g);
      // Keys of `self.` fields are shared by the class's methods; a local
      // name is only asked of this function.
      if (g != fid_ && !key.starts_with("self.")) continue;
      for (uint32_t j = 0; j < gf.insts.size(); ++j) {
        const ir::Inst& in = gf.insts[j];
        if (in.op != ir::Op::Call || in.nops == 0) continue;
        ir::CallTarget t = ctx_.facts.res.call_target(g, ir::InstId(j));
        if (g == fid_ && t.kind != ir::CallTarget::Kind::Function && t.kind != ir::CallTarget::Kind::Constructor &&
            t.kind != ir::CallTarget::Kind::External && access_key(ctx_, g, gf.operands(in)[0]) == key)
          return true;
        std::string_view m = call_method(ctx_, gf, in);
        if (std::find(std::begin(kModuleOnly), std::end(kModuleOnly), m) == std::end(kModuleOnly)) continue;
        std::string r = access_key(ctx_, g, call_receiver(gf, in));
        if (r == key || (r.starts_with(key) && r.size() > key.size() && r[key.size()] == '.')) return true;
      }
    }
    return false;
  }

  /// The loop itself (not a loop nested in it) runs a backward or an
  /// optimizer step.
  bool trains_in(uint32_t l) const {
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    for (ir::InstId k : loop_insts(ctx_, fid_, l)) {
      if (li.loop_of(f_.block_of(k)) != l) continue;
      if (!(call_effects(ctx_, fid_, k) & (dataflow::kBackward | dataflow::kOptimizerStep)))
        continue;
      // `scheduler.step(noise_pred, t, latents)` in a diffusion sampling
      // loop: a `step` with arguments is an optimizer's only on a
      // torch.optim object (`opt.step(closure)`).
      if (torch_call(ctx_, fid_, k) == TorchCall::OptimizerStep &&
          positional_count(f_, f_.inst(k)) > 0 && !is_optimizer(call_receiver(f_, f_.inst(k))))
        continue;
      return true;
    }
    return false;
  }

  bool is_optimizer(ir::ValueId v) const {
    if (!v.valid()) return false;
    const ir::Referent& r = ctx_.facts.res.ref(fid_, v);
    return r.kind == ir::Referent::Kind::Result &&
           ctx_.ir.names.str(r.path()).starts_with("torch.optim.");
  }

  /// The value is the same every iteration of loop `l`: defined outside
  /// it, or an attribute of such a value (`self.weights`).
  bool invariant(ir::ValueId v, uint32_t l, int depth) const {
    if (depth > 8) return false;
    const ir::LoopInfo& li = loops_of(ctx_, fid_);
    const ir::Inst& d = f_.def(v);
    if (d.op == ir::Op::Param) return true;
    ir::InstId di = f_.def_id(v);
    if (!di.valid()) return false;
    if (!li.contains(l, f_.block_of(di))) return true;
    if (d.op == ir::Op::GetAttr) return invariant(f_.operands(d)[0], l, depth + 1);
    // A global read in a function; module code rebinds its globals in
    // the loop body itself (`x = x.cuda()`), so there it is not known.
    if (d.op == ir::Op::LoadGlobal) return fid_.v != 0;
    return false;
  }

  /// The same object is moved to the host in the loop: offloading.
  bool moved_back(std::string_view key, uint32_t l) const {
    for (ir::InstId k : loop_insts(ctx_, fid_, l)) {
      const ir::Inst& in = f_.inst(k);
      if (in.op != ir::Op::Call) continue;
      TorchCall c = torch_call(ctx_, fid_, k);
      bool host = c == TorchCall::Cpu;
      if (c == TorchCall::To) host = host_device(ctx_, fid_, call_arg(ctx_, f_, in, 0, "device"));
      if (host && same_object(access_key(ctx_, fid_, call_receiver(f_, in)), key)) return true;
    }
    return false;
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) {
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    // A finding is a Cuda or To call (to_device) in a loop with a call
    // whose effects include kBackward or kOptimizerStep (trains_in): skip
    // other functions before their loops.
    const FunctionCalls& fc = function_calls(ctx, ir::FunctionId(fi));
    if (!fc.may(dataflow::kBackward | dataflow::kOptimizerStep)) continue;
    if (!fc.has(TorchCall::Cuda) && !fc.has(TorchCall::To)) continue;
    Rule(ctx, ir::FunctionId(fi)).run(out);
  }
}

}  // namespace tpf::checks::repeated_host_to_device_transfer
