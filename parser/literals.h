// Decoding of literal token text into values: string/bytes escapes, integer
// and float literals, identifier normalization. Pure functions, no AST.
// requires: nothing. produces: values for ast::Constant and identifiers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tpf::parser {

/// Result of a decode: ok, or a CPython-style message and the byte offset
/// (relative to the start of the input view) where the problem starts.
struct LiteralError {
  bool ok = true;
  std::string message;  // e.g. "(unicode error) 'unicodeescape' codec can't decode bytes in
                        // position 0-1: truncated \\xXX escape"
  uint32_t offset = 0;
};

/// Decodes the body of a str literal (between the quotes, prefix removed) and
/// appends it to `out` as UTF-8; lone surrogates from \ud800-style escapes are
/// written as 3-byte WTF-8 sequences. `raw` for r-strings. Handles \N{NAME}
/// (names and all NameAliases.txt aliases, any case; named sequences are
/// rejected, as by CPython 3.11's "\N{...}"). Unknown escapes are kept verbatim
/// (CPython only warns). CRLF and lone CR in the body become LF, raw or not, as
/// CPython's tokenizer translates them before decoding; the lexer need not.
/// On error `out` holds a partial value; `message` is ast.parse's text (its
/// "position N-M" counts in CPython's internal buffer) and `offset` is the
/// body offset of the failing escape's backslash. CPython places the
/// SyntaxError at a token, not at `offset`.
LiteralError decode_str(std::string_view body, bool raw, std::string& out);

/// Decodes the body of a bytes literal into raw byte values, newlines
/// translated as in decode_str. Non-ASCII source characters are an error
/// ("bytes can only contain ASCII literal characters", `offset` = first such
/// byte; CPython reports it at the string token's start and end). A bad \x
/// gives "(value error) invalid \x escape at position N".
LiteralError decode_bytes(std::string_view body, bool raw, std::string& out);

/// CPython 3.11's \N{NAME} lookup: the code point, or -1 if "\N{NAME}" is an
/// "unknown Unicode character name" for python3.11 (Unicode 14.0 data).
int32_t lookup_char_name(std::string_view name);

/// Integer literal text (decimal, 0x, 0o, 0b, underscores) -> decimal digits,
/// arbitrary precision ("0x_FF" -> "255").
std::string int_literal_to_decimal(std::string_view text);

/// CPython 3.11 rejects decimal int literals of more than 4300 significant
/// digits ("Exceeds the limit (4300 digits) for integer string conversion: ...",
/// a SyntaxError at the literal's line with offset 0 in 3.11.7). ok otherwise.
LiteralError int_literal_digit_limit(std::string_view text);

/// Float literal text ("1_0.5e-3", "1e400") -> its double value (correctly
/// rounded, inf on overflow as CPython). For imaginary literals pass the text
/// without the trailing j/J.
double float_literal_value(std::string_view text);

/// NFKC normalization of an identifier, as CPython applies to non-ASCII names.
std::string nfkc_identifier(std::string_view utf8);

/// Appends `utf8` (which may contain WTF-8 surrogates) to `out` as a JSON
/// string literal, quotes included; surrogates become \udXXX escapes, except a
/// low surrogate right after an escaped high one, which stays raw WTF-8 so
/// json.loads does not merge the two into one code point.
void append_json_string(std::string_view utf8, std::string& out);

/// Appends the JSON string for bytes decoded as latin-1 (each byte -> U+00XX).
void append_json_latin1(std::string_view bytes, std::string& out);

}  // namespace tpf::parser
