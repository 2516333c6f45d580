// The device's global memory: an allocation table over host memory.
// Every guest access is checked against this table before it touches a
// byte, so a kernel can never read or write the simulator's own memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
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

  static std::byte* host_ptr(DeviceAddr a) { return reinterpret_cast<std::byte*>(a.value); }

 private:
  Bytes capacity_;
  mutable std::shared_mutex mu_;
  std::map<uint64_t, Allocation> allocs_;  // by base
  uint64_t used_ = 0;
};

}  // namespace softgpu::exec
