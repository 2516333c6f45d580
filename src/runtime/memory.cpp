// Memory API: allocation, copies, memset, pointer queries. Device addresses
// are host addresses (see common/types.h), so a checked copy is a memmove.
#include <cstdio>
#include <cstring>

#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

using exec::MemKind;

namespace {
// Status values outside the shared enum (numbers from cudaError_t).
constexpr Status kHostMemoryAlreadyRegistered = static_cast<Status>(712);
constexpr Status kHostMemoryNotRegistered = static_cast<Status>(713);

bool valid_kind(CopyKind k) { return static_cast<int>(k) >= 0 && static_cast<int>(k) <= 4; }

// A host-side write of device memory (copy, memset) the host may not be able
// to back: MemoryAllocation, with a message naming the allocation.
Status host_can_back(exec::DeviceMemory& m, const void* dst, size_t n, const char* what) {
  std::string why;
  Status s = m.prepare_write(dst, n, what, &why);
  if (s != Status::Success) {
    std::fflush(stdout);
    std::fprintf(stderr, "softgpu: %s\n", why.c_str());
  }
  return s;
}
}  // namespace

// [p, p+n) must lie inside one live allocation of any kind.
Status Runtime::check_device_range(const void* p, size_t n) {
  if (!p) return Status::InvalidValue;
  if (!memory_->contains(DeviceAddr{reinterpret_cast<uint64_t>(p)}, Bytes{n})) return Status::InvalidValue;
  return Status::Success;
}

Status Runtime::malloc(void** out, size_t size) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  auto a = memory_->allocate(Bytes{size}, MemKind::Device);
  if (!a) return finish(a.error().status == Status::Success ? Status::MemoryAllocation : a.error().status);
  *out = exec::DeviceMemory::host_ptr(a.value());
  return Status::Success;
}

Status Runtime::malloc_managed(void** out, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  // cudaMemAttachGlobal = 1, cudaMemAttachHost = 2; size 0 is invalid for managed memory.
  if (!out || size == 0 || (flags != 1 && flags != 2)) return finish(Status::InvalidValue);
  auto a = memory_->allocate(Bytes{size}, MemKind::Managed);
  if (!a) return finish(Status::MemoryAllocation);
  *out = exec::DeviceMemory::host_ptr(a.value());
  return Status::Success;
}

Status Runtime::host_alloc(void** out, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  // cudaHostAllocPortable 1 | Mapped 2 | WriteCombined 4
  if (!out || (flags & ~0x7u)) return finish(Status::InvalidValue);
  auto a = memory_->allocate(Bytes{size}, MemKind::Pinned);
  if (!a) return finish(Status::MemoryAllocation);
  *out = exec::DeviceMemory::host_ptr(a.value());
  return Status::Success;
}

Status Runtime::free(void* p) {
  SOFTGPU_API_BEGIN(true);
  if (!p) return Status::Success;  // cudaFree(NULL) is a no-op
  if (auto r = free_stream_ordered(p)) return finish(*r);  // mempool.cpp: pool and graph allocations
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Device, MemKind::Managed});
  return finish(s == Status::Success ? s : Status::InvalidValue);
}

Status Runtime::free_host(void* p) {
  SOFTGPU_API_BEGIN(true);
  if (!p) return Status::Success;
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Pinned});
  return finish(s == Status::Success ? s : Status::InvalidValue);
}

Status Runtime::host_register(void* p, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  // Portable 1 | Mapped 2 | IoMemory 4 | ReadOnly 8
  if (!p || size == 0 || (flags & ~0xFu)) return finish(Status::InvalidValue);
  DeviceAddr base{reinterpret_cast<uint64_t>(p)};
  if (memory_->find(base) || memory_->find(base + Bytes{size - 1}))
    return finish(kHostMemoryAlreadyRegistered);
  Status s = memory_->register_external(base, Bytes{size});
  return finish(s);
}

Status Runtime::host_unregister(void* p) {
  SOFTGPU_API_BEGIN(true);
  if (!p) return finish(Status::InvalidValue);
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Registered});
  return finish(s == Status::Success ? s : kHostMemoryNotRegistered);
}

Status Runtime::host_get_device_pointer(void** out, void* host, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  if (!out || !host || flags != 0) return finish(Status::InvalidValue);
  auto a = memory_->find(DeviceAddr{reinterpret_cast<uint64_t>(host)});
  if (!a || (a->kind != MemKind::Pinned && a->kind != MemKind::Registered && a->kind != MemKind::Managed))
    return finish(Status::InvalidValue);
  *out = host;  // one address space: the device sees the host address
  return Status::Success;
}

Status Runtime::do_memcpy(void* dst, const void* src, size_t n, CopyKind kind) {
  if (!valid_kind(kind)) return Status::InvalidMemcpyDirection;
  if (n == 0) return Status::Success;
  if (!dst || !src) return Status::InvalidValue;
  // The device side of an explicit direction must be inside one allocation;
  // host sides are the program's own memory and cannot be checked.
  if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(dst, n); s != Status::Success) return s;
  if (kind == CopyKind::DeviceToHost || kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(src, n); s != Status::Success) return s;
  if (Status s = host_can_back(*memory_, dst, n, "cudaMemcpy"); s != Status::Success) return s;
  std::memmove(dst, src, n);
  if (timing_) {
    auto dev = [&](const void* p) { return memory_->contains(DeviceAddr{uint64_t(p)}, Bytes{1}); };
    CopyKind k = kind;
    if (k == CopyKind::Default)
      k = dev(dst) ? (dev(src) ? CopyKind::DeviceToDevice : CopyKind::HostToDevice)
                   : (dev(src) ? CopyKind::DeviceToHost : CopyKind::HostToHost);
    timing_->copy(k == CopyKind::HostToDevice   ? timing::CopyPath::HostToDevice
                  : k == CopyKind::DeviceToHost ? timing::CopyPath::DeviceToHost
                  : k == CopyKind::DeviceToDevice ? timing::CopyPath::DeviceToDevice
                                                  : timing::CopyPath::HostToHost,
                  n);
  }
  return Status::Success;
}

Status Runtime::memcpy(void* dst, const void* src, size_t n, CopyKind kind, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_memcpy(dst, src, n, kind, stream)) return finish(*c);  // graph.cpp
  return finish(do_memcpy(dst, src, n, kind));
}

Status Runtime::memcpy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                          CopyKind kind, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_forbid(stream)) return finish(*c);  // graph.cpp: not capturable yet
  if (!valid_kind(kind)) return finish(Status::InvalidMemcpyDirection);
  if (width > dpitch || width > spitch) return finish(Status::InvalidPitchValue);
  if (width == 0 || height == 0) return Status::Success;
  if (!dst || !src) return finish(Status::InvalidValue);
  // Check the whole span each side touches once, then copy row by row.
  size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(dst, dspan); s != Status::Success) return finish(s);
  if (kind == CopyKind::DeviceToHost || kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(src, sspan); s != Status::Success) return finish(s);
  if (Status s = host_can_back(*memory_, dst, dspan, "cudaMemcpy2D"); s != Status::Success) return finish(s);
  auto* d = static_cast<std::byte*>(dst);
  auto* s = static_cast<const std::byte*>(src);
  for (size_t r = 0; r < height; ++r) std::memmove(d + r * dpitch, s + r * spitch, width);
  return Status::Success;
}

Status Runtime::memset(void* dst, int value, size_t n, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_memset(dst, value, n, stream)) return finish(*c);  // graph.cpp
  if (n == 0) return Status::Success;
  if (Status s = check_device_range(dst, n); s != Status::Success) return finish(s);
  if (Status s = host_can_back(*memory_, dst, n, "cudaMemset"); s != Status::Success) return finish(s);
  std::memset(dst, value, n);
  return Status::Success;
}

Status Runtime::memset_2d(void* dst, size_t pitch, int value, size_t width, size_t height, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_forbid(stream)) return finish(*c);  // graph.cpp: not capturable yet
  if (width > pitch) return finish(Status::InvalidPitchValue);
  if (width == 0 || height == 0) return Status::Success;
  if (Status s = check_device_range(dst, pitch * (height - 1) + width); s != Status::Success) return finish(s);
  if (Status s = host_can_back(*memory_, dst, pitch * (height - 1) + width, "cudaMemset2D"); s != Status::Success)
    return finish(s);
  for (size_t r = 0; r < height; ++r) std::memset(static_cast<std::byte*>(dst) + r * pitch, value, width);
  return Status::Success;
}

Status Runtime::mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  SOFTGPU_API_BEGIN(true);
  if (!free_bytes || !total_bytes) return finish(Status::InvalidValue);
  uint64_t cap = memory_->capacity().value, used = memory_->used().value;
  *total_bytes = cap;
  *free_bytes = used < cap ? cap - used : 0;
  return Status::Success;
}

Status Runtime::pointer_info(const void* p, PointerInfo* out) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  *out = PointerInfo{};
  auto a = p ? memory_->find(DeviceAddr{reinterpret_cast<uint64_t>(p)}) : std::nullopt;
  if (!a) return Status::Success;  // CUDA 11+: unregistered memory is not an error
  void* q = const_cast<void*>(p);
  switch (a->kind) {
    case MemKind::Managed: *out = {PointerInfo::Managed, 0, q, q}; break;
    case MemKind::Pinned:
    case MemKind::Registered: *out = {PointerInfo::Host, 0, q, q}; break;
    default: *out = {PointerInfo::Device, 0, q, nullptr}; break;
  }
  return Status::Success;
}

Status Runtime::prefetch(const void* p, size_t n, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (n == 0) return Status::Success;
  return finish(check_device_range(p, n));  // memory is already where both sides see it
}

// ---------------------------------------------------------------- symbols

Status Runtime::symbol_address(void** out, const void* symbol) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  *out = exec::DeviceMemory::host_ptr(v.address);
  return Status::Success;
}

Status Runtime::symbol_size(size_t* out, const void* symbol) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  *out = v.size.value;
  return Status::Success;
}

Status Runtime::memcpy_to_symbol(const void* symbol, const void* src, size_t n, size_t offset, CopyKind kind,
                                 void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (kind != CopyKind::HostToDevice && kind != CopyKind::DeviceToDevice && kind != CopyKind::Default)
    return finish(Status::InvalidMemcpyDirection);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  if (offset > v.size.value || n > v.size.value - offset) return finish(Status::InvalidValue);
  if (n == 0) return Status::Success;
  if (!src) return finish(Status::InvalidValue);
  if (kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(src, n); s != Status::Success) return finish(s);
  std::memmove(exec::DeviceMemory::host_ptr(v.address + Bytes{offset}), src, n);
  return Status::Success;
}

Status Runtime::memcpy_from_symbol(void* dst, const void* symbol, size_t n, size_t offset, CopyKind kind,
                                   void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (kind != CopyKind::DeviceToHost && kind != CopyKind::DeviceToDevice && kind != CopyKind::Default)
    return finish(Status::InvalidMemcpyDirection);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  if (offset > v.size.value || n > v.size.value - offset) return finish(Status::InvalidValue);
  if (n == 0) return Status::Success;
  if (!dst) return finish(Status::InvalidValue);
  if (kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(dst, n); s != Status::Success) return finish(s);
  std::memmove(dst, exec::DeviceMemory::host_ptr(v.address + Bytes{offset}), n);
  return Status::Success;
}

}  // namespace softgpu::runtime
