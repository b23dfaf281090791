// The language server (see server.h). One reader thread frames and parses
// standard input into a queue; the main thread answers requests in order
// and runs the analyses when their debounce delay is over. Every document
// is analyzed by tools/pipeline.h's analyze_file, with the [tool.tpf] of
// the nearest pyproject.toml above it (each workspace folder's own), and
// the open documents stand in for their files when another one imports them.
#include "tools/server.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <sstream>
#include <thread>

#include "ir/fs_cache.h"
#include "lexer/lexer.h"
#include "tools/lsp_actions.h"
#include "tools/lsp_text.h"
#include "tools/lsp_transport.h"

namespace tpf::tools {

namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

/// Changes are analyzed once the editor has been quiet this long: typing
/// does not start an analysis per key. initializationOptions.debounceMs
/// sets it.
constexpr int kDefaultDebounceMs = 200;
/// The fix-all action's kind (a sub-kind of source.fixAll, as Ruff's).
constexpr std::string_view kFixAllKind = "source.fixAll.tpf-analyze";

std::string canonical(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : c.string();
}

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
  std::optional<lsp::Frame> pop(std::optional<Clock::time_point> until);

  // ---- JSON-RPC ----
  void handle(const lsp::Frame& f);
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
  lsp::TextPositions positions(const Document& d) const {
    return lsp::TextPositions(d.src ? d.src->text : std::string_view(d.text), utf16_);
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
  lsp::FrameReader reader_;
  lsp::FrameWriter writer_;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<lsp::Frame> queue_;

  bool initialized_ = false, shutdown_ = false, exit_ = false;
  bool utf16_ = true;
  std::chrono::milliseconds debounce_{kDefaultDebounceMs};
  std::vector<std::string> folders_;  // workspace folders (paths)
  std::map<std::string, Document> docs_;             // by URI
  std::map<std::string, Clock::time_point> due_;     // URI -> when to analyze
};

// ---- queue ----

void Server::read_loop() {
  for (;;) {
    lsp::Frame f = reader_.next();
    bool end = f.kind == lsp::Frame::Kind::End;
    {
      std::lock_guard<std::mutex> g(mu_);
      queue_.push_back(std::move(f));
    }
    cv_.notify_one();
    if (end) return;
  }
}

std::optional<lsp::Frame> Server::pop(std::optional<Clock::time_point> until) {
  std::unique_lock<std::mutex> g(mu_);
  if (until) cv_.wait_until(g, *until, [&] { return !queue_.empty(); });
  else cv_.wait(g, [&] { return !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;
  lsp::Frame f = std::move(queue_.front());
  queue_.pop_front();
  return f;
}

int Server::run() {
  base_ = std::make_unique<Setup>();
  base_->opt = cli_;
  // The server reports; it never writes files or dumps stages.
  base_->opt.fix = base_->opt.diff = false;
  base_->opt.dump_tokens = base_->opt.dump_ast = base_->opt.dump_ir = false;
  base_->opt.dump_facts.clear();
  base_->opt.format = "concise";
  std::string error;
  std::vector<std::string> notes;
  // --config names one configuration for every document (as for the CLI).
  if (!cli_.config.empty()) {
    if (!load_config(cli_.config, base_->cfg, error)) {
      std::cerr << "tpf-analyze: error: " << error << "\n";
      return 2;
    }
    merge_config(base_->opt, vm_, base_->cfg);
  }
  if (!finish_setup(*base_, error, notes)) {
    std::cerr << "tpf-analyze: error: " << error << "\n";
    return 2;
  }
  std::thread reader([this] { read_loop(); });
  reader.detach();  // it blocks in read(2) until the client closes stdin
  for (;;) {
    std::optional<Clock::time_point> due = next_due();
    if (due && *due <= Clock::now()) {
      analyze_due(false);
      continue;
    }
    std::optional<lsp::Frame> f = pop(due);
    if (!f) continue;  // a debounce delay ran out
    if (f->kind == lsp::Frame::Kind::End) return shutdown_ ? 0 : 1;
    handle(*f);
    if (exit_) return shutdown_ ? 0 : 1;
  }
}

// ---- JSON-RPC ----

void Server::handle(const lsp::Frame& f) {
  if (f.kind == lsp::Frame::Kind::Error) {
    reply_error(nullptr, f.code, f.error);
    return;
  }
  const json& m = f.message;
  if (!m.is_object()) {
    reply_error(nullptr, lsp::kInvalidRequest, "a JSON-RPC message is an object");
    return;
  }
  const json* id = nullptr;
  if (auto it = m.find("id"); it != m.end()) {
    if (!it->is_number_integer() && !it->is_string() && !it->is_null()) {
      reply_error(nullptr, lsp::kInvalidRequest, "`id` must be an integer or a string");
      return;
    }
    id = &*it;
  }
  auto method = m.find("method");
  if (method == m.end()) {
    // A response to a request of ours (we send none) or junk.
    if (!id) reply_error(nullptr, lsp::kInvalidRequest, "a message needs a `method`");
    return;
  }
  if (!method->is_string()) {
    reply_error(id ? *id : json(nullptr), lsp::kInvalidRequest, "`method` must be a string");
    return;
  }
  static const json kNoParams = json::object();
  auto params = m.find("params");
  const json& p = params == m.end() ? kNoParams : *params;
  std::string name = method->get<std::string>();
  try {
    dispatch(name, p, id);
  } catch (const json::exception& e) {
    // Params of the wrong shape: nlohmann's type_error / out_of_range.
    if (id) reply_error(*id, lsp::kInvalidParams, name + ": invalid params: " + e.what());
    else std::cerr << "tpf-analyze server: " << name << ": invalid params: " << e.what() << "\n";
  } catch (const std::exception& e) {
    if (id) reply_error(*id, lsp::kInternalError, name + ": " + e.what());
    else std::cerr << "tpf-analyze server: " << name << ": " << e.what() << "\n";
  }
}

void Server::dispatch(const std::string& method, const json& params, const json* id) {
  if (method == "exit") {
    exit_ = true;
    return;
  }
  if (!initialized_ && method != "initialize") {
    if (id) reply_error(*id, lsp::kServerNotInitialized, "the server is not initialized yet");
    return;  // notifications before initialize are dropped
  }
  if (shutdown_) {
    if (id) reply_error(*id, lsp::kInvalidRequest, "the server is shut down: only `exit` is accepted");
    return;
  }
  if (id) {
    if (method == "initialize") {
      if (initialized_) return reply_error(*id, lsp::kInvalidRequest, "initialize was already received");
      json result = initialize(params);
      initialized_ = true;
      return reply(*id, std::move(result));
    }
    if (method == "shutdown") {
      shutdown_ = true;
      return reply(*id, nullptr);
    }
    if (method == "textDocument/codeAction") return reply(*id, code_action(params));
    if (method == "textDocument/hover") return reply(*id, hover(params));
    return reply_error(*id, lsp::kMethodNotFound, "unknown method " + method);
  }
  if (method == "textDocument/didOpen") return did_open(params);
  if (method == "textDocument/didChange") return did_change(params);
  if (method == "textDocument/didClose") return did_close(params);
  if (method == "textDocument/didSave" || method == "workspace/didChangeWatchedFiles" ||
      method == "workspace/didChangeConfiguration") {
    // A pyproject.toml or an imported file may have changed on disk: every
    // open document is analyzed again (configuration is read per analysis).
    return all_due(Clock::now() + debounce_);
  }
  if (method == "workspace/didChangeWorkspaceFolders") {
    for (const json& f : params.at("event").at("removed")) {
      std::string p = lsp::uri_to_path(f.at("uri").get<std::string>());
      std::erase(folders_, p);
    }
    for (const json& f : params.at("event").at("added"))
      folders_.push_back(lsp::uri_to_path(f.at("uri").get<std::string>()));
    return all_due(Clock::now());
  }
  // initialized, $/cancelRequest, $/setTrace, ...: nothing to do.
}

// ---- lifecycle and documents ----

json Server::initialize(const json& params) {
  // Positions in UTF-8 bytes when the client can (the tool's own unit),
  // else LSP's default UTF-16.
  if (const json* enc = params.contains("capabilities") ? &params["capabilities"] : nullptr) {
    const json g = enc->value("general", json::object());
    if (g.is_object() && g.contains("positionEncodings") && g["positionEncodings"].is_array())
      for (const json& e : g["positionEncodings"])
        if (e == "utf-8") utf16_ = false;
  }
  if (params.contains("initializationOptions") && params["initializationOptions"].is_object()) {
    const json& o = params["initializationOptions"];
    if (o.contains("debounceMs") && o["debounceMs"].is_number_integer())
      debounce_ = std::chrono::milliseconds(std::clamp<int64_t>(o["debounceMs"].get<int64_t>(), 0, 10000));
  }
  if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array()) {
    for (const json& f : params["workspaceFolders"])
      if (f.is_object() && f.contains("uri") && f["uri"].is_string())
        folders_.push_back(lsp::uri_to_path(f["uri"].get<std::string>()));
  } else if (params.contains("rootUri") && params["rootUri"].is_string()) {
    folders_.push_back(lsp::uri_to_path(params["rootUri"].get<std::string>()));
  }
  return {{"capabilities",
           {{"positionEncoding", utf16_ ? "utf-16" : "utf-8"},
            {"textDocumentSync", {{"openClose", true}, {"change", 1}, {"save", {{"includeText", false}}}}},
            {"hoverProvider", true},
            {"codeActionProvider", {{"codeActionKinds", {"quickfix", kFixAllKind}}}},
            {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}}}},
          {"serverInfo", {{"name", "tpf-analyze"}, {"version", std::string(kVersion)}}}};
}

Document& Server::doc(const json& text_document) {
  std::string uri = text_document.at("uri").get<std::string>();
  auto it = docs_.find(uri);
  if (it == docs_.end()) throw std::runtime_error("document " + uri + " is not open");
  return it->second;
}

void Server::did_open(const json& params) {
  const json& td = params.at("textDocument");
  std::string uri = td.at("uri").get<std::string>();
  Document d;
  d.uri = uri;
  d.path = lsp::uri_to_path(uri);
  d.canonical = canonical(d.path);
  d.text = td.at("text").get<std::string>();
  std::string lang = td.value("languageId", "");
  d.python = fs::path(d.path).filename() != "pyproject.toml" && lang != "toml";
  docs_[uri] = std::move(d);
  if (docs_[uri].python) due_[uri] = Clock::now();  // no delay: the file was just opened
}

void Server::did_change(const json& params) {
  Document& d = doc(params.at("textDocument"));
  // Full sync: the last change holds the whole text.
  const json& changes = params.at("contentChanges");
  if (!changes.is_array() || changes.empty()) return;
  const json& last = changes.back();
  if (last.contains("range")) {
    std::cerr << "tpf-analyze server: didChange with a range ignored: the server asked for full text\n";
    return;
  }
  d.text = last.at("text").get<std::string>();
  d.fresh = false;
  d.estimated = false;
  if (d.python) due_[d.uri] = Clock::now() + debounce_;
  else all_due(Clock::now() + debounce_);  // a pyproject.toml's buffer: hover reads it
}

void Server::did_close(const json& params) {
  std::string uri = params.at("textDocument").at("uri").get<std::string>();
  if (docs_.erase(uri) == 0) return;
  due_.erase(uri);
  notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
}

void Server::all_due(Clock::time_point when) {
  for (auto& [uri, d] : docs_) {
    if (!d.python) continue;
    d.fresh = d.estimated = false;
    due_[uri] = std::min(when, due_.count(uri) ? due_[uri] : when);
  }
}

// ---- analysis ----

std::optional<Clock::time_point> Server::next_due() const {
  std::optional<Clock::time_point> t;
  for (const auto& [uri, when] : due_) t = t ? std::min(*t, when) : when;
  return t;
}

std::unique_ptr<ProjectRun> Server::project_run() {
  // Files may have appeared, moved or changed since the last analysis.
  ir::forget_file_system();
  ir::ProjectOptions po;
  po.python = base_->opt.py;
  po.open_text = [this](const std::string& file, std::string& text) {
    std::string c = canonical(file);
    for (const auto& [uri, d] : docs_)
      if (d.python && d.canonical == c) {
        text = d.text;
        return true;
      }
    return false;
  };
  return std::make_unique<ProjectRun>(po);
}

std::unique_ptr<Setups> Server::setups() {
  // Read afresh for every batch: a saved pyproject.toml applies at once.
  return std::make_unique<Setups>(cli_, vm_, std::make_unique<Setup>(*base_));
}

void Server::analyze_due(bool all_now) {
  Clock::time_point now = Clock::now();
  std::set<std::string> batch;  // URIs
  for (auto it = due_.begin(); it != due_.end();) {
    if (all_now || it->second <= now) {
      batch.insert(it->first);
      it = due_.erase(it);
    } else {
      ++it;
    }
  }
  // The open files that import a changed one see its new text.
  std::set<std::string> changed;
  for (const std::string& uri : batch) changed.insert(docs_.at(uri).canonical);
  for (auto& [uri, d] : docs_)
    if (d.python && !batch.count(uri))
      for (const std::string& imp : d.imports)
        if (changed.count(imp)) {
          batch.insert(uri);
          due_.erase(uri);
          break;
        }
  if (batch.empty()) return;
  std::unique_ptr<ProjectRun> pr = project_run();
  std::unique_ptr<Setups> s = setups();
  for (const std::string& uri : batch) {
    Document& d = docs_.at(uri);
    analyze(d, *pr, *s);
    publish(d);
  }
}

void Server::fresh(Document& d) {
  if (!d.python || d.fresh) return;
  due_.erase(d.uri);
  std::unique_ptr<ProjectRun> pr = project_run();
  std::unique_ptr<Setups> s = setups();
  analyze(d, *pr, *s);
  publish(d);
}

void Server::analyze(Document& d, ProjectRun& pr, Setups& setups) {
  d.fresh = true;
  d.diags.clear();
  d.imports.clear();
  d.src = std::make_unique<SourceFile>();
  std::string path = d.analyzed_path();
  std::ostringstream config_errors;
  const Setup* s = setups.for_file(path, config_errors);
  DiagSink load_diags;
  bool loaded = lexer::make_source(path, d.text, *d.src, load_diags);
  if (!s) {
    // The configuration cannot be used: say why at the top of the file.
    std::string why = config_errors.str();
    if (why.starts_with("tpf-analyze: error: ")) why = why.substr(20);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    d.diags.push_back(Diagnostic{"config", Severity::Error, Span{0, 0}, why, {}, "", std::nullopt});
    if (!loaded) d.src.reset();
    return;
  }
  if (!loaded) {
    d.diags = load_diags.diagnostics();
    d.src.reset();  // the spans index the editor's text
    return;
  }
  if (matches_any(s->cfg, s->cfg.exclude, path)) return;  // excluded: as the CLI, nothing
  checks::RunOptions rules = rules_for(s->cfg, s->run, path);
  std::unique_ptr<Options> own;
  if (const ScriptRun* sr = script_for(s->cfg, path)) own = script_options(s->opt, *sr);
  const Options& o = own ? *own : s->opt;
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  FixOutcome fix;
  std::ostringstream out, err;
  std::vector<InputError> errors;
  FileExtras extras;
  std::vector<Diagnostic> findings;
  bool ok = analyze_file(pr, *d.src, path, o, rules, findings, estimates, fix, out, err, errors, &extras);
  d.diags = ok ? std::move(findings) : std::move(extras.frontend);
  for (const std::string& f : extras.imports) d.imports.push_back(canonical(f));
}

void Server::publish(const Document& d) {
  lsp::TextPositions tp = positions(d);
  json diags = json::array();
  for (const Diagnostic& x : d.diags) diags.push_back(lsp::to_lsp(x, tp, d.uri));
  notify("textDocument/publishDiagnostics", {{"uri", d.uri}, {"diagnostics", std::move(diags)}});
}

// ---- code actions ----

json Server::code_action(const json& params) {
  Document& d = doc(params.at("textDocument"));
  json actions = json::array();
  if (!d.python) return actions;
  fresh(d);
  if (!d.src) return actions;
  lsp::TextPositions tp = positions(d);
  const json& range = params.at("range");
  uint32_t lo = tp.offset(range.at("start")), hi = tp.offset(range.at("end"));
  std::vector<std::string> only;
  if (params.contains("context") && params["context"].contains("only"))
    only = params["context"]["only"].get<std::vector<std::string>>();
  auto wanted = [&](std::string_view kind) {
    if (only.empty()) return true;
    for (const std::string& k : only)
      if (kind == k || (kind.starts_with(k) && kind.size() > k.size() && kind[k.size()] == '.')) return true;
    return false;
  };
  bool any_fix_here = false;
  for (const Diagnostic& x : d.diags) {
    if (!x.code.starts_with("TPF")) continue;  // syntax and configuration errors
    if (x.span.begin > hi || std::max(x.span.begin, x.span.end) < lo) continue;
    json diag = lsp::to_lsp(x, tp, d.uri);
    if (x.fix && wanted("quickfix")) {
      any_fix_here = true;
      actions.push_back({{"title", "Fix " + x.code + ": " + x.fix->title},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"isPreferred", true},
                         {"edit", {{"changes", {{d.uri, lsp::text_edits(x.fix->edits, tp)}}}}}});
    }
    if (!wanted("quickfix")) continue;
    uint32_t line = d.src->pos(x.span.begin).line;
    if (std::optional<Edit> e = lsp::ignore_edit(*d.src, line, x.code))
      actions.push_back({{"title", "Ignore " + x.code + " on this line"},
                         {"kind", "quickfix"},
                         {"diagnostics", json::array({diag})},
                         {"edit", {{"changes", {{d.uri, lsp::text_edits(std::span<const Edit>(&*e, 1), tp)}}}}}});
  }
  // Every safe fix of the file, verified as --diff verifies them (the fixed
  // text parses and the findings are gone): asked for by kind, or offered
  // next to a fixable finding.
  bool explicit_fix_all = !only.empty() && wanted(kFixAllKind);
  if (explicit_fix_all || any_fix_here) {
    std::unique_ptr<ProjectRun> pr = project_run();
    std::unique_ptr<Setups> s = setups();
    std::ostringstream sink;
    const Setup* setup = s->for_file(d.analyzed_path(), sink);
    if (setup) {
      Options o = setup->opt;
      o.diff = true;
      checks::RunOptions rules = rules_for(setup->cfg, setup->run, d.analyzed_path());
      nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
      FixOutcome fix;
      std::ostringstream out, err;
      std::vector<InputError> errors;
      std::vector<Diagnostic> findings;
      analyze_file(*pr, *d.src, d.analyzed_path(), o, rules, findings, estimates, fix, out, err, errors);
      if (!fix.edits.empty())
        actions.push_back({{"title", "Apply every safe fix (" + std::to_string(fix.would_fix) + " in this file)"},
                           {"kind", kFixAllKind},
                           {"edit", {{"changes", {{d.uri, lsp::text_edits(fix.edits, tp)}}}}}});
    }
  }
  return actions;
}

// ---- hover ----

json Server::hover(const json& params) {
  Document& d = doc(params.at("textDocument"));
  const json& pos = params.at("position");
  int64_t line = pos.at("line").get<int64_t>();
  if (line < 0 || line > UINT32_MAX) return nullptr;
  return d.python ? hover_python(d, static_cast<uint32_t>(line)) : hover_pyproject(d, static_cast<uint32_t>(line));
}

bool Server::estimate(const std::string& path, const std::string& text, const Setup& s,
                      const std::optional<std::string>& target, std::optional<memory::Estimate>& out,
                      std::string& why) {
  std::unique_ptr<Options> own;
  if (const ScriptRun* sr = script_for(s.cfg, path)) own = script_options(s.opt, *sr);
  Options o = own ? *own : s.opt;
  o.estimate = true;
  if (target) {
    targets::LookupResult t = targets::lookup_target(*target);
    if (!t.ok()) {
      why = t.error.message() + " (see `tpf-analyze --list-targets`)";
      return false;
    }
    o.target = *target;
    o.resolved_target = *t.target;
  }
  SourceFile src;
  DiagSink diags;
  if (!lexer::make_source(path, text, src, diags)) {
    why = "the file cannot be read: " + (diags.diagnostics().empty() ? "" : diags.diagnostics()[0].message);
    return false;
  }
  std::unique_ptr<ProjectRun> pr = project_run();
  nlohmann::ordered_json estimates = nlohmann::ordered_json::array();
  FixOutcome fix;
  std::ostringstream os, es;
  std::vector<InputError> errors;
  std::vector<Diagnostic> findings;
  FileExtras extras;
  if (!analyze_file(*pr, src, path, o, rules_for(s.cfg, s.run, path), findings, estimates, fix, os, es, errors,
                    &extras)) {
    why = "the file has a syntax error";
    return false;
  }
  out = std::move(extras.estimate);
  return out.has_value();
}

json Server::hover_python(Document& d, uint32_t line0) {
  if (!d.estimated) {
    d.estimated = true;
    d.estimate.reset();
    std::unique_ptr<Setups> s = setups();
    std::ostringstream sink;
    std::string why;
    if (const Setup* setup = s->for_file(d.analyzed_path(), sink))
      estimate(d.analyzed_path(), d.text, *setup, std::nullopt, d.estimate, why);
  }
  if (!d.estimate) return nullptr;
  for (const auto& m : d.estimate->config.models) {
    if (m.origin.line != line0 + 1) continue;
    std::string title = "**tpf-analyze**: peak VRAM of `" + m.name + "`" +
                        (m.cls.empty() || m.cls == m.name ? "" : " (`" + m.cls + "`)") +
                        (d.estimate->target.empty() ? ", no target (set `target` in [tool.tpf] for a verdict)"
                                                    : " on " + d.estimate->gpu_display);
    lsp::TextPositions tp(d.text, utf16_);
    uint32_t b = tp.offset(line0, 0), e = tp.line_end(line0);
    return {{"contents", {{"kind", "markdown"}, {"value", lsp::estimate_markdown(*d.estimate, title)}}},
            {"range", tp.range(Span{b, e})}};
  }
  return nullptr;
}

json Server::hover_pyproject(Document& d, uint32_t line0) {
  std::optional<std::string> target = lsp::tool_tpf_target_at(d.text, line0);
  if (!target) return nullptr;
  // The scripts this configuration governs: the open Python documents
  // whose nearest [tool.tpf] is this file, then the plain paths of its
  // [tool.tpf.scripts] table (at most 4 in all).
  std::unique_ptr<Setups> s = setups();
  std::ostringstream sink;
  std::vector<std::pair<std::string, std::string>> scripts;  // path, text
  const Setup* mine = nullptr;
  for (const auto& [uri, o] : docs_) {
    if (!o.python || o.path.empty()) continue;
    const Setup* setup = s->for_file(o.path, sink);
    if (!setup || canonical(setup->cfg.file.string()) != d.canonical) continue;
    mine = setup;
    if (scripts.size() < 4) scripts.emplace_back(o.path, o.text);
  }
  if (!mine) {
    std::string probe = (fs::path(d.path).parent_path() / "__tpf_probe__.py").string();
    const Setup* setup = s->for_file(probe, sink);
    if (setup && canonical(setup->cfg.file.string()) == d.canonical) mine = setup;
  }
  std::string value = "**tpf-analyze**: `target = \"" + *target + "\"`";
  if (mine)
    for (const ScriptRun& sr : mine->cfg.scripts) {
      fs::path p = mine->cfg.root / sr.glob.pattern;
      std::error_code ec;
      if (scripts.size() >= 4 || sr.glob.pattern.find_first_of("*?[") != std::string::npos ||
          !fs::is_regular_file(p, ec))
        continue;
      bool have = false;
      for (const auto& [path, text] : scripts) have |= canonical(path) == canonical(p.string());
      if (have) continue;
      std::ifstream in(p, std::ios::binary);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      scripts.emplace_back(p.string(), std::move(text));
    }
  if (!mine || scripts.empty()) {
    value += "\n\nNo script under this configuration is open: open one (or name it in "
             "[tool.tpf.scripts]) to see its estimate here.";
  }
  for (const auto& [path, text] : scripts) {
    std::optional<memory::Estimate> est;
    std::string why;
    std::string name = fs::path(path).filename().string();
    if (!estimate(path, text, *mine, target, est, why)) {
      value += "\n\n`" + name + "`: no estimate: " + (why.empty() ? "no model found" : why);
      if (!why.empty() && why.find("--list-targets") != std::string::npos) break;  // same for every script
      continue;
    }
    value += "\n\n" + lsp::estimate_markdown(*est, "`" + name + "`");
  }
  lsp::TextPositions tp(d.text, utf16_);
  return {{"contents", {{"kind", "markdown"}, {"value", value}}},
          {"range", tp.range(Span{tp.offset(line0, 0), tp.line_end(line0)})}};
}

}  // namespace

int run_server(const Options& cli, const boost::program_options::variables_map& vm) {
  // Never destroyed: the reader thread may still be blocked in read(2) on
  // it when the process exits.
  static Server* server = new Server(cli, vm);
  return server->run();
}

}  // namespace tpf::tools
