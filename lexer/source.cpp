// Loading a source file the way CPython 3.11's ast.parse sees its bytes: NUL
// check, UTF-8 BOM, PEP 263 coding declaration (transcoded to UTF-8 with
// ICU), and the LineIndex over the result.
// requires: nothing. produces: SourceFile, or SyntaxError diagnostics.
//
// UTF-8 itself is checked by the lexer, not here: CPython accepts any bytes
// in comments and reports bad bytes elsewhere with token-relative positions.
#include <fcntl.h>
#include <sys/stat.h>
#include <unicode/ucnv.h>
#include <unicode/ustring.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>

#include "lexer/lexer.h"
#include "lexer/scan.h"
#include "lexer/utf8.h"

namespace tpf {

LineIndex::LineIndex(std::string_view text) {
  starts_.reserve(text.size() / 32 + 2);
  starts_.push_back(0);
  const size_t n = text.size();
  if (n > 0 && std::memchr(text.data(), '\r', n) == nullptr) {
    // Only '\n' ends lines (nearly every file): memchr from one to the next.
    const char* base = text.data();
    for (const char* p = base; (p = static_cast<const char*>(std::memchr(p, '\n', n - (p - base))));) {
      ++p;
      starts_.push_back(static_cast<uint32_t>(p - base));
      if (p == base + n) break;
    }
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    const char c = text[i];
    if (c == '\n') {
      starts_.push_back(static_cast<uint32_t>(i + 1));
    } else if (c == '\r') {
      if (i + 1 < n && text[i + 1] == '\n') ++i;
      starts_.push_back(static_cast<uint32_t>(i + 1));
    }
  }
}

LineCol LineIndex::at(uint32_t offset) const {
  if (starts_.empty()) return LineCol{1, offset};
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), offset);
  const auto line = static_cast<uint32_t>(it - starts_.begin());  // >= 1: starts_[0] == 0
  return LineCol{line, offset - starts_[line - 1]};
}

uint32_t LineIndex::line_start(uint32_t line) const {
  if (starts_.empty() || line == 0) return 0;
  return starts_[std::min<size_t>(line, starts_.size()) - 1];
}

namespace lexer {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool is_line_end(char c) { return c == '\n' || c == '\r'; }

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

char ascii_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// CPython's get_normal_name(): spellings of utf-8 and latin-1 it recognizes
// itself (only the first 12 characters count). Anything else goes to the
// codec registry under its own name.
std::string normal_name(const std::string& s) {
  std::string b;
  for (size_t i = 0; i < s.size() && i < 12; ++i) b += s[i] == '_' ? '-' : ascii_lower(s[i]);
  auto starts = [&](std::string_view p) { return b.compare(0, p.size(), p) == 0; };
  if (b == "utf-8" || starts("utf-8-")) return "utf-8";
  if (b == "latin-1" || b == "iso-8859-1" || b == "iso-latin-1" || starts("latin-1-") ||
      starts("iso-8859-1-") || starts("iso-latin-1-"))
    return "iso-8859-1";
  return s;
}

// The PEP 263 declaration on one line, CPython's way: only blanks before a
// `#`, then `coding[:=]`, blanks, and the name ([A-Za-z0-9._-]+).
std::optional<std::string> coding_spec(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && line[i] != '#') {
    if (line[i] != ' ' && line[i] != '\t' && line[i] != '\f') return std::nullopt;
    ++i;
  }
  for (; i + 6 < line.size(); ++i) {
    if (line.compare(i, 6, "coding") != 0) continue;
    size_t t = i + 6;
    if (line[t] != ':' && line[t] != '=') continue;
    do ++t;
    while (t < line.size() && (line[t] == ' ' || line[t] == '\t'));
    const size_t b = t;
    while (t < line.size() &&
           (is_ascii_alnum(line[t]) || line[t] == '-' || line[t] == '_' || line[t] == '.'))
      ++t;
    if (t > b) return normal_name(std::string(line.substr(b, t - b)));
  }
  return std::nullopt;
}

// Only a blank or comment-only first line lets CPython look at the second.
bool blank_or_comment(std::string_view line) {
  for (char c : line) {
    if (c == '#') return true;
    if (c != ' ' && c != '\t' && c != '\f') return false;
  }
  return true;
}

std::string_view first_line(std::string_view s, size_t& next) {
  size_t e = 0;
  while (e < s.size() && !is_line_end(s[e])) ++e;
  next = e;
  if (next < s.size())
    next += (s[next] == '\r' && next + 1 < s.size() && s[next + 1] == '\n') ? 2 : 1;
  return s.substr(0, e);
}

// Python's codec registry as the tokenizer asks it (lexer/python_codecs.inc,
// generated from CPython's encodings package).
enum class PyKind : uint8_t { Charmap, Binary, Other };
struct PyAlias {
  std::string_view alias;
  std::string_view module;
};
struct PyModule {
  std::string_view name;
  PyKind kind;
};
struct PyCharmap {
  std::string_view name;
  char16_t points[256];
};
#include "lexer/python_codecs.inc"

// How a text codec that is not a charmap is decoded.
enum class Family : uint8_t {
  Utf8,       // checked as UTF-8 (the lexer's own decoder)
  Ascii,      // bytes over 0x7F are an 'ascii' decode error (ascii, idna)
  Icu,        // transcoded by ICU's converter `arg`
  AsciiOnly,  // no converter here: read only when every byte is ASCII and none of `arg`
  Reject,     // CPython itself fails: `arg` is its message
};
struct Codec {
  std::string_view module;  // Python's codec module
  Family family;
  std::string_view arg;
  std::string_view python_name = {};  // the codec's name in decode errors, when not `module`
};
constexpr Codec kTextCodecs[] = {
    {"utf_8", Family::Utf8, ""},
    {"utf_8_sig", Family::Utf8, ""},
    {"ascii", Family::Ascii, ""},
    {"idna", Family::Ascii, ""},  // ASCII text decodes as itself; CPython's error is ascii's
    {"big5", Family::Icu, "Big5"},
    {"big5hkscs", Family::Icu, "Big5-HKSCS"},
    {"cp932", Family::Icu, "windows-31j"},
    {"cp949", Family::Icu, "windows-949"},
    {"cp950", Family::Icu, "windows-950"},
    {"euc_jp", Family::Icu, "EUC-JP"},
    {"euc_kr", Family::Icu, "EUC-KR"},
    {"gb18030", Family::Icu, "GB18030"},
    {"gb2312", Family::Icu, "GB2312"},
    {"gbk", Family::Icu, "GBK"},
    {"hz", Family::Icu, "HZ"},
    {"iso2022_jp", Family::Icu, "ISO-2022-JP"},
    {"iso2022_kr", Family::Icu, "ISO-2022-KR"},
    {"shift_jis", Family::Icu, "Shift_JIS"},
    {"utf_16", Family::Icu, "UTF-16", "utf-16"},
    {"utf_16_le", Family::Icu, "UTF-16LE", "utf-16-le"},
    {"utf_16_be", Family::Icu, "UTF-16BE", "utf-16-be"},
    {"utf_32", Family::Icu, "UTF-32", "utf-32"},
    {"utf_32_le", Family::Icu, "UTF-32LE", "utf-32-le"},
    {"utf_32_be", Family::Icu, "UTF-32BE", "utf-32-be"},
    // ASCII-compatible, with no ICU converter that decodes as Python does.
    {"johab", Family::AsciiOnly, ""},
    {"euc_jis_2004", Family::AsciiOnly, ""},
    {"euc_jisx0213", Family::AsciiOnly, ""},
    {"shift_jis_2004", Family::AsciiOnly, ""},
    {"shift_jisx0213", Family::AsciiOnly, ""},
    // ISO-2022: ESC, SO and SI switch character sets.
    {"iso2022_jp_1", Family::AsciiOnly, "\x1b\x0e\x0f"},
    {"iso2022_jp_2", Family::AsciiOnly, "\x1b\x0e\x0f"},
    {"iso2022_jp_2004", Family::AsciiOnly, "\x1b\x0e\x0f"},
    {"iso2022_jp_3", Family::AsciiOnly, "\x1b\x0e\x0f"},
    {"iso2022_jp_ext", Family::AsciiOnly, "\x1b\x0e\x0f"},
    // ICU's UTF-7 refuses '\\' and '~', which Python's takes as themselves;
    // '+' starts a base64 run.
    {"utf_7", Family::AsciiOnly, "+"},
    // The whole file goes through the escape decoder: a backslash changes it.
    {"unicode_escape", Family::AsciiOnly, "\\"},
    {"raw_unicode_escape", Family::AsciiOnly, "\\"},
    // The coding line itself is not punycode; `undefined` refuses everything.
    {"punycode", Family::Reject, "decoding with 'punycode' codec failed"},
    {"undefined", Family::Reject, "decoding with 'undefined' codec failed (UnicodeError: undefined encoding)"},
};

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// encodings.normalize_encoding() after codecs.c's normalizestring(): lower
// case, then each run of characters other than letters, digits and '.'
// becomes one '_' between the parts it separates.
std::string normalize_encoding(std::string_view name) {
  std::string out;
  bool punct = false;
  for (char c : name) {
    c = ascii_lower(c);
    if (is_lower_alnum(c) || c == '.') {
      if (punct && !out.empty()) out += '_';
      out += c;
      punct = false;
    } else {
      punct = true;
    }
  }
  return out;
}

// The codec module Python's search function imports for `name`, or empty.
std::string_view find_module(std::string_view name, PyKind& kind) {
  const std::string norm = normalize_encoding(name);
  auto alias_of = [](std::string_view a) -> std::string_view {
    for (const PyAlias& e : kPyAliases)
      if (e.alias == a) return e.module;
    return {};
  };
  std::string dotless = norm;
  std::replace(dotless.begin(), dotless.end(), '.', '_');
  std::string_view aliased = alias_of(norm);
  if (aliased.empty()) aliased = alias_of(dotless);
  for (std::string_view candidate : {aliased, std::string_view(norm)}) {
    if (candidate.empty() || candidate.find('.') != std::string_view::npos) continue;
    for (const PyModule& m : kPyModules)
      if (m.name == candidate) {
        kind = m.kind;
        return m.name;
      }
  }
  return {};
}

const PyCharmap* find_charmap(std::string_view module) {
  if (module == "charmap") module = "latin_1";  // no mapping: bytes are code points
  for (const PyCharmap& c : kPyCharmaps)
    if (c.name == module) return &c;
  return nullptr;
}

const Codec* find_text_codec(std::string_view module) {
  for (const Codec& c : kTextCodecs)
    if (c.module == module) return &c;
  return nullptr;
}

std::string decode_failure(std::string_view codec, unsigned char byte, size_t at,
                           std::string_view reason) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%02x in position %zu: ", byte, at);
  return "'" + std::string(codec) + "' codec can't decode byte " + buf + std::string(reason);
}


// A single-byte codec, byte by byte through its table.
std::string decode_charmap(const PyCharmap& map, std::string_view in, std::string& out) {
  out.clear();
  out.reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const auto b = static_cast<unsigned char>(in[i]);
    const char16_t cp = map.points[b];
    if (cp == 0xFFFE) return decode_failure("charmap", b, i, "character maps to <undefined>");
    append_utf8(out, cp);
  }
  return "";
}

// The first byte over 0x7F, or in `also`; npos when there is none.
size_t first_non_ascii(std::string_view in, std::string_view also) {
  for (size_t i = 0; i < in.size(); ++i)
    if (static_cast<unsigned char>(in[i]) > 0x7F || also.find(in[i]) != std::string_view::npos)
      return i;
  return std::string_view::npos;
}

// Transcodes `in` to UTF-8 with ICU, stopping at the first byte sequence the
// encoding does not define. Returns an error message, empty on success.
std::string transcode(const Codec& c, std::string_view in, std::string& out) {
  UErrorCode st = U_ZERO_ERROR;
  UConverter* cv = ucnv_open(std::string(c.arg).c_str(), &st);
  if (U_FAILURE(st)) return "unknown encoding: " + std::string(c.module);
  ucnv_setToUCallBack(cv, UCNV_TO_U_CALLBACK_STOP, nullptr, nullptr, nullptr, &st);
  std::u16string wide;
  wide.reserve(in.size());
  const char* src = in.data();
  const char* const src_end = src + in.size();
  UChar buf[4096];
  for (;;) {
    UChar* t = buf;
    st = U_ZERO_ERROR;
    ucnv_toUnicode(cv, &t, buf + std::size(buf), &src, src_end, nullptr, true, &st);
    wide.append(reinterpret_cast<const char16_t*>(buf), static_cast<size_t>(t - buf));
    if (st != U_BUFFER_OVERFLOW_ERROR) break;
  }
  std::string err;
  if (U_FAILURE(st)) {
    char bad[32];
    int8_t len = sizeof bad;
    UErrorCode st2 = U_ZERO_ERROR;
    ucnv_getInvalidChars(cv, bad, &len, &st2);
    const size_t at = static_cast<size_t>(src - in.data()) - static_cast<size_t>(len > 0 ? len : 0);
    const bool wide = !c.python_name.empty();  // the UTF-16/32/7 family
    err = decode_failure(wide ? c.python_name : c.module,
                         static_cast<unsigned char>(len > 0 ? bad[0] : in[at]), at,
                         wide ? "illegal encoding" : "illegal multibyte sequence");
  }
  ucnv_close(cv);
  if (!err.empty()) return err;
  int32_t need = 0;
  st = U_ZERO_ERROR;
  const auto* w = reinterpret_cast<const UChar*>(wide.data());
  u_strToUTF8(nullptr, 0, &need, w, static_cast<int32_t>(wide.size()), &st);
  out.resize(static_cast<size_t>(need));
  st = U_ZERO_ERROR;
  u_strToUTF8(out.data(), need, &need, w, static_cast<int32_t>(wide.size()), &st);
  return U_FAILURE(st) ? "unknown decode error" : "";
}

bool fail(SourceFile& out, DiagSink& diags, uint32_t at, std::string message) {
  out.text = out.bytes;
  out.lines = LineIndex(out.text);
  diags.error("SyntaxError", Span{at, at}, std::move(message));
  return false;
}

/// An encoding neither CPython nor this build knows: often a codec that a
/// package registers when imported (`# -*- coding: future_fstrings -*-`,
/// `pyxl`), which rewrites the source before CPython decodes it. When the
/// bytes are valid UTF-8 they are read as UTF-8 and the file is analyzed,
/// with a note at the declaration; otherwise it is CPython's SyntaxError.
bool read_as_utf8(SourceFile& out, DiagSink& diags, std::string_view body, uint32_t at,
                  const std::string& spec) {
  uint32_t bad = 0;
  if (!detail::utf8_error(body, bad).empty()) return fail(out, diags, 0, "unknown encoding: " + spec);
  Diagnostic d;
  d.code = "UnknownEncoding";
  d.severity = Severity::Note;
  d.span = Span{at, at};
  d.message = "unknown encoding " + spec + ", read as UTF-8";
  diags.report(std::move(d));
  out.text = body;
  out.lines = LineIndex(out.text);
  out.unknown_encoding = spec;
  return true;
}

}  // namespace

bool make_source(std::string path, std::string bytes, SourceFile& out, DiagSink& diags) {
  out = SourceFile{};
  out.path = std::move(path);
  out.bytes = std::move(bytes);
  // Spans are 32-bit offsets.
  if (out.bytes.size() >= 0xFFFFFFFFu) return fail(out, diags, 0, "source file is 4 GiB or larger");
  if (const void* nul = std::memchr(out.bytes.data(), 0, out.bytes.size())) {
    const auto at = static_cast<uint32_t>(static_cast<const char*>(nul) - out.bytes.data());
    return fail(out, diags, at, "source code string cannot contain null bytes");
  }
  std::string_view body = out.bytes;
  const bool bom = body.substr(0, 3) == kBom;
  if (bom) body.remove_prefix(3);

  size_t next = 0;
  const std::string_view line1 = first_line(body, next);
  std::optional<std::string> spec = coding_spec(line1);
  std::string_view spec_line = line1;  // the line declaring it (for the note's position)
  if (!spec && blank_or_comment(line1) && next < body.size()) {
    size_t unused = 0;
    spec_line = first_line(body.substr(next), unused);
    spec = coding_spec(spec_line);
  }
  const size_t coding = spec_line.find("coding");
  const auto spec_at = static_cast<uint32_t>(
      (spec_line.data() - body.data()) + (coding == std::string_view::npos ? 0 : coding));
  out.text = body;
  if (spec && *spec != "utf-8") {
    if (bom) return fail(out, diags, 0, "encoding problem: " + *spec + " with BOM");
    PyKind kind = PyKind::Other;
    const std::string_view module = find_module(*spec, kind);
    if (module.empty()) return read_as_utf8(out, diags, body, spec_at, *spec);
    if (kind == PyKind::Binary)
      return fail(out, diags, 0,
                  "'" + *spec +
                      "' is not a text encoding; use codecs.decode() to handle arbitrary codecs");
    if (const PyCharmap* map = find_charmap(module)) {
      std::string m = decode_charmap(*map, body, out.utf8);
      if (!m.empty()) return fail(out, diags, 0, std::move(m));
      out.text = out.utf8;
    } else if (const Codec* codec = find_text_codec(module)) {
      switch (codec->family) {
        case Family::Utf8: {
          // A utf-8 alias CPython does not normalize: it decodes the whole file.
          uint32_t at = 0;
          std::string m = detail::utf8_error(body, at);
          if (!m.empty()) return fail(out, diags, 0, std::move(m));
          break;
        }
        case Family::Ascii:
          if (const size_t at = first_non_ascii(body, ""); at != std::string_view::npos)
            return fail(out, diags, 0,
                        decode_failure("ascii", static_cast<unsigned char>(body[at]), at,
                                       "ordinal not in range(128)"));
          break;
        case Family::Icu: {
          std::string m = transcode(*codec, body, out.utf8);
          if (!m.empty()) return fail(out, diags, 0, std::move(m));
          out.text = out.utf8;
          break;
        }
        case Family::AsciiOnly:
          // Python can read it; this build cannot, and says so rather than guess.
          if (const size_t at = first_non_ascii(body, codec->arg); at != std::string_view::npos) {
            const auto pos = static_cast<uint32_t>(at);
            diags.error("UnsupportedEncoding", Span{pos, pos},
                        "CPython reads this file, but tpf-analyze decodes '" + std::string(module) +
                            "' only as plain ASCII" +
                            (codec->arg.empty() ? "" : " without escape characters") +
                            ", and this byte is not: save the file as UTF-8 to analyze it");
            out.text = out.bytes;
            out.lines = LineIndex(out.text);
            return false;
          }
          break;
        case Family::Reject:
          return fail(out, diags, 0, std::string(codec->arg));
      }
    } else {
      return read_as_utf8(out, diags, body, spec_at, *spec);
    }
  }
  out.lines = LineIndex(out.text);
  return true;
}

bool load_source(const std::string& path, SourceFile& out, DiagSink& diags) {
  auto io_error = [&](int err) {
    out = SourceFile{};
    out.path = path;
    diags.error("OSError", Span{},
                "can't open file '" + path + "': [Errno " + std::to_string(err) + "] " +
                    std::strerror(err));
    return false;
  };
  // O_NONBLOCK: opening a FIFO without a writer must not block. Only regular
  // files are read: a FIFO, a socket or /dev/zero could hang or never end.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error(errno);
  struct stat st {};
  auto refuse = [&](const char* why) {
    ::close(fd);
    out = SourceFile{};
    out.path = path;
    diags.error("OSError", Span{}, "can't open file '" + path + "': " + why);
    return false;
  };
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return io_error(err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return io_error(EISDIR);
  }
  if (!S_ISREG(st.st_mode)) return refuse("not a regular file");
  // Spans are 32-bit byte offsets.
  if (st.st_size >= static_cast<off_t>(UINT32_MAX)) return refuse("file is 4 GiB or larger");
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  // One byte more than the size, so a regular file ends with a short read.
  std::string bytes;
  bytes.resize(st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1 : 4096);
  size_t got = 0;
  for (;;) {
    if (got == bytes.size()) {  // a file that grew while being read
      if (bytes.size() >= UINT32_MAX / 2) return refuse("file is 4 GiB or larger");
      bytes.resize(bytes.size() * 2);
    }
    const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return io_error(err);
    }
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(got);
  return make_source(path, std::move(bytes), out, diags);
}

}  // namespace lexer
}  // namespace tpf
