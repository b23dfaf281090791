// Abstract objects by allocation site: which model, optimizer, loader,
// sampler, scheduler, scaler, criterion or engine a value may denote, as one
// flow-insensitive points-to fact per file. Rules ask "is this the model an
// optimizer steps?" or "is this parameter a DeepSpeed engine?" here instead
// of comparing source names.
//
// An object is made where the script builds it (a constructor call, one
// object per call site; a class of the file gets one more, for `self` in
// methods of a class the file never instantiates). Values alias it through:
// SSA phis; module globals and enclosing functions' names; `self.x = v`
// fields (per object); calls that return their receiver or argument
// (`.to()`, `.cuda()`, `.train()`, `DDP(m)`, `FSDP(m)`, `torch.compile(m)`,
// `get_peft_model(m)`, `accelerator.prepare(a, b)`, `deepspeed.initialize`,
// `iter`, `enumerate`, `tqdm`, `zip`); containers (a list holds what is put
// in it, a tuple's elements are kept apart); and the file's functions
// (arguments flow to parameters, returns to the call: context-insensitive).
// `m.parameters()` is an object of its own, the parameters of m, so an
// optimizer knows which models it steps. An attribute of a model the file
// never assigns (`model.module`, `model.backbone`) is a part of it.
//
// Nothing is ever removed (no strong updates): a value's set holds every
// object it may denote. An empty set means "not known", not "none": rules
// fall back to what they did before when they meet one.
// requires: FileFacts (resolution, call kinds). produces: Objects.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ir/ir.h"
#include "ir/resolve.h"

namespace tpf::dataflow {

class Summaries;

enum class ObjKind : uint8_t {
  Module,     // nn.Module: torch.nn layers, torchvision/timm/HF models, the file's module classes
  Params,     // m.parameters() / m.named_parameters(): parent is m
  Optimizer,  // torch.optim.*, and the optimizer deepspeed.initialize returns
  Scheduler,  // torch.optim.lr_scheduler.*, transformers get_*_schedule*
  Loader,     // torch.utils.data.DataLoader
  Sampler,    // *Sampler
  Scaler,     // GradScaler
  Criterion,  // torch.nn.*Loss
  Engine,     // a DeepSpeed engine: it clears gradients in its own step()
  Instance,   // an instance of a class of the file that is no module
};
std::string_view obj_kind_name(ObjKind k);

struct AbstractObject {
  ObjKind kind = ObjKind::Module;
  ir::FunctionId fn;           // where it is built (invalid: a class's own `self`)
  ir::InstId site;             // the call building it (invalid for parts and `self`)
  uint32_t parent = UINT32_MAX;  // Params: its model; a part: the object it is an attribute of
  ir::Symbol attr = ir::kNoSymbol;  // a part: the attribute's name
  ir::ClassId cls;             // an instance of a class of the file
  /// Optimizer: the models whose parameters it updates. steps_known is
  /// false when its parameters come from something not followed.
  std::vector<uint32_t> steps;
  bool steps_known = false;
  /// `requires_grad_(False)` on it, or `p.requires_grad = False` over its parameters.
  bool frozen = false;
  /// Its parameters are handed to a call that may build an optimizer.
  bool params_given = false;
};

class Objects {
 public:
  const std::vector<AbstractObject>& all() const { return objs_; }
  const AbstractObject& obj(uint32_t o) const { return objs_[o]; }
  /// The objects value v of function f may denote (empty: not known).
  std::span<const uint32_t> of(ir::FunctionId f, ir::ValueId v) const;
  /// The one object v denotes, or null (none known, or several).
  const AbstractObject* single(ir::FunctionId f, ir::ValueId v) const;
  /// Some object v may denote has kind k.
  bool may_be(ir::FunctionId f, ir::ValueId v, ObjKind k) const;
  /// `a` is `b` or one of its parts (through Params and attribute parents).
  bool within(uint32_t a, uint32_t b) const;
  /// Every optimizer of the file is known and knows what it steps.
  bool optimizers_known() const { return optimizers_known_; }
  /// The file builds an optimizer the analysis knows.
  bool has_optimizer() const { return has_optimizer_; }
  /// Some model's parameters are handed to a call that may build an optimizer.
  bool any_params_given() const { return any_params_given_; }
  /// Some optimizer steps parameters of the model (of it, a part of it, or
  /// a model it is part of), and it is not frozen.
  bool trained(uint32_t module) const;
  /// trained, or its parameters are handed to a call the analysis cannot
  /// see into (an optimizer from a factory), and it is not frozen.
  bool may_be_trained(uint32_t module) const;
  /// o or an object it is a part of is frozen.
  bool frozen(uint32_t o) const;

 private:
  friend class ObjectSolver;
  std::vector<AbstractObject> objs_;
  std::vector<std::vector<std::vector<uint32_t>>> pts_;  // [fn][value]
  bool optimizers_known_ = true;
  bool has_optimizer_ = false;
  bool any_params_given_ = false;
};

/// `summaries`: the file's, when it knows its project's other modules (their
/// nn.Module classes built here are models); null for the file alone.
Objects compute_objects(const ir::Module& m, const ir::Resolution& res,
                        const Summaries* summaries = nullptr);

/// --dump-facts=objects: every object, then each function's values that denote some.
void dump_objects(const ir::Module& m, const Objects& o, std::string& out);

}  // namespace tpf::dataflow
