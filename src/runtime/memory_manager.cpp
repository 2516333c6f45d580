// The memory component (runtime/memory_manager.h). Device addresses are
// host addresses (see common/types.h), so a checked copy is a memmove.
#include "runtime/memory_manager.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

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

MemoryManager::MemoryManager(uint64_t capacity_bytes, uint64_t host_memory_limit)
    : memory_(std::make_unique<exec::DeviceMemory>(Bytes{capacity_bytes}, host_memory_limit)) {}

Status MemoryManager::check_range(const void* p, size_t n) const {
  if (!p) return Status::InvalidValue;
  if (!memory_->contains(DeviceAddr{reinterpret_cast<uint64_t>(p)}, Bytes{n})) return Status::InvalidValue;
  return Status::Success;
}

Status MemoryManager::malloc(void** out, size_t size) {
  if (!out) return Status::InvalidValue;
  auto a = memory_->allocate(Bytes{size}, MemKind::Device);
  if (!a) return a.error().status == Status::Success ? Status::MemoryAllocation : a.error().status;
  *out = exec::DeviceMemory::host_ptr(a.value());
  return Status::Success;
}

Status MemoryManager::malloc_managed(void** out, size_t size, unsigned flags) {
  // cudaMemAttachGlobal = 1, cudaMemAttachHost = 2; size 0 is invalid for managed memory.
  if (!out || size == 0 || (flags != 1 && flags != 2)) return Status::InvalidValue;
  auto a = memory_->allocate(Bytes{size}, MemKind::Managed);
  if (!a) return Status::MemoryAllocation;
  *out = exec::DeviceMemory::host_ptr(a.value());
  return Status::Success;
}

Status MemoryManager::host_alloc(void** out, size_t size, unsigned flags) {
  // cudaHostAllocPortable 1 | Mapped 2 | WriteCombined 4
  if (!out || (flags & ~0x7u)) return Status::InvalidValue;
  auto a = memory_->allocate(Bytes{size}, MemKind::Pinned);
  if (!a) return Status::MemoryAllocation;
  *out = exec::DeviceMemory::host_ptr(a.value());
  host_flags_[reinterpret_cast<uint64_t>(*out)] = flags;
  return Status::Success;
}

Status MemoryManager::host_flags(unsigned* out, void* host) const {
  if (!out || !host) return Status::InvalidValue;
  auto a = memory_->find(DeviceAddr{reinterpret_cast<uint64_t>(host)});
  if (!a || a->kind != MemKind::Pinned) return Status::InvalidValue;
  auto it = host_flags_.find(a->base);
  *out = it == host_flags_.end() ? 0u : it->second;
  return Status::Success;
}

Status MemoryManager::free_device(void* p) {
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Device, MemKind::Managed});
  return s == Status::Success ? s : Status::InvalidValue;
}

Status MemoryManager::free_host(void* p) {
  if (!p) return Status::Success;
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Pinned});
  if (s == Status::Success) host_flags_.erase(reinterpret_cast<uint64_t>(p));
  return s == Status::Success ? s : Status::InvalidValue;
}

Status MemoryManager::host_register(void* p, size_t size, unsigned flags) {
  // Portable 1 | Mapped 2 | IoMemory 4 | ReadOnly 8
  if (!p || size == 0 || (flags & ~0xFu)) return Status::InvalidValue;
  DeviceAddr base{reinterpret_cast<uint64_t>(p)};
  if (memory_->find(base) || memory_->find(base + Bytes{size - 1})) return kHostMemoryAlreadyRegistered;
  return memory_->register_external(base, Bytes{size});
}

Status MemoryManager::host_unregister(void* p) {
  if (!p) return Status::InvalidValue;
  Status s = memory_->release(DeviceAddr{reinterpret_cast<uint64_t>(p)}, {MemKind::Registered});
  return s == Status::Success ? s : kHostMemoryNotRegistered;
}

Status MemoryManager::host_get_device_pointer(void** out, void* host, unsigned flags) {
  if (!out || !host || flags != 0) return Status::InvalidValue;
  auto a = memory_->find(DeviceAddr{reinterpret_cast<uint64_t>(host)});
  if (!a || (a->kind != MemKind::Pinned && a->kind != MemKind::Registered && a->kind != MemKind::Managed))
    return Status::InvalidValue;
  *out = host;  // one address space: the device sees the host address
  return Status::Success;
}

Status MemoryManager::copy(void* dst, const void* src, size_t n, CopyKind kind, bool run) {
  if (!valid_kind(kind)) return Status::InvalidMemcpyDirection;
  if (n == 0) return Status::Success;
  if (!dst || !src) return Status::InvalidValue;
  // The device side of an explicit direction must be inside one allocation;
  // host sides are the program's own memory and cannot be checked.
  if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToDevice)
    if (Status s = check_range(dst, n); s != Status::Success) return s;
  if (kind == CopyKind::DeviceToHost || kind == CopyKind::DeviceToDevice)
    if (Status s = check_range(src, n); s != Status::Success) return s;
  if (!run) return Status::Success;
  memory_->note_read(src, n, "cudaMemcpy");
  if (Status s = host_can_back(*memory_, dst, n, "cudaMemcpy"); s != Status::Success) return s;
  std::memmove(dst, src, n);
  return Status::Success;
}

Status MemoryManager::copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              CopyKind kind, bool run) {
  if (!valid_kind(kind)) return Status::InvalidMemcpyDirection;
  if (width > dpitch || width > spitch) return Status::InvalidPitchValue;
  if (width == 0 || height == 0) return Status::Success;
  if (!dst || !src) return Status::InvalidValue;
  // Check the whole span each side touches once, then copy row by row.
  size_t dspan = dpitch * (height - 1) + width, sspan = spitch * (height - 1) + width;
  if (kind == CopyKind::HostToDevice || kind == CopyKind::DeviceToDevice)
    if (Status s = check_range(dst, dspan); s != Status::Success) return s;
  if (kind == CopyKind::DeviceToHost || kind == CopyKind::DeviceToDevice)
    if (Status s = check_range(src, sspan); s != Status::Success) return s;
  if (!run) return Status::Success;
  if (Status s = host_can_back(*memory_, dst, dspan, "cudaMemcpy2D"); s != Status::Success) return s;
  auto* d = static_cast<std::byte*>(dst);
  auto* s = static_cast<const std::byte*>(src);
  for (size_t r = 0; r < height; ++r) memory_->note_read(s + r * spitch, width, "cudaMemcpy2D");
  for (size_t r = 0; r < height; ++r) std::memmove(d + r * dpitch, s + r * spitch, width);
  return Status::Success;
}

Status MemoryManager::set(void* dst, int value, size_t n, bool run) {
  if (n == 0) return Status::Success;
  if (Status s = check_range(dst, n); s != Status::Success) return s;
  if (!run) return Status::Success;
  if (Status s = host_can_back(*memory_, dst, n, "cudaMemset"); s != Status::Success) return s;
  std::memset(dst, value, n);
  return Status::Success;
}

Status MemoryManager::set_2d(void* dst, size_t pitch, int value, size_t width, size_t height, bool run) {
  if (width > pitch) return Status::InvalidPitchValue;
  if (width == 0 || height == 0) return Status::Success;
  if (Status s = check_range(dst, pitch * (height - 1) + width); s != Status::Success) return s;
  if (!run) return Status::Success;
  if (Status s = host_can_back(*memory_, dst, pitch * (height - 1) + width, "cudaMemset2D"); s != Status::Success)
    return s;
  for (size_t r = 0; r < height; ++r) std::memset(static_cast<std::byte*>(dst) + r * pitch, value, width);
  return Status::Success;
}

Status MemoryManager::set_elements(void* dst, uint32_t value, size_t elem_size, size_t count, bool run) {
  if (elem_size != 1 && elem_size != 2 && elem_size != 4) return Status::InvalidValue;
  if (count == 0) return Status::Success;
  if (reinterpret_cast<uintptr_t>(dst) % elem_size) return Status::InvalidValue;
  if (count > SIZE_MAX / elem_size) return Status::InvalidValue;
  const size_t n = count * elem_size;
  if (Status s = check_range(dst, n); s != Status::Success) return s;
  if (!run) return Status::Success;
  if (Status s = host_can_back(*memory_, dst, n, "cuMemsetD*"); s != Status::Success) return s;
  auto* b = static_cast<std::byte*>(dst);
  for (size_t i = 0; i < count; ++i) std::memcpy(b + i * elem_size, &value, elem_size);  // little-endian low bytes
  return Status::Success;
}

Status MemoryManager::range_of(const void* p, void** base, size_t* size) const {
  auto a = p ? memory_->find(DeviceAddr{reinterpret_cast<uint64_t>(p)}) : std::nullopt;
  if (!a) return Status::NotFound;
  if (base) *base = reinterpret_cast<void*>(a->base);
  if (size) *size = a->size;
  return Status::Success;
}

Status MemoryManager::info(size_t* free_bytes, size_t* total_bytes) const {
  if (!free_bytes || !total_bytes) return Status::InvalidValue;
  uint64_t cap = memory_->capacity().value, used = memory_->used().value;
  *total_bytes = cap;
  *free_bytes = used < cap ? cap - used : 0;
  return Status::Success;
}

Status MemoryManager::pointer_info(const void* p, PointerInfo* out) const {
  if (!out) return Status::InvalidValue;
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

}  // namespace softgpu::runtime
