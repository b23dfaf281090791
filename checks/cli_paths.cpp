// Path spellings, parser options and parsed namespaces for TPF020 (cli_paths.h).
// requires: CheckContext facts (resolution, constants).
// produces: path_form, parser_options, parsed_namespace, path_param_attrs.
#include "checks/cli_paths.h"

#include <optional>
#include <vector>

namespace tpf::checks {

namespace {

/// Why 8: a path is a folder joined, formatted or suffixed a few times
/// (`os.path.join(d, "ep%d.pt" % e)`); deeper is not a path worth spelling.
constexpr int kMaxFormDepth = 8;

/// Marks a non-literal part in a form, so that no literal text can equal it.
constexpr char kPart = '\x1f';

class PathForm {
 public:
  /// `project`: parts spelled as project_form spells them (an attribute
  /// chain without its base, anything else a wildcard).
  PathForm(const CheckContext& ctx, ir::FunctionId fid, bool project = false)
      : ctx_(ctx), fid_(fid), f_(ctx.ir.fn(fid)), project_(project) {}

  std::optional<std::string> of(ir::ValueId v, int depth) const {
    if (!v.valid() || depth > kMaxFormDepth) return std::nullopt;
    const ir::ConstValue& c = ctx_.facts.res.constant(fid_, v);
    if (c.kind == ir::ConstValue::Kind::Str) return std::string(c.s);
    if (c.kind == ir::ConstValue::Kind::Int) return std::to_string(c.i);
    const ir::Inst& d = f_.def(v);
    auto ops = f_.operands(d);
    switch (d.op) {
      case ir::Op::BinOp: {
        auto op = static_cast<ast::Op>(d.aux);
        if (ops.size() != 2) return std::nullopt;
        if (op == ast::Op::Mod) return printf_form(ops[0], ops[1], depth);
        auto l = of(ops[0], depth + 1), r = of(ops[1], depth + 1);
        if (!l || !r) return std::nullopt;
        if (op == ast::Op::Add) return *l + *r;
        if (op == ast::Op::Div) return *l + "/" + *r;  // pathlib's `/`
        return std::nullopt;
      }
      case ir::Op::BuildString: {
        std::string out;
        for (ir::ValueId o : ops) {
          auto p = of(o, depth + 1);
          if (!p) return std::nullopt;
          out += *p;
        }
        return out;
      }
      case ir::Op::FormatValue:  // `{d}`, `{d!s}`, `{e:03d}`: the value
        return ops.empty() ? std::nullopt : of(ops[0], depth + 1);
      case ir::Op::Call:
        return call_form(f_.def_id(v), depth);
      default:
        return part(v);
    }
  }

 private:
  /// A value that is no literal: an attribute or a global by its access
  /// key (`args.out`: one across the file, as access keys are), any other
  /// value by its SSA id in its function (`run = sys.argv[1]`: the same
  /// value, not just the same name, which a later `run = ...` rebinds).
  std::optional<std::string> part(ir::ValueId v) const {
    ir::Op op = f_.def(v).op;
    std::string k;
    if (project_) return project_part(v);
    if (op == ir::Op::GetAttr || op == ir::Op::LoadGlobal || op == ir::Op::LoadFree) {
      k = access_key(ctx_, fid_, v);
      if (k.empty()) return std::nullopt;
    } else {
      k = std::to_string(fid_.v) + ":%" + std::to_string(v.v);
    }
    return std::string(1, kPart) + k + kPart;
  }

  std::optional<std::string> call_form(ir::InstId ci, int depth) const {
    const ir::Inst& call = f_.inst(ci);
    if (has_unpacked_args(f_, call) || (f_.call_info(call).nkw > 0 && call_method(ctx_, f_, call) != "format"))
      return std::nullopt;
    std::string_view n = call_target_name(ctx_, fid_, ci);
    std::string_view m = call_method(ctx_, f_, call);
    uint32_t npos = positional_count(f_, call);
    auto pos = [&](uint32_t i) { return call_arg(ctx_, f_, call, static_cast<int>(i), ""); };
    if (m == "format") return format_form(call, depth);
    bool join = n == "os.path.join" || n == "posixpath.join" || n == "pathlib.Path" ||
                n == "pathlib.PurePath" || n == "pathlib.PosixPath";
    std::vector<ir::ValueId> parts;
    if (m == "joinpath" && !n.starts_with("os.path.")) {
      parts.push_back(call_receiver(f_, call));
    } else if (!join) {
      if ((n == "builtins.str" || n == "os.fspath") && npos == 1) return of(pos(0), depth + 1);
      return part(call.result);
    }
    for (uint32_t i = 0; i < npos; ++i) parts.push_back(pos(i));
    if (parts.empty()) return std::nullopt;
    std::string out;
    for (size_t i = 0; i < parts.size(); ++i) {
      auto p = of(parts[i], depth + 1);
      if (!p || (i > 0 && p->starts_with('/'))) return std::nullopt;  // an absolute part restarts
      if (i > 0) out += '/';
      out += *p;
    }
    return out;
  }

  /// `tmpl % x`, `tmpl % (a, b)`: each conversion (`%s`, `%03d`) is the
  /// form of its value; `%%` is a percent sign.
  std::optional<std::string> printf_form(ir::ValueId tmpl, ir::ValueId values, int depth) const {
    auto t = of(tmpl, depth + 1);
    if (!t) return std::nullopt;
    std::vector<ir::ValueId> vals;
    const ir::Inst& vd = f_.def(values);
    if (vd.op == ir::Op::BuildTuple)
      for (ir::ValueId e : f_.operands(vd)) vals.push_back(e);
    else
      vals.push_back(values);
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < t->size(); ++i) {
      char ch = (*t)[i];
      if (ch != '%') {
        out += ch;
        continue;
      }
      if (i + 1 < t->size() && (*t)[i + 1] == '%') {
        out += '%';
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < t->size() && std::string_view("-+ #0123456789.").find((*t)[j]) != std::string_view::npos) ++j;
      if (j >= t->size() || (*t)[j] == '(' || next >= vals.size()) return std::nullopt;
      auto p = of(vals[next++], depth + 1);
      if (!p) return std::nullopt;
      out += *p;
      i = j;
    }
    if (next != vals.size()) return std::nullopt;
    return out;
  }

  /// `tmpl.format(a, b, k=c)`: `{}` takes the next positional, `{0}` one by
  /// index, `{k}` a keyword; a spec after `:` is dropped; `{{` is a brace.
  std::optional<std::string> format_form(const ir::Inst& call, int depth) const {
    auto t = of(call_receiver(f_, call), depth + 1);
    if (!t) return std::nullopt;
    uint32_t npos = positional_count(f_, call);
    std::string out;
    uint32_t next = 0;
    for (size_t i = 0; i < t->size(); ++i) {
      char ch = (*t)[i];
      if ((ch == '{' || ch == '}') && i + 1 < t->size() && (*t)[i + 1] == ch) {
        out += ch;
        ++i;
        continue;
      }
      if (ch == '}') return std::nullopt;
      if (ch != '{') {
        out += ch;
        continue;
      }
      size_t close = t->find('}', i);
      if (close == std::string::npos) return std::nullopt;
      std::string field = t->substr(i + 1, close - i - 1);
      field = field.substr(0, field.find_first_of(":!"));
      ir::ValueId arg;
      if (field.empty()) {
        if (next >= npos) return std::nullopt;
        arg = call_arg(ctx_, f_, call, static_cast<int>(next++), "");
      } else if (field.find_first_not_of("0123456789") == std::string::npos) {
        if (field.size() > 4) return std::nullopt;  // `{99999999999}`: no call has that many arguments
        uint32_t k = static_cast<uint32_t>(std::stoul(field));
        if (k >= npos) return std::nullopt;
        arg = call_arg(ctx_, f_, call, static_cast<int>(k), "");
      } else {
        arg = call_arg(ctx_, f_, call, -1, field);
      }
      auto p = of(arg, depth + 1);
      if (!p) return std::nullopt;
      out += *p;
      i = close;
    }
    return out;
  }

  /// project_form's part: `opt.save_dir` and `self.opt.save_dir` keep
  /// their names, with the object named as the code names it (a global, a
  /// parameter or a local: `opt`), not by its access key (one per
  /// function), so another script's `opt.save_dir` spells the same; none
  /// for an attribute of the parsed command line; any other value is the
  /// wildcard `*`.
  std::optional<std::string> project_part(ir::ValueId v) const {
    std::string chain;
    ir::ValueId at = v;
    for (int i = 0; i < kMaxFormDepth && at.valid(); ++i) {
      const ir::Inst& d = f_.def(at);
      if (d.op != ir::Op::GetAttr || d.nops == 0) break;
      chain = "." + std::string(ctx_.ir.names.str(d.aux)) + chain;
      at = f_.operands(d)[0];
    }
    if (chain.empty()) return std::string(1, kPart) + "*" + kPart;
    const ir::Inst& root = f_.def(at);
    std::string base;
    if (root.op == ir::Op::Param)
      base = ctx_.ir.names.str(f_.params[root.aux].name);
    else if (root.op == ir::Op::LoadGlobal || root.op == ir::Op::LoadFree)
      base = access_key(ctx_, fid_, at);
    else
      base = value_var_name(ctx_, f_, at);
    if (base.empty() || base.find('.') != std::string::npos) return std::nullopt;
    // An option of the parsed command line picks the folder anew on each
    // run of each script (SHOT's image_target.py reading `--output_src`,
    // where image_source.py saves): only a config object's field (a YAML
    // file's `save_dir`) names one place both scripts share.
    if (parsed_namespace(ctx_, fid_, at)) return std::nullopt;
    return std::string(1, kPart) + base + chain + kPart;
  }

  const CheckContext& ctx_;
  ir::FunctionId fid_;
  const ir::Function& f_;
  bool project_ = false;
};

/// Drops what does not change the file a path names: repeated separators
/// and `./` segments (`d + "/" + "/m.pt"`, `"./ckpt/m.pt"`).
std::string normalise(std::string p) {
  std::string out;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '/' && !out.empty() && out.back() == '/') continue;
    if (p[i] == '.' && (out.empty() || out.back() == '/') && i + 1 < p.size() && p[i + 1] == '/') {
      ++i;
      continue;
    }
    out += p[i];
  }
  return out;
}

/// An option string's attribute: `--out-dir` and `-o` give `out_dir`, `o`.
std::string option_attr(std::string_view o) {
  while (!o.empty() && o.front() == '-') o.remove_prefix(1);
  std::string a(o);
  for (char& x : a) x = x == '-' ? '_' : x;
  return a;
}

/// `v` is `x.__dict__` or `vars(x)`: the attributes of a namespace as a dict.
bool namespace_dict(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  if (!v.valid()) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  if (d.op == ir::Op::GetAttr) return ctx.ir.names.str(d.aux) == "__dict__";
  return d.op == ir::Op::Call && call_target_name(ctx, fid, f.def_id(v)) == "builtins.vars";
}

}  // namespace

std::string path_form(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  auto p = PathForm(ctx, fid).of(v, 0);
  return p ? normalise(std::move(*p)) : std::string();
}

bool project_form_matches(std::string_view saved, std::string_view load) {
  size_t i = 0, j = 0;
  while (i < saved.size() && j < load.size()) {
    if (saved[i] != kPart || load[j] != kPart) {
      if (saved[i] != load[j]) return false;
      ++i, ++j;
      continue;
    }
    size_t ei = saved.find(kPart, i + 1), ej = load.find(kPart, j + 1);
    if (ei == std::string_view::npos || ej == std::string_view::npos) return false;
    std::string_view p = saved.substr(i + 1, ei - i - 1), q = load.substr(j + 1, ej - j - 1);
    if (p != "*" && p != q) return false;
    i = ei + 1, j = ej + 1;
  }
  return i == saved.size() && j == load.size();
}

std::string project_form(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v) {
  auto p = PathForm(ctx, fid, true).of(v, 0);
  if (!p) return {};
  std::string form = normalise(std::move(*p));
  // At least one attribute part: a path the config names, not a bare
  // argument or a constant.
  bool attr = false;
  for (size_t i = form.find(kPart); i != std::string::npos; i = form.find(kPart, i + 1)) {
    size_t e = form.find(kPart, i + 1);
    if (e == std::string::npos) break;
    attr = attr || form.compare(i + 1, e - i - 1, "*") != 0;
    i = e;
  }
  if (!attr) return {};
  // A literal file part: the last segment has text outside its parts
  // (`model_*.pth`), so `args.resume` alone, or `d/*`, is no form.
  size_t slash = form.rfind('/');
  std::string_view file = std::string_view(form).substr(slash == std::string::npos ? 0 : slash + 1);
  bool inside = false, literal = false;
  for (char c : file) {
    if (c == kPart) inside = !inside;
    else if (!inside) literal = true;
  }
  return literal ? form : std::string();
}

namespace {

// Why 4 levels: a namespace reaches a load through a helper or two
// (`main(args)` calling `train(args)`); a longer chain is not followed. Why
// 256 steps: each parameter asks every call site of its function, so a file
// of generated helpers could otherwise multiply the work per level. Past
// either, the value is no known parse result (its attributes may be options).
bool parsed_namespace_at(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v, int depth, int& steps) {
  if (!v.valid() || depth > 4 || ++steps > 256) return false;
  const ir::Function& f = ctx.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  auto ops = f.operands(d);
  switch (d.op) {
    case ir::Op::Call: {
      std::string_view m = call_method(ctx, f, d);
      if (m == "parse_args" || m == "parse_known_args") return true;
      ir::CallTarget t = ctx.facts.res.call_target(fid, f.def_id(v));
      if (t.kind != ir::CallTarget::Kind::Function || !t.fn.valid() || t.fn == fid) return false;
      const ir::Function& g = ctx.ir.fn(t.fn);
      bool any = false;
      for (const ir::Inst& in : g.insts)
        if (in.op == ir::Op::Return) {
          if (in.nops == 0 || !parsed_namespace_at(ctx, t.fn, g.operands(in)[0], depth + 1, steps)) return false;
          any = true;
        }
      return any;
    }
    case ir::Op::Element:
      return f.def(ops[0]).op == ir::Op::Unpack && parsed_namespace_at(ctx, fid, f.operands(f.def(ops[0]))[0], depth + 1, steps);
    case ir::Op::Phi:
      for (ir::ValueId o : ops)
        if (o != v && !parsed_namespace_at(ctx, fid, o, depth + 1, steps)) return false;
      return !ops.empty();
    case ir::Op::LoadGlobal: {
      ir::ValueId g = ctx.ir.global_binding(d.aux);
      return g.valid() && parsed_namespace_at(ctx, ir::FunctionId(0), g, depth + 1, steps);
    }
    case ir::Op::Param: {
      std::string_view pname = ctx.ir.names.str(f.params[d.aux].name);
      bool any = false;
      bool all = each_call_of(ctx, fid, [&](ir::FunctionId gid, const ir::Function& g, const ir::Inst& call,
                                            const ir::CallTarget& t) {
        if (t.bound || gid == fid) return false;
        ir::ValueId a = call_arg(ctx, g, call, static_cast<int>(d.aux), pname);
        if (!parsed_namespace_at(ctx, gid, a, depth + 1, steps)) return false;
        return any = true;
      });
      return all && any;
    }
    default:
      return false;
  }
}

}  // namespace

bool parsed_namespace(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v, int depth) {
  int steps = 0;
  return parsed_namespace_at(ctx, fid, v, depth, steps);
}

void path_param_attrs(const CheckContext& c, ir::FunctionId fid, ir::ValueId v,
                      std::vector<std::pair<uint32_t, std::string>>& out, int depth) {
  if (!v.valid() || depth > kMaxFormDepth) return;
  const ir::Function& f = c.ir.fn(fid);
  const ir::Inst& d = f.def(v);
  auto ops = f.operands(d);
  switch (d.op) {
    case ir::Op::GetAttr: {
      std::string rest;
      ir::ValueId r = v;
      while (f.def(r).op == ir::Op::GetAttr) {
        rest = "." + std::string(c.ir.names.str(f.def(r).aux)) + rest;
        r = f.operands(f.def(r))[0];
      }
      if (f.def(r).op == ir::Op::Param) out.emplace_back(f.def(r).aux, rest);
      return;
    }
    case ir::Op::Phi:
      for (ir::ValueId o : ops)
        if (o != v) path_param_attrs(c, fid, o, out, depth + 1);
      return;
    case ir::Op::BinOp:
    case ir::Op::BuildString:
    case ir::Op::FormatValue:
    case ir::Op::BuildTuple:
      for (ir::ValueId o : ops) path_param_attrs(c, fid, o, out, depth + 1);
      return;
    case ir::Op::Call: {
      std::string_view n = call_target_name(c, fid, f.def_id(v));
      std::string_view m = call_method(c, f, d);
      if (!n.starts_with("os.path.") && !n.starts_with("pathlib.") && n != "builtins.str" && m != "format" &&
          m != "joinpath")
        return;
      for (size_t a = 1; a < ops.size(); ++a) path_param_attrs(c, fid, ops[a], out, depth + 1);
      if (m == "format" || m == "joinpath") path_param_attrs(c, fid, call_receiver(f, d), out, depth + 1);
      return;
    }
    default:
      return;
  }
}

ParserOptions parser_options(const CheckContext& ctx) {
  ParserOptions out;
  bool builds = false, open = false;
  std::set<std::string, std::less<>> parsers;  // variables holding a parser
  auto str_of = [&](ir::FunctionId fid, ir::ValueId v) -> std::optional<std::string_view> {
    const ir::ConstValue& c = ctx.facts.res.constant(fid, v);
    if (c.kind != ir::ConstValue::Kind::Str) return std::nullopt;
    return c.s;
  };
  for (uint32_t fi = 0; fi < ctx.ir.functions.size(); ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.functions[fi];
    for (uint32_t i = 0; i < f.insts.size(); ++i) {
      const ir::Inst& in = f.insts[i];
      // `args.__dict__.update(cfg)`, `vars(args)[k] = v`: a mapping of the
      // namespace written (reading it, `print(vars(args))`, adds nothing).
      if (in.op == ir::Op::SetItem && namespace_dict(ctx, fid, f.operands(in)[0])) open = true;
      if (in.op != ir::Op::Call) continue;
      std::string_view n = call_target_name(ctx, fid, ir::InstId(i));
      std::string_view m = call_method(ctx, f, in);
      if (n == "argparse.ArgumentParser") {
        builds = true;
        if (call_arg(ctx, f, in, -1, "parents").valid()) open = true;
        std::string_view var = value_var_name(ctx, f, in.result);
        if (!var.empty()) parsers.emplace(var);
      }
      if (n == "argparse.Namespace" || n == "builtins.setattr") open = true;
      if ((m == "update" || m == "setdefault") && namespace_dict(ctx, fid, call_receiver(f, in))) open = true;
      if (m == "add_argument") {
        if (has_unpacked_args(f, in)) open = true;
        ir::ValueId dest = call_arg(ctx, f, in, -1, "dest");
        if (dest.valid()) {
          if (auto s = str_of(fid, dest)) out.names.insert(std::string(*s));
          else open = true;
        }
        for (uint32_t a = 0; a < positional_count(f, in); ++a) {
          if (auto s = str_of(fid, call_arg(ctx, f, in, static_cast<int>(a), ""))) out.names.insert(option_attr(*s));
          else open = true;
        }
      } else if (m == "set_defaults") {
        const ir::CallInfo& ci = f.call_info(in);
        for (uint32_t k = 0; k < ci.nkw; ++k) {
          ir::Symbol kw = f.kw_names[ci.kw_first + k];
          if (kw == ir::kNoSymbol) open = true;
          else out.names.emplace(ctx.ir.names.str(kw));
        }
        if (has_unpacked_args(f, in)) open = true;
      }
    }
  }
  if (!builds || open) return out;
  // A parser handed to another call may get options there (`Trainer.add_argparse_args(parser)`,
  // `deepspeed.add_config_arguments(parser)`).
  for (uint32_t fi = 0; fi < ctx.ir.functions.size() && !open; ++fi) {
    ir::FunctionId fid(fi);
    const ir::Function& f = ctx.ir.functions[fi];
    for (const ir::Inst& in : f.insts) {
      if (in.op != ir::Op::Call) continue;
      auto ops = f.operands(in);
      for (size_t a = 1; a < ops.size() && !open; ++a)
        open = parsers.count(access_key(ctx, fid, ops[a])) > 0;
    }
  }
  out.complete = !open;
  return out;
}

}  // namespace tpf::checks
