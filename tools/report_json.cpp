// The JSON reporter: the machine contract of issue 4, kept stable:
//   {"version":1,"files":N,"diagnostics":[{"rule","severity","path","line",
//    "column","end_line","end_column","message","help","fix"}...],"estimates":[...]}
// Lines and columns are 1-based; columns count code points; end_column is
// exclusive. Also the JSON form of --list-rules.
// requires: SourceFile, sorted diagnostics. produces: one line of JSON.
#include "tools/report.h"

#include <algorithm>

namespace tpf::tools {

void report_json(std::ostream& os, std::span<const FileDiagnostics> files, size_t files_analyzed,
                 const nlohmann::ordered_json& estimates, std::span<const InputError> errors) {
  nlohmann::ordered_json doc;
  doc["version"] = 1;
  doc["files"] = files_analyzed;
  nlohmann::ordered_json diags = nlohmann::ordered_json::array();
  for (const FileDiagnostics& f : files)
    for (const Diagnostic& d : f.diags) {
      Position b = position(*f.src, d.span.begin);
      Position e = position(*f.src, std::max(d.span.end, d.span.begin));
      nlohmann::ordered_json j;
      j["rule"] = d.code;
      j["severity"] = checks::severity_name(d.severity);
      j["path"] = f.path;
      j["line"] = b.line;
      j["column"] = b.column;
      j["end_line"] = e.line;
      j["end_column"] = e.column;
      j["message"] = d.message;
      j["help"] = d.help;
      if (d.fix) {
        nlohmann::ordered_json fix, edits = nlohmann::ordered_json::array();
        fix["title"] = d.fix->title;
        for (const Edit& ed : d.fix->edits) {
          Position eb = position(*f.src, ed.span.begin), ee = position(*f.src, ed.span.end);
          nlohmann::ordered_json x;
          x["line"] = eb.line;
          x["column"] = eb.column;
          x["end_line"] = ee.line;
          x["end_column"] = ee.column;
          x["content"] = ed.text;
          edits.push_back(std::move(x));
        }
        fix["edits"] = std::move(edits);
        j["fix"] = std::move(fix);
      } else {
        j["fix"] = nullptr;
      }
      diags.push_back(std::move(j));
    }
  for (const InputError& err : errors) {
    nlohmann::ordered_json j;
    j["rule"] = std::string(kInputErrorCode);
    j["severity"] = "error";
    j["path"] = err.path;
    j["line"] = std::max<uint32_t>(err.line, 1);
    j["column"] = std::max<uint32_t>(err.column, 1);
    j["end_line"] = std::max<uint32_t>(err.line, 1);
    j["end_column"] = std::max<uint32_t>(err.column, 1);
    j["message"] = err.kind + ": " + err.message;
    j["help"] = "the file was not analyzed";
    j["fix"] = nullptr;
    diags.push_back(std::move(j));
  }
  // Path order (the rules' diagnostics are in it already; stable keeps each file's order).
  std::stable_sort(diags.begin(), diags.end(), [](const auto& a, const auto& b) {
    return a["path"].template get_ref<const std::string&>() < b["path"].template get_ref<const std::string&>();
  });
  doc["diagnostics"] = std::move(diags);
  doc["estimates"] = estimates.is_array() ? estimates : nlohmann::ordered_json::array();
  // Paths and messages are UTF-8 (validated on load); replace anything else
  // rather than throw.
  os << doc.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

void list_rules_json(std::ostream& os) {
  nlohmann::ordered_json arr = nlohmann::ordered_json::array();
  for (const checks::RuleInfo& r : checks::kRules) {
    nlohmann::ordered_json j;
    j["code"] = r.code;
    j["slug"] = r.slug;
    j["severity"] = checks::severity_name(r.severity);
    j["category"] = checks::category_name(r.category);
    j["status"] = checks::status_name(r.status);
    j["summary"] = r.summary;
    arr.push_back(std::move(j));
  }
  os << arr.dump(2) << '\n';
}

}  // namespace tpf::tools
