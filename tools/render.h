// Reporters: the only code that turns diagnostics and tokens into text.
#pragma once

#include <ostream>
#include <string>

#include "lexer/diag.h"
#include "lexer/lexer.h"

namespace tpf::tools {

/// `path:line:col: CODE: message` for frontend errors (CPython style, e.g.
/// `f.py:3:7: SyntaxError: invalid syntax`), one per line, sorted by offset.
/// Columns are 1-based as printed (CPython's offset convention).
void render_diagnostics(std::ostream& os, const SourceFile& src, const std::string& path,
                        DiagSink& diags);

/// `line:col-line:col KIND 'text'` per token, one per line.
void dump_tokens(const SourceFile& src, const lexer::TokenStream& toks, std::string& out);

}  // namespace tpf::tools
