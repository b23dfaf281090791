// glob_match: a backtracking matcher. Patterns come from configuration files
// and are short, so the exponential worst case of nested `*` never matters
// in practice; each `**` is tried at every `/` boundary.
#include "tools/glob.h"

namespace tpf::tools {

namespace {

/// Matches a `[...]` class at p (p points at '['); advances p past it.
/// Returns false for an unterminated class (then '[' is taken literally).
bool match_class(std::string_view pat, size_t& p, char c, bool& matched) {
  size_t i = p + 1;
  bool negate = i < pat.size() && (pat[i] == '!' || pat[i] == '^');
  if (negate) ++i;
  bool hit = false;
  bool first = true;
  for (; i < pat.size() && (first || pat[i] != ']'); first = false) {
    char lo = pat[i++];
    char hi = lo;
    if (i + 1 < pat.size() && pat[i] == '-' && pat[i + 1] != ']') {
      hi = pat[i + 1];
      i += 2;
    }
    if (lo <= c && c <= hi) hit = true;
  }
  if (i >= pat.size()) return false;
  p = i + 1;
  matched = hit != negate;
  return true;
}

bool match(std::string_view pat, std::string_view s) {
  size_t p = 0, i = 0;
  while (p < pat.size()) {
    char c = pat[p];
    if (c == '*') {
      if (p + 1 < pat.size() && pat[p + 1] == '*') {
        // `**`: any run, `/` included. `**/` may also match nothing.
        size_t rest = p + 2;
        if (rest < pat.size() && pat[rest] == '/') {
          if (match(pat.substr(rest + 1), s.substr(i))) return true;
        }
        for (size_t k = i; k <= s.size(); ++k)
          if (match(pat.substr(rest), s.substr(k))) return true;
        return false;
      }
      for (size_t k = i; k <= s.size(); ++k) {
        if (match(pat.substr(p + 1), s.substr(k))) return true;
        if (k < s.size() && s[k] == '/') break;
      }
      return false;
    }
    if (i >= s.size()) return false;
    if (c == '?') {
      if (s[i] == '/') return false;
      ++p, ++i;
      continue;
    }
    if (c == '[') {
      bool matched = false;
      size_t q = p;
      if (match_class(pat, q, s[i], matched)) {
        if (!matched || s[i] == '/') return false;
        p = q, ++i;
        continue;
      }
    }
    if (c == '\\' && p + 1 < pat.size()) c = pat[++p];
    if (c != s[i]) return false;
    ++p, ++i;
  }
  return i == s.size();
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) { return match(pattern, path); }

}  // namespace tpf::tools
