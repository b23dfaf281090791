// compute_reserved_peak: PyTorch's CUDA caching allocator replayed over the
// simulated step's allocations (c10/cuda/CUDACachingAllocator.cpp, torch
// 1.13 - 2.5, the defaults without PYTORCH_CUDA_ALLOC_CONF):
//   - a request is rounded up to a multiple of 512 bytes (kMinBlockSize);
//   - up to 1 MiB (kSmallSize) it comes from the small pool, whose segments
//     are 2 MiB (kSmallBuffer); larger ones from the large pool, with 20 MiB
//     segments (kLargeBuffer) for requests under 10 MiB (kMinLargeAlloc) and
//     a segment of the request rounded to 2 MiB (kRoundLarge) above;
//   - the smallest cached free block that fits is reused (best fit), and
//     split when the rest is over 1 MiB (large) or at least 512 B (small);
//   - a freed block merges with free neighbours of its segment; segments
//     are never returned within a run (no empty_cache, no OOM retry).
// requires: Timeline::ops. produces: the peak of reserved bytes (and the
// reserved bytes after each op, for the timeline's points).
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "memory/sim/timeline.h"

namespace tpf::memory {
namespace {

constexpr uint64_t kMinBlockSize = 512;
constexpr uint64_t kSmallSize = 1 << 20;
constexpr uint64_t kSmallBuffer = 2 << 20;
constexpr uint64_t kLargeBuffer = 20 << 20;
constexpr uint64_t kMinLargeAlloc = 10 << 20;
constexpr uint64_t kRoundLarge = 2 << 20;

struct Block {
  uint64_t size = 0;
  bool free = true;
};

struct Allocator {
  // segment -> offset -> block; a pool's free blocks ordered by (size, segment, offset).
  std::vector<std::map<uint64_t, Block>> segments;
  std::vector<bool> small_segment;
  std::set<std::tuple<uint64_t, uint32_t, uint64_t>> free_small, free_large;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint64_t>> where;  // block id -> (segment, offset)
  uint64_t reserved = 0;

  auto& pool(bool small) { return small ? free_small : free_large; }

  void allocate(uint32_t id, uint64_t request) {
    uint64_t size = request < kMinBlockSize ? kMinBlockSize : (request + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
    bool small = size <= kSmallSize;
    auto& p = pool(small);
    auto it = p.lower_bound({size, 0, 0});
    uint32_t seg;
    uint64_t off;
    if (it == p.end()) {
      uint64_t seg_size = small ? kSmallBuffer : size < kMinLargeAlloc ? kLargeBuffer
                                                                       : (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
      seg = static_cast<uint32_t>(segments.size());
      segments.emplace_back();
      small_segment.push_back(small);
      segments[seg][0] = Block{seg_size, true};
      reserved += seg_size;
      off = 0;
    } else {
      seg = std::get<1>(*it), off = std::get<2>(*it);
      p.erase(it);
    }
    Block& b = segments[seg][off];
    uint64_t rest = b.size - size;
    if ((small && rest >= kMinBlockSize) || (!small && rest > kSmallSize)) {
      segments[seg][off + size] = Block{rest, true};
      p.insert({rest, seg, off + size});
      b.size = size;
    }
    b.free = false;
    where[id] = {seg, off};
  }

  void release(uint32_t id) {
    auto w = where.find(id);
    if (w == where.end()) return;
    auto [seg, off] = w->second;
    where.erase(w);
    auto& blocks = segments[seg];
    auto& p = pool(small_segment[seg]);
    auto it = blocks.find(off);
    it->second.free = true;
    // Merge with the free block after, then with the one before.
    if (auto next = std::next(it); next != blocks.end() && next->second.free) {
      p.erase({next->second.size, seg, next->first});
      it->second.size += next->second.size;
      blocks.erase(next);
    }
    if (it != blocks.begin()) {
      if (auto prev = std::prev(it); prev->second.free) {
        p.erase({prev->second.size, seg, prev->first});
        prev->second.size += it->second.size;
        blocks.erase(it);
        it = prev;
      }
    }
    p.insert({it->second.size, seg, it->first});
  }
};

}  // namespace

uint64_t compute_reserved_peak(const std::vector<MemOp>& ops, std::vector<uint64_t>* after_each) {
  Allocator a;
  if (after_each) after_each->reserve(ops.size());
  for (const MemOp& op : ops) {
    if (op.bytes) a.allocate(op.block, op.bytes);
    else a.release(op.block);
    if (after_each) after_each->push_back(a.reserved);
  }
  return a.reserved;  // segments are never released, so the last is the peak
}

}  // namespace tpf::memory
