// The device's global memory. Device, managed, symbol and internal
// allocations are carved from one arena (exec/arena.h) that reserves the
// GPU's whole memory as address space; pinned host memory and registered
// host memory lie outside it as "external" regions. Device address == host
// address. The precise allocation table (every allocation, exact size) serves
// the API (cudaFree, copies, pointer queries) and fault reports; kernels
// check only the arena's 2 MiB chunk flags and the short external list, so a
// kernel can reach arena memory the GPU would have mapped, and never the
// simulator's own memory.
//
// Arena layout: [constant window 64 MiB][reserved chunk 2 MiB][capacity].
// __constant__ variables live in the constant window (their chunks fault on
// generic/global writes); the reserved chunk stands for the runtime's own
// allocations that precede user memory on a GPU (always mapped, reads as
// zero until written); everything else is carved from the rest.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <string>
#include <vector>

#include "common/types.h"
#include "exec/arena.h"
#include "exec/host_budget.h"
#include "exec/range_allocator.h"

namespace softgpu::exec {

enum class MemKind : uint8_t {
  Device,   // cudaMalloc
  Managed,  // cudaMallocManaged / __managed__
  Pinned,   // cudaHostAlloc / cudaMallocHost
  Registered,  // cudaHostRegister: memory owned by the program
  Symbol,   // a module's __device__ / __constant__ variable
  Internal, // runtime-owned (e.g. cooperative-groups workspace)
};

struct Allocation {
  uint64_t base = 0;
  uint64_t size = 0;
  MemKind kind = MemKind::Device;
  std::string label;  // symbol name or empty
  uint64_t footprint = 0;  // bytes reserved for it (size rounded to the allocation granularity)
};

// A sorted, immutable list of regions, taken at launch for lock-free lookups
// (the external regions and the launch's own parameter buffers).
class AllocationSnapshot {
 public:
  AllocationSnapshot() = default;
  explicit AllocationSnapshot(std::vector<Allocation> sorted) : allocs_(std::move(sorted)) {}
  // The allocation that contains [addr, addr+size), or nullptr.
  const Allocation* find(uint64_t addr, uint64_t size) const;
  const std::vector<Allocation>& all() const { return allocs_; }

 private:
  std::vector<Allocation> allocs_;
};

// The device-side malloc heap: one Internal allocation (so launch snapshots
// cover it) carved by a first-fit allocator with coalescing free. Blocks are
// 16-byte aligned, as CUDA's malloc guarantees. Thread-safe.
class DeviceHeap {
 public:
  DeviceHeap(uint64_t base, uint64_t size);
  uint64_t allocate(uint64_t bytes);  // 0 when the heap cannot hold it
  bool release(uint64_t addr);        // false if addr is not a live block
  uint64_t base() const { return base_; }
  uint64_t size() const { return size_; }
  uint64_t in_use() const;

 private:
  mutable std::mutex mu_;
  uint64_t base_, size_;
  std::map<uint64_t, uint64_t> free_;            // offset -> bytes
  std::unordered_map<uint64_t, uint64_t> used_;  // offset -> bytes
};

// Told of allocation changes and host-side writes (sanitizers' shadow
// state); set with DeviceMemory::set_observer. Called with the memory's lock
// held: must not call back into DeviceMemory.
class MemoryObserver {
 public:
  virtual ~MemoryObserver() = default;
  virtual void allocated(const Allocation&) {}
  virtual void released(const Allocation&) {}
  // A copy or memset from the host side is about to write [addr, addr+n).
  virtual void host_write(uint64_t /*addr*/, uint64_t /*n*/) {}
  // A copy is about to read [addr, addr+n) of device memory from the host
  // side (cudaMemcpy source); `what` names the call.
  virtual void host_read(uint64_t /*addr*/, uint64_t /*n*/, const char* /*what*/) {}
  // Stream-ordered memory (runtime/mempool.cpp, graph_memory.cpp): the
  // block at `base` was handed to the program (in_use) or went back to its
  // pool, which keeps it allocated here for reuse (not the program's: no leak).
  virtual void pool_block(uint64_t /*base*/, bool /*in_use*/) {}
};

class DeviceMemory {
 public:
  static constexpr uint64_t kGranule = 512;                  // small allocations: alignment and size step
  static constexpr uint64_t kLargeAlign = Arena::kChunk;      // >= 2 MiB: 2 MiB aligned, size in 2 MiB steps
  static constexpr uint64_t kConstWindow = uint64_t(64) << 20;

  // host_limit: host memory the device memory may make resident (0 = from
  // /proc/meminfo, see HostBudget).
  explicit DeviceMemory(Bytes capacity, uint64_t host_limit = 0);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Zero-sized requests return a null address with success, as CUDA does.
  // Fresh memory reads as zero. MemoryAllocation when capacity is exhausted.
  Result<DeviceAddr> allocate(Bytes size, MemKind kind, std::string label = {});
  // Registers memory the program owns (cudaHostRegister). Not freed by us.
  Status register_external(DeviceAddr base, Bytes size);
  // Frees an allocation by its base address. InvalidValue if base is not the
  // start of a live allocation of one of the given kinds.
  Status release(DeviceAddr base, std::initializer_list<MemKind> kinds);
  std::optional<Allocation> find(DeviceAddr addr) const;  // containing allocation
  // The allocation nearest to addr (containing it, or the closest one below
  // or above by distance), for error reports; nullopt when there is none.
  std::optional<Allocation> nearest(DeviceAddr addr) const;
  std::vector<Allocation> allocations() const;  // every live one, by base
  void set_observer(MemoryObserver* o) { observer_ = o; }
  // Bytes kept free after each later Device or Managed allocation (the
  // sanitizer's --padding), so that an overflow into them is outside every
  // allocation instead of in the next one.
  void set_padding(uint64_t bytes) { padding_ = bytes; }
  // A pool hands out the live allocation at `base` again (a cached
  // cudaMallocAsync block, a graph allocation at each launch): the observer
  // sees it released and allocated afresh.
  void renew(DeviceAddr base);
  // A host-side copy is about to read [addr, addr+n): tells the observer.
  void note_read(const void* src, size_t n, const char* what) const {
    if (observer_ && n) observer_->host_read(reinterpret_cast<uint64_t>(src), n, what);
  }
  // Tells the observer that a pool block changed hands (MemoryObserver::pool_block).
  void note_pool_block(DeviceAddr base, bool in_use);
  // True if [addr, addr+size) lies inside one live allocation.
  bool contains(DeviceAddr addr, Bytes size) const;
  // Pinned and registered regions (outside the arena), sorted by base.
  std::vector<Allocation> external_regions() const;
  const Arena& arena() const { return arena_; }
  size_t allocation_count() const;
  Bytes used() const;  // footprints of arena allocations
  Bytes capacity() const { return capacity_; }
  void reset();  // frees everything (cudaDeviceReset)
  // The malloc heap, created with `size` bytes on first use; later calls
  // return the existing heap whatever the size. nullptr if memory is short.
  DeviceHeap* heap(Bytes size);
  DeviceHeap* existing_heap() const;

  // ---- host memory budget (see HostBudget) ----
  // Before a kernel first touches a chunk: false (with a message naming the
  // allocation) if the host cannot back it.
  bool touch(uint64_t addr, uint64_t n, std::string* why);
  // True once touched chunks plus the process's growth could pass the limit;
  // the executor then calls check_budget periodically.
  bool budget_tight() const;
  // Re-measures the process's growth: false (with a message) if past the
  // limit (at each launch, and periodically while tight).
  bool check_budget(std::string* why);
  // Before a host-side write of [dst, dst+n) (copy, memset; `what` names
  // it): MemoryAllocation with a message if the host cannot back it.
  Status prepare_write(const void* dst, size_t n, const char* what, std::string* why);
  const HostBudget& budget() const { return budget_; }
  std::string describe(uint64_t addr) const;  // "allocation 0x... (cudaMalloc, N bytes) at offset K"

  static std::byte* host_ptr(DeviceAddr a) { return reinterpret_cast<std::byte*>(a.value); }

 private:
  Status release_locked(std::map<uint64_t, Allocation>::iterator it);
  std::string out_of_host_memory(const char* what, uint64_t addr, uint64_t need, uint64_t growth) const;

  Bytes capacity_;
  Arena arena_;
  HostBudget budget_;
  mutable std::shared_mutex mu_;
  RangeAllocator const_alloc_;   // the constant window
  RangeAllocator main_alloc_;    // after the reserved chunk
  uint64_t main_base_ = 0;
  std::map<uint64_t, Allocation> allocs_;    // every allocation, by base
  std::map<uint64_t, Allocation> external_;  // pinned and registered, by base
  uint64_t used_ = 0;
  std::atomic<uint64_t> last_growth_{0};
  std::atomic<uint64_t> last_touch_{0};
  mutable std::mutex heap_mu_;
  std::unique_ptr<DeviceHeap> heap_;
  MemoryObserver* observer_ = nullptr;
  uint64_t padding_ = 0;
};

}  // namespace softgpu::exec
