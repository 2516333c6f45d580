// Stream capture and executable graphs: the driver API over the runtime's
// graphs (cudart_graph.cpp). A CUgraph is a cudaGraph_t, a CUgraphExec a
// cudaGraphExec_t; the capture modes and statuses have the same numbers.
#include <cstddef>

#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::per_thread;
using softgpu::cudadrv::rt;

static_assert(int(CU_STREAM_CAPTURE_MODE_RELAXED) == int(cudaStreamCaptureModeRelaxed));
static_assert(int(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == int(cudaStreamCaptureModeThreadLocal));
static_assert(int(CU_GRAPH_NODE_TYPE_MEM_FREE) == int(cudaGraphNodeTypeMemFree));
static_assert(int(CU_GRAPH_NODE_TYPE_CONDITIONAL) == int(cudaGraphNodeTypeConditional));
static_assert(sizeof(CUgraphEdgeData) == sizeof(cudaGraphEdgeData));

namespace {
CUresult begin(CUstream s, CUstreamCaptureMode mode) {
  return guarded([&] { return rt(cudaStreamBeginCapture(s, static_cast<cudaStreamCaptureMode>(mode))); });
}
CUresult end(CUstream s, CUgraph* graph) {
  return guarded([&] { return rt(cudaStreamEndCapture(s, reinterpret_cast<cudaGraph_t*>(graph))); });
}
CUresult launch(CUgraphExec exec, CUstream s) {
  return guarded([&] { return rt(cudaGraphLaunch(reinterpret_cast<cudaGraphExec_t>(exec), s)); });
}
auto graph(CUgraph g) { return reinterpret_cast<cudaGraph_t>(g); }
auto nodes(const CUgraphNode* n) { return reinterpret_cast<const cudaGraphNode_t*>(n); }
auto node_out(CUgraphNode* n) { return reinterpret_cast<cudaGraphNode_t*>(n); }

CUresult instantiate(CUgraphExec* exec, CUgraph g, unsigned long long flags) {
  return rt(cudaGraphInstantiateWithFlags(reinterpret_cast<cudaGraphExec_t*>(exec), graph(g), flags));
}

// The CUDA 10.0 and 11.0 ABI (what cuGraphInstantiate meant before 12.0):
// an error node and a log, which softgpu leaves empty.
CUresult instantiate_logged(CUgraphExec* exec, CUgraph g, CUgraphNode* err_node, char* log, size_t log_size) {
  return guarded([&] {
    if (err_node) *err_node = nullptr;
    if (log && log_size) log[0] = 0;
    return instantiate(exec, g, 0);
  });
}

CUresult instantiate_params(CUgraphExec* exec, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p) {
  return guarded([&] {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    p->hErrNode_out = nullptr;
    CUresult r = instantiate(exec, g, p->flags & ~cuuint64_t(CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD));
    // An upload (hUploadStream) has nothing to do: graphs run from host memory.
    p->result_out = r == CUDA_SUCCESS ? CUDA_GRAPH_INSTANTIATE_SUCCESS : CUDA_GRAPH_INSTANTIATE_ERROR;
    return r;
  });
}

// A driver kernel node's parameters as the runtime's: softgpu's runtime
// takes a CUfunction where it takes a kernel (launch.cpp does the same).
CUresult kernel_params(const CUDA_KERNEL_NODE_PARAMS* in, cudaKernelNodeParams* out) {
  if (!in) return CUDA_ERROR_INVALID_VALUE;
  CUfunction f = in->func;
  if (!f && in->kern)
    if (CUresult r = cuKernelGetFunction(&f, in->kern); r != CUDA_SUCCESS) return r;
  *out = cudaKernelNodeParams{};
  out->func = reinterpret_cast<void*>(f);
  out->gridDim = dim3(in->gridDimX, in->gridDimY, in->gridDimZ);
  out->blockDim = dim3(in->blockDimX, in->blockDimY, in->blockDimZ);
  out->sharedMemBytes = in->sharedMemBytes;
  out->kernelParams = in->kernelParams;
  out->extra = in->extra;
  return CUDA_SUCCESS;
}

CUresult capture_info(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g, const CUgraphNode** deps,
                      const CUgraphEdgeData** edges, size_t* n) {
  return guarded([&] {
    return rt(cudaStreamGetCaptureInfo(s, reinterpret_cast<cudaStreamCaptureStatus*>(status),
                                       reinterpret_cast<unsigned long long*>(id), reinterpret_cast<cudaGraph_t*>(g),
                                       reinterpret_cast<const cudaGraphNode_t**>(deps),
                                       reinterpret_cast<const cudaGraphEdgeData**>(edges), n));
  });
}
}  // namespace

CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode) { return begin(hStream, mode); }

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph* phGraph) { return end(hStream, phGraph); }

CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode* mode) {
  return guarded(
      [&] { return rt(cudaThreadExchangeStreamCaptureMode(reinterpret_cast<cudaStreamCaptureMode*>(mode))); });
}

CUresult CUDAAPI cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
  return guarded([&] { return rt(cudaGraphCreate(reinterpret_cast<cudaGraph_t*>(phGraph), flags)); });
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph) {
  return guarded([&] { return rt(cudaGraphDestroy(reinterpret_cast<cudaGraph_t>(hGraph))); });
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags) {
  return guarded([&] {
    return rt(cudaGraphInstantiateWithFlags(reinterpret_cast<cudaGraphExec_t*>(phGraphExec),
                                            reinterpret_cast<cudaGraph_t>(hGraph), flags));
  });
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) { return launch(hGraphExec, hStream); }

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec) {
  return guarded([&] { return rt(cudaGraphExecDestroy(reinterpret_cast<cudaGraphExec_t>(hGraphExec))); });
}

extern "C" {
CUresult CUDAAPI cuGraphInstantiate_v1(CUgraphExec* e, CUgraph g, CUgraphNode* n, char* log, size_t size)
    __asm__("cuGraphInstantiate");
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec* e, CUgraph g, CUgraphNode* n, char* log, size_t size);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                           const CUgraphNode** deps, size_t* n);
}
CUresult CUDAAPI cuGraphInstantiate_v1(CUgraphExec* e, CUgraph g, CUgraphNode* n, char* log, size_t size) {
  return instantiate_logged(e, g, n, log, size);
}
CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec* e, CUgraph g, CUgraphNode* n, char* log, size_t size) {
  return instantiate_logged(e, g, n, log, size);
}

CUresult CUDAAPI cuGraphInstantiateWithParams(CUgraphExec* phGraphExec, CUgraph hGraph,
                                              CUDA_GRAPH_INSTANTIATE_PARAMS* instantiateParams) {
  return instantiate_params(phGraphExec, hGraph, instantiateParams);
}

CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus* status, cuuint64_t* id,
                                        CUgraph* graph_out, const CUgraphNode** deps, const CUgraphEdgeData** edges,
                                        size_t* n) {
  return capture_info(hStream, status, id, graph_out, deps, edges, n);
}

// CUDA 11.3's form, without the edges.
CUresult CUDAAPI cuStreamGetCaptureInfo_v2(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                           const CUgraphNode** deps, size_t* n) {
  return capture_info(s, status, id, g, deps, nullptr, n);
}

CUresult CUDAAPI cuGraphGetNodes(CUgraph hGraph, CUgraphNode* out, size_t* numNodes) {
  return guarded([&] { return rt(cudaGraphGetNodes(graph(hGraph), node_out(out), numNodes)); });
}

CUresult CUDAAPI cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
  return guarded([&] {
    return rt(cudaGraphNodeGetType(reinterpret_cast<cudaGraphNode_t>(hNode), reinterpret_cast<cudaGraphNodeType*>(type)));
  });
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n) {
  return guarded([&] { return rt(cudaGraphAddEmptyNode(node_out(phNode), graph(hGraph), nodes(deps), n)); });
}

CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                                        const CUgraphEdgeData* edgeData, size_t n) {
  return guarded([&] {
    return rt(cudaGraphAddDependencies(graph(hGraph), nodes(from), nodes(to),
                                       reinterpret_cast<const cudaGraphEdgeData*>(edgeData), n));
  });
}

CUresult CUDAAPI cuGraphClone(CUgraph* phGraphClone, CUgraph original) {
  return guarded([&] { return rt(cudaGraphClone(reinterpret_cast<cudaGraph_t*>(phGraphClone), graph(original))); });
}

// A memcpy node: the driver's 3-D copy description as the runtime's. The
// context is the one device's.
CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                      const CUDA_MEMCPY3D* copyParams, CUcontext) {
  return guarded([&] {
    cudaMemcpy3DParms p{};
    if (CUresult r = softgpu::cudadrv::memcpy3d_params(copyParams, &p); r != CUDA_SUCCESS) return r;
    return rt(cudaGraphAddMemcpyNode(node_out(phNode), graph(hGraph), nodes(deps), n, &p));
  });
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                      const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    cudaKernelNodeParams p;
    if (CUresult r = kernel_params(nodeParams, &p); r != CUDA_SUCCESS) return r;
    return rt(cudaGraphAddKernelNode(node_out(phNode), graph(hGraph), nodes(deps), n, &p));
  });
}

CUresult CUDAAPI cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    cudaKernelNodeParams p{};
    if (CUresult r = rt(cudaGraphKernelNodeGetParams(reinterpret_cast<cudaGraphNode_t>(hNode), &p)); r != CUDA_SUCCESS)
      return r;
    *nodeParams = CUDA_KERNEL_NODE_PARAMS{};
    nodeParams->func = static_cast<CUfunction>(p.func);
    nodeParams->gridDimX = p.gridDim.x, nodeParams->gridDimY = p.gridDim.y, nodeParams->gridDimZ = p.gridDim.z;
    nodeParams->blockDimX = p.blockDim.x, nodeParams->blockDimY = p.blockDim.y, nodeParams->blockDimZ = p.blockDim.z;
    nodeParams->sharedMemBytes = p.sharedMemBytes;
    nodeParams->kernelParams = p.kernelParams;
    nodeParams->extra = p.extra;
    nodeParams->kern = reinterpret_cast<CUkernel>(p.func);  // one handle for both here (module.cpp)
    nodeParams->ctx = softgpu::cudadrv::Driver::get().primary();
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    cudaKernelNodeParams p;
    if (CUresult r = kernel_params(nodeParams, &p); r != CUDA_SUCCESS) return r;
    return rt(cudaGraphKernelNodeSetParams(reinterpret_cast<cudaGraphNode_t>(hNode), &p));
  });
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hExec, CUgraphNode hNode,
                                                const CUDA_KERNEL_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    cudaKernelNodeParams p;
    if (CUresult r = kernel_params(nodeParams, &p); r != CUDA_SUCCESS) return r;
    return rt(cudaGraphExecKernelNodeSetParams(reinterpret_cast<cudaGraphExec_t>(hExec),
                                               reinterpret_cast<cudaGraphNode_t>(hNode), &p));
  });
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                      const CUDA_MEMSET_NODE_PARAMS* memsetParams, CUcontext) {
  return guarded([&] {
    if (!memsetParams) return CUDA_ERROR_INVALID_VALUE;
    cudaMemsetParams p{};
    p.dst = softgpu::cudadrv::ptr(memsetParams->dst);
    p.pitch = memsetParams->pitch;
    p.value = memsetParams->value;
    p.elementSize = memsetParams->elementSize;
    p.width = memsetParams->width;
    p.height = memsetParams->height;
    return rt(cudaGraphAddMemsetNode(node_out(phNode), graph(hGraph), nodes(deps), n, &p));
  });
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                    const CUDA_HOST_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    cudaHostNodeParams p{nodeParams->fn, nodeParams->userData};
    return rt(cudaGraphAddHostNode(node_out(phNode), graph(hGraph), nodes(deps), n, &p));
  });
}

static_assert(sizeof(CUgraphExecUpdateResultInfo) == sizeof(cudaGraphExecUpdateResultInfo) &&
              int(CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED) == int(cudaGraphExecUpdateErrorAttributesChanged));
CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphExecUpdateResultInfo* resultInfo) {
  return guarded([&] {
    return rt(cudaGraphExecUpdate(reinterpret_cast<cudaGraphExec_t>(hGraphExec), graph(hGraph),
                                  reinterpret_cast<cudaGraphExecUpdateResultInfo*>(resultInfo)));
  });
}

// Graph memory: the runtime's pools and attributes (the enums have the
// same numbers).
static_assert(int(CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH) == int(cudaGraphMemAttrReservedMemHigh));
CUresult CUDAAPI cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void* value) {
  return guarded([&] {
    return rt(cudaDeviceGetGraphMemAttribute(device, static_cast<cudaGraphMemAttributeType>(attr), value));
  });
}

CUresult CUDAAPI cuDeviceSetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr, void* value) {
  return guarded([&] {
    return rt(cudaDeviceSetGraphMemAttribute(device, static_cast<cudaGraphMemAttributeType>(attr), value));
  });
}

CUresult CUDAAPI cuDeviceGraphMemTrim(CUdevice device) {
  return guarded([&] { return rt(cudaDeviceGraphMemTrim(device)); });
}

// Memory nodes: the driver's and the runtime's parameters have one layout.
static_assert(sizeof(CUDA_MEM_ALLOC_NODE_PARAMS) == sizeof(cudaMemAllocNodeParams) &&
              offsetof(CUDA_MEM_ALLOC_NODE_PARAMS, dptr) == offsetof(cudaMemAllocNodeParams, dptr) &&
              offsetof(CUDA_MEM_ALLOC_NODE_PARAMS, accessDescs) == offsetof(cudaMemAllocNodeParams, accessDescs) &&
              sizeof(CUmemPoolProps) == sizeof(cudaMemPoolProps) && sizeof(CUmemAccessDesc) == sizeof(cudaMemAccessDesc));

CUresult CUDAAPI cuGraphAddMemAllocNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                        CUDA_MEM_ALLOC_NODE_PARAMS* nodeParams) {
  return guarded([&] {
    return rt(cudaGraphAddMemAllocNode(node_out(phNode), graph(hGraph), nodes(deps), n,
                                       reinterpret_cast<cudaMemAllocNodeParams*>(nodeParams)));
  });
}

CUresult CUDAAPI cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS* params_out) {
  return guarded([&] {
    return rt(cudaGraphMemAllocNodeGetParams(reinterpret_cast<cudaGraphNode_t>(hNode),
                                             reinterpret_cast<cudaMemAllocNodeParams*>(params_out)));
  });
}

CUresult CUDAAPI cuGraphAddMemFreeNode(CUgraphNode* phNode, CUgraph hGraph, const CUgraphNode* deps, size_t n,
                                       CUdeviceptr dptr) {
  return guarded([&] {
    return rt(cudaGraphAddMemFreeNode(node_out(phNode), graph(hGraph), nodes(deps), n,
                                      softgpu::cudadrv::ptr(dptr)));
  });
}

CUresult CUDAAPI cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr* dptr_out) {
  return guarded([&] {
    if (!dptr_out) return CUDA_ERROR_INVALID_VALUE;
    void* p = nullptr;
    if (CUresult r = rt(cudaGraphMemFreeNodeGetParams(reinterpret_cast<cudaGraphNode_t>(hNode), &p)); r != CUDA_SUCCESS)
      return r;
    *dptr_out = softgpu::cudadrv::dptr(p);
    return CUDA_SUCCESS;
  });
}

// ---------------------------------------------------------------- per-thread default stream variants

extern "C" {
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode);
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream s, CUgraph* graph);
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec exec, CUstream s);
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec* e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p);
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                                const CUgraphNode** deps, const CUgraphEdgeData** edges, size_t* n);
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                                const CUgraphNode** deps, size_t* n);
}
CUresult CUDAAPI cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode) { return begin(per_thread(s), mode); }
CUresult CUDAAPI cuStreamEndCapture_ptsz(CUstream s, CUgraph* graph) { return end(per_thread(s), graph); }
CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec exec, CUstream s) { return launch(exec, per_thread(s)); }
CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(CUgraphExec* e, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS* p) {
  return instantiate_params(e, g, p);
}
CUresult CUDAAPI cuStreamGetCaptureInfo_v3_ptsz(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                                const CUgraphNode** deps, const CUgraphEdgeData** edges, size_t* n) {
  return capture_info(per_thread(s), status, id, g, deps, edges, n);
}
CUresult CUDAAPI cuStreamGetCaptureInfo_v2_ptsz(CUstream s, CUstreamCaptureStatus* status, cuuint64_t* id, CUgraph* g,
                                                const CUgraphNode** deps, size_t* n) {
  return capture_info(per_thread(s), status, id, g, deps, nullptr, n);
}
