// LSP base protocol framing (see lsp_transport.h): header lines up to a
// blank line, `Content-Length` (other headers ignored), then exactly that
// many bytes of UTF-8 JSON.
#include "tools/lsp_transport.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <string_view>

namespace tpf::tools::lsp {

namespace {

/// `Content-Length` in any case, as HTTP header names are.
bool is_content_length(std::string_view name) {
  constexpr std::string_view want = "content-length";
  if (name.size() != want.size()) return false;
  for (size_t i = 0; i < want.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != want[i]) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool FrameReader::fill() {
  if (eof_) return false;
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n > 0) {
      buf_.append(chunk, static_cast<size_t>(n));
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    eof_ = true;
    return false;
  }
}

bool FrameReader::read_line(std::string& line) {
  line.clear();
  for (;;) {
    size_t nl = buf_.find('\n', pos_);
    if (nl != std::string::npos) {
      line.append(buf_, pos_, nl - pos_);
      pos_ = nl + 1;
      return true;
    }
    line.append(buf_, pos_, std::string::npos);
    pos_ = buf_.size();
    if (line.size() > 8192) return true;  // not a header: let the caller reject it
    if (!fill()) return !line.empty();
  }
}

Frame FrameReader::next() {
  Frame f;
  std::string line;
  bool any_header = false, has_length = false, bad_length = false;
  size_t length = 0;
  for (;;) {
    if (!read_line(line)) return f;  // End
    std::string_view l = trim(line);
    if (l.empty()) {
      if (any_header) break;
      continue;  // blank lines between messages
    }
    any_header = true;
    size_t colon = l.find(':');
    if (colon == std::string_view::npos) {
      bad_length = true;
      continue;
    }
    if (!is_content_length(trim(l.substr(0, colon)))) continue;  // Content-Type, ...
    std::string_view v = trim(l.substr(colon + 1));
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), length);
    has_length = ec == std::errc() && end == v.data() + v.size();
    bad_length |= !has_length;
  }
  if (!has_length || bad_length) {
    f.kind = Frame::Kind::Error;
    f.code = kParseError;
    f.error = "malformed header: expected `Content-Length: N` then a blank line";
    return f;
  }
  // The body: exactly `length` bytes (dropped when over the bound).
  std::string body;
  bool keep = length <= kMaxBody;
  if (keep) body.reserve(length);
  size_t left = length;
  while (left > 0) {
    if (pos_ == buf_.size() && !fill()) return Frame{};  // cut short: the end
    size_t take = std::min(left, buf_.size() - pos_);
    if (keep) body.append(buf_, pos_, take);
    pos_ += take;
    left -= take;
  }
  if (!keep) {
    f.kind = Frame::Kind::Error;
    f.code = kInvalidRequest;
    f.error = "message of " + std::to_string(length) + " bytes is over the " +
              std::to_string(kMaxBody >> 20) + " MiB bound";
    return f;
  }
  f.message = nlohmann::json::parse(body, nullptr, false);
  if (f.message.is_discarded()) {
    f.kind = Frame::Kind::Error;
    f.code = kParseError;
    f.error = "the body is not valid JSON";
    return f;
  }
  f.kind = Frame::Kind::Message;
  return f;
}

void FrameWriter::write(const nlohmann::json& message) {
  // Invalid UTF-8 in a string (never expected: sources are validated) is
  // replaced, never thrown.
  std::string body = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out = "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  std::lock_guard<std::mutex> g(mu_);
  size_t off = 0;
  while (off < out.size()) {
    ssize_t n = ::write(fd_, out.data() + off, out.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away: nothing to tell
    off += static_cast<size_t>(n);
  }
}

}  // namespace tpf::tools::lsp
