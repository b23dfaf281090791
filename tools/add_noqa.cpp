// --add-noqa (see add_noqa.h): groups the findings by the line their
// suppression goes on, asks suppress.cpp for one edit per line, checks the
// rewritten file and writes it with --fix's atomic writer.
#include "tools/add_noqa.h"

#include <map>
#include <set>

#include "checks/registry.h"
#include "lexer/lexer.h"
#include "tools/fix.h"

namespace tpf::tools {

namespace {

std::string plural(size_t n, std::string_view word) {
  return std::to_string(n) + " " + std::string(word) + (n == 1 ? "" : "s");
}

/// `added N suppressions on M lines`.
std::string added(size_t codes, size_t lines) {
  return "added " + plural(codes, "suppression") + " on " + plural(lines, "line");
}

}  // namespace

NoqaEdits noqa_edits(const SourceFile& src, const CommentLines& lines, std::span<const Suppression> sups,
                     std::span<const Diagnostic> findings) {
  std::map<uint32_t, std::set<std::string>> by_line;  // sorted lines, sorted codes
  for (const Diagnostic& d : findings) {
    const checks::RuleInfo* r = checks::find_rule(d.code);
    if (!r || r->code != d.code) continue;  // not a rule's finding
    by_line[lines.target(src.pos(d.span.begin).line)].insert(d.code);
  }
  NoqaEdits out;
  for (const auto& [line, codes] : by_line) {
    std::vector<std::string> list(codes.begin(), codes.end());
    std::optional<Edit> e = suppression_edit(src, sups, line, list);
    if (!e) continue;
    // None of them is named on the line yet: a suppression there would
    // have dropped the finding.
    out.codes += list.size();
    out.edits.push_back(std::move(*e));
  }
  return out;
}

NoqaOutcome add_noqa_file(const SourceFile& src, const std::string& path, const CommentLines& lines,
                          std::span<const Suppression> sups, std::span<const Diagnostic> findings,
                          bool to_stdout, const Reanalysis& reanalyze, std::ostream& os, std::ostream& es) {
  NoqaOutcome out;
  NoqaEdits ne = noqa_edits(src, lines, sups, findings);
  if (ne.edits.empty()) return out;
  out.failed = true;
  std::optional<std::string_view> prefix = edit_prefix(src);
  if (!prefix) {
    es << path << ": error: no suppressions added: the file is decoded from its declared encoding, "
                  "and --add-noqa rewrites only UTF-8 files\n";
    return out;
  }
  std::string bytes = std::string(*prefix) + apply_edits(src.text, ne.edits);
  // The rewritten file must parse and report nothing, or it is not written.
  SourceFile after;
  DiagSink d;
  bool parses = lexer::make_source(src.path, bytes, after, d);
  size_t left = 0;
  if (parses) {
    std::optional<size_t> n = reanalyze(after);
    parses = n.has_value();
    left = n.value_or(0);
  }
  if (!parses || left) {
    es << path << ": error: no suppressions added: the file with them "
       << (parses ? "still reports " + std::to_string(left) + " findings" : std::string("does not parse"))
       << " (an internal error: please report it)\n";
    return out;
  }
  if (to_stdout) {
    os << bytes;
  } else if (std::string why = replace_file(src.path, bytes); !why.empty()) {
    es << path << ": error: no suppressions added, the file is as it was: " << why << "\n";
    return out;
  }
  out = {ne.codes, ne.edits.size(), false};
  es << path << ": " << added(ne.codes, ne.edits.size()) << "\n";
  return out;
}

void print_noqa_total(std::ostream& es, size_t codes, size_t lines, size_t files) {
  if (codes == 0 && lines == 0) {
    es << "tpf-analyze: --add-noqa: nothing to suppress\n";
    return;
  }
  es << "tpf-analyze: --add-noqa: " << added(codes, lines) << " in " << plural(files, "file") << "\n";
}

}  // namespace tpf::tools
