// Memory pools and stream-ordered allocation (cudaMallocAsync, cudaFreeAsync,
// cudaMallocFromPoolAsync, cudaMemPool*). See mempool.h for the model.
#include "runtime/mempool.h"

#include <algorithm>

#include "runtime/graph.h"
#include "runtime/memory_manager.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

using exec::MemKind;

Runtime::StreamAllocState& Runtime::salloc() {
  if (!salloc_) {
    salloc_ = {new StreamAllocState, [](StreamAllocState* s) { delete s; }};
    auto p = std::make_unique<MemPool>();
    p->is_default = true;
    salloc_->default_pool = salloc_->current = p.get();
    salloc_->pools.emplace(p.get(), std::move(p));
  }
  return *salloc_;
}

namespace {
using PoolTable = std::unordered_map<const void*, std::unique_ptr<MemPool>>;
MemPool* find_pool(PoolTable& pools, const void* h) {
  auto it = pools.find(h);
  return it == pools.end() ? nullptr : it->second.get();
}
void raise(uint64_t& high, uint64_t v) { high = std::max(high, v); }
}  // namespace

// Releases cached blocks, largest first, while the pool holds more than
// `keep` bytes, never dropping below `keep` (cudaMemPoolTrimTo's guarantee).
void Runtime::pool_release_cached(MemPool& pool, uint64_t keep) {
  auto& st = salloc();
  for (auto it = pool.cached.end(); it != pool.cached.begin();) {
    --it;
    if (pool.reserved <= keep) break;
    if (pool.reserved - it->first < keep) continue;
    mem_->device().release(DeviceAddr{it->second}, {pool.kind});
    st.blocks.erase(it->second);
    pool.reserved -= it->first;
    it = pool.cached.erase(it);
  }
}

Status Runtime::pool_allocate(void** out, size_t size, MemPool& pool) {
  auto& st = salloc();
  const uint64_t r = stream_alloc_round(size);
  if (r < size) return Status::MemoryAllocation;  // overflow
  uint64_t base = 0, bytes = 0;
  if (auto it = pool.cached.lower_bound(r); it != pool.cached.end() && it->first / 2 <= r) {
    bytes = it->first;
    base = it->second;
    pool.cached.erase(it);
    st.blocks[base].live = true;
  } else {
    const uint64_t cap = pool.props.max_size ? pool.props.max_size : mem_->device().capacity().value;
    if (pool.reserved + r > cap) pool_release_cached(pool, 0);
    if (pool.reserved + r > cap) return Status::MemoryAllocation;
    auto a = mem_->device().allocate(Bytes{r}, pool.kind, "cudaMallocAsync");
    if (!a) {
      // Out of memory: give every pool's cached blocks back and retry once.
      for (auto& [h, p] : st.pools) pool_release_cached(*p, 0);
      a = mem_->device().allocate(Bytes{r}, pool.kind, "cudaMallocAsync");
      if (!a) return Status::MemoryAllocation;
    }
    base = a.value().value;
    bytes = r;
    st.blocks[base] = PoolBlock{&pool, r, true};
    pool.reserved += r;
    raise(pool.reserved_high, pool.reserved);
  }
  pool.used += bytes;
  pool.live++;
  raise(pool.used_high, pool.used);
  *out = exec::DeviceMemory::host_ptr(DeviceAddr{base});
  return Status::Success;
}

Status Runtime::malloc_async(void** out, size_t size, void* pool, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  auto& st = salloc();
  MemPool* p = pool ? find_pool(st.pools, pool) : st.current;
  if (!p) return finish(Status::InvalidValue);
  if (auto c = capture_malloc_async(out, size, p->props, stream)) return finish(*c);  // graph.cpp
  if (size == 0) {  // as cudaMalloc: success, no allocation
    *out = nullptr;
    return Status::Success;
  }
  return finish(pool_allocate(out, size, *p));
}

Status Runtime::free_async(void* p, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_free_async(p, stream)) return finish(*c);  // graph.cpp
  if (!p) return Status::Success;  // pairs with cudaMallocAsync(&p, 0)
  if (auto s = free_stream_ordered(p)) return finish(*s);
  return finish(Status::InvalidValue);  // not a pool or graph allocation
}

std::optional<Status> Runtime::free_stream_ordered(void* p) {
  if (!salloc_) return std::nullopt;
  auto& st = *salloc_;
  const uint64_t a = reinterpret_cast<uint64_t>(p);
  if (auto it = st.blocks.find(a); it != st.blocks.end()) {
    PoolBlock& b = it->second;
    if (!b.live) return Status::InvalidValue;  // freed twice
    MemPool& pool = *b.pool;
    b.live = false;
    pool.used -= b.bytes;
    pool.live--;
    if (!pool.destroyed) {
      pool.cached.emplace(b.bytes, a);
      return Status::Success;
    }
    mem_->device().release(DeviceAddr{a}, {pool.kind});
    pool.reserved -= b.bytes;
    st.blocks.erase(it);
    if (pool.live == 0)
      std::erase_if(st.zombies, [&](const std::unique_ptr<MemPool>& z) { return z.get() == &pool; });
    return Status::Success;
  }
  if (auto g = st.graph_allocs.find(a); g != st.graph_allocs.end()) {
    // Only allocations left allocated after a launch can be freed outside a graph.
    if (!g->second.live || g->second.owner_frees) return Status::InvalidValue;
    g->second.live = false;
    st.graph_used -= g->second.bytes;
    return Status::Success;
  }
  return std::nullopt;
}

void Runtime::mempool_synchronized() {
  if (!salloc_) return;
  for (auto& [h, p] : salloc_->pools)
    if (!p->cached.empty()) pool_release_cached(*p, p->release_threshold);
}

void Runtime::mempool_reset() {
  if (!salloc_) return;
  auto& st = *salloc_;  // device memory is already gone: forget every block
  st.blocks.clear();
  st.zombies.clear();
  st.graph_allocs.clear();
  st.graph_used = st.graph_used_high = st.graph_reserved = st.graph_reserved_high = 0;
  for (auto& [h, p] : st.pools) {
    p->cached.clear();
    p->reserved = p->reserved_high = p->used = p->used_high = 0;
    p->live = 0;
  }
}

// ---------------------------------------------------------------- pools

Status Runtime::mempool_default(void** out, int device) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  if (device != 0) return finish(Status::InvalidDevice);
  *out = salloc().default_pool;
  return Status::Success;
}

Status Runtime::mempool_current(void** out, int device) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  if (device != 0) return finish(Status::InvalidDevice);
  *out = salloc().current;
  return Status::Success;
}

Status Runtime::mempool_set_current(int device, void* pool) {
  SOFTGPU_API_BEGIN(true);
  if (device != 0) return finish(Status::InvalidDevice);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p || p->kind != MemKind::Device) return finish(Status::InvalidValue);  // must be local to the device
  salloc().current = p;
  return Status::Success;
}

Status Runtime::mempool_create(void** out, const PoolProps& props) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  if (props.alloc_type == 2) return finish(Status::NotSupported);  // managed pools are not modelled
  if (props.alloc_type != 1) return finish(Status::InvalidValue);
  MemKind kind = MemKind::Device;
  switch (props.location_type) {
    case 1:  // device
      if (props.location_id != 0) return finish(Status::InvalidValue);
      if (props.handle_types != 0) return finish(Status::NotSupported);  // IPC export is not modelled
      break;
    case 3: return finish(Status::NotSupported);  // host NUMA: the device reports no NUMA configuration
    case 2:  // host
      if (props.handle_types != 0) return finish(Status::InvalidValue);
      kind = MemKind::Pinned;
      break;
    default: return finish(Status::InvalidValue);  // invalid, HostNumaCurrent
  }
  auto p = std::make_unique<MemPool>();
  p->props = props;
  p->kind = kind;
  p->access = kind == MemKind::Device ? 3 : 0;
  *out = p.get();
  salloc().pools.emplace(p.get(), std::move(p));
  return Status::Success;
}

Status Runtime::mempool_destroy(void* pool) {
  SOFTGPU_API_BEGIN(true);
  auto& st = salloc();
  auto it = st.pools.find(pool);
  if (it == st.pools.end() || it->second->is_default) return finish(Status::InvalidValue);
  MemPool& p = *it->second;
  if (st.current == &p) st.current = st.default_pool;
  pool_release_cached(p, 0);
  if (p.live) {  // released when the last block is freed
    p.destroyed = true;
    st.zombies.push_back(std::move(it->second));
  }
  st.pools.erase(it);
  return Status::Success;
}

Status Runtime::mempool_set_attribute(void* pool, int attr, const void* value) {
  SOFTGPU_API_BEGIN(true);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p || !value) return finish(Status::InvalidValue);
  const int iv = *static_cast<const int*>(value);
  const uint64_t uv = attr >= 4 && attr <= 8 ? *static_cast<const uint64_t*>(value) : 0;
  switch (attr) {
    case 1: p->reuse_follow_events = iv != 0; break;
    case 2: p->reuse_opportunistic = iv != 0; break;
    case 3: p->reuse_internal_deps = iv != 0; break;
    case 4: p->release_threshold = uv; break;
    case 6:  // high watermarks can only be reset (to the current value) with 0
      if (uv != 0) return finish(Status::InvalidValue);
      p->reserved_high = p->reserved;
      break;
    case 8:
      if (uv != 0) return finish(Status::InvalidValue);
      p->used_high = p->used;
      break;
    default: return finish(Status::InvalidValue);  // 5, 7 are read-only
  }
  return Status::Success;
}

Status Runtime::mempool_get_attribute(void* pool, int attr, void* value) {
  SOFTGPU_API_BEGIN(true);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p || !value) return finish(Status::InvalidValue);
  auto* iv = static_cast<int*>(value);
  auto* uv = static_cast<uint64_t*>(value);
  switch (attr) {
    case 1: *iv = p->reuse_follow_events; break;
    case 2: *iv = p->reuse_opportunistic; break;
    case 3: *iv = p->reuse_internal_deps; break;
    case 4: *uv = p->release_threshold; break;
    case 5: *uv = p->reserved; break;
    case 6: *uv = p->reserved_high; break;
    case 7: *uv = p->used; break;
    case 8: *uv = p->used_high; break;
    default: return finish(Status::InvalidValue);
  }
  return Status::Success;
}

Status Runtime::mempool_trim(void* pool, size_t keep) {
  SOFTGPU_API_BEGIN(true);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p) return finish(Status::InvalidValue);
  pool_release_cached(*p, keep);
  return Status::Success;
}

Status Runtime::mempool_set_access(void* pool, const MemAccess* descs, size_t count) {
  SOFTGPU_API_BEGIN(true);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p || (count && !descs)) return finish(Status::InvalidValue);
  // Validate all first: a failing call changes nothing.
  for (size_t i = 0; i < count; ++i) {
    const MemAccess& d = descs[i];
    if (d.location_type != 1) return finish(Status::InvalidValue);  // access is granted to devices
    if (d.location_id != 0) return finish(Status::InvalidValue);
    if (d.flags != 0 && d.flags != 1 && d.flags != 3) return finish(Status::InvalidValue);
    // A device pool's own device always has read-write access.
    if (p->kind == MemKind::Device && d.flags != 3) return finish(Status::InvalidValue);
  }
  for (size_t i = 0; i < count; ++i) p->access = descs[i].flags;
  return Status::Success;
}

Status Runtime::mempool_get_access(int* flags, void* pool, int location_type, int location_id) {
  SOFTGPU_API_BEGIN(true);
  MemPool* p = find_pool(salloc().pools, pool);
  if (!p || !flags) return finish(Status::InvalidValue);
  if (location_type != 1) return finish(Status::InvalidValue);
  if (location_id != 0) return finish(Status::InvalidValue);
  *flags = p->access;
  return Status::Success;
}

}  // namespace softgpu::runtime
