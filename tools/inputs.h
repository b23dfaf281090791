// Expansion of the command line's PATH arguments into the list of files to
// analyze: directories recurse into *.py files in sorted order, skipping
// hidden folders, virtual environments (by name or by their pyvenv.cfg) and
// what .gitignore files exclude; symlink loops are cut.
#pragma once

#include <string>
#include <vector>

namespace tpf::tools {

struct InputProblem {
  std::string path;
  std::string message;  // "No such file or directory", ...
};

struct Inputs {
  std::vector<std::string> files;      // deterministic order
  std::vector<InputProblem> problems;  // paths that could not be used
  std::vector<InputProblem> notes;     // files read beside the inputs and skipped (.gitignore)
};

/// Expands `paths`. A file named explicitly is analyzed whatever its suffix.
Inputs expand_inputs(const std::vector<std::string>& paths);

}  // namespace tpf::tools
