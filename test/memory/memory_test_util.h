// Helpers for the memory tests: run the frontend on a file or a snippet
// and estimate it in-process; locate test/memory and test/golden/memory.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "ir/ir.h"
#include "lexer/lexer.h"
#include "memory/memory.h"
#include "parser/parser.h"

namespace tpf::test {

/// One parsed and lowered file (the IR points into the AST and source).
struct Script {
  SourceFile src;
  DiagSink diags;
  ast::Module ast;
  ir::Module ir;
};

inline std::unique_ptr<Script> load_script_text(const std::string& path, std::string text) {
  auto s = std::make_unique<Script>();
  REQUIRE(lexer::make_source(path, std::move(text), s->src, s->diags));
  lexer::TokenStream toks = lexer::tokenize(s->src, s->diags);
  s->ast = parser::parse(s->src, toks, s->diags);
  REQUIRE_MESSAGE(!s->diags.has_errors(), path << " does not parse");
  s->ir = ir::build(s->ast, s->src, s->diags, /*check=*/true);
  return s;
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline std::unique_ptr<Script> load_script(const std::filesystem::path& p) {
  return load_script_text(p.string(), read_file(p));
}

/// test/<sub> in the source tree (__FILE__ is relative to the build dir under meson).
inline std::filesystem::path memory_test_dir(std::string_view sub) {
  namespace fs = std::filesystem;
  fs::path here = fs::path(__FILE__).parent_path();
  for (fs::path base : {here, fs::current_path() / here, fs::path("test/memory")}) {
    fs::path g = base / ".." / sub;
    if (fs::is_directory(g)) return fs::weakly_canonical(g);
  }
  return {};
}

inline targets::Target target(std::string_view name) {
  targets::LookupResult r = targets::lookup_target(name);
  REQUIRE(r.ok());
  return *r.target;
}

}  // namespace tpf::test
