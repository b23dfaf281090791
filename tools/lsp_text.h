// What the language server translates between the editor's view of a
// document and the tool's: `file://` URIs and paths, and LSP positions
// (line, character in UTF-16 code units, or UTF-8 bytes when the client
// offers "utf-8") and byte offsets into the document's text.
// requires: LineIndex. produces: paths, URIs, offsets, LSP ranges.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "lexer/source.h"

namespace tpf::tools::lsp {

/// The path a `file:` URI names (percent-decoded); "" for other schemes or
/// a malformed URI.
std::string uri_to_path(std::string_view uri);
/// The `file://` URI of an absolute path (percent-encoding what RFC 3986
/// does not allow in a path).
std::string path_to_uri(std::string_view path);

/// A document's text with its line starts, for position conversions.
class TextPositions {
 public:
  TextPositions(std::string_view text, bool utf16) : text_(text), lines_(text), utf16_(utf16) {}
  /// The byte offset of an LSP position, clamped into the text (a line
  /// past the end is the end; a character past the line's end is its end;
  /// a negative one is the line's start). A character inside a code point
  /// (half a UTF-16 surrogate pair, a byte inside a UTF-8 sequence) means
  /// that code point: after it for UTF-16, before it for UTF-8.
  uint32_t offset(int64_t line, int64_t character) const;
  /// The LSP position {"line", "character"} of a byte offset (clamped).
  nlohmann::json position(uint32_t offset) const;
  /// {"start", "end"} of a byte range.
  nlohmann::json range(Span span) const;
  /// The byte offset of an LSP Position object; throws nlohmann's
  /// type_error when it is not one (the server answers InvalidParams).
  uint32_t offset(const nlohmann::json& pos) const;
  /// The byte offset where line `line0` (0-based) ends, before its newline.
  uint32_t line_end(uint32_t line0) const;
  std::string_view text() const { return text_; }
  const LineIndex& lines() const { return lines_; }

 private:
  std::string_view text_;
  LineIndex lines_;
  bool utf16_;
};

/// `text` after one TextDocumentContentChangeEvent of incremental sync:
/// with a "range", that range (positions as TextPositions::offset reads
/// them, so an out-of-range one is clamped; a reversed one is taken in
/// order) replaced by "text"; without one (or a null one), "text" is the
/// whole new text. Throws nlohmann's exceptions on a malformed change.
std::string apply_change(std::string_view text, const nlohmann::json& change, bool utf16);

}  // namespace tpf::tools::lsp
