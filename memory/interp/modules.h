// The nn.Module tree queries shared by the interpreter files and the memory
// model (memory/interp/modules.cpp).
// requires: interp.h. produces: nothing on its own.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "memory/interp/interp.h"

namespace tpf::memory {

/// A container's children: the modules and tensors among its attributes,
/// counted once and remembered while the attributes keep their size.
size_t container_child_count(Interp& in, Value self);
/// Adds `children` to a container (Sequential, ModuleList, ParameterList)
/// under positional names, "0", "1", ... after the children it holds, each
/// charged to the work budget.
void append_children(Interp& in, Value self, const std::vector<Value>& children);
/// Direct submodules in registration order.
std::vector<std::pair<StrId, Value>> module_children(Interp& in, Value m);
/// Pre-order over the module tree (each module once), with dotted names.
void walk_modules(Interp& in, Value m, const std::string& prefix,
                  const std::function<void(Value, const std::string&)>& fn);
/// Parameters (role Param) or buffers (role Buffer) of the tree, each
/// storage once (tied weights count once), with their dotted names.
std::vector<std::pair<std::string, Value>> module_tensors(Interp& in, Value m, Role role);
/// The class name ("Linear", "CausalSelfAttention").
std::string module_class(Interp& in, Value m);
/// Marks a module as a trained root and names its tree for the breakdown.
void mark_root(Interp& in, Value m);
/// After a call returns `ret`: the roots from `roots0` and the optimizers
/// from `opts0` on (made during the call) that nothing live reaches (the
/// frames on the stack, the modules' globals, `ret`, the call's own
/// arguments `args`, `self` included, which the caller still holds) die
/// now. A benchmark that trains a baseline model in one function and a
/// second model in another holds one at a time; `self.opt = Adam(...)` in
/// a module's `__init__` lives with the module.
void retire_unreachable(Interp& in, size_t roots0, size_t opts0, Value ret, std::span<const Value> args);
/// Keeps the roots and optimizers of the largest set of them alive at one
/// time (by parameter bytes), with the ones sharing their parameters, and
/// drops the rest: models that never live together are not one model's
/// memory. Says so in a note. No change when all lived together.
void keep_largest_live_set(Interp& in);
/// Calls the module: its forward, with the module on the module path.
Value module_call(Interp& in, Value m, Args& a);
/// Converts floating parameters and buffers to `dt` (module.half(), .to(dtype)).
/// `how` is what the report shows as the source of the weights' precision.
void convert_module(Interp& in, Value m, Dtype dt, std::string how = {});
/// Parameter bytes of the largest block of the model's block list (the
/// whole model when it has none): FSDP's unit of gathering.
uint64_t largest_block_bytes(Interp& in, Value root);
/// The size of the model's learned position table (an Embedding named
/// `wpe`, `position_embeddings`, `pos_emb`, ...: the most tokens a forward
/// takes) and its dotted path; 0 when it has none (memory/interp/data.cpp).
/// `constant`: only a table of a literal size, not one of a named setting.
int64_t position_table(Interp& in, Value model, std::string* path = nullptr, bool constant = false);
bool is_layer(const Obj& ob);
bool is_container_obj(const Obj& ob);
std::string_view layer_name(uint16_t l);

}  // namespace tpf::memory
