// What a script's file paths and parsed options are, as far as the file
// shows them: a path expression normalised to one spelling, and the
// attribute names its argparse parsers define. What TPF020 asks before it
// calls a load path the script's own file or a command-line argument.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "checks/facts.h"

namespace tpf::checks {

/// One spelling of the path `v` builds, or "" when it is no path the file
/// spells out: `os.path.join(d, "m.pt")`, `d + "/m.pt"`, `f"{d}/m.pt"`,
/// `"%s/m.pt" % d`, `"{}/m.pt".format(d)` and `Path(d) / "m.pt"` all give
/// the same text, with each non-literal part (`d`) written as its access
/// key (a local's qualified by its function). Repeated and `./` separators
/// are dropped.
std::string path_form(const CheckContext& ctx, ir::FunctionId fid, ir::ValueId v);

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

}  // namespace tpf::checks
