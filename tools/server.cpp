// The language server (see server.h). One reader thread frames and parses
// standard input into a queue; the main thread answers requests in order
// and runs the analyses when their debounce delay is over. Every document
// is analyzed by tools/pipeline.h's analyze_file, with the [tool.tpf] of
// the nearest pyproject.toml above it (each workspace folder's own), and
// the open documents stand in for their files when another one imports them.
#include "tools/server.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#include "ir/fs_cache.h"
#include "lexer/lexer.h"
#include "tools/lsp_actions.h"
#include "tools/lsp_server.h"

namespace tpf::tools::lsp {

namespace fs = std::filesystem;

std::string canonical(const std::string& path) {
  if (path.empty()) return "";
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(path, ec), ec);
  return ec ? fs::absolute(path).lexically_normal().string() : c.string();
}


// ---- queue ----

void Server::read_loop() {
  for (;;) {
    Frame f = reader_.next();
    bool end = f.kind == Frame::Kind::End;
    {
      std::lock_guard<std::mutex> g(mu_);
      queue_.push_back(std::move(f));
    }
    cv_.notify_one();
    if (end) return;
  }
}

std::optional<Frame> Server::pop(std::optional<Clock::time_point> until) {
  std::unique_lock<std::mutex> g(mu_);
  if (until) cv_.wait_until(g, *until, [&] { return !queue_.empty(); });
  else cv_.wait(g, [&] { return !queue_.empty(); });
  if (queue_.empty()) return std::nullopt;
  Frame f = std::move(queue_.front());
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
    std::optional<Frame> f = pop(due);
    if (!f) continue;  // a debounce delay ran out
    if (f->kind == Frame::Kind::End) return shutdown_ ? 0 : 1;
    handle(*f);
    if (exit_) return shutdown_ ? 0 : 1;
  }
}

// ---- JSON-RPC ----

void Server::handle(const Frame& f) {
  if (f.kind == Frame::Kind::Error) {
    reply_error(nullptr, f.code, f.error);
    return;
  }
  const json& m = f.message;
  if (!m.is_object()) {
    reply_error(nullptr, kInvalidRequest, "a JSON-RPC message is an object");
    return;
  }
  const json* id = nullptr;
  if (auto it = m.find("id"); it != m.end()) {
    if (!it->is_number_integer() && !it->is_string() && !it->is_null()) {
      reply_error(nullptr, kInvalidRequest, "`id` must be an integer or a string");
      return;
    }
    id = &*it;
  }
  auto method = m.find("method");
  if (method == m.end()) {
    // A response to a request of ours (we send none) or junk.
    if (!id) reply_error(nullptr, kInvalidRequest, "a message needs a `method`");
    return;
  }
  if (!method->is_string()) {
    reply_error(id ? *id : json(nullptr), kInvalidRequest, "`method` must be a string");
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
    if (id) reply_error(*id, kInvalidParams, name + ": invalid params: " + e.what());
    else std::cerr << "tpf-analyze server: " << name << ": invalid params: " << e.what() << "\n";
  } catch (const std::exception& e) {
    if (id) reply_error(*id, kInternalError, name + ": " + e.what());
    else std::cerr << "tpf-analyze server: " << name << ": " << e.what() << "\n";
  }
}

void Server::dispatch(const std::string& method, const json& params, const json* id) {
  if (method == "exit") {
    exit_ = true;
    return;
  }
  if (!initialized_ && method != "initialize") {
    if (id) reply_error(*id, kServerNotInitialized, "the server is not initialized yet");
    return;  // notifications before initialize are dropped
  }
  if (shutdown_) {
    if (id) reply_error(*id, kInvalidRequest, "the server is shut down: only `exit` is accepted");
    return;
  }
  if (id) {
    if (method == "initialize") {
      if (initialized_) return reply_error(*id, kInvalidRequest, "initialize was already received");
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
    return reply_error(*id, kMethodNotFound, "unknown method " + method);
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
      std::string p = uri_to_path(f.at("uri").get<std::string>());
      std::erase(folders_, p);
    }
    for (const json& f : params.at("event").at("added"))
      folders_.push_back(uri_to_path(f.at("uri").get<std::string>()));
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
        folders_.push_back(uri_to_path(f["uri"].get<std::string>()));
  } else if (params.contains("rootUri") && params["rootUri"].is_string()) {
    folders_.push_back(uri_to_path(params["rootUri"].get<std::string>()));
  }
  return {{"capabilities",
           {{"positionEncoding", utf16_ ? "utf-16" : "utf-8"},
            // TextDocumentSyncKind.Incremental: ranges, in positionEncoding's units.
            {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
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
  d.path = uri_to_path(uri);
  d.canonical = canonical(d.path);
  d.text = td.at("text").get<std::string>();
  std::string lang = td.value("languageId", "");
  d.python = fs::path(d.path).filename() != "pyproject.toml" && lang != "toml";
  docs_[uri] = std::move(d);
  if (docs_[uri].python) due_[uri] = Clock::now();  // no delay: the file was just opened
}

void Server::did_change(const json& params) {
  Document& d = doc(params.at("textDocument"));
  // Incremental sync: each change applies to the text the previous one
  // left, in the negotiated position encoding. A malformed one throws, and
  // the document stays as it was (dispatch logs it).
  const json& changes = params.at("contentChanges");
  if (!changes.is_array() || changes.empty()) return;
  std::string text = d.text;
  for (const json& c : changes) text = apply_change(text, c, utf16_);
  d.text = std::move(text);
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
  TextPositions tp = positions(d);
  json diags = json::array();
  for (const Diagnostic& x : d.diags) diags.push_back(to_lsp(x, tp, d.uri));
  notify("textDocument/publishDiagnostics", {{"uri", d.uri}, {"diagnostics", std::move(diags)}});
}

}  // namespace tpf::tools::lsp

namespace tpf::tools {

int run_server(const Options& cli, const boost::program_options::variables_map& vm) {
  // Never destroyed: the reader thread may still be blocked in read(2) on
  // it when the process exits.
  static lsp::Server* server = new lsp::Server(cli, vm);
  return server->run();
}

}  // namespace tpf::tools

