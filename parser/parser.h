// Entry point of the parser stage: tokens -> AST (parser/ast.h).
// requires: lexer::TokenStream. produces: ast::Module (always; errors in DiagSink).
#pragma once

#include <string>

#include "lexer/diag.h"
#include "lexer/lexer.h"
#include "parser/ast.h"

namespace tpf::parser {

/// Parses one file. Always returns a Module; syntax errors are recorded in
/// `diags` (code "SyntaxError", CPython's messages) and missing syntax is an
/// Error node, so later passes never see a null id.
/// `version` is the Python grammar to accept (syntax newer than it is an
/// error with that version's message) and the `ast` shape dump_json writes;
/// tokenize with the same version.
ast::Module parse(const SourceFile& src, const lexer::TokenStream& toks, DiagSink& diags,
                  PyVersion version = kNewestPy);

/// The JSON of ../shared/tools/pyast2json.py for `m`, appended to `out`.
void dump_json(const ast::Module& m, const SourceFile& src, std::string& out);

/// A readable indented text dump of `m` (for humans; not a contract).
void dump_text(const ast::Module& m, const SourceFile& src, std::string& out);

}  // namespace tpf::parser
