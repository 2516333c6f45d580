// NVTX's memory API for the sanitizers: libcudart.so.13 is the NVTX
// injection library under `softgpu sanitize --nvtx yes` (the CLI points
// NVTX_INJECTION64_PATH at it). A program's NVTX headers call
// InitializeInjectionNvtxExtension for the memory module (module id
// NVTX_EXT_MODULEID_MEM, compatibility NVTX_EXT_COMPATID_MEM) and take the
// functions below from the slots it fills (callback ids NVTX3EXT_CBID_* of
// nvToolsExtMem.h). The calls are unpacked here; what they mean lives in
// sanitize/nvtx_memory.h. Without a sanitizer that reads NVTX the
// initialization declines and NVTX's calls stay no-ops.
#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExtMem.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "cudart/cudart_internal.h"

namespace softgpu::cudart {
namespace {

sanitize::Sanitizer* san() noexcept {
  try {
    sanitize::Sanitizer* s = rt().sanitizer();
    return s && s->options().nvtx ? s : nullptr;
  } catch (...) {
    return nullptr;
  }
}

uint64_t addr(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The i-th element of a batch whose elements are `stride` bytes apart
// (NVTX lets a newer structure be longer; a shorter one is not accepted).
template <class T>
const T* element(const void* base, size_t stride, size_t i) {
  if (!base || stride < sizeof(T)) return nullptr;
  return reinterpret_cast<const T*>(static_cast<const char*>(base) + i * stride);
}

std::string message(uint32_t type, const nvtxMessageValue_t& v) {
  if (type == NVTX_MESSAGE_TYPE_ASCII && v.ascii) return std::string(v.ascii, strnlen(v.ascii, 4096));
  if (type == NVTX_MESSAGE_TYPE_UNICODE && v.unicode) {
    std::string s;  // ASCII code points kept, the others as '?'
    for (size_t i = 0; v.unicode[i] && i < 4096; ++i) s += v.unicode[i] < 0x80 ? char(v.unicode[i]) : '?';
    return s;
  }
  return {};
}

// A region reference: by pointer, or by the handle register gave (its base).
uint64_t region_of(uint32_t ref_type, const nvtxMemRegionRef_t& r) {
  return ref_type == NVTX_MEM_REGION_REF_TYPE_HANDLE ? addr(r.handle) : addr(r.pointer);
}

uint64_t perm_handle(nvtxMemPermissionsHandle_t h) { return addr(h); }

template <class F>
void guarded(F&& f) noexcept {
  try {
    if (sanitize::Sanitizer* s = san()) f(*s, s->nvtx());
  } catch (...) {
  }
}

nvtxMemHeapHandle_t heap_register(nvtxDomainHandle_t, const nvtxMemHeapDesc_t* d) {
  auto out = reinterpret_cast<nvtxMemHeapHandle_t>(intptr_t(-1));  // NVTX_MEM_HEAP_HANDLE_NO_TOOL
  guarded([&](sanitize::Sanitizer&, sanitize::NvtxMemory& m) {
    if (!d || d->type != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
    auto* r = d->typeSpecificDescSize >= sizeof(nvtxMemVirtualRangeDesc_t)
                  ? static_cast<const nvtxMemVirtualRangeDesc_t*>(d->typeSpecificDesc)
                  : nullptr;
    if (!r) return;
    out = reinterpret_cast<nvtxMemHeapHandle_t>(uintptr_t(m.heap_register(addr(r->ptr), r->size)));
    if (d->messageType) m.name(addr(r->ptr), message(d->messageType, d->message));
  });
  return out;
}

void heap_unregister(nvtxDomainHandle_t, nvtxMemHeapHandle_t h) {
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.heap_unregister(addr(h)); });
}

void heap_reset(nvtxDomainHandle_t, nvtxMemHeapHandle_t h) {
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.heap_reset(addr(h)); });
}

void regions_register(nvtxDomainHandle_t, const nvtxMemRegionsRegisterBatch_t* d) {
  guarded([&](auto&, sanitize::NvtxMemory& m) {
    if (!d || d->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
    for (size_t i = 0; i < d->regionCount; ++i) {
      auto* r = element<nvtxMemVirtualRangeDesc_t>(d->regionDescElements, d->regionDescElementSize, i);
      if (!r) return;
      m.region_register(addr(d->heap), addr(r->ptr), r->size);
      if (d->regionHandleElementsOut)
        d->regionHandleElementsOut[i] = reinterpret_cast<nvtxMemRegionHandle_t>(const_cast<void*>(r->ptr));
    }
  });
}

void regions_resize(nvtxDomainHandle_t, const nvtxMemRegionsResizeBatch_t* d) {
  guarded([&](auto&, sanitize::NvtxMemory& m) {
    if (!d || d->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
    for (size_t i = 0; i < d->regionDescCount; ++i)
      if (auto* r = element<nvtxMemVirtualRangeDesc_t>(d->regionDescElements, d->regionDescElementSize, i))
        m.region_resize(addr(r->ptr), r->size);
  });
}

void regions_unregister(nvtxDomainHandle_t, const nvtxMemRegionsUnregisterBatch_t* d) {
  guarded([&](auto&, sanitize::NvtxMemory& m) {
    if (!d) return;
    for (size_t i = 0; i < d->refCount; ++i)
      if (auto* r = element<nvtxMemRegionRef_t>(d->refElements, d->refElementSize, i))
        m.region_unregister(region_of(d->refType, *r));
  });
}

void regions_name(nvtxDomainHandle_t, const nvtxMemRegionsNameBatch_t* d) {
  guarded([&](auto&, sanitize::NvtxMemory& m) {
    if (!d) return;
    for (size_t i = 0; i < d->regionCount; ++i)
      if (auto* r = element<nvtxMemRegionNameDesc_t>(d->regionElements, d->regionElementSize, i))
        m.name(region_of(r->regionRefType, r->region), message(r->nameType, r->name));
  });
}

void permissions_assign(nvtxDomainHandle_t, const nvtxMemPermissionsAssignBatch_t* d) {
  guarded([&](sanitize::Sanitizer& s, sanitize::NvtxMemory& m) {
    if (!d) return;
    for (size_t i = 0; i < d->regionCount; ++i)
      if (auto* r = element<nvtxMemPermissionsAssignRegionDesc_t>(d->regionElements, d->regionElementSize, i)) {
        const uint64_t base = region_of(r->regionRefType, r->region);
        m.permissions_assign(perm_handle(d->permissions), base, s.allocation_size(base), r->flags);
      }
  });
}

nvtxMemPermissionsHandle_t permissions_create(nvtxDomainHandle_t, int32_t flags) {
  auto out = reinterpret_cast<nvtxMemPermissionsHandle_t>(intptr_t(-1));  // NVTX_MEM_PERMISSIONS_HANDLE_NO_TOOL
  guarded([&](auto&, sanitize::NvtxMemory& m) {
    out = reinterpret_cast<nvtxMemPermissionsHandle_t>(uintptr_t(m.permissions_create(uint32_t(flags))));
  });
  return out;
}

void permissions_destroy(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h) {
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.permissions_destroy(perm_handle(h)); });
}

void permissions_reset(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h) {
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.permissions_reset(perm_handle(h)); });
}

void permissions_bind(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t h, uint32_t scope, uint32_t flags) {
  // CPU-thread scope governs host code, which softgpu's sanitizers do not see.
  if (scope != NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM) return;
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.bind(perm_handle(h), flags); });
}

void permissions_unbind(nvtxDomainHandle_t, uint32_t scope) {
  if (scope != NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM) return;
  guarded([&](auto&, sanitize::NvtxMemory& m) { m.unbind(); });
}

nvtxMemPermissionsHandle_t process_wide_permissions(nvtxDomainHandle_t) {
  return reinterpret_cast<nvtxMemPermissionsHandle_t>(uintptr_t(sanitize::NvtxMemory::kProcessWide));
}

nvtxMemPermissionsHandle_t device_wide_permissions(nvtxDomainHandle_t, int device) {
  return reinterpret_cast<nvtxMemPermissionsHandle_t>(uintptr_t(sanitize::NvtxMemory::device_wide(device)));
}

void set_peer_access(nvtxDomainHandle_t, nvtxMemPermissionsHandle_t, int, uint32_t) {}  // one device: no peers

void mark_initialized(nvtxDomainHandle_t, cudaStream_t, uint8_t, const nvtxMemMarkInitializedBatch_t* d) {
  guarded([&](sanitize::Sanitizer& s, auto&) {
    if (!d || d->regionType != NVTX_MEM_TYPE_VIRTUAL_ADDRESS) return;
    for (size_t i = 0; i < d->regionDescCount; ++i)
      if (auto* r = element<nvtxMemVirtualRangeDesc_t>(d->regionDescElements, d->regionDescElementSize, i))
        s.mark_initialized(addr(r->ptr), r->size);
  });
}

template <class F>
intptr_t slot(F* f) {
  return reinterpret_cast<intptr_t>(f);
}

}  // namespace
}  // namespace softgpu::cudart

// NVTX's entry point for extension modules (nvtxDetail/nvtxExtInit.h):
// fills the memory module's function slots; 0 declines (NVTX then makes
// every call a no-op), as for other modules and when no sanitizer reads NVTX.
extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t* info) {
  using namespace softgpu::cudart;
  if (!info || !san()) return 0;
  if (info->moduleId != NVTX_EXT_MODULEID_MEM || info->compatId != NVTX_EXT_COMPATID_MEM) return 0;
  const intptr_t fns[] = {
      slot(heap_register),          slot(heap_unregister),     slot(heap_reset),
      slot(regions_register),       slot(regions_resize),      slot(regions_unregister),
      slot(regions_name),           slot(permissions_assign),  slot(permissions_create),
      slot(permissions_destroy),    slot(permissions_reset),   slot(permissions_bind),
      slot(permissions_unbind),     slot(process_wide_permissions), slot(device_wide_permissions),
      slot(set_peer_access),        slot(mark_initialized),
  };
  static_assert(NVTX3EXT_CBID_nvtxMemCudaMarkInitialized + 1 == sizeof(fns) / sizeof(fns[0]));
  for (size_t s = 0; s < info->segmentsCount; ++s) {
    nvtxExtModuleSegment_t& seg = info->segments[s];
    if (seg.segmentId != 1) continue;  // the memory module has one segment
    for (size_t i = 0; i < seg.slotCount && i < sizeof(fns) / sizeof(fns[0]); ++i) seg.functionSlots[i] = fns[i];
  }
  return 1;
}
