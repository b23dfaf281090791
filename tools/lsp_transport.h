// The language server's wire: JSON-RPC 2.0 messages framed by LSP's
// `Content-Length: N\r\n\r\n` headers, read from a file descriptor and
// written to another. Malformed frames and bodies are values (a Frame with
// an error), never exceptions, so the server answers them with JSON-RPC
// errors and keeps reading.
// requires: nlohmann-json. produces: parsed messages, framed replies.
#pragma once

#include <cstddef>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace tpf::tools::lsp {

/// JSON-RPC and LSP error codes.
inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;
inline constexpr int kInternalError = -32603;
inline constexpr int kServerNotInitialized = -32002;
inline constexpr int kRequestCancelled = -32800;

/// A body larger than this is refused (read and dropped): no editor sends
/// a 64 MiB document, and a bad header must not allocate gigabytes.
inline constexpr size_t kMaxBody = size_t{64} << 20;

struct Frame {
  enum class Kind { Message, Error, End };
  Kind kind = Kind::End;
  nlohmann::json message;  // Kind::Message: a parsed JSON value (any type)
  int code = 0;            // Kind::Error: kParseError or kInvalidRequest
  std::string error;       // Kind::Error: why
};

/// Reads frames from `fd` (blocking). End at end of input or a read error.
class FrameReader {
 public:
  explicit FrameReader(int fd) : fd_(fd) {}
  Frame next();

 private:
  bool fill();  // more bytes into buf_; false at the end
  bool read_line(std::string& line);
  int fd_;
  std::string buf_;
  size_t pos_ = 0;
  bool eof_ = false;
};

/// Writes framed messages to `fd`; thread-safe.
class FrameWriter {
 public:
  explicit FrameWriter(int fd) : fd_(fd) {}
  void write(const nlohmann::json& message);

 private:
  int fd_;
  std::mutex mu_;
};

}  // namespace tpf::tools::lsp
