// The device's global memory: an allocation table over host memory.
// Every guest access is checked against this table before it touches a
// byte, so a kernel can never read or write the simulator's own memory.
#pragma once
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
};

// A sorted, immutable view of the table, taken at launch for lock-free lookups.
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

class DeviceMemory {
 public:
  explicit DeviceMemory(Bytes capacity);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;

  // Zero-sized requests return a null address with success, as CUDA does.
  Result<DeviceAddr> allocate(Bytes size, MemKind kind, std::string label = {});
  // Registers memory the program owns (cudaHostRegister). Not freed by us.
  Status register_external(DeviceAddr base, Bytes size);
  // Frees an allocation by its base address. InvalidValue if base is not the
  // start of a live allocation of one of the given kinds.
  Status release(DeviceAddr base, std::initializer_list<MemKind> kinds);
  std::optional<Allocation> find(DeviceAddr addr) const;  // containing allocation
  // True if [addr, addr+size) lies inside one live allocation.
  bool contains(DeviceAddr addr, Bytes size) const;
  AllocationSnapshot snapshot() const;
  Bytes used() const;
  Bytes capacity() const { return capacity_; }
  void reset();  // frees everything (cudaDeviceReset)
  // The malloc heap, created with `size` bytes on first use; later calls
  // return the existing heap whatever the size. nullptr if memory is short.
  DeviceHeap* heap(Bytes size);
  DeviceHeap* existing_heap() const;

  static std::byte* host_ptr(DeviceAddr a) { return reinterpret_cast<std::byte*>(a.value); }

 private:
  Bytes capacity_;
  mutable std::shared_mutex mu_;
  std::map<uint64_t, Allocation> allocs_;  // by base
  uint64_t used_ = 0;
  mutable std::mutex heap_mu_;
  std::unique_ptr<DeviceHeap> heap_;
};

}  // namespace softgpu::exec
