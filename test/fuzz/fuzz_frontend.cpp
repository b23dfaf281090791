// libFuzzer target for the frontend: arbitrary bytes -> make_source ->
// tokenize -> parse -> JSON dump. Built only with -Dfuzz=true under clang
// (see `make fuzz`). Any crash, sanitizer report, or hang is a bug: the
// frontend must turn every input into tokens/AST plus diagnostics.
// TPF_FUZZ_STAGE selects how far the pipeline runs (0 lexer, 1 parser).
#include <cstddef>
#include <cstdint>
#include <string>

#include "lexer/lexer.h"
#include "parser/parser.h"

#ifndef TPF_FUZZ_STAGE
#define TPF_FUZZ_STAGE 1
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tpf::DiagSink diags;
  tpf::SourceFile src;
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (!tpf::lexer::make_source("fuzz.py", std::move(bytes), src, diags)) return 0;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
  if (TPF_FUZZ_STAGE >= 1) {
    tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
    if (!diags.has_errors()) {
      std::string out;
      tpf::parser::dump_json(m, src, out);
    }
  }
  return 0;
}
