// Files a script reads its configuration from: a DeepSpeed JSON config,
// `json.load(open(path))`, `yaml.safe_load(...)`, `OmegaConf.load(path)`.
// The script is untrusted input: a file is read only when it lies inside
// the script's project (the nearest folder with .git, pyproject.toml or
// setup.py), is a regular file and is under 1 MB; otherwise the report
// says it was not read. A loaded document becomes the interpreter's dicts,
// lists and scalars (OmegaConf's: objects with attribute access too); a
// key named like a configuration setting (batch_size, max_seq_len) is a
// source of it, with the file's name.
// requires: interp.h, nlohmann-json, yaml-cpp. produces: project_file, loaders.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "memory/interp/config_files.h"

namespace tpf::memory {
namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxConfigBytes = 1u << 20;

/// The project a script belongs to: the nearest folder at or above the
/// script's own that holds `.git`, `pyproject.toml` or `setup.py`, else the
/// script's folder. Canonical, without a trailing slash.
fs::path project_root(const fs::path& script) {
  std::error_code ec;
  fs::path dir = fs::weakly_canonical(fs::absolute(script, ec).parent_path(), ec);
  for (fs::path d = dir; !d.empty(); d = d.parent_path()) {
    for (const char* marker : {".git", "pyproject.toml", "setup.py"})
      if (fs::exists(d / marker, ec)) return d;
    if (d == d.parent_path()) break;
  }
  return dir;
}

}  // namespace

std::optional<std::string> read_text(Interp& in, std::string_view path, std::string_view what, Span at) {
  auto p = project_file(in, path, what, at);
  if (!p) return std::nullopt;
  std::ifstream f(*p, std::ios::binary);
  if (!f) {
    in.note_unknown(std::string(what) + " `" + std::string(path) + "` could not be read", at, false);
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

namespace {

/// A key's value as a configuration source ("configs/a.yaml: batch_size").
Value keyed(Interp& in, const std::string& key, Value v, const std::string& file) {
  return v.kind == VKind::Int ? in.override_source(key, v, in.user_line(), file + ": " + key) : v;
}

Value from_json(Interp& in, const nlohmann::json& j, const std::string& file, int depth = 0) {
  if (depth > 64) return Value::unknown();
  switch (j.type()) {
    case nlohmann::json::value_t::null: return Value::none();
    case nlohmann::json::value_t::boolean: return Value::boolean(j.get<bool>());
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return in.int_value(j.get<int64_t>());
    case nlohmann::json::value_t::number_float: return Value::real(j.get<double>());
    case nlohmann::json::value_t::string: return in.str_value(j.get<std::string>());
    case nlohmann::json::value_t::array: {
      std::vector<Value> items;
      for (const auto& e : j) items.push_back(from_json(in, e, file, depth + 1));
      return in.make_list(std::move(items));
    }
    case nlohmann::json::value_t::object: {
      Value d = in.make_dict();
      for (auto it = j.begin(); it != j.end(); ++it)
        in.setitem(d, in.str_value(it.key()), keyed(in, it.key(), from_json(in, it.value(), file, depth + 1), file));
      return d;
    }
    default: return Value::unknown();
  }
}

/// A YAML scalar as Python's yaml.safe_load types it.
Value yaml_scalar(Interp& in, const std::string& s, bool quoted) {
  if (quoted) return in.str_value(s);
  if (s == "null" || s == "~" || s.empty()) return Value::none();
  if (s == "true" || s == "True") return Value::boolean(true);
  if (s == "false" || s == "False") return Value::boolean(false);
  return number_word(in, s).value_or(in.str_value(s));
}

}  // namespace

Value from_yaml(Interp& in, const YAML::Node& n, const std::string& file, bool attrs, int depth) {
  if (depth > 64) return Value::unknown();
  switch (n.Type()) {
    case YAML::NodeType::Null: return Value::none();
    case YAML::NodeType::Scalar: return yaml_scalar(in, n.Scalar(), n.Tag() == "!");
    case YAML::NodeType::Sequence: {
      std::vector<Value> items;
      for (const auto& e : n) items.push_back(from_yaml(in, e, file, attrs, depth + 1));
      return in.make_list(std::move(items));
    }
    case YAML::NodeType::Map: {
      // OmegaConf's DictConfig: attribute access (cfg.train.batch_size) and keys.
      Value d = attrs ? new_instance(in, "omegaconf.DictConfig") : in.make_dict();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar()) continue;
        const std::string key = kv.first.Scalar();
        Value v = keyed(in, key, from_yaml(in, kv.second, file, attrs, depth + 1), file);
        if (attrs) in.o(d).attrs.set(in.intern(key), v);
        else in.setitem(d, in.str_value(key), v);
      }
      return d;
    }
    default: return Value::unknown();
  }
}

namespace {

/// The path an argument names: a string, or a file `open()` gave.
std::optional<std::string> path_of(Interp& in, Value v) {
  if (auto s = fspath(in, v)) return s;
  Obj* ob = in.instance(v);
  if (ob && ob->type != kNone32 && (in.str(ob->type) == "io.file" || in.str(ob->type) == "io.file.text"))
    if (const Value* p = ob->attrs.find(in.intern("name")); p && in.as_str(*p)) return std::string(*in.as_str(*p));
  return std::nullopt;
}

/// yaml.safe_load(stream): a file open() gave, or the YAML text itself;
/// OmegaConf.load(path): the file.
Value load_yaml(Interp& in, Args& a, bool omegaconf) {
  Value src = a.pos.empty() ? a.kwarg(in, "stream").value_or(Value::unknown()) : a.pos[0];
  std::optional<std::string> text;
  std::string file = "the YAML text";
  if (omegaconf || !in.as_str(src)) {
    auto p = path_of(in, src);
    if (!p) return Value::unknown();
    file = *p;
    text = read_text(in, *p, "config file", a.span);
  } else {
    text = std::string(*in.as_str(src));
  }
  if (!text) return Value::unknown();
  try {
    return from_yaml(in, YAML::Load(*text), file, omegaconf);
  } catch (const YAML::Exception& e) {
    const std::string what = omegaconf || !in.as_str(src) ? "config file `" + file + "`" : file;
    in.note_unknown(what + " is not valid YAML: " + e.what(), a.span, false);
    return Value::unknown();
  }
}

Value f_json_load(Interp& in, Args& a) {
  auto p = a.pos.empty() ? std::nullopt : path_of(in, a.pos[0]);
  if (!p || in.as_str(a.pos[0])) return Value::unknown();  // json.load takes a file
  auto text = read_text(in, *p, "config file", a.span);
  if (!text) return Value::unknown();
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) {
    in.note_unknown("config file `" + *p + "` is not valid JSON", a.span, false);
    return Value::unknown();
  }
  return from_json(in, j, *p);
}

Value f_json_loads(Interp& in, Args& a) {
  auto s = a.pos.empty() ? std::nullopt : in.as_str(a.pos[0]);
  if (!s) return Value::unknown();
  nlohmann::json j = nlohmann::json::parse(*s, nullptr, false);
  return j.is_discarded() ? Value::unknown() : from_json(in, j, "JSON");
}

Value f_yaml_load(Interp& in, Args& a) { return load_yaml(in, a, false); }
Value f_omegaconf_load(Interp& in, Args& a) { return load_yaml(in, a, true); }

// ------------------------------------------------------------------ hydra
//
// `@hydra.main(config_path="conf", config_name="train")` over `def main(cfg)`,
// called as `main()`: hydra composes the config and calls the function
// with it. Composition as hydra 1.1+ does it, for the forms scripts use:
// the primary config `<config_path>/<config_name>.yaml` next to the file
// that decorates; its `defaults:` list, each `group: option` entry the
// file `<config_path>/<group>/<option>.yaml` placed under key `group`, a
// bare name a file of the same folder merged at the top, `_self_` where it
// is listed (else last, so the primary's own keys win); then the run's
// command line: `group=option` picks a defaults entry's option,
// `key.sub=value` replaces a value, `+key=value` adds one, `~key` deletes
// one. Entries of hydra's own groups (`hydra/...`, `override hydra/...`)
// and hydra's own options (`hydra.run.dir=...`, `--multirun`) change no
// value a model or batch reads and are left; a packaged entry
// (`group@pkg: option`) is named as not composed.

/// A DictConfig's keys merged into another's, recursively (hydra's merge).
void merge_into(Interp& in, Value dst, Value src) {
  Obj* d = in.instance(dst);
  Obj* s = in.instance(src);
  if (!d || !s) return;
  for (const auto& [k, v] : s->attrs.items) {
    const Value* had = d->attrs.find(k);
    if (had && type_of(in, *had) == "omegaconf.DictConfig" && type_of(in, v) == "omegaconf.DictConfig")
      merge_into(in, *had, v);
    else
      in.o(dst).attrs.set(k, v);
  }
}

/// One YAML file of the config folder, parsed (nullopt: not read, and the
/// report says why). `shown` is its path from the script's folder.
std::optional<YAML::Node> hydra_file(Interp& in, const fs::path& file, const std::string& shown, Span at) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    // A group's option that is not there: name the ones that are.
    std::string options;
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(file.parent_path(), ec))
      if (e.path().extension() == ".yaml" || e.path().extension() == ".yml") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) options += (options.empty() ? "" : ", ") + n;
    in.note_unknown("hydra config `" + shown + "` is not found" +
                        (options.empty() ? std::string() : " (the folder has: " + options + ")"),
                    at, true);
    return std::nullopt;
  }
  auto text = read_text(in, file.string(), "hydra config", at);
  if (!text) return std::nullopt;
  try {
    YAML::Node n = YAML::Load(*text);
    if (n.IsNull()) return YAML::Node(YAML::NodeType::Map);
    if (!n.IsMap()) {
      in.note_unknown("hydra config `" + shown + "` is not a mapping", at, false);
      return std::nullopt;
    }
    return n;
  } catch (const YAML::Exception& e) {
    in.note_unknown("hydra config `" + shown + "` is not valid YAML: " + e.what(), at, false);
    return std::nullopt;
  }
}

std::string yaml_name(std::string n) { return n.ends_with(".yaml") || n.ends_with(".yml") ? n : n + ".yaml"; }

}  // namespace

Value override_value(Interp& in, const std::string& text, const std::string& shown) {
  try {
    return from_yaml(in, YAML::Load(text), shown, true);
  } catch (const YAML::Exception&) {
    return in.str_value(text);
  }
}

std::optional<Value> config_parent(Interp& in, Value root, std::string_view path, char sep, bool create, StrId& leaf) {
  Value node = root;
  while (true) {
    const size_t cut = path.find(sep);
    const StrId key = in.intern(path.substr(0, cut));
    if (cut == std::string_view::npos) {
      leaf = key;
      return node;
    }
    const Value* child = in.o(node).attrs.find(key);
    if (!child || type_of(in, *child) != "omegaconf.DictConfig") {
      if (!create) return std::nullopt;
      Value fresh = new_instance(in, "omegaconf.DictConfig");
      in.o(node).attrs.set(key, fresh);
      child = in.o(node).attrs.find(key);
    }
    node = *child;
    path = path.substr(cut + 1);
  }
}

namespace {

Value hydra_compose(Interp& in, Value task, Span at) {
  in.argv_read = true;
  const std::vector<std::string>& argv = in.opt.argv;
  std::vector<bool> used(argv.size(), false);
  auto attr_str = [&](const char* k) -> std::optional<std::string> {
    const Value* v = in.o(task).attrs.find(in.intern(k));
    if (v && in.as_str(*v)) return std::string(*in.as_str(*v));
    return std::nullopt;
  };
  const std::optional<std::string> cpath = attr_str("config_path"), cname = attr_str("config_name"),
                                   dir = attr_str("__dir__");
  Value cfg = new_instance(in, "omegaconf.DictConfig");
  if (cname && dir) {
    const fs::path conf = fs::path(*dir) / cpath.value_or(".");
    const std::string rel = (fs::path(cpath.value_or(".")) / yaml_name(*cname)).lexically_normal().string();
    auto primary = hydra_file(in, conf / yaml_name(*cname), rel, at);
    if (!primary) return Value::unknown();
    // The defaults list, in order; the files are converted in composition
    // order, so a later file's value is the setting's source.
    std::vector<std::pair<std::string, std::string>> entries;  // (group or "", option); ("_self_", "")
    // Read through a const node: yaml-cpp's non-const operator[] would add
    // the key it looks up.
    const YAML::Node& pn = *primary;
    if (const YAML::Node dl = pn["defaults"]; dl && dl.IsSequence()) {
      for (const YAML::Node& it : dl) {
        if (it.IsScalar()) {
          const std::string name = it.Scalar();
          entries.emplace_back(name == "_self_" ? "_self_" : "", name);
        } else if (it.IsMap() && it.size() == 1) {
          std::string group = it.begin()->first.Scalar();
          const YAML::Node v = it.begin()->second;
          if (v.IsNull()) continue;
          if (group.starts_with("override ")) group = group.substr(9);
          if (group.starts_with("hydra/") || group == "hydra") continue;
          if (!v.IsScalar() || group.find('@') != std::string::npos) {
            in.note_unknown("hydra defaults entry `" + group + "` of `" + rel + "` is not composed", at, false);
            continue;
          }
          entries.emplace_back(group, v.Scalar());
        }
      }
    }
    if (pn["defaults"]) primary->remove("defaults");
    if (pn["hydra"]) primary->remove("hydra");
    if (std::none_of(entries.begin(), entries.end(), [](auto& e) { return e.first == "_self_"; }))
      entries.emplace_back("_self_", "");
    for (auto& [group, option] : entries) {
      if (group == "_self_") {
        merge_into(in, cfg, from_yaml(in, *primary, rel, true));
        continue;
      }
      std::string opt = option;
      for (size_t k = 0; k < argv.size(); ++k)
        if (!group.empty() && argv[k].starts_with(group + "=")) {
          opt = argv[k].substr(group.size() + 1);
          used[k] = true;
        }
      const fs::path file = group.empty() ? conf / yaml_name(opt) : conf / group / yaml_name(opt);
      const std::string shown = (fs::path(cpath.value_or(".")) / fs::relative(file, conf)).lexically_normal().string();
      auto node = hydra_file(in, file, shown, at);
      if (!node) continue;
      const Value part = from_yaml(in, *node, shown, true);
      if (group.empty()) {
        merge_into(in, cfg, part);
        continue;
      }
      // `group: option` under the group's key (a nested group a/b under a.b).
      StrId key;
      const Value holder = *config_parent(in, cfg, group, '/', true, key);
      const Value* child = in.o(holder).attrs.find(key);
      if (child && type_of(in, *child) == "omegaconf.DictConfig") merge_into(in, *child, part);
      else in.o(holder).attrs.set(key, part);
    }
  }
  // The command line's value overrides.
  for (size_t k = 0; k < argv.size(); ++k) {
    if (used[k]) continue;
    std::string arg = argv[k];
    if (arg.starts_with('-')) continue;  // --multirun, -m, --cfg job: hydra's own
    const bool del = arg.starts_with('~');
    const bool add = arg.starts_with('+');
    std::string body = arg.substr(arg.find_first_not_of("+~"));
    size_t eq = body.find('=');
    std::string key = body.substr(0, eq);
    if (key.empty() || key == "hydra" || key.starts_with("hydra.")) continue;
    if (!del && eq == std::string::npos) {
      in.note_unknown("argument `" + arg + "` of the run's command line is not a hydra override (key=value): not applied",
                      at, false);
      continue;
    }
    StrId leaf;
    std::optional<Value> node = config_parent(in, cfg, key, '.', add, leaf);
    bool ok = node.has_value();
    if (node) {
      const bool has = in.o(*node).attrs.find(leaf) != nullptr;
      if (del) {
        if (has) in.o(*node).attrs.erase(leaf);
      } else if (!has && !add) {
        ok = false;
      } else {
        Value v = override_value(in, body.substr(eq + 1), "argv " + arg);
        if (v.kind == VKind::Int) v = in.override_source(in.str(leaf), v, in.user_line(), "argv " + arg);
        in.o(*node).attrs.set(leaf, v);
      }
    }
    if (!ok)
      in.note_unknown("argument `" + arg + "` of the run's command line overrides a key the composed config does not "
                      "have (hydra would stop: append with `+" + body + "`): not applied",
                      at, false);
  }
  return cfg;
}

/// hydra.utils.instantiate(config, *args, **kwargs) (and hydra.utils.call):
/// the callable `_target_` names (a class or function of the project's or
/// of a library, by its dotted path) called with the config's other keys
/// as keywords, nested configs with a `_target_` instantiated first (hydra's
/// `_recursive_` default), then the call's own arguments. `_partial_` and
/// `_args_` are named as not followed.
Value f_instantiate(Interp& in, Args& a) {
  if (a.pos.empty() || in.stack.empty()) return Value::unknown();
  static constexpr ComponentKey kHydra{"_target_", "hydra.utils.instantiate"};
  return instantiate_node(in, a.pos[0], kHydra, std::vector<Value>(a.pos.begin() + 1, a.pos.end()), a.kw, a.span);
}

Value f_hydra_main(Interp& in, Args& a) {
  Value d = new_instance(in, "hydra.main_decorator");
  Obj& ob = in.o(d);
  ob.attrs.set(in.intern("config_path"), a.get(in, 0, "config_path").value_or(Value::none()));
  ob.attrs.set(in.intern("config_name"), a.get(in, 1, "config_name").value_or(Value::none()));
  return d;
}

// ---------------------------------------------------------------- pathlib
//
// pathlib.Path as scripts build the paths they read: Path(a, b), p / "x",
// .name, .stem, .suffix, .parent, joinpath, with_suffix, with_name; open()
// and the config readers take one as they take a str. Whether the file
// exists is the file system's, never guessed (exists() is unknown).

/// pathlib's normal form: "." components dropped, repeated slashes one, a
/// trailing slash gone, "" as ".".
std::string normal_path(std::string_view p) {
  std::string out;
  const bool abs = p.starts_with('/');
  size_t k = 0;
  while (k <= p.size()) {
    size_t e = std::min(p.find('/', k), p.size());
    std::string_view part = p.substr(k, e - k);
    if (!part.empty() && part != ".") {
      if (!out.empty() || abs) out += '/';
      out += part;
    }
    k = e + 1;
  }
  if (out.empty()) return abs ? "/" : ".";
  return out;
}

Value new_path(Interp& in, const std::string& p, int depth = 0) {
  Value v = new_instance(in, "pathlib.Path");
  const std::string n = normal_path(p);
  const size_t slash = n.rfind('/');
  const std::string name = n == "." || n == "/" ? "" : n.substr(slash == std::string::npos ? 0 : slash + 1);
  const size_t dot = name.rfind('.');
  const bool has_suffix = dot != std::string::npos && dot > 0 && dot + 1 < name.size();
  Value parent;
  if (depth < 16) {
    std::string up = slash == std::string::npos ? "." : slash == 0 ? "/" : n.substr(0, slash);
    parent = (n == "." || n == "/") ? v : new_path(in, up, depth + 1);
  }
  Obj& o = in.o(v);
  o.attrs.set(in.intern("__fspath__"), in.str_value(n));
  o.attrs.set(in.intern("name"), in.str_value(name));
  o.attrs.set(in.intern("suffix"), in.str_value(has_suffix ? name.substr(dot) : ""));
  o.attrs.set(in.intern("stem"), in.str_value(has_suffix ? name.substr(0, dot) : name));
  if (parent.known()) in.o(v).attrs.set(in.intern("parent"), parent);
  return v;
}

std::string join_path(const std::string& a, const std::string& b) {
  if (b.starts_with('/')) return b;
  return a == "." ? b : a + "/" + b;
}

Value f_os_fspath(Interp& in, Args& a) {
  auto p = a.pos.empty() ? std::nullopt : fspath(in, a.pos[0]);
  return p ? in.str_value(*p) : Value::unknown();
}

Value f_path(Interp& in, Args& a) {
  std::string p = ".";
  for (Value v : a.pos) {
    auto s = fspath(in, v);
    if (!s) return Value::unknown();
    p = join_path(p, *s);
  }
  return new_path(in, p);
}

}  // namespace

Value component_from_path(Interp& in, const std::string& path) {
  if (in.stack.empty() || path.empty()) return Value::unknown();
  const std::string top = path.substr(0, path.find('.'));
  Value fn = in.import_value(in.stack.back()->module, top);
  for (size_t from = top.size() + 1; fn.known() && from <= path.size();) {
    size_t next = std::min(path.find('.', from), path.size());
    fn = in.getattr(fn, in.intern(path.substr(from, next - from)));
    from = next + 1;
  }
  return fn;
}

Value instantiate_node(Interp& in, Value node, const ComponentKey& ck, std::vector<Value> pos,
                       const std::vector<std::pair<StrId, Value>>& kw, Span at, int depth) {
  // A YAML document nests at most 64 levels (from_yaml); deeper is a cycle
  // the script built (`cfg.model.inner = cfg.model`).
  constexpr int kMaxConfigNesting = 64;
  if (depth > kMaxConfigNesting || type_of(in, node) != "omegaconf.DictConfig") return Value::unknown();
  const StrId target_key = in.intern(ck.key);
  const Value* t = in.o(node).attrs.find(target_key);
  auto target = t ? in.as_str(*t) : std::nullopt;
  if (!target) {
    in.note_unknown(std::string(ck.who) + " of a config without a `" + std::string(ck.key) +
                        "` string: not followed",
                    at, false);
    return Value::unknown();
  }
  const std::string path(*target);
  if (path.find('.') == std::string::npos) return Value::unknown();
  for (const char* k : {"_partial_", "_args_"})
    if (in.o(node).attrs.find(in.intern(k))) {
      in.note_unknown(std::string(ck.who) + " with `" + std::string(k) + "` (`" + path + "`): not followed", at,
                      false);
      return Value::unknown();
    }
  Value fn = component_from_path(in, path);
  if (!fn.known()) return Value::unknown();
  Args ca;
  ca.span = at;
  ca.pos = std::move(pos);
  const std::vector<std::pair<StrId, Value>> items = in.o(node).attrs.items;
  for (const auto& [k, v] : items) {
    const std::string_view name = in.str(k);
    if (name.starts_with('_') && name.ends_with('_')) continue;  // _target_, _component_, _recursive_, _convert_
    Value arg = v;
    if (type_of(in, v) == "omegaconf.DictConfig" && in.o(v).attrs.find(target_key))
      arg = instantiate_node(in, v, ck, {}, {}, at, depth + 1);
    ca.kw.emplace_back(k, arg);
  }
  for (const auto& [k, v] : kw) {
    auto it = std::find_if(ca.kw.begin(), ca.kw.end(), [&](auto& p) { return p.first == k; });
    if (it != ca.kw.end()) it->second = v;
    else ca.kw.emplace_back(k, v);
  }
  return in.call(fn, ca);
}

std::optional<std::string> fspath(Interp& in, Value v) {
  if (auto s = in.as_str(v)) return std::string(*s);
  if (type_of(in, v) != "pathlib.Path") return std::nullopt;
  const Value* f = in.o(v).attrs.find(in.intern("__fspath__"));
  if (!f || !in.as_str(*f)) return std::nullopt;
  return std::string(*in.as_str(*f));
}

std::optional<Value> path_div(Interp& in, Value a, Value b) {
  if (type_of(in, a) != "pathlib.Path" && type_of(in, b) != "pathlib.Path") return std::nullopt;
  auto x = fspath(in, a), y = fspath(in, b);
  if (!x || !y) return Value::unknown();
  return new_path(in, join_path(*x, *y));
}

std::optional<fs::path> project_file(Interp& in, std::string_view path, std::string_view what, Span at) {
  std::string p(path);
  fs::path script(in.unit(0).ir->src->path);
  fs::path root = project_root(script);
  std::error_code ec;
  // Relative paths: next to the script (how the project is laid out),
  // then from the working directory (how the script is usually run).
  std::vector<fs::path> tries;
  if (fs::path(p).is_absolute()) tries.push_back(p);
  else tries = {fs::absolute(script, ec).parent_path() / p, fs::absolute(p, ec)};
  std::optional<fs::path> found;
  bool outside = false;
  for (const fs::path& t : tries) {
    fs::path c = fs::weakly_canonical(t, ec);
    if (ec || !fs::exists(c, ec)) continue;
    auto [r, _] = std::mismatch(root.begin(), root.end(), c.begin(), c.end());
    if (r != root.end()) {
      outside = true;
      continue;
    }
    found = c;
    break;
  }
  const std::string named = std::string(what) + " `" + p + "`";
  if (!found) {
    in.note_unknown(outside ? named + " is outside the analyzed project (" + root.string() + "); not read"
                            : named + " is not found; if a download or an earlier run writes it, analyze where it exists",
                    at, false);
    return std::nullopt;
  }
  if (!fs::is_regular_file(*found, ec) || fs::file_size(*found, ec) > kMaxConfigBytes) {
    in.note_unknown(named + " is not a regular file under 1 MB; not read", at, false);
    return std::nullopt;
  }
  return found;
}

/// OmegaConf's DictConfig read like a dict too: cfg["train"], cfg.get("x", d).
/// hydra.main's decorator, and the task it makes: called with no
/// arguments, it composes the config and calls the function with it.
Value config_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = false;
  Obj* ob = in.instance(self);
  if (!ob || ob->type == kNone32) return Value::unknown();
  const std::string_view type = in.str(ob->type);
  if (type == "hydra.main_decorator" && n == "__call__" && a.pos.size() > 1 && in.is_obj(a.pos[1], OKind::Function)) {
    handled = true;
    Value task = new_instance(in, "hydra.Task");
    Obj& to = in.o(task);
    to.attrs = in.o(self).attrs;
    to.attrs.set(in.intern("__wrapped__"), a.pos[1]);
    std::error_code ec;
    const fs::path file = fs::absolute(in.unit(in.o(a.pos[1]).module).ir->src->path, ec);
    to.attrs.set(in.intern("__dir__"), in.str_value(file.parent_path().string()));
    return task;
  }
  if (type == "hydra.Task" && n == "__call__") {
    handled = true;
    const Value fn = *in.o(self).attrs.find(in.intern("__wrapped__"));
    // Called with its config (a test, another entry point): hydra is not involved.
    Args ca;
    ca.span = a.span;
    ca.pos.assign(a.pos.begin() + 1, a.pos.end());
    ca.kw = a.kw;
    if (ca.pos.empty() && ca.kw.empty()) {
      Value cfg = hydra_compose(in, self, a.span);
      if (!cfg.known()) return Value::unknown();
      ca.pos.push_back(cfg);
    }
    return in.call(fn, ca);
  }
  if (type == "torchtune.Recipe" && n == "__call__") {
    handled = true;
    return recipe_call(in, self, a);
  }
  if (type == "pathlib.Path") {
    handled = true;
    const std::string me = *fspath(in, self);
    if (n == "__str__" || n == "__fspath__" || n == "as_posix") return in.str_value(me);
    if (n == "resolve" || n == "absolute" || n == "expanduser") return self;
    if (n == "joinpath") {
      std::string p = me;
      for (size_t k = 1; k < a.pos.size(); ++k) {
        auto s = fspath(in, a.pos[k]);
        if (!s) return Value::unknown();
        p = join_path(p, *s);
      }
      return new_path(in, p);
    }
    if ((n == "with_suffix" || n == "with_name") && a.pos.size() == 2) {
      auto s = in.as_str(a.pos[1]);
      const Value* nm = in.o(self).attrs.find(in.intern(n == "with_suffix" ? "stem" : "name"));
      const Value* par = in.o(self).attrs.find(in.intern("parent"));
      if (!s || !nm || !par) return Value::unknown();
      const std::string base = n == "with_suffix" ? std::string(*in.as_str(*nm)) + std::string(*s) : std::string(*s);
      return new_path(in, join_path(*fspath(in, *par), base));
    }
    if (n == "mkdir" || n == "touch") return Value::none();
    return Value::unknown();  // exists(), is_file(), read_text(), glob(): the file system's
  }
  if (type != "omegaconf.DictConfig") return Value::unknown();
  handled = true;
  if ((n == "__getitem__" || n == "get") && a.pos.size() > 1) {
    if (auto k = in.as_str(a.pos[1]))
      if (const Value* v = ob->attrs.find(in.intern(*k))) return *v;
    return n == "get" && a.pos.size() > 2 ? a.pos[2] : Value::unknown();
  }
  if (n == "pop" && a.pos.size() > 1) {
    // cfg.pop("_component_"): the value, and the key gone (torchtune's
    // optimizer-in-backward reads its class this way).
    auto k = in.as_str(a.pos[1]);
    if (!k) return Value::unknown();
    const StrId key = in.intern(*k);
    if (const Value* v = ob->attrs.find(key)) {
      Value got = *v;
      in.o(self).attrs.erase(key);
      return got;
    }
    return a.pos.size() > 2 ? a.pos[2] : Value::unknown();
  }
  return Value::unknown();
}

void register_config_files(Builtins& b) {
  auto& f = b.functions;
  f["json.load"] = f_json_load;
  f["json.loads"] = f_json_loads;
  f["yaml.safe_load"] = f_yaml_load;
  f["yaml.load"] = f_yaml_load;
  f["yaml.full_load"] = f_yaml_load;
  f["omegaconf.OmegaConf.load"] = f_omegaconf_load;
  f["hydra.main"] = f_hydra_main;
  for (const char* q : {"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath"})
    f[q] = f_path;
  f["os.fspath"] = f_os_fspath;
  f["hydra.utils.instantiate"] = f_instantiate;
  f["hydra.utils.call"] = f_instantiate;
  register_config_recipes(b);
}

}  // namespace tpf::memory
