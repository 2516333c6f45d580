// Graph memory: the blocks behind graph allocation nodes, their state across
// launches, and the device's graph-memory attributes. See mempool.h.
#include <algorithm>

#include "runtime/mempool.h"

namespace softgpu::runtime {

namespace {
void raise(uint64_t& high, uint64_t v) { high = std::max(high, v); }
}  // namespace

Status StreamOrderedMemory::graph_mem_create(uint64_t bytes, exec::MemKind kind, const void* owner, uint64_t* out) {
  auto& st = st_;
  const uint64_t r = stream_alloc_round(bytes);
  if (bytes == 0 || r < bytes) return Status::InvalidValue;
  // Reuse a cached block (no graph refers to it any more) of a close size.
  auto best = st.graph_allocs.end();
  for (auto it = st.graph_allocs.begin(); it != st.graph_allocs.end(); ++it) {
    const GraphAlloc& g = it->second;
    if (g.refs || g.live || !g.foreign_frees.empty() || g.kind != kind || g.bytes < r || g.bytes / 2 > r) continue;
    if (best == st.graph_allocs.end() || g.bytes < best->second.bytes) best = it;
  }
  if (best != st.graph_allocs.end()) {
    GraphAlloc& g = best->second;
    g.requested = bytes;
    g.refs = 1;
    g.owner = owner;
    g.owner_frees = false;
    *out = best->first;
    return Status::Success;
  }
  auto a = memory_->allocate(Bytes{r}, kind, "graph allocation");
  if (!a) {
    graph_mem_trim_cached();
    for (auto& [h, p] : st.pools) pool_release_cached(*p, 0);
    a = memory_->allocate(Bytes{r}, kind, "graph allocation");
    if (!a) return Status::MemoryAllocation;
  }
  GraphAlloc g;
  g.bytes = r;
  g.requested = bytes;
  g.kind = kind;
  g.refs = 1;
  g.owner = owner;
  st.graph_allocs.emplace(a.value().value, std::move(g));
  memory_->note_pool_block(a.value(), false);  // reserved; the program's once a launch allocates it
  st.graph_reserved += r;
  raise(st.graph_reserved_high, st.graph_reserved);
  *out = a.value().value;
  return Status::Success;
}

void StreamOrderedMemory::graph_mem_retain(uint64_t addr) {
  auto& st = st_;
  if (auto it = st.graph_allocs.find(addr); it != st.graph_allocs.end()) it->second.refs++;
}

void StreamOrderedMemory::graph_mem_release(uint64_t addr, const void* graph) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end()) return;
  if (it->second.refs > 0) it->second.refs--;
  if (graph && it->second.owner == graph) it->second.owner = nullptr;
}

void StreamOrderedMemory::graph_mem_trim_cached() {
  auto& st = st_;
  for (auto it = st.graph_allocs.begin(); it != st.graph_allocs.end();) {
    const GraphAlloc& g = it->second;
    if (g.refs || g.live || !g.foreign_frees.empty()) {
      ++it;
      continue;
    }
    memory_->release(DeviceAddr{it->first}, {g.kind});
    st.graph_reserved -= g.bytes;
    it = st.graph_allocs.erase(it);
  }
}

Status StreamOrderedMemory::graph_mem_add_free(uint64_t addr, const void* graph, bool alloc_is_ancestor) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end()) return Status::InvalidValue;  // not returned by an alloc node
  GraphAlloc& g = it->second;
  if (g.owner_frees) return Status::InvalidValue;  // already freed in its own graph
  if (graph == g.owner) {
    // Freed in the owning graph: once, after its alloc node, and not also elsewhere.
    if (!g.foreign_frees.empty() || !alloc_is_ancestor) return Status::InvalidValue;
    g.owner_frees = true;
  } else {
    if (g.foreign_frees.count(graph)) return Status::InvalidValue;  // twice in one graph
    g.foreign_frees.insert(graph);
  }
  return Status::Success;
}

void StreamOrderedMemory::graph_mem_drop_free(uint64_t addr, const void* graph) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end()) return;
  if (auto f = it->second.foreign_frees.find(graph); f != it->second.foreign_frees.end())
    it->second.foreign_frees.erase(f);
}

bool StreamOrderedMemory::graph_mem_owned_by(uint64_t addr, const void* graph) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  return it != st.graph_allocs.end() && it->second.owner == graph;
}

Status StreamOrderedMemory::graph_mem_prelaunch(uint64_t addr, bool auto_free) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end()) return Status::InvalidValue;
  if (!it->second.live) return Status::Success;
  // Still allocated from an earlier launch (cudaGraphLaunch: cudaErrorInvalidValue).
  if (!auto_free) return Status::InvalidValue;
  it->second.live = false;
  st.graph_used -= it->second.bytes;
  memory_->note_pool_block(DeviceAddr{addr}, false);
  return Status::Success;
}

Status StreamOrderedMemory::graph_mem_launch_alloc(uint64_t addr) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end() || it->second.live) return Status::InvalidValue;
  it->second.live = true;
  memory_->renew(DeviceAddr{addr});  // fresh memory at each launch for sanitizers
  memory_->note_pool_block(DeviceAddr{addr}, true);
  st.graph_used += it->second.bytes;
  raise(st.graph_used_high, st.graph_used);
  return Status::Success;
}

Status StreamOrderedMemory::graph_mem_launch_free(uint64_t addr) {
  auto& st = st_;
  auto it = st.graph_allocs.find(addr);
  if (it == st.graph_allocs.end() || !it->second.live) return Status::InvalidValue;  // not allocated now
  it->second.live = false;
  memory_->note_pool_block(DeviceAddr{addr}, false);
  st.graph_used -= it->second.bytes;
  return Status::Success;
}

Status StreamOrderedMemory::graph_mem_node(GraphNodeSpec& spec, const void* graph, bool alloc_precedes) {
  const uint64_t a = reinterpret_cast<uint64_t>(spec.dst);
  if (spec.type == GraphNodeSpec::MemFree) return graph_mem_add_free(a, graph, alloc_precedes);
  if (spec.width == 0) return Status::InvalidValue;
  exec::MemKind kind = spec.pool.location_type == 1 ? exec::MemKind::Device : exec::MemKind::Pinned;
  uint64_t addr = 0;
  if (Status s = graph_mem_create(spec.width, kind, graph, &addr); s != Status::Success) return s;
  spec.dst = exec::DeviceMemory::host_ptr(DeviceAddr{addr});
  return Status::Success;
}

// ---------------------------------------------------------------- device attributes

Status StreamOrderedMemory::graph_mem_trim(int device) {
  if (device != 0) return Status::InvalidValue;  // the documented code for this call
  graph_mem_trim_cached();
  return Status::Success;
}

Status StreamOrderedMemory::graph_mem_get_attribute(int device, int attr, uint64_t* value) {
  if (device != 0) return Status::InvalidDevice;
  if (!value) return Status::InvalidValue;
  auto& st = st_;
  switch (attr) {
    case 0: *value = st.graph_used; break;
    case 1: *value = st.graph_used_high; break;
    case 2: *value = st.graph_reserved; break;
    case 3: *value = st.graph_reserved_high; break;
    default: return Status::InvalidValue;
  }
  return Status::Success;
}

Status StreamOrderedMemory::graph_mem_set_attribute(int device, int attr, const uint64_t* value) {
  if (device != 0) return Status::InvalidDevice;
  if (!value || *value != 0) return Status::InvalidValue;  // high watermarks reset to 0 only
  auto& st = st_;
  switch (attr) {
    case 1: st.graph_used_high = st.graph_used; break;
    case 3: st.graph_reserved_high = st.graph_reserved; break;
    default: return Status::InvalidValue;  // the current values are read-only
  }
  return Status::Success;
}

}  // namespace softgpu::runtime
