// Stream-ordered allocation (cudaMallocAsync, memory pools) and graph
// memory (allocation/free nodes): the state the Runtime owns for them.
// Logic: src/runtime/mempool.cpp (pools) and src/runtime/graph_memory.cpp
// (graph allocations).
//
// Model. Work runs synchronously in issue order, so a stream-ordered
// allocation or free takes effect when it is issued; a freed block is
// therefore immediately reusable by any later allocation on any stream.
//
// Pools. Each allocation is a block of round_up(size, kStreamAllocGranularity)
// bytes, its own DeviceMemory allocation (so guest accesses are bounds
// checked per block). A freed block stays in its pool (still reserved) and is
// reused best-fit by a later request whose rounded size r satisfies
// r <= block <= 2r. Reserved = bytes of all blocks a pool holds (in use or
// cached); used = bytes of the blocks in use. Cached blocks are released
// (largest first, each only if the pool keeps at least the threshold) at
// cudaMemPoolTrimTo and, against the release threshold, at every device,
// stream or event synchronize.
//
// Graph allocations. An allocation node reserves its block when it is
// created, so its address is fixed for the life of the graph and of its
// executable graphs. The block is "allocated" when a launch runs the node and
// "freed" by a free node, cudaFree or cudaFreeAsync. Graph used memory is the
// bytes of graph blocks currently allocated; reserved memory is all graph
// blocks held, including blocks no graph references any more (cached until
// cudaDeviceGraphMemTrim, or reused by a later allocation node).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "exec/device_memory.h"
#include "runtime/runtime.h"

namespace softgpu::runtime {

inline constexpr uint64_t kStreamAllocGranularity = 512;
inline uint64_t stream_alloc_round(uint64_t n) {
  return (n + kStreamAllocGranularity - 1) / kStreamAllocGranularity * kStreamAllocGranularity;
}

// cudaError_t values outside the shared Status enum.
inline constexpr Status kStreamCaptureUnmatched = static_cast<Status>(903);
inline constexpr Status kStreamCaptureUnjoined = static_cast<Status>(904);
inline constexpr Status kStreamCaptureIsolation = static_cast<Status>(905);

struct MemPool {
  bool is_default = false;
  bool destroyed = false;        // cudaMemPoolDestroy with blocks still in use
  exec::MemKind kind = exec::MemKind::Device;
  PoolProps props;
  uint64_t release_threshold = 0;
  int reuse_follow_events = 1, reuse_opportunistic = 1, reuse_internal_deps = 1;
  int access = 3;                // cudaMemAccessFlagsProtReadWrite for device 0
  uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
  size_t live = 0;               // blocks in use
  std::multimap<uint64_t, uint64_t> cached;  // block bytes -> base
};

struct PoolBlock {
  MemPool* pool = nullptr;
  uint64_t bytes = 0;
  bool live = false;
};

struct GraphAlloc {
  uint64_t bytes = 0;            // block bytes (rounded)
  uint64_t requested = 0;
  exec::MemKind kind = exec::MemKind::Device;
  int refs = 0;                  // alloc nodes in graphs + executable graphs holding it
  bool live = false;             // allocated by a launch and not freed yet
  const void* owner = nullptr;   // graph holding the alloc node (null once destroyed)
  bool owner_frees = false;      // the owning graph has a free node for it
  std::multiset<const void*> foreign_frees;  // other graphs with a free node for it
};

struct Runtime::StreamAllocState {
  std::unordered_map<const void*, std::unique_ptr<MemPool>> pools;  // by handle
  std::vector<std::unique_ptr<MemPool>> zombies;  // destroyed, blocks still in use
  MemPool* default_pool = nullptr;
  MemPool* current = nullptr;
  std::unordered_map<uint64_t, PoolBlock> blocks;  // pool blocks by base (in use and cached)
  std::map<uint64_t, GraphAlloc> graph_allocs;     // graph blocks by base
  uint64_t graph_used = 0, graph_used_high = 0, graph_reserved = 0, graph_reserved_high = 0;
};

}  // namespace softgpu::runtime
