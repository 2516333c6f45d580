// The runtime's memory component: the simulated device memory of one
// Runtime (which owns it; src/runtime/memory_manager.cpp) and the checked
// operations on it: allocation and release of device, managed, pinned and
// registered memory, copies, memsets, pointer queries and the host-memory
// budget checks before a host-side write. The facade (memory.cpp) adds the
// prologue, stream validation and the capture and stream-ordered hooks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "exec/device_memory.h"
#include "runtime/runtime.h"

namespace softgpu::runtime {

class MemoryManager {
 public:
  MemoryManager(uint64_t capacity_bytes, uint64_t host_memory_limit);
  MemoryManager(const MemoryManager&) = delete;
  MemoryManager& operator=(const MemoryManager&) = delete;

  exec::DeviceMemory& device() { return *memory_; }
  const exec::DeviceMemory& device() const { return *memory_; }

  Status malloc(void** out, size_t size);
  Status malloc_managed(void** out, size_t size, unsigned flags);
  Status host_alloc(void** out, size_t size, unsigned flags);
  Status free_device(void* p);  // device or managed memory (p not null)
  Status free_host(void* p);
  Status host_register(void* p, size_t size, unsigned flags);
  Status host_unregister(void* p);
  Status host_get_device_pointer(void** out, void* host, unsigned flags);
  // The flags cudaHostAlloc was given for the allocation holding `host`
  // (cudaMallocHost: 0); InvalidValue for other memory.
  Status host_flags(unsigned* out, void* host) const;
  // [p, p+n) must lie inside one live allocation of any kind.
  Status check_range(const void* p, size_t n) const;
  // Copies and sets; with run false only the arguments are checked (work
  // queued behind a faulted kernel, which never runs: Runtime::fault_pending).
  Status copy(void* dst, const void* src, size_t n, CopyKind kind, bool run = true);
  Status copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                 CopyKind kind, bool run = true);
  Status set(void* dst, int value, size_t n, bool run = true);
  Status set_2d(void* dst, size_t pitch, int value, size_t width, size_t height, bool run = true);
  // count elements of elem_size bytes, each set to the low bytes of value.
  Status set_elements(void* dst, uint32_t value, size_t elem_size, size_t count, bool run = true);
  // The allocation containing p: base and size (NotFound if none).
  Status range_of(const void* p, void** base, size_t* size) const;
  Status info(size_t* free_bytes, size_t* total_bytes) const;
  Status pointer_info(const void* p, PointerInfo* out) const;

 private:
  std::unique_ptr<exec::DeviceMemory> memory_;
  std::unordered_map<uint64_t, unsigned> host_flags_;  // pinned allocation base -> cudaHostAlloc flags
};

}  // namespace softgpu::runtime
