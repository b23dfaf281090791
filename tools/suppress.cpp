// Inline suppressions: finds `tpf: ignore[...]` and `noqa: ...` directives
// in comments, filters the findings they cover, and reports the unused ones.
// A comment may hold several directives (`# tpf: ignore[TPF003]  # noqa: E501`):
// every `#` in it starts a candidate. Keywords are matched case-insensitively,
// as flake8 matches `noqa`.
// requires: the lexer's comment spans. produces: filtered findings, warnings.
#include "tools/suppress.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace tpf::tools {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }

/// Whether `text` at `i` starts with `word` (ASCII, any case).
bool starts_with_word(std::string_view text, size_t i, std::string_view word) {
  if (text.size() - i < word.size()) return false;
  for (size_t k = 0; k < word.size(); ++k)
    if (std::tolower(static_cast<unsigned char>(text[i + k])) != word[k]) return false;
  return true;
}

bool is_code_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

/// Reads codes separated by commas or blanks from `i`, stopping at `stop`
/// (']' for tpf:, end of comment or '#' for noqa:). Offsets are made
/// absolute with `base`.
size_t read_codes(std::string_view text, size_t i, uint32_t base, bool until_bracket,
                  std::vector<SuppressedCode>& out) {
  while (i < text.size()) {
    char c = text[i];
    if (until_bracket && c == ']') return i;
    if (!until_bracket && c == '#') return i;
    if (is_space(c) || c == ',') {
      ++i;
      continue;
    }
    if (!is_code_char(c)) return i;
    size_t b = i;
    while (i < text.size() && is_code_char(text[i])) ++i;
    std::string_view word = text.substr(b, i - b);
    // Slugs (lowercase, with underscores) name rules too in `tpf: ignore`.
    bool slug = word.find('_') != std::string_view::npos;
    out.push_back({slug ? std::string(word) : upper(word),
                   Span{base + static_cast<uint32_t>(b), base + static_cast<uint32_t>(i)}});
  }
  return i;
}

/// A directive starting right after a `#` at `at` in the comment `text`.
bool parse_directive(std::string_view text, size_t at, uint32_t base, Suppression& out) {
  size_t i = at;
  while (i < text.size() && is_space(text[i])) ++i;
  size_t start = i;
  if (starts_with_word(text, i, "tpf:")) {
    i += 4;
    while (i < text.size() && is_space(text[i])) ++i;
    if (!starts_with_word(text, i, "ignore")) return false;
    i += 6;
    if (i < text.size() && text[i] == '[') {
      size_t close = read_codes(text, i + 1, base, true, out.codes);
      if (close >= text.size() || text[close] != ']') return false;  // malformed: not a directive
      i = close + 1;
    } else if (i < text.size() && !is_space(text[i]) && text[i] != '#') {
      return false;  // `tpf: ignored`, ...
    } else {
      out.all = true;
    }
  } else if (starts_with_word(text, i, "noqa")) {
    i += 4;
    size_t j = i;
    while (j < text.size() && is_space(text[j])) ++j;
    if (j >= text.size() || text[j] != ':') return false;  // bare `noqa`: not ours
    std::vector<SuppressedCode> codes;
    i = read_codes(text, j + 1, base, false, codes);
    for (SuppressedCode& c : codes)
      if (c.code.starts_with("TPF")) out.codes.push_back(std::move(c));
    if (out.codes.empty()) return false;  // `noqa: E501`: another linter's
  } else {
    return false;
  }
  out.span = Span{base + static_cast<uint32_t>(start), base + static_cast<uint32_t>(i)};
  return true;
}

bool names(const SuppressedCode& c, const Diagnostic& d) {
  if (c.code == d.code) return true;
  const checks::RuleInfo* r = checks::find_rule(c.code);
  return r && r->code == d.code;
}

}  // namespace

std::vector<Suppression> parse_suppressions(const SourceFile& src, std::span<const Span> comments) {
  std::vector<Suppression> out;
  for (Span c : comments) {
    std::string_view text = src.text.substr(c.begin, c.end - c.begin);
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '#') continue;
      Suppression s;
      if (!parse_directive(text, i + 1, c.begin, s)) continue;
      s.line = src.pos(c.begin).line;
      i = s.span.end - c.begin - 1;
      out.push_back(std::move(s));
    }
  }
  return out;
}

void apply_suppressions(const SourceFile& src, std::vector<Suppression>& sups,
                        std::vector<Diagnostic>& findings) {
  if (sups.empty()) return;
  std::erase_if(findings, [&](const Diagnostic& d) {
    uint32_t line = src.pos(d.span.begin).line;
    bool hit = false;
    for (Suppression& s : sups) {
      if (s.line != line) continue;
      if (s.all) {
        s.used_all = hit = true;
        continue;
      }
      for (SuppressedCode& c : s.codes)
        if (names(c, d)) c.used = hit = true;
    }
    return hit;
  });
}

std::vector<Diagnostic> unused_suppressions(const std::vector<Suppression>& sups,
                                            const checks::RunOptions& run) {
  std::vector<Diagnostic> out;
  auto warn = [&](Span span, std::string message, std::string help) {
    Diagnostic d;
    d.code = std::string(kUnusedSuppression);
    d.severity = Severity::Warning;
    d.span = span;
    d.message = std::move(message);
    d.help = std::move(help);
    out.push_back(std::move(d));
  };
  for (const Suppression& s : sups) {
    if (s.all) {
      if (!s.used_all)
        warn(s.span, "`# tpf: ignore` suppresses nothing: no finding on this line",
             "remove the comment");
      continue;
    }
    for (const SuppressedCode& c : s.codes) {
      if (c.used) continue;
      const checks::RuleInfo* r = checks::find_rule(c.code);
      if (!r) {
        warn(c.span, "unknown rule `" + c.code + "` in a suppression", "see `tpf-analyze --list-rules`");
      } else if (run.enabled[static_cast<size_t>(r->id)]) {
        warn(c.span,
             "unused suppression of `" + std::string(r->code) + "`: no " + std::string(r->code) +
                 " finding on this line",
             "remove `" + c.code + "` from the comment");
      }
    }
  }
  return out;
}

}  // namespace tpf::tools
