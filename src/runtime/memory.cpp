// Memory API: allocation, copies, memset, pointer queries. The memory and
// the checked operations on it are the MemoryManager's (memory_manager.h);
// these entry points add the prologue, stream validation and the capture
// (graph.cpp) and stream-ordered (mempool.cpp) hooks.
#include <cstring>

#include "runtime/memory_manager.h"
#include "runtime/mempool.h"
#include "runtime/graph.h"
#include "runtime/runtime_internal.h"
#include "runtime/streams.h"

namespace softgpu::runtime {

Status Runtime::check_device_range(const void* p, size_t n) { return mem_->check_range(p, n); }

Status Runtime::malloc(void** out, size_t size) {
  SOFTGPU_API_BEGIN(true);
  if (auto c = capture_unsafe()) return finish(*c);  // not observed by a capture
  return finish(mem_->malloc(out, size));
}

Status Runtime::malloc_managed(void** out, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->malloc_managed(out, size, flags));
}

Status Runtime::host_alloc(void** out, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->host_alloc(out, size, flags));
}

Status Runtime::free(void* p) {
  SOFTGPU_API_BEGIN_UNSAFE(true);  // cudaFree waits for the device
  if (!p) return Status::Success;  // cudaFree(NULL) is a no-op
  if (auto r = pools_->free_stream_ordered(p)) return finish(*r);  // mempool.cpp: pool and graph allocations
  return finish(mem_->free_device(p));
}

Status Runtime::free_host(void* p) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->free_host(p));
}

Status Runtime::host_get_flags(unsigned* out, void* host) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->host_flags(out, host));
}

Status Runtime::host_register(void* p, size_t size, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->host_register(p, size, flags));
}

Status Runtime::host_unregister(void* p) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->host_unregister(p));
}

Status Runtime::host_get_device_pointer(void** out, void* host, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->host_get_device_pointer(out, host, flags));
}

Status Runtime::memcpy(void* dst, const void* src, size_t n, CopyKind kind, void* stream, bool async) {
  // A blocking copy waits for the device, except device to device (no
  // host-side synchronization, cudaMemcpy's documentation).
  SOFTGPU_API_BEGIN_UNSAFE(!async && kind != CopyKind::DeviceToDevice);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_memcpy(dst, src, n, kind, stream)) return finish(*c);  // graph.cpp
  // Queued behind a faulted kernel: checked, never run.
  if (fault_pending()) return finish(mem_->copy(dst, src, n, kind, false));
  const Status s = mem_->copy(dst, src, n, kind);
  if (timing_ && s == Status::Success)
    timing_->copy(copy_path(dst, src, kind), n, stream_ref(stream), !async, uint64_t(dst), uint64_t(src));
  return finish(s);
}

timing::StreamRef Runtime::stream_ref(void* stream) const {
  if (graph_node_stream_) return *graph_node_stream_;
  timing::StreamRef r;
  if (!stream || stream == kLegacyStream) return r;  // the legacy default stream
  r.legacy = false;
  r.id = reinterpret_cast<uint64_t>(stream);
  if (stream != kPerThreadStream)
    if (const StreamsAndEvents::Stream* s = streams_->find_stream(stream)) r.blocking = !(s->flags & kStreamNonBlocking);
  return r;
}

// Under the timing model, each node of a graph launch gets a timeline of its
// own (a non-blocking stream the program never sees) that starts when its
// dependencies end, or when the launch stream's earlier work ends for a root
// node; the launch stream then waits for all of them. So a graph's
// independent branches overlap as they do on a GPU (a copy beside a kernel,
// small kernels side by side).
void Runtime::graph_node_timing(const void* exec, size_t node, const std::vector<uint32_t>* deps, void* stream) {
  if (!timing_) return;
  graph_node_stream_.reset();
  auto node_ref = [&](size_t i) {
    auto [it, fresh] = graph_node_ids_.try_emplace({exec, i}, 0);
    if (fresh) it->second = (uint64_t(1) << 63) | graph_node_ids_.size();  // no stream handle looks like this
    return timing::StreamRef{it->second, false, false, true};
  };
  if (!deps) {  // the launch ends: its stream waits for every node
    double end = timing_->stream_time_us(stream_ref(stream));
    for (size_t i = 0; i < node; ++i) end = std::max(end, timing_->stream_time_us(node_ref(i)));
    timing_->wait_until(stream_ref(stream), end);
    return;
  }
  double start = deps->empty() ? timing_->stream_time_us(stream_ref(stream)) : 0;
  for (uint32_t d : *deps) start = std::max(start, timing_->stream_time_us(node_ref(d)));
  const timing::StreamRef me = node_ref(node);
  timing_->wait_until(me, start);
  graph_node_stream_ = me;
}

timing::CopyPath Runtime::copy_path(const void* dst, const void* src, CopyKind kind) const {
  auto dev = [&](const void* p) { return mem_->device().contains(DeviceAddr{uint64_t(p)}, Bytes{1}); };
  if (kind == CopyKind::Default)
    kind = dev(dst) ? (dev(src) ? CopyKind::DeviceToDevice : CopyKind::HostToDevice)
                    : (dev(src) ? CopyKind::DeviceToHost : CopyKind::HostToHost);
  switch (kind) {
    case CopyKind::HostToDevice: return timing::CopyPath::HostToDevice;
    case CopyKind::DeviceToHost: return timing::CopyPath::DeviceToHost;
    case CopyKind::DeviceToDevice: return timing::CopyPath::DeviceToDevice;
    default: return timing::CopyPath::HostToHost;
  }
}

Status Runtime::memcpy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                          CopyKind kind, void* stream, bool async) {
  SOFTGPU_API_BEGIN_UNSAFE(!async && kind != CopyKind::DeviceToDevice);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_forbid(stream)) return finish(*c);  // graph.cpp: not capturable yet
  if (fault_pending()) return finish(mem_->copy_2d(dst, dpitch, src, spitch, width, height, kind, false));
  const Status s = mem_->copy_2d(dst, dpitch, src, spitch, width, height, kind);
  if (timing_ && s == Status::Success) timing_->copy(copy_path(dst, src, kind), width * height, stream_ref(stream), !async);
  return finish(s);
}

Status Runtime::memset(void* dst, int value, size_t n, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_memset(dst, value, n, stream)) return finish(*c);  // graph.cpp
  if (fault_pending()) return finish(mem_->set(dst, value, n, false));  // queued behind a faulted kernel
  const Status s = mem_->set(dst, value, n);
  if (timing_ && s == Status::Success) timing_->memset(n, stream_ref(stream), uint64_t(dst));
  return finish(s);
}

Status Runtime::memset_2d(void* dst, size_t pitch, int value, size_t width, size_t height, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_forbid(stream)) return finish(*c);  // graph.cpp: not capturable yet
  if (fault_pending()) return finish(mem_->set_2d(dst, pitch, value, width, height, false));
  const Status s = mem_->set_2d(dst, pitch, value, width, height);
  if (timing_ && s == Status::Success) timing_->memset(width * height, stream_ref(stream));
  return finish(s);
}

Status Runtime::mem_get_info(size_t* free_bytes, size_t* total_bytes) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->info(free_bytes, total_bytes));
}

Status Runtime::pointer_info(const void* p, PointerInfo* out) {
  SOFTGPU_API_BEGIN(true);
  return finish(mem_->pointer_info(p, out));
}

Status Runtime::prefetch(const void* p, size_t n, void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (n == 0) return Status::Success;
  return finish(check_device_range(p, n));  // memory is already where both sides see it
}

// ---------------------------------------------------------------- symbols

Status Runtime::symbol_address(void** out, const void* symbol) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  *out = exec::DeviceMemory::host_ptr(v.address);
  return Status::Success;
}

Status Runtime::symbol_size(size_t* out, const void* symbol) {
  SOFTGPU_API_BEGIN(true);
  if (!out) return finish(Status::InvalidValue);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  *out = v.size.value;
  return Status::Success;
}

Status Runtime::memcpy_to_symbol(const void* symbol, const void* src, size_t n, size_t offset, CopyKind kind,
                                 void* stream, bool async) {
  SOFTGPU_API_BEGIN_UNSAFE(!async && kind != CopyKind::DeviceToDevice);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (kind != CopyKind::HostToDevice && kind != CopyKind::DeviceToDevice && kind != CopyKind::Default)
    return finish(Status::InvalidMemcpyDirection);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  if (offset > v.size.value || n > v.size.value - offset) return finish(Status::InvalidValue);
  if (n == 0) return Status::Success;
  if (!src) return finish(Status::InvalidValue);
  if (kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(src, n); s != Status::Success) return finish(s);
  if (fault_pending()) return Status::Success;  // queued behind a faulted kernel
  std::memmove(exec::DeviceMemory::host_ptr(v.address + Bytes{offset}), src, n);
  return Status::Success;
}

Status Runtime::memcpy_from_symbol(void* dst, const void* symbol, size_t n, size_t offset, CopyKind kind,
                                   void* stream, bool async) {
  SOFTGPU_API_BEGIN_UNSAFE(!async && kind != CopyKind::DeviceToDevice);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (kind != CopyKind::DeviceToHost && kind != CopyKind::DeviceToDevice && kind != CopyKind::Default)
    return finish(Status::InvalidMemcpyDirection);
  exec::VariableInfo v;
  if (Status s = resolve_symbol(symbol, &v); s != Status::Success) return finish(s);
  if (offset > v.size.value || n > v.size.value - offset) return finish(Status::InvalidValue);
  if (n == 0) return Status::Success;
  if (!dst) return finish(Status::InvalidValue);
  if (kind == CopyKind::DeviceToDevice)
    if (Status s = check_device_range(dst, n); s != Status::Success) return finish(s);
  if (fault_pending()) return Status::Success;
  std::memmove(dst, exec::DeviceMemory::host_ptr(v.address + Bytes{offset}), n);
  return Status::Success;
}

}  // namespace softgpu::runtime
