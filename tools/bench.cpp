// tpf-bench: times the frontend (load -> tokenize -> parse) over a list of
// files, single thread, with all bytes read into memory first so only the
// work of the stages is measured. tools/bench.py runs it next to CPython's
// ast.parse on the same files.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "lexer/lexer.h"
#include "parser/parser.h"

namespace {

struct Input {
  std::string path;
  std::string bytes;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: tpf-bench FILE_LIST [REPEAT]\n"
                 "  FILE_LIST: a text file with one .py path per line\n";
    return 2;
  }
  int repeat = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
  std::ifstream list(argv[1]);
  std::vector<Input> inputs;
  size_t total_bytes = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty()) continue;
    std::ifstream f(line, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    inputs.push_back({line, ss.str()});
    total_bytes += inputs.back().bytes.size();
  }
  double best = 1e100;
  size_t nodes = 0, failed = 0;
  for (int r = 0; r < repeat; ++r) {
    nodes = failed = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (const Input& in : inputs) {
      tpf::DiagSink diags;
      tpf::SourceFile src;
      if (!tpf::lexer::make_source(in.path, in.bytes, src, diags)) {
        ++failed;
        continue;
      }
      tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
      tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
      nodes += m.nodes.size();
      if (diags.has_errors()) ++failed;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (s < best) best = s;
  }
  std::printf("{\"files\": %zu, \"bytes\": %zu, \"seconds\": %.6f, \"nodes\": %zu, \"failed\": %zu}\n",
              inputs.size(), total_bytes, best, nodes, failed);
  return 0;
}
