// Which torch a project runs (issue 19): the version its pins name, read
// from requirements*.txt, pyproject.toml's dependencies and environment.yml.
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

}  // namespace tpf::memory
