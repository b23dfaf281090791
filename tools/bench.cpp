// tpf-bench: times the frontend (load -> tokenize -> parse) over a list of
// files, single thread, with all bytes read into memory first so only the
// work of the stages is measured. tools/bench.py runs it next to CPython's
// ast.parse on the same files. `--stages` times every stage of the whole
// pipeline separately (tokenize, parse, IR, facts, rules, estimate), so a
// profile names the stage before the function.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checks/registry.h"
#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/lexer.h"
#include "memory/memory.h"
#include "parser/parser.h"
#include "targets/targets.h"
#include "tools/allocator.h"

namespace {

struct Input {
  std::string path;
  std::string bytes;
};

using Clock = std::chrono::steady_clock;

double since(Clock::time_point& t) {
  Clock::time_point now = Clock::now();
  double s = std::chrono::duration<double>(now - t).count();
  t = now;
  return s;
}

/// The whole pipeline on every input, each stage timed on its own (summed
/// over files); prints one JSON object. The estimate runs for an H100 as
/// `--target h100` does.
int time_stages(const std::vector<Input>& inputs, size_t total_bytes) {
  enum { Load, Tokenize, Parse, Ir, Facts, Estimate, Rules, kStages };
  static const char* const kNames[kStages] = {"load", "tokenize", "parse", "ir", "facts", "estimate", "rules"};
  double t[kStages] = {};
  tpf::memory::EstimateOptions eo;
  eo.target = tpf::targets::lookup_target("h100").target;
  tpf::checks::RunOptions rules = tpf::checks::RunOptions::all();
  size_t failed = 0, findings = 0, tokens = 0, nodes = 0, insts = 0, functions = 0;
  std::vector<double> per_rule(tpf::checks::kRuleCount);
  // The slowest files of each stage: a benchmark's total hides one file
  // that costs as much as a hundred others.
  constexpr size_t kSlowest = 5;
  std::vector<std::pair<double, const Input*>> slowest[kStages];
  double before[kStages];
  auto note_slowest = [&](const Input& in) {
    for (int s = 0; s < kStages; ++s) {
      auto& v = slowest[s];
      v.emplace_back(t[s] - before[s], &in);
      std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      if (v.size() > kSlowest) v.pop_back();
    }
  };
  for (const Input& in : inputs) {
    std::copy(std::begin(t), std::end(t), before);
    Clock::time_point c = Clock::now();
    tpf::DiagSink diags;
    tpf::SourceFile src;
    if (!tpf::lexer::make_source(in.path, in.bytes, src, diags)) {
      ++failed;
      continue;
    }
    t[Load] += since(c);
    tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
    t[Tokenize] += since(c);
    tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
    t[Parse] += since(c);
    if (diags.has_errors()) {
      ++failed;
      continue;
    }
    tpf::ir::Module ir = tpf::ir::build(m, src, diags, false);
    t[Ir] += since(c);
    tokens += toks.tokens.size();
    nodes += m.nodes.size();
    functions += ir.functions.size();
    for (const tpf::ir::Function& f : ir.functions) insts += f.insts.size();
    tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir);
    t[Facts] += since(c);
    tpf::memory::Estimate est = tpf::memory::estimate(ir, eo);
    t[Estimate] += since(c);
    tpf::checks::CheckContext ctx{src, m, ir, facts};
    ctx.estimate = &est;
    for (size_t r = 0; r < tpf::checks::kRuleCount; ++r) {
      if (!rules.enabled[r]) continue;
      tpf::checks::RunOptions one;
      one.enabled[r] = true;
      findings += tpf::checks::run_checks(ctx, one).size();
      double s = since(c);
      per_rule[r] += s;
      t[Rules] += s;
    }
    note_slowest(in);
  }
  double total = 0;
  for (double s : t) total += s;
  std::printf("{\"allocator\": \"%s\", \"files\": %zu, \"bytes\": %zu, \"failed\": %zu, \"findings\": %zu, "
              "\"tokens\": %zu, \"ast_nodes\": %zu, \"functions\": %zu, \"ir_insts\": %zu, \"seconds\": %.6f",
              tpf::tools::allocator_name().c_str(), inputs.size(), total_bytes, failed, findings, tokens, nodes,
              functions, insts, total);
  for (int i = 0; i < kStages; ++i) std::printf(", \"%s\": %.6f", kNames[i], t[i]);
  std::printf(", \"per_rule\": {");
  for (size_t r = 0; r < per_rule.size(); ++r)
    std::printf("%s\"%.*s\": %.6f", r ? ", " : "", int(tpf::checks::all_rules()[r].code.size()),
                tpf::checks::all_rules()[r].code.data(), per_rule[r]);
  std::printf("}, \"slowest\": {");
  for (int i = 0; i < kStages; ++i) {
    std::printf("%s\"%s\": [", i ? ", " : "", kNames[i]);
    for (size_t k = 0; k < slowest[i].size(); ++k)
      std::printf("%s[\"%s\", %.6f]", k ? ", " : "", slowest[i][k].second->path.c_str(), slowest[i][k].first);
    std::printf("]");
  }
  std::printf("}}\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool stages = argc > 1 && std::string_view(argv[1]) == "--stages";
  if (stages) {
    --argc;
    ++argv;
  }
  if (argc < 2) {
    std::cerr << "usage: tpf-bench [--stages] FILE_LIST [REPEAT]\n"
                 "  FILE_LIST: a text file with one .py path per line\n"
                 "  --stages: time each stage of the whole pipeline once (JSON seconds per stage)\n";
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
  if (stages) return time_stages(inputs, total_bytes);
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
