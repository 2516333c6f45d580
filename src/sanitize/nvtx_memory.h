// What a program tells the sanitizers through NVTX's memory API
// (nvToolsExtMem.h, nvToolsExtMemCudaRt.h; the C entry points are in
// cudart/cudart_nvtx.cpp, reached through NVTX's injection library when
// `softgpu sanitize --nvtx yes`): memory pools (heaps) and the regions
// suballocated from them, names of allocations and regions, and access
// permissions (process-wide, per device, or an object bound to the calling
// thread's stream scope). Semantics from NVIDIA's "NVTX API for Compute
// Sanitizer" manual and the header's comments; see docs/sanitizers.md.
//
// Thread-safe. The sanitizer takes a View at each launch (the calling
// thread's binding included) and checks the launch's accesses against it
// without locks.
#pragma once
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace softgpu::sanitize {

// NVTX_MEM_PERMISSIONS_REGION_FLAGS_*: what a region allows.
inline constexpr uint32_t kPermRead = 0x1, kPermWrite = 0x2, kPermAtomic = 0x4, kPermReset = 0x8;
// NVTX_MEM_PERMISSIONS_CREATE_FLAGS_EXCLUDE_GLOBAL_* and, with the same
// bits, NVTX_MEM_PERMISSIONS_BIND_FLAGS_STRICT_*: the bound object alone
// decides that kind of access (memory it does not list is denied it).
inline constexpr uint32_t kExcludeRead = 0x1, kExcludeWrite = 0x2, kExcludeAtomic = 0x4;

class NvtxMemory {
 public:
  // Special permission handles; objects from create_permissions are other
  // small numbers. 0 is NVTX_MEM_PERMISSIONS_HANDLE_PROCESS_WIDE.
  static constexpr uint64_t kProcessWide = 0;
  static uint64_t device_wide(int device) { return 0x100 + uint64_t(device); }

  // ---- pools ----
  // A heap over [base, base+size): accesses to it must fall in one of its
  // registered regions. Returns its handle (never 0).
  uint64_t heap_register(uint64_t base, uint64_t size);
  void heap_unregister(uint64_t heap);
  void heap_reset(uint64_t heap);  // every region of the heap unregistered
  // A region in a heap (heap 0: the process's address space, where a
  // region only names memory). Its handle is its base.
  void region_register(uint64_t heap, uint64_t base, uint64_t size);
  void region_resize(uint64_t base, uint64_t size);
  void region_unregister(uint64_t base);
  // ---- names ----
  void name(uint64_t base, std::string name);
  // The name given to the allocation or region starting at base, or "".
  std::string name_of(uint64_t base) const;
  // ---- permissions ----
  uint64_t permissions_create(uint32_t exclude_flags);
  void permissions_destroy(uint64_t handle);
  void permissions_reset(uint64_t handle);
  // flags: kPerm*; kPermReset removes the region's entry (back to natural).
  // The region is the registered one starting at region_base, else the
  // allocation there (alloc_size bytes: the caller looks it up; 0 when
  // there is none, and then only a registered region counts).
  void permissions_assign(uint64_t handle, uint64_t region_base, uint64_t alloc_size, uint32_t flags);
  // Stream scope of the calling thread (CPU-thread scope is not checked:
  // softgpu's sanitizers see device accesses only).
  void bind(uint64_t handle, uint32_t strict_flags);
  void unbind();
  // Everything annotated inside a freed allocation goes.
  void released(uint64_t base, uint64_t size);
  // Regions ever registered in heaps inside [base, base+size), merged:
  // initcheck's unused-memory report covers only these when the
  // allocation was a pool. Empty when it never was one.
  std::vector<std::pair<uint64_t, uint64_t>> pool_extent(uint64_t base, uint64_t size) const;

  // What a launch is checked against.
  struct View {
    bool active = false;  // nothing annotated: no access needs a look
    struct Heap {
      uint64_t base, size;
      std::vector<std::pair<uint64_t, uint64_t>> regions;  // sorted {base, size}
    };
    std::vector<Heap> heaps;
    // Painted intervals: start -> {end, flags}, innermost annotation wins.
    std::map<uint64_t, std::pair<uint64_t, uint32_t>> bound, global;
    bool has_bound = false;
    uint32_t strict = 0;  // kExclude* of the bound object and binding
    // nullopt: allowed; else compute-sanitizer's wording for the address
    // line ("is out of bounds", "is not writable", ...). kind: kPermRead,
    // kPermWrite or kPermAtomic.
    std::optional<std::string> check(uint64_t addr, uint32_t size, uint32_t kind) const;
  };
  View view(int device) const;  // for a launch from the calling thread on `device`

 private:
  struct Perms {
    uint32_t exclude = 0;
    std::map<uint64_t, std::pair<uint64_t, uint32_t>> regions;  // region base -> {bytes, kPerm* flags}
  };
  struct Heap {
    uint64_t base, size;
    std::map<uint64_t, uint64_t> regions;  // base -> size
  };
  // The size of the registered region starting at base (0: none).
  uint64_t region_size(uint64_t base) const;
  void paint(const Perms& p, std::map<uint64_t, std::pair<uint64_t, uint32_t>>& out) const;

  mutable std::mutex mu_;
  uint64_t next_heap_ = 1, next_perms_ = 1;
  std::map<uint64_t, Heap> heaps_;                   // handle -> heap
  std::map<uint64_t, uint64_t> named_regions_;       // regions of heap 0: base -> size
  std::map<uint64_t, std::string> names_;            // base -> name
  std::map<uint64_t, Perms> perms_;                  // handle -> object (special handles included)
  std::map<uint64_t, std::vector<std::pair<uint64_t, uint64_t>>> extents_;  // heap base -> regions ever used
};

}  // namespace softgpu::sanitize
