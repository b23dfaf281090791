// UTF-8 encoding of one code point, shared by the stages that build text:
// the source loader (transcoded files), the parser (string literal values)
// and the reporters (control pictures).
#pragma once

#include <cstdint>
#include <string>

namespace tpf::lexer {

/// Appends `c` as UTF-8. U+D800..U+DFFF get the same 3-byte form (WTF-8),
/// which is how a Python str holding a lone surrogate is kept.
inline void append_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

}  // namespace tpf::lexer
