// Which layers of a model behave differently in train and eval mode
// (dropout, batch norm, ...), as far as the file shows them: what TPF008
// and TPF018 ask before blaming a mode.
#pragma once

#include <cstdint>

#include "checks/facts.h"

namespace tpf::checks {

/// What the layers of an evaluated model do in train mode, as far as the
/// file shows them.
enum class ModeLayers : uint8_t {
  None,     // every layer computes the same in train and eval mode
  Some,     // a dropout, a batch norm, ... (or a name that says so)
  Unknown,  // built by a library, handed in: not looked into
};

/// The layers of the model `model` names at a call: its constructor's
/// (through `.to()` / `.cuda()` and the file's builder functions), the
/// modules a torch container is built from, the file class it is an
/// instance of, every model a phi may be, the models the file's plain call
/// sites pass for a parameter, PyTorch Geometric's stock GNNs. Other
/// library models, and parameters no call of the file fills, are Unknown.
ModeLayers mode_layers(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId model,
                       int depth = 0);

}  // namespace tpf::checks
