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
  std::string message;  // e.g. "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\xXX escape"
  uint32_t offset = 0;
};

/// Decodes the body of a str literal (between the quotes, prefix removed) and
/// appends it to `out` as UTF-8; lone surrogates from \ud800-style escapes are
/// written as 3-byte WTF-8 sequences. `raw` for r-strings. Handles \N{NAME}
/// (names, aliases, named sequences as CPython's unicodedata). Unknown escapes
/// are kept verbatim (CPython only warns).
LiteralError decode_str(std::string_view body, bool raw, std::string& out);

/// Decodes the body of a bytes literal into raw byte values. Non-ASCII source
/// characters are an error ("bytes can only contain ASCII literal characters").
LiteralError decode_bytes(std::string_view body, bool raw, std::string& out);

/// Integer literal text (decimal, 0x, 0o, 0b, underscores) -> decimal digits,
/// arbitrary precision ("0x_FF" -> "255").
std::string int_literal_to_decimal(std::string_view text);

/// Float literal text ("1_0.5e-3", "1e400") -> its double value (correctly
/// rounded, inf on overflow as CPython). For imaginary literals pass the text
/// without the trailing j/J.
double float_literal_value(std::string_view text);

/// NFKC normalization of an identifier, as CPython applies to non-ASCII names.
std::string nfkc_identifier(std::string_view utf8);

/// Appends `utf8` (which may contain WTF-8 surrogates) to `out` as a JSON
/// string literal, quotes included; surrogates become \udXXX escapes.
void append_json_string(std::string_view utf8, std::string& out);

/// Appends the JSON string for bytes decoded as latin-1 (each byte -> U+00XX).
void append_json_latin1(std::string_view bytes, std::string& out);

}  // namespace tpf::parser
