// The rule table bound to code: each registry.def row's check function (none
// for Planned and Removed rules, so they can never run) and its --explain
// text; selection and the per-file run.
// requires: checks/registry.def, every rule's file. produces: run_checks.
#include "checks/registry.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace tpf::checks {

namespace {

using CheckFn = void (*)(const CheckContext&, DiagSink&);

// Status is a token of the row: Stable rows take the address of their
// check, other rows none (their files define no check, so a reference
// would not link).
#define TPF_CHECK_Stable(slug) &slug::check
#define TPF_CHECK_Planned(slug) nullptr
#define TPF_CHECK_Removed(slug) nullptr

constexpr std::array<CheckFn, kRuleCount> kChecks = {{
#define TPF_RULE(code, slug, severity, category, status, summary) TPF_CHECK_##status(slug),
#include "checks/registry.def"
#undef TPF_RULE
}};

const std::array<const std::string_view*, kRuleCount> kExplains = {{
#define TPF_RULE(code, slug, severity, category, status, summary) &slug::kExplain,
#include "checks/registry.def"
#undef TPF_RULE
}};

#undef TPF_CHECK_Stable
#undef TPF_CHECK_Planned
#undef TPF_CHECK_Removed

// The table is sorted by code and codes are unique (registry.def's contract).
constexpr bool table_sorted() {
  for (size_t i = 1; i < kRuleCount; ++i)
    if (!(kRules[i - 1].code < kRules[i].code)) return false;
  return true;
}
static_assert(table_sorted(), "checks/registry.def must be sorted by code, codes unique");

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> split_items(const std::vector<std::string>& args) {
  std::vector<std::string_view> out;
  for (const std::string& a : args) {
    std::string_view s = a;
    while (!s.empty()) {
      size_t comma = s.find(',');
      std::string_view item = s.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (!item.empty()) out.push_back(item);
      if (comma == std::string_view::npos) break;
      s.remove_prefix(comma + 1);
    }
  }
  return out;
}

/// The rules an item names: "ALL", a code, a code prefix or a slug.
std::bitset<kRuleCount> matching(std::string_view item) {
  std::bitset<kRuleCount> bits;
  std::string u = upper(item);
  for (size_t i = 0; i < kRuleCount; ++i) {
    const RuleInfo& r = kRules[i];
    if (u == "ALL" || r.slug == item || (u.size() >= 3 && r.code.starts_with(u))) bits.set(i);
  }
  return bits;
}

}  // namespace

std::string_view category_name(Category c) {
  switch (c) {
    case Category::Memory: return "memory";
    case Category::Correctness: return "correctness";
    case Category::Performance: return "performance";
    case Category::Reproducibility: return "reproducibility";
  }
  return "?";
}

std::string_view status_name(Status s) {
  switch (s) {
    case Status::Stable: return "stable";
    case Status::Planned: return "planned";
    case Status::Removed: return "removed";
  }
  return "?";
}

std::string_view severity_name(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "?";
}

Diagnostic make_diagnostic(const RuleInfo& rule, Span span, std::string message,
                           std::string help) {
  Diagnostic d;
  d.code = std::string(rule.code);
  d.severity = rule.severity;
  d.span = span;
  d.message = std::move(message);
  d.help = std::move(help);
  return d;
}

const RuleInfo* find_rule(std::string_view code_or_slug) {
  std::string u = upper(code_or_slug);
  for (const RuleInfo& r : kRules)
    if (r.code == u || r.slug == code_or_slug) return &r;
  return nullptr;
}

std::string_view explain_text(RuleId id) { return *kExplains[static_cast<size_t>(id)]; }

bool is_runnable(RuleId id) { return kChecks[static_cast<size_t>(id)] != nullptr; }

RunOptions RunOptions::all() {
  RunOptions o;
  for (size_t i = 0; i < kRuleCount; ++i) o.enabled[i] = kChecks[i] != nullptr;
  return o;
}

bool select_rules(const std::vector<std::string>& select, const std::vector<std::string>& ignore,
                  RunOptions& out, std::string& error, std::vector<std::string>& notes) {
  std::bitset<kRuleCount> runnable;
  for (size_t i = 0; i < kRuleCount; ++i) runnable[i] = kChecks[i] != nullptr;
  std::bitset<kRuleCount> chosen;
  auto apply = [&](const std::vector<std::string>& args, std::string_view flag, bool add) {
    for (std::string_view item : split_items(args)) {
      std::bitset<kRuleCount> m = matching(item);
      if (m.none()) {
        error = "unknown rule '" + std::string(item) + "' in " + std::string(flag) +
                " (see --list-rules)";
        return false;
      }
      if (add) {
        chosen |= m;
        // A rule named exactly that cannot run deserves a word; a prefix
        // or ALL that also covers planned rules does not.
        const RuleInfo* r = find_rule(item);
        if (r && !is_runnable(r->id))
          notes.push_back(std::string(r->code) + " is " + std::string(status_name(r->status)) +
                          " and does not run");
      } else {
        chosen &= ~m;
      }
    }
    return true;
  };
  if (!select.empty() && split_items(select).empty()) {
    error = "--select names no rule, so none would run: name rules (TPF001, TPF0, ALL), or leave "
            "it out to run them all";
    return false;
  }
  if (select.empty()) chosen = runnable;
  else if (!apply(select, "--select", true)) return false;
  if (!apply(ignore, "--ignore", false)) return false;
  out.enabled = chosen & runnable;
  return true;
}

std::vector<Diagnostic> run_checks(const CheckContext& ctx, const RunOptions& opt) {
  std::vector<Diagnostic> all;
  for (size_t i = 0; i < kRuleCount; ++i) {
    if (!opt.enabled[i] || !kChecks[i]) continue;
    DiagSink sink;
    kChecks[i](ctx, sink);
    for (const Diagnostic& d : sink.diagnostics()) {
      all.push_back(d);
      if (opt.severity[i]) all.back().severity = *opt.severity[i];
    }
  }
  auto key = [](const Diagnostic& d) {
    return std::tie(d.span.begin, d.code, d.span.end, d.message);
  };
  std::sort(all.begin(), all.end(),
            [&](const Diagnostic& a, const Diagnostic& b) { return key(a) < key(b); });
  all.erase(std::unique(all.begin(), all.end(),
                        [&](const Diagnostic& a, const Diagnostic& b) { return key(a) == key(b); }),
            all.end());
  return all;
}

}  // namespace tpf::checks
