// The words of a run's command line as the command-line libraries read
// them, shared by py_cli.cpp (fire, jsonargparse) and py_click.cpp (click).
// requires: interp.h.
#pragma once

#include <string>
#include <string_view>

#include "memory/interp/interp.h"

namespace tpf::memory {

/// A command-line word as a Python literal (fire: `""` type), or as `type`
/// says ("str", "int", "float", "bool": click).
Value word_value(Interp& in, const std::string& t, std::string_view type = {});
/// `--batch-size` -> batch_size (lower case, dashes as underscores).
std::string option_dest(std::string_view flag);
/// An integer given on the command line as the source of `name`:
/// override_source with "argv " + the words as written.
Value argv_source(Interp& in, const std::string& name, Value v, const std::string& shown);
/// A project function's own name (its qualified name's last part), "" for
/// anything else.
std::string function_name(Interp& in, Value fn);

}  // namespace tpf::memory
