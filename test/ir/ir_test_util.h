// Test helpers for the IR and dataflow tests: run the whole pipeline on a
// Python snippet in-process, and find program points marked `# [[p1]]`.
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "dataflow/facts.h"
#include "ir/cfg.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "parser/parser.h"

namespace tpf::test {

/// Everything one file produces; heap-allocated because the IR points at
/// the AST and the source.
struct Pipeline {
  SourceFile src;
  DiagSink diags;
  lexer::TokenStream toks;
  ast::Module ast;
  ir::Module ir;
  dataflow::FileFacts facts;
  std::string text;

  /// The 1-based line of the `# [[name]]` marker.
  uint32_t line_of(std::string_view point) const {
    std::string marker = "[[" + std::string(point) + "]]";
    size_t at = text.find(marker);
    REQUIRE_MESSAGE(at != std::string::npos, "no program point " << point);
    return src.pos(static_cast<uint32_t>(at)).line;
  }
  /// The function with code on that line (the innermost: highest id).
  ir::FunctionId function_at(uint32_t line) const {
    for (size_t i = ir.functions.size(); i-- > 0;)
      for (const ir::Inst& in : ir.functions[i].insts)
        if (in.span.end > in.span.begin && src.pos(in.span.begin).line == line)
          return ir::FunctionId(static_cast<uint32_t>(i));
    return ir::FunctionId();
  }
  /// The SSA value `name` denotes on the marked line (its store there, else its load).
  std::pair<ir::FunctionId, ir::ValueId> value(std::string_view point, std::string_view name) const {
    uint32_t line = line_of(point);
    for (size_t i = ir.functions.size(); i-- > 0;) {
      const ir::Function& f = ir.functions[i];
      ir::ValueId found;
      for (const ir::LocalRef& r : f.local_refs) {
        if (src.pos(r.offset).line != line) continue;
        const ir::Var& v = f.vars[r.var.v];
        if (v.name == ir::kNoSymbol || ir.names.str(v.name) != name) continue;
        if (r.store) return {ir::FunctionId(static_cast<uint32_t>(i)), r.value};
        if (!found.valid()) found = r.value;
      }
      if (found.valid()) return {ir::FunctionId(static_cast<uint32_t>(i)), found};
    }
    FAIL("no reference to `" << name << "` on the line of " << point);
    return {};
  }
  dataflow::GradState grad(std::string_view point, std::string_view name) const {
    auto [f, v] = value(point, name);
    return facts.grad().state(f, v);
  }
  /// Grad mode at the first instruction on the marked line.
  dataflow::GradMode mode(std::string_view point) const {
    uint32_t line = line_of(point);
    ir::FunctionId f = function_at(line);
    REQUIRE(f.valid());
    const ir::Function& fn = ir.fn(f);
    for (uint32_t i = 0; i < fn.insts.size(); ++i)
      if (fn.insts[i].span.end > fn.insts[i].span.begin && src.pos(fn.insts[i].span.begin).line == line)
        return facts.grad().mode_at(f, ir::InstId(i));
    FAIL("no instruction on the line of " << point);
    return dataflow::GradMode::Bottom;
  }
  /// The first Call instruction on the marked line.
  std::pair<ir::FunctionId, ir::InstId> call(std::string_view point) const {
    uint32_t line = line_of(point);
    ir::FunctionId f = function_at(line);
    REQUIRE(f.valid());
    const ir::Function& fn = ir.fn(f);
    for (uint32_t i = 0; i < fn.insts.size(); ++i)
      if (fn.insts[i].op == ir::Op::Call && src.pos(fn.insts[i].span.begin).line == line)
        return {f, ir::InstId(i)};
    FAIL("no call on the line of " << point);
    return {};
  }
  std::string dump_ir() const {
    std::string out;
    ir::print(ir, out, &facts.res);
    return out;
  }
};

/// Lexes, parses, lowers (verifying), resolves and computes the facts.
inline std::unique_ptr<Pipeline> run(std::string_view code, bool facts = true) {
  auto p = std::make_unique<Pipeline>();
  p->text = std::string(code);
  REQUIRE(lexer::make_source("<test>.py", std::string(code), p->src, p->diags));
  p->toks = lexer::tokenize(p->src, p->diags);
  p->ast = parser::parse(p->src, p->toks, p->diags);
  REQUIRE_MESSAGE(!p->diags.has_errors(),
                  "snippet does not parse: " << p->diags.diagnostics()[0].message);
  p->ir = ir::build(p->ast, p->src, p->diags, /*check=*/true);
  if (facts) p->facts = dataflow::compute_facts(p->ir);
  return p;
}

/// test/<sub> in the source tree (__FILE__ is relative to the build dir under meson).
inline std::filesystem::path source_dir(std::string_view sub) {
  namespace fs = std::filesystem;
  fs::path here = fs::path(__FILE__).parent_path();
  for (fs::path base : {here, fs::current_path() / here, fs::path("test/ir")}) {
    fs::path g = base / ".." / sub;
    if (fs::is_directory(g)) return fs::weakly_canonical(g);
  }
  return {};
}

}  // namespace tpf::test
