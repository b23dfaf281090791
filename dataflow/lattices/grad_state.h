// GradState: whether a value may carry an autograd graph, and GradMode:
// whether autograd records at a program point (torch.no_grad and friends).
//
// GradState is a chain, Bottom < NoGraph < Unknown < Graph, and join is max.
// The question clients ask is "may this value hold a graph?", so a value
// that holds one on some path is Graph even when another path gives a
// detached or unknown value: `total = 0` then `total += loss` in a loop is
// phi(NoGraph, Graph) = Graph. NoGraph means detached on every path
// (.item(), .detach(), comparisons, anything computed under no_grad);
// Unknown means nothing is known (parameters of uncalled functions, unknown
// library calls).
// requires: nothing.
#pragma once

#include <cstdint>
#include <ostream>
#include <string_view>

#include "dataflow/lattice.h"

namespace tpf::dataflow {

enum class GradState : uint8_t { Bottom, NoGraph, Unknown, Graph };

inline GradState join(GradState a, GradState b) { return a < b ? b : a; }
inline std::string_view name(GradState s) {
  switch (s) {
    case GradState::Bottom: return "bottom";
    case GradState::NoGraph: return "nograph";
    case GradState::Unknown: return "unknown";
    case GradState::Graph: return "graph";
  }
  return "?";
}

/// GradState as a Lattice (for solve_values).
struct GradFact {
  GradState s = GradState::Bottom;
  static GradFact bottom() { return {}; }
  Effect join(const GradFact& o) {
    GradState n = dataflow::join(s, o.s);
    Effect e = n != s ? Effect::Changed : Effect::Unchanged;
    s = n;
    return e;
  }
  bool operator==(const GradFact&) const = default;
  void print(std::ostream& os, const ir::Names&) const { os << name(s); }
};

/// Whether autograd records: Enabled (PyTorch's default), Disabled (inside
/// no_grad / inference_mode / set_grad_enabled(False)), or Unknown (paths
/// disagree, or set_grad_enabled(flag) with a flag we cannot evaluate).
/// A flat lattice: Enabled ⊔ Disabled = Unknown.
enum class GradMode : uint8_t { Bottom, Enabled, Disabled, Unknown };

inline GradMode join(GradMode a, GradMode b) {
  if (a == GradMode::Bottom) return b;
  if (b == GradMode::Bottom || a == b) return a;
  return GradMode::Unknown;
}
inline std::string_view name(GradMode m) {
  switch (m) {
    case GradMode::Bottom: return "bottom";
    case GradMode::Enabled: return "enabled";
    case GradMode::Disabled: return "disabled";
    case GradMode::Unknown: return "unknown";
  }
  return "?";
}

}  // namespace tpf::dataflow
