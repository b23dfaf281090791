// Views of the rule table (checks/registry.def): --list-rules, --explain and
// docs/rules.md. Nothing here is written by hand per rule: the summaries
// come from the table, the write-ups from each rule's kExplain.
// requires: checks/registry.h. produces: text.
#include <string_view>

#include "checks/registry.h"
#include "tools/report.h"

namespace tpf::tools {

namespace {

std::string padded(std::string_view s, size_t width) {
  std::string out(s);
  if (out.size() < width) out.append(width - out.size(), ' ');
  return out;
}

size_t slug_width() {
  size_t w = 0;
  for (const checks::RuleInfo& r : checks::kRules) w = std::max(w, r.slug.size());
  return w;
}

std::string meta_line(const checks::RuleInfo& r) {
  std::string s = "severity: " + std::string(checks::severity_name(r.severity)) +
                  ", category: " + std::string(checks::category_name(r.category)) +
                  ", status: " + std::string(checks::status_name(r.status));
  if (r.status == checks::Status::Planned) s += " (registered, does not run yet)";
  return s;
}

}  // namespace

void list_rules_text(std::ostream& os) {
  size_t sw = slug_width();
  for (const checks::RuleInfo& r : checks::kRules) {
    os << r.code << "  " << padded(checks::severity_name(r.severity), 8)
       << padded(checks::category_name(r.category), 16) << padded(checks::status_name(r.status), 9)
       << padded(r.slug, sw + 2) << r.summary << '\n';
  }
}

void explain_rule(std::ostream& os, const checks::RuleInfo& r) {
  std::string_view text = checks::explain_text(r.id);
  size_t nl = text.find('\n');
  os << text.substr(0, nl) << '\n' << meta_line(r) << '\n';
  if (nl != std::string_view::npos) os << text.substr(nl + 1);
}

std::string rules_markdown() {
  std::string out =
      "# Rules\n\n"
      "Generated from `checks/registry.def` and each rule's write-up in\n"
      "`checks/<slug>.cpp` (the same text as `tpf-analyze --explain CODE`). Do not\n"
      "edit by hand: `TPF_UPDATE_GOLDEN=1 meson test` rewrites it, and a test fails\n"
      "when it is stale.\n\n"
      "Severities: **error**, the run dies or silently trains wrong; **warning**, a\n"
      "real defect with bounded cost; **note**, a tuning observation that never\n"
      "gates a build. *Planned* rules are registered but do not run yet.\n\n"
      "| code | name | severity | category | status | summary |\n"
      "|---|---|---|---|---|---|\n";
  for (const checks::RuleInfo& r : checks::kRules) {
    out += "| [" + std::string(r.code) + "](#" + std::string(r.code) + ") | `" +
           std::string(r.slug) + "` | " + std::string(checks::severity_name(r.severity)) + " | " +
           std::string(checks::category_name(r.category)) + " | " +
           std::string(checks::status_name(r.status)) + " | " + std::string(r.summary) + " |\n";
  }
  for (const checks::RuleInfo& r : checks::kRules) {
    out += "\n## " + std::string(r.code) + "\n\n`" + std::string(r.slug) + "`: " +
           meta_line(r) + "\n\n```text\n";
    out += checks::explain_text(r.id);
    if (!out.ends_with('\n')) out += '\n';
    out += "```\n";
  }
  return out;
}

}  // namespace tpf::tools
