// The SARIF 2.1.0 reporter (OASIS SARIF v2.1.0, the format GitHub code
// scanning uploads): one run whose tool driver describes every rule of
// checks/registry.def and whose results point at physical locations.
// requires: SourceFile, sorted diagnostics. produces: one SARIF log (JSON).
#include <string_view>

#include "checks/registry.h"
#include "tools/report.h"
#include "tools/suppress.h"

namespace tpf::tools {

namespace {

using Json = nlohmann::ordered_json;

/// Percent-encodes everything but RFC 3986 unreserved characters and '/'.
std::string uri_encode(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '.' || c == '_' || c == '~' || c == '/';
    if (keep) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string_view sarif_level(Severity s) {
  switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "error";
}

Json artifact_location(const std::string& path) {
  Json a;
  if (!path.empty() && path[0] == '/') {
    a["uri"] = "file://" + uri_encode(path);
  } else {
    std::string_view p = path;
    while (p.starts_with("./")) p.remove_prefix(2);
    a["uri"] = uri_encode(p);
    a["uriBaseId"] = "%SRCROOT%";
  }
  return a;
}

Json region(const SourceFile& src, Span span) {
  Position b = position(src, span.begin);
  Position e = position(src, std::max(span.end, span.begin));
  Json r;
  r["startLine"] = b.line;
  r["startColumn"] = b.column;
  r["endLine"] = e.line;
  r["endColumn"] = e.column;
  return r;
}

Json location(const std::string& path, const SourceFile& src, Span span) {
  Json phys;
  phys["artifactLocation"] = artifact_location(path);
  phys["region"] = region(src, span);
  Json loc;
  loc["physicalLocation"] = std::move(phys);
  return loc;
}

Json text(std::string_view s) {
  Json j;
  j["text"] = std::string(s);
  return j;
}

Json rule_descriptor(const checks::RuleInfo& r) {
  Json d;
  d["id"] = std::string(r.code);
  d["name"] = std::string(r.slug);
  d["shortDescription"] = text(r.summary);
  std::string_view explain = checks::explain_text(r.id);
  d["fullDescription"] = text(explain.substr(0, explain.find('\n')));
  d["help"] = text(explain);
  Json conf;
  conf["enabled"] = r.status == checks::Status::Stable;
  conf["level"] = std::string(sarif_level(r.severity));
  d["defaultConfiguration"] = std::move(conf);
  Json props;
  props["category"] = std::string(checks::category_name(r.category));
  props["status"] = std::string(checks::status_name(r.status));
  props["tags"] = Json::array({std::string(checks::category_name(r.category))});
  d["properties"] = std::move(props);
  return d;
}

}  // namespace

void report_sarif(std::ostream& os, std::span<const FileDiagnostics> files,
                  const std::string& srcroot, std::string_view version,
                  std::span<const InputError> errors) {
  Json rules = Json::array();
  for (const checks::RuleInfo& r : checks::kRules) rules.push_back(rule_descriptor(r));
  bool any_unused = false;
  Json results = Json::array();
  for (const FileDiagnostics& f : files)
    for (const Diagnostic& d : f.diags) {
      Json r;
      r["ruleId"] = d.code;
      if (const checks::RuleInfo* info = checks::find_rule(d.code))
        r["ruleIndex"] = static_cast<size_t>(info->id);
      else if (d.code == kUnusedSuppression)
        any_unused = true;
      r["level"] = std::string(sarif_level(d.severity));
      std::string message = d.message;
      if (!d.help.empty()) message += "\nhelp: " + d.help;
      r["message"] = text(message);
      r["locations"] = Json::array({location(f.path, *f.src, d.span)});
      if (!d.notes.empty()) {
        Json related = Json::array();
        int id = 0;
        for (const DiagNote& n : d.notes) {
          Json loc = location(f.path, *f.src, n.span);
          loc["id"] = id++;
          loc["message"] = text(n.message);
          related.push_back(std::move(loc));
        }
        r["relatedLocations"] = std::move(related);
      }
      if (d.fix) {
        Json replacements = Json::array();
        for (const Edit& ed : d.fix->edits) {
          Json rep;
          rep["deletedRegion"] = region(*f.src, ed.span);
          rep["insertedContent"] = text(ed.text);
          replacements.push_back(std::move(rep));
        }
        Json change;
        change["artifactLocation"] = artifact_location(f.path);
        change["replacements"] = std::move(replacements);
        Json fix;
        fix["description"] = text(d.fix->title);
        fix["artifactChanges"] = Json::array({std::move(change)});
        r["fixes"] = Json::array({std::move(fix)});
      }
      results.push_back(std::move(r));
    }
  if (any_unused) {
    // Not a registry rule, so it has no ruleIndex; describe it all the same.
    Json d;
    d["id"] = std::string(kUnusedSuppression);
    d["name"] = std::string(kUnusedSuppression);
    d["shortDescription"] = text("a `# tpf: ignore` or `# noqa: TPF...` comment suppresses nothing");
    d["help"] = text("Remove the comment, or the code in it that no finding on its line has.");
    Json conf;
    conf["level"] = "warning";
    d["defaultConfiguration"] = std::move(conf);
    rules.push_back(std::move(d));
  }

  Json driver;
  driver["name"] = "tpf-analyze";
  driver["version"] = std::string(version);
  driver["semanticVersion"] = std::string(version);
  driver["rules"] = std::move(rules);
  Json run;
  run["tool"]["driver"] = std::move(driver);
  std::string root = srcroot;
  if (root.empty() || root.back() != '/') root += '/';
  run["originalUriBaseIds"]["%SRCROOT%"]["uri"] = "file://" + uri_encode(root);
  run["columnKind"] = "unicodeCodePoints";
  run["results"] = std::move(results);
  // Files that could not be analyzed are not findings: they are what the
  // tool could not do, reported with the invocation (as CodeQL does).
  Json notifications = Json::array();
  for (const InputError& err : errors) {
    Json n;
    n["level"] = "error";
    n["message"] = text(err.kind + ": " + err.message + " (the file was not analyzed)");
    Json phys;
    phys["artifactLocation"] = artifact_location(err.path);
    if (err.line) {
      phys["region"]["startLine"] = err.line;
      phys["region"]["startColumn"] = std::max<uint32_t>(err.column, 1);
    }
    Json loc;
    loc["physicalLocation"] = std::move(phys);
    n["locations"] = Json::array({std::move(loc)});
    n["descriptor"]["id"] = std::string(kInputErrorCode);
    notifications.push_back(std::move(n));
  }
  Json invocation;
  invocation["executionSuccessful"] = errors.empty();
  if (!errors.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
  run["invocations"] = Json::array({std::move(invocation)});

  Json log;
  log["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  log["version"] = "2.1.0";
  log["runs"] = Json::array({std::move(run)});
  os << log.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

}  // namespace tpf::tools
