// Memory pools and stream-ordered allocation (cudaMallocAsync, cudaFreeAsync,
// cudaMallocFromPoolAsync, cudaMemPool*). See mempool.h for the model.
#include "runtime/mempool.h"

#include <algorithm>


namespace softgpu::runtime {

using exec::MemKind;

StreamOrderedMemory::StreamOrderedMemory(exec::DeviceMemory* memory) : memory_(memory) {
  auto p = std::make_unique<MemPool>();
  p->is_default = true;
  st_.default_pool = st_.current = p.get();
  st_.pools.emplace(p.get(), std::move(p));
}

namespace {
using PoolTable = std::unordered_map<const void*, std::unique_ptr<MemPool>>;
MemPool* find_in(PoolTable& pools, const void* h) {
  auto it = pools.find(h);
  return it == pools.end() ? nullptr : it->second.get();
}
void raise(uint64_t& high, uint64_t v) { high = std::max(high, v); }
}  // namespace

MemPool* StreamOrderedMemory::find_pool(const void* pool) { return pool ? find_in(st_.pools, pool) : st_.current; }

// Releases cached blocks, largest first, while the pool holds more than
// `keep` bytes, never dropping below `keep` (cudaMemPoolTrimTo's guarantee).
void StreamOrderedMemory::pool_release_cached(MemPool& pool, uint64_t keep) {
  auto& st = st_;
  for (auto it = pool.cached.end(); it != pool.cached.begin();) {
    --it;
    if (pool.reserved <= keep) break;
    if (pool.reserved - it->first < keep) continue;
    memory_->release(DeviceAddr{it->second}, {pool.kind});
    st.blocks.erase(it->second);
    pool.reserved -= it->first;
    it = pool.cached.erase(it);
  }
}

Status StreamOrderedMemory::pool_allocate(void** out, size_t size, MemPool& pool) {
  auto& st = st_;
  const uint64_t r = stream_alloc_round(size);
  if (r < size) return Status::MemoryAllocation;  // overflow
  uint64_t base = 0, bytes = 0;
  if (auto it = pool.cached.lower_bound(r); it != pool.cached.end() && it->first / 2 <= r) {
    bytes = it->first;
    base = it->second;
    pool.cached.erase(it);
    st.blocks[base].live = true;
    memory_->renew(DeviceAddr{base});  // fresh memory again for sanitizers
  } else {
    const uint64_t cap = pool.props.max_size ? pool.props.max_size : memory_->capacity().value;
    if (pool.reserved + r > cap) pool_release_cached(pool, 0);
    if (pool.reserved + r > cap) return Status::MemoryAllocation;
    auto a = memory_->allocate(Bytes{r}, pool.kind, "cudaMallocAsync");
    if (!a) {
      // Out of memory: give every pool's cached blocks back and retry once.
      for (auto& [h, p] : st.pools) pool_release_cached(*p, 0);
      a = memory_->allocate(Bytes{r}, pool.kind, "cudaMallocAsync");
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
  memory_->note_pool_block(DeviceAddr{base}, true);
  *out = exec::DeviceMemory::host_ptr(DeviceAddr{base});
  return Status::Success;
}

std::optional<Status> StreamOrderedMemory::free_stream_ordered(void* p) {
  auto& st = st_;
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
      memory_->note_pool_block(DeviceAddr{a}, false);
      return Status::Success;
    }
    memory_->release(DeviceAddr{a}, {pool.kind});
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
    memory_->note_pool_block(DeviceAddr{a}, false);
    return Status::Success;
  }
  return std::nullopt;
}

void StreamOrderedMemory::mempool_synchronized() {
  for (auto& [h, p] : st_.pools)
    if (!p->cached.empty()) pool_release_cached(*p, p->release_threshold);
}

void StreamOrderedMemory::mempool_reset() {
  auto& st = st_;  // device memory is already gone: forget every block
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

Status StreamOrderedMemory::mempool_default(void** out, int device) {
  if (!out) return Status::InvalidValue;
  if (device != 0) return Status::InvalidDevice;
  *out = st_.default_pool;
  return Status::Success;
}

Status StreamOrderedMemory::mempool_current(void** out, int device) {
  if (!out) return Status::InvalidValue;
  if (device != 0) return Status::InvalidDevice;
  *out = st_.current;
  return Status::Success;
}

Status StreamOrderedMemory::mempool_set_current(int device, void* pool) {
  if (device != 0) return Status::InvalidDevice;
  MemPool* p = find_in(st_.pools, pool);
  if (!p || p->kind != MemKind::Device) return Status::InvalidValue;  // must be local to the device
  st_.current = p;
  return Status::Success;
}

Status StreamOrderedMemory::mempool_create(void** out, const PoolProps& props) {
  if (!out) return Status::InvalidValue;
  if (props.alloc_type == 2) return Status::NotSupported;  // managed pools are not modelled
  if (props.alloc_type != 1) return Status::InvalidValue;
  MemKind kind = MemKind::Device;
  switch (props.location_type) {
    case 1:  // device
      if (props.location_id != 0) return Status::InvalidValue;
      if (props.handle_types != 0) return Status::NotSupported;  // IPC export is not modelled
      break;
    case 3: return Status::NotSupported;  // host NUMA: the device reports no NUMA configuration
    case 2:  // host
      if (props.handle_types != 0) return Status::InvalidValue;
      kind = MemKind::Pinned;
      break;
    default: return Status::InvalidValue;  // invalid, HostNumaCurrent
  }
  auto p = std::make_unique<MemPool>();
  p->props = props;
  p->kind = kind;
  p->access = kind == MemKind::Device ? 3 : 0;
  *out = p.get();
  st_.pools.emplace(p.get(), std::move(p));
  return Status::Success;
}

Status StreamOrderedMemory::mempool_destroy(void* pool) {
  auto& st = st_;
  auto it = st.pools.find(pool);
  if (it == st.pools.end() || it->second->is_default) return Status::InvalidValue;
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

Status StreamOrderedMemory::mempool_set_attribute(void* pool, int attr, const void* value) {
  MemPool* p = find_in(st_.pools, pool);
  if (!p || !value) return Status::InvalidValue;
  const int iv = *static_cast<const int*>(value);
  const uint64_t uv = attr >= 4 && attr <= 8 ? *static_cast<const uint64_t*>(value) : 0;
  switch (attr) {
    case 1: p->reuse_follow_events = iv != 0; break;
    case 2: p->reuse_opportunistic = iv != 0; break;
    case 3: p->reuse_internal_deps = iv != 0; break;
    case 4: p->release_threshold = uv; break;
    case 6:  // high watermarks can only be reset (to the current value) with 0
      if (uv != 0) return Status::InvalidValue;
      p->reserved_high = p->reserved;
      break;
    case 8:
      if (uv != 0) return Status::InvalidValue;
      p->used_high = p->used;
      break;
    default: return Status::InvalidValue;  // 5, 7 are read-only
  }
  return Status::Success;
}

Status StreamOrderedMemory::mempool_get_attribute(void* pool, int attr, void* value) {
  MemPool* p = find_in(st_.pools, pool);
  if (!p || !value) return Status::InvalidValue;
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
    default: return Status::InvalidValue;
  }
  return Status::Success;
}

Status StreamOrderedMemory::mempool_trim(void* pool, size_t keep) {
  MemPool* p = find_in(st_.pools, pool);
  if (!p) return Status::InvalidValue;
  pool_release_cached(*p, keep);
  return Status::Success;
}

Status StreamOrderedMemory::mempool_set_access(void* pool, const MemAccess* descs, size_t count) {
  MemPool* p = find_in(st_.pools, pool);
  if (!p || (count && !descs)) return Status::InvalidValue;
  // Validate all first: a failing call changes nothing.
  for (size_t i = 0; i < count; ++i) {
    const MemAccess& d = descs[i];
    if (d.location_type != 1) return Status::InvalidValue;  // access is granted to devices
    if (d.location_id != 0) return Status::InvalidValue;
    if (d.flags != 0 && d.flags != 1 && d.flags != 3) return Status::InvalidValue;
    // A device pool's own device always has read-write access.
    if (p->kind == MemKind::Device && d.flags != 3) return Status::InvalidValue;
  }
  for (size_t i = 0; i < count; ++i) p->access = descs[i].flags;
  return Status::Success;
}

Status StreamOrderedMemory::mempool_get_access(int* flags, void* pool, int location_type, int location_id) {
  MemPool* p = find_in(st_.pools, pool);
  if (!p || !flags) return Status::InvalidValue;
  if (location_type != 1) return Status::InvalidValue;
  if (location_id != 0) return Status::InvalidValue;
  *flags = p->access;
  return Status::Success;
}

}  // namespace softgpu::runtime
