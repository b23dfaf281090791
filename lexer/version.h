// The Python language version a file is read as (--python-version,
// [tool.tpf] target-version, requires-python). Syntax newer than it is a
// syntax error with that version's message; the AST dump follows that
// version's `ast` (type_params from 3.12, default_value from 3.13).
// requires: nothing. produces: PyVersion values and their parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tpf {

struct PyVersion {
  uint8_t major = 3;
  uint8_t minor = 13;

  constexpr bool at_least(int mi) const { return minor >= mi; }
  friend constexpr bool operator==(PyVersion, PyVersion) = default;
  std::string str() const { return std::to_string(major) + "." + std::to_string(minor); }
};

/// The newest grammar we know; the default when nothing names a version.
inline constexpr PyVersion kNewestPy{3, 13};
/// The oldest version accepted by --python-version.
inline constexpr PyVersion kOldestPy{3, 8};

/// Reads "3.12", "py312", "312" or "3.12.1" (the micro part is ignored).
/// Empty when the text is not one of those forms or names a version outside
/// kOldestPy..kNewestPy.
std::optional<PyVersion> parse_py_version(std::string_view text);

/// The lowest version a PEP 440 `requires-python` specifier admits, as Ruff
/// reads it: ">=3.10", "~=3.9", ">=3.8,<4", "==3.11.*", ">3.9" -> 3.10 ...
/// Empty when the specifier has no lower bound we can read; clamped to
/// kOldestPy..kNewestPy.
std::optional<PyVersion> lowest_required_python(std::string_view spec);

}  // namespace tpf
