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

enum class Family : uint8_t { Utf8, Ascii, Charmap, Multibyte, Wide };

struct Codec {
  std::string_view key;  // Python's name, lowercased, without '-', '_', ' ', '.'
  std::string_view icu;  // ICU converter name
  Family family;
};

// Python's text codecs (and their common aliases) that ICU provides.
constexpr Codec kCodecs[] = {
    {"utf8", "UTF-8", Family::Utf8},
    {"u8", "UTF-8", Family::Utf8},
    {"utf", "UTF-8", Family::Utf8},
    {"cp65001", "UTF-8", Family::Utf8},
    {"ascii", "US-ASCII", Family::Ascii},
    {"usascii", "US-ASCII", Family::Ascii},
    {"646", "US-ASCII", Family::Ascii},
    {"us", "US-ASCII", Family::Ascii},
    {"latin1", "ISO-8859-1", Family::Charmap},
    {"latin", "ISO-8859-1", Family::Charmap},
    {"l1", "ISO-8859-1", Family::Charmap},
    {"iso88591", "ISO-8859-1", Family::Charmap},
    {"8859", "ISO-8859-1", Family::Charmap},
    {"cp819", "ISO-8859-1", Family::Charmap},
    {"iso88592", "ISO-8859-2", Family::Charmap},
    {"latin2", "ISO-8859-2", Family::Charmap},
    {"iso88593", "ISO-8859-3", Family::Charmap},
    {"iso88594", "ISO-8859-4", Family::Charmap},
    {"iso88595", "ISO-8859-5", Family::Charmap},
    {"cyrillic", "ISO-8859-5", Family::Charmap},
    {"iso88596", "ISO-8859-6", Family::Charmap},
    {"arabic", "ISO-8859-6", Family::Charmap},
    {"iso88597", "ISO-8859-7", Family::Charmap},
    {"greek", "ISO-8859-7", Family::Charmap},
    {"iso88598", "ISO-8859-8", Family::Charmap},
    {"hebrew", "ISO-8859-8", Family::Charmap},
    {"iso88599", "ISO-8859-9", Family::Charmap},
    {"latin5", "ISO-8859-9", Family::Charmap},
    {"iso885910", "ISO-8859-10", Family::Charmap},
    {"iso885911", "ISO-8859-11", Family::Charmap},
    {"iso885913", "ISO-8859-13", Family::Charmap},
    {"iso885914", "ISO-8859-14", Family::Charmap},
    {"iso885915", "ISO-8859-15", Family::Charmap},
    {"latin9", "ISO-8859-15", Family::Charmap},
    {"cp037", "ibm-37", Family::Charmap},
    {"cp273", "ibm-273", Family::Charmap},
    {"cp424", "ibm-424", Family::Charmap},
    {"cp437", "ibm-437", Family::Charmap},
    {"cp500", "ibm-500", Family::Charmap},
    {"cp737", "ibm-737", Family::Charmap},
    {"cp775", "ibm-775", Family::Charmap},
    {"cp850", "ibm-850", Family::Charmap},
    {"cp852", "ibm-852", Family::Charmap},
    {"cp855", "ibm-855", Family::Charmap},
    {"cp856", "ibm-856", Family::Charmap},
    {"cp857", "ibm-857", Family::Charmap},
    {"cp858", "ibm-858", Family::Charmap},
    {"cp860", "ibm-860", Family::Charmap},
    {"cp861", "ibm-861", Family::Charmap},
    {"cp862", "ibm-862", Family::Charmap},
    {"cp863", "ibm-863", Family::Charmap},
    {"cp864", "ibm-864", Family::Charmap},
    {"cp865", "ibm-865", Family::Charmap},
    {"cp866", "ibm-866", Family::Charmap},
    {"cp869", "ibm-869", Family::Charmap},
    {"cp874", "windows-874", Family::Charmap},
    {"cp875", "ibm-875", Family::Charmap},
    {"cp1006", "ibm-1006", Family::Charmap},
    {"cp1026", "ibm-1026", Family::Charmap},
    {"cp1125", "ibm-1125", Family::Charmap},
    {"cp1140", "ibm-1140", Family::Charmap},
    {"cp1250", "windows-1250", Family::Charmap},
    {"cp1251", "windows-1251", Family::Charmap},
    {"cp1252", "windows-1252", Family::Charmap},
    {"cp1253", "windows-1253", Family::Charmap},
    {"cp1254", "windows-1254", Family::Charmap},
    {"cp1255", "windows-1255", Family::Charmap},
    {"cp1256", "windows-1256", Family::Charmap},
    {"cp1257", "windows-1257", Family::Charmap},
    {"cp1258", "windows-1258", Family::Charmap},
    {"windows1250", "windows-1250", Family::Charmap},
    {"windows1251", "windows-1251", Family::Charmap},
    {"windows1252", "windows-1252", Family::Charmap},
    {"windows1253", "windows-1253", Family::Charmap},
    {"windows1254", "windows-1254", Family::Charmap},
    {"windows1255", "windows-1255", Family::Charmap},
    {"windows1256", "windows-1256", Family::Charmap},
    {"windows1257", "windows-1257", Family::Charmap},
    {"windows1258", "windows-1258", Family::Charmap},
    {"koi8r", "KOI8-R", Family::Charmap},
    {"koi8u", "KOI8-U", Family::Charmap},
    {"macroman", "macintosh", Family::Charmap},
    {"macintosh", "macintosh", Family::Charmap},
    {"maccyrillic", "x-mac-cyrillic", Family::Charmap},
    {"macgreek", "x-mac-greek", Family::Charmap},
    {"macturkish", "x-mac-turkish", Family::Charmap},
    {"maclatin2", "x-mac-centraleurroman", Family::Charmap},
    {"tis620", "TIS-620", Family::Charmap},
    {"shiftjis", "Shift_JIS", Family::Multibyte},
    {"sjis", "Shift_JIS", Family::Multibyte},
    {"cp932", "windows-31j", Family::Multibyte},
    {"eucjp", "EUC-JP", Family::Multibyte},
    {"gb2312", "GB2312", Family::Multibyte},
    {"gbk", "GBK", Family::Multibyte},
    {"cp936", "GBK", Family::Multibyte},
    {"gb18030", "GB18030", Family::Multibyte},
    {"big5", "Big5", Family::Multibyte},
    {"big5hkscs", "Big5-HKSCS", Family::Multibyte},
    {"cp950", "windows-950", Family::Multibyte},
    {"euckr", "EUC-KR", Family::Multibyte},
    {"cp949", "windows-949", Family::Multibyte},
    {"iso2022jp", "ISO-2022-JP", Family::Multibyte},
    {"iso2022kr", "ISO-2022-KR", Family::Multibyte},
    {"hz", "HZ", Family::Multibyte},
    {"utf16", "UTF-16", Family::Wide},
    {"utf16le", "UTF-16LE", Family::Wide},
    {"utf16be", "UTF-16BE", Family::Wide},
    {"utf32", "UTF-32", Family::Wide},
    {"utf32le", "UTF-32LE", Family::Wide},
    {"utf32be", "UTF-32BE", Family::Wide},
    {"utf7", "UTF-7", Family::Wide},
};

// Python's bytes-to-bytes codecs: known, but not text encodings.
constexpr std::string_view kBinaryCodecs[] = {
    "base64",   "base64codec", "bz2",         "bz2codec",        "hex",
    "hexcodec", "quopri",      "quopricodec", "quotedprintable", "uu",
    "uucodec",  "zip",         "zlib",        "zlibcodec",       "rot13",
};

std::string codec_key(std::string_view name) {
  std::string k;
  for (char c : name)
    if (c != '-' && c != '_' && c != ' ' && c != '.') k += ascii_lower(c);
  return k;
}

std::string python_codec_name(const Codec& c) {
  switch (c.family) {
    case Family::Ascii:
      return "ascii";
    case Family::Charmap:
      return "charmap";
    default: {
      std::string n;
      for (char ch : c.icu) n += ch == '-' ? '_' : ascii_lower(ch);
      return n;
    }
  }
}

std::string decode_failure(const Codec& c, unsigned char byte, size_t at) {
  const char* reason = c.family == Family::Ascii       ? "ordinal not in range(128)"
                       : c.family == Family::Charmap   ? "character maps to <undefined>"
                       : c.family == Family::Multibyte ? "illegal multibyte sequence"
                                                       : "illegal encoding";
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%02x in position %zu: ", byte, at);
  return "'" + python_codec_name(c) + "' codec can't decode byte " + buf + reason;
}

// Transcodes `in` to UTF-8 with ICU, stopping at the first byte sequence the
// encoding does not define. Returns an error message, empty on success.
std::string transcode(const Codec& c, std::string_view in, std::string& out) {
  UErrorCode st = U_ZERO_ERROR;
  UConverter* cv = ucnv_open(std::string(c.icu).c_str(), &st);
  if (U_FAILURE(st)) return "unknown encoding: " + std::string(c.key);
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
    err = decode_failure(c, static_cast<unsigned char>(len > 0 ? bad[0] : in[at]), at);
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
  if (!spec && blank_or_comment(line1) && next < body.size()) {
    size_t unused = 0;
    spec = coding_spec(first_line(body.substr(next), unused));
  }
  out.text = body;
  if (spec && *spec != "utf-8") {
    if (bom) return fail(out, diags, 0, "encoding problem: " + *spec + " with BOM");
    const std::string key = codec_key(*spec);
    for (std::string_view binary : kBinaryCodecs)
      if (key == binary)
        return fail(out, diags, 0,
                    "'" + *spec +
                        "' is not a text encoding; use codecs.decode() to handle arbitrary codecs");
    const Codec* codec = nullptr;
    for (const Codec& c : kCodecs)
      if (c.key == key) codec = &c;
    if (!codec) return fail(out, diags, 0, "unknown encoding: " + *spec);
    if (codec->family == Family::Utf8) {
      // A utf-8 alias CPython does not normalize: it decodes the whole file.
      uint32_t at = 0;
      std::string m = detail::utf8_error(body, at);
      if (!m.empty()) return fail(out, diags, 0, std::move(m));
    } else {
      std::string m = transcode(*codec, body, out.utf8);
      if (!m.empty()) return fail(out, diags, 0, std::move(m));
      out.text = out.utf8;
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
