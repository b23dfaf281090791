// torchtune's recipes: `@config.parse` over `def recipe_main(cfg)`, called
// as `recipe_main()`, reads `--config FILE` (a YAML file, OmegaConf.load) and
// `key=value` overrides into a DictConfig and calls the function with it;
// `config.instantiate(cfg.model, *args, **kwargs)` imports the `_component_`
// dotted path (torchtune.models.llama3_2.llama3_2_1b, torch.optim.AdamW) and
// calls it with the node's other keys. Read from torchtune 0.6
// (torchtune/config/_parse.py, _utils.py, _instantiate.py). The library's own
// code (an argparse subclass that loads the file in parse_known_args, paths
// imported by importlib) is modelled here also when the analyzed project is
// torchtune itself (modelled_over_project).
// requires: config_files.h. produces: torchtune.config.* handlers.
#include <algorithm>
#include <array>

#include "memory/interp/config_files.h"

namespace tpf::memory {

namespace {

/// The qualified names whose model replaces the project's own code; the
/// same callables under the modules that define them and the package that
/// re-exports them.
constexpr std::array<std::string_view, 6> kModelledOverProject = {
    "torchtune.config.parse",
    "torchtune.config._parse.parse",
    "torchtune.config.instantiate",
    "torchtune.config._instantiate.instantiate",
    "torchtune.config._utils._get_component_from_path",
    "torchtune.config._get_component_from_path",
};

constexpr ComponentKey kTorchtune{"_component_", "torchtune config.instantiate"};

/// config.parse(recipe_main): the recipe, run with the composed config.
Value f_parse(Interp& in, Args& a) {
  if (a.pos.empty() || !in.is_obj(a.pos[0], OKind::Function)) return Value::unknown();
  Value r = new_instance(in, "torchtune.Recipe");
  in.o(r).attrs.set(in.intern("__wrapped__"), a.pos[0]);
  return r;
}

/// The YAML file `--config` names, as a DictConfig (unknown, with the
/// reason in the report, when it is missing or cannot be read).
Value load_config(Interp& in, const std::string& path, Span at) {
  auto text = read_text(in, path, "torchtune config", at);
  if (!text) {
    in.note_unknown("the recipe's config `" + path + "` is not read: the run has no config", at, true);
    return Value::unknown();
  }
  try {
    YAML::Node n = YAML::Load(*text);
    if (n.IsNull()) return new_instance(in, "omegaconf.DictConfig");  // OmegaConf.load of an empty file
    if (!n.IsMap()) {
      in.note_unknown("torchtune config `" + path + "` is not a mapping", at, true);
      return Value::unknown();
    }
    return from_yaml(in, n, path, true);
  } catch (const YAML::Exception& e) {
    in.note_unknown("torchtune config `" + path + "` is not valid YAML: " + e.what(), at, true);
    return Value::unknown();
  }
}

/// TuneRecipeArgumentParser + _merge_yaml_and_cli_args: `--config FILE` (or
/// `--config=FILE`) is required; any other `--flag` stops the run
/// (ValueError); `~key` deletes a key; `key=value` sets one (made when
/// missing, as OmegaConf.from_dotlist merges), and `key=path` over a node
/// that names a `_component_` replaces its component.
Value compose(Interp& in, Span at) {
  in.argv_read = true;
  const std::vector<std::string>& argv = in.opt.argv;
  std::optional<std::string> file;
  std::vector<std::string> overrides;
  for (size_t k = 0; k < argv.size(); ++k) {
    const std::string& arg = argv[k];
    if (arg == "--config") {
      if (k + 1 == argv.size()) break;  // argparse: `--config` expects one argument
      file = argv[++k];
    } else if (arg.starts_with("--config=")) {
      file = arg.substr(9);
    } else if (arg.starts_with("--")) {
      in.note_unknown("argument `" + arg + "` of the run's command line: torchtune's parser takes only --config "
                      "and key=value overrides (it raises ValueError)",
                      at, true);
      return Value::unknown();
    } else {
      overrides.push_back(arg);
    }
  }
  if (!file) {
    in.note_unknown("the recipe needs `--config FILE` on the run's command line (after `--`)", at, true);
    return Value::unknown();
  }
  Value cfg = load_config(in, *file, at);
  if (!cfg.known()) return cfg;
  const StrId component = in.intern("_component_");
  for (const std::string& arg : overrides) {
    const bool del = arg.starts_with('~');
    const std::string body = del ? arg.substr(1) : arg;
    const size_t eq = body.find('=');
    const std::string key = body.substr(0, eq);
    if (key.empty() || (!del && (eq == std::string::npos || body.find('=', eq + 1) != std::string::npos))) {
      in.note_unknown("argument `" + arg + "` of the run's command line is not a key=value override (torchtune "
                      "raises ValueError)",
                      at, true);
      return Value::unknown();
    }
    StrId leaf;
    std::optional<Value> node = config_parent(in, cfg, key, '.', !del, leaf);
    if (del) {
      if (!node || !in.o(*node).attrs.find(leaf)) {
        in.note_unknown("argument `" + arg + "` of the run's command line removes a key the config does not have "
                        "(torchtune raises ValueError)",
                        at, true);
        return Value::unknown();
      }
      in.o(*node).attrs.erase(leaf);
      continue;
    }
    Value v = override_value(in, body.substr(eq + 1), "argv " + arg);
    const Value* had = in.o(*node).attrs.find(leaf);
    if (had && type_of(in, *had) == "omegaconf.DictConfig" && in.o(*had).attrs.find(component) && in.as_str(v)) {
      in.o(*had).attrs.set(component, v);
      continue;
    }
    if (v.kind == VKind::Int) v = in.override_source(in.str(leaf), v, in.user_line(), "argv " + arg);
    in.o(*node).attrs.set(leaf, v);
  }
  return cfg;
}

/// config.instantiate(config, *args, **kwargs).
Value f_instantiate(Interp& in, Args& a) {
  if (a.pos.empty() || in.stack.empty()) return Value::unknown();
  return instantiate_node(in, a.pos[0], kTorchtune, std::vector<Value>(a.pos.begin() + 1, a.pos.end()), a.kw, a.span);
}

/// _get_component_from_path("torch.optim.AdamW"): the callable.
Value f_component_from_path(Interp& in, Args& a) {
  auto p = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  if (!p) return Value::unknown();
  return component_from_path(in, std::string(*p));
}

// torchao's NF4 (torchtune's QLoRA: LoRALinear(quantize_base=True)).
// to_nf4(weight, block_size=64, scaler_block_size=256) keeps 4-bit codes
// (two a byte), an int8 scaler per block of 64 and a float32 factor per 256
// scalers: bitsandbytes' double-quantized layout, which Quant::Nf4Double
// sizes (its 1 KB code table per tensor against torchao's 64 bytes).

/// to_nf4(t): a frozen copy of `t` stored as NF4.
Value f_to_nf4(Interp& in, Args& a) {
  TensorObj* t = a.pos.empty() ? nullptr : in.tensor(a.pos[0]);
  if (!t) return Value::unknown();
  Value q = in.new_tensor(t->shape, t->dtype, Role::Param);
  in.storages[in.tensor(q)->storage].quant = Quant::Nf4Double;
  return q;
}

/// linear_nf4(input, weight): F.linear over the dequantized weight, which
/// autograd does not train (only `input`'s gradient flows back).
Value f_linear_nf4(Interp& in, Args& a) {
  auto x = a.get(in, 0, "input");
  auto w = a.get(in, 1, "weight");
  Handler linear = in.builtin.function("torch.nn.functional.linear");
  if (!x || !w || !linear) return Value::unknown();
  Args la{{*x, *w}, {}, a.span};
  return linear(in, la);
}

}  // namespace

Value recipe_call(Interp& in, Value self, Args& a) {
  const Value fn = *in.o(self).attrs.find(in.intern("__wrapped__"));
  Args ca;
  ca.span = a.span;
  Value cfg = compose(in, a.span);
  if (!cfg.known()) return Value::unknown();
  ca.pos.push_back(cfg);
  return in.call(fn, ca);
}

bool modelled_over_project(std::string_view qualname) {
  return std::find(kModelledOverProject.begin(), kModelledOverProject.end(), qualname) != kModelledOverProject.end();
}

void register_config_recipes(Builtins& b) {
  auto& f = b.functions;
  for (const char* q : {"torchtune.config.parse", "torchtune.config._parse.parse"}) f[q] = f_parse;
  for (const char* q : {"torchtune.config.instantiate", "torchtune.config._instantiate.instantiate"})
    f[q] = f_instantiate;
  for (const char* q : {"torchtune.config._utils._get_component_from_path", "torchtune.config._get_component_from_path"})
    f[q] = f_component_from_path;
  // torchao moved NF4 from dtypes.nf4tensor (0.3-0.12) to quantization
  // (quantize_.workflows.nf4.nf4_tensor), which torchtune imports now.
  for (const char* q : {"torchao.quantization.to_nf4", "torchao.quantization.quantize_.workflows.nf4.nf4_tensor.to_nf4",
                        "torchao.dtypes.nf4tensor.to_nf4", "torchao.dtypes.to_nf4"})
    f[q] = f_to_nf4;
  for (const char* q : {"torchao.quantization.quantize_.workflows.nf4.nf4_tensor.linear_nf4",
                        "torchao.dtypes.nf4tensor.linear_nf4"})
    f[q] = f_linear_nf4;
}

}  // namespace tpf::memory
