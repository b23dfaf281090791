// The language server's requests on a document (see lsp_server.h): code
// actions (each finding's safe fix, "ignore TPFnnn on this line", every
// safe fix verified as --diff verifies them) and hovers (the VRAM estimate
// on a model's construction and on `target` in [tool.tpf]).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <sstream>

#include "lexer/lexer.h"
#include "tools/lsp_actions.h"
#include "tools/lsp_server.h"

namespace tpf::tools::lsp {

namespace fs = std::filesystem;

// ---- code actions ----

json Server::code_action(const json& params) {
  Document& d = doc(params.at("textDocument"));
  json actions = json::array();
  if (!d.python) return actions;
  fresh(d);
  if (!d.src) return actions;
  TextPositions tp = positions(d);
  const json& range = params.at("range");
  uint32_t lo = tp.offset(range.at("start")), hi = tp.offset(range.at("end"));
  std::vector<std::string> only;
  if (params.contains("context") && params["context"].contains("only"))
    only = params["context"]["only"].get<std::vector<std::string>>();
  auto wanted = [&](std::string_view kind) {
    if (only.empty()) return true;
    for (const std::string& k : only)
      if (kind == k || (kind.starts_with(k) && kind.size() > k.size() && kind[k.size()] == '.')) return true;
    return false;
  };
  bool any_fix_here = false;
  for (const Diagnostic& x : d.diags) {
    if (!x.code.starts_with("TPF")) continue;  // syntax and configuration errors
    if (x.span.begin > hi || std::max(x.span.begin, x.span.end) < lo) continue;
    json diag = to_lsp(x, tp, d.uri);
    if (x.fix && wanted("quickfix")) {
      any_fix_here = true;
      actions.push_back({{"title", "Fix " + x.code + ": " + x.fix->title},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"isPreferred", true},
                         {"edit", {{"changes", {{d.uri, text_edits(x.fix->edits, tp)}}}}}});
    }
    if (!wanted("quickfix")) continue;
    uint32_t line = d.src->pos(x.span.begin).line;
    if (std::optional<Edit> e = ignore_edit(*d.src, line, x.code))
      actions.push_back({{"title", "Ignore " + x.code + " on this line"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"edit", {{"changes", {{d.uri, text_edits(std::span<const Edit>(&*e, 1), tp)}}}}}});
  }
  // Every safe fix of the file, verified as --diff verifies them (the fixed
  // text parses and the findings are gone): asked for by kind, or offered
  // next to a fixable finding.
  bool explicit_fix_all = !only.empty() && wanted(kFixAllKind);
  if (explicit_fix_all || any_fix_here) {
    std::unique_ptr<ProjectRun> pr = project_run();
    std::unique_ptr<Setups> s = setups();
    std::ostringstream sink;
    const Setup* setup = s->for_file(d.analyzed_path(), sink);
    if (setup) {
      Options o = setup->opt;
      o.diff = true;
      checks::RunOptions rules = rules_for(setup->cfg, setup->run, d.analyzed_path());
      nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
      FixOutcome fix;
      std::ostringstream out, err;
      std::vector<InputError> errors;
      std::vector<Diagnostic> findings;
      analyze_file(*pr, *d.src, d.analyzed_path(), o, rules, findings, estimates, fix, out, err, errors);
      if (!fix.edits.empty())
        actions.push_back({{"title", "Apply every safe fix (" + std::to_string(fix.would_fix) + " in this file)"},
                           {"kind", kFixAllKind},
                           {"edit", {{"changes", {{d.uri, text_edits(fix.edits, tp)}}}}}});
    }
  }
  return actions;
}

// ---- hover ----

json Server::hover(const json& params) {
  Document& d = doc(params.at("textDocument"));
  const json& pos = params.at("position");
  int64_t line = pos.at("line").get<int64_t>();
  if (line < 0 || line > UINT32_MAX) return nullptr;
  return d.python ? hover_python(d, static_cast<uint32_t>(line)) : hover_pyproject(d, static_cast<uint32_t>(line));
}

bool Server::estimate(const std::string& path, const std::string& text, const Setup& s,
                      const std::optional<std::string>& target, std::optional<memory::Estimate>& out,
                      std::string& why) {
  std::unique_ptr<Options> own;
  if (const ScriptRun* sr = script_for(s.cfg, path)) own = script_options(s.opt, *sr);
  Options o = own ? *own : s.opt;
  o.estimate = true;
  if (target) {
    targets::LookupResult t = targets::lookup_target(*target);
    if (!t.ok()) {
      why = t.error.message() + " (see `tpf-analyze --list-targets`)";
      return false;
    }
    o.target = *target;
    o.resolved_target = *t.target;
  }
  SourceFile src;
  DiagSink diags;
  if (!lexer::make_source(path, text, src, diags)) {
    why = "the file cannot be read: " + (diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message);
    return false;
  }
  std::unique_ptr<ProjectRun> pr = project_run();
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  FixOutcome fix;
  std::ostringstream os, es;
  std::vector<InputError> errors;
  std::vector<Diagnostic> findings;
  FileExtras extras;
  if (!analyze_file(*pr, src, path, o, rules_for(s.cfg, s.run, path), findings, estimates, fix, os, es, errors,
                    &extras)) {
    why = "the file has a syntax error";
    return false;
  }
  out = std::move(extras.estimate);
  return out.has_value();
}

json Server::hover_python(Document& d, uint32_t line0) {
  if (!d.estimated) {
    d.estimated = true;
    d.estimate.reset();
    std::unique_ptr<Setups> s = setups();
    std::ostringstream sink;
    std::string why;
    if (const Setup* setup = s->for_file(d.analyzed_path(), sink))
      estimate(d.analyzed_path(), d.text, *setup, std::nullopt, d.estimate, why);
  }
  if (!d.estimate) return nullptr;
  for (const auto& m : d.estimate->config.models) {
    if (m.origin.line != line0 + 1) continue;
    std::string title = "**tpf-analyze**: peak VRAM of `" + m.name + "`" +
                        (m.cls.empty() || m.cls == m.name ? "" : " (`" + m.cls + "`)") +
                        (d.estimate->target.empty() ? ", no target (set `target` in [tool.tpf] for a verdict)"
                                                    : " on " + d.estimate->gpu_display);
    TextPositions tp(d.text, utf16_);
    uint32_t b = tp.offset(line0, 0), e = tp.line_end(line0);
    return {{"contents", {{"kind", "markdown"}, {"value", estimate_markdown(*d.estimate, title)}}},
            {"range", tp.range(Span{b, e})}};
  }
  return nullptr;
}

json Server::hover_pyproject(Document& d, uint32_t line0) {
  std::optional<std::string> target = tool_tpf_target_at(d.text, line0);
  if (!target) return nullptr;
  // The scripts this configuration governs: the open Python documents
  // whose nearest [tool.tpf] is this file, then the plain paths of its
  // [tool.tpf.scripts] table (at most 4 in all).
  std::unique_ptr<Setups> s = setups();
  std::ostringstream sink;
  std::vector<std::pair<std::string, std::string>> scripts;  // path, text
  const Setup* mine = nullptr;
  for (const auto& [uri, o] : docs_) {
    if (!o.python || o.path.empty()) continue;
    const Setup* setup = s->for_file(o.path, sink);
    if (!setup || canonical(setup->cfg.file.string()) != d.canonical) continue;
    mine = setup;
    if (scripts.size() < 4) scripts.emplace_back(o.path, o.text);
  }
  if (!mine) {
    std::string probe = (fs::path(d.path).parent_path() / "__tpf_probe__.py").string();
    const Setup* setup = s->for_file(probe, sink);
    if (setup && canonical(setup->cfg.file.string()) == d.canonical) mine = setup;
  }
  std::string value = "**tpf-analyze**: `target = \"" + *target + "\"`";
  if (mine)
    for (const ScriptRun& sr : mine->cfg.scripts) {
      fs::path p = mine->cfg.root / sr.glob.pattern;
      std::error_code ec;
      if (scripts.size() >= 4 || sr.glob.pattern.find_first_of("*?[") != std::string::npos ||
          !fs::is_regular_file(p, ec))
        continue;
      bool have = false;
      for (const auto& [path, text] : scripts) have |= canonical(path) == canonical(p.string());
      if (have) continue;
      std::ifstream in(p, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      scripts.emplace_back(p.string(), std::move(text));
    }
  if (!mine || scripts.empty()) {
    value += "\n\nNo script under this configuration is open: open one (or name it in "
             "[tool.tpf.scripts]) to see its estimate here.";
  }
  for (const auto& [path, text] : scripts) {
    std::optional<memory::Estimate> est;
    std::string why;
    std::string name = fs::path(path).filename().string();
    if (!estimate(path, text, *mine, target, est, why)) {
      value += "\n\n`" + name + "`: no estimate: " + (why.empty() ? "no model found" : why);
      if (!why.empty() && why.find("--list-targets") != std::string::npos) break;  // same for every script
      continue;
    }
    value += "\n\n" + estimate_markdown(*est, "`" + name + "`");
  }
  TextPositions tp(d.text, utf16_);
  return {{"contents", {{"kind", "markdown"}, {"value", value}}},
          {"range", tp.range(Span{tp.offset(line0, 0), tp.line_end(line0)})}};
}

}  // namespace tpf::tools::lsp
