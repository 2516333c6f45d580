// CUDA graphs and stream capture (src/runtime/graph.cpp). A graph is a DAG
// of nodes; an executable graph is a snapshot of it in a topological order.
// Launching one replays the nodes through the ordinary Runtime calls
// (launch, memcpy, memcpy_2d, memset), so a graph behaves exactly like the
// same work issued to the stream one call after another. Memory alloc/free
// nodes are replayed by graph_memory.cpp (see mempool.h).
//
// Capture: a capture sequence starts on its origin stream; another stream
// joins it by waiting on an event recorded in it, and each member stream
// keeps its own dependency set, so forks and joins through events become
// graph edges. EndCapture on the origin requires every joined stream to have
// been joined back (cudaErrorStreamCaptureUnjoined otherwise).
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/runtime.h"

namespace softgpu::runtime {

inline constexpr Status kStreamCaptureUnsupported = Status::StreamCaptureUnsupported;
inline constexpr Status kStreamCaptureInvalidated = Status::StreamCaptureInvalidated;
inline constexpr Status kStreamCaptureImplicit = Status::StreamCaptureImplicit;
inline constexpr Status kIllegalState = Status::IllegalState;
inline constexpr Status kGraphExecUpdateFailure = Status::GraphExecUpdateFailure;

// One node's work, with the numbering of cudaGraphNodeType.
struct GraphNodeSpec {
  enum Type : int { Kernel = 0, Memcpy = 1, Memset = 2, Host = 3, Empty = 5, MemAlloc = 10, MemFree = 11 } type = Empty;
  // Kernel: on input `args` (one pointer per parameter, as for a launch);
  // stored as the packed parameter bytes and each parameter's offset.
  const void* kernel = nullptr;
  Dim3 grid, block;
  size_t shared_bytes = 0;
  void** args = nullptr;
  std::vector<uint8_t> param_bytes;
  std::vector<uint32_t> param_offsets;
  // Memcpy: `depth` slices of `height` rows of `width` bytes. Pitches are
  // the row strides; slice strides are pitch * rows-per-slice.
  void* dst = nullptr;
  const void* src = nullptr;
  size_t width = 0, height = 1, depth = 1;
  size_t dpitch = 0, spitch = 0, dslice_rows = 0, sslice_rows = 0;
  CopyKind kind = CopyKind::Default;
  // Memset (dst, dpitch, width in elements, height): value of element_size bytes.
  unsigned value = 0, element_size = 1;
  // Host.
  HostCallback fn = nullptr;
  void* user = nullptr;
  // MemAlloc: `width` bytes from a pool described by `pool`; the node's
  // address (fixed at creation) is `dst`. MemFree: frees `dst`.
  PoolProps pool;
};

// Capture status, numbered as cudaStreamCaptureStatus.
enum class CaptureStatus : int { None = 0, Active = 1, Invalidated = 2 };

// cudaGraphExecUpdate outcome, numbered as cudaGraphExecUpdateResult.
enum class ExecUpdateResult : int { Success = 0, Error = 1, TopologyChanged = 2, NodeTypeChanged = 3,
                                    FunctionChanged = 4, ParametersChanged = 5, NotSupported = 6 };

}  // namespace softgpu::runtime
