// tpf-analyze: the command-line driver. Runs the pipeline as a straight list
// of stage calls and taps it after named stages (--dump-tokens, --dump-ast).
#include <boost/program_options.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "lexer/lexer.h"
#include "parser/parser.h"
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
  if (opt.paths.empty()) {
    std::cerr << "tpf-analyze: error: no input paths\ntry 'tpf-analyze --help'\n";
    return kExitUsage;
  }
  int rc = kExitOk;
  for (const std::string& path : opt.paths) {
    int r = analyze_file(path, opt);
    if (r > rc) rc = r;
  }
  return rc;
}
