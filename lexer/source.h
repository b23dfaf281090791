// SourceFile: the bytes of one input file, validated as UTF-8, and the
// LineIndex that turns byte offsets into CPython-style (line, column) pairs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpf {

/// Half-open byte range [begin, end) in one SourceFile.
struct Span {
  uint32_t begin = 0;
  uint32_t end = 0;
  bool operator==(const Span&) const = default;
};

/// 1-based line, 0-based UTF-8 byte column: exactly CPython's lineno/col_offset.
struct LineCol {
  uint32_t line = 1;
  uint32_t col = 0;
};

/// Offsets of line starts. A line ends at '\n', '\r\n' or a lone '\r' (as
/// CPython's tokenizer treats them).
class LineIndex {
 public:
  LineIndex() = default;
  explicit LineIndex(std::string_view text);
  LineCol at(uint32_t offset) const;
  uint32_t line_start(uint32_t line) const;  // 1-based line
  uint32_t line_count() const { return static_cast<uint32_t>(starts_.size()); }

 private:
  std::vector<uint32_t> starts_;
};

/// One input file. `text` is what the lexer sees: UTF-8 (transcoded from the
/// PEP 263 coding declaration's encoding when there is one), with a leading
/// BOM removed, since CPython's columns count neither. All Spans index `text`.
struct SourceFile {
  std::string path;
  std::string bytes;      // as read from disk
  std::string utf8;       // owns the decoded text when it differs from `bytes`
  std::string_view text;  // what every Span indexes
  LineIndex lines;
  /// The coding declaration's name when neither CPython nor this build
  /// knows it and the file was read as UTF-8 (with a note); CPython itself
  /// rejects such a file ("unknown encoding: NAME"). Empty otherwise.
  std::string unknown_encoding;

  LineCol pos(uint32_t offset) const { return lines.at(offset); }
};

}  // namespace tpf
