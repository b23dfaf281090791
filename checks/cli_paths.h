// What a script's file paths and parsed options are, as far as the file
// shows them: a path expression normalised to one spelling, and the
// attribute names its argparse parsers define. What TPF020 asks before it
// calls a load path the script's own file or a command-line argument.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checks/facts.h"

namespace tpf::checks {

/// One spelling of the path `v` builds, or "" when it is no path the file
/// spells out: `os.path.join(d, "m.pt")`, `d + "/m.pt"`, `f"{d}/m.pt"`,
/// `"%s/m.pt" % d`, `"{}/m.pt".format(d)` and `Path(d) / "m.pt"` all give
/// the same text, with each non-literal part (`d`) written as its access
/// key (a local's qualified by its function). Repeated and `./` separators
/// are dropped.
std::string path_form(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v);

/// How another file of the project would spell the path `v` builds, or ""
/// when it has no attribute part or no literal file name, or reads an
/// option of the parsed command line (parsed_namespace): as path_form,
/// but an attribute chain is spelled by its names, its object as the code
/// names it (`os.path.join(opt.save_dir, "ckpts", f"model_{ep}.pth")` gives
/// `opt.save_dir/ckpts/model_*.pth`, parts marked) and every other
/// non-literal part is a wildcard `*`. TPF020 compares a load's form with
/// the forms the script's sibling scripts torch.save.
std::string project_form(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v);
/// A load of form `load` reads what a save of form `saved` writes: the same
/// text and parts, where a saved wildcard stands for any one part (the
/// loop's `ep` saved, the option's `opt.load_epoch` loaded).
bool project_form_matches(std::string_view saved, std::string_view load);

/// The options of the file's argparse parsers, by attribute name (`--out-dir`
/// and `dest="out_dir"` give `out_dir`; `set_defaults(k=...)` gives `k`).
struct ParserOptions {
  /// Every attribute the parsed namespace can have is in `names`: the file
  /// builds its parsers itself (`argparse.ArgumentParser()`, no `parents=`),
  /// names every option with a literal, hands no parser to another call
  /// (`add_model_specific_args(parser)`), and adds no attribute at run
  /// time (`setattr(args, ...)`, `vars(args).update(...)`,
  /// `args.__dict__.update(...)`, `argparse.Namespace(...)`).
  bool complete = false;
  std::set<std::string, std::less<>> names;
};
ParserOptions parser_options(const CheckContext& ctx);

/// `v` is what the file's parse_args returns (`args = p.parse_args()`,
/// `args, _ = p.parse_known_args()`, a global bound so, the file's helper
/// returning it, a parameter every plain call site fills so): not a config
/// object built from it (`cfg = merge(load(args.config), args.opts)`).
bool parsed_namespace(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v, int depth = 0);

/// The attributes of parameters (`opts.snap_dir` of parameter 0: the pair
/// (0, ".snap_dir")) that the path `v` of function `fid` is built from,
/// through joins, templates, f-strings, `.format`, `str()` and pathlib.
void path_param_attrs(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v,
                      std::vector<std::pair<uint32_t, std::string>>& out, int depth = 0);

}  // namespace tpf::checks
