// Entry points of the lexer stage: bytes -> SourceFile -> tokens.
// requires: nothing. produces: TokenStream (tokens ending in EndOfFile, comments).
#pragma once

#include <string>
#include <vector>

#include "lexer/diag.h"
#include "lexer/source.h"
#include "lexer/token.h"
#include "lexer/version.h"

namespace tpf::lexer {

/// Tokens of one file (or of one sub-range, see tokenize_range).
struct TokenStream {
  std::vector<Token> tokens;   // always ends with one EndOfFile token
  std::vector<Span> comments;  // every `# ...` comment, in source order (for suppressions)
};

/// Builds a SourceFile from bytes: handles the UTF-8 BOM and the PEP 263
/// coding declaration (transcoding to UTF-8 with ICU). Problems (NUL bytes,
/// unknown encoding, bytes the declared encoding rejects) are SyntaxError
/// diagnostics with CPython's messages; returns false then.
/// Without a declaration the bytes are taken as UTF-8 and checked by
/// tokenize(), as CPython does: comments may hold any bytes; anywhere else
/// invalid UTF-8 is an error ("(unicode error) 'utf-8' codec can't decode
/// ..."). Bytes literals are left to the parser ("bytes can only contain
/// ASCII literal characters"). So `text` is valid UTF-8 outside comments
/// once tokenize() reported no error.
/// `out.text` points into `out` itself: do not copy or move a SourceFile.
bool make_source(std::string path, std::string bytes, SourceFile& out, DiagSink& diags);

/// Reads `path` from disk, then make_source. Unreadable paths are diagnostics.
bool load_source(const std::string& path, SourceFile& out, DiagSink& diags);

/// Tokenizes a whole file exactly as CPython's C tokenizer does (positions,
/// INDENT/DEDENT, NEWLINE, implicit and explicit line joining). Like CPython
/// it stops at the first lexical error: a diagnostic, then an Error token
/// (flagged kErrDeferred when CPython raises it only once its parser gets
/// there) and EndOfFile. NEWLINE covers its line break, INDENT the
/// indentation, DEDENT and EndOfFile are empty (positions of CPython's
/// tokenize module; the C tokenizer gives these none). Never throws.
/// `version` picks the f-string rules: from 3.12 (PEP 701) a replacement
/// field may span lines and hold comments in any f-string.
TokenStream tokenize(const SourceFile& src, DiagSink& diags, PyVersion version = kNewestPy);

/// Tokenizes `range` of `src` as if it were inside brackets (no NEWLINE,
/// INDENT or DEDENT): used for the expressions of f-string replacement fields,
/// so their tokens carry positions in the enclosing file. Brackets must match
/// within the range ("'(' was never closed" at its end); EndOfFile is at
/// range.end.
TokenStream tokenize_range(const SourceFile& src, Span range, DiagSink& diags,
                           PyVersion version = kNewestPy);

/// End of the string literal whose prefix (or opening quote) is at `begin`,
/// read as tokenize() with `version` reads it (PEP 701 nesting from 3.12).
/// `limit` when it does not end before `limit`. For the parser, which finds
/// where an f-string replacement field's expression ends.
uint32_t string_end(const SourceFile& src, uint32_t begin, uint32_t limit, PyVersion version);

}  // namespace tpf::lexer
