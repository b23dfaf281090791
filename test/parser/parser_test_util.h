// Helpers for the parser tests: run lexer + parser in-process on a snippet
// and look at the JSON dump or the first diagnostic.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "lexer/lexer.h"
#include "parser/parser.h"

namespace tpf::parser::test {

struct Parsed {
  nlohmann::json tree;  // null when there was a syntax error
  std::string error;    // "line:col: message" of the first diagnostic (col 1-based, as printed)
  size_t errors = 0;    // how many errors were reported (CPython raises one)
};

/// `version` defaults to 3.11, the grammar most of these tests pin down.
inline Parsed parse_snippet(std::string_view code, PyVersion version = PyVersion{3, 11}) {
  Parsed r;
  DiagSink diags;
  SourceFile src;
  if (!lexer::make_source("<test>", std::string(code), src, diags)) {
    diags.sort();
    const Diagnostic& d = diags.diagnostics().front();
    LineCol lc = src.pos(d.span.begin);
    r.error = std::to_string(lc.line) + ":" + std::to_string(lc.col + 1) + ": " + d.message;
    return r;
  }
  lexer::TokenStream toks = lexer::tokenize(src, diags, version);
  ast::Module m = parse(src, toks, diags, version);
  if (diags.has_errors()) {
    diags.sort();
    const Diagnostic& d = diags.diagnostics().front();
    LineCol lc = src.pos(d.span.begin);
    r.error = std::to_string(lc.line) + ":" + std::to_string(lc.col + 1) + ": " + d.message;
    r.errors = diags.error_count();
    return r;
  }
  std::string out;
  dump_json(m, src, out);
  r.tree = nlohmann::json::parse(out);
  return r;
}

/// "line:col-line:col" of a JSON node.
inline std::string pos(const nlohmann::json& n) {
  return std::to_string(n["lineno"].get<int>()) + ":" + std::to_string(n["col_offset"].get<int>()) +
         "-" + std::to_string(n["end_lineno"].get<int>()) + ":" +
         std::to_string(n["end_col_offset"].get<int>());
}

/// The first difference between two pyast2json trees ("" when equal);
/// floats and complex values compare as numbers, as astcompare.py does.
inline std::string json_diff(const nlohmann::json& a, const nlohmann::json& b,
                             const std::string& where = "$") {
  if (a.is_object() && b.is_object()) {
    for (const char* num : {"float", "complex"}) {
      if (a.size() == 1 && b.size() == 1 && a.contains(num) && b.contains(num)) {
        double x = std::stod(a[num].get<std::string>()), y = std::stod(b[num].get<std::string>());
        return x == y ? "" : where;
      }
    }
    if (a.size() != b.size()) return where + ": keys differ";
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (!b.contains(it.key())) return where + ": missing " + it.key();
      std::string d = json_diff(it.value(), b[it.key()], where + "." + it.key());
      if (!d.empty()) return d;
    }
    return "";
  }
  if (a.is_array() && b.is_array()) {
    if (a.size() != b.size()) return where + ": length differs";
    for (size_t i = 0; i < a.size(); ++i) {
      std::string d = json_diff(a[i], b[i], where + "[" + std::to_string(i) + "]");
      if (!d.empty()) return d;
    }
    return "";
  }
  return a == b ? "" : where + ": " + a.dump().substr(0, 60) + " != " + b.dump().substr(0, 60);
}

}  // namespace tpf::parser::test
