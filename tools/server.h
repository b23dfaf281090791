// `tpf-analyze server`: a language server (LSP 3.17 over stdin/stdout) that
// runs the CLI's analysis (tools/pipeline.h) on the editor's open documents.
// Diagnostics are published on open and, debounced, on change, for the
// changed file and the open files that import it; code actions apply the
// safe fixes or add `# tpf: ignore[CODE]`; hover on a model's construction
// or on `target` in [tool.tpf] shows the VRAM estimate.
// requires: the pipeline. produces: LSP messages.
#pragma once

#include <boost/program_options.hpp>

#include "tools/pipeline.h"

namespace tpf::tools {

/// Serves until `exit` (0 after a `shutdown` request, 1 without one, as
/// LSP says) or the end of standard input (1 without a shutdown). `cli` is
/// the command line after `server` ([tool.tpf] merges under it per file).
int run_server(const Options& cli, const boost::program_options::variables_map& vm);

}  // namespace tpf::tools
