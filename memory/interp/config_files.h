// What config_files.cpp shares with the readers of frameworks that build on
// OmegaConf (config_recipes.cpp: torchtune's `config.parse` and
// `config.instantiate`): YAML as DictConfigs, override values, dotted-key
// walks and the instantiation of a config that names its callable.
// requires: interp.h, yaml-cpp. produces: nothing (declarations only).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

#include "memory/interp/interp.h"

namespace tpf::memory {

/// The text of a project file (project_file's rules), else nullopt with the
/// reason in the report.
std::optional<std::string> read_text(Interp& in, std::string_view path, std::string_view what, Span at);

/// A YAML node as the interpreter's values: a mapping an OmegaConf
/// DictConfig when `attrs`, else a dict; its keys named like a setting are
/// sources of it, with `file`.
Value from_yaml(Interp& in, const YAML::Node& n, const std::string& file, bool attrs, int depth = 0);

/// The value of a command-line override as OmegaConf's grammar reads it
/// (YAML scalars: 64, 3e-4, true, null, [1,2]; a string otherwise).
Value override_value(Interp& in, const std::string& text, const std::string& shown);

/// The DictConfig that holds the last component of `path` (split at `sep`),
/// walked down from `root`; `leaf` is set to that component. A missing
/// component is made a DictConfig when `create`, else nullopt.
std::optional<Value> config_parent(Interp& in, Value root, std::string_view path, char sep, bool create, StrId& leaf);

/// How a framework names the callable of a config node.
struct ComponentKey {
  std::string_view key;  ///< "_target_" (hydra), "_component_" (torchtune)
  std::string_view who;  ///< "hydra.utils.instantiate", for the report
};

/// The callable a dotted path names, as Python imports it from the module
/// running now: its top package, then each name an attribute or a
/// submodule of the one before (a project module is loaded then).
Value component_from_path(Interp& in, const std::string& path);

/// A config node whose `key` names a callable, called with the node's other
/// keys as keywords (nested nodes that name one instantiated first, at most
/// 64 deep: a config the script made cyclic stops there), then
/// `pos` and `kw` (which replace keys of the same name).
Value instantiate_node(Interp& in, Value node, const ComponentKey& ck, std::vector<Value> pos,
                       const std::vector<std::pair<StrId, Value>>& kw, Span at, int depth = 0);

/// torchtune's entry points (config_recipes.cpp).
void register_config_recipes(Builtins& b);
/// The `__call__` of the recipe `config.parse` decorates.
Value recipe_call(Interp& in, Value self, Args& a);

/// Whether a library function is modelled even when the analyzed project is
/// that library: its own code is run-time machinery the interpreter does not
/// follow (an argparse subclass, dotted paths imported at run time), so
/// `import_value` and a project module's attribute give the model.
bool modelled_over_project(std::string_view qualname);

}  // namespace tpf::memory
