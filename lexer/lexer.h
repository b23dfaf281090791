// Entry points of the lexer stage: bytes -> SourceFile -> tokens.
// requires: nothing. produces: TokenStream (tokens ending in EndOfFile, comments).
#pragma once

#include <string>
#include <vector>

#include "lexer/diag.h"
#include "lexer/source.h"
#include "lexer/token.h"

namespace tpf::lexer {

/// Tokens of one file (or of one sub-range, see tokenize_range).
struct TokenStream {
  std::vector<Token> tokens;   // always ends with one EndOfFile token
  std::vector<Span> comments;  // every `# ...` comment, in source order (for suppressions)
};

/// Builds a SourceFile from bytes: handles the UTF-8 BOM and the PEP 263
/// coding declaration (transcoding to UTF-8), and validates UTF-8. Problems
/// (invalid UTF-8, NUL bytes, unknown encoding) are SyntaxError diagnostics
/// with CPython's messages; returns false then.
bool make_source(std::string path, std::string bytes, SourceFile& out, DiagSink& diags);

/// Reads `path` from disk, then make_source. Unreadable paths are diagnostics.
bool load_source(const std::string& path, SourceFile& out, DiagSink& diags);

/// Tokenizes a whole file exactly as CPython's C tokenizer does (positions,
/// INDENT/DEDENT, NEWLINE, implicit and explicit line joining). Lexical errors
/// become TokKind::Error tokens plus a diagnostic; never throws.
TokenStream tokenize(const SourceFile& src, DiagSink& diags);

/// Tokenizes `range` of `src` as if it were inside brackets (no NEWLINE,
/// INDENT or DEDENT): used for the expressions of f-string replacement fields,
/// so their tokens carry positions in the enclosing file.
TokenStream tokenize_range(const SourceFile& src, Span range, DiagSink& diags);

}  // namespace tpf::lexer
