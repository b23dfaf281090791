// simple_parsing (lebrice/SimpleParsing) as one run of the script parses its
// command line: `parser.add_arguments(TrainConfig, dest="config")` adds one
// argparse option per dataclass field, named as simple_parsing names it, so
// the argparse pass (py_argparse.cpp) parses the run's words with the
// script's own add_argument calls; simple_parsing_build then sets
// `args.config` to the dataclass built from the options given.
// `simple_parsing.parse(Config, args=...)` is the same with dest "config".
// requires: interp.h, py_argparse.cpp. produces: handlers for simple_parsing.
#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "memory/interp/interp.h"

namespace tpf::memory {
namespace {

// What simple_parsing does, read in lebrice/SimpleParsing at 3b5bc23
// (2026-01-20):
// - FieldWrapper.option_strings (wrappers/field_wrapper.py): with the
//   defaults (DashVariant.AUTO = underscores only, ArgumentGenerationMode.
//   FLAT) a field's option is `--` + prefix + name; a one-letter name also
//   gets one dash (`-x` and `--x`; the dash count follows the name alone).
// - ConflictResolution.AUTO (conflicts.py `_fix_conflict_auto`,
//   examples/simple/reuse.py): a field name two top-level dataclasses share
//   becomes `--dest.name` for each (`--train.num_layers`,
//   `--valid.num_layers`); unique names stay flat.
// - a bool field takes BooleanOptionalAction (helpers/custom_actions.py):
//   `--x` is True, `--x=false` / `--x no` the str2bool word, `--nox` False
//   (the prefix `--no` + the name, or `--dest.nox` for a prefixed one).
// - a field with no default is a required option; a list or tuple takes
//   nargs="*"; `field(alias=...)` adds option strings (the prefix after the
//   alias's own dashes).
// - a field typed as a dataclass nests it (DataclassWrapper): its fields
//   are flat options as well, their dest `parent.field`; in a conflict the
//   least nested field keeps the flat name and the others take as many last
//   words of their dest as tell them apart (`--optim.width`,
//   test/nesting/test_nesting_defaults.py `--dp_config.epsilon`).

bool is_dataclass_class(Interp& in, Value v) {
  return in.is_obj(v, OKind::Class) && (in.o(v.a).flags & kDataclass) != 0;
}

/// The class of a dataclass instance, else nullopt.
std::optional<Value> dataclass_of_instance(Interp& in, Value v) {
  Obj* ob = in.instance(v);
  if (!ob || ob->cls == kNone32 || !(in.o(ob->cls).flags & kDataclass)) return std::nullopt;
  return Value::obj(ob->cls);
}

Value spec_attr(Interp& in, Value spec, std::string_view k) {
  const Value* v = in.o(spec).attrs.find(in.intern(k));
  return v ? *v : Value::none();
}

std::string spec_str(Interp& in, Value spec, std::string_view k) {
  return std::string(in.as_str(spec_attr(in, spec, k)).value_or(""));
}

/// FieldWrapper.option_strings: `--` + prefix + name (one dash too for a
/// one-letter name), then each alias with the prefix after its own dashes
/// (one dash for a bare one-letter alias), shortest first.
std::vector<std::string> field_options(const std::string& prefix, const std::string& name,
                                       const std::vector<std::string>& aliases) {
  std::vector<std::string> out;
  auto add = [&](const std::string& o) {
    if (std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  };
  if (name.size() == 1) add("-" + prefix + name);
  add("--" + prefix + name);
  for (const std::string& al : aliases) {
    size_t lead = al.find_first_not_of('-');
    if (lead == std::string::npos) continue;
    std::string bare = al.substr(lead);
    size_t dashes = lead == 0 ? (bare.size() == 1 ? 1 : 2) : std::min<size_t>(lead, 2);
    add(std::string(dashes, '-') + prefix + bare);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const std::string& x, const std::string& y) { return x.size() < y.size(); });
  return out;
}

/// Sets a spec's option strings, and for a bool field the negative ones
/// BooleanOptionalAction makes of each: `--no` + the name, or `--a.b.nox`
/// for a dotted one.
void set_option_strings(Interp& in, Value spec, const std::vector<std::string>& options, bool flag) {
  std::vector<Value> flags, negatives;
  std::vector<std::string> seen;
  for (const std::string& o : options) {
    flags.push_back(in.str_value(o));
    if (!flag) continue;
    std::string bare = o.substr(o.find_first_not_of('-'));
    size_t dot = bare.rfind('.');
    std::string neg = dot == std::string::npos ? "--no" + bare
                                               : "--" + bare.substr(0, dot + 1) + "no" + bare.substr(dot + 1);
    if (std::find(seen.begin(), seen.end(), neg) != seen.end()) continue;
    seen.push_back(neg);
    negatives.push_back(in.str_value(neg));
  }
  in.o(spec).attrs.set(in.intern("flags"), in.make_list(std::move(flags)));
  in.o(spec).attrs.set(in.intern("negatives"), in.make_list(std::move(negatives)));
}

std::vector<std::string> spec_aliases(Interp& in, Value spec) {
  std::vector<std::string> out;
  if (auto* l = in.seq(spec_attr(in, spec, "__sp_aliases__")))
    for (Value v : *l)
      if (auto t = in.as_str(v)) out.emplace_back(*t);
  return out;
}

/// The last `words` words of a dest (`config.optim` -> `optim`).
std::string dest_tail(const std::string& dest, size_t words) {
  size_t at = dest.size();
  for (size_t w = 0; w < words; ++w) {
    size_t dot = at == 0 ? std::string::npos : dest.rfind('.', at - 1);
    if (dot == std::string::npos) return dest;
    at = dot;
  }
  return dest.substr(at + 1);
}

/// ConflictResolution.AUTO over the fields whose flat option is the same:
/// the least nested keeps it when it alone is the least nested; the others
/// take the fewest last words of their dest that tell them apart
/// (`--train.lr` / `--valid.lr`; `--optim.lr` under a `config` dest).
void resolve_conflict(Interp& in, std::vector<Value> group) {
  std::stable_sort(group.begin(), group.end(), [&](Value x, Value y) {
    return in.as_int(spec_attr(in, x, "__sp_depth__")).value_or(0) <
           in.as_int(spec_attr(in, y, "__sp_depth__")).value_or(0);
  });
  auto depth = [&](Value s) { return in.as_int(spec_attr(in, s, "__sp_depth__")).value_or(0); };
  size_t first = depth(group[0]) < depth(group[1]) ? 1 : 0;
  if (first == 1) {
    Value s = group[0];
    set_option_strings(in, s, field_options(spec_str(in, s, "__sp_prefix__"), spec_str(in, s, "__sp_field__"),
                                            spec_aliases(in, s)),
                       in.truth(spec_attr(in, s, "__sp_flag__")).value_or(false));
  }
  for (size_t words = 1; words <= 8; ++words) {
    std::vector<std::string> prefixes;
    for (size_t k = first; k < group.size(); ++k)
      prefixes.push_back(dest_tail(spec_str(in, group[k], "__sp_dest__"), words) + ".");
    std::vector<std::string> sorted = prefixes;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() && words < 8) continue;
    for (size_t k = first; k < group.size(); ++k) {
      Value s = group[k];
      set_option_strings(in, s,
                         field_options(prefixes[k - first], spec_str(in, s, "__sp_field__"), spec_aliases(in, s)),
                         in.truth(spec_attr(in, s, "__sp_flag__")).value_or(false));
    }
    return;
  }
}

/// The parser an argument registers with: a group's is its parser's.
Value owner_parser(Interp& in, Value p) {
  const Value* parent = in.o(p).attrs.find(in.intern("__parent__"));
  return parent ? *parent : p;
}

bool is_sequence_annotation(std::string_view t) {
  if (t.starts_with("Optional[")) t.remove_prefix(9);
  for (std::string_view k : {"List[", "list[", "Tuple[", "tuple[", "Sequence[", "typing.List[", "typing.Tuple["})
    if (t.starts_with(k)) return true;
  return false;
}

/// The dataclass a field's annotation names (`optim: OptimConfig`,
/// `Optional[OptimConfig]`, `"OptimConfig"`), looked up in the module of
/// the class that declares it; nullopt for anything else.
std::optional<Value> nested_dataclass(Interp& in, Value cls, std::string_view t) {
  if (t.starts_with("Optional[") && t.ends_with("]")) t = t.substr(9, t.size() - 10);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (t.empty() || !std::all_of(t.begin(), t.end(), ident)) return std::nullopt;
  std::optional<Value> g = in.unit_global(in.o(cls).module, t);
  if (g && is_dataclass_class(in, *g)) return g;
  return std::nullopt;
}

/// Adds the options of dataclass `cls` for `dest` (and of the dataclasses
/// its fields nest, under `dest.field`); returns what went wrong for the
/// report, "" when it worked.
std::string add_dataclass(Interp& in, Value parser, Value cls, Value default_obj, const std::string& dest,
                          const std::string& prefix, Span at, int depth) {
  if (dest.empty()) return "no `dest` is given";
  if (depth > 8) return {};  // dataclasses nested deeper than any config needs
  Value home = owner_parser(in, parser);
  for (const DataclassField& f : dataclass_fields(in, cls.a)) {
    const std::string name(in.str(f.name));
    if (auto sub = nested_dataclass(in, cls, f.annotation)) {
      add_dataclass(in, parser, *sub, Value::unknown(), dest + "." + name, prefix, at, depth + 1);
      continue;
    }
    const bool flag = f.type == "bool" && !is_sequence_annotation(f.annotation);
    Args aa;
    aa.span = at;
    aa.pos.push_back(parser);
    aa.pos.push_back(in.str_value("--" + prefix + name));  // replaced below
    aa.kw.emplace_back(in.intern("dest"), in.str_value(dest + "." + name));
    aa.kw.emplace_back(in.intern("default"), Value::none());
    if (!f.has_default && !default_obj.known() && depth == 0)
      aa.kw.emplace_back(in.intern("required"), Value::boolean(true));
    if (flag) {
      aa.kw.emplace_back(in.intern("action"), in.str_value("sp_bool"));
    } else {
      if (f.type == "int" || f.type == "float")
        aa.kw.emplace_back(in.intern("type"), Value::ext(in.intern("builtins." + std::string(f.type))));
      if (is_sequence_annotation(f.annotation)) aa.kw.emplace_back(in.intern("nargs"), in.str_value("*"));
    }
    bool handled = false;
    Value spec = argparse_method(in, parser, "add_argument", aa, handled);
    if (!in.instance(spec)) continue;
    std::vector<Value> aliases;
    for (const std::string& al : f.aliases) aliases.push_back(in.str_value(al));
    Obj& so = in.o(spec);
    so.index = f.line;
    so.attrs.set(in.intern("__sp_dest__"), in.str_value(dest));
    so.attrs.set(in.intern("__sp_field__"), Value::str(f.name));
    so.attrs.set(in.intern("__sp_prefix__"), in.str_value(prefix));
    so.attrs.set(in.intern("__sp_option__"), in.str_value(prefix + name));
    so.attrs.set(in.intern("__sp_class__"), cls);
    so.attrs.set(in.intern("__sp_default__"), default_obj);
    so.attrs.set(in.intern("__sp_flag__"), Value::boolean(flag));
    so.attrs.set(in.intern("__sp_depth__"), in.int_value(depth));
    in.o(spec).attrs.set(in.intern("__sp_aliases__"), in.make_list(std::move(aliases)));
    set_option_strings(in, spec, field_options(prefix, name, f.aliases), flag);
    // The fields this flat option already names in other dests: a conflict.
    const Value* known = in.o(home).attrs.find(in.intern("__sp_specs__"));
    std::vector<Value> specs = known && in.seq(*known) ? *in.seq(*known) : std::vector<Value>{};
    std::vector<Value> group;
    for (Value other : specs)
      if (spec_str(in, other, "__sp_option__") == prefix + name && spec_str(in, other, "__sp_dest__") != dest)
        group.push_back(other);
    if (!group.empty()) {
      group.push_back(spec);
      resolve_conflict(in, group);
    }
    specs.push_back(spec);
    in.o(home).attrs.set(in.intern("__sp_specs__"), in.make_list(std::move(specs)));
  }
  return {};
}

/// `add_arguments(dataclass, dest, *, prefix="", default=None)`: `dataclass`
/// is the class, or an instance whose values are the defaults.
Value sp_add_arguments(Interp& in, Value parser, Args& a, std::string_view who) {
  Value what = a.get(in, 1, "dataclass").value_or(Value::unknown());
  Value default_obj = a.kwarg(in, "default").value_or(Value::none());
  std::string dest(in.as_str(a.get(in, 2, "dest").value_or(Value::none())).value_or(""));
  std::string prefix(in.as_str(a.kwarg(in, "prefix").value_or(Value::none())).value_or(""));
  Value cls = what;
  if (auto c = dataclass_of_instance(in, what)) {
    cls = *c;
    default_obj = what;
  }
  std::string why;
  if (!is_dataclass_class(in, cls)) why = "its argument is not a dataclass the estimate follows";
  else why = add_dataclass(in, parser, cls, default_obj.kind == VKind::None ? Value::unknown() : default_obj, dest,
                           prefix, a.span, 0);
  if (!why.empty())
    in.note_unknown(std::string(who) + ": the run's command line could not be read for `" +
                        (dest.empty() ? std::string("add_arguments") : dest) + "`: " + why,
                    a.span, false);
  return Value::none();
}

/// The words of `args=` (a list, or a string split at spaces as
/// shlex.split splits a plain one).
std::optional<Value> words_of(Interp& in, Value v) {
  if (in.seq(v)) return v;
  auto s = in.as_str(v);
  if (!s) return std::nullopt;
  std::vector<Value> words;
  std::string w;
  for (char ch : std::string(*s) + " ") {
    if (ch == ' ' || ch == '\t' || ch == '\n') {
      if (!w.empty()) words.push_back(in.str_value(w)), w.clear();
    } else {
      w += ch;
    }
  }
  return in.make_list(std::move(words));
}

/// simple_parsing.parse(config_class, config_path=None, args=None,
/// default=None, dest="config"): the dataclass parsed from the run's
/// command line (or `args`). parse_known_args returns it with the rest.
Value sp_parse_fn(Interp& in, Args& a, bool known) {
  Value parser = new_instance(in, "argparse.ArgumentParser");
  Value cls = a.get(in, 0, "config_class").value_or(Value::unknown());
  if (auto cp = a.get(in, 1, "config_path"); cp && cp->kind != VKind::None)
    in.note_unknown("simple_parsing.parse: the config file of `config_path` is not read: give its values after `--`",
                    a.span, false);
  std::string dest(in.as_str(a.get(in, 4, "dest").value_or(Value::none())).value_or("config"));
  Args aa;
  aa.span = a.span;
  aa.pos = {parser, cls, in.str_value(dest)};
  if (auto d = a.get(in, 3, "default")) aa.kw.emplace_back(in.intern("default"), *d);
  if (auto p = a.kwarg(in, "prefix")) aa.kw.emplace_back(in.intern("prefix"), *p);
  sp_add_arguments(in, parser, aa, "simple_parsing.parse");
  Args pa;
  pa.span = a.span;
  pa.pos.push_back(parser);
  if (auto w = a.get(in, 2, "args"); w && w->kind != VKind::None) {
    if (auto list = words_of(in, *w)) pa.pos.push_back(*list);
  }
  bool handled = false;
  Value ns = argparse_method(in, parser, known ? "parse_known_args" : "parse_args", pa, handled);
  if (known) {
    auto* pair = in.seq(ns);
    if (!pair || pair->empty()) return Value::unknown();
    return in.make_list({in.getattr((*pair)[0], dest), (*pair)[1]}, OKind::Tuple);
  }
  return in.instance(ns) ? in.getattr(ns, dest) : Value::unknown();
}
Value sp_parse(Interp& in, Args& a) { return sp_parse_fn(in, a, false); }
Value sp_parse_known(Interp& in, Args& a) { return sp_parse_fn(in, a, true); }

/// simple_parsing.ArgumentParser(): an argparse parser that also takes
/// add_arguments. `add_config_path_arg=True` (or a name) adds
/// `--config_path`, whose file is not read: the report says so when the run
/// gives one, as for `config_path=`.
Value sp_parser(Interp& in, Args& a) {
  Value p = new_instance(in, "argparse.ArgumentParser");
  if (auto cp = a.kwarg(in, "config_path"); cp && cp->kind != VKind::None)
    in.note_unknown("simple_parsing.ArgumentParser: the config file of `config_path` is not read: give its values "
                    "after `--`",
                    a.span, false);
  Value flag = a.kwarg(in, "add_config_path_arg").value_or(Value::none());
  std::string name(in.as_str(flag).value_or(in.truth(flag).value_or(false) ? "config_path" : ""));
  if (!name.empty()) {
    Args aa;
    aa.span = a.span;
    aa.pos = {p, in.str_value("--" + name)};
    aa.kw.emplace_back(in.intern("nargs"), in.str_value("*"));
    bool handled = false;
    Value spec = argparse_method(in, p, "add_argument", aa, handled);
    if (in.instance(spec)) {
      in.o(spec).attrs.set(in.intern("__sp_dest__"), Value::none());
      in.o(spec).attrs.set(in.intern("__sp_config__"), Value::boolean(true));
    }
  }
  return p;
}

/// simple_parsing.field(default, alias, ...) / flag(default) at class-body
/// time: the default the dataclass field gets.
Value sp_field(Interp& in, Args& a) {
  if (auto d = a.get(in, 0, "default")) return *d;
  if (auto f = a.kwarg(in, "default_factory")) {
    Args ca;
    ca.span = a.span;
    return in.call(*f, ca);
  }
  return Value::unknown();
}

/// list_field(*items): a list of the items.
Value sp_list_field(Interp& in, Args& a) { return in.make_list(a.pos); }

/// choice(*choices, default=...): the default.
Value sp_choice(Interp& in, Args& a) { return a.kwarg(in, "default").value_or(Value::unknown()); }

}  // namespace

Value simple_parsing_add_arguments(Interp& in, Args& a) {
  return sp_add_arguments(in, a.pos[0], a, "simple_parsing add_arguments");
}

/// A copy of a dataclass instance (its attributes), so options given for one
/// dest never change the default object the script passed.
Value copy_instance(Interp& in, Value v) {
  ObjId copy = in.alloc(OKind::Instance);
  Obj& src = in.o(v);
  Obj& dst = in.o(copy);
  dst.type = src.type, dst.cls = src.cls, dst.flags = src.flags, dst.line = src.line;
  dst.attrs = src.attrs;
  return Value::obj(copy);
}

void simple_parsing_build(Interp& in, Value ns, const std::vector<DataclassOption>& fields) {
  // Each dest's options; the outermost dests first, so a nested dataclass
  // (`config.optim`) is set on the object its parent dest built.
  std::vector<std::string> dests;
  for (const DataclassOption& o : fields) {
    if (in.o(o.spec).attrs.find(in.intern("__sp_config__"))) {
      if (o.given)
        in.note_unknown("simple_parsing: the config file of `" + o.how.substr(o.how.find(' ') + 1) +
                            "` is not read: give its values after `--`",
                        {}, false);
      continue;
    }
    std::string d = spec_str(in, o.spec, "__sp_dest__");
    if (std::find(dests.begin(), dests.end(), d) == dests.end()) dests.push_back(d);
  }
  auto depth = [](const std::string& d) { return std::count(d.begin(), d.end(), '.'); };
  std::stable_sort(dests.begin(), dests.end(),
                   [&](const std::string& x, const std::string& y) { return depth(x) < depth(y); });
  std::vector<std::pair<std::string, Value>> built;
  for (const std::string& d : dests) {
    Value cls = Value::unknown(), base = Value::unknown();
    Args ca;
    for (const DataclassOption& o : fields) {
      if (spec_str(in, o.spec, "__sp_dest__") != d) continue;
      cls = spec_attr(in, o.spec, "__sp_class__");
      base = spec_attr(in, o.spec, "__sp_default__");
      if (!o.given) continue;
      StrId name = in.intern(spec_str(in, o.spec, "__sp_field__"));
      Value v = o.value;
      // The command line replaces the field's default (already a source).
      if (v.kind == VKind::Int) v = in.override_source(in.str(name), v, in.o(o.spec).index, o.how);
      ca.kw.emplace_back(name, v);
    }
    size_t dot = d.rfind('.');
    if (dot != std::string::npos) {
      // A nested dataclass: the instance its parent holds (its default or
      // default_factory's), with the options given.
      auto parent = std::find_if(built.begin(), built.end(), [&](auto& b) { return b.first == d.substr(0, dot); });
      if (parent == built.end()) continue;
      StrId field = in.intern(d.substr(dot + 1));
      Value cur = in.getattr(parent->second, field);
      Value obj = dataclass_of_instance(in, cur) ? copy_instance(in, cur) : Value::unknown();
      if (obj.known()) {
        for (auto& [k, v] : ca.kw) in.setattr(obj, k, v);
      } else {
        obj = in.call(cls, ca);
      }
      if (!ca.kw.empty() || !cur.known()) in.setattr(parent->second, field, obj);
      built.emplace_back(d, in.getattr(parent->second, field));
      continue;
    }
    Value obj;
    if (dataclass_of_instance(in, base)) {
      obj = copy_instance(in, base);  // a default instance, with the options given
      for (auto& [k, v] : ca.kw) in.setattr(obj, k, v);
    } else {
      obj = in.call(cls, ca);
    }
    in.o(ns).attrs.set(in.intern(d), obj);
    built.emplace_back(d, obj);
  }
}

void register_simple_parsing(Builtins& b) {
  auto& f = b.functions;
  for (std::string_view m : {"simple_parsing", "simple_parsing.parsing"}) {
    f[std::string(m) + ".ArgumentParser"] = sp_parser;
    f[std::string(m) + ".parse"] = sp_parse;
    f[std::string(m) + ".parse_known_args"] = sp_parse_known;
  }
  for (std::string_view m : {"simple_parsing", "simple_parsing.helpers", "simple_parsing.helpers.fields"}) {
    f[std::string(m) + ".field"] = sp_field;
    f[std::string(m) + ".flag"] = sp_field;
    f[std::string(m) + ".list_field"] = sp_list_field;
    f[std::string(m) + ".choice"] = sp_choice;
  }
}

}  // namespace tpf::memory
