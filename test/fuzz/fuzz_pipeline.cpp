// libFuzzer target for the analysis after the frontend: arbitrary bytes ->
// tokens -> AST -> IR (verified) -> dataflow facts, and at stage 3 every
// Stable rule plus the memory estimator (with and without a target). Built
// only with -Dfuzz=true under clang (see `make fuzz`). Inputs that do not
// parse stop early; what parses must lower, converge and be checked without
// a crash, a sanitizer report or a hang.
// TPF_FUZZ_STAGE: 2 IR + dataflow, 3 the whole pipeline.
#include <cstddef>
#include <cstdint>
#include <string>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "memory/memory.h"
#include "parser/parser.h"
#include "targets/targets.h"

#ifndef TPF_FUZZ_STAGE
#define TPF_FUZZ_STAGE 3
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tpf::DiagSink diags;
  tpf::SourceFile src;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!tpf::lexer::make_source("fuzz.py", std::move(bytes), src, diags)) return 0;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
  tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
  if (diags.has_errors()) return 0;
  tpf::ir::Module ir = tpf::ir::build(m, src, diags, tpf::ir::kVerify);
  tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir);
  if (TPF_FUZZ_STAGE >= 3) {
    tpf::checks::CheckContext ctx{src, m, ir, facts};
    (void)tpf::checks::run_checks(ctx, tpf::checks::RunOptions::all());
    static const tpf::targets::LookupResult h100 = tpf::targets::lookup_target("h100");
    tpf::memory::EstimateOptions eo;
    eo.suggest = (size & 1) != 0;  // suggestions rerun the estimate: half the inputs
    if (size & 2) eo.target = *h100.target;
    (void)tpf::memory::estimate(ir, eo);
  }
  return 0;
}
