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
      out.list = Span{base + static_cast<uint32_t>(i + 1), base + static_cast<uint32_t>(close)};
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
    if (!codes.empty()) out.list = Span{codes.front().span.begin, codes.back().span.end};
    out.noqa = true;
    for (SuppressedCode& c : codes)
      if (c.code.starts_with("TPF")) out.codes.push_back(std::move(c));
    if (out.codes.empty()) return false;  // `noqa: E501`: another linter's
  } else {
    return false;
  }
  out.span = Span{base + static_cast<uint32_t>(start), base + static_cast<uint32_t>(i)};
  return true;
}

/// Where line `line` (1-based) ends, before its line break.
uint32_t line_end(const SourceFile& src, uint32_t line) {
  uint32_t end = line < src.lines.line_count() ? src.lines.line_start(line + 1)
                                                : static_cast<uint32_t>(src.text.size());
  if (end > src.lines.line_start(line) && src.text[end - 1] == '\n') --end;
  if (end > src.lines.line_start(line) && src.text[end - 1] == '\r') --end;
  return end;
}

/// The order codes are listed in: a rule's code for anything naming a
/// rule (so `tpf003` and a slug sort as their codes), else the text upper-cased.
std::string sort_key(std::string_view word) {
  const checks::RuleInfo* r = checks::find_rule(word);
  return r ? std::string(r->code) : upper(word);
}

}  // namespace

bool names_rule(const SuppressedCode& c, std::string_view code) {
  if (c.code == code) return true;
  const checks::RuleInfo* r = checks::find_rule(c.code);
  return r && r->code == code;
}

uint32_t CommentLines::target(uint32_t line) const {
  auto it = std::upper_bound(joined.begin(), joined.end(), line,
                             [](uint32_t l, const std::pair<uint32_t, uint32_t>& j) { return l < j.first; });
  if (it == joined.begin()) return line;
  --it;
  return line <= it->second ? it->second : line;
}

CommentLines compute_comment_lines(const SourceFile& src, std::span<const lexer::Token> tokens) {
  std::vector<std::pair<uint32_t, uint32_t>> spans;
  std::string_view text = src.text;
  for (const lexer::Token& t : tokens) {
    if (t.kind == lexer::TokKind::String && t.end > t.begin) {
      uint32_t first = src.pos(t.begin).line, last = src.pos(t.end - 1).line;
      if (first != last) spans.emplace_back(first, last);
    }
    if (t.flags & lexer::kAfterContinuation) {
      // Back over the blanks, line breaks and backslashes before the token:
      // the first backslash is on the first continued line.
      uint32_t p = std::min<uint32_t>(t.begin, static_cast<uint32_t>(text.size()));
      uint32_t first = src.pos(p).line;
      while (p > 0) {
        char c = text[p - 1];
        if (c == '\\') first = src.pos(p - 1).line;
        else if (c != ' ' && c != '\t' && c != '\f' && c != '\r' && c != '\n') break;
        --p;
      }
      uint32_t last = src.pos(t.begin).line;
      if (first != last) spans.emplace_back(first, last);
    }
  }
  std::sort(spans.begin(), spans.end());
  CommentLines out;
  for (const auto& s : spans) {
    if (!out.joined.empty() && s.first <= out.joined.back().second)
      out.joined.back().second = std::max(out.joined.back().second, s.second);
    else
      out.joined.push_back(s);
  }
  return out;
}

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

void apply_suppressions(const SourceFile& src, const CommentLines& lines, std::vector<Suppression>& sups,
                        std::vector<Diagnostic>& findings) {
  if (sups.empty()) return;
  std::erase_if(findings, [&](const Diagnostic& d) {
    uint32_t line = src.pos(d.span.begin).line;
    uint32_t target = lines.target(line);
    bool hit = false;
    for (Suppression& s : sups) {
      if (s.line != line && s.line != target) continue;
      if (s.all) {
        s.used_all = hit = true;
        continue;
      }
      for (SuppressedCode& c : s.codes)
        if (names_rule(c, d.code)) c.used = hit = true;
    }
    return hit;
  });
}

std::optional<Edit> suppression_edit(const SourceFile& src, std::span<const Suppression> sups, uint32_t line,
                                     std::span<const std::string> codes) {
  if (line == 0 || line > src.lines.line_count() || codes.empty()) return std::nullopt;
  // Into the line's first `tpf: ignore[...]`, else its first `noqa: TPF...`.
  const Suppression* into = nullptr;
  for (const Suppression& s : sups) {
    if (s.line != line) continue;
    if (s.all) return std::nullopt;  // it silences every rule already
    if (!into || (into->noqa && !s.noqa)) into = &s;
  }
  auto join = [](const std::vector<std::string>& words) {
    std::string out;
    for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
    return out;
  };
  if (!into) {
    uint32_t begin = src.lines.line_start(line), eol = line_end(src, line), at = eol;
    while (at > begin && (src.text[at - 1] == ' ' || src.text[at - 1] == '\t' || src.text[at - 1] == '\f')) --at;
    std::string add = at == begin ? "" : "  ";
    add += "# tpf: ignore[" + join({codes.begin(), codes.end()}) + "]";
    return Edit{Span{at, eol}, add};
  }
  std::vector<std::string> words;
  std::string_view list = src.text.substr(into->list.begin, into->list.end - into->list.begin);
  for (size_t i = 0; i < list.size();) {
    if (list[i] == ',' || is_space(list[i])) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < list.size() && list[i] != ',' && !is_space(list[i])) ++i;
    words.emplace_back(list.substr(b, i - b));
  }
  bool added = false;
  for (const std::string& code : codes) {
    bool named = false;
    for (const SuppressedCode& c : into->codes) named |= names_rule(c, code);
    if (!named) words.push_back(code), added = true;
  }
  if (!added) return std::nullopt;
  std::stable_sort(words.begin(), words.end(),
                   [](const std::string& a, const std::string& b) { return sort_key(a) < sort_key(b); });
  return Edit{into->list, join(words)};
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
