// The heap allocator the executables run on. tpf-analyze allocates and frees
// many small vectors per file (tokens, AST lists, IR blocks, dataflow
// states); mimalloc (Debian libmimalloc-dev) serves that pattern with ~40%
// fewer instructions than glibc malloc and keeps freed pages for the next
// file instead of returning them to the kernel. Linking it replaces
// malloc/free process-wide; this file names it, and its symbol reference
// keeps the linker's --as-needed from dropping the library.
#include "tools/allocator.h"

#ifdef TPF_MIMALLOC
#include <mimalloc.h>

#include <string>
#endif

namespace tpf::tools {

std::string allocator_name() {
#ifdef TPF_MIMALLOC
  int v = mi_version();  // e.g. 209 for 2.0.9
  return "mimalloc " + std::to_string(v / 100) + "." + std::to_string(v / 10 % 10) + "." +
         std::to_string(v % 10);
#else
  return "system malloc";
#endif
}

}  // namespace tpf::tools
