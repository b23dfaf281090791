// TPF010 partial_seeding (planned: registered and documented, no check yet)
//
// What it finds: a script that uses randomness from several of torch, numpy and Python's
//   random, but seeds only some of them (warning), or seeds none at all
//   (note).
// Why it costs: an unseeded generator makes runs irreproducible: data order,
//   augmentations and initialization differ, so a change cannot be told apart
//   from noise.
// Example:
//     torch.manual_seed(0)
//     idx = np.random.permutation(n)
// Fix: seed every generator the script uses: `random.seed(s)`,
//   `np.random.seed(s)`, `torch.manual_seed(s)` (or a helper such as
//   `lightning.seed_everything`).
// Not flagged: generators the script does not use, and seeding through a known helper.
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::partial_seeding {

const std::string_view kExplain = R"(TPF010 partial_seeding: randomness seeded for only some of torch, numpy and random, or not at all (planned: not implemented yet)

What it finds
  a script that uses randomness from several of torch, numpy and Python's
  random, but seeds only some of them (warning), or seeds none at all
  (note).

Why it costs
  an unseeded generator makes runs irreproducible: data order,
  augmentations and initialization differ, so a change cannot be told apart
  from noise.

Example
  torch.manual_seed(0)
  idx = np.random.permutation(n)

Fix
  seed every generator the script uses: `random.seed(s)`,
  `np.random.seed(s)`, `torch.manual_seed(s)` (or a helper such as
  `lightning.seed_everything`).

Not flagged
  generators the script does not use, and seeding through a known helper.
)";

}  // namespace tpf::checks::partial_seeding
