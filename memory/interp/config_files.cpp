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
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "memory/interp/interp.h"

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

Value from_yaml(Interp& in, const YAML::Node& n, const std::string& file, bool attrs, int depth = 0) {
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

/// The path an argument names: a string, or a file `open()` gave.
std::optional<std::string> path_of(Interp& in, Value v) {
  if (auto s = in.as_str(v)) return std::string(*s);
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

}  // namespace

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
                            : named + " is not found",
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
Value config_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = false;
  Obj* ob = in.instance(self);
  if (!ob || ob->type == kNone32 || in.str(ob->type) != "omegaconf.DictConfig") return Value::unknown();
  handled = true;
  if ((n == "__getitem__" || n == "get") && a.pos.size() > 1) {
    if (auto k = in.as_str(a.pos[1]))
      if (const Value* v = ob->attrs.find(in.intern(*k))) return *v;
    return n == "get" && a.pos.size() > 2 ? a.pos[2] : Value::unknown();
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
}

}  // namespace tpf::memory
