// Which torch a project runs (issue 19): the version its pins name, read
// from requirements*.txt, pyproject.toml's dependencies and environment.yml,
// or the one its README states (issue 17: code written for torch 0.3).
// requires: a project folder. produces: a TorchVersion and where it was read.
#pragma once

#include <optional>
#include <string>

#include "memory/memory.h"

namespace tpf::memory {

struct TorchPin {
  TorchVersion version;
  std::string from;  ///< "requirements.txt: torch==1.13.1"
};

/// The first torch pin found in `dir`'s requirements*.txt (sorted by name),
/// pyproject.toml or environment.yml; nullopt when none names a version.
std::optional<TorchPin> read_torch_pin(const std::string& dir);

/// The torch release `dir`'s README states (`PyTorch 0.3.1`, `pytorch
/// 1.0.0+`, `PyTorch >= 1.7`): what the code was written for when no file
/// pins it. The rules read it; the estimator keeps to pins.
std::optional<TorchPin> read_torch_statement(const std::string& dir);

}  // namespace tpf::memory
