// tpf-ir-corpus: lowers and verifies every .py file under the given paths
// (files that do not parse are skipped and counted), runs name resolution
// and the dataflow facts on each, and reports counts and times. Run by
// `meson test` over the torch tree and the stdlib; exits 1 on any failure
// (a verifier violation aborts with the file name).
//   tpf-ir-corpus [--no-facts] [--no-verify] [--verbose] PATH...
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "dataflow/facts.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "parser/parser.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  bool facts = true, verify = true, verbose = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--no-facts" || a == "--no-verify" || a == "--verbose") {
      facts &= a != "--no-facts";
      verify &= a != "--no-verify";
      verbose |= a == "--verbose";
      continue;
    }
    std::error_code ec;
    if (fs::is_directory(a, ec)) {
      for (auto it = fs::recursive_directory_iterator(a, fs::directory_options::skip_permission_denied, ec);
           it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (ec) break;
        if (it->is_regular_file(ec) && it->path().extension() == ".py") files.push_back(it->path().string());
      }
    } else if (fs::exists(a, ec)) {
      files.push_back(a);
    } else {
      std::fprintf(stderr, "tpf-ir-corpus: %s: not found (skipped)\n", a.c_str());
    }
  }
  std::sort(files.begin(), files.end());
  size_t lowered = 0, skipped = 0, functions = 0, insts = 0, blocks = 0, not_converged = 0;
  double t_front = 0, t_ir = 0, t_facts = 0;
  for (const std::string& path : files) {
    auto t0 = Clock::now();
    tpf::DiagSink diags;
    tpf::SourceFile src;
    if (!tpf::lexer::load_source(path, src, diags)) {
      ++skipped;
      continue;
    }
    tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
    tpf::ast::Module ast = tpf::parser::parse(src, toks, diags);
    auto t1 = Clock::now();
    t_front += std::chrono::duration<double>(t1 - t0).count();
    if (diags.has_errors()) {
      ++skipped;
      continue;
    }
    tpf::ir::Module m = tpf::ir::build(ast, src, diags, verify);
    auto t2 = Clock::now();
    t_ir += std::chrono::duration<double>(t2 - t1).count();
    if (facts) {
      tpf::dataflow::FileFacts ff = tpf::dataflow::compute_facts(m);
      not_converged += ff.not_converged();
      if (verbose)
        for (uint32_t fi = 0; fi < m.functions.size(); ++fi)
          if (ff.grad().fns[fi].converged == tpf::dataflow::Converged::No)
            std::printf("not converged: %s: %s (%zu blocks)\n", path.c_str(),
                        m.names.str(m.functions[fi].qualname).c_str(), m.functions[fi].blocks.size());
      t_facts += std::chrono::duration<double>(Clock::now() - t2).count();
    }
    ++lowered;
    functions += m.functions.size();
    for (const auto& f : m.functions) {
      insts += f.insts.size();
      blocks += f.blocks.size();
    }
  }
  std::printf(
      "tpf-ir-corpus: %zu files lowered and verified, %zu skipped (do not parse)\n"
      "  %zu functions, %zu blocks, %zu instructions; %zu analyses did not converge\n"
      "  frontend %.2fs, lower+ssa+verify %.2fs, resolution+dataflow %.2fs\n",
      lowered, skipped, functions, blocks, insts, not_converged, t_front, t_ir, t_facts);
  return lowered == 0 && !files.empty() ? 1 : 0;
}
