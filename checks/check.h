// What every rule sees: RuleInfo (the static description of a rule, one
// row of checks/registry.def) and CheckContext (the facts of one file).
// A rule is `void check(const CheckContext&, DiagSink&)` in namespace
// tpf::checks::<slug>; it reads facts, never builds its own CFG or reruns
// the solver, and reports Diagnostics (only tools/ renders them).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "dataflow/facts.h"
#include "ir/ir.h"
#include "lexer/diag.h"
#include "lexer/source.h"
#include "memory/memory.h"
#include "parser/ast.h"

namespace tpf::checks {

struct CallIndex;  // checks/facts.h

enum class Category : uint8_t { Memory, Correctness, Performance, Reproducibility };

/// Stable: runs when selected. Planned: registered and documented
/// (--list-rules, --explain) but never runs. Removed: retired; its code is
/// never reused.
enum class Status : uint8_t { Stable, Planned, Removed };

/// Rule codes in table order: RuleId::TPF003.
enum class RuleId : uint16_t {
#define TPF_RULE(code, slug, severity, category, status, summary) code,
#include "checks/registry.def"
#undef TPF_RULE
};

inline constexpr size_t kRuleCount = 0
#define TPF_RULE(code, slug, severity, category, status, summary) +1
#include "checks/registry.def"
#undef TPF_RULE
    ;

/// The static description of one rule.
struct RuleInfo {
  RuleId id;
  std::string_view code;     // "TPF003"
  std::string_view slug;     // "backward_without_zero_grad"
  Severity severity;         // the default
  Category category;
  Status status;
  std::string_view summary;  // one line, lowercase, no final period
};

inline constexpr std::array<RuleInfo, kRuleCount> kRules = {{
#define TPF_RULE(code, slug, severity, category, status, summary) \
  {RuleId::code, #code, #slug, Severity::severity, Category::category, Status::status, summary},
#include "checks/registry.def"
#undef TPF_RULE
}};

constexpr const RuleInfo& rule_info(RuleId id) { return kRules[static_cast<size_t>(id)]; }

std::string_view category_name(Category c);  // "correctness"
std::string_view status_name(Status s);      // "stable", "planned", "removed"
std::string_view severity_name(Severity s);  // "error", "warning", "note"

/// Everything known about one file, all by const reference; owned by the
/// driver (or the test harness) for the duration of the checks.
struct CheckContext {
  const SourceFile& src;
  const ast::Module& ast;
  const ir::Module& ir;
  const dataflow::FileFacts& facts;
  /// The memory estimate when the run has a --target (TPF013, TPF024), else null.
  const memory::Estimate* estimate = nullptr;
  /// The torch release the project declares (--torch-version, [tool.tpf]
  /// torch-version, a pin, the README's statement), else nullopt: code
  /// written for torch 0.3 (`Variable(x, volatile=True)`) is read as 0.3.
  std::optional<memory::TorchVersion> torch = std::nullopt;
  /// What each function's calls may do (checks/facts.h call_index): built
  /// by the first rule that asks and kept for the file's other rules.
  mutable std::shared_ptr<const CallIndex> call_index_cache = nullptr;
};

/// A diagnostic of rule `rule` at `span` with its default severity.
/// `message` states the cost (lowercase, no final period, code in
/// backticks); `help` says the fix.
Diagnostic make_diagnostic(const RuleInfo& rule, Span span, std::string message,
                           std::string help);

/// Rule declarations, generated from the table: every rule's file defines
/// kExplain (the --explain write-up); Stable rules also define check().
#define TPF_RULE(code, slug, severity, category, status, summary) \
  namespace slug {                                                \
  extern const std::string_view kExplain;                         \
  void check(const CheckContext& ctx, DiagSink& out);             \
  }
#include "checks/registry.def"
#undef TPF_RULE

}  // namespace tpf::checks
