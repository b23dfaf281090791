// Compares decode_str / decode_bytes / lookup_char_name with python3.11 on the
// cases literal_corpus.py wrote (corpus tokens, random escapes, every name).
// requires: the .bin file named on the command line. produces: a summary line,
// exit 1 on any mismatch (the first few are printed), and with a second
// argument one JSON string per decoded value (append_json_*) for literal_corpus.py
// to read back with json.loads.
#include <unicode/uchar.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <unordered_map>

#include "parser/literals.h"

namespace {

using tpf::parser::LiteralError;

// A cursor over the record file; a short read marks it failed.
struct Reader {
  std::string data;
  size_t pos = 0;
  bool failed = false;

  bool at_end() const { return pos >= data.size(); }
  char byte() {
    if (pos >= data.size()) {
      failed = true;
      return 0;
    }
    return data[pos++];
  }
  uint32_t u32() {
    if (data.size() - pos < 4) {
      failed = true;
      pos = data.size();
      return 0;
    }
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k)
      v |= static_cast<uint32_t>(static_cast<unsigned char>(data[pos + k])) << (8 * k);
    pos += 4;
    return v;
  }
  std::string_view blob() {
    const uint32_t n = u32();
    if (data.size() - pos < n) {
      failed = true;
      pos = data.size();
      return {};
    }
    std::string_view s(data.data() + pos, n);
    pos += n;
    return s;
  }
};

// Printable form of a value for mismatch reports.
std::string shown(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 160)) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

constexpr int kMaxReports = 20;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: literal_corpus_check FILE.bin [VALUES.jsonl]\n");
    return 2;
  }
  Reader r;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "literal_corpus_check: cannot read %s\n", argv[1]);
      return 2;
    }
    r.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  long literals = 0, literal_errors = 0, literal_bad = 0, names = 0, names_bad = 0;
  int reports = 0;
  auto report = [&](const std::string& what) {
    if (reports++ < kMaxReports) std::printf("MISMATCH %s\n", what.c_str());
  };
  std::unordered_map<std::string, int32_t> python_names;
  std::ofstream json_out;
  if (argc == 3) json_out.open(argv[2], std::ios::binary);
  std::string json;
  while (!r.at_end() && !r.failed) {
    const char tag = r.byte();
    if (tag == 'L') {
      const char kind = r.byte();
      const std::string_view body = r.blob();
      const bool ok = r.byte() == '1';
      const std::string_view expected = r.blob();
      const std::string_view where = r.blob();
      std::string got;
      const bool raw = kind == 'S' || kind == 'B';
      const LiteralError e = (kind == 's' || kind == 'S')
                                 ? tpf::parser::decode_str(body, raw, got)
                                 : tpf::parser::decode_bytes(body, raw, got);
      ++literals;
      literal_errors += ok ? 0 : 1;
      const bool same = ok ? (e.ok && got == expected) : (!e.ok && e.message == expected);
      if (ok && json_out.is_open()) {
        json.clear();
        if (kind == 's' || kind == 'S') {
          tpf::parser::append_json_string(got, json);
        } else {
          tpf::parser::append_json_latin1(got, json);
        }
        json += '\n';
        json_out << json;
      }
      if (!same) {
        ++literal_bad;
        report(std::string(where) + " kind " + kind + " body '" + shown(body) + "': want " +
               (ok ? "value '" : "error '") + shown(expected) + "', got " +
               (e.ok ? "value '" + shown(got) : "error '" + shown(e.message)) + "'");
      }
    } else if (tag == 'N') {
      const std::string name(r.blob());
      const uint32_t raw_code = r.u32();
      const auto code = static_cast<int32_t>(raw_code);
      python_names.emplace(name, code);
      ++names;
      const int32_t got = tpf::parser::lookup_char_name(name);
      if (got != code) {
        ++names_bad;
        report("name '" + shown(name) + "': want " + std::to_string(code) + ", got " +
               std::to_string(got));
      }
    } else {
      r.failed = true;
    }
  }
  if (r.failed) {
    std::fprintf(stderr, "literal_corpus_check: malformed record at byte %zu\n", r.pos);
    return 2;
  }
  // The other direction: a name ICU knows but python3.11 does not list (new
  // in Unicode 15, Tangut ideographs, ...) must be unknown to us too.
  long icu_only = 0;
  if (!python_names.empty()) {
    char buf[256];
    for (UChar32 c = 0; c <= 0x10FFFF; ++c) {
      UErrorCode status = U_ZERO_ERROR;
      const int32_t len = u_charName(c, U_UNICODE_CHAR_NAME, buf, sizeof buf, &status);
      if (U_FAILURE(status) || len <= 0) continue;
      const std::string name(buf, static_cast<size_t>(len));
      if (python_names.count(name) != 0) continue;
      ++icu_only;
      ++names;
      if (tpf::parser::lookup_char_name(name) != -1) {
        ++names_bad;
        report("ICU-only name '" + name + "' is accepted");
      }
    }
  }
  std::printf(
      "literal_corpus_check: literals=%ld (errors expected: %ld) literal_mismatches=%ld "
      "names=%ld (icu-only: %ld) name_mismatches=%ld\n",
      literals, literal_errors, literal_bad, names, icu_only, names_bad);
  const long failed = literal_bad + names_bad;
  std::printf("%ld passed, %ld failed\n", literals + names - failed, failed);
  return failed == 0 ? 0 : 1;
}
