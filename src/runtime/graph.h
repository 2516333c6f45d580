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
#include <functional>
#include <memory>
#include <optional>
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

// The runtime's graph component: graphs, their nodes, executable graphs and
// capture sequences of one Runtime (which owns it and calls it with its lock
// held). It reaches the other components through what it is given: kernel
// lookups (ModuleRegistry), stream handles (StreamsAndEvents), graph memory
// (StreamOrderedMemory), and the facade's ordinary calls to replay an
// executable graph (so each node's work is checked and recorded as if issued
// one call after another).
class GraphManager {
 public:
  struct Replay {
    std::function<Status(const void* kernel, Dim3 grid, Dim3 block, void** args, size_t shared, void* stream)> launch;
    std::function<Status(void* dst, const void* src, size_t n, CopyKind kind, void* stream)> memcpy;
    std::function<Status(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         CopyKind kind, void* stream)>
        memcpy_2d;
    std::function<Status(void* dst, int value, size_t n, void* stream)> memset;
    std::function<Status(void* dst, size_t pitch, int value, size_t width, size_t height, void* stream)> memset_2d;
    std::function<Status(void* stream, HostCallback fn, void* user)> launch_host_func;
    // Under the timing model (else empty): called before node `node` of
    // executable graph `exec` replays on `stream`, with the positions of its
    // dependencies; then once with node == the node count and deps == null
    // when the launch ends.
    std::function<void(const void* exec, size_t node, const std::vector<uint32_t>* deps, void* stream)> timing_node;
  };
  GraphManager(ModuleRegistry& modules, StreamOrderedMemory& pools, const StreamsAndEvents& streams, Replay replay);
  ~GraphManager();
  GraphManager(const GraphManager&) = delete;
  GraphManager& operator=(const GraphManager&) = delete;

  // The calls of the same names on Runtime (see runtime.h).
  Status graph_create(void** out, unsigned flags);
  Status graph_destroy(void* graph);
  Status graph_add_node(void** out, void* graph, void* const* deps, size_t ndeps, const GraphNodeSpec& spec);
  Status graph_node_get(void* node, GraphNodeSpec* out);
  Status graph_node_set(void* node, const GraphNodeSpec& spec);
  Status graph_add_dependencies(void* graph, void* const* from, void* const* to, size_t n);
  Status graph_nodes(void* graph, void** nodes, size_t* count);
  Status graph_clone(void** out, void* graph);
  Status graph_instantiate(void** out, void* graph, unsigned long long flags);
  Status graph_exec_destroy(void* exec);
  Status graph_exec_set_node(void* exec, void* node, const GraphNodeSpec& spec);
  Status graph_exec_update(void* exec, void* graph, ExecUpdateResult* result);
  Status graph_launch(void* exec, void* stream);
  Status stream_begin_capture(void* stream, int mode);
  Status stream_end_capture(void* stream, void** graph);
  Status stream_capture_info(void* stream, CaptureStatus* status, uint64_t* id, void** graph, void* const** deps,
                             size_t* ndeps);

  // Capture hooks for the issuing calls: nullopt = not captured, run the
  // work; otherwise the call's result (the work was recorded, or refused
  // because capture forbids it).
  std::optional<Status> capture_launch(const void* kernel, Dim3 grid, Dim3 block, void** args, size_t shared,
                                       void* stream);
  std::optional<Status> capture_memcpy(void* dst, const void* src, size_t n, CopyKind kind, void* stream);
  std::optional<Status> capture_memset(void* dst, int value, size_t n, void* stream);
  std::optional<Status> capture_host(void* stream, HostCallback fn, void* user);
  // Work that cannot be captured (synchronization, 2-D copies): refused on a
  // capturing stream, which invalidates its capture.
  std::optional<Status> capture_forbid(void* stream);
  // A potentially unsafe call that is no stream's work (cudaDeviceSynchronize)
  // from a thread whose interaction mode (cudaThreadExchangeStreamCaptureMode)
  // is `thread_mode`: refused with StreamCaptureUnsupported, invalidating the
  // captures that forbid it, while this thread has a capture not begun in
  // relaxed mode or, in global mode, any thread has a global-mode capture.
  std::optional<Status> capture_unsafe_call(int thread_mode);
  // An event recorded on a capturing stream carries the capture's
  // dependencies; a stream waiting on it joins the capture.
  std::optional<Status> capture_event_record(void* event, void* stream);
  std::optional<Status> capture_wait_event(void* stream, void* event);
  void capture_stream_destroyed(void* stream);
  std::optional<Status> capture_malloc_async(void** out, size_t size, const PoolProps& props, void* stream);
  std::optional<Status> capture_free_async(void* p, void* stream);

 private:
  using Kernel = RegisteredKernel;
  struct State;  // graph.cpp
  Status pack_kernel_args(GraphNodeSpec& spec);

  ModuleRegistry& modules_;
  StreamOrderedMemory& pools_;
  const StreamsAndEvents& streams_;
  Replay replay_;
  std::unique_ptr<State> st_;
};

}  // namespace softgpu::runtime
