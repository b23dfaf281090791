// The rule table (checks/registry.def) as queries: find a rule by code or
// slug, the --select/--ignore selection, per-rule severity overrides (the
// pyproject `severity` table of issue 6 plugs in here), and running the
// selected rules over one file.
// requires: the FileFacts of the file. produces: its rule diagnostics, sorted.
#pragma once

#include <array>
#include <bitset>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checks/check.h"

namespace tpf::checks {

/// Every rule, sorted by code.
inline std::span<const RuleInfo> all_rules() { return kRules; }

/// The rule with this code ("TPF003", any case) or slug, or null.
const RuleInfo* find_rule(std::string_view code_or_slug);

/// The --explain write-up stored with the rule.
std::string_view explain_text(RuleId id);

/// Whether the rule's check exists (Status::Stable).
bool is_runnable(RuleId id);

/// Which rules run, and with which severity.
struct RunOptions {
  std::bitset<kRuleCount> enabled;  // Planned/Removed rules are never enabled
  std::array<std::optional<Severity>, kRuleCount> severity{};  // overrides of the default

  /// Every runnable rule.
  static RunOptions all();
};

/// Applies --select / --ignore. Each item is a code ("TPF003"), a code
/// prefix ("TPF00"), a slug or "ALL"; items may be comma-separated. An
/// empty select list means every rule. On an unknown item returns false and
/// sets `error` ("unknown rule 'TPF099' in --select"). Naming a Planned rule
/// explicitly is not an error; `notes` gets "TPF013 is planned and does not
/// run yet".
bool select_rules(const std::vector<std::string>& select, const std::vector<std::string>& ignore,
                  RunOptions& out, std::string& error, std::vector<std::string>& notes);

/// Runs every enabled rule on one file. Each rule reports into its own
/// sink (the sink keeps one error per offset; two rules may well flag the
/// same spot). Exact duplicates are dropped; the result is sorted by
/// offset, then code.
std::vector<Diagnostic> run_checks(const CheckContext& ctx, const RunOptions& opt);

}  // namespace tpf::checks
