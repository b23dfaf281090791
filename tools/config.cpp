// [tool.tpf] in pyproject.toml: discovery, parsing with toml++, and the
// checks on every key (unknown keys, wrong types, unknown rules, severities,
// fail_on values and GPU names are errors with the key's position).
// requires: toml++, checks/registry.h, targets/. produces: Config.
#include "tools/config.h"

#include <toml++/toml.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "memory/memory.h"
#include "targets/targets.h"
#include "tools/glob.h"

namespace fs = std::filesystem;

namespace tpf::tools {

namespace {

constexpr std::string_view kKeys =
    "select, ignore, fail_on, target, severity, exclude, per-file-ignores, follow-imports, "
    "target-version, scripts";

std::string where(const fs::path& file, const toml::source_region& r) {
  return file.string() + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

/// `fail-on` and `fail_on` are the same key (ruff writes kebab-case, Python
/// people snake_case).
std::string normalize(std::string_view key) {
  std::string k(key);
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

/// Each key of a table as first spelled, and where.
using KeysSeen = std::map<std::string, std::pair<std::string, std::string>>;

/// `fail-on` and `fail_on` are one key: given both, which one wins would
/// be a guess, so it is an error.
bool first_spelling(KeysSeen& seen, const std::string& key, std::string_view spelled,
                    const std::string& at, std::string& error) {
  auto [it, fresh] = seen.try_emplace(key, std::string(spelled), at);
  if (fresh) return true;
  error = at + ": `" + std::string(spelled) + "` is `" + it->second.first + "` again (" +
          it->second.second + "): give it once";
  return false;
}

/// A string, or an array of strings, as a list.
bool string_list(const fs::path& file, std::string_view key, const toml::node& node,
                 std::vector<std::string>& out, std::string& error) {
  if (const auto* s = node.as_string()) {
    out.push_back(s->get());
    return true;
  }
  const toml::array* arr = node.as_array();
  if (!arr) {
    error = where(file, node.source()) + ": `" + std::string(key) +
            "` must be a list of strings";
    return false;
  }
  for (const toml::node& item : *arr) {
    const auto* s = item.as_string();
    if (!s) {
      error = where(file, item.source()) + ": `" + std::string(key) +
              "` must be a list of strings";
      return false;
    }
    out.push_back(s->get());
  }
  return true;
}

/// Rule names are checked the way --select checks them.
bool check_rules(const fs::path& file, std::string_view key, const toml::node& node,
                 const std::vector<std::string>& items, std::string& error) {
  checks::RunOptions ignored;
  std::vector<std::string> notes;
  std::string e;
  if (checks::select_rules({}, items, ignored, e, notes)) return true;
  // e: "unknown rule 'X' in --ignore (see --list-rules)"
  size_t q = e.find('\'');
  size_t q2 = q == std::string::npos ? q : e.find('\'', q + 1);
  std::string name = q2 == std::string::npos ? "?" : e.substr(q + 1, q2 - q - 1);
  error = where(file, node.source()) + ": unknown rule '" + name + "' in `" + std::string(key) +
          "` (see tpf-analyze --list-rules)";
  return false;
}

bool one_string(const fs::path& file, std::string_view key, const toml::node& node,
                std::string& out, std::string& error) {
  const auto* s = node.as_string();
  if (!s) {
    error = where(file, node.source()) + ": `" + std::string(key) + "` must be a string";
    return false;
  }
  out = s->get();
  return true;
}

bool parse_file(const fs::path& file, toml::table& out, std::string& error) {
  try {
    out = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    error = where(file, e.source()) + ": invalid TOML: " + std::string(e.description());
    return false;
  }
  return true;
}

const toml::table* tpf_table(const toml::table& doc) {
  const toml::table* tool = doc["tool"].as_table();
  return tool ? (*tool)["tpf"].as_table() : nullptr;
}

/// `path` relative to the config's folder, as `/`-separated components;
/// empty when it lies outside.
std::vector<std::string> components(const fs::path& p) {
  std::vector<std::string> out;
  for (const fs::path& c : p)
    if (!c.empty() && c != "/" && c != ".") out.push_back(c.string());
  return out;
}

/// Calls `visit(path)` for each pyproject.toml in `start`'s folder and the
/// folders above it, nearest first, until it returns true.
template <typename Visit>
void each_pyproject_upwards(const fs::path& start, Visit visit) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (;;) {
    fs::path candidate = dir / "pyproject.toml";
    if (fs::is_regular_file(candidate, ec) && visit(candidate)) return;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return;
    dir = dir.parent_path();
  }
}

/// One [tool.tpf.scripts."PATH"] table: args, target, dtype, batch-size,
/// seq-len, world-size.
bool load_script_run(const fs::path& file, const std::string& pattern, uint32_t line, const toml::node& node,
                     Config& out, std::string& error) {
  const toml::table* t = node.as_table();
  const std::string name = "scripts.\"" + pattern + "\"";
  if (!t) {
    error = where(file, node.source()) + ": `" + name + "` must be a table (args, target, dtype, batch-size, "
            "seq-len, world-size)";
    return false;
  }
  ScriptRun run;
  run.glob = {pattern, line};
  KeysSeen seen;
  for (auto&& [k, v] : *t) {
    const std::string key = normalize(k.str());
    const std::string full = name + "." + std::string(k.str());
    if (!first_spelling(seen, key, k.str(), where(file, k.source()), error)) return false;
    if (key == "args") {
      if (!string_list(file, full, v, run.args, error)) return false;
    } else if (key == "target" || key == "dtype") {
      std::string s;
      if (!one_string(file, full, v, s, error)) return false;
      if (key == "target") {
        targets::LookupResult r = targets::lookup_target(s);
        if (!r.ok()) {
          error = where(file, v.source()) + ": `" + full + "`: " + r.error.message() +
                  " (see tpf-analyze --list-targets)";
          return false;
        }
        run.target = s;
      } else {
        if (s != "fp32" && s != "bf16" && s != "fp16") {
          error = where(file, v.source()) + ": `" + full + "` is '" + s + "' (expected fp32, bf16 or fp16)";
          return false;
        }
        run.dtype = s;
      }
    } else if (key == "batch_size" || key == "seq_len" || key == "world_size") {
      const auto* i = v.as_integer();
      if (!i || i->get() <= 0) {
        error = where(file, v.source()) + ": `" + full + "` must be a positive integer";
        return false;
      }
      (key == "batch_size" ? run.batch_size : key == "seq_len" ? run.seq_len : run.world_size) = i->get();
    } else {
      error = where(file, k.source()) + ": unknown key `" + std::string(k.str()) + "` in `" + name +
              "` (expected args, target, dtype, batch-size, seq-len or world-size)";
      return false;
    }
  }
  out.scripts.push_back(std::move(run));
  return true;
}

}  // namespace

std::optional<fs::path> find_config(const fs::path& start, std::string& error) {
  std::optional<fs::path> found;
  each_pyproject_upwards(start, [&](const fs::path& candidate) {
    toml::table doc;
    if (!parse_file(candidate, doc, error)) return true;
    if (tpf_table(doc)) found = candidate;
    return found.has_value();
  });
  return found;
}

bool load_config(const fs::path& file, Config& out, std::string& error) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) {
    error = file.string() + ": No such file";
    return false;
  }
  toml::table doc;
  if (!parse_file(file, doc, error)) return false;
  if (const auto* rp = doc["project"]["requires-python"].as_string()) {
    out.requires_python = lowest_required_python(rp->get());
    out.requires_python_text = rp->get();
  }
  const toml::table* tbl = tpf_table(doc);
  out.file = file;
  out.root = fs::absolute(file, ec).lexically_normal().parent_path();
  if (!tbl) {
    error = file.string() + ":1:1: no [tool.tpf] table";
    return false;
  }
  KeysSeen seen;
  for (auto&& [k, v] : *tbl) {
    std::string key = normalize(k.str());
    std::string at = where(file, k.source());
    if (!first_spelling(seen, key, k.str(), at, error)) return false;
    if (key == "select" || key == "ignore") {
      std::vector<std::string> items;
      if (!string_list(file, k.str(), v, items, error) ||
          !check_rules(file, k.str(), v, items, error))
        return false;
      bool blank = true;
      for (const std::string& item : items)
        blank &= item.find_first_not_of(" \t,") == std::string::npos;
      if (key == "select" && blank) {
        error = where(file, v.source()) + ": `" + std::string(k.str()) +
                "` is empty, so no rule would run: name rules (\"TPF001\", \"TPF0\"), or "
                "leave it out to run them all";
        return false;
      }
      if (key == "select") out.select = std::move(items);
      else out.ignore = std::move(items);
    } else if (key == "fail_on") {
      std::string s;
      if (!one_string(file, k.str(), v, s, error)) return false;
      if (s != "error" && s != "warning" && s != "never") {
        error = where(file, v.source()) + ": `" + std::string(k.str()) + "` is '" + s +
                "' (expected error, warning or never)";
        return false;
      }
      out.fail_on = s;
    } else if (key == "target") {
      std::string s;
      if (!one_string(file, k.str(), v, s, error)) return false;
      targets::LookupResult t = targets::lookup_target(s);
      if (!t.ok()) {
        error = where(file, v.source()) + ": `target`: " + t.error.message() +
                " (see tpf-analyze --list-targets)";
        return false;
      }
      out.target = s;
    } else if (key == "torch_version") {
      std::string s;
      if (!one_string(file, k.str(), v, s, error)) return false;
      if (!memory::parse_torch_version(s)) {
        error = where(file, v.source()) + ": `" + std::string(k.str()) + "` is '" + s + "' (expected X.Y, as \"1.13\")";
        return false;
      }
      out.torch_version = s;
    } else if (key == "follow_imports") {
      const auto* b = v.as_boolean();
      if (!b) {
        error = where(file, v.source()) + ": `" + std::string(k.str()) + "` must be true or false";
        return false;
      }
      out.follow_imports = b->get();
    } else if (key == "target_version") {
      std::string s;
      if (!one_string(file, k.str(), v, s, error)) return false;
      std::optional<PyVersion> ver = parse_py_version(s);
      if (!ver) {
        error = where(file, v.source()) + ": `" + std::string(k.str()) + "` is '" + s +
                "' (expected a Python version from 3.8 to 3.13, as \"3.12\" or \"py312\")";
        return false;
      }
      out.target_version = ver;
      out.target_version_at = where(file, v.source());
    } else if (key == "severity") {
      const toml::table* sev = v.as_table();
      if (!sev) {
        error = where(file, v.source()) +
                ": `severity` must be a table of rule = \"error\" | \"warning\" | \"note\"";
        return false;
      }
      for (auto&& [rk, rv] : *sev) {
        const checks::RuleInfo* r = checks::find_rule(rk.str());
        if (!r) {
          error = where(file, rk.source()) + ": unknown rule '" + std::string(rk.str()) +
                  "' in `severity` (see tpf-analyze --list-rules)";
          return false;
        }
        std::string s;
        if (!one_string(file, "severity." + std::string(rk.str()), rv, s, error)) return false;
        Severity level;
        if (s == "error") level = Severity::Error;
        else if (s == "warning") level = Severity::Warning;
        else if (s == "note") level = Severity::Note;
        else {
          error = where(file, rv.source()) + ": `severity." + std::string(rk.str()) + "` is '" + s +
                  "' (expected error, warning or note)";
          return false;
        }
        out.severity.emplace_back(r->id, level);
      }
    } else if (key == "exclude") {
      std::vector<std::string> items;
      if (!string_list(file, k.str(), v, items, error)) return false;
      for (std::string& p : items) out.exclude.push_back({std::move(p), k.source().begin.line});
    } else if (key == "per_file_ignores") {
      const toml::table* pfi = v.as_table();
      if (!pfi) {
        error = where(file, v.source()) +
                ": `" + std::string(k.str()) + "` must be a table of \"glob\" = [rules]";
        return false;
      }
      for (auto&& [gk, gv] : *pfi) {
        std::vector<std::string> items;
        std::string name = std::string(k.str()) + "." + std::string(gk.str());
        if (!string_list(file, name, gv, items, error) ||
            !check_rules(file, name, gv, items, error))
          return false;
        out.per_file_ignores.push_back({{std::string(gk.str()), gk.source().begin.line}, items});
      }
    } else if (key == "scripts") {
      const toml::table* scripts = v.as_table();
      if (!scripts) {
        error = where(file, v.source()) + ": `scripts` must be a table of \"path\" = { args = [...], ... }";
        return false;
      }
      for (auto&& [sk, sv] : *scripts) {
        if (!load_script_run(file, std::string(sk.str()), sk.source().begin.line, sv, out, error)) return false;
      }
    } else {
      error = at + ": unknown key `" + std::string(k.str()) + "` in [tool.tpf] (expected one of " +
              std::string(kKeys) + ")";
      return false;
    }
  }
  return true;
}

std::optional<RequiresPython> find_requires_python(const fs::path& start) {
  std::optional<RequiresPython> found;
  each_pyproject_upwards(start, [&](const fs::path& candidate) {
    toml::table doc;
    std::string error;
    if (!parse_file(candidate, doc, error)) return false;
    // The nearest pyproject.toml is the project's, with or without the key.
    if (const auto* rp = doc["project"]["requires-python"].as_string())
      if (std::optional<PyVersion> v = lowest_required_python(rp->get()))
        found = RequiresPython{*v, candidate, rp->get()};
    return true;
  });
  return found;
}

bool matches_any(const Config& cfg, const std::vector<ConfigGlob>& globs, const std::string& path) {
  if (globs.empty()) return false;
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec).lexically_normal();
  fs::path rel = cfg.root.empty() ? fs::path() : abs.lexically_relative(cfg.root);
  bool inside = !rel.empty() && *rel.begin() != "..";
  std::vector<std::string> parts = components(inside ? rel : abs);
  for (const ConfigGlob& g : globs) {
    std::string_view pat = g.pattern;
    while (pat.starts_with("./")) pat.remove_prefix(2);
    while (pat.ends_with('/')) pat.remove_suffix(1);  // `generated/`: a folder, still unanchored
    bool anchored = pat.find('/') != std::string_view::npos;
    if (anchored && pat.starts_with('/')) pat.remove_prefix(1);
    if (anchored && !inside) continue;
    std::string prefix;
    for (const std::string& c : parts) {
      if (!prefix.empty()) prefix += '/';
      prefix += c;
      if (glob_match(pat, anchored ? std::string_view(prefix) : std::string_view(c))) return true;
    }
  }
  return false;
}

const ScriptRun* script_for(const Config& cfg, const std::string& path) {
  for (const ScriptRun& s : cfg.scripts)
    if (matches_any(cfg, {s.glob}, path)) return &s;
  return nullptr;
}

checks::RunOptions rules_for(const Config& cfg, const checks::RunOptions& base,
                             const std::string& path) {
  checks::RunOptions out = base;
  for (const auto& [glob, codes] : cfg.per_file_ignores) {
    if (!matches_any(cfg, {glob}, path)) continue;
    checks::RunOptions dropped;
    std::string error;
    std::vector<std::string> notes;
    // Everything but `codes`: validated when the file was read.
    if (checks::select_rules({}, codes, dropped, error, notes)) out.enabled &= dropped.enabled;
  }
  return out;
}

}  // namespace tpf::tools
