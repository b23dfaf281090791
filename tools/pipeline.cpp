// The analysis of one file (see pipeline.h): the stage calls, the memory
// estimate, the rules and suppressions, and --fix / --diff with their
// re-analysis of the fixed text.
#include "tools/pipeline.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include "dataflow/facts.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "memory/memory.h"
#include "memory/torch_version.h"
#include "parser/parser.h"
#include "tools/add_noqa.h"
#include "tools/fix.h"
#include "tools/render.h"
#include "tools/report_memory.h"

namespace tpf::tools {

namespace {


/// One input's place in its project: its context and resolved imports.
struct FileProject {
  tpf::ir::ModuleContext ctx;
  std::vector<tpf::ir::ImportEdge> edges;
  tpf::dataflow::ProjectView view;
};

void file_project(FileProject& fp, ProjectRun& pr, const tpf::ast::Module& module, const tpf::SourceFile& src,
                  const std::string& path, const Options& opt) {
  fp.ctx = tpf::ir::script_context(path == "-" ? opt.stdin_filename : path, !opt.no_follow_imports);
  fp.edges = tpf::ir::scan_imports(module, src, fp.ctx);
  fp.view = tpf::dataflow::ProjectView{&pr.facts, &fp.ctx, &fp.edges};
}

/// The estimator options the command line sets for every run: sizes,
/// precision, the script's own arguments and the project. --target and
/// --world-size are the single estimate's (--fit judges every target).
tpf::memory::EstimateOptions run_options(ProjectRun& pr, const Options& opt,
                                         const tpf::dataflow::ProjectView* project, const std::string& path) {
  tpf::memory::EstimateOptions eo;
  if (opt.batch_size) eo.batch_size = opt.batch_size;
  if (opt.seq_len) eo.seq_len = opt.seq_len;
  if (!opt.dtype.empty()) eo.dtype = tpf::memory::parse_dtype(opt.dtype);
  if (std::string why; !opt.generate.empty()) eo.generate = tpf::memory::parse_generate(opt.generate, why);
  eo.argv = opt.script_args;
  eo.project = project;
  if (!opt.torch_version.empty()) {
    eo.torch_version = tpf::memory::parse_torch_version(opt.torch_version);
    eo.torch_version_from = opt.torch_version_from.empty() ? "--torch-version" : opt.torch_version_from;
  } else if (path != "-") {
    // The project's pins only: a README's statement names the release the
    // code was written for, not one the run installs.
    if (auto pin = pr.torch.for_file(path, DeclaredTorch::Pins)) {
      eo.torch_version = pin->version;
      eo.torch_version_from = pin->from;
    }
  }
  return eo;
}

/// The memory estimate (with --target or any estimator option), before
/// the rules: TPF013 and TPF024 read it.
std::optional<tpf::memory::Estimate> estimate_for(ProjectRun& pr, const tpf::ir::Module& ir,
                                                  const std::string& path, const Options& opt,
                                                  const tpf::dataflow::ProjectView* project) {
  if (opt.fit) return std::nullopt;  // fit_for judges every target instead
  if (!(opt.estimate || opt.resolved_target || opt.breakdown || opt.batch_size || opt.seq_len || !opt.dtype.empty() ||
        !opt.generate.empty() || opt.world_size || !opt.script_args.empty() || !opt.timeline.empty() ||
        !opt.torch_version.empty()))
    return std::nullopt;
  tpf::memory::EstimateOptions eo = run_options(pr, opt, project, path);
  eo.target = opt.resolved_target;
  if (opt.world_size) eo.world_size = opt.world_size;
  std::optional<tpf::memory::Estimate> est = tpf::memory::estimate(ir, eo);
  est->path = path;
  return est;
}

/// --fit: the run judged on every target (the estimate of estimate_for is
/// not made then: --fit names no target).
std::optional<tpf::memory::Fit> fit_for(ProjectRun& pr, const tpf::ir::Module& ir, const std::string& path,
                                        const Options& opt, const tpf::dataflow::ProjectView* project) {
  if (!opt.fit) return std::nullopt;
  tpf::memory::Fit fit = tpf::memory::compute_fit(ir, run_options(pr, opt, project, path));
  fit.estimate.path = path;
  return fit;
}

/// The torch release the rules read for `path`: the run's --torch-version
/// or [tool.tpf] torch-version, else what the project declares.
std::optional<tpf::memory::TorchVersion> rules_torch(ProjectRun& pr, const std::string& path, const Options& opt) {
  if (!opt.torch_version.empty()) return tpf::memory::parse_torch_version(opt.torch_version);
  if (path == "-") return std::nullopt;
  if (auto pin = pr.torch.for_file(path, DeclaredTorch::PinsOrStatement)) return pin->version;
  return std::nullopt;
}

RuleRun rule_findings(const tpf::SourceFile& src, const std::vector<tpf::Span>& comments,
                      tpf::tools::CommentLines lines, const tpf::ast::Module& module,
                      const tpf::ir::Module& ir, const tpf::dataflow::FileFacts& facts,
                      const std::optional<tpf::memory::Estimate>& est, const Options& opt,
                      const tpf::checks::RunOptions& rules, std::optional<tpf::memory::TorchVersion> torch) {
  tpf::checks::CheckContext ctx{src, module, ir, facts};
  if (est && opt.resolved_target) ctx.estimate = &*est;
  ctx.torch = torch;
  RuleRun run;
  run.findings = tpf::checks::run_checks(ctx, rules);
  run.sups = tpf::tools::parse_suppressions(src, comments);
  run.lines = std::move(lines);
  tpf::tools::apply_suppressions(src, run.lines, run.sups, run.findings);
  return run;
}

/// A syntax error under an older --python-version that the newest grammar
/// accepts: says so, and where the version came from.
void explain_version(const tpf::SourceFile& src, const Options& opt, tpf::DiagSink& diags) {
  if (opt.py == tpf::kNewestPy || diags.diagnostics().empty()) return;
  tpf::DiagSink newest;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, newest, tpf::kNewestPy);
  if (newest.has_errors()) return;
  tpf::parser::parse(src, toks, newest, tpf::kNewestPy);
  if (newest.has_errors()) return;
  diags.sort();
  tpf::Diagnostic note;
  note.code = "note";
  note.severity = tpf::Severity::Note;
  note.span = diags.diagnostics().front().span;
  note.message = "Python " + tpf::kNewestPy.str() + " accepts this file; it is read as Python " +
                 opt.py.str() + " (" + opt.py_from +
                 "); a newer --python-version or [tool.tpf] target-version reads it";
  // Kept after the error: the sink orders by offset, then code.
  diags.report(std::move(note));
}

/// The whole pipeline again on a fixed source (no dumps). False on a
/// syntax error.
bool recheck(ProjectRun& pr, const tpf::SourceFile& src, const std::string& path, const Options& opt,
             const tpf::checks::RunOptions& rules, RuleRun& run,
             std::optional<tpf::memory::Estimate>& est) {
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags, opt.py);
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags, opt.py);
  if (diags.has_errors()) return false;
  // The AST holds what the later stages need of the tokens; only the
  // comments (suppressions) and where they may go stay. A 22 MB file's
  // tokens are 120 MB.
  tpf::tools::CommentLines lines = tpf::tools::compute_comment_lines(src, toks.tokens);
  std::vector<tpf::lexer::Token>().swap(toks.tokens);
  module.shrink_to_fit();  // with the tokens gone, its copies cost no peak (issue 20)
  tpf::ir::Module ir = tpf::ir::build(module, src, diags, opt.verify_ir);
  FileProject fp;
  file_project(fp, pr, module, src, path, opt);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir, &fp.view);
  est = estimate_for(pr, ir, path, opt, &fp.view);
  run = rule_findings(src, toks.comments, std::move(lines), module, ir, facts, est, opt, rules,
                      rules_torch(pr, path, opt));
  return true;
}


/// The fixes of `run`'s findings that survive re-analysis: the fixed source
/// parses, and for every code fixed, at least as many findings are gone as
/// fixes were applied. Tries all together first, then each alone, then the
/// ones that passed alone together. Empty `applied` when none survives;
/// otherwise `after` and `est` hold the analysis of the returned text.
tpf::tools::FixResult verified_fixes(ProjectRun& pr, const tpf::SourceFile& src, std::string_view prefix,
                                     const std::string& path, const Options& opt,
                                     const tpf::checks::RunOptions& rules, const RuleRun& before,
                                     RuleRun& after, std::optional<tpf::memory::Estimate>& est) {
  const std::vector<tpf::Diagnostic>& diags = before.findings;
  auto passes = [&](const tpf::tools::FixResult& fr) {
    if (fr.applied.empty()) return false;
    tpf::SourceFile fixed;
    tpf::DiagSink d;
    if (!tpf::lexer::make_source(src.path, std::string(prefix) + fr.text, fixed, d)) return false;
    if (!recheck(pr, fixed, path, opt, rules, after, est)) return false;
    std::map<std::string, long> left;
    for (const tpf::Diagnostic& x : diags) ++left[x.code];
    for (size_t i : fr.applied) --left[diags[i].code];
    for (const tpf::Diagnostic& x : after.findings)
      if (left.count(x.code) && --left[x.code] < 0) return false;
    return true;
  };
  tpf::tools::FixResult fr = tpf::tools::apply_fixes(src.text, diags, {});  // all of them
  if (passes(fr)) return fr;
  std::vector<bool> good(diags.size(), false);
  for (size_t i = 0; i < diags.size(); ++i) {
    if (!diags[i].fix) continue;
    std::vector<bool> one(diags.size(), false);
    one[i] = true;
    good[i] = passes(tpf::tools::apply_fixes(src.text, diags, one));
  }
  fr = tpf::tools::apply_fixes(src.text, diags, good);
  if (passes(fr)) return fr;
  return {};
}

/// --fix / --diff on one file whose findings `run` holds. --diff prints
/// the unified diff on `os`; --fix writes the file (for `-`: prints the
/// source on `os`) and replaces `run` with the findings of the fixed file.
void fix_file(ProjectRun& pr, const tpf::SourceFile& src, const std::string& path, const Options& opt,
              const tpf::checks::RunOptions& rules, RuleRun& run,
              std::optional<tpf::memory::Estimate>& est, FixOutcome& out, std::ostream& os,
              std::ostream& es) {
  bool any = false;
  for (const tpf::Diagnostic& d : run.findings) any |= d.fix.has_value();
  if (!any) return;
  // Edits index the decoded text: byte-exact on the file only when the
  // text is its bytes, or its bytes after a UTF-8 BOM.
  std::optional<std::string_view> prefix = tpf::tools::edit_prefix(src);
  if (!prefix) {
    es << path << ": note: not fixed: the file is decoded from its declared encoding, and "
                  "fixes are applied only to UTF-8 files\n";
    return;
  }
  RuleRun after;
  std::optional<tpf::memory::Estimate> est_after;
  tpf::tools::FixResult fr = verified_fixes(pr, src, *prefix, path, opt, rules, run, after, est_after);
  size_t offered = 0;
  for (const tpf::Diagnostic& d : run.findings) offered += d.fix.has_value();
  if (fr.applied.size() < offered)
    es << path << ": note: " << offered - fr.applied.size() << " of " << offered
       << " fixes not applied (they overlap another fix, or the result did not check out)\n";
  if (fr.applied.empty()) return;
  if (opt.diff) {
    os << tpf::tools::unified_diff(path, src.text, fr.edits);
    out.would_fix = fr.applied.size();
    out.edits = std::move(fr.edits);
    return;
  }
  std::string fixed_bytes = std::string(*prefix) + fr.text;
  if (out.stdin_input) {
    os << fixed_bytes;
  } else {
    if (std::string why = tpf::tools::replace_file(src.path, fixed_bytes); !why.empty()) {
      es << path << ": error: not fixed, the file is as it was: " << why << "\n";
      out.write_failed = true;
      return;
    }
  }
  out.src = std::make_unique<tpf::SourceFile>();
  tpf::DiagSink d;
  tpf::lexer::make_source(src.path, std::move(fixed_bytes), *out.src, d);
  // The verification analyzed these very bytes; findings and suppressions
  // hold offsets only, so they index the kept source as they are.
  run = std::move(after);
  est = std::move(est_after);
  out.fixed = fr.applied.size();
}

}  // namespace

std::optional<tpf::memory::TorchPin> DeclaredTorch::for_file(const std::string& path, Sources sources) {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(path, ec).parent_path();
  if (ec || dir.empty()) return std::nullopt;
  std::lock_guard<std::mutex> g(mu_);
  for (int up = 0; up < 6; ++up) {
    const Folder& f = folder(dir);
    if (f.pinned) return f.pinned;
    if (sources == PinsOrStatement && f.stated) return f.stated;
    if (f.root || dir == dir.parent_path()) break;
    dir = dir.parent_path();
  }
  return std::nullopt;
}

const DeclaredTorch::Folder& DeclaredTorch::folder(const std::filesystem::path& dir) {
  auto [it, fresh] = by_dir_.try_emplace(dir.string());
  if (fresh) {
    it->second.pinned = tpf::memory::read_torch_pin(dir.string());
    if (!it->second.pinned) it->second.stated = tpf::memory::read_torch_statement(dir.string());
    std::error_code ec;
    it->second.root = std::filesystem::exists(dir / ".git", ec);
  }
  return it->second;
}

std::unique_ptr<tpf::SourceFile> load(const std::string& path, const Options& opt,
                                      std::string stdin_bytes, std::ostream& es,
                                      std::vector<tpf::tools::InputError>& errors) {
  auto src = std::make_unique<tpf::SourceFile>();
  tpf::DiagSink diags;
  bool ok;
  std::string shown = path;
  if (path == "-") {
    shown = opt.stdin_filename;
    ok = tpf::lexer::make_source(shown, std::move(stdin_bytes), *src, diags);
  } else {
    ok = tpf::lexer::load_source(path, *src, diags);
  }
  if (!ok) {
    diags.sort();
    tpf::tools::render_diagnostics(es, *src, shown, diags);
    tpf::tools::append_input_errors(*src, shown, diags, errors);
    return nullptr;
  }
  // --dump-tokens / --dump-ast answer as CPython does: it rejects an
  // encoding it does not know, which the analysis reads as UTF-8 (a note).
  if ((opt.dump_ast || opt.dump_tokens) && !src->unknown_encoding.empty()) {
    tpf::DiagSink as_cpython;
    as_cpython.error("SyntaxError", tpf::Span{0, 0}, "unknown encoding: " + src->unknown_encoding);
    tpf::tools::render_diagnostics(es, *src, shown, as_cpython);
    tpf::tools::append_input_errors(*src, shown, as_cpython, errors);
    return nullptr;
  }
  if (!diags.diagnostics().empty()) tpf::tools::render_diagnostics(es, *src, shown, diags);
  return src;
}

bool analyze_file(ProjectRun& pr, const tpf::SourceFile& src, const std::string& path, const Options& opt,
                  const tpf::checks::RunOptions& rules, std::vector<tpf::Diagnostic>& findings,
                  nlohmann::ordered_json& estimates, FixOutcome& fix, std::ostream& os,
                  std::ostream& es, std::vector<tpf::tools::InputError>& errors, FileExtras* extras) {
  tpf::DiagSink diags;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags, opt.py);
  if (opt.dump_tokens) {
    std::string out;
    tpf::tools::dump_tokens(src, toks, out);
    os << out;
  }
  if (opt.dump_tokens && !opt.dump_ast) {
    if (diags.has_errors()) {
      if (extras) extras->frontend = diags.diagnostics();
      tpf::tools::render_diagnostics(es, src, path, diags);
      tpf::tools::append_input_errors(src, path, diags, errors);
      return false;
    }
    return true;
  }
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags, opt.py);
  if (diags.has_errors()) {
    explain_version(src, opt, diags);
    if (extras) {
      diags.sort();
      extras->frontend = diags.diagnostics();
    }
    tpf::tools::render_diagnostics(es, src, path, diags);
    tpf::tools::append_input_errors(src, path, diags, errors);
    return false;
  }
  if (opt.dump_ast) {
    std::string out;
    if (opt.format == "json") {
      tpf::parser::dump_json(module, src, out);
      out += '\n';
    } else {
      tpf::parser::dump_text(module, src, out);
    }
    os << out;
  }
  if (opt.dumping() && !opt.dump_ir && opt.dump_facts.empty()) return true;

  // The AST holds what the later stages need of the tokens; only the
  // comments (suppressions) and where they may go stay. A 22 MB file's
  // tokens are 120 MB.
  tpf::tools::CommentLines lines = tpf::tools::compute_comment_lines(src, toks.tokens);
  std::vector<tpf::lexer::Token>().swap(toks.tokens);
  module.shrink_to_fit();  // with the tokens gone, its copies cost no peak (issue 20)
  tpf::ir::Module ir = tpf::ir::build(module, src, diags, opt.verify_ir);
  FileProject fp;
  file_project(fp, pr, module, src, path, opt);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir, &fp.view);
  if (extras)
    for (const tpf::ir::ImportEdge& e : fp.edges)
      if (!e.file.empty()) extras->imports.push_back(e.file);
  if (opt.dump_ir || !opt.dump_facts.empty()) {
    std::string out;
    if (opt.dump_ir) tpf::ir::print(ir, out, &facts.res);
    if (!opt.dump_facts.empty() && opt.dump_facts != "imports")
      tpf::dataflow::dump_facts(ir, facts, opt.dump_facts, out);
    if (opt.dump_facts == "imports" || opt.dump_facts == "all") {
      if (opt.dump_facts == "all") out += "== imports ==\n";
      tpf::ir::dump_imports(pr.store, fp.ctx, src, fp.edges, out);
    }
    os << out;
    return true;
  }

  std::optional<tpf::memory::Estimate> est = estimate_for(pr, ir, path, opt, &fp.view);
  std::optional<tpf::memory::Fit> fit = fit_for(pr, ir, path, opt, &fp.view);
  RuleRun run = rule_findings(src, toks.comments, std::move(lines), module, ir, facts, est, opt, rules,
                              rules_torch(pr, path, opt));
  if ((opt.fix || opt.diff) && !run.findings.empty()) fix_file(pr, src, path, opt, rules, run, est, fix, os, es);
  if (opt.add_noqa) {
    auto reanalyze = [&](const tpf::SourceFile& s) -> std::optional<size_t> {
      RuleRun after;
      std::optional<tpf::memory::Estimate> e;
      if (!recheck(pr, s, path, opt, rules, after, e)) return std::nullopt;
      return after.findings.size();
    };
    tpf::tools::NoqaOutcome n = tpf::tools::add_noqa_file(src, path, run.lines, run.sups, run.findings,
                                                          fix.stdin_input, reanalyze, os, es);
    fix.noqa_codes = n.codes;
    fix.noqa_lines = n.lines;
    fix.write_failed = n.failed;
    return true;  // it reports only what it wrote
  }
  findings = std::move(run.findings);
  if (opt.report_unused_suppressions) {
    std::vector<tpf::Diagnostic> unused = tpf::tools::unused_suppressions(run.sups, rules);
    findings.insert(findings.end(), unused.begin(), unused.end());
    std::stable_sort(findings.begin(), findings.end(), [](const auto& a, const auto& b) {
      return std::tie(a.span.begin, a.code) < std::tie(b.span.begin, b.code);
    });
  }

  if (fit && !opt.diff) {
    const auto order = opt.fit_sort == "price" ? tpf::tools::FitOrder::Price : tpf::tools::FitOrder::Size;
    if (opt.format == "json") estimates.push_back(tpf::tools::fit_json(*fit, order));
    else if (opt.format == "text" || opt.format == "concise") tpf::tools::render_fit(os, *fit, order);
    else tpf::tools::render_fit(es, *fit, order);
  } else if (est && !opt.diff) {
    if (opt.format == "json") estimates.push_back(tpf::tools::estimate_json(*est));
    // Machine formats keep stdout parseable: the text estimate goes to stderr.
    else if ((opt.format == "text" || opt.format == "concise") && !(opt.fix && fix.stdin_input))
      tpf::tools::render_estimate(os, *est, {opt.breakdown, true});
    else tpf::tools::render_estimate(es, *est, {opt.breakdown, true});
    if (opt.timeline == "-") {
      tpf::tools::render_timeline(opt.format == "text" || opt.format == "concise" ? os : es, *est);
    } else if (std::string why; !opt.timeline.empty() && !tpf::tools::write_timeline_trace(opt.timeline, *est, why)) {
      es << "tpf-analyze: error: " << why << "\n";
    }
  }
  if (extras) extras->estimate = std::move(est);
  return true;
}

std::unique_ptr<Options> script_options(const Options& base, const tpf::tools::ScriptRun& sr) {
  auto o = std::make_unique<Options>(base);
  if (o->script_args.empty()) o->script_args = sr.args;
  if (sr.target && (o->target.empty() || o->target_from_config)) {
    tpf::targets::LookupResult t = tpf::targets::lookup_target(*sr.target);
    if (t.ok()) o->target = *sr.target, o->resolved_target = *t.target;
  }
  if (sr.dtype && o->dtype.empty()) o->dtype = *sr.dtype;
  if (sr.batch_size && !o->batch_size) o->batch_size = *sr.batch_size;
  if (sr.seq_len && !o->seq_len) o->seq_len = *sr.seq_len;
  if (sr.world_size && !o->world_size) o->world_size = *sr.world_size;
  return o;
}

void merge_config(Options& opt, const boost::program_options::variables_map& vm, const tpf::tools::Config& cfg) {
  if (cfg.select && opt.select.empty()) opt.select = *cfg.select;
  opt.ignore.insert(opt.ignore.begin(), cfg.ignore.begin(), cfg.ignore.end());
  if (cfg.fail_on && vm["fail-on"].defaulted()) opt.fail_on = *cfg.fail_on;
  if (cfg.target && opt.target.empty()) opt.target = *cfg.target, opt.target_from_config = true;
  if (cfg.torch_version && opt.torch_version.empty())
    opt.torch_version = *cfg.torch_version, opt.torch_version_from = cfg.file.filename().string() + " [tool.tpf] torch-version";
  if (cfg.follow_imports && !*cfg.follow_imports) opt.no_follow_imports = true;
}


bool finish_setup(Setup& s, std::string& error, std::vector<std::string>& notes) {
  if (!s.opt.python_version.empty()) {
    std::optional<tpf::PyVersion> v = tpf::parse_py_version(s.opt.python_version);
    if (!v) {
      error = "unknown --python-version '" + s.opt.python_version +
              "' (expected 3.8 to 3.13, as 3.12 or py312)";
      return false;
    }
    s.opt.py = *v;
    s.opt.py_from = "--python-version " + v->str();
  } else if (s.cfg.target_version) {
    s.opt.py = *s.cfg.target_version;
    s.opt.py_from = "target-version = \"" + s.opt.py.str() + "\" at " + s.cfg.target_version_at;
  } else if (s.cfg.requires_python) {
    s.opt.py = *s.cfg.requires_python;
    s.opt.py_from = "requires-python = \"" + s.cfg.requires_python_text + "\" in " + s.cfg.file.string();
  } else if (s.cfg.file.empty() && !s.opt.isolated) {
    std::string start = ".";
    for (const std::string& p : s.opt.paths) {
      if (p == "-" && !s.opt.stdin_filename.empty()) start = s.opt.stdin_filename;
      else if (p != "-") start = p;
      else continue;
      break;
    }
    if (std::optional<tpf::tools::RequiresPython> rp = tpf::tools::find_requires_python(start)) {
      s.opt.py = rp->version;
      s.opt.py_from = "requires-python = \"" + rp->spec + "\" in " + rp->file.string();
    }
  }
  if (!s.opt.target.empty()) {
    tpf::targets::LookupResult t = tpf::targets::lookup_target(s.opt.target);
    if (!t.ok()) {
      error = t.error.message() + " (see --list-targets)";
      if (!s.cfg.file.empty()) error += "; the target is from " + s.cfg.file.string();
      return false;
    }
    s.opt.resolved_target = *t.target;
  }
  if (s.opt.fail_on != "error" && s.opt.fail_on != "warning" && s.opt.fail_on != "never") {
    error = "unknown --fail-on '" + s.opt.fail_on + "' (expected error, warning or never)";
    return false;
  }
  if (!tpf::checks::select_rules(s.opt.select, s.opt.ignore, s.run, error, notes)) {
    if (!s.cfg.file.empty()) error += " (with " + s.cfg.file.string() + ")";
    return false;
  }
  for (const auto& [id, level] : s.cfg.severity) s.run.severity[static_cast<size_t>(id)] = level;
  return true;
}


}  // namespace tpf::tools
