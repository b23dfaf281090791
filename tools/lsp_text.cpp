// URIs and positions for the language server (see lsp_text.h). LSP counts
// lines from 0 and, by default, characters in UTF-16 code units; the tool
// counts 1-based lines and UTF-8 bytes (CPython's col_offset).
#include "tools/lsp_text.h"

#include <algorithm>

namespace tpf::tools::lsp {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// Bytes in the UTF-8 sequence a lead byte starts (1 for a stray byte).
uint32_t utf8_length(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF7) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

}  // namespace

std::string uri_to_path(std::string_view uri) {
  constexpr std::string_view scheme = "file://";
  if (!uri.starts_with(scheme)) return "";
  uri.remove_prefix(scheme.size());
  size_t slash = uri.find('/');  // skip an authority (`file://localhost/...`)
  if (slash == std::string_view::npos) return "";
  uri.remove_prefix(slash);
  if (size_t q = uri.find_first_of("?#"); q != std::string_view::npos) uri = uri.substr(0, q);
  std::string out;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] == '%') {
      if (i + 2 >= uri.size()) return "";
      int hi = hex(uri[i + 1]), lo = hex(uri[i + 2]);
      if (hi < 0 || lo < 0) return "";
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += uri[i];
    }
  }
  if (out.find('\0') != std::string::npos) return "";
  return out;
}

std::string path_to_uri(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out = "file://";
  for (char ch : path) {
    auto c = static_cast<unsigned char>(ch);
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("-._~/!$&'()*+,;=:@").find(ch) != std::string_view::npos;
    if (plain) {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

uint32_t TextPositions::line_end(uint32_t line0) const {
  if (line0 + 1 >= lines_.line_count()) return static_cast<uint32_t>(text_.size());
  uint32_t end = lines_.line_start(line0 + 2);  // the next line's start
  if (end > 0 && text_[end - 1] == '\n') --end;
  if (end > 0 && text_[end - 1] == '\r') --end;
  return end;
}

uint32_t TextPositions::offset(int64_t line, int64_t character) const {
  if (line < 0) return 0;
  if (line >= lines_.line_count()) return static_cast<uint32_t>(text_.size());
  uint32_t begin = lines_.line_start(static_cast<uint32_t>(line) + 1);
  uint32_t end = line_end(static_cast<uint32_t>(line));
  if (character <= 0) return begin;
  if (!utf16_) {
    // A byte inside a UTF-8 sequence means the code point it is part of.
    uint32_t at = begin + static_cast<uint32_t>(std::min<int64_t>(character, end - begin));
    while (at > begin && at < end && (static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) --at;
    return at;
  }
  uint32_t at = begin;
  int64_t units = 0;
  while (at < end && units < character) {
    uint32_t n = utf8_length(static_cast<unsigned char>(text_[at]));
    units += n == 4 ? 2 : 1;  // a code point past U+FFFF is a surrogate pair
    at = std::min(end, at + n);
  }
  return at;
}

uint32_t TextPositions::offset(const nlohmann::json& pos) const {
  return offset(pos.at("line").get<int64_t>(), pos.at("character").get<int64_t>());
}

nlohmann::json TextPositions::position(uint32_t offset) const {
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text_.size()));
  LineCol lc = lines_.at(offset);
  uint32_t begin = lines_.line_start(lc.line);
  uint32_t character = offset - begin;
  if (utf16_) {
    character = 0;
    for (uint32_t at = begin; at < offset;) {
      uint32_t n = utf8_length(static_cast<unsigned char>(text_[at]));
      character += n == 4 ? 2 : 1;
      at += n;
    }
  }
  return {{"line", lc.line - 1}, {"character", character}};
}

std::string apply_change(std::string_view text, const nlohmann::json& change, bool utf16) {
  std::string replacement = change.at("text").get<std::string>();
  auto range = change.find("range");
  if (range == change.end() || range->is_null()) return replacement;  // the whole text
  TextPositions tp(text, utf16);
  uint32_t begin = tp.offset(range->at("start")), end = tp.offset(range->at("end"));
  if (end < begin) std::swap(begin, end);
  std::string out;
  out.reserve(text.size() - (end - begin) + replacement.size());
  out.append(text.substr(0, begin));
  out += replacement;
  out.append(text.substr(end));
  return out;
}

nlohmann::json TextPositions::range(Span span) const {
  return {{"start", position(span.begin)}, {"end", position(std::max(span.begin, span.end))}};
}

}  // namespace tpf::tools::lsp
