// Diagnostics are values: every pass reports into a DiagSink, nothing throws
// across a stage boundary, only tools/ renders them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lexer/source.h"

namespace tpf {

enum class Severity : uint8_t { Note, Warning, Error };

/// One secondary location with a message.
struct DiagNote {
  Span span;
  std::string message;
};

/// One byte-exact change to the source: replace `span` (empty: insert at
/// span.begin) with `text`. Offsets index SourceFile::text.
struct Edit {
  Span span;
  std::string text;
  bool operator==(const Edit&) const = default;
};

/// A fix a rule offers (--fix / --diff): a title in the imperative
/// ("add `.detach()`") and non-overlapping edits, applied together or not
/// at all. Only fixes that keep the program's meaning apart from the bug
/// are offered.
struct Fix {
  std::string title;
  std::vector<Edit> edits;  // sorted by offset, non-overlapping
};

/// A problem found in the user's input. `code` is "SyntaxError" for the
/// frontend and "TPF001".. for rules.
struct Diagnostic {
  std::string code;
  Severity severity = Severity::Error;
  Span span;
  std::string message;
  std::vector<DiagNote> notes;
  std::string help;
  std::optional<Fix> fix;  // the rule's safe autofix, if it has one here
};

/// Collects diagnostics. Records at most one error per start offset (the
/// first one wins), so error recovery cannot flood the output.
class DiagSink {
 public:
  void report(Diagnostic d);
  void error(std::string code, Span span, std::string message);
  bool has_errors() const { return errors_ > 0; }
  uint32_t error_count() const { return errors_; }
  const std::vector<Diagnostic>& diagnostics() const { return diags_; }
  /// Stable order: by offset, then code.
  void sort();
  /// Withdraws diagnostic `index` (a tokenizer error that CPython reports
  /// only when its parser reaches the end of the file).
  void withdraw(size_t index);

 private:
  std::vector<Diagnostic> diags_;
  std::vector<uint32_t> error_offsets_;  // sorted start offsets of the errors kept
  uint32_t errors_ = 0;
};

}  // namespace tpf
