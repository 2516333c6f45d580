// libcudart.so.13 C ABI: CUDA graphs and stream capture, marshalled onto
// softgpu::runtime (src/runtime/graph.cpp holds the logic).
#include "cudart/cudart_internal.h"
#include "runtime/graph.h"

#include <fmt/core.h>

using namespace softgpu;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using softgpu::cudart::to_dim;
using softgpu::cudart::to_kind;
using runtime::GraphNodeSpec;

extern "C" {
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* pGraph);
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                          unsigned long long* id_out, cudaGraph_t* graph_out,
                                          const cudaGraphNode_t** dependencies_out,
                                          const cudaGraphEdgeData** edgeData_out, size_t* numDependencies_out);
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream);
}

namespace {

void** vp(void* p) { return static_cast<void**>(p); }

GraphNodeSpec kernel_spec(const cudaKernelNodeParams& p) {
  GraphNodeSpec s;
  s.type = GraphNodeSpec::Kernel;
  s.kernel = p.func;
  s.grid = to_dim(p.gridDim);
  s.block = to_dim(p.blockDim);
  s.shared_bytes = p.sharedMemBytes;
  s.args = p.kernelParams;
  return s;
}

Status check_kernel_params(const cudaKernelNodeParams* p) {
  if (!p) return Status::InvalidValue;
  if (p->extra) {
    // The "extra" packed-buffer form is not implemented: say so.
    fmt::print(stderr, "softgpu: kernel node parameters in the 'extra' form are not supported; use kernelParams\n");
    return Status::NotSupported;
  }
  return Status::Success;
}

}  // namespace

// ---------------------------------------------------------------- capture

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  return call([&] { return rt().stream_begin_capture(stream, static_cast<int>(mode)); });
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* pGraph) {
  return call([&] { return rt().stream_end_capture(stream, vp(pGraph)); });
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  return call([&] {
    if (!pCaptureStatus) return Status::InvalidValue;
    runtime::CaptureStatus st{};
    Status s = rt().stream_capture_info(stream, &st, nullptr, nullptr);
    if (s == Status::Success) *pCaptureStatus = static_cast<cudaStreamCaptureStatus>(static_cast<int>(st));
    return s;
  });
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                     unsigned long long* id_out, cudaGraph_t* graph_out,
                                     const cudaGraphNode_t** dependencies_out, const cudaGraphEdgeData** edgeData_out,
                                     size_t* numDependencies_out) {
  return call([&] {
    if (!captureStatus_out || (edgeData_out && !dependencies_out)) return Status::InvalidValue;
    runtime::CaptureStatus st{};
    uint64_t id = 0;
    void* g = nullptr;
    void* const* deps = nullptr;
    size_t ndeps = 0;
    Status s = rt().stream_capture_info(stream, &st, &id, &g, &deps, &ndeps);
    if (s != Status::Success) return s;
    *captureStatus_out = static_cast<cudaStreamCaptureStatus>(static_cast<int>(st));
    if (st == runtime::CaptureStatus::None) return Status::Success;  // other outputs undefined
    if (id_out) *id_out = id;
    if (graph_out) *graph_out = static_cast<cudaGraph_t>(g);
    // Only default edges exist: no edge data.
    if (dependencies_out) *dependencies_out = reinterpret_cast<const cudaGraphNode_t*>(deps);
    if (edgeData_out) *edgeData_out = nullptr;
    if (numDependencies_out) *numDependencies_out = ndeps;
    return Status::Success;
  });
}

// ---------------------------------------------------------------- graphs

cudaError_t cudaGraphCreate(cudaGraph_t* pGraph, unsigned int flags) {
  return call([&] { return rt().graph_create(vp(pGraph), flags); });
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
  return call([&] { return rt().graph_destroy(graph); });
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaKernelNodeParams* pNodeParams) {
  return call([&] {
    if (Status s = check_kernel_params(pNodeParams); s != Status::Success) return s;
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, kernel_spec(*pNodeParams));
  });
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams* pNodeParams) {
  return call([&] {
    if (!pNodeParams) return Status::InvalidValue;
    GraphNodeSpec s;
    if (Status st = rt().graph_node_get(node, &s); st != Status::Success) return st;
    if (s.type != GraphNodeSpec::Kernel) return Status::InvalidValue;
    pNodeParams->func = const_cast<void*>(s.kernel);
    pNodeParams->gridDim = dim3(s.grid.x, s.grid.y, s.grid.z);
    pNodeParams->blockDim = dim3(s.block.x, s.block.y, s.block.z);
    pNodeParams->sharedMemBytes = static_cast<unsigned>(s.shared_bytes);
    pNodeParams->kernelParams = s.args;
    pNodeParams->extra = nullptr;
    return Status::Success;
  });
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams* pNodeParams) {
  return call([&] {
    if (Status s = check_kernel_params(pNodeParams); s != Status::Success) return s;
    return rt().graph_node_set(node, kernel_spec(*pNodeParams));
  });
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaMemcpy3DParms* p) {
  return call([&] {
    if (!p) return Status::InvalidValue;
    if (p->srcArray || p->dstArray) {
      fmt::print(stderr, "softgpu: memcpy graph nodes on CUDA arrays are not supported\n");
      return Status::NotSupported;
    }
    // Pitched pointers: x offsets in bytes, y in rows, z in slices of ysize rows.
    const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
    GraphNodeSpec n;
    n.type = GraphNodeSpec::Memcpy;
    n.src = static_cast<const char*>(s.ptr) + (p->srcPos.z * s.ysize + p->srcPos.y) * s.pitch + p->srcPos.x;
    n.dst = static_cast<char*>(d.ptr) + (p->dstPos.z * d.ysize + p->dstPos.y) * d.pitch + p->dstPos.x;
    n.width = p->extent.width;
    n.height = p->extent.height;
    n.depth = p->extent.depth;
    n.spitch = s.pitch;
    n.dpitch = d.pitch;
    n.sslice_rows = s.ysize;
    n.dslice_rows = d.ysize;
    n.kind = to_kind(p->kind);
    if (!s.ptr || !d.ptr || n.height == 0 || n.depth == 0 || n.width > s.pitch || n.width > d.pitch)
      return Status::InvalidValue;
    if (n.depth > 1 && (n.height > s.ysize || n.height > d.ysize)) return Status::InvalidValue;
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, n);
  });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t* pDependencies, size_t numDependencies, void* dst,
                                     const void* src, size_t count, enum cudaMemcpyKind kind) {
  return call([&] {
    GraphNodeSpec n;
    n.type = GraphNodeSpec::Memcpy;
    n.dst = dst;
    n.src = src;
    n.width = n.dpitch = n.spitch = count;
    n.kind = to_kind(kind);
    if (!dst || !src) return Status::InvalidValue;
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, n);
  });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                   size_t numDependencies, const struct cudaMemsetParams* p) {
  return call([&] {
    if (!p || !p->dst) return Status::InvalidValue;
    GraphNodeSpec n;
    n.type = GraphNodeSpec::Memset;
    n.dst = p->dst;
    n.dpitch = p->pitch;
    n.value = p->value;
    n.element_size = p->elementSize;
    n.width = p->width;
    n.height = p->height;
    if (n.height > 1 && n.width * n.element_size > n.dpitch) return Status::InvalidValue;
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, n);
  });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                 size_t numDependencies, const struct cudaHostNodeParams* p) {
  return call([&] {
    if (!p) return Status::InvalidValue;
    GraphNodeSpec n;
    n.type = GraphNodeSpec::Host;
    n.fn = p->fn;
    n.user = p->userData;
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, n);
  });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* pGraphNode, cudaGraph_t graph, const cudaGraphNode_t* pDependencies,
                                  size_t numDependencies) {
  return call([&] {
    return rt().graph_add_node(vp(pGraphNode), graph, reinterpret_cast<void* const*>(pDependencies),
                               numDependencies, GraphNodeSpec{});
  });
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from, const cudaGraphNode_t* to,
                                     const cudaGraphEdgeData* edgeData, size_t numDependencies) {
  return call([&] {
    // Only default edges (no programmatic ports) exist in a synchronous model.
    for (size_t i = 0; edgeData && i < numDependencies; ++i)
      if (edgeData[i].from_port || edgeData[i].to_port || edgeData[i].type) return Status::NotSupported;
    return rt().graph_add_dependencies(graph, reinterpret_cast<void* const*>(from),
                                       reinterpret_cast<void* const*>(to), numDependencies);
  });
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* numNodes) {
  return call([&] { return rt().graph_nodes(graph, reinterpret_cast<void**>(nodes), numNodes); });
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType* pType) {
  return call([&] {
    if (!pType) return Status::InvalidValue;
    GraphNodeSpec s;
    if (Status st = rt().graph_node_get(node, &s); st != Status::Success) return st;
    *pType = static_cast<cudaGraphNodeType>(static_cast<int>(s.type));
    return Status::Success;
  });
}

cudaError_t cudaGraphClone(cudaGraph_t* pGraphClone, cudaGraph_t originalGraph) {
  return call([&] { return rt().graph_clone(vp(pGraphClone), originalGraph); });
}

// ---------------------------------------------------------------- executable graphs

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return call([&] {
    // Auto-free-on-launch (1, runtime/graph.cpp), upload (2), device launch
    // (4), use priority (8): the others do not change synchronous execution,
    // device launch is not modelled.
    if (flags & ~0xBull) return Status::InvalidValue;
    return rt().graph_instantiate(vp(pGraphExec), graph, flags);
  });
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* pGraphExec, cudaGraph_t graph, unsigned long long flags) {
  return cudaGraphInstantiate(pGraphExec, graph, flags);
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
  return call([&] { return rt().graph_exec_destroy(graphExec); });
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams* pNodeParams) {
  return call([&] {
    if (Status s = check_kernel_params(pNodeParams); s != Status::Success) return s;
    return rt().graph_exec_set_node(hGraphExec, node, kernel_spec(*pNodeParams));
  });
}

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphExecUpdateResultInfo* info) {
  return call([&] {
    runtime::ExecUpdateResult r = runtime::ExecUpdateResult::Error;
    Status s = rt().graph_exec_update(hGraphExec, hGraph, &r);
    if (info) {
      info->result = static_cast<cudaGraphExecUpdateResult>(static_cast<int>(r));
      info->errorNode = nullptr;
      info->errorFromNode = nullptr;
    }
    return s;
  });
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return call([&] { return rt().graph_launch(graphExec, stream); });
}

// Per-thread default stream aliases: execution is synchronous, so they are
// the same call.
cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
  return cudaStreamBeginCapture(stream, mode);
}
cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* pGraph) {
  return cudaStreamEndCapture(stream, pGraph);
}
cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus* pCaptureStatus) {
  return cudaStreamIsCapturing(stream, pCaptureStatus);
}
cudaError_t cudaStreamGetCaptureInfo_ptsz(cudaStream_t stream, enum cudaStreamCaptureStatus* captureStatus_out,
                                          unsigned long long* id_out, cudaGraph_t* graph_out,
                                          const cudaGraphNode_t** dependencies_out,
                                          const cudaGraphEdgeData** edgeData_out, size_t* numDependencies_out) {
  return cudaStreamGetCaptureInfo(stream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                                  numDependencies_out);
}
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream) {
  return cudaGraphLaunch(graphExec, stream);
}
