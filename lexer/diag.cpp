// DiagSink: collects diagnostics as values; at most one error per offset.
// requires: nothing. produces: the diagnostics tools/ renders.
#include "lexer/diag.h"

#include <algorithm>

namespace tpf {

void DiagSink::report(Diagnostic d) {
  if (d.severity == Severity::Error) {
    // Error recovery may hit the same spot twice; the first message wins.
    const auto it = std::lower_bound(error_offsets_.begin(), error_offsets_.end(), d.span.begin);
    if (it != error_offsets_.end() && *it == d.span.begin) return;
    error_offsets_.insert(it, d.span.begin);
    ++errors_;
  }
  diags_.push_back(std::move(d));
}

void DiagSink::error(std::string code, Span span, std::string message) {
  Diagnostic d;
  d.code = std::move(code);
  d.span = span;
  d.message = std::move(message);
  report(std::move(d));
}

void DiagSink::withdraw(size_t index) {
  if (index >= diags_.size()) return;
  const Diagnostic& d = diags_[index];
  if (d.severity == Severity::Error) {
    const auto it = std::lower_bound(error_offsets_.begin(), error_offsets_.end(), d.span.begin);
    if (it != error_offsets_.end() && *it == d.span.begin) error_offsets_.erase(it);
    --errors_;
  }
  diags_.erase(diags_.begin() + static_cast<std::ptrdiff_t>(index));
}

void DiagSink::sort() {
  std::stable_sort(diags_.begin(), diags_.end(), [](const Diagnostic& a, const Diagnostic& b) {
    if (a.span.begin != b.span.begin) return a.span.begin < b.span.begin;
    return a.code < b.code;
  });
}

}  // namespace tpf
