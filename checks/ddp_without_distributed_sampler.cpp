// TPF005 ddp_without_distributed_sampler (planned: registered and documented, no check yet)
//
// What it finds: a script that wraps the model in `DistributedDataParallel` (or FSDP) and
//   builds its training `DataLoader` without a `DistributedSampler` (or a
//   shuffle that depends on the rank).
// Why it costs: every rank then trains on the same batches: N GPUs do the work of one,
//   and each epoch sees the data N times.
// Example:
//     model = DDP(model, device_ids=[rank])
//     loader = DataLoader(dataset, batch_size=64, shuffle=True)
// Fix: `sampler = DistributedSampler(dataset)`, `DataLoader(dataset,
//   sampler=sampler)`, and `sampler.set_epoch(epoch)` every epoch.
// Not flagged: loaders with any sampler or batch_sampler, iterable datasets that shard
//   by rank themselves, and validation loaders.
//
// TODO(checks): implement check() over the dataflow facts and mark the rule
// Stable in checks/registry.def; until then it never runs.
#include "checks/check.h"

namespace tpf::checks::ddp_without_distributed_sampler {

const std::string_view kExplain = R"(TPF005 ddp_without_distributed_sampler: DistributedDataParallel training with a DataLoader that has no DistributedSampler (planned: not implemented yet)

What it finds
  a script that wraps the model in `DistributedDataParallel` (or FSDP) and
  builds its training `DataLoader` without a `DistributedSampler` (or a
  shuffle that depends on the rank).

Why it costs
  every rank then trains on the same batches: N GPUs do the work of one,
  and each epoch sees the data N times.

Example
  model = DDP(model, device_ids=[rank])
  loader = DataLoader(dataset, batch_size=64, shuffle=True)

Fix
  `sampler = DistributedSampler(dataset)`, `DataLoader(dataset,
  sampler=sampler)`, and `sampler.set_epoch(epoch)` every epoch.

Not flagged
  loaders with any sampler or batch_sampler, iterable datasets that shard
  by rank themselves, and validation loaders.
)";

}  // namespace tpf::checks::ddp_without_distributed_sampler
