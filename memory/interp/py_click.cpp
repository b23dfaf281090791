// click as one run of the script parses its command line
// (EstimateOptions::argv, what follows `--` on tpf-analyze's):
// `@click.command()` over `@click.option("--batch-size", default=32)` /
// `@click.argument("data")`; calling the command parses the run's arguments
// into the function's keywords (defaults, flags, `--x/--no-x`, types from
// `type=` or the default). A `@click.group()` takes its options, then the
// subcommand's name (`@cli.command()`, `cli.add_command(f)`), whose command
// gets the rest; the group's callback runs first, and `@click.pass_context`
// / `@click.pass_obj` pass `ctx.obj` along. Each integer value goes through
// override_source with where it came from.
// requires: interp.h, cli_words.h. produces: handlers for click.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "memory/interp/cli_words.h"
#include "memory/interp/interp.h"

namespace tpf::memory {
namespace {

/// click.option(...) / click.argument(...): a decorator carrying its spec.
Value click_param(Interp& in, Args& a, bool argument) {
  Value d = new_instance(in, "click.param_decorator");
  Obj& ob = in.o(d);
  std::vector<Value> decls;
  for (Value v : a.pos)
    if (in.as_str(v)) decls.push_back(v);
  ob.attrs.set(in.intern("decls"), in.make_list(decls));
  ob.attrs.set(in.intern("argument"), Value::boolean(argument));
  for (auto& [k, v] : a.kw) ob.attrs.set(k, v);
  ob.index = in.user_line();
  return d;
}
Value click_option(Interp& in, Args& a) { return click_param(in, a, false); }
Value click_argument(Interp& in, Args& a) { return click_param(in, a, true); }

Value attr(Interp& in, Value o, std::string_view k) {
  const Value* v = in.o(o).attrs.find(in.intern(k));
  return v ? *v : Value::unknown();
}

/// A command's name as click derives it from the function's: lower case,
/// `_` as `-` (click 7.0, decorators.py `_make_command`), and since click 8.2
/// without a `-command`, `-cmd`, `-group` or `-grp` suffix (`train_cmd` is
/// `train`; click 8.4 answers `probe-cmd` with "No such command"). `name=`
/// replaces it. `click7` gets the 7.x-8.1 spelling where it differs.
std::string command_name(Interp& in, Value fn, Value given, std::string* click7 = nullptr) {
  if (auto s = in.as_str(given)) return std::string(*s);
  std::string n = function_name(in, fn);
  for (char& c : n) c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t dash = n.rfind('-');
  if (dash != std::string::npos && dash > 0) {
    std::string suffix = n.substr(dash + 1);
    if (suffix == "command" || suffix == "cmd" || suffix == "group" || suffix == "grp") {
      if (click7) *click7 = n;
      n.resize(dash);
    }
  }
  return n;
}

/// click.command() / click.group() over `fn`: a Command (a Group keeps its
/// subcommands, in the order they were added).
Value make_command(Interp& in, Value fn, Value name, bool group, Value settings = Value::none()) {
  Value c = new_instance(in, group ? "click.Group" : "click.Command");
  Obj& co = in.o(c);
  co.attrs.set(in.intern("fn"), fn);
  std::string click7;
  co.attrs.set(in.intern("name"), in.str_value(command_name(in, fn, name, &click7)));
  if (!click7.empty()) in.o(c).attrs.set(in.intern("__click7_name__"), in.str_value(click7));
  co.index = in.user_line();
  if (group) {
    Value iwc = Value::boolean(false);
    if (in.instance(settings))
      if (const Value* v = in.o(settings).attrs.find(in.intern("invoke_without_command"))) iwc = *v;
    in.o(c).attrs.set(in.intern("__invoke_without_command__"), iwc);
    in.o(c).attrs.set(in.intern("__commands__"), in.make_list({}));
  }
  return c;
}

/// The decorator `click.command(...)`, `click.group(...)`, `grp.command(...)`
/// or `grp.group(...)` returns: what to build and, for the last two, the
/// group that takes it.
Value command_decorator(Interp& in, Args& a, size_t first, bool group, Value parent) {
  Value d = new_instance(in, "click.command_decorator");
  Obj& dob = in.o(d);
  Value name = a.get(in, first, "name").value_or(Value::none());
  dob.attrs.set(in.intern("name"), name);
  dob.attrs.set(in.intern("__group__"), Value::boolean(group));
  dob.attrs.set(in.intern("__parent__"), parent);
  for (auto& [k, v] : a.kw) in.o(d).attrs.set(k, v);
  return d;
}

/// `grp.add_command(cmd, name)` and the `@grp.command()` decorators.
void add_subcommand(Interp& in, Value group, Value cmd, Value name) {
  if (in.as_str(name)) {
    in.o(cmd).attrs.set(in.intern("name"), name);
    in.o(cmd).attrs.set(in.intern("__click7_name__"), Value::none());
  }
  Value list = attr(in, group, "__commands__");
  if (auto* items = in.seq(list)) items->push_back(cmd);
}

/// click.command() / click.group(): the decorator, or the command itself
/// when applied bare (`@click.command`).
Value click_command_fn(Interp& in, Args& a, bool group) {
  if (!a.pos.empty() && in.is_obj(a.pos[0], OKind::Function)) return make_command(in, a.pos[0], Value::none(), group);
  return command_decorator(in, a, 0, group, Value::none());
}
Value click_command(Interp& in, Args& a) { return click_command_fn(in, a, false); }
Value click_group(Interp& in, Args& a) { return click_command_fn(in, a, true); }

/// @click.pass_context / @click.pass_obj: the callback takes the context
/// (its `obj`) first. Applied to a Command (above its decorator) it marks
/// the command's function.
Value click_pass(Interp& in, Args& a, std::string_view mark) {
  if (a.pos.empty()) return Value::unknown();
  Value f = a.pos[0];
  if (type_of(in, f) == "click.Command" || type_of(in, f) == "click.Group") f = attr(in, f, "fn");
  if (in.is_obj(f, OKind::Function)) in.o(f).attrs.set(in.intern(mark), Value::boolean(true));
  return a.pos[0];
}
Value click_pass_context(Interp& in, Args& a) { return click_pass(in, a, "__click_pass_context__"); }
Value click_pass_obj(Interp& in, Args& a) { return click_pass(in, a, "__click_pass_obj__"); }

/// The parameters a function's click decorators recorded, outermost first.
std::vector<Value> click_params(Interp& in, Value fn) {
  const Value* p = in.o(fn).attrs.find(in.intern("__click_params__"));
  return p && in.seq(*p) ? *in.seq(*p) : std::vector<Value>{};
}

/// One click parameter, read back from its decorator.
struct ClickParam {
  Value obj;
  std::vector<std::string> flags, off;  ///< option strings; `--no-x` of `--x/--no-x`
  std::string name;
  bool argument = false, flag = false;
  std::string_view type;  ///< "int", "float", "str" or "" (a word as written)
};

ClickParam read_param(Interp& in, Value p) {
  ClickParam c;
  c.obj = p;
  for (Value d : *in.seq(attr(in, p, "decls"))) {
    std::string s(*in.as_str(d));
    if (!s.starts_with('-')) {
      c.name = s;
      continue;
    }
    if (size_t sl = s.find('/'); sl != std::string::npos) {  // "--amp/--no-amp"
      c.off.push_back(s.substr(sl + 1));
      s.resize(sl);
    }
    c.flags.push_back(s);
  }
  if (c.name.empty()) {
    std::string longest;
    for (const std::string& f : c.flags)
      if (f.size() > longest.size()) longest = f;
    c.name = option_dest(longest);
  }
  c.argument = in.truth(attr(in, p, "argument")).value_or(false);
  c.flag = in.truth(attr(in, p, "is_flag")).value_or(false) || !c.off.empty();
  Value type = attr(in, p, "type");
  Value dflt = attr(in, p, "default");
  if (type.kind == VKind::Ext) {
    std::string_view q = in.str(type.a);
    c.type = q == "builtins.int" ? "int" : q == "builtins.float" ? "float" : q == "builtins.str" ? "str" : "";
  } else if (dflt.kind == VKind::Int) {
    c.type = "int";
  } else if (dflt.kind == VKind::Float) {
    c.type = "float";
  }
  return c;
}

/// The parameters of `fn`'s decorators in the order click binds them:
/// options first (they take their words wherever they are), then the
/// arguments in the order written (decorators apply innermost first, so the
/// recorded list is bottom-up).
std::vector<ClickParam> command_params(Interp& in, Value fn) {
  std::vector<Value> params = click_params(in, fn);
  std::reverse(params.begin(), params.end());
  std::vector<ClickParam> out;
  for (Value p : params) out.push_back(read_param(in, p));
  std::stable_partition(out.begin(), out.end(), [](const ClickParam& p) { return !p.argument; });
  return out;
}

/// Binds `fn`'s click parameters from `argv` as click does, into `ca`'s
/// keywords; a word no parameter takes is named in the report.
void click_bind(Interp& in, Value fn, const std::vector<std::string>& argv, Args& ca, std::string_view what) {
  std::vector<bool> used(argv.size(), false);
  size_t next_positional = 0;
  for (const ClickParam& p : command_params(in, fn)) {
    Value dflt = attr(in, p.obj, "default");
    std::string_view ty = p.type.empty() ? "str" : p.type;
    std::optional<Value> got;
    std::string shown;
    if (p.argument) {
      for (size_t k = next_positional; k < argv.size(); ++k) {
        if (used[k] || argv[k].starts_with('-')) continue;
        used[k] = true;
        next_positional = k + 1;
        got = word_value(in, argv[k], ty);
        shown = argv[k];
        break;
      }
    } else {
      for (size_t k = 0; k < argv.size(); ++k) {
        if (used[k]) continue;
        const std::string& t = argv[k];
        size_t eq = t.find('=');
        std::string head = t.substr(0, eq);
        if (std::find(p.off.begin(), p.off.end(), head) != p.off.end()) {
          used[k] = true, got = Value::boolean(false), shown = t;
          continue;
        }
        if (std::find(p.flags.begin(), p.flags.end(), head) == p.flags.end()) continue;
        used[k] = true;
        if (p.flag) {
          got = Value::boolean(true), shown = t;
        } else if (eq != std::string::npos) {
          got = word_value(in, t.substr(eq + 1), ty), shown = t;
        } else if (k + 1 < argv.size()) {
          used[k + 1] = true;
          got = word_value(in, argv[k + 1], ty), shown = t + " " + argv[k + 1];
        }
      }
    }
    Value v;
    if (got) {
      v = argv_source(in, p.name, *got, shown);
    } else if (dflt.known() || dflt.kind == VKind::None) {
      v = dflt;
    } else if (p.flag) {
      v = Value::boolean(false);
    } else {
      if (p.argument || in.truth(attr(in, p.obj, "required")).value_or(false))
        in.missing_args.push_back({p.argument ? p.name : (p.flags.empty() ? p.name : p.flags.back()),
                                   in.o(p.obj).index, p.argument});
      v = p.argument ? Value::unknown() : Value::none();
    }
    ca.kw.emplace_back(in.intern(p.name), v);
  }
  for (size_t k = 0; k < argv.size(); ++k)
    if (!used[k])
      in.note_unknown("argument `" + argv[k] + "` of the run's command line is not an option of the click " +
                          std::string(what) + ": not applied",
                      ca.span, false);
}

/// click.Context: `obj` is what the group callback leaves for its
/// subcommands (a child context starts with its parent's obj, as click's
/// Context.__init__ takes `parent.obj`).
Value make_context(Interp& in, Value obj) {
  Value ctx = new_instance(in, "click.Context");
  in.o(ctx).attrs.set(in.intern("obj"), obj);
  in.o(ctx).attrs.set(in.intern("invoked_subcommand"), Value::none());
  return ctx;
}

/// Runs a command's callback with `argv` bound to its parameters, and the
/// context first when it asks for it (@click.pass_context / pass_obj).
Value run_callback(Interp& in, Value cmd, const std::vector<std::string>& argv, Value ctx, Span at,
                   std::string_view what) {
  Value fn = attr(in, cmd, "fn");
  if (!in.is_obj(fn, OKind::Function)) return Value::unknown();
  Args ca;
  ca.span = at;
  if (in.truth(attr(in, fn, "__click_pass_context__")).value_or(false)) ca.pos.push_back(ctx);
  else if (in.truth(attr(in, fn, "__click_pass_obj__")).value_or(false)) ca.pos.push_back(attr(in, ctx, "obj"));
  click_bind(in, fn, argv, ca, what);
  return in.call(fn, ca);
}

/// The names of a group's subcommands as its usage lists them, at most 6.
std::string command_list(Interp& in, const std::vector<Value>& cmds) {
  std::string list;
  for (size_t k = 0; k < cmds.size() && k < 6; ++k)
    list += (k ? ", " : "") + std::string(in.as_str(attr(in, cmds[k], "name")).value_or("?"));
  if (cmds.size() > 6) list += ", ...";
  return list;
}

/// Whether the run's word `w` names the command: its name, or the name
/// click 7.0-8.1 gave it (`probe-cmd`, for a script written for those).
bool names_command(Interp& in, Value cmd, const std::string& w) {
  if (in.as_str(attr(in, cmd, "name")).value_or("") == w) return true;
  auto old = in.as_str(attr(in, cmd, "__click7_name__"));
  return old && *old == w;
}

/// Calling a group: its options come before the first word that is not
/// theirs, which names the subcommand (a group does not take options after
/// it: allow_interspersed_args is False); the group's callback runs first,
/// then the subcommand's with the words after its name.
Value group_invoke(Interp& in, Value group, const std::vector<std::string>& argv, Value ctx, Span at, int depth) {
  std::string gname(in.as_str(attr(in, group, "name")).value_or("cli"));
  std::vector<Value> cmds;
  if (auto* l = in.seq(attr(in, group, "__commands__"))) cmds = *l;
  Value fn = attr(in, group, "fn");
  if (cmds.empty()) {
    in.note_unknown("the script's click group `" + gname + "` has no commands the estimate follows: the run's "
                        "command line could not be read, and nothing runs",
                    at, true);
    return Value::unknown();
  }
  // The group's own words: its options (and their values), then as many
  // words as it has arguments.
  std::vector<ClickParam> params = in.is_obj(fn, OKind::Function) ? command_params(in, fn) : std::vector<ClickParam>{};
  size_t arguments = 0;
  for (const ClickParam& p : params) arguments += p.argument;
  size_t k = 0;
  while (k < argv.size()) {
    const std::string& t = argv[k];
    if (t.starts_with('-') && t.size() > 1) {
      std::string head = t.substr(0, t.find('='));
      bool takes_value = false;
      for (const ClickParam& p : params)
        if (!p.flag && std::find(p.flags.begin(), p.flags.end(), head) != p.flags.end()) takes_value = true;
      k += takes_value && t.find('=') == std::string::npos ? 2 : 1;
      continue;
    }
    if (arguments == 0) break;
    --arguments, ++k;
  }
  k = std::min(k, argv.size());
  std::vector<std::string> own(argv.begin(), argv.begin() + static_cast<long>(k));
  if (k >= argv.size()) {
    if (in.truth(attr(in, group, "__invoke_without_command__")).value_or(false))
      return run_callback(in, group, own, ctx, at, "group `" + gname + "`");
    std::string first(in.as_str(attr(in, cmds[0], "name")).value_or("COMMAND"));
    in.note_unknown("the script is a click group (`" + gname + "`) and the run gives no subcommand: pass one of " +
                        "its commands (" + command_list(in, cmds) + ") after `--` (`tpf-analyze ... SCRIPT -- " +
                        first + " ...`)",
                    at, true);
    return Value::unknown();
  }
  const std::string& word = argv[k];
  Value cmd = Value::none();
  for (Value c : cmds)
    if (names_command(in, c, word)) cmd = c;
  if (cmd.kind == VKind::None) {
    // click's own hint: `eval_model` for `eval-model`.
    std::string dashed = word, hint;
    std::replace(dashed.begin(), dashed.end(), '_', '-');
    for (Value c : cmds)
      if (dashed != word && names_command(in, c, dashed)) hint = ": did you mean `" + dashed + "`?";
    in.note_unknown("the click group `" + gname + "`: the command `" + word + "` of the run's command line is not "
                        "one of its commands (" + command_list(in, cmds) + ")" + hint,
                    at, true);
    return Value::unknown();
  }
  in.o(ctx).attrs.set(in.intern("invoked_subcommand"), in.str_value(word));
  run_callback(in, group, own, ctx, at, "group `" + gname + "`");
  std::vector<std::string> rest(argv.begin() + static_cast<long>(k) + 1, argv.end());
  Value child = make_context(in, attr(in, ctx, "obj"));
  in.o(child).attrs.set(in.intern("parent"), ctx);
  if (type_of(in, cmd) == "click.Group") {
    if (depth >= 8) return Value::unknown();  // groups nested deeper than any CLI needs
    return group_invoke(in, cmd, rest, child, at, depth + 1);
  }
  return run_callback(in, cmd, rest, child, at, "command");
}

/// Calling the command or the group (click's `main(args=None, ...)`): the
/// run's arguments, or the list `args` gives, parsed as click does;
/// `cli(obj={})` starts the context's obj.
Value click_invoke(Interp& in, Value cmd, Args& a) {
  std::vector<std::string> argv;
  if (auto given = a.get(in, 0, "args"); given && in.seq(*given)) {
    for (Value v : *in.seq(*given))
      if (auto t = in.as_str(v)) argv.emplace_back(*t);
  } else {
    in.argv_read = true;
    argv = in.opt.argv;
  }
  Value ctx = make_context(in, a.kwarg(in, "obj").value_or(Value::none()));
  if (type_of(in, cmd) == "click.Group") return group_invoke(in, cmd, argv, ctx, a.span, 0);
  return run_callback(in, cmd, argv, ctx, a.span, "command");
}

}  // namespace

Value cli_method(Interp& in, Value self, std::string_view n, Args& a, bool& handled) {
  handled = false;
  const bool group = type_of(in, self) == "click.Group";
  if (group && (n == "command" || n == "group")) {
    // `@cli.command()`, `@cli.command("fit")`, bare `@cli.command`.
    handled = true;
    if (a.pos.size() > 1 && in.is_obj(a.pos[1], OKind::Function)) {
      Value cmd = make_command(in, a.pos[1], Value::none(), n == "group");
      add_subcommand(in, self, cmd, Value::none());
      return cmd;
    }
    return command_decorator(in, a, 1, n == "group", self);
  }
  if (group && n == "add_command") {
    handled = true;
    Value cmd = a.get(in, 1, "cmd").value_or(Value::unknown());
    if (type_of(in, cmd) == "click.Command" || type_of(in, cmd) == "click.Group")
      add_subcommand(in, self, cmd, a.get(in, 2, "name").value_or(Value::none()));
    return Value::none();
  }
  if (type_of(in, self) == "click.Context" && n == "ensure_object") {
    // ctx.ensure_object(dict): the obj, made from the type when there is none.
    handled = true;
    Value obj = attr(in, self, "obj");
    if (obj.kind == VKind::None && a.pos.size() > 1) {
      Args ca;
      ca.span = a.span;
      obj = in.call(a.pos[1], ca);
      in.o(self).attrs.set(in.intern("obj"), obj);
    }
    return obj;
  }
  if (n != "__call__") return Value::unknown();
  // a.pos[0] is self; the decorated function follows.
  if (type_of(in, self) == "click.param_decorator" && a.pos.size() > 1 && in.is_obj(a.pos[1], OKind::Function)) {
    handled = true;
    Obj& fo = in.o(a.pos[1]);
    const Value* p = fo.attrs.find(in.intern("__click_params__"));
    std::vector<Value> list = p && in.seq(*p) ? *in.seq(*p) : std::vector<Value>{};
    list.push_back(self);
    in.o(a.pos[1]).attrs.set(in.intern("__click_params__"), in.make_list(std::move(list)));
    return a.pos[1];
  }
  if (type_of(in, self) == "click.command_decorator" && a.pos.size() > 1) {
    handled = true;
    if (!in.is_obj(a.pos[1], OKind::Function)) return Value::unknown();
    bool is_group = in.truth(attr(in, self, "__group__")).value_or(false);
    Value cmd = make_command(in, a.pos[1], attr(in, self, "name"), is_group, self);
    Value parent = attr(in, self, "__parent__");
    if (type_of(in, parent) == "click.Group") add_subcommand(in, parent, cmd, Value::none());
    return cmd;
  }
  if (type_of(in, self) == "click.Command" || group) {
    handled = true;
    Args ca = a;
    ca.pos.erase(ca.pos.begin());
    return click_invoke(in, self, ca);
  }
  return Value::unknown();
}

void register_click(Builtins& b) {
  auto& f = b.functions;
  f["click.option"] = click_option;
  f["click.argument"] = click_argument;
  f["click.command"] = click_command;
  f["click.group"] = click_group;
  f["click.pass_context"] = click_pass_context;
  f["click.pass_obj"] = click_pass_obj;
}

}  // namespace tpf::memory
