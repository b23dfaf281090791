// The language server's state (tools/server.h runs it): the open
// documents with their last analysis, and the Server, whose loop, protocol
// and analyses are in server.cpp and whose code actions and hovers are in
// lsp_requests.cpp. Internal to tools/.
// requires: the pipeline, lsp_transport, lsp_text. produces: LSP replies.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "memory/memory.h"
#include "tools/lsp_text.h"
#include "tools/lsp_transport.h"
#include "tools/pipeline.h"

namespace tpf::tools::lsp {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

/// Changes are analyzed once the editor has been quiet this long: typing
/// does not start an analysis per key. initializationOptions.debounceMs
/// sets it.
constexpr int kDefaultDebounceMs = 200;
/// The fix-all action's kind (a sub-kind of source.fixAll, as Ruff's).
constexpr std::string_view kFixAllKind = "source.fixAll.tpf-analyze";

/// The canonical form of a path (what import edges are compared by).
std::string canonical(const std::string& path);

/// An open document and its last analysis.
struct Document {
  std::string uri;
  std::string path;       // the file the URI names ("" for untitled: documents)
  std::string canonical;  // the key imports are compared with
  std::string text;
  bool python = true;     // false: a pyproject.toml (hover only)
  bool fresh = false;     // the fields below are of `text`
  std::unique_ptr<SourceFile> src;    // what the diagnostics' spans index
  std::vector<Diagnostic> diags;      // findings, or the frontend's errors
  std::vector<std::string> imports;   // canonical paths of the project modules it imports
  std::optional<memory::Estimate> estimate;  // hover's, made on first use
  bool estimated = false;

  /// The path the analysis reports and looks up configuration for.
  std::string analyzed_path() const { return path.empty() ? "untitled.py" : path; }
};

class Server {
 public:
  Server(const Options& cli, const boost::program_options::variables_map& vm)
      : cli_(cli), vm_(vm), reader_(STDIN_FILENO), writer_(STDOUT_FILENO) {}

  int run();

 private:
  // ---- the queue the reader thread fills ----
  void read_loop();
  std::optional<Frame> pop(std::optional<Clock::time_point> until);

  // ---- JSON-RPC ----
  void handle(const Frame& f);
  void dispatch(const std::string& method, const json& params, const json* id);
  void reply(const json& id, json result) {
    writer_.write({{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void reply_error(const json& id, int code, const std::string& message) {
    writer_.write({{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
  }
  void notify(const std::string& method, json params) {
    writer_.write({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }

  // ---- lifecycle and documents ----
  json initialize(const json& params);
  void did_open(const json& params);
  void did_change(const json& params);
  void did_close(const json& params);
  void all_due(Clock::time_point when);
  Document& doc(const json& text_document);

  // ---- analysis ----
  std::optional<Clock::time_point> next_due() const;
  void analyze_due(bool all_now);
  void analyze(Document& d, ProjectRun& pr, Setups& setups);
  void fresh(Document& d);  // analyzes `d` now when its text changed
  std::unique_ptr<ProjectRun> project_run();
  std::unique_ptr<Setups> setups();
  void publish(const Document& d);
  TextPositions positions(const Document& d) const {
    return TextPositions(d.src ? d.src->text : std::string_view(d.text), utf16_);
  }

  // ---- requests on documents ----
  json code_action(const json& params);
  json hover(const json& params);
  json hover_python(Document& d, uint32_t line0);
  json hover_pyproject(Document& d, uint32_t line0);
  bool estimate(const std::string& path, const std::string& text, const Setup& s,
                const std::optional<std::string>& target, std::optional<memory::Estimate>& out,
                std::string& why);

  const Options& cli_;
  const boost::program_options::variables_map& vm_;
  std::unique_ptr<Setup> base_;
  FrameReader reader_;
  FrameWriter writer_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Frame> queue_;

  bool initialized_ = false, shutdown_ = false, exit_ = false;
  bool utf16_ = true;
  std::chrono::milliseconds debounce_{kDefaultDebounceMs};
  std::vector<std::string> folders_;  // workspace folders (paths)
  std::map<std::string, Document> docs_;             // by URI
  std::map<std::string, Clock::time_point> due_;     // URI -> when to analyze
};

}  // namespace tpf::tools::lsp
