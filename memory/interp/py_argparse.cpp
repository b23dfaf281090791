// argparse as one run of the script parses it: add_argument records each
// argument (option strings, dest, default, action, type, nargs, required),
// add_subparsers/add_parser the subcommands, and parse_args applies the
// run's command line (EstimateOptions::argv: what follows `--` on
// tpf-analyze's) over the defaults, as argparse does. Each final value goes
// through named_source once, with where it came from, so a batch size given
// on the command line is the batch size. Required arguments the run does not
// give are recorded (Interp::missing_args): the report names them when the
// estimate needs them.
// requires: interp.h. produces: handlers for argparse.
#include <algorithm>
#include <cctype>

#include "memory/interp/interp.h"

namespace tpf::memory {
namespace {

/// `--batch-size` -> batch_size; positional "lr" -> lr.
std::string dest_of(std::string_view flag) {
  while (!flag.empty() && flag.front() == '-') flag.remove_prefix(1);
  std::string d(flag);
  std::replace(d.begin(), d.end(), '-', '_');
  return d;
}

/// One add_argument call, read back from its spec object.
struct Spec {
  Value obj;
  std::vector<std::string> flags;  ///< option strings; one name for a positional
  std::string dest;
  std::string action;               ///< "", store_true, store_false, store_const, count, append, bool_optional,
                                    ///< sp_bool (simple_parsing's BooleanOptionalAction: `--x`, `--x false`, `--nox`)
  std::vector<std::string> negatives;  ///< sp_bool: the negative option strings (`--nox`)
  std::string nargs;                ///< "", "?", "*", "+", or a count
  bool required = false;
  bool positional = false;
  bool subcommands = false;         ///< the add_subparsers action
  uint32_t line = 0;
  std::string display() const { return flags.empty() ? dest : flags.back(); }
};

Value spec_attr(Interp& in, Value spec, std::string_view k) {
  const Value* v = in.o(spec).attrs.find(in.intern(k));
  return v ? *v : Value::none();
}

Spec read_spec(Interp& in, Value sp) {
  Spec s;
  s.obj = sp;
  s.line = in.o(sp).index;
  if (auto* fl = in.seq(spec_attr(in, sp, "flags")))
    for (Value f : *fl)
      if (auto t = in.as_str(f)) s.flags.emplace_back(*t);
  if (auto d = in.as_str(spec_attr(in, sp, "dest"))) s.dest = *d;
  if (auto d = in.as_str(spec_attr(in, sp, "action"))) s.action = *d;
  if (auto* ng = in.seq(spec_attr(in, sp, "negatives")))
    for (Value f : *ng)
      if (auto t = in.as_str(f)) s.negatives.emplace_back(*t);
  Value n = spec_attr(in, sp, "nargs");
  if (auto t = in.as_str(n)) s.nargs = *t;
  else if (auto c = in.as_int(n)) s.nargs = std::to_string(*c);
  s.subcommands = type_of(in, sp) == "argparse._SubParsersAction";
  s.positional = s.subcommands || s.flags.empty() || !s.flags[0].starts_with('-');
  s.required = in.truth(spec_attr(in, sp, "required")).value_or(false) ||
               (s.positional && !s.subcommands && s.nargs != "?" && s.nargs != "*");
  return s;
}

/// The parser an argument registers with: a group's is its parser's.
Value owner(Interp& in, Value p) {
  Value* parent = in.instance(p)->attrs.find(in.intern("__parent__"));
  return parent ? *parent : p;
}

Value ap_parser(Interp& in, Args&) { return new_instance(in, "argparse.ArgumentParser"); }

Value ap_add_argument(Interp& in, Args& a) {
  Value p = a.pos[0];
  std::vector<Value> flags;
  std::string longest;
  for (size_t k = 1; k < a.pos.size(); ++k) {
    auto s = in.as_str(a.pos[k]);
    if (!s) continue;
    flags.push_back(a.pos[k]);
    // argparse's dest: the first long option string, else the first one.
    if (longest.empty() || (s->starts_with("--") && !longest.starts_with("--"))) longest = std::string(*s);
  }
  std::string dest;
  if (auto d = a.kwarg(in, "dest"); d && in.as_str(*d)) dest = std::string(*in.as_str(*d));
  else dest = dest_of(longest);
  if (dest.empty()) return Value::none();
  Value def = a.kwarg(in, "default").value_or(Value::none());
  std::string action;
  if (auto ac = a.kwarg(in, "action")) {
    if (auto s = in.as_str(*ac)) action = *s;
    else if (ac->kind == VKind::Ext && in.str(ac->a).ends_with("BooleanOptionalAction"))
      action = "bool_optional";
  }
  bool required = false;
  if (auto req = a.kwarg(in, "required")) required = in.truth(*req).value_or(false);
  if (!a.kwarg(in, "default")) {
    if (action == "store_true") def = Value::boolean(false);
    else if (action == "store_false") def = Value::boolean(true);
    else if (action == "count") def = Value::none();
    else if (required || !longest.starts_with("-")) def = Value::unknown();  // the run must give it
  }
  // type=int with a string default converts it, as argparse does.
  if (auto ty = a.kwarg(in, "type"); ty && def.kind == VKind::Str && ty->kind == VKind::Ext) {
    Args ca;
    ca.pos = {def};
    Value conv = in.call(*ty, ca);
    if (conv.known()) def = conv;
  }
  ObjId spec = in.alloc(OKind::Instance);
  Obj& so = in.o(spec);
  so.type = in.intern("argparse.Action");
  so.index = in.user_line();
  Value fl = in.make_list(std::move(flags));
  in.o(spec).attrs.set(in.intern("flags"), fl);
  in.o(spec).attrs.set(in.intern("dest"), in.str_value(dest));
  in.o(spec).attrs.set(in.intern("default"), def);
  in.o(spec).attrs.set(in.intern("action"), in.str_value(action));
  in.o(spec).attrs.set(in.intern("type"), a.kwarg(in, "type").value_or(Value::none()));
  in.o(spec).attrs.set(in.intern("nargs"), a.kwarg(in, "nargs").value_or(Value::none()));
  in.o(spec).attrs.set(in.intern("const"), a.kwarg(in, "const").value_or(Value::none()));
  in.o(spec).attrs.set(in.intern("required"), Value::boolean(required));
  in.o(owner(in, p)).items.push_back(Value::obj(spec));
  return Value::obj(spec);
}

Value ap_group(Interp& in, Args& a) {
  Value g = new_instance(in, "argparse.ArgumentParser");
  in.o(g).attrs.set(in.intern("__parent__"), owner(in, a.pos[0]));
  return g;
}

Value ap_set_defaults(Interp& in, Args& a) {
  Value p = a.pos[0];
  for (auto& [k, v] : a.kw) in.o(p).attrs.set(k, v);
  return Value::none();
}

/// `parser.add_subparsers(dest=...)`: a positional whose value picks the
/// parser of the rest of the command line.
Value ap_add_subparsers(Interp& in, Args& a) {
  ObjId spec = in.alloc(OKind::Instance);
  in.o(spec).type = in.intern("argparse._SubParsersAction");
  in.o(spec).index = in.user_line();
  Value dest = a.kwarg(in, "dest").value_or(Value::none());
  in.o(spec).attrs.set(in.intern("dest"), dest.kind == VKind::Str ? dest : in.str_value(""));
  in.o(spec).attrs.set(in.intern("required"), a.kwarg(in, "required").value_or(Value::boolean(false)));
  in.o(owner(in, a.pos[0])).items.push_back(Value::obj(spec));
  return Value::obj(spec);
}

/// `subparsers.add_parser("train", ...)`: kept as name, parser pairs.
Value ap_add_parser(Interp& in, Args& a) {
  Value p = new_instance(in, "argparse.ArgumentParser");
  if (a.pos.size() > 1 && in.as_str(a.pos[1])) {
    Obj& sub = in.o(a.pos[0]);
    sub.attrs.set(in.intern("__choice_" + std::string(*in.as_str(a.pos[1]))), p);
    sub.items.push_back(a.pos[1]);  // the names in order, for the report
    if (auto al = a.kwarg(in, "aliases"); al && in.seq(*al))
      for (Value n : *in.seq(*al))
        if (auto t = in.as_str(n)) in.o(a.pos[0]).attrs.set(in.intern("__choice_" + std::string(*t)), p);
  }
  return p;
}

/// argparse accepts a unique prefix of a long option (allow_abbrev).
const Spec* unique_prefix(const std::vector<Spec>& specs, const std::string& name) {
  const Spec* hit = nullptr;
  for (const Spec& s : specs)
    for (const std::string& f : s.flags)
      if (f.starts_with("--") && f.starts_with(name)) {
        if (hit && hit != &s) return nullptr;
        hit = &s;
      }
  return hit;
}

bool option_like(std::string_view t) {
  if (t.size() < 2 || t[0] != '-') return false;
  // A negative number is a value, as argparse reads it when no option
  // looks like one.
  return !(t[1] >= '0' && t[1] <= '9') && t[1] != '.';
}

/// The final value of one dest and where it came from.
struct Final {
  std::string dest;
  Value value;
  uint32_t line = 0;
  std::string how;
  Value spec = Value::none();  ///< the argument's spec (none: a set_defaults key)
};

/// simple_parsing's str2bool words (simple_parsing/utils.py TRUE_STRINGS,
/// FALSE_STRINGS), case-insensitive.
std::optional<bool> bool_word(std::string t) {
  for (char& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (std::string_view w : {"yes", "true", "t", "y", "1"})
    if (t == w) return true;
  for (std::string_view w : {"no", "false", "f", "n", "0"})
    if (t == w) return false;
  return std::nullopt;
}

struct ParseRun {
  Interp& in;
  Value ns;
  std::vector<Final> finals;
  std::vector<std::string> given;  ///< dests the command line set

  Final& final_of(const std::string& dest) {
    for (Final& f : finals)
      if (f.dest == dest) return f;
    finals.push_back({dest, Value::none(), 0, ""});
    return finals.back();
  }

  Value convert(const Spec& s, Value v) {
    Value ty = spec_attr(in, s.obj, "type");
    if (!ty.known() || ty.kind == VKind::None || v.kind != VKind::Str) return v;
    Args ca;
    ca.pos = {v};
    Value conv = in.call(ty, ca);
    return conv.known() ? conv : v;
  }

  void set(const Spec& s, Value v, const std::string& text) {
    Final& f = final_of(s.dest);
    f.value = v;
    f.line = s.line;
    f.how = "argv " + text;
    if (std::find(given.begin(), given.end(), s.dest) == given.end()) given.push_back(s.dest);
  }

  /// Values for nargs from toks[k...]: consumes them and returns the value.
  Value take(const Spec& s, const std::vector<std::string>& toks, size_t& k, std::string& text) {
    auto one = [&](const std::string& t) {
      text += " " + t;
      return convert(s, in.str_value(t));
    };
    if (s.nargs.empty()) return k < toks.size() ? one(toks[k++]) : Value::unknown();
    if (s.nargs == "?") {
      if (k < toks.size() && !option_like(toks[k])) return one(toks[k++]);
      return spec_attr(in, s.obj, "const");
    }
    std::vector<Value> items;
    size_t want = SIZE_MAX;
    if (s.nargs != "*" && s.nargs != "+") want = static_cast<size_t>(std::max(0, std::atoi(s.nargs.c_str())));
    while (k < toks.size() && items.size() < want && !option_like(toks[k])) items.push_back(one(toks[k++]));
    return in.make_list(std::move(items));
  }

  /// Records the required arguments of `specs` the command line left out
  /// (a subcommand is one unless `chose_subcommand`).
  void check_required(const std::vector<Spec>& specs, bool chose_subcommand) {
    auto note = [&](std::string name, const Spec& s) {
      for (const MissingArg& m : in.missing_args)
        if (m.name == name) return;
      in.missing_args.push_back({std::move(name), s.line, s.positional});
    };
    for (const Spec& s : specs) {
      if (s.subcommands) {
        if (chose_subcommand || in.o(s.obj).items.empty()) continue;
        // No subcommand given: argparse's usage writes them as {a,b}.
        std::string names;
        for (Value n : in.o(s.obj).items) names += (names.empty() ? "" : ",") + std::string(*in.as_str(n));
        note("{" + names + "}", s);
        continue;
      }
      if (!s.required || s.dest.empty()) continue;
      if (std::find(given.begin(), given.end(), s.dest) == given.end()) note(s.display(), s);
    }
  }

  /// Parses toks[k...] with `parser` (and a subcommand's parser after it).
  void parse(Value parser, const std::vector<std::string>& toks, size_t k) {
    std::vector<Spec> specs;
    for (Value sp : in.o(parser).items) specs.push_back(read_spec(in, sp));
    for (const Spec& s : specs) {
      if (s.dest.empty()) continue;
      Final& f = final_of(s.dest);
      f.value = s.subcommands ? Value::none() : spec_attr(in, s.obj, "default");
      if (const Value* d = in.o(parser).attrs.find(in.intern(s.dest))) f.value = *d;
      f.line = s.line;
      f.how = "argparse " + s.display() + " default";
      f.spec = s.obj;
    }
    // set_defaults(func=train) and the like for dests no argument has.
    for (auto& [key, v] : in.o(parser).attrs.items) {
      std::string_view name = in.str(key);
      if (name.starts_with("__")) continue;
      Final& f = final_of(std::string(name));
      if (f.how.empty()) f.value = v, f.how = "set_defaults";
    }
    size_t next_positional = 0;
    bool only_positional = false;
    while (k < toks.size()) {
      const std::string& t = toks[k];
      in.charge(1);
      if (t == "--" && !only_positional) {
        only_positional = true;
        ++k;
        continue;
      }
      if (!only_positional && option_like(t)) {
        ++k;
        std::string name = t, inline_value;
        bool has_inline = false;
        if (size_t eq = t.find('='); eq != std::string::npos) {
          name = t.substr(0, eq), inline_value = t.substr(eq + 1), has_inline = true;
        }
        const Spec* hit = nullptr;
        bool negated = false;
        for (const Spec& s : specs) {
          for (const std::string& f : s.flags) {
            if (f == name) hit = &s;
            else if (s.action == "bool_optional" && f.starts_with("--") && name == "--no-" + f.substr(2))
              hit = &s, negated = true;
          }
          for (const std::string& f : s.negatives)
            if (f == name) hit = &s, negated = true;
        }
        if (!hit && name.starts_with("--")) hit = unique_prefix(specs, name);
        if (!hit) {
          in.note_unknown("`" + name + "` on the script's command line is not an argument of its parser", {}, false);
          continue;
        }
        const Spec& s = *hit;
        if (s.action == "sp_bool") {
          // `--x`, `--x=false`, `--x no`, `--nox` (a negative takes no value).
          std::string text = name;
          std::optional<bool> b = !negated;
          if (!negated && has_inline) {
            text += "=" + inline_value;
            b = bool_word(inline_value);
          } else if (!negated && k < toks.size() && bool_word(toks[k])) {
            text += " " + toks[k];
            b = bool_word(toks[k++]);
          }
          if (b) set(s, Value::boolean(*b), text);
          else in.note_unknown("`" + text + "` on the script's command line is not a boolean simple_parsing reads: not applied", {}, false);
        } else if (s.action == "store_true" || s.action == "store_false" || s.action == "bool_optional") {
          set(s, Value::boolean(s.action == "store_false" ? false : !negated), name);
        } else if (s.action == "store_const") {
          set(s, spec_attr(in, s.obj, "const"), name);
        } else if (s.action == "count") {
          Final& f = final_of(s.dest);
          int64_t n = in.as_int(f.value).value_or(0) + 1;
          set(s, in.int_value(n), name);
        } else if (s.action == "help" || s.action == "version") {
          continue;
        } else {
          std::string text = name;
          Value v;
          if (has_inline) {
            text += "=" + inline_value;
            v = convert(s, in.str_value(inline_value));
          } else {
            v = take(s, toks, k, text);
          }
          if (s.action == "append") {
            Final& f = final_of(s.dest);
            std::vector<Value> items;
            if (auto* old = in.seq(f.value); old && std::find(given.begin(), given.end(), s.dest) != given.end())
              items = *old;
            items.push_back(v);
            v = in.make_list(std::move(items));
          }
          set(s, v, text);
        }
        continue;
      }
      // A positional: the next positional argument, or the subcommand.
      while (next_positional < specs.size() && !specs[next_positional].positional) ++next_positional;
      if (next_positional >= specs.size()) {
        in.note_unknown("`" + t + "` on the script's command line is not an argument of its parser", {}, false);
        ++k;
        continue;
      }
      const Spec& s = specs[next_positional++];
      if (s.subcommands) {
        const Value* sub = in.o(s.obj).attrs.find(in.intern("__choice_" + t));
        if (!sub) {
          in.note_unknown("`" + t + "` on the script's command line is not one of its subcommands", {}, false);
          return;
        }
        if (!s.dest.empty()) set(s, in.str_value(t), t);
        check_required(specs, true);
        parse(*sub, toks, k + 1);
        return;
      }
      std::string text;
      Value v = take(s, toks, k, text);
      set(s, v, text.empty() ? t : text.substr(1));
    }
    check_required(specs, false);
  }
};

Value ap_parse(Interp& in, Args& a, bool known) {
  Value p = a.pos[0];
  Value ns = new_instance(in, "argparse.Namespace");
  std::vector<std::string> toks;
  // An explicit argv list (parse_args(["--lr", "1e-3"])) is what it
  // parses; without one, the run's command line.
  std::optional<Value> argv = a.get(in, 1, "args");
  if (argv && in.seq(*argv)) {
    for (Value t : *in.seq(*argv))
      if (auto s = in.as_str(t)) toks.emplace_back(*s);
  } else {
    toks = in.opt.argv;
    in.argv_read = true;
  }
  ParseRun run{in, ns, {}, {}};
  run.parse(p, toks, 0);
  std::vector<DataclassOption> fields;  // simple_parsing's: they build dataclasses
  for (Final& f : run.finals) {
    if (f.spec.kind == VKind::Obj && in.o(f.spec).attrs.find(in.intern("__sp_dest__"))) {
      bool given = std::find(run.given.begin(), run.given.end(), f.dest) != run.given.end();
      fields.push_back({f.spec, f.value, given, f.how});
      continue;
    }
    Value v = in.named_source(f.dest, f.value, f.line, f.how);
    in.o(ns).attrs.set(in.intern(f.dest), v);
  }
  if (!fields.empty()) simple_parsing_build(in, ns, fields);
  if (known) return in.make_list({ns, in.make_list({})}, OKind::Tuple);
  return ns;
}

// ------------------------------------------------------- HfArgumentParser

/// transformers.HfArgumentParser((ModelArguments, DataArguments,
/// TrainingArguments)): the dataclasses it fills, in order.
Value hf_parser(Interp& in, Args& a) {
  Value p = new_instance(in, "transformers.HfArgumentParser");
  Value types = a.get(in, 0, "dataclass_types").value_or(Value::unknown());
  std::vector<Value> list;
  if (auto* s = in.seq(types)) list = *s;
  else if (types.known()) list = {types};
  in.o(p).attrs.set(in.intern("__types__"), in.make_list(std::move(list)));
  return p;
}

/// One `--key value` of the run's command line, as HfArgumentParser reads
/// it: `--key value`, `--key=value`, or a bare `--key` (a bool flag: True).
struct HfOption {
  std::string key, text, shown;  ///< shown: as written; the source is "argv " + shown, or `how`
  std::string how;
  bool bare = false;
  bool used = false;
};

std::vector<HfOption> hf_options(const std::vector<std::string>& argv) {
  std::vector<HfOption> out;
  for (size_t k = 0; k < argv.size(); ++k) {
    const std::string& t = argv[k];
    if (!t.starts_with("--") || t.size() == 2) continue;
    HfOption o;
    size_t eq = t.find('=');
    o.key = dest_of(t.substr(0, eq));
    if (eq != std::string::npos) {
      o.text = t.substr(eq + 1);
      o.shown = t;
    } else if (k + 1 < argv.size() && !option_like(argv[k + 1])) {
      o.text = argv[++k];
      o.shown = t + " " + o.text;
    } else {
      o.bare = true;
      o.shown = t;
    }
    out.push_back(std::move(o));
  }
  return out;
}

/// A command-line value as the field's annotation converts it; no
/// annotation (TrainingArguments' fields): a number, a bool or the string.
Value hf_value(Interp& in, const HfOption& o, std::string_view type) {
  if (o.bare) return Value::boolean(true);
  std::string low = o.text;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (type == "bool" || type.empty()) {
    if (low == "true" || (type == "bool" && (low == "yes" || low == "1"))) return Value::boolean(true);
    if (low == "false" || (type == "bool" && (low == "no" || low == "0"))) return Value::boolean(false);
  }
  if (type == "str") return in.str_value(o.text);
  return number_word(in, o.text, type != "float").value_or(in.str_value(o.text));
}

/// parse_args_into_dataclasses(): each dataclass of the script gets the
/// options named like its fields (the rest keep their defaults; one with no
/// default and no option is a required argument the run left out); a
/// library dataclass (TrainingArguments) gets the options no other claims.
std::string hf_how(const HfOption& o) { return o.how.empty() ? "argv " + o.shown : o.how; }

Value hf_fill(Interp& in, Value parser, std::vector<HfOption>& opts, Args& a, bool from_file);

Value hf_parse(Interp& in, Value parser, Args& a) {
  std::vector<std::string> toks = in.opt.argv;
  if (auto given = a.get(in, 1, "args"); given && in.seq(*given)) {
    toks.clear();
    for (Value t : *in.seq(*given))
      if (auto s = in.as_str(t)) toks.emplace_back(*s);
  } else {
    in.argv_read = true;
  }
  std::vector<HfOption> opts = hf_options(toks);
  return hf_fill(in, parser, opts, a, false);
}

/// parse_json_file(json_file) / parse_yaml_file(yaml_file) / parse_dict(args):
/// the document's keys are the options (the file read as json.load and
/// yaml.safe_load read it: inside the project only).
Value hf_parse_document(Interp& in, Value parser, Args& a, std::string_view how) {
  Value doc;
  std::string where = "the dict";
  if (how == "dict") {
    doc = a.get(in, 1, "args").value_or(Value::unknown());
  } else {
    Value path = a.get(in, 1, how == "json" ? "json_file" : "yaml_file").value_or(Value::unknown());
    auto p = in.as_str(path);
    if (!p) {
      in.note_unknown("HfArgumentParser.parse_" + std::string(how) + "_file: the file's path is not known; pass "
                      "the options after `--` instead",
                      a.span, false);
      return Value::unknown();
    }
    where = std::string(*p);
    Args oa{{path}, {}, a.span};
    Value f = in.call(Value::ext(in.intern("builtins.open")), oa);
    Args la{{f}, {}, a.span};
    doc = in.call(Value::ext(in.intern(how == "json" ? "json.load" : "yaml.safe_load")), la);
  }
  if (!in.is_obj(doc, OKind::Dict)) return Value::unknown();  // the loader said why
  std::vector<HfOption> opts;
  std::vector<Value> items = in.o(doc).items;
  for (size_t k = 0; k + 1 < items.size(); k += 2) {
    auto key = in.as_str(items[k]);
    Value v = items[k + 1];
    if (!key) continue;
    HfOption o;
    o.key = std::string(*key);
    o.shown = o.key;
    o.how = where + ": " + o.key;
    if (v.kind == VKind::Bool) o.text = v.a ? "true" : "false";
    else if (v.kind == VKind::Int) o.text = std::to_string(in.dims.value(v.dim()));
    else if (v.kind == VKind::Float) o.text = std::to_string(v.f);
    else if (auto t = in.as_str(v)) o.text = std::string(*t);
    else continue;  // lists and tables: not a scalar option
    opts.push_back(std::move(o));
  }
  return hf_fill(in, parser, opts, a, true);
}

/// The dataclasses filled from `opts` (the command line's or a document's).
Value hf_fill(Interp& in, Value parser, std::vector<HfOption>& opts, Args& a, bool from_file) {
  const Value* tv = in.o(parser).attrs.find(in.intern("__types__"));
  std::vector<Value> types = tv && in.seq(*tv) ? *in.seq(*tv) : std::vector<Value>{};
  std::vector<Value> out(types.size(), Value::unknown());
  // The script's own dataclasses first: their fields claim their options.
  for (size_t k = 0; k < types.size(); ++k) {
    if (!in.is_obj(types[k], OKind::Class)) continue;
    Args ca;
    ca.span = a.span;
    for (const DataclassField& f : dataclass_fields(in, types[k].a)) {
      const std::string name(in.str(f.name));
      HfOption* hit = nullptr;
      for (HfOption& o : opts)
        if (o.key == name) hit = &o;
      if (!hit) {
        if (!f.has_default) in.missing_args.push_back({"--" + name, f.line, false});
        continue;
      }
      hit->used = true;
      Value v = hf_value(in, *hit, f.type);
      // The command line replaces the field's default (already a source).
      if (v.kind == VKind::Int) v = in.override_source(name, v, f.line, hf_how(*hit));
      ca.kw.emplace_back(f.name, v);
    }
    out[k] = in.call(types[k], ca);
  }
  // A library's (TrainingArguments): the options left, as its keywords.
  for (size_t k = 0; k < types.size(); ++k) {
    if (types[k].kind != VKind::Ext) continue;
    Args ca;
    ca.span = a.span;
    for (HfOption& o : opts)
      if (!o.used) {
        o.used = true;
        Value v = hf_value(in, o, "");
        if (v.kind == VKind::Int) v = in.override_source(o.key, v, in.user_line(), hf_how(o));
        ca.kw.emplace_back(in.intern(o.key), v);
      }
    out[k] = in.call(types[k], ca);
  }
  for (const HfOption& o : opts)
    if (!o.used)
      in.note_unknown("option `" + o.shown + "` of " +
                          (from_file ? o.how.substr(0, o.how.rfind(": ")) : std::string("the run's command line")) +
                          " is not a field of the script's HfArgumentParser dataclasses: not applied",
                      a.span, false);
  if (!from_file &&
      in.truth(a.kwarg(in, "return_remaining_strings").value_or(Value::boolean(false))).value_or(false))
    out.push_back(in.make_list({}));
  return in.make_list(std::move(out), OKind::Tuple);
}

}  // namespace

Value argparse_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = true;
  if (type_of(in, self) == "argparse.ArgumentParser") {
    if (n == "add_argument") return ap_add_argument(in, a);
    if (n == "add_argument_group" || n == "add_mutually_exclusive_group") return ap_group(in, a);
    if (n == "set_defaults") return ap_set_defaults(in, a);
    if (n == "add_subparsers") return ap_add_subparsers(in, a);
    if (n == "parse_args") return ap_parse(in, a, false);
    if (n == "parse_known_args") return ap_parse(in, a, true);
    if (n == "add_arguments") return simple_parsing_add_arguments(in, a);
    return Value::unknown();
  }
  if (type_of(in, self) == "transformers.HfArgumentParser") {
    if (n == "parse_args_into_dataclasses") return hf_parse(in, self, a);
    if (n == "parse_json_file") return hf_parse_document(in, self, a, "json");
    if (n == "parse_yaml_file") return hf_parse_document(in, self, a, "yaml");
    if (n == "parse_dict") return hf_parse_document(in, self, a, "dict");
    return Value::unknown();
  }
  if (type_of(in, self) == "argparse._SubParsersAction") {
    if (n == "add_parser") return ap_add_parser(in, a);
    return Value::unknown();
  }
  handled = false;
  return Value::unknown();
}

void register_argparse(Builtins& b) {
  b.functions["argparse.ArgumentParser"] = ap_parser;
  b.functions["transformers.HfArgumentParser"] = hf_parser;
  b.functions["transformers.hf_argparser.HfArgumentParser"] = hf_parser;
}

}  // namespace tpf::memory
