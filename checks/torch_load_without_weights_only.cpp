// TPF020 torch_load_without_weights_only
//
// What it finds: `torch.load(path)` without `weights_only=` in a script
//   (a file run as a program), where the path comes from outside the
//   script: a command-line argument (`args.resume`, `sys.argv[1]`), an
//   environment variable, or a download, directly or through
//   `os.path.join`, an f-string, `Path(...) / ...`, `open(...)`, a local
//   variable, an attribute the script sets (`self.weights = args.init`),
//   or a parameter of the file's own loader function that a call site
//   fills that way.
// Why it costs: without `weights_only=True`, torch.load unpickles
//   arbitrary objects, so a crafted checkpoint runs its code on the
//   training machine with the job's credentials (torch < 2.6, where
//   `weights_only` defaults to False). From torch 2.6 the default is True
//   and the same call fails on checkpoints holding non-tensor objects, so
//   the script's behaviour depends on the installed version.
// Example:
//     checkpoint = torch.load(args.resume, map_location="cpu")
// Fix: `torch.load(args.resume, map_location="cpu", weights_only=True)`;
//   allow needed classes with `torch.serialization.add_safe_globals`.
// Not flagged: any explicit `weights_only=` (False is a deliberate choice
//   for a trusted file), `**kwargs`, the script's own checkpoint (the same
//   variable, expression or string that the script passes to `torch.save`
//   (or to a one-argument helper whose result it passes: `make_path(path)`),
//   the same path spelled another way (cli_paths' path_form: a join, `+
//   "/"`, an f-string, a template, pathlib's `/`), or a path built from the
//   same option, `args.out_dir`, as a saved one, also through an attribute
//   the script sets (`args.weights = args.out_dir + "/m.pt"`) and through a
//   helper of another module that saves under the folder it is given
//   (summaries' saves_to) or under an attribute of the namespace it is
//   given (`save_model(args, ...)` writing under `args.model_path`)), a
//   checkpoint another script of the folder torch.saves (cli_paths'
//   project_form: `opt.save_dir/ckpts/model_*.pth`, attributes with their
//   object's name, a saved non-literal part standing for any part; it needs an
//   attribute part, a literal file name and no option of the parsed command
//   line),
//   attributes of the parsed namespace that no option of the file's
//   parsers defines and the script never sets (cli_paths'
//   parser_options: no command-line argument, an AttributeError),
//   arguments the script writes itself
//   (`parse_args([...])`, a `sys.argv` patched around parse_args: a test),
//   paths the script fixes itself (string constants, joins of constants:
//   files of the project; literal templates whose folder is written out,
//   `"saved_models/g_%d.pth" % opt.epoch`, `f"ckpt/model_{epoch}.pt"`,
//   also through a variable holding the template, where an option only
//   fills a number or a name), options restricted by
//   `choices=` to a literal list (one of the names the script lists),
//   paths of unknown origin (a helper of another
//   module), and library code: files that are not run as a program (torch
//   itself calls torch.load on paths its caller chose).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "checks/cli_paths.h"
#include "checks/facts.h"
#include "dataflow/facts.h"
#include "ir/project.h"

namespace tpf::checks::torch_load_without_weights_only {

/// Why 64 files of 1 MiB: a folder of training and evaluation scripts is a
/// handful; a folder past that is a dump of files, not one project's
/// scripts, and is read no further (its remaining loads are judged alone).
constexpr size_t kMaxSiblings = 64;
constexpr uintmax_t kMaxSiblingBytes = 1 << 20;
/// Files read to find those that spell `torch.save`: four per one kept.
constexpr size_t kMaxSiblingsRead = 4 * kMaxSiblings;

const std::string_view kExplain = R"(TPF020 torch_load_without_weights_only: torch.load of a path from outside the script without weights_only=True

What it finds
  `torch.load(path)` without `weights_only=` in a script (a file run as a
  program), where the path comes from outside the script: a command-line
  argument (`args.resume`, `sys.argv[1]`), an environment variable, or a
  download, directly or through `os.path.join`, an f-string,
  `Path(...) / ...`, `open(...)`, a local variable, an attribute the
  script sets (`self.weights = args.init`, each value it stores judged
  alone), or a parameter of the file's own loader function that a call
  site fills that way.

Why it costs
  without `weights_only=True`, torch.load unpickles arbitrary objects: a
  crafted checkpoint runs its code on the training machine, with the job's
  data and cloud credentials (torch < 2.6, where the default is False).
  From torch 2.6 the default is True and the same call fails on checkpoints
  holding non-tensor objects, so the run breaks or not depending on the
  installed version, often hours in, when it resumes.

Example
  checkpoint = torch.load(args.resume, map_location="cpu")

Fix
  `torch.load(args.resume, map_location="cpu", weights_only=True)`; allow
  extra classes the checkpoint needs with
  `torch.serialization.add_safe_globals([...])`.

Not flagged
  - any explicit `weights_only=`: `weights_only=False` is a deliberate
    choice for a trusted file
  - `**kwargs` that may pass it
  - the script's own checkpoint: the same variable, expression or string
    the script passes to `torch.save` (also through a one-argument helper
    that prepares the file: `torch.save(sd, make_path(path))` saves `path`),
    the same path spelled another way (`os.path.join(d, "m.pt")`,
    `d + "/m.pt"`, `f"{d}/m.pt"`, `"%s/m.pt" % d`, `Path(d) / "m.pt"`),
    or a path built from the same option
    (`args.out_dir`) as a path it saves to, also through an attribute the
    script sets from it (`args.weights = args.out_dir + "/m.pt"`, in any
    function), through a helper of another module that saves under the
    folder it is given (`utils.save_checkpoint(model, optimizer, epoch,
    args.save)`), or under an attribute of the namespace it is given
    (`save_model(args, model)` writing under `args.model_path`)
  - a checkpoint another script of the same folder writes: an evaluation
    script loading `os.path.join(opt.save_dir, "ckpts",
    f"model_{load_epoch}.pth")` where train.py saves
    `os.path.join(model_dir, f"model_{ep}.pth")` under `model_dir =
    os.path.join(opt.save_dir, "ckpts")`: the same path, attributes named
    with the object's name in the code (`opt.save_dir`, not `args.save_dir`)
    and a saved non-literal part (`ep`) standing for any part; the path
    needs an attribute part and a literal file name, so
    `torch.load(args.resume)` is flagged whatever the other scripts save;
    its attributes must be a config object's fields (a YAML file's
    `save_dir`): an option of the parsed command line (`--output_src`)
    picks the folder anew on each run of each script, and is flagged
  - an attribute of the parsed arguments that no option of the file's
    parsers defines and the script never sets (`args.resume_file` next to
    `--resume` only): it is no command-line argument, and reading it raises
    AttributeError before the load; when the parsers' options are not all
    known (names made at run time, `parents=`, a parser handed to another
    call, `setattr(args, ...)`, `vars(args).update(...)`) it is flagged
  - arguments the script writes itself: `parser.parse_args([...])`, or
    `sys.argv` patched around parse_args (`with patch.object(sys, "argv",
    testargs):`, a unit test running the training on its own folder)
  - paths the script fixes itself (string constants, joins of constants):
    files of the project, also literal templates whose folder is written
    out, where an option only fills a number or a name
    (`"saved_models/generator_%d.pth" % opt.epoch`,
    `f"ckpt/model_{args.epoch}.pt"`, also through a variable holding such a
    template: `fname % args.epochs` where `fname = "data/{}_ep%d.pth"
    .format(args.arch)`), and files joined under such a folder
    (`os.path.join("../model/{}".format(args.exp), name)`);
    `f"{args.dir}/model.pt"` and `os.path.join(args.dir, "model.pt")` let
    the option choose the folder and are flagged
  - options restricted by `choices=` to a literal list of names
    (`add_argument("--task", choices=["Deblurring", "Denoising"])`): the
    value is one the script lists, picking one of the project's own files
  - paths of unknown origin, such as the result of another module's helper
  - library code: files not run as a program (they test no
    `__name__ == "__main__"`, parse no arguments; a logger named after
    `__name__` is no such test); torch itself loads paths its caller chose
)";

namespace {

constexpr const RuleInfo& kRule = rule_info(RuleId::TPF020);

// A path goes through at most a handful of joins and variables; 8 levels
// (and 256 values) keep the search small on generated code.
constexpr int kMaxDepth = 8;

bool is_one_of(std::string_view s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

/// Names of the command-line namespace by convention (`args = parse_args()`
/// in another function, `main(args)`).
bool is_cli_name(std::string_view n) { return is_one_of(n, {"args", "opt", "opts", "FLAGS", "flags"}); }

bool is_download(std::string_view n) {
  return n.find("download") != std::string_view::npos ||
         n.find("urlretrieve") != std::string_view::npos || n.ends_with("cached_path") ||
         n.ends_with("cached_download");
}

/// The literal text before a template's first placeholder: `%` (not
/// `%%`) for printf-style templates, `{` (not `{{`) for str.format.
std::string_view literal_head(std::string_view tmpl, char placeholder) {
  for (size_t p = tmpl.find(placeholder); p != std::string_view::npos;
       p = tmpl.find(placeholder, p + 2)) {
    if (p + 1 >= tmpl.size() || tmpl[p + 1] != placeholder) return tmpl.substr(0, p);
  }
  return tmpl;
}

/// A literal head that fixes no folder: "", "./", "/", "~/". What follows
/// it chooses the whole path (`"%s/model.pt" % args.dir`); after any other
/// head (`"saved_models/generator_%d.pth" % opt.epoch`) the argument only
/// fills a number or a name inside the script's own path.
bool fixes_no_folder(std::string_view head) {
  return head.find_first_not_of("./~") == std::string_view::npos;
}

class Rule {
 public:
  explicit Rule(const CheckContext& ctx) : ctx_(ctx) {}

  void run(DiagSink& out) {
    // Only TorchLoad calls are reported: skip files that make none, before
    // is_program and the saves.
    if (!call_index(ctx_).file.has(dataflow::TorchCall::TorchLoad)) return;
    if (!is_program(ctx_)) return;
    options_ = parser_options(ctx_);
    collect_attr_stores();
    collect_saves();
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId fid(fi);
      const ir::Function& f = ctx_.ir.fn(fid);
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        if (torch_call(ctx_, fid, ir::InstId(i)) != dataflow::TorchCall::TorchLoad) continue;
        check_load(fid, ir::InstId(i), out);
      }
    }
  }

 private:
  /// How `torch.save(obj, f)` names its file: key, text, constant.
  void names_of(ir::FunctionId fid, ir::ValueId v, std::set<std::string>& out) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    if (!v.valid()) return;
    std::string k = access_key(ctx_, fid, v);
    if (!k.empty()) out.insert("k:" + k);
    // value_text is the defining expression: for `path = os.path.join(...)`
    // the join, so a load and a save of the same join match.
    std::string t = value_text(ctx_, f, v);
    if (!t.empty()) out.insert("t:" + t);
    const ir::ConstValue& c = ctx_.facts.res.constant(fid, v);
    if (c.kind == ir::ConstValue::Kind::Str) out.insert("s:" + std::string(c.s));
    // One spelling for the joins, sums, templates and pathlib `/` that name
    // the same file: `os.path.join(run, "m.pt")` saves what `run + "/m.pt"`
    // loads.
    std::string form = path_form(ctx_, fid, v);
    if (!form.empty()) out.insert("n:" + form);
  }

  void collect_saves() {
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId fid(fi);
      const ir::Function& f = ctx_.ir.fn(fid);
      for (uint32_t i = 0; i < f.insts.size(); ++i) {
        const ir::Inst& in = f.insts[i];
        if (in.op != ir::Op::Call) continue;
        ir::InstId id(i);
        if (torch_call(ctx_, fid, id) != dataflow::TorchCall::TorchSave &&
            call_target_name(ctx_, fid, id) != "torch.save") {
          saved_by_helper(fid, id);
          continue;
        }
        saved_path(fid, call_arg(ctx_, f, in, 1, "f"));
      }
    }
  }

  void saved_path(ir::FunctionId fid, ir::ValueId p, int depth = 0) {
    names_of(fid, p, saved_);
    // `torch.save(obj, make_path(path))`: a one-argument helper that
    // prepares the file (makes its folder) and hands back the path; the
    // path it is given is the one written.
    const ir::Function& f = ctx_.ir.fn(fid);
    if (depth < 2 && p.valid() && f.def(p).op == ir::Op::Call && !call_receiver(f, f.def(p)).valid() &&
        positional_count(f, f.def(p)) == 1 && f.call_info(f.def(p)).nkw == 0)
      saved_path(fid, call_arg(ctx_, f, f.def(p), 0, ""), depth + 1);
    // The option parts of the path (`args.out_dir`): a load from the
    // same output folder reads what the script wrote there.
    visits_ = 0;
    keys_.clear();
    outside(fid, p, 0);
    saved_keys_.insert(keys_.begin(), keys_.end());
  }

  /// A helper of another module that saves under a folder it is given
  /// (`utils.save_checkpoint(model, opt, epoch, args.save)`, summaries'
  /// saves_to): the argument is a saved path. The file's own helpers need
  /// no such step: their torch.save paths reach the call sites through
  /// from_callers.
  ///
  /// A helper given the whole namespace (`save_model(args, model)` writing
  /// `os.path.join(args.model_path, ...)`) saves under an attribute of a
  /// parameter: the caller's argument's same attribute (`args.model_path`)
  /// is a saved key.
  void saved_by_helper(ir::FunctionId fid, ir::InstId id) {
    const dataflow::ForeignFunction* ff = ctx_.facts.summaries.foreign_callee(fid, id);
    if (!ff) return;
    std::vector<std::pair<uint32_t, std::string>> under;  // (parameter, ".attr")
    if (ff->module && ff->module->src && ff->module->ast && ff->facts) {
      CheckContext fc = foreign_context(*ff);
      const ir::Function& g = fc.ir.fn(ff->fn);
      for (uint32_t i = 0; i < g.insts.size(); ++i)
        if (g.insts[i].op == ir::Op::Call && torch_call(fc, ff->fn, ir::InstId(i)) == dataflow::TorchCall::TorchSave)
          path_param_attrs(fc, ff->fn, call_arg(fc, g, g.insts[i], 1, "f"), under);
    }
    if (!ff->saves_to && under.empty()) return;
    const ir::Function& f = ctx_.ir.fn(fid);
    std::vector<ir::ValueId> args;
    dataflow::bind_call_args(f, f.inst(id), ctx_.facts.res.call_target(fid, id), ff->module->ir->fn(ff->fn),
                             [&](size_t p, ir::ValueId a) {
                               if (!a.valid()) return;
                               if (p < 32 && ((ff->saves_to >> p) & 1)) args.push_back(a);
                               for (const auto& [q, rest] : under)
                                 if (q == p)
                                   if (std::string k = access_key(ctx_, fid, a); !k.empty()) saved_keys_.insert(k + rest);
                             });
    for (ir::ValueId a : args) saved_path(fid, a);
  }

  /// The file's stores to attributes of a named object (`args.weights =
  /// ...`, `cfg.work = ...`), by attribute.
  void collect_attr_stores() {
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      const ir::Function& f = ctx_.ir.functions[fi];
      for (uint32_t i = 0; i < f.insts.size(); ++i)
        if (f.insts[i].op == ir::Op::SetAttr) attr_stores_[f.insts[i].aux].push_back({ir::FunctionId(fi), ir::InstId(i)});
    }
  }

  /// Where the values the file stores to attribute `v` reads (the same
  /// attribute of an object with the same access key) come from, when one
  /// of them is a path from outside that is not the script's own
  /// checkpoint; "" when every stored value is the script's own or no path
  /// from outside. Each value is judged alone: `args.load_model =
  /// f"{args.proj_dir}/init.pth"` (a file the script saved) does not make
  /// `--load_model` itself the script's own.
  std::string from_attr_stores(ir::FunctionId fid, ir::ValueId v, int depth) {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& d = f.def(v);
    auto it = attr_stores_.find(d.aux);
    if (it == attr_stores_.end()) return {};
    std::string obj = access_key(ctx_, fid, f.operands(d)[0]);
    if (obj.empty()) return {};
    std::set<std::string> outer;
    outer.swap(keys_);
    std::string found;
    for (auto [g, si] : it->second) {
      const ir::Function& gf = ctx_.ir.fn(g);
      auto ops = gf.operands(gf.inst(si));
      if (ops.size() < 2 || access_key(ctx_, g, ops[0]) != obj) continue;
      keys_.clear();
      std::string s = outside(g, ops[1], depth + 1);
      if (s.empty() || own_checkpoint(g, ops[1])) continue;
      bool own = std::any_of(keys_.begin(), keys_.end(), [&](const std::string& k) { return saved_keys_.count(k) > 0; });
      if (!own) {
        found = s;
        break;
      }
    }
    keys_.swap(outer);
    return found;
  }

  bool own_checkpoint(ir::FunctionId fid, ir::ValueId v) const {
    std::set<std::string> names;
    names_of(fid, v, names);
    for (const std::string& n : names)
      if (saved_.count(n)) return true;
    return false;
  }

  /// `v` is a path whose folder the script writes out: a string constant
  /// or a template (`%`, `+`, `.format`, an f-string) whose literal head
  /// fixes a folder (not "", "./", "/", "~/"), or a join whose first part
  /// is one (`os.path.join("checkpoint", name)`: as `f"checkpoint/{name}"`,
  /// an argument only names a file in the script's own folder).
  bool fixed_folder(ir::FunctionId fid, ir::ValueId v, int depth) const {
    if (!v.valid() || depth > 8) return false;
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::ConstValue& c = ctx_.facts.res.constant(fid, v);
    if (c.kind == ir::ConstValue::Kind::Str) return !fixes_no_folder(c.s);
    const ir::Inst& d = f.def(v);
    auto ops = f.operands(d);
    // The head of a template or sum is its left part: a literal, or a
    // value that is itself such a path (`pattern % epoch` where `pattern =
    // "ckpt/{}_ep%d.pt".format(arch)`, `stem + ".pt"`, `f"{stem}/last.pt"`).
    if (d.op == ir::Op::BinOp && !ops.empty()) {
      auto op = static_cast<ast::Op>(d.aux);
      if (op != ast::Op::Mod && op != ast::Op::Add) return false;
      const ir::ConstValue& h = ctx_.facts.res.constant(fid, ops[0]);
      if (h.kind != ir::ConstValue::Kind::Str) return fixed_folder(fid, ops[0], depth + 1);
      return !fixes_no_folder(op == ast::Op::Mod ? literal_head(h.s, '%') : h.s);
    }
    if (d.op == ir::Op::BuildString && !ops.empty()) {
      const ir::ConstValue& h = ctx_.facts.res.constant(fid, ops[0]);
      if (h.kind == ir::ConstValue::Kind::Str) return !fixes_no_folder(h.s);
      const ir::Inst& part = f.def(ops[0]);
      return part.op == ir::Op::FormatValue && part.nops > 0 && fixed_folder(fid, f.operands(part)[0], depth + 1);
    }
    if (d.op != ir::Op::Call) return false;
    ir::InstId ci = f.def_id(v);
    if (call_method(ctx_, f, d) == "format") {
      const ir::ConstValue& h = ctx_.facts.res.constant(fid, call_receiver(f, d));
      if (h.kind != ir::ConstValue::Kind::Str) return fixed_folder(fid, call_receiver(f, d), depth + 1);
      return !fixes_no_folder(literal_head(h.s, '{'));
    }
    return call_target_name(ctx_, fid, ci) == "os.path.join" && ops.size() > 1 && fixed_folder(fid, ops[1], depth + 1);
  }

  /// An `add_argument` of the file declares option `attr` (`--attr`, `attr`
  /// or `dest="attr"`) with `choices=` a literal list or tuple of string
  /// constants: its value is one the script names, not free text.
  bool fixed_choices(std::string_view attr) const {
    for (uint32_t fi = 0; fi < ctx_.ir.functions.size(); ++fi) {
      ir::FunctionId fid(fi);
      const ir::Function& f = ctx_.ir.functions[fi];
      for (const ir::Inst& in : f.insts) {
        if (in.op != ir::Op::Call || call_method(ctx_, f, in) != "add_argument") continue;
        ir::ValueId ch = call_arg(ctx_, f, in, -1, "choices");
        if (!ch.valid()) continue;
        const ir::Inst& cd = f.def(ch);
        if ((cd.op != ir::Op::BuildList && cd.op != ir::Op::BuildTuple) || f.operands(cd).empty()) continue;
        bool literal = true;
        for (ir::ValueId e : f.operands(cd))
          literal = literal && ctx_.facts.res.constant(fid, e).kind == ir::ConstValue::Kind::Str;
        if (!literal) continue;
        auto names_attr = [&](ir::ValueId n) {
          const ir::ConstValue& c = ctx_.facts.res.constant(fid, n);
          if (c.kind != ir::ConstValue::Kind::Str) return false;
          std::string o(c.s);
          if (o.starts_with("-") && !o.starts_with("--")) return false;  // a short flag names no attribute
          while (!o.empty() && o.front() == '-') o.erase(0, 1);
          for (char& x : o) x = x == '-' ? '_' : x;
          return o == attr;
        };
        ir::ValueId dest = call_arg(ctx_, f, in, -1, "dest");
        if (dest.valid() ? names_attr(dest) : false) return true;
        if (dest.valid()) continue;
        for (uint32_t a = 0; a < positional_count(f, in); ++a)
          if (names_attr(call_arg(ctx_, f, in, static_cast<int>(a), ""))) return true;
      }
    }
    return false;
  }

  /// Where the path comes from when it comes from outside the script
  /// ("a command-line argument", ...), else "". A path in a folder the
  /// script writes out (fixed_folder) comes from the script, whatever
  /// fills its name.
  std::string outside(ir::FunctionId fid, ir::ValueId v, int depth) {
    if (!v.valid() || depth > kMaxDepth || ++visits_ > 256) return {};
    if (fixed_folder(fid, v, 0)) return {};
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& d = f.def(v);
    auto ops = f.operands(d);
    switch (d.op) {
      case ir::Op::Param: {
        std::string_view n = ctx_.ir.names.str(f.params[d.aux].name);
        if (is_cli_name(n)) return "a command-line argument";
        return from_callers(fid, d.aux, depth);
      }
      case ir::Op::LoadGlobal:
        if (is_cli_name(ctx_.ir.names.str(d.aux))) return "a command-line argument";
        return {};
      case ir::Op::GetAttr: {
        // `args.task` of `add_argument("--task", choices=["a", "b"])`: one
        // of the names the script lists, which pick its own files.
        std::string_view attr = ctx_.ir.names.str(d.aux);
        if (fixed_choices(attr)) return {};
        std::string k = access_key(ctx_, fid, v);
        if (!k.empty()) keys_.insert(k);
        // `args.weights = args.work + "/m.pt"` anywhere in the file: the
        // attribute holds what the script stores there, too.
        std::string stored = from_attr_stores(fid, v, depth);
        // An attribute of the parsed namespace that no option of the file's
        // parsers defines (`args.resume_file` next to `--resume` only) is no
        // command-line argument: it is what the script stores, or it does
        // not exist (AttributeError before the load).
        if (options_.complete && !options_.names.count(attr) && parsed_namespace(ctx_, fid, ops[0]))
          return stored;
        std::string s = outside(fid, ops[0], depth + 1);
        return s.empty() ? stored : s;
      }
      case ir::Op::GetItem: {
        ir::PathId q = ctx_.facts.res.qualname(fid, ops[0]);
        if (q.valid()) {
          std::string qn = ctx_.ir.names.str(q);  // built from the path: keep it
          if (qn == "sys.argv") return "a command-line argument";
          if (qn == "os.environ") return "an environment variable";
        }
        return outside(fid, ops[0], depth + 1);
      }
      case ir::Op::Phi:
        for (ir::ValueId o : ops)
          if (o != v) {
            std::string s = outside(fid, o, depth + 1);
            if (!s.empty()) return s;
          }
        return {};
      case ir::Op::BinOp: {
        // A template or prefix whose head fixes no folder (`"%s/model.pt" %
        // args.dir`; one that fixes it was answered above): outside when
        // what fills the head is.
        auto op = static_cast<ast::Op>(d.aux);
        const ir::ConstValue& c = ctx_.facts.res.constant(fid, ops[0]);
        if ((op == ast::Op::Mod || op == ast::Op::Add) && c.kind == ir::ConstValue::Kind::Str) {
          const ir::Inst& r = f.def(ops[1]);
          // `"%s/model.pt" % (args.dir, n)`: the first element fills the head.
          if (op == ast::Op::Mod && r.op == ir::Op::BuildTuple && r.nops > 0)
            return outside(fid, f.operands(r)[0], depth + 1);
          return outside(fid, ops[1], depth + 1);
        }
        for (ir::ValueId o : ops) {
          std::string s = outside(fid, o, depth + 1);
          if (!s.empty()) return s;
        }
        return {};
      }
      case ir::Op::BuildString: {
        // `f"{args.dir}/model.pt"` (`f"ckpt/model_{epoch}.pt"`, a literal
        // first part that fixes the folder, was answered above).
        for (ir::ValueId o : ops) {
          std::string s = outside(fid, o, depth + 1);
          if (!s.empty()) return s;
        }
        return {};
      }
      case ir::Op::FormatValue:
        for (ir::ValueId o : ops) {
          std::string s = outside(fid, o, depth + 1);
          if (!s.empty()) return s;
        }
        return {};
      case ir::Op::Element:
        // `args, _ = parser.parse_known_args()`
        if (f.def(ops[0]).op == ir::Op::Unpack) return outside(fid, f.operands(f.def(ops[0]))[0], depth + 1);
        return {};
      case ir::Op::Call:
        return from_call(fid, f.def_id(v), depth);
      default:
        return {};
    }
  }

  std::string from_call(ir::FunctionId fid, ir::InstId ci, int depth) {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& call = f.inst(ci);
    std::string_view m = call_method(ctx_, f, call);
    if (m == "parse_args" || m == "parse_known_args")
      return own_argv(fid, ci) ? std::string() : std::string("a command-line argument");
    // `args = get_args()`: the file's helper returning parse_args(), or one
    // of another module bound to the conventional name.
    if (is_cli_name(value_var_name(ctx_, f, call.result))) return "a command-line argument";
    ir::CallTarget t = ctx_.facts.res.call_target(fid, ci);
    if (t.kind == ir::CallTarget::Kind::Function && t.fn.valid()) {
      const ir::Function& g = ctx_.ir.fn(t.fn);
      for (const ir::Inst& in : g.insts)
        if (in.op == ir::Op::Return && in.nops > 0) {
          std::string s = outside(t.fn, g.operands(in)[0], depth + 1);
          if (!s.empty()) return s;
        }
      return {};
    }
    std::string_view n = call_target_name(ctx_, fid, ci);
    if (n == "os.getenv" || n == "os.environ.get") return "an environment variable";
    if (m == "get" && ctx_.facts.res.qualname(fid, call_receiver(f, call)).valid() &&
        ctx_.ir.names.str(ctx_.facts.res.qualname(fid, call_receiver(f, call))) == "os.environ")
      return "an environment variable";
    if (m == "getenv") return "an environment variable";
    if (is_download(n) || is_download(m)) return "a download";
    if (builtins_input(n)) return "a command-line argument";
    // Path builders: the path is outside when a part is.
    bool builder = n.starts_with("os.path.") || n.starts_with("pathlib.") || n == "builtins.str" ||
                   n == "builtins.open" || n == "io.open" || m == "format" || m == "joinpath" ||
                   m == "expanduser" || m == "resolve" || m == "absolute" || m == "replace";
    if (!builder) return {};
    // (`"ckpt/model_{}.pt".format(n)` and `os.path.join("checkpoint",
    // name)` fix their folder: fixed_folder answered them in outside.)
    auto ops = f.operands(call);
    for (size_t a = 1; a < ops.size(); ++a) {
      std::string s = outside(fid, ops[a], depth + 1);
      if (!s.empty()) return s;
    }
    ir::ValueId r = call_receiver(f, call);
    if (r.valid() && !n.starts_with("os.path.") && !n.starts_with("pathlib.")) return outside(fid, r, depth + 1);
    return {};
  }

  static bool builtins_input(std::string_view n) { return n == "builtins.input"; }

  /// The arguments parse_args call `ci` parses are the script's own, not
  /// its command line: a list it writes (`parse_args(["--out", tmp])`), or
  /// `sys.argv` patched around the call (`with patch.object(sys, "argv",
  /// testargs):`, `with patch("sys.argv", [...]):`), as a unit test does
  /// that runs a training entry point on a folder it made.
  bool own_argv(ir::FunctionId fid, ir::InstId ci) const {
    const ir::Function& f = ctx_.ir.fn(fid);
    ir::ValueId given = call_arg(ctx_, f, f.inst(ci), 0, "args");
    if (given.valid()) {
      ir::Op op = f.def(given).op;
      if (op == ir::Op::BuildList || op == ir::Op::BuildTuple) return true;
    }
    for (uint32_t r : dataflow::with_regions_at(f, ci)) {
      ir::ValueId mgr = f.withs[r].mgr;
      if (!mgr.valid() || f.def(mgr).op != ir::Op::Call) continue;
      const ir::Inst& call = f.def(mgr);
      std::string_view n = call_target_name(ctx_, fid, f.def_id(mgr));
      auto str_arg = [&](int pos, std::string_view kw) {
        const ir::ConstValue& c = ctx_.facts.res.constant(fid, call_arg(ctx_, f, call, pos, kw));
        return c.kind == ir::ConstValue::Kind::Str ? std::string_view(c.s) : std::string_view();
      };
      if ((n.ends_with("patch") || n.ends_with("patch.dict")) && str_arg(0, "target") == "sys.argv") return true;
      if (n.ends_with("patch.object") && str_arg(1, "attribute") == "argv") {
        ir::PathId q = ctx_.facts.res.qualname(fid, call_arg(ctx_, f, call, 0, "target"));
        if (q.valid() && ctx_.ir.names.str(q) == "sys") return true;
      }
    }
    return false;
  }

  /// A parameter of the file's function: outside when a call site passes
  /// an outside value for it (plain calls, not bound methods).
  std::string from_callers(ir::FunctionId callee, uint32_t param, int depth) {
    const ir::Function& g = ctx_.ir.fn(callee);
    if (param >= g.params.size()) return {};
    std::string_view pname = ctx_.ir.names.str(g.params[param].name);
    std::string found;
    each_call_of(ctx_, callee, [&](ir::FunctionId fid, const ir::Function& f, const ir::Inst& call,
                                   const ir::CallTarget& t) {
      if (t.bound) return true;
      found = outside(fid, call_arg(ctx_, f, call, static_cast<int>(param), pname), depth + 1);
      return found.empty();
    });
    return found;
  }

  void check_load(ir::FunctionId fid, ir::InstId li, DiagSink& out) {
    const ir::Function& f = ctx_.ir.fn(fid);
    const ir::Inst& load = f.inst(li);
    if (has_unpacked_args(f, load)) return;
    if (call_arg(ctx_, f, load, -1, "weights_only").valid()) return;
    ir::ValueId path = call_arg(ctx_, f, load, 0, "f");
    if (!path.valid() || own_checkpoint(fid, path)) return;
    // `torch.load(open(p, "rb"))`: the file opened is the one that counts.
    const ir::Inst& pd = f.def(path);
    if (pd.op == ir::Op::Call && call_target_name(ctx_, fid, f.def_id(path)) == "builtins.open" &&
        own_checkpoint(fid, call_arg(ctx_, f, pd, 0, "file")))
      return;
    visits_ = 0;
    keys_.clear();
    std::string from = outside(fid, path, 0);
    if (from.empty()) return;
    for (const std::string& k : keys_)
      if (saved_keys_.count(k)) return;
    // A file another script of the folder writes (`train.py` saving
    // `os.path.join(model_dir, f"model_{ep}.pth")` under `model_dir =
    // os.path.join(opt.save_dir, "ckpts")`, this evaluation script loading
    // `os.path.join(opt.save_dir, "ckpts", f"model_{e}.pth")`).
    if (std::string form = project_form(ctx_, fid, path); !form.empty())
      for (const std::string& s : sibling_saves())
        if (project_form_matches(s, form)) return;
    out.report(make_diagnostic(
        kRule, load.span,
        "`" + call_text(ctx_, f, load) + "` unpickles `" + value_text(ctx_, f, path) + "`, " +
            from + ", without `weights_only=True`; a crafted file runs its code on this machine "
            "(torch < 2.6), and torch >= 2.6 rejects non-tensor contents",
        "pass `weights_only=True` (allow extra classes with "
        "`torch.serialization.add_safe_globals`), or `weights_only=False` if the file is trusted"));
  }

  /// The project_forms of the paths the other scripts (is_program) of the
  /// script's folder pass to torch.save (read once, on the first load that would be
  /// reported; the first kMaxSiblings in name order that spell `torch.save`,
  /// among the first kMaxSiblingsRead files).
  const std::vector<std::string>& sibling_saves() {
    if (sibling_saves_) return *sibling_saves_;
    sibling_saves_.emplace();
    namespace fs = std::filesystem;
    const std::string& self = ctx_.src.path;
    if (self.empty() || self == "-") return *sibling_saves_;
    std::error_code ec;
    fs::path dir = fs::path(self).parent_path();
    if (dir.empty()) dir = ".";
    std::vector<fs::path> files;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      const fs::path& p = it->path();
      if (p.extension() == ".py" && it->is_regular_file(ec) && !fs::equivalent(p, self, ec)) files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    ir::ModuleContext mc = ir::script_context(self, false);
    ir::ModuleStore store;
    size_t read = 0, kept = 0;
    for (const fs::path& p : files) {
      if (kept >= kMaxSiblings || read >= kMaxSiblingsRead) break;
      if (fs::file_size(p, ec) > kMaxSiblingBytes || ec) continue;
      ++read;
      std::ifstream in(p, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (text.str().find("torch.save") == std::string::npos) continue;
      ++kept;
      std::string why;
      const ir::LoadedModule* m = store.load_exec(mc, p.string(), why);
      if (!m || !m->ir || !m->src || !m->ast) continue;
      dataflow::FileFacts facts = dataflow::compute_facts(*m->ir, nullptr, m->res.get());
      CheckContext sc{*m->src, *m->ast, *m->ir, facts};
      // Scripts only: a helper module's saves reach the script through its
      // imports (saved_by_helper), which --no-follow-imports turns off.
      if (!is_program(sc)) continue;
      for (uint32_t fi = 0; fi < sc.ir.functions.size(); ++fi) {
        ir::FunctionId g(fi);
        const ir::Function& gf = sc.ir.fn(g);
        for (uint32_t i = 0; i < gf.insts.size(); ++i) {
          if (gf.insts[i].op != ir::Op::Call) continue;
          if (torch_call(sc, g, ir::InstId(i)) != dataflow::TorchCall::TorchSave &&
              call_target_name(sc, g, ir::InstId(i)) != "torch.save")
            continue;
          std::string form = project_form(sc, g, call_arg(sc, gf, gf.insts[i], 1, "f"));
          if (!form.empty()) sibling_saves_->push_back(std::move(form));
        }
      }
    }
    return *sibling_saves_;
  }

  const CheckContext& ctx_;
  std::optional<std::vector<std::string>> sibling_saves_;
  ParserOptions options_;
  std::map<uint32_t, std::vector<std::pair<ir::FunctionId, ir::InstId>>> attr_stores_;  // by attribute symbol
  std::set<std::string> saved_;       // how torch.save calls name their files
  std::set<std::string> saved_keys_;  // attributes (`args.out_dir`) save paths are built from
  std::set<std::string> keys_;        // attributes the last outside() search passed
  int visits_ = 0;
};

}  // namespace

void check(const CheckContext& ctx, DiagSink& out) { Rule(ctx).run(out); }

}  // namespace tpf::checks::torch_load_without_weights_only
