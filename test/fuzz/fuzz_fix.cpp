// libFuzzer target for the autofixes (issue 20): arbitrary bytes -> the whole
// analysis -> every safe fix the rules offer, applied as --fix applies them.
// Fails (abort) when the fixed text does not parse, or when a fix writes a
// name that the file never binds nor Python builds in: `BCELoss()` where
// only BCEWithLogitsLoss was imported, `(torch.autograd / n)`. Keyword
// argument names (`set_to_none=`) and attributes (after a `.`) are not
// bindings. Built only with -Dfuzz=true under clang (see `make fuzz`).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "tools/fix.h"

namespace {

bool ident_start(char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }

// What a fix may name without the file binding it.
const std::set<std::string_view> kAlwaysBound = {
    "True", "False", "None", "and", "or", "not", "in", "is", "if", "else", "lambda", "for",
    "len", "range", "float", "int", "sum", "max", "min", "print", "isinstance", "getattr",
    "super"};

[[noreturn]] void fail(const char* what, std::string_view detail, std::string_view text) {
  std::fprintf(stderr, "fuzz-fix: %s: %.*s\n--- fixed text ---\n%.*s\n", what, int(detail.size()),
               detail.data(), int(text.size()), text.data());
  std::abort();
}

}  // namespace

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
  tpf::checks::CheckContext ctx{src, m, ir, facts};
  std::vector<tpf::Diagnostic> found = tpf::checks::run_checks(ctx, tpf::checks::RunOptions::all());
  bool any = false;
  for (const tpf::Diagnostic& d : found) any |= d.fix.has_value();
  if (!any) return 0;
  // The names the file mentions: a fix may use any of them (the driver's
  // re-analysis and pyflakes in the tests judge scope; this judges invention).
  std::set<std::string> names;
  for (const tpf::lexer::Token& t : toks.tokens)
    if (t.kind == tpf::lexer::TokKind::Name) names.emplace(src.text.substr(t.begin, t.end - t.begin));
  tpf::tools::FixResult fr = tpf::tools::apply_fixes(src.text, found, {});
  for (const tpf::Edit& e : fr.edits) {
    const std::string& s = e.text;
    for (size_t i = 0; i < s.size();) {
      if (s[i] == '#') {  // a comment moved with its line
        while (i < s.size() && s[i] != '\n' && s[i] != '\r') ++i;
        continue;
      }
      if (s[i] == '\'' || s[i] == '"') {  // skip a string literal
        const char q = s[i++];
        while (i < s.size() && s[i] != q) i += s[i] == '\\' ? 2 : 1;
        ++i;
        continue;
      }
      // After a '.' (in the edit, or in the source just before it) a name is an attribute.
      const char before = i > 0 ? s[i - 1] : e.span.begin > 0 ? src.text[e.span.begin - 1] : ' ';
      if (!ident_start(s[i]) || ident_char(before) || before == '.') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      const std::string_view id(s.data() + i, j - i);
      size_t k = j;
      while (k < s.size() && s[k] == ' ') ++k;
      const bool keyword_arg = k < s.size() && s[k] == '=' && (k + 1 >= s.size() || s[k + 1] != '=');
      if (!keyword_arg && !kAlwaysBound.count(id) && !names.count(std::string(id)))
        fail("a fix writes a name the file never binds", id, fr.text);
      i = j;
    }
  }
  tpf::DiagSink d2;
  tpf::SourceFile fixed;
  if (!tpf::lexer::make_source("fixed.py", fr.text, fixed, d2)) fail("the fixed text does not load", "", fr.text);
  tpf::lexer::TokenStream t2 = tpf::lexer::tokenize(fixed, d2);
  tpf::ast::Module m2 = tpf::parser::parse(fixed, t2, d2);
  if (d2.has_errors()) fail("the fixed text does not parse", d2.diagnostics().front().message, fr.text);
  return 0;
}
