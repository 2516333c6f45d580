// The facade's stream-ordered allocation entry points (cudaMallocAsync,
// cudaFreeAsync, cudaMemPool*, cudaDeviceGraphMem*): prologue, stream
// validation and capture hooks (graph.cpp) around the StreamOrderedMemory
// component (mempool.h).
#include "runtime/mempool.h"
#include "runtime/graph.h"
#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

Status Runtime::malloc_async(void** out, size_t size, void* pool, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  MemPool* p = pools_->find_pool(pool);
  if (!p) return finish(Status::InvalidValue);
  if (auto c = graphs_->capture_malloc_async(out, size, p->props, stream)) return finish(*c);  // graph.cpp
  if (size == 0) {  // as cudaMalloc: success, no allocation
    *out = nullptr;
    return Status::Success;
  }
  return finish(pools_->pool_allocate(out, size, *p));
}

Status Runtime::free_async(void* p, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_free_async(p, stream)) return finish(*c);  // graph.cpp
  if (!p) return Status::Success;  // pairs with cudaMallocAsync(&p, 0)
  if (auto s = pools_->free_stream_ordered(p)) return finish(*s);
  return finish(Status::InvalidValue);  // not a pool or graph allocation
}

Status Runtime::mempool_default(void** out, int device) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_default(out, device));
}

Status Runtime::mempool_current(void** out, int device) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_current(out, device));
}

Status Runtime::mempool_set_current(int device, void* pool) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_set_current(device, pool));
}

Status Runtime::mempool_create(void** out, const PoolProps& props) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_create(out, props));
}

Status Runtime::mempool_destroy(void* pool) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_destroy(pool));
}

Status Runtime::mempool_set_attribute(void* pool, int attr, const void* value) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_set_attribute(pool, attr, value));
}

Status Runtime::mempool_get_attribute(void* pool, int attr, void* value) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_get_attribute(pool, attr, value));
}

Status Runtime::mempool_trim(void* pool, size_t keep) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_trim(pool, keep));
}

Status Runtime::mempool_set_access(void* pool, const MemAccess* descs, size_t count) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_set_access(pool, descs, count));
}

Status Runtime::mempool_get_access(int* flags, void* pool, int location_type, int location_id) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->mempool_get_access(flags, pool, location_type, location_id));
}

Status Runtime::graph_mem_trim(int device) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->graph_mem_trim(device));
}

Status Runtime::graph_mem_get_attribute(int device, int attr, uint64_t* value) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->graph_mem_get_attribute(device, attr, value));
}

Status Runtime::graph_mem_set_attribute(int device, int attr, const uint64_t* value) {
  SOFTGPU_API_BEGIN(true);
  return finish(pools_->graph_mem_set_attribute(device, attr, value));
}

}  // namespace softgpu::runtime
