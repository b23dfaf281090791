// Command-line libraries other than argparse and click, as one run of the
// script parses its command line (EstimateOptions::argv, what follows `--`
// on tpf-analyze's):
// - fire: `fire.Fire(fn)` calls fn with the positional and `--name=value`
//   arguments (Python literals); `fire.Fire(Class)` builds it and calls the
//   method the first positional names; `fire.Fire({"train": fn})` and
//   `fire.Fire()` (the module's functions) pick by the first positional.
// - jsonargparse: `CLI(fn)` / `CLI({"cmd": fn})` / `CLI([fn, ...])` binds
//   `--name value`, required parameters positionally and `--arg.field value`
//   into a dataclass default (litgpt's `litgpt pretrain --model_name X`).
// Each integer value goes through override_source with where it came from.
// requires: interp.h, cli_words.h. produces: handlers for fire and
// jsonargparse, and the words helpers of cli_words.h.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "memory/interp/cli_words.h"
#include "memory/interp/interp.h"

namespace tpf::memory {


Value word_value(Interp& in, const std::string& t, std::string_view type) {
  if (type == "str") return in.str_value(t);
  if (type.empty() || type == "bool") {
    if (t == "True" || t == "true") return Value::boolean(true);
    if (t == "False" || t == "false") return Value::boolean(false);
  }
  if (type.empty() && t == "None") return Value::none();
  return number_word(in, t, type != "float").value_or(in.str_value(t));
}

std::string option_dest(std::string_view flag) {
  while (!flag.empty() && flag.front() == '-') flag.remove_prefix(1);
  std::string d(flag);
  for (char& c : d) c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return d;
}

Value argv_source(Interp& in, const std::string& name, Value v, const std::string& shown) {
  return v.kind == VKind::Int ? in.override_source(name, v, in.user_line(), "argv " + shown) : v;
}

std::string function_name(Interp& in, Value fn) {
  if (!in.is_obj(fn, OKind::Function)) return {};
  const Obj& fo = in.o(fn);
  const ir::Module& m = *in.unit(fo.module).ir;
  std::string q(m.names.str(m.fn(ir::FunctionId(fo.index)).qualname));
  return q.substr(q.rfind('.') + 1);
}


namespace {

/// A `--flag` token of the run's command line at argv[k], as fire and
/// jsonargparse read it: its value after `=` or in the next token (which
/// then is consumed: k advances), none for a bare flag; `shown` is the
/// text as given.
struct FlagToken {
  std::string flag;  ///< the part before `=`, dashes included
  std::optional<Value> value;
  std::string shown;
};

FlagToken read_flag(Interp& in, const std::vector<std::string>& argv, size_t& k) {
  const std::string& t = argv[k];
  size_t eq = t.find('=');
  FlagToken out{t.substr(0, eq), std::nullopt, t};
  if (eq != std::string::npos) {
    out.value = word_value(in, t.substr(eq + 1));
  } else if (k + 1 < argv.size() && !argv[k + 1].starts_with("--")) {
    out.value = word_value(in, argv[k + 1]);
    out.shown = t + " " + argv[++k];
  }
  return out;
}

// ------------------------------------------------------------------- fire

/// fire.Fire(component): the run's arguments as the component's.
Value fire_fire(Interp& in, Args& a) {
  in.argv_read = true;
  std::vector<std::string> argv = in.opt.argv;
  if (auto c = a.get(in, 1, "command")) {
    argv.clear();
    if (auto s = in.as_str(*c)) {
      std::string w;
      for (char ch : std::string(*s) + " ")
        if (ch == ' ') {
          if (!w.empty()) argv.push_back(w), w.clear();
        } else {
          w += ch;
        }
    } else if (auto* l = in.seq(*c)) {
      for (Value v : *l)
        if (auto t = in.as_str(v)) argv.emplace_back(*t);
    }
  }
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> kws;  // name, shown
  Args ca;
  ca.span = a.span;
  for (size_t k = 0; k < argv.size(); ++k) {
    const std::string& t = argv[k];
    if (!t.starts_with("--")) {
      positional.push_back(t);
      continue;
    }
    FlagToken ft = read_flag(in, argv, k);
    std::string name = option_dest(ft.flag);
    Value v = Value::boolean(true);
    if (ft.value) {
      v = *ft.value;
    } else if (name.starts_with("no")) {
      v = Value::boolean(false);  // --noflag
      name = name.substr(2);
    }
    ca.kw.emplace_back(in.intern(name), argv_source(in, name, v, ft.shown));
  }
  Value comp = a.get(in, 0, "component").value_or(Value::none());
  auto take_positionals = [&](Args& args) {
    for (const std::string& p : positional) args.pos.push_back(argv_source(in, "", word_value(in, p), p));
    positional.clear();
  };
  // A dict of commands, or the module's functions: the first positional picks.
  if (comp.kind == VKind::None || in.is_obj(comp, OKind::Dict)) {
    if (positional.empty()) {
      in.note_unknown("fire.Fire: no command is given: pass its name after `--`", a.span, true);
      return Value::unknown();
    }
    std::string cmd = positional.front();
    positional.erase(positional.begin());
    comp = comp.kind == VKind::None ? in.unit_global(in.namespace_unit(), cmd).value_or(Value::unknown())
                                    : in.getitem(comp, in.str_value(cmd));
    if (!comp.known()) {
      in.note_unknown("fire.Fire: the command `" + cmd + "` is not found", a.span, true);
      return Value::unknown();
    }
  }
  if (in.is_obj(comp, OKind::Class)) {
    // The class takes the keywords its methods do not; the first positional
    // names the method.
    std::string method = positional.empty() ? std::string() : positional.front();
    if (!method.empty()) positional.erase(positional.begin());
    // __init__ takes the keywords it names; the method the rest.
    std::vector<StrId> init_params;
    if (const Value* init_fn = in.class_lookup(comp.a, in.intern("__init__")); init_fn && in.is_obj(*init_fn, OKind::Function)) {
      const Obj& fo = in.o(*init_fn);
      const ir::Module& m = *in.unit(fo.module).ir;
      for (const ir::Param& p : m.fn(ir::FunctionId(fo.index)).params) init_params.push_back(in.intern(m.names.str(p.name)));
    }
    Args init, ma;
    init.span = ma.span = a.span;
    ma.pos.push_back(Value::none());  // call_method's self, below
    for (auto& kv : ca.kw)
      (std::find(init_params.begin(), init_params.end(), kv.first) != init_params.end() || method.empty() ? init : ma)
          .kw.push_back(kv);
    Value obj = in.call(comp, init);
    if (method.empty()) return obj;
    ma.pos[0] = obj;
    take_positionals(ma);
    return in.call_method(obj, in.intern(method), ma);
  }
  take_positionals(ca);
  return in.call(comp, ca);
}

// ------------------------------------------------------------ jsonargparse

/// The parameters of a project function, in order, with their defaults
/// (Unbound where there is none).
std::vector<std::pair<std::string, Value>> function_params(Interp& in, Value fn) {
  std::vector<std::pair<std::string, Value>> out;
  if (!in.is_obj(fn, OKind::Function)) return out;
  const Obj& fo = in.o(fn);
  const ir::Module& m = *in.unit(fo.module).ir;
  size_t di = 0;
  for (const ir::Param& p : m.fn(ir::FunctionId(fo.index)).params) {
    if (p.kind == ir::ParamKind::VarArgs || p.kind == ir::ParamKind::KwArgs) continue;
    Value d{VKind::Unbound, 0, 0};
    if (p.has_default && di < fo.items.size()) d = fo.items[di];
    di += p.has_default;
    out.emplace_back(std::string(m.names.str(p.name)), d);
  }
  return out;
}


/// jsonargparse.CLI(components, args=None): the run's arguments as the
/// function's parameters: `--name value` / `--name=value`, a required one
/// also positionally, `--group.field value` into the dataclass instance a
/// parameter defaults to (litgpt's `--train.micro_batch_size 4`). A dict or
/// list of functions: the first positional names the command (litgpt's
/// `CLI(PARSER_DATA)`, `litgpt pretrain --model_name pythia-160m`).
Value jsonargparse_cli(Interp& in, Args& a) {
  in.argv_read = true;
  std::vector<std::string> argv = in.opt.argv;
  if (auto c = a.get(in, 1, "args"); c && in.seq(*c)) {
    argv.clear();
    for (Value v : *in.seq(*c))
      if (auto t = in.as_str(v)) argv.emplace_back(*t);
  }
  Value comp = a.get(in, 0, "components").value_or(Value::none());
  auto command_word = [&]() -> std::optional<std::string> {
    for (size_t k = 0; k < argv.size(); ++k)
      if (!argv[k].starts_with("-")) {
        std::string w = argv[k];
        argv.erase(argv.begin() + static_cast<long>(k));
        return w;
      }
    return std::nullopt;
  };
  if (in.is_obj(comp, OKind::Dict) || in.is_obj(comp, OKind::List) || in.is_obj(comp, OKind::Tuple)) {
    bool dict = in.is_obj(comp, OKind::Dict);
    std::vector<std::string> names;
    std::vector<Value> fns;
    const std::vector<Value>& items = in.o(comp).items;
    for (size_t k = 0; k < items.size(); k += dict ? 2 : 1) {
      if (dict && k + 1 >= items.size()) break;
      Value f = dict ? items[k + 1] : items[k];
      std::string n = dict ? std::string(in.as_str(items[k]).value_or("")) : function_name(in, f);
      names.push_back(n);
      fns.push_back(f);
    }
    std::optional<std::string> cmd = command_word();
    if (!cmd) {
      std::string list = "{";
      for (size_t k = 0; k < names.size() && k < 6; ++k) list += (k ? "," : "") + names[k];
      list += names.size() > 6 ? ",...}" : "}";
      in.missing_args.push_back({list, in.user_line(), true});
      return Value::unknown();
    }
    auto it = std::find(names.begin(), names.end(), *cmd);
    if (it == names.end()) {
      std::string list;
      for (size_t k = 0; k < names.size() && k < 6; ++k) list += (k ? ", " : "") + names[k];
      if (names.size() > 6) list += ", ...";
      in.note_unknown("jsonargparse.CLI: the command `" + *cmd + "` is not one of the script's (" + list + ")", a.span,
                      true);
      return Value::unknown();
    }
    comp = fns[static_cast<size_t>(it - names.begin())];
  }
  if (!in.is_obj(comp, OKind::Function)) {
    in.note_unknown("jsonargparse.CLI: only functions (or a dict or list of them) are followed", a.span, true);
    return Value::unknown();
  }
  auto params = function_params(in, comp);
  std::vector<std::optional<Value>> given(params.size());
  auto index_of = [&](const std::string& n) -> int {
    for (size_t k = 0; k < params.size(); ++k)
      if (params[k].first == n) return static_cast<int>(k);
    return -1;
  };
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::pair<Value, std::string>>> dotted;  // head.field, value, shown
  for (size_t k = 0; k < argv.size(); ++k) {
    const std::string& t = argv[k];
    if (!t.starts_with("--")) {
      positional.push_back(t);
      continue;
    }
    FlagToken ft = read_flag(in, argv, k);
    std::string key = ft.flag.substr(2), shown = ft.shown;
    Value v = ft.value.value_or(Value::boolean(true));
    if (key == "config") {
      in.note_unknown("jsonargparse.CLI: the configuration file of `" + shown + "` is not read: give its values as "
                          "arguments",
                      a.span, false);
      continue;
    }
    size_t dot = key.find('.');
    std::string head = key.substr(0, dot);
    int pi = index_of(head);
    if (pi < 0) {
      in.note_unknown("argument `" + shown + "` of the run's command line is not a parameter of `" +
                          function_name(in, comp) + "`: not applied",
                      a.span, false);
      continue;
    }
    if (dot != std::string::npos) {
      dotted.push_back({key, {v, shown}});
      continue;
    }
    given[static_cast<size_t>(pi)] = argv_source(in, head, v, shown);
  }
  // Required parameters may be given positionally, in order.
  for (size_t k = 0; k < params.size() && !positional.empty(); ++k) {
    if (given[k] || params[k].second.kind != VKind::Unbound) continue;
    given[k] = argv_source(in, params[k].first, word_value(in, positional.front()), positional.front());
    positional.erase(positional.begin());
  }
  for (const std::string& p : positional)
    in.note_unknown("argument `" + p + "` of the run's command line is not a parameter of `" + function_name(in, comp) +
                        "`: not applied",
                    a.span, false);
  for (auto& [key, vs] : dotted) {
    size_t dot = key.find('.');
    std::string head = key.substr(0, dot), field = key.substr(dot + 1);
    size_t pi = static_cast<size_t>(index_of(head));
    Value base = given[pi] ? *given[pi] : params[pi].second;
    if (!in.instance(base) || field.find('.') != std::string::npos) {
      in.note_unknown("argument `" + vs.second + "` of the run's command line sets a field of `" + head +
                          "`, whose default is not an object the estimate follows: not applied",
                      a.span, false);
      continue;
    }
    in.setattr(base, in.intern(field), argv_source(in, field, vs.first, vs.second));
    given[pi] = base;
  }
  // A required parameter left out: jsonargparse stops with an error, and
  // so does the run (nothing is guessed for it).
  bool missing = false;
  for (size_t k = 0; k < params.size(); ++k)
    if (!given[k] && params[k].second.kind == VKind::Unbound) {
      in.missing_args.push_back({"--" + params[k].first, in.user_line(), false});
      missing = true;
    }
  if (missing) return Value::unknown();
  Args ca;
  ca.span = a.span;
  for (size_t k = 0; k < params.size(); ++k)
    if (given[k]) ca.kw.emplace_back(in.intern(params[k].first), *given[k]);
  return in.call(comp, ca);
}

}  // namespace

void register_cli(Builtins& b) {
  auto& f = b.functions;
  f["fire.Fire"] = fire_fire;
  f["jsonargparse.CLI"] = jsonargparse_cli;
  f["jsonargparse.auto_cli"] = jsonargparse_cli;
}

}  // namespace tpf::memory
