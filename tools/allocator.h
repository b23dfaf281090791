// Which heap allocator the executable was linked with (tools/allocator.cpp).
#pragma once

#include <string>

namespace tpf::tools {

/// "mimalloc 2.0.9" or "system malloc": for --version and the benchmarks.
std::string allocator_name();

}  // namespace tpf::tools
