// Stream-ordered allocation (cudaMallocAsync, memory pools) and graph
// memory (allocation/free nodes): the StreamOrderedMemory component each
// Runtime owns. Logic: src/runtime/mempool.cpp (pools) and
// src/runtime/graph_memory.cpp (graph allocations).
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
#include <optional>
#include <set>
#include <unordered_map>
#include <vector>

#include "exec/device_memory.h"
#include "runtime/graph.h"
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

// The runtime's stream-ordered memory component: memory pools, their
// blocks and the graph allocations, for one Runtime (which owns it and calls
// it with its lock held). It allocates from the device memory it is given
// (null when the runtime failed to initialize: nothing is allocated then).
// The facade keeps the prologue, stream validation and the capture hooks of
// cudaMallocAsync/cudaFreeAsync.
class StreamOrderedMemory {
 public:
  explicit StreamOrderedMemory(exec::DeviceMemory* memory);
  StreamOrderedMemory(const StreamOrderedMemory&) = delete;
  StreamOrderedMemory& operator=(const StreamOrderedMemory&) = delete;

  // `pool` null: the current pool; null if not a live pool.
  MemPool* find_pool(const void* pool);
  Status pool_allocate(void** out, size_t size, MemPool& pool);
  // cudaFree of a stream-ordered or graph allocation (nullopt: not one).
  std::optional<Status> free_stream_ordered(void* p);
  // Synchronization releases cached pool memory above each pool's threshold.
  void mempool_synchronized();
  // cudaDeviceReset: the device memory is gone; forget every block.
  void mempool_reset();

  // The cudaMemPool* calls (same names on Runtime).
  Status mempool_default(void** out, int device);
  Status mempool_current(void** out, int device);
  Status mempool_set_current(int device, void* pool);
  Status mempool_create(void** out, const PoolProps& props);
  Status mempool_destroy(void* pool);
  Status mempool_set_attribute(void* pool, int attr, const void* value);
  Status mempool_get_attribute(void* pool, int attr, void* value);
  Status mempool_trim(void* pool, size_t keep);
  Status mempool_set_access(void* pool, const MemAccess* descs, size_t count);
  Status mempool_get_access(int* flags, void* pool, int location_type, int location_id);

  // Graph memory (graph_memory.cpp). An alloc node's block is reserved at
  // creation (out: its address); refs count the nodes and executable graphs
  // holding it.
  Status graph_mem_create(uint64_t bytes, exec::MemKind kind, const void* owner, uint64_t* out);
  void graph_mem_retain(uint64_t addr);
  // `graph`: the graph whose alloc node goes away (null for an executable graph).
  void graph_mem_release(uint64_t addr, const void* graph);
  // Validates and records a free node of `graph` for addr; `alloc_is_ancestor`
  // says whether the owning graph's alloc node precedes the free node.
  Status graph_mem_add_free(uint64_t addr, const void* graph, bool alloc_is_ancestor);
  void graph_mem_drop_free(uint64_t addr, const void* graph);
  bool graph_mem_owned_by(uint64_t addr, const void* graph);
  // Launch steps: the allocation still live from an earlier launch (auto_free
  // frees it, else InvalidValue), the alloc node, the free node.
  Status graph_mem_prelaunch(uint64_t addr, bool auto_free);
  Status graph_mem_launch_alloc(uint64_t addr);
  Status graph_mem_launch_free(uint64_t addr);
  void graph_mem_trim_cached();  // releases blocks no graph or launch holds
  // A memory node being added to `graph` (last step, after every other
  // check): an alloc node gets its block (spec.dst), a free node is validated
  // and recorded.
  Status graph_mem_node(GraphNodeSpec& spec, const void* graph, bool alloc_precedes);
  // The cudaDeviceGraphMem* calls (same names on Runtime).
  Status graph_mem_trim(int device);
  Status graph_mem_get_attribute(int device, int attr, uint64_t* value);
  Status graph_mem_set_attribute(int device, int attr, const uint64_t* value);

 private:
  void pool_release_cached(MemPool& pool, uint64_t keep);

  struct State {
    std::unordered_map<const void*, std::unique_ptr<MemPool>> pools;  // by handle
    std::vector<std::unique_ptr<MemPool>> zombies;  // destroyed, blocks still in use
    MemPool* default_pool = nullptr;
    MemPool* current = nullptr;
    std::unordered_map<uint64_t, PoolBlock> blocks;  // pool blocks by base (in use and cached)
    std::map<uint64_t, GraphAlloc> graph_allocs;     // graph blocks by base
    uint64_t graph_used = 0, graph_used_high = 0, graph_reserved = 0, graph_reserved_high = 0;
  };
  exec::DeviceMemory* memory_;
  State st_;
};

}  // namespace softgpu::runtime
