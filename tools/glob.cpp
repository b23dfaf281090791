// glob_match: the pattern is read once into tokens, then matched by dynamic
// programming over (token, position) from the end, two rows of booleans:
// O(tokens x path) time and O(path) memory, whatever the stars. (A
// backtracking matcher took over 30 s for 14 `*` against a 100-character
// name, and patterns come from files a user does not always write.)
#include "tools/glob.h"

#include <vector>

namespace tpf::tools {

namespace {

/// One piece of a pattern.
struct Tok {
  enum Kind : unsigned char { Char, Any, Star, DoubleStar, DoubleStarSlash, Class } kind = Char;
  char c = 0;            ///< Char: the character
  std::string_view set;  ///< Class: the text between `[` and `]` (with a leading `!`/`^`)
};

Tok tok(Tok::Kind k, char c = 0) {
  Tok t;
  t.kind = k;
  t.c = c;
  return t;
}

/// Reads a `[...]` class at p (p points at '['); on success advances p past
/// it and sets the set text. False for an unterminated class (then '[' is
/// taken literally).
bool read_class(std::string_view pat, size_t& p, std::string_view& set) {
  size_t i = p + 1;
  if (i < pat.size() && (pat[i] == '!' || pat[i] == '^')) ++i;
  bool first = true;
  for (; i < pat.size() && (first || pat[i] != ']'); first = false) {
    ++i;
    if (i + 1 < pat.size() && pat[i] == '-' && pat[i + 1] != ']') i += 2;
  }
  if (i >= pat.size()) return false;
  set = pat.substr(p + 1, i - (p + 1));
  p = i + 1;
  return true;
}

bool in_class(std::string_view set, char c) {
  size_t i = 0;
  bool negate = !set.empty() && (set[0] == '!' || set[0] == '^');
  if (negate) ++i;
  bool hit = false;
  while (i < set.size()) {
    char lo = set[i++], hi = lo;
    if (i + 1 < set.size() && set[i] == '-') {
      hi = set[i + 1];
      i += 2;
    }
    if (lo <= c && c <= hi) hit = true;
  }
  return hit != negate;
}

std::vector<Tok> tokens(std::string_view pat) {
  std::vector<Tok> out;
  for (size_t p = 0; p < pat.size();) {
    char c = pat[p];
    if (c == '*') {
      if (p + 1 < pat.size() && pat[p + 1] == '*') {
        bool slash = p + 2 < pat.size() && pat[p + 2] == '/';
        out.push_back(tok(slash ? Tok::DoubleStarSlash : Tok::DoubleStar));
        p += slash ? 3 : 2;
      } else {
        out.push_back(tok(Tok::Star));
        ++p;
      }
      continue;
    }
    if (c == '?') {
      out.push_back(tok(Tok::Any));
      ++p;
      continue;
    }
    if (c == '[') {
      Tok t = tok(Tok::Class);
      if (read_class(pat, p, t.set)) {
        out.push_back(t);
        continue;
      }
    }
    if (c == '\\' && p + 1 < pat.size()) c = pat[++p];
    out.push_back(tok(Tok::Char, c));
    ++p;
  }
  return out;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view path) {
  std::vector<Tok> toks = tokens(pattern);
  const size_t n = path.size();
  // next[i]: the tokens after the current one match path[i..]; cur the same
  // for the current token onwards.
  std::vector<char> next(n + 1, 0), cur(n + 1, 0);
  next[n] = 1;
  for (size_t t = toks.size(); t-- > 0;) {
    const Tok& k = toks[t];
    char after_slash = 0;  // DoubleStarSlash: some k >= i has path[k] == '/' and next[k + 1]
    for (size_t i = n + 1; i-- > 0;) {
      bool here = i < n;
      char ch = here ? path[i] : 0;
      bool m = false;
      switch (k.kind) {
        case Tok::Char: m = here && ch == k.c && next[i + 1]; break;
        case Tok::Any: m = here && ch != '/' && next[i + 1]; break;
        case Tok::Class: m = here && ch != '/' && in_class(k.set, ch) && next[i + 1]; break;
        case Tok::Star: m = next[i] || (here && ch != '/' && cur[i + 1]); break;
        case Tok::DoubleStar: m = next[i] || (here && cur[i + 1]); break;
        case Tok::DoubleStarSlash:
          if (here && ch == '/' && next[i + 1]) after_slash = 1;
          m = next[i] || after_slash;
          break;
      }
      cur[i] = m;
    }
    std::swap(cur, next);
  }
  return next[0];
}

}  // namespace tpf::tools
