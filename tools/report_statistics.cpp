// --statistics (see report.h): the findings counted per code, most first,
// in text (Ruff's and flake8's layout) or JSON.
// requires: the run's findings and input errors. produces: the count table.
#include <algorithm>
#include <map>
#include <string>

#include "checks/registry.h"
#include "tools/report.h"
#include "tools/suppress.h"

namespace tpf::tools {

namespace {

/// One code's row.
struct CodeCount {
  std::string code;
  std::string name;     // the rule's slug, or the code itself
  std::string summary;  // the rule's one line
  size_t count = 0;
  size_t fixable = 0;   // findings with a fix (--fix)
};

std::vector<CodeCount> count_codes(std::span<const FileDiagnostics> files, std::span<const InputError> errors) {
  std::map<std::string, CodeCount> by_code;
  auto row = [&](const std::string& code) -> CodeCount& {
    CodeCount& c = by_code[code];
    if (c.code.empty()) {
      c.code = code;
      if (const checks::RuleInfo* r = checks::find_rule(code); r && r->code == code) {
        c.name = r->slug;
        c.summary = r->summary;
      } else if (code == kInputErrorCode) {
        c.name = "input_error";
        c.summary = "a file that could not be analyzed: unreadable, undecodable or a syntax error";
      } else if (code == kUnusedSuppression) {
        c.name = code;
        c.summary = "a suppression comment that suppresses nothing";
      } else {
        c.name = code;
      }
    }
    return c;
  };
  for (const FileDiagnostics& f : files)
    for (const Diagnostic& d : f.diags) {
      CodeCount& c = row(d.code);
      ++c.count;
      c.fixable += d.fix.has_value();
    }
  for (size_t i = 0; i < errors.size(); ++i) ++row(std::string(kInputErrorCode)).count;
  std::vector<CodeCount> out;
  for (auto& [code, c] : by_code) out.push_back(std::move(c));
  // By code (the map's order), then most findings first.
  std::stable_sort(out.begin(), out.end(), [](const CodeCount& a, const CodeCount& b) { return a.count > b.count; });
  return out;
}

}  // namespace

void report_statistics_text(std::ostream& os, std::span<const FileDiagnostics> files,
                            std::span<const InputError> errors, const Totals& totals) {
  std::vector<CodeCount> rows = count_codes(files, errors);
  size_t count_width = 0, code_width = 0;
  bool any_fixable = false;
  for (const CodeCount& c : rows) {
    count_width = std::max(count_width, std::to_string(c.count).size());
    code_width = std::max(code_width, c.code.size());
    any_fixable |= c.fixable > 0;
  }
  std::string out;
  for (const CodeCount& c : rows) {
    std::string n = std::to_string(c.count);
    out += std::string(count_width - n.size(), ' ') + n + '\t';
    out += printable(c.code) + std::string(code_width - c.code.size(), ' ') + '\t';
    if (any_fixable) out += c.fixable == c.count ? "[*] " : c.fixable ? "[-] " : "[ ] ";
    out += printable(c.name);
    if (c.fixable && c.fixable < c.count)
      out += " (" + std::to_string(c.fixable) + " of " + n + " fixable)";
    out += '\n';
  }
  os << out << summary_line(files, totals) << '\n';
}

void report_statistics_json(std::ostream& os, std::span<const FileDiagnostics> files,
                            std::span<const InputError> errors, size_t files_analyzed) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  size_t total = 0, fixable = 0;
  for (const CodeCount& c : count_codes(files, errors)) {
    rows.push_back({{"code", c.code},
                    {"name", c.name},
                    {"summary", c.summary},
                    {"count", c.count},
                    {"fixable", c.fixable}});
    total += c.count;
    fixable += c.fixable;
  }
  nlohmann::ordered_json doc = {{"version", 1},
                                {"files", files_analyzed},
                                {"total", total},
                                {"fixable", fixable},
                                {"statistics", std::move(rows)}};
  os << doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
}

}  // namespace tpf::tools
