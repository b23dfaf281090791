// tpf-analyze: the command-line driver. Runs the pipeline as a straight list
// of stage calls and taps it after named stages (--dump-tokens, --dump-ast,
// --dump-ir, --dump-facts=NAME).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "dataflow/facts.h"
#include "ir/ir.h"
#include "ir/resolve.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "tools/inputs.h"
#include "tools/render.h"

namespace po = boost::program_options;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitUsage = 2;  // usage error, unreadable path or syntax error

struct Options {
  std::vector<std::string> paths;
  std::string format = "text";
  std::string target;
  bool dump_tokens = false;
  bool dump_ast = false;
  bool dump_ir = false;
  std::string dump_facts;  // a dataflow::is_fact_name
};

void print_help(const po::options_description& desc) {
  std::cout << "usage: tpf-analyze [options] PATH...\n\n"
               "Static analyzer for PyTorch training scripts: finds costly training bugs\n"
               "and estimates peak VRAM, without importing torch or running the script.\n\n"
            << desc
            << "\nexamples:\n"
               "  tpf-analyze train.py\n"
               "  tpf-analyze --target h100 train.py\n"
               "  tpf-analyze --dump-ast --format json train.py\n"
               "\nexit status: 0 clean, 1 findings, 2 usage error, unreadable path or syntax error\n";
}

/// Runs the frontend on one file; prints dumps when asked. Returns an exit code.
int analyze_file(const std::string& path, const Options& opt) {
  tpf::DiagSink diags;
  tpf::SourceFile src;
  if (!tpf::lexer::load_source(path, src, diags)) {
    tpf::tools::render_diagnostics(std::cerr, src, path, diags);
    return kExitUsage;
  }
  tpf::lexer::TokenStream toks = tpf::lexer::tokenize(src, diags);
  if (opt.dump_tokens) {
    std::string out;
    tpf::tools::dump_tokens(src, toks, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  if (opt.dump_tokens && !opt.dump_ast) {
    if (diags.has_errors()) {
      tpf::tools::render_diagnostics(std::cerr, src, path, diags);
      return kExitUsage;
    }
    return kExitOk;
  }
  tpf::ast::Module module = tpf::parser::parse(src, toks, diags);
  if (diags.has_errors()) {
    tpf::tools::render_diagnostics(std::cerr, src, path, diags);
    return kExitUsage;
  }
  if (opt.dump_ast) {
    std::string out;
    if (opt.format == "json") {
      tpf::parser::dump_json(module, src, out);
      out += '\n';
    } else {
      tpf::parser::dump_text(module, src, out);
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  if (opt.dump_ir || !opt.dump_facts.empty()) {
    tpf::ir::Module ir = tpf::ir::build(module, src, diags, tpf::ir::kVerify);
    tpf::dataflow::FileFacts facts = tpf::dataflow::compute_facts(ir);
    std::string out;
    if (opt.dump_ir) tpf::ir::print(ir, out, &facts.res);
    if (!opt.dump_facts.empty()) tpf::dataflow::dump_facts(ir, facts, opt.dump_facts, out);
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  po::options_description desc("options");
  desc.add_options()
      ("help,h", "print this help and exit")
      ("version", "print the version and exit")
      ("format", po::value<std::string>(&opt.format)->default_value("text"),
       "output format: text or json")
      ("target", po::value<std::string>(&opt.target), "GPU to estimate peak VRAM for (e.g. h100)")
      ("dump-tokens", po::bool_switch(&opt.dump_tokens), "print the token stream and stop")
      ("dump-ir", po::bool_switch(&opt.dump_ir), "print the SSA IR with resolved names")
      ("dump-facts", po::value<std::string>(&opt.dump_facts),
       "print dataflow facts: grad, calls, summaries, loops, resolve or all")
      ("dump-ast", po::bool_switch(&opt.dump_ast),
       "print the AST (--format json: CPython's ast schema)");
  po::options_description hidden;
  hidden.add_options()("path", po::value<std::vector<std::string>>(&opt.paths));
  po::options_description all;
  all.add(desc).add(hidden);
  po::positional_options_description pos;
  pos.add("path", -1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << "tpf-analyze: error: " << e.what() << "\n"
              << "try 'tpf-analyze --help'\n";
    return kExitUsage;
  }
  if (vm.count("help")) {
    print_help(desc);
    return kExitOk;
  }
  if (vm.count("version")) {
    std::cout << "tpf-analyze 0.1.0\n";
    return kExitOk;
  }
  if (opt.format != "text" && opt.format != "json") {
    std::cerr << "tpf-analyze: error: unknown --format '" << opt.format
              << "' (expected text or json)\n";
    return kExitUsage;
  }
  if (!opt.dump_facts.empty() && !tpf::dataflow::is_fact_name(opt.dump_facts)) {
    std::cerr << "tpf-analyze: error: unknown --dump-facts '" << opt.dump_facts
              << "' (expected grad, calls, summaries, loops, resolve or all)\n";
    return kExitUsage;
  }
  if (opt.paths.empty()) {
    std::cerr << "tpf-analyze: error: no input paths\ntry 'tpf-analyze --help'\n";
    return kExitUsage;
  }
  int rc = kExitOk;
  tpf::tools::Inputs inputs = tpf::tools::expand_inputs(opt.paths);
  for (const tpf::tools::InputProblem& p : inputs.problems) {
    std::cerr << p.path << ": error: " << p.message << "\n";
    rc = kExitUsage;
  }
  for (const std::string& path : inputs.files) {
    int r = analyze_file(path, opt);
    if (r > rc) rc = r;
  }
  return rc;
}
