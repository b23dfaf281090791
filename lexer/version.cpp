// Parsing of Python version names and requires-python specifiers.
// requires: nothing. produces: PyVersion.
#include "lexer/version.h"

#include <cctype>
#include <vector>

namespace tpf {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Leading decimal number of `s` (consumed); -1 when there is none.
int take_number(std::string_view& s) {
  int v = -1;
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i < 6) {
    v = (v < 0 ? 0 : v * 10) + (s[i] - '0');
    ++i;
  }
  if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
  s.remove_prefix(i);
  return v;
}

bool in_range(int major, int minor) {
  return major == 3 && minor >= kOldestPy.minor && minor <= kNewestPy.minor;
}

}  // namespace

std::optional<PyVersion> parse_py_version(std::string_view text) {
  std::string_view s = trim(text);
  const bool py = s.size() >= 2 && (s[0] == 'p' || s[0] == 'P') && (s[1] == 'y' || s[1] == 'Y');
  if (py) s.remove_prefix(2);  // py312 / py38
  if (py || s.find('.') == std::string_view::npos) {
    // 312 / 38
    if (s.size() < 2 || s.size() > 3 || s[0] != '3') return std::nullopt;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    int minor = std::stoi(std::string(s.substr(1)));
    if (!in_range(3, minor)) return std::nullopt;
    return PyVersion{3, static_cast<uint8_t>(minor)};
  }
  int major = take_number(s);
  if (major < 0 || s.empty() || s[0] != '.') return std::nullopt;
  s.remove_prefix(1);
  int minor = take_number(s);
  if (minor < 0) return std::nullopt;
  if (!s.empty()) {
    if (s[0] != '.') return std::nullopt;
    s.remove_prefix(1);
    if (take_number(s) < 0 || !s.empty()) return std::nullopt;
  }
  if (!in_range(major, minor)) return std::nullopt;
  return PyVersion{3, static_cast<uint8_t>(minor)};
}

std::optional<PyVersion> lowest_required_python(std::string_view spec) {
  // Clauses are comma-separated; the lowest admitted version is the highest
  // lower bound among them.
  std::optional<int> lower;  // minor of 3.x
  bool any = false;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    std::string_view clause =
        trim(spec.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    start = comma == std::string_view::npos ? spec.size() + 1 : comma + 1;
    if (clause.empty()) continue;
    std::string_view op;
    for (std::string_view candidate : {"===", "~=", "==", ">=", "<=", "!=", ">", "<"}) {
      if (clause.substr(0, candidate.size()) == candidate) {
        op = candidate;
        break;
      }
    }
    if (op.empty()) return std::nullopt;
    std::string_view v = trim(clause.substr(op.size()));
    int major = take_number(v);
    if (major < 0) return std::nullopt;
    int minor = 0;
    bool has_minor = false;
    if (!v.empty() && v[0] == '.') {
      v.remove_prefix(1);
      if (!v.empty() && v[0] == '*') {
        v.remove_prefix(1);
      } else {
        minor = take_number(v);
        if (minor < 0) return std::nullopt;
        has_minor = true;
      }
    }
    // Micro versions and wildcards do not change the minor bound, except
    // that ">3.9.x" still admits 3.9.
    bool has_micro = false;
    while (!v.empty() && v[0] == '.') {
      v.remove_prefix(1);
      if (!v.empty() && v[0] == '*') {
        v.remove_prefix(1);
      } else if (take_number(v) < 0) {
        return std::nullopt;
      }
      has_micro = true;
    }
    if (!trim(v).empty()) return std::nullopt;
    int bound = -1;
    if (op == ">=" || op == "~=" || op == "==" || op == "===") {
      bound = major > 3 ? 99 : major < 3 ? 0 : minor;
    } else if (op == ">") {
      bound = major > 3 ? 99 : major < 3 ? 0 : (has_micro || !has_minor ? minor : minor + 1);
    }
    if (bound >= 0) {
      any = true;
      if (!lower || bound > *lower) lower = bound;
    }
  }
  if (!any) return std::nullopt;
  int minor = *lower;
  if (minor < kOldestPy.minor) minor = kOldestPy.minor;
  if (minor > kNewestPy.minor) minor = kNewestPy.minor;
  return PyVersion{3, static_cast<uint8_t>(minor)};
}

}  // namespace tpf
