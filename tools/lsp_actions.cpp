// Diagnostics, edits and hover text for the language server (see
// lsp_actions.h).
#include "tools/lsp_actions.h"

#include <sstream>
#include <vector>

#include "lexer/lexer.h"
#include "tools/report_memory.h"
#include "tools/suppress.h"

namespace tpf::tools::lsp {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// The lines of `text`, split as LineIndex splits them.
std::string_view line_of(std::string_view text, const LineIndex& lines, uint32_t line1) {
  uint32_t begin = lines.line_start(line1);
  uint32_t end = line1 < lines.line_count() ? lines.line_start(line1 + 1) : static_cast<uint32_t>(text.size());
  std::string_view l = text.substr(begin, end - begin);
  while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.remove_suffix(1);
  return l;
}

}  // namespace

nlohmann::json to_lsp(const Diagnostic& d, const TextPositions& tp, const std::string& uri) {
  // LSP severities: 1 error, 2 warning, 3 information.
  int severity = d.severity == Severity::Error ? 1 : d.severity == Severity::Warning ? 2 : 3;
  std::string message = d.message;
  if (!d.help.empty()) message += "\nhelp: " + d.help;
  nlohmann::json out = {{"range", tp.range(d.span)},
                        {"severity", severity},
                        {"code", d.code},
                        {"source", "tpf-analyze"},
                        {"message", message}};
  if (!d.notes.empty()) {
    nlohmann::json related = nlohmann::json::array();
    for (const DiagNote& n : d.notes)
      related.push_back({{"location", {{"uri", uri}, {"range", tp.range(n.span)}}}, {"message", n.message}});
    out["relatedInformation"] = std::move(related);
  }
  return out;
}

nlohmann::json text_edits(std::span<const Edit> edits, const TextPositions& tp) {
  nlohmann::json out = nlohmann::json::array();
  for (const Edit& e : edits) out.push_back({{"range", tp.range(e.span)}, {"newText", e.text}});
  return out;
}

std::optional<Edit> ignore_edit(const SourceFile& src, uint32_t line, std::string_view code) {
  if (line == 0 || line > src.lines.line_count()) return std::nullopt;
  DiagSink diags;
  lexer::TokenStream toks = lexer::tokenize(src, diags, kNewestPy);
  // On the line itself, or where its comment must go (--add-noqa's rule).
  uint32_t target = compute_comment_lines(src, toks.tokens).target(line);
  const std::string codes[] = {std::string(code)};
  return suppression_edit(src, parse_suppressions(src, toks.comments), target, codes);
}

std::optional<std::string> tool_tpf_target_at(std::string_view toml_text, uint32_t line0) {
  LineIndex lines(toml_text);
  if (line0 + 1 > lines.line_count()) return std::nullopt;
  std::string_view l = trim(line_of(toml_text, lines, line0 + 1));
  if (!l.starts_with("target")) return std::nullopt;
  std::string_view rest = trim(l.substr(6));
  if (!rest.starts_with('=')) return std::nullopt;  // `target-version = ...` is another key
  rest = trim(rest.substr(1));
  // The table the key is in: the nearest header above it.
  bool in_tool_tpf = false;
  for (uint32_t k = line0 + 1; k-- > 1;) {
    std::string_view h = trim(line_of(toml_text, lines, k));
    if (!h.starts_with('[')) continue;
    size_t hash = h.find('#');
    if (hash != std::string_view::npos) h = trim(h.substr(0, hash));
    std::string compact;
    for (char c : h)
      if (c != ' ' && c != '\t') compact += c;
    in_tool_tpf = compact == "[tool.tpf]";
    break;
  }
  if (!in_tool_tpf || rest.empty()) return std::nullopt;
  char q = rest.front();
  if (q != '"' && q != '\'') return std::nullopt;
  size_t close = rest.find(q, 1);
  if (close == std::string_view::npos) return std::nullopt;
  return std::string(rest.substr(1, close - 1));
}

std::string estimate_markdown(const memory::Estimate& e, std::string_view title) {
  std::ostringstream report;
  render_estimate(report, e, {false, true});
  std::string text = report.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  // A fence longer than any run of backticks in the report.
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += '`';
  return std::string(title) + "\n\n" + fence + "text\n" + text + "\n" + fence;
}

}  // namespace tpf::tools::lsp
