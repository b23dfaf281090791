// tpf-bench: times the frontend (load -> tokenize -> parse) over a list of
// files, single thread, with all bytes read into memory first so only the
// work of the stages is measured. tools/bench.py runs it next to CPython's
// ast.parse on the same files. `--stages` times every stage of the whole
// pipeline separately (tokenize, parse, IR, facts, rules, estimate), so a
// profile names the stage before the function.
#include <algorithm>
#include <chrono>
#include <cstdlib>
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
/// The process's peak resident set so far (VmHWM), in MiB; 0 if unknown.
double peak_rss_mib() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0;
}

int time_stages(const std::vector<Input>& inputs, size_t total_bytes) {
  enum { Load, Tokenize, Parse, Ir, Facts, Estimate, Rules, kStages };
  static const char* const kNames[kStages] = {"load", "tokenize", "parse", "ir", "facts", "estimate", "rules"};
  double t[kStages] = {};
  // The peak RSS once each stage has run (the run's high-water mark: what a
  // stage adds over the one before is what it holds at once).
  double rss[kStages] = {};
  auto mark = [&](int stage) { rss[stage] = std::max(rss[stage], peak_rss_mib()); };
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
    mark(Load);
    tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
    t[Tokenize] += since(c);
    mark(Tokenize);
    tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
    t[Parse] += since(c);
    mark(Parse);
    if (diags.has_errors()) {
      ++failed;
      continue;
    }
    tpf::ir::Module ir = tpf::ir::build(m, src, diags, false);
    t[Ir] += since(c);
    mark(Ir);
    tokens += toks.tokens.size();
    nodes += m.nodes.size();
    functions += ir.functions.size();
    for (const tpf::ir::Function& f : ir.functions) insts += f.insts.size();
    tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir);
    t[Facts] += since(c);
    mark(Facts);
    tpf::memory::Estimate est = tpf::memory::estimate(ir, eo);
    t[Estimate] += since(c);
    mark(Estimate);
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
    mark(Rules);
    note_slowest(in);
  }
  double total = 0;
  for (double s : t) total += s;
  std::printf("{\"allocator\": \"%s\", \"files\": %zu, \"bytes\": %zu, \"failed\": %zu, \"findings\": %zu, "
              "\"tokens\": %zu, \"ast_nodes\": %zu, \"functions\": %zu, \"ir_insts\": %zu, \"seconds\": %.6f",
              tpf::tools::allocator_name().c_str(), inputs.size(), total_bytes, failed, findings, tokens, nodes,
              functions, insts, total);
  for (int i = 0; i < kStages; ++i) std::printf(", \"%s\": %.6f", kNames[i], t[i]);
  std::printf(", \"peak_rss_mib\": {");
  for (int i = 0; i < kStages; ++i) std::printf("%s\"%s\": %.1f", i ? ", " : "", kNames[i], rss[i]);
  std::printf("}, \"per_rule\": {");
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

/// 64-bit FNV-1a over the bytes of the frontend's results: a changed byte
/// anywhere in a file's tokens, AST arrays, symbols (in their numbering
/// order), constants or diagnostics changes the file's line.
struct Fingerprint {
  uint64_t h = 14695981039346656037ull;
  void bytes(const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull;
  }
  void str(std::string_view s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  void u64(uint64_t v) { bytes(&v, sizeof v); }
};

/// `--fingerprint`: one line per file, `path tokens nodes hash`, covering
/// everything make_source, tokenize and parse produce, so two builds of the
/// frontend can be compared file by file (also on files with syntax errors).
int fingerprint(const std::vector<Input>& inputs) {
  for (const Input& in : inputs) {
    Fingerprint f;
    tpf::DiagSink diags;
    tpf::SourceFile src;
    size_t ntok = 0, nnodes = 0;
    if (tpf::lexer::make_source(in.path, in.bytes, src, diags)) {
      tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
      ntok = toks.tokens.size();
      for (const tpf::lexer::Token& t : toks.tokens) {
        f.u64(static_cast<uint64_t>(t.kind) | uint64_t{t.flags} << 8 | uint64_t{t.begin} << 32);
        f.u64(t.end);
      }
      for (const tpf::Span& c : toks.comments) f.u64(uint64_t{c.begin} << 32 | c.end);
      tpf::ast::Module m = tpf::parser::parse(src, toks, diags);
      nnodes = m.nodes.size();
      for (const tpf::ast::Node& n : m.nodes) {
        f.u64(static_cast<uint64_t>(n.kind) | uint64_t(n.op) << 8 | uint64_t{n.flags} << 16 |
              uint64_t{n.span.begin} << 32);
        f.u64(n.span.end);
        for (uint32_t v : n.f) f.u64(v);
      }
      for (const tpf::ast::ListRange& l : m.lists) f.u64(uint64_t{l.first} << 32 | l.count);
      for (uint32_t v : m.list_items) f.u64(v);
      for (const std::string& s : m.symbols) f.str(s);
      for (size_t i = 0; i < m.symbols.size(); ++i)
        if (m.find(m.symbols[i]) != i) f.u64(0xbad);
      for (const tpf::ast::Constant& c : m.constants) {
        f.u64(static_cast<uint64_t>(c.kind));
        f.str(c.text);
        f.bytes(&c.number, sizeof c.number);
      }
      f.u64(m.root.v);
    }
    for (const tpf::Diagnostic& d : diags.diagnostics()) {
      f.str(d.code);
      f.u64(static_cast<uint64_t>(d.severity));
      f.u64(uint64_t{d.span.begin} << 32 | d.span.end);
      f.str(d.message);
    }
    std::printf("%s %zu %zu %016llx\n", in.path.c_str(), ntok, nnodes,
                static_cast<unsigned long long>(f.h));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool stages = argc > 1 && std::string_view(argv[1]) == "--stages";
  bool prints = argc > 1 && std::string_view(argv[1]) == "--fingerprint";
  if (stages || prints) {
    --argc;
    ++argv;
  }
  if (argc < 2) {
    std::cerr << "usage: tpf-bench [--stages | --fingerprint] FILE_LIST [REPEAT]\n"
                 "  FILE_LIST: a text file with one .py path per line\n"
                 "  --stages: time each stage of the whole pipeline once (JSON seconds per stage)\n"
                 "  --fingerprint: one hash line per file of the frontend's tokens, AST and\n"
                 "    diagnostics (to check that a frontend change alters no output)\n";
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
  if (prints) return fingerprint(inputs);
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
