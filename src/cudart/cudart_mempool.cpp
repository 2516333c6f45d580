// libcudart.so.13 C ABI: stream-ordered allocation, memory pools and graph
// memory nodes, marshalled onto softgpu::runtime (src/runtime/mempool.cpp,
// src/runtime/graph_memory.cpp, src/runtime/graph.cpp).
#include <cstring>
#include <vector>

#include "cudart/cudart_internal.h"
#include "runtime/graph.h"

using namespace softgpu;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using runtime::GraphNodeSpec;

extern "C" {
cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t stream);
cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t stream);
cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream);
}

namespace {

// cudaMemPoolProps -> PoolProps; the reserved bytes must be zero.
Status to_props(const cudaMemPoolProps& p, runtime::PoolProps* out) {
  for (unsigned char b : p.reserved)
    if (b) return Status::InvalidValue;
  if (p.win32SecurityAttributes) return Status::InvalidValue;
  out->alloc_type = static_cast<int>(p.allocType);
  out->handle_types = static_cast<int>(p.handleTypes);
  out->location_type = static_cast<int>(p.location.type);
  out->location_id = p.location.id;
  out->max_size = p.maxSize;
  return Status::Success;
}

// Only device 0 has pinned pools of the device-pool kind (cudaMem*MemPool).
Status check_location(const cudaMemLocation* loc, cudaMemAllocationType type) {
  if (!loc) return Status::InvalidValue;
  if (type == cudaMemAllocationTypeManaged) return Status::NotSupported;
  if (type != cudaMemAllocationTypePinned) return Status::InvalidValue;
  if (loc->type != cudaMemLocationTypeDevice) return Status::NotSupported;  // host default pools: not modelled
  return loc->id == 0 ? Status::Success : Status::InvalidValue;
}

}  // namespace

// ---------------------------------------------------------------- allocation

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t stream) {
  return call([&] { return rt().malloc_async(devPtr, size, nullptr, stream); });
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return call([&] {
    if (!memPool) return Status::InvalidValue;
    return rt().malloc_async(ptr, size, memPool, stream);
  });
}

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t stream) {
  return call([&] { return rt().free_async(devPtr, stream); });
}

cudaError_t cudaMallocAsync_ptsz(void** devPtr, size_t size, cudaStream_t stream) {
  return cudaMallocAsync(devPtr, size, stream);
}
cudaError_t cudaFreeAsync_ptsz(void* devPtr, cudaStream_t stream) { return cudaFreeAsync(devPtr, stream); }
cudaError_t cudaMallocFromPoolAsync_ptsz(void** ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
  return cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}

// ---------------------------------------------------------------- pools

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* memPool, int device) {
  return call([&] { return rt().mempool_default(reinterpret_cast<void**>(memPool), device); });
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* memPool, int device) {
  return call([&] { return rt().mempool_current(reinterpret_cast<void**>(memPool), device); });
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
  return call([&] { return rt().mempool_set_current(device, memPool); });
}

cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t* memPool, struct cudaMemLocation* location,
                                     enum cudaMemAllocationType type) {
  return call([&] {
    if (Status s = check_location(location, type); s != Status::Success) return s;
    return rt().mempool_default(reinterpret_cast<void**>(memPool), location->id);
  });
}

cudaError_t cudaMemGetMemPool(cudaMemPool_t* memPool, struct cudaMemLocation* location,
                              enum cudaMemAllocationType type) {
  return call([&] {
    if (Status s = check_location(location, type); s != Status::Success) return s;
    return rt().mempool_current(reinterpret_cast<void**>(memPool), location->id);
  });
}

cudaError_t cudaMemSetMemPool(struct cudaMemLocation* location, enum cudaMemAllocationType type,
                              cudaMemPool_t memPool) {
  return call([&] {
    if (Status s = check_location(location, type); s != Status::Success) return s;
    return rt().mempool_set_current(location->id, memPool);
  });
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* memPool, const struct cudaMemPoolProps* poolProps) {
  return call([&] {
    if (!poolProps) return Status::InvalidValue;
    runtime::PoolProps p;
    if (Status s = to_props(*poolProps, &p); s != Status::Success) return s;
    return rt().mempool_create(reinterpret_cast<void**>(memPool), p);
  });
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
  return call([&] { return rt().mempool_destroy(memPool); });
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return call([&] { return rt().mempool_set_attribute(memPool, static_cast<int>(attr), value); });
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void* value) {
  return call([&] { return rt().mempool_get_attribute(memPool, static_cast<int>(attr), value); });
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
  return call([&] { return rt().mempool_trim(memPool, minBytesToKeep); });
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc* descList, size_t count) {
  return call([&] {
    if (count && !descList) return Status::InvalidValue;
    std::vector<runtime::MemAccess> d(count);
    for (size_t i = 0; i < count; ++i)
      d[i] = {static_cast<int>(descList[i].location.type), descList[i].location.id,
              static_cast<int>(descList[i].flags)};
    return rt().mempool_set_access(memPool, d.data(), count);
  });
}

cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags* flags, cudaMemPool_t memPool,
                                 struct cudaMemLocation* location) {
  return call([&] {
    if (!flags || !location) return Status::InvalidValue;
    int f = 0;
    Status s = rt().mempool_get_access(&f, memPool, static_cast<int>(location->type), location->id);
    if (s == Status::Success) *flags = static_cast<cudaMemAccessFlags>(f);
    return s;
  });
}

// ---------------------------------------------------------------- graph memory nodes

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies,
                                     struct cudaMemAllocNodeParams* nodeParams) {
  return call([&] {
    if (!nodeParams || !pGraphNode || nodeParams->bytesize == 0) return Status::InvalidValue;
    if (nodeParams->accessDescCount && !nodeParams->accessDescs) return Status::InvalidValue;
    runtime::PoolProps props;
    if (Status s = to_props(nodeParams->poolProps, &props); s != Status::Success) return s;
    // One device, pinned, no IPC; access is read-write for device 0 only.
    if (props.alloc_type != cudaMemAllocationTypePinned || props.handle_types != 0) return Status::InvalidValue;
    if (props.location_type != cudaMemLocationTypeDevice) return Status::InvalidValue;
    if (props.location_id != 0) return Status::InvalidValue;
    for (size_t i = 0; i < nodeParams->accessDescCount; ++i) {
      const cudaMemAccessDesc& d = nodeParams->accessDescs[i];
      if (d.location.type != cudaMemLocationTypeDevice || d.location.id != 0 ||
          d.flags != cudaMemAccessFlagsProtReadWrite)
        return Status::InvalidValue;
    }
    GraphNodeSpec n;
    n.type = GraphNodeSpec::MemAlloc;
    n.width = nodeParams->bytesize;
    n.pool = props;
    Status s = rt().graph_add_node(reinterpret_cast<void**>(pGraphNode), graph,
                                   reinterpret_cast<void* const*>(pDependencies), numDependencies, n);
    if (s != Status::Success) return s;
    GraphNodeSpec got;
    if (Status g = rt().graph_node_get(*pGraphNode, &got); g != Status::Success) return g;
    nodeParams->dptr = got.dst;
    return Status::Success;
  });
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams* params_out) {
  return call([&] {
    if (!params_out) return Status::InvalidValue;
    GraphNodeSpec s;
    if (Status st = rt().graph_node_get(node, &s); st != Status::Success) return st;
    if (s.type != GraphNodeSpec::MemAlloc) return Status::InvalidValue;
    std::memset(params_out, 0, sizeof(*params_out));
    params_out->poolProps.allocType = static_cast<cudaMemAllocationType>(s.pool.alloc_type);
    params_out->poolProps.handleTypes = static_cast<cudaMemAllocationHandleType>(s.pool.handle_types);
    params_out->poolProps.location.type = static_cast<cudaMemLocationType>(s.pool.location_type);
    params_out->poolProps.location.id = s.pool.location_id;
    params_out->poolProps.maxSize = s.pool.max_size;
    params_out->accessDescs = nullptr;  // device 0's read-write access is implicit
    params_out->accessDescCount = 0;
    params_out->bytesize = s.width;
    params_out->dptr = s.dst;
    return Status::Success;
  });
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dptr) {
  return call([&] {
    if (!dptr) return Status::InvalidValue;
    GraphNodeSpec n;
    n.type = GraphNodeSpec::MemFree;
    n.dst = dptr;
    return rt().graph_add_node(reinterpret_cast<void**>(pGraphNode), graph,
                               reinterpret_cast<void* const*>(pDependencies), numDependencies, n);
  });
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
  return call([&] {
    if (!dptr_out) return Status::InvalidValue;
    GraphNodeSpec s;
    if (Status st = rt().graph_node_get(node, &s); st != Status::Success) return st;
    if (s.type != GraphNodeSpec::MemFree) return Status::InvalidValue;
    *static_cast<void**>(dptr_out) = s.dst;
    return Status::Success;
  });
}

cudaError_t cudaDeviceGraphMemTrim(int device) {
  return call([&] { return rt().graph_mem_trim(device); });
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value) {
  return call([&] {
    return rt().graph_mem_get_attribute(device, static_cast<int>(attr), static_cast<uint64_t*>(value));
  });
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void* value) {
  return call([&] {
    return rt().graph_mem_set_attribute(device, static_cast<int>(attr), static_cast<const uint64_t*>(value));
  });
}
