// Grammar-aware libFuzzer target: the input bytes are not Python but a
// stream of choices that drive a small generator of (mostly valid) Python 3.11
// source: statements, compound blocks with indentation, expressions of every
// precedence level, comprehensions, f-strings, patterns, decorators. The
// source is then lexed, parsed and dumped like fuzz_frontend.cpp, so mutations
// of a few bytes change whole constructs instead of breaking the tokenizer
// first. Now and then a construct is nested past the parser's depth limit, or
// a token is dropped, to exercise the error paths with deep syntax too.
// Built only with -Dfuzz=true under clang (see docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "lexer/lexer.h"
#include "parser/parser.h"

namespace {

class Gen {
 public:
  Gen(const uint8_t* d, size_t n) : d_(d), n_(n) {}

  std::string module() {
    int count = 1 + pick(8);
    for (int i = 0; i < count && !done(); ++i) stmt(0);
    return out_;
  }

 private:
  const uint8_t* d_;
  size_t n_, i_ = 0;
  std::string out_;
  int budget_ = 4000;  // bounds the output size whatever the input

  bool done() const { return i_ >= n_ || budget_ <= 0; }
  unsigned pick(unsigned k) {
    --budget_;
    if (i_ >= n_ || k == 0) return 0;
    return d_[i_++] % k;
  }
  void put(const char* s) { out_ += s; }
  void ind(int depth) { out_.append(static_cast<size_t>(depth) * 4, ' '); }

  void name() {
    static const char* const kNames[] = {"x", "y", "self", "model", "loss", "torch", "_", "a1",
                                         "match", "case", "type", "\xc3\xa9t\xc3\xa9"};
    put(kNames[pick(sizeof kNames / sizeof *kNames)]);
  }

  void atom(int depth) {
    switch (pick(16)) {
      case 0: name(); break;
      case 1: put("0"); break;
      case 2: put("1_000.5e-3j"); break;
      case 3: put("0x_ff"); break;
      case 4: put("'s\\n'"); break;
      case 5: put("b'\\x00'"); break;
      case 6: put("\"\"\"tri\nple\"\"\""); break;
      case 7: put("f'{"); expr(depth + 1); put("!r:>{"); expr(depth + 1); put("}}'"); break;
      case 8: put("("); expr(depth + 1); put(pick(2) ? ",)" : ")"); break;
      case 9: put("["); exprs(depth + 1); put("]"); break;
      case 10: put("{"); expr(depth + 1); put(": "); expr(depth + 1); put("}"); break;
      case 11: put("["); expr(depth + 1); put(" for "); name(); put(" in "); expr(depth + 1);
               if (pick(2)) { put(" if "); expr(depth + 1); } put("]"); break;
      case 12: put("..."); break;
      case 13: put("None"); break;
      case 14: put("(yield "); expr(depth + 1); put(")"); break;
      default: put("rb'\\d'"); break;
    }
  }

  void exprs(int depth) {
    int n = static_cast<int>(pick(4));
    for (int i = 0; i < n; ++i) {
      if (i) put(", ");
      if (pick(6) == 0) put("*");
      expr(depth);
    }
  }

  void primary(int depth) {
    atom(depth);
    int trailers = static_cast<int>(pick(4));
    for (int i = 0; i < trailers; ++i) {
      switch (pick(4)) {
        case 0: put("."); name(); break;
        case 1: put("("); exprs(depth + 1); if (pick(3) == 0) { put(pick(2) ? ", k=" : ", **"); expr(depth + 1); } put(")"); break;
        case 2: put("["); expr(depth + 1); put(pick(2) ? ":" : ", ::2"); put("]"); break;
        default: put("["); expr(depth + 1); put("]"); break;
      }
    }
  }

  void expr(int depth) {
    if (depth > 12 || done()) return atom(99);  // depth 99: no further recursion
    if (depth > 90) return name();
    static const char* const kBin[] = {" + ", " - ", " * ", " @ ", " / ", " // ", " % ", " ** ",
                                       " << ", " >> ", " & ", " | ", " ^ ", " and ", " or ",
                                       " < ", " >= ", " == ", " != ", " in ", " not in ", " is ",
                                       " is not "};
    switch (pick(12)) {
      case 0: case 1: case 2: primary(depth); break;
      case 3: expr(depth + 1); put(kBin[pick(sizeof kBin / sizeof *kBin)]); expr(depth + 1); break;
      case 4: put(pick(2) ? "not " : "-"); expr(depth + 1); break;
      case 5: expr(depth + 1); put(" if "); expr(depth + 1); put(" else "); expr(depth + 1); break;
      case 6: put("lambda "); if (pick(2)) { name(); put("=1, *a, **k"); } put(": "); expr(depth + 1); break;
      case 7: put("("); name(); put(" := "); expr(depth + 1); put(")"); break;
      case 8: put("await "); primary(depth + 1); break;
      case 9: {  // deep nesting, sometimes past the limit
        int n = pick(4) == 0 ? 150 + static_cast<int>(pick(200)) : static_cast<int>(pick(20));
        const char* open = pick(2) ? "(" : "[";
        for (int i = 0; i < n; ++i) put(open);
        atom(99);
        for (int i = 0; i < n; ++i) put(*open == '(' ? ")" : "]");
        break;
      }
      case 10: primary(depth); put("["); exprs(depth + 1); put("]"); break;
      default: put("~"); primary(depth + 1); break;
    }
  }

  void pattern(int depth) {
    if (depth > 6) return put("_");
    switch (pick(8)) {
      case 0: put("["); pattern(depth + 1); put(", *rest]"); break;
      case 1: put("{'k': "); pattern(depth + 1); put(", **kw}"); break;
      case 2: put("Point(x="); pattern(depth + 1); put(")"); break;
      case 3: pattern(depth + 1); put(" | "); pattern(depth + 1); break;
      case 4: put("-1 + 2j"); break;
      case 5: pattern(depth + 1); put(" as z"); break;
      case 6: put("a.b"); break;
      default: name(); break;
    }
  }

  void block(int depth) {
    put(":");
    if (pick(5) == 0) {  // simple suite on the same line
      put(" pass\n");
      return;
    }
    put("\n");
    int n = 1 + static_cast<int>(pick(3));
    for (int i = 0; i < n; ++i) stmt(depth + 1);
  }

  void stmt(int depth) {
    if (depth > 40 || done()) {
      ind(depth);
      put("pass\n");
      return;
    }
    ind(depth);
    switch (pick(22)) {
      case 0: case 1: expr(0); break;
      case 2: name(); put(pick(2) ? " = " : " += "); expr(0); break;
      case 3: name(); put(": "); expr(0); put(" = "); expr(0); break;
      case 4: put("if "); expr(0); block(depth);
              if (pick(2)) { ind(depth); put("elif "); expr(0); block(depth); }
              if (pick(2)) { ind(depth); put("else"); block(depth); }
              return;
      case 5: put("while "); expr(0); block(depth); return;
      case 6: put("for "); name(); put(", *"); name(); put(" in "); expr(0); block(depth); return;
      case 7: if (pick(3) == 0) { put("@"); expr(0); put("\n"); ind(depth); }
              put(pick(4) ? "def " : "async def "); name();
              put("(a, /, b: int = 1, *c, d, **e) -> "); expr(0); block(depth); return;
      case 8: put("class "); name(); put("(Base, metaclass=M)"); block(depth); return;
      case 9: put("with "); expr(0); put(" as "); name(); put(", "); expr(0); block(depth); return;
      case 10: put("try"); block(depth); ind(depth);
               if (pick(2)) { put(pick(2) ? "except* " : "except "); expr(0); put(" as e"); block(depth); }
               else { put("finally"); block(depth); }
               return;
      case 11: put("match "); expr(0); put(":\n"); ind(depth + 1); put("case "); pattern(0);
               if (pick(2)) { put(" if "); expr(0); } block(depth + 1); return;
      case 12: put("return "); exprs(0); break;
      case 13: put(pick(2) ? "import a.b as c" : "from ..m import (x as y, z)"); break;
      case 14: put(pick(2) ? "global x" : "nonlocal y"); break;
      case 15: put("del "); exprs(0); break;
      case 16: put("assert "); expr(0); put(", "); expr(0); break;
      case 17: put("raise "); expr(0); put(" from "); expr(0); break;
      case 18: put(pick(2) ? "break" : "continue"); break;
      case 19: put("# comment\n"); ind(depth); put("x = (1,\n2)"); break;
      case 20: put("x = 1 \\\n"); ind(depth); put("+ 2; y = 3"); break;
      default: {  // a small corruption: a stray or missing token
        static const char* const kJunk[] = {")", "]", "\t", "\"unterminated", ":", "else",
                                            "def", "lambda", "f'{", "\\", "\x00", "\xff"};
        put(kJunk[pick(sizeof kJunk / sizeof *kJunk)]);
        break;
      }
    }
    put(pick(8) == 0 ? "\r\n" : "\n");
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text = Gen(data, size).module();
  // TPF_FUZZ_PRINT=1: write the generated program to stderr, so a crashing
  // input can be saved as a .py regression (see docs/fuzzing.md).
  static const bool print = std::getenv("TPF_FUZZ_PRINT") != nullptr;
  if (print) std::fwrite(text.data(), 1, text.size(), stderr);
  tpf::DiagSink diags;
  tpf::SourceFile src;
  if (!tpf::lexer::make_source("gen.py", std::move(text), src, diags)) return 0;
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
  tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
  std::string out;
  if (!diags.has_errors()) tpf::parser::dump_json(m, src, out);
  return 0;
}

