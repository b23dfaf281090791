// parse_torch_version and read_torch_pin: the torch release a run uses,
// from a flag's text or the project's dependency pins. A pin such as
// `torch==1.13.1`, `torch>=2.1,<3` or `pytorch=1.12` gives its first X.Y:
// the lower bound is what an older install still satisfies, which is the
// defaults the run may get.
// requires: nothing. produces: TorchVersion.
#include "memory/torch_version.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tpf::memory {

std::optional<TorchVersion> parse_torch_version(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '.')) continue;
    size_t j = i;
    int major = 0, minor = 0;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) major = major * 10 + (text[j++] - '0');
    if (j >= text.size() || text[j] != '.' || j + 1 >= text.size() || !std::isdigit(static_cast<unsigned char>(text[j + 1])))
      continue;
    ++j;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) minor = minor * 10 + (text[j++] - '0');
    if (major < 1 || major > 9 || minor > 99) continue;
    return TorchVersion{major, minor};
  }
  return std::nullopt;
}

namespace {

/// A version from one line naming torch as a dependency: `torch==1.13.1`,
/// `"torch>=2.0",`, `- pytorch=1.12.1`, `torch @ ...` (no version: none).
std::optional<TorchVersion> pin_in_line(std::string_view line) {
  size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  for (std::string_view name : {std::string_view("pytorch"), std::string_view("torch")}) {
    size_t at = line.find(name);
    while (at != std::string_view::npos) {
      bool start = at == 0 || std::string_view(" \t\"'-[").find(line[at - 1]) != std::string_view::npos;
      size_t end = at + name.size();
      bool stop = end >= line.size() || std::string_view(" \t=<>~!\"',;[").find(line[end]) != std::string_view::npos;
      if (start && stop) {
        std::string_view rest = line.substr(end);
        size_t k = rest.find_first_not_of(" \t[]\"'");
        if (k != std::string_view::npos && std::string_view("=<>~!").find(rest[k]) != std::string_view::npos)
          return parse_torch_version(rest);
        return std::nullopt;
      }
      at = line.find(name, at + 1);
    }
  }
  return std::nullopt;
}

std::optional<TorchPin> pin_in_file(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line)) {
    if (auto v = pin_in_line(line)) {
      std::string text = line.substr(0, line.find('#'));
      text = text.substr(text.find_first_not_of(" \t-\""));
      while (!text.empty() && std::string_view(" \t\r\",").find(text.back()) != std::string_view::npos) text.pop_back();
      return TorchPin{*v, p.filename().string() + ": " + text};
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<TorchPin> read_torch_pin(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> reqs;
  for (const auto& entry : fs::directory_iterator(dir.empty() ? "." : dir, ec)) {
    std::string n = entry.path().filename().string();
    if (n.starts_with("requirements") && n.ends_with(".txt")) reqs.push_back(entry.path());
  }
  std::sort(reqs.begin(), reqs.end());
  for (const fs::path& p : reqs)
    if (auto pin = pin_in_file(p)) return pin;
  for (const char* n : {"pyproject.toml", "environment.yml", "environment.yaml"}) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / n;
    if (fs::is_regular_file(p, ec))
      if (auto pin = pin_in_file(p)) return pin;
  }
  return std::nullopt;
}

}  // namespace tpf::memory
