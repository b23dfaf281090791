// parse_torch_version, read_torch_pin and read_torch_statement: the torch
// release a run uses, from a flag's text, the project's dependency pins or
// the version its README states. A pin such as `torch==1.13.1`,
// `torch>=2.1,<3` or `pytorch=1.12` gives its first X.Y: the lower bound is
// what an older install still satisfies, which is the defaults the run may
// get. Releases before 1.0 (0.1 to 0.4) count: code written for them
// (`Variable(x, volatile=True)`) means what it meant there.
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
    // torch 0.1 to 0.4, then 1.x and 2.x (a few majors of headroom).
    if (major > 9 || minor > 99 || (major == 0 && (minor < 1 || minor > 4))) continue;
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

/// The entries of `dir` whose file name `match` accepts, sorted by name.
template <typename Match>
std::vector<std::filesystem::path> files_named(const std::string& dir, Match match) {
  std::error_code ec;
  std::vector<std::filesystem::path> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec))
    if (match(entry.path().filename().string())) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

/// Pin and README files larger than this are not read (a dependency list or
/// a README is a few KiB; a FIFO or /dev/zero behind the name never ends).
constexpr uintmax_t kMaxProjectFileBytes = 1 << 20;

/// `p` is a regular file under the bound: safe to read to its end.
bool readable(const std::filesystem::path& p) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(p, ec)) return false;
  uintmax_t n = std::filesystem::file_size(p, ec);
  return !ec && n <= kMaxProjectFileBytes;
}

std::optional<TorchPin> pin_in_file(const std::filesystem::path& p) {
  if (!readable(p)) return std::nullopt;
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
  std::vector<fs::path> reqs = files_named(
      dir, [](const std::string& n) { return n.starts_with("requirements") && n.ends_with(".txt"); });
  for (const fs::path& p : reqs)
    if (auto pin = pin_in_file(p)) return pin;
  for (const char* n : {"pyproject.toml", "environment.yml", "environment.yaml"}) {
    if (auto pin = pin_in_file(fs::path(dir.empty() ? "." : dir) / n)) return pin;
  }
  return std::nullopt;
}

namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

/// The version a README line states for torch: `PyTorch 0.3.1`,
/// `Pytorch 0.2 (0.3 breaks ...)`, `pytorch 1.0.0+`, `PyTorch >= 1.7`,
/// `PyTorch version: 1.4`, `torch==1.13`. The number must follow the name
/// (after spaces, `v`, `version`, `:`, comparison signs or `(`): "PyTorch
/// implementation of the 2.0 model" names no release.
std::optional<TorchVersion> stated_in_line(std::string_view line) {
  std::string low(line);
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (size_t at = low.find("torch"); at != std::string::npos; at = low.find("torch", at + 1)) {
    size_t start = at >= 2 && low.compare(at - 2, 2, "py") == 0 ? at - 2 : at;
    if (start > 0 && word_char(low[start - 1])) continue;
    size_t k = at + 5;
    if (k < low.size() && word_char(low[k]) && low[k] != '-') continue;
    auto skip = [&](std::string_view set) {
      while (k < low.size() && set.find(low[k]) != std::string_view::npos) ++k;
    };
    skip(" \t:=<>~(*`");
    if (low.compare(k, 7, "version") == 0) k += 7;
    skip(" \t:=<>~(*`");
    if (k < low.size() && low[k] == 'v') ++k;
    if (k >= low.size() || !std::isdigit(static_cast<unsigned char>(low[k]))) continue;
    if (auto v = parse_torch_version(std::string_view(low).substr(k, 12))) return v;
  }
  return std::nullopt;
}

}  // namespace

std::optional<TorchPin> read_torch_statement(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> readmes = files_named(dir, [](std::string n) {
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return n.starts_with("readme");
  });
  for (const fs::path& p : readmes) {
    if (!readable(p)) continue;
    std::ifstream f(p);
    std::string line;
    while (std::getline(f, line)) {
      if (auto v = stated_in_line(line)) {
        size_t a = line.find_first_not_of(" \t#*->");
        std::string text = a == std::string::npos ? line : line.substr(a);
        while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
        if (text.size() > 80) text = text.substr(0, 77) + "...";
        return TorchPin{*v, p.filename().string() + ": " + text};
      }
    }
  }
  return std::nullopt;
}

}  // namespace tpf::memory
