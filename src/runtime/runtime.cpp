// Runtime core: construction from options, error state, device calls,
// streams and events.
#include <fstream>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <fmt/core.h>

#include "runtime/runtime_internal.h"

namespace softgpu::runtime {

namespace {

// Parses a whole string as a number; rejects trailing junk.
template <class T>
std::optional<T> parse_number(const char* s) {
  if (!s || !*s) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  if constexpr (std::is_floating_point_v<T>) {
    double v = std::strtod(s, &end);
    if (errno || *end) return std::nullopt;
    return static_cast<T>(v);
  } else {
    long long v = std::strtoll(s, &end, 10);
    if (errno || *end || v < 0) return std::nullopt;
    return static_cast<T>(v);
  }
}

}  // namespace

Status& thread_last_error(const Runtime* rt) {
  // Keyed by runtime instance so tests with several runtimes on one thread
  // stay independent, even when a new runtime lands at an old one's address.
  thread_local std::unordered_map<uint64_t, Status> errors;
  return errors[rt->instance_id()];
}

uint64_t Runtime::next_instance_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::vector<CallConfig>& thread_call_stack() {
  thread_local std::vector<CallConfig> stack;
  return stack;
}

Result<Options> options_from_env() {
  Options o;
  if (const char* g = std::getenv("SOFTGPU_GPU"); g && *g) o.gpu = g;
  if (const char* t = std::getenv("SOFTGPU_THREADS"); t && *t) {
    auto v = parse_number<unsigned>(t);
    if (!v || *v == 0 || *v > 4096)
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_THREADS='{}' is not a thread count (a whole number 1..4096)", t)};
    o.threads = *v;
  }
  if (const char* w = std::getenv("SOFTGPU_WATCHDOG_SECONDS"); w && *w) {
    auto v = parse_number<double>(w);
    if (!v || !(*v >= 0))
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_WATCHDOG_SECONDS='{}' is not a number of seconds (0 = unlimited)", w)};
    o.watchdog_seconds = *v;
  }
  if (const char* m = std::getenv("SOFTGPU_HOST_MEMORY_LIMIT"); m && *m) {
    std::string s = m;
    unsigned shift = 0;
    if (const char c = s.back(); c == 'K' || c == 'M' || c == 'G') {
      shift = c == 'K' ? 10 : c == 'M' ? 20 : 30;
      s.pop_back();
    }
    auto v = parse_number<uint64_t>(s.c_str());
    if (!v || *v == 0 || *v > (UINT64_MAX >> shift))
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_HOST_MEMORY_LIMIT='{}' is not a size (bytes, or a number with K, M or G)", m)};
    o.host_memory_limit = *v << shift;
  }
  if (const char* p = std::getenv("SOFTGPU_PROGRESS"); p && *p) {
    auto v = parse_number<double>(p);
    if (std::string(p) == "off") v = -1.0;
    if (!v || std::isnan(*v))
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_PROGRESS='{}' is not 'off' or a number of seconds", p)};
    o.progress_seconds = *v;
  }
  if (const char* t = std::getenv("SOFTGPU_TIMING"); t && *t) {
    std::string v = t;
    if (v == "1" || v == "sampled") o.timing = "sampled";
    else if (v == "full") o.timing = "full";
    else if (v != "0" && v != "off")
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_TIMING='{}' is not 1, sampled, full or off", t)};
  }
  if (const char* r = std::getenv("SOFTGPU_TIMING_REPORT"); r && *r) o.timing_report = r;
  return o;
}

Runtime::Runtime(Options opts) : opts_(std::move(opts)) {
  auto cfg = config::find_gpu_config(opts_.gpu);
  if (!cfg) {
    init_status_ = Status::NoDevice;
    init_message_ = fmt::format("softgpu: cannot use GPU '{}': {} (run `softgpu devices` for the list)", opts_.gpu,
                                cfg.error().message);
    return;
  }
  gpu_ = std::move(cfg.value());
  memory_ = std::make_unique<exec::DeviceMemory>(Bytes{gpu_.global_memory_bytes}, opts_.host_memory_limit);
  start_timing();
}

Runtime::Runtime(config::GpuConfig gpu, Options opts) : opts_(std::move(opts)), gpu_(std::move(gpu)) {
  memory_ = std::make_unique<exec::DeviceMemory>(Bytes{gpu_.global_memory_bytes}, opts_.host_memory_limit);
  start_timing();
}

void Runtime::start_timing() {
  if (opts_.timing.empty()) return;
  timing::SamplingPolicy sp;
  sp.full = opts_.timing == "full";
  auto s = timing::TimingSession::create(gpu_, sp);
  if (!s) {
    init_status_ = Status::InitializationError;
    init_message_ = fmt::format("softgpu: cannot time GPU '{}': {}", gpu_.key, s.error().message);
    return;
  }
  timing_ = std::move(s.value());
}

void Runtime::finish_timing() {
  std::lock_guard lock(mu_);
  if (!timing_ || timing_finished_) return;
  timing_finished_ = true;
  std::fflush(stdout);
  timing_->print_summary(std::cerr);
  if (!opts_.timing_report.empty()) {
    std::ofstream f(opts_.timing_report);
    f << timing_->json() << "\n";
    if (!f) std::cerr << fmt::format("softgpu: cannot write the timing report to '{}'\n", opts_.timing_report);
  }
}

std::optional<double> Runtime::simulated_us() const {
  if (!timing_) return std::nullopt;
  return timing_->now_us();
}

Runtime::~Runtime() {
  std::lock_guard lock(mu_);
  if (memory_) unload_all();
}

Runtime& Runtime::process() {
  // Leaked on purpose: __cudaUnregisterFatBinary runs from atexit handlers,
  // possibly after static destructors, so the runtime must outlive them.
  static Runtime* rt = [] {
    auto opts = options_from_env();
    if (!opts) {
      auto* r = new Runtime(config::GpuConfig{}, Options{});
      r->init_status_ = opts.error().status;
      r->init_message_ = "softgpu: " + opts.error().message;
      return r;
    }
    auto* r = new Runtime(opts.value());
    if (r->timing_) std::atexit([] { Runtime::process().finish_timing(); });
    return r;
  }();
  return *rt;
}

Status Runtime::begin(bool sticky_applies) {
  if (init_status_ != Status::Success) {
    if (!init_reported_) {
      std::cerr << init_message_ << std::endl;
      init_reported_ = true;
    }
    return init_status_;
  }
  if (sticky_applies && sticky_ != Status::Success) return sticky_;
  return Status::Success;
}

Status Runtime::finish(Status s) {
  if (s != Status::Success) thread_last_error(this) = s;
  return s;
}

Status Runtime::last_error(bool reset) {
  std::lock_guard lock(mu_);
  if (init_status_ != Status::Success) return init_status_;
  if (sticky_ != Status::Success) return sticky_;  // sticky: not cleared by reading
  Status& e = thread_last_error(this);
  Status v = e;
  if (reset) e = Status::Success;
  return v;
}

// ---------------------------------------------------------------- device

Status Runtime::device_count(int* count) {
  SOFTGPU_API_BEGIN(false);
  if (!count) return finish(Status::InvalidValue);
  *count = 1;
  return Status::Success;
}

Status Runtime::check_device(int device) {
  SOFTGPU_API_BEGIN(false);
  return finish(device == 0 ? Status::Success : Status::InvalidDevice);
}

Status Runtime::set_device(int device) {
  SOFTGPU_API_BEGIN(false);
  return finish(device == 0 ? Status::Success : Status::InvalidDevice);
}

Status Runtime::get_device(int* device) {
  SOFTGPU_API_BEGIN(false);
  if (!device) return finish(Status::InvalidValue);
  *device = 0;
  return Status::Success;
}

Status Runtime::synchronize() {
  SOFTGPU_API_BEGIN(true);
  mempool_synchronized();  // mempool.cpp: pools give back memory above their release threshold
  return Status::Success;  // all work already completed when issued
}

Status Runtime::reset() {
  std::lock_guard lock(mu_);
  if (Status s = begin(false); s != Status::Success) return finish(s);
  unload_all();
  memory_->reset();
  mempool_reset();  // mempool.cpp: the pools' blocks went with the memory
  streams_.clear();
  events_.clear();
  limits_.clear();
  device_flags_ = 0;
  sticky_ = Status::Success;
  thread_last_error(this) = Status::Success;
  return Status::Success;
}

Status Runtime::set_limit(Limit limit, size_t value) {
  SOFTGPU_API_BEGIN(true);
  if (static_cast<int>(limit) < 0 || static_cast<int>(limit) > static_cast<int>(Limit::PersistingL2CacheSize))
    return finish(Status::NotSupported);
  // "Setting cudaLimitPrintfFifoSize must be performed before launching any
  // kernel that uses the printf() device system call, otherwise
  // cudaErrorInvalidValue will be returned" (cudaDeviceSetLimit).
  if (limit == Limit::PrintfFifoSize && printf_launched_) return finish(Status::InvalidValue);
  limits_[limit] = value;
  return Status::Success;
}

Status Runtime::get_limit(Limit limit, size_t* value) {
  SOFTGPU_API_BEGIN(true);
  if (!value) return finish(Status::InvalidValue);
  if (auto it = limits_.find(limit); it != limits_.end()) {
    *value = it->second;
    return Status::Success;
  }
  switch (limit) {  // defaults a current GPU reports
    case Limit::StackSize: *value = 1024; break;
    case Limit::PrintfFifoSize: *value = 1 << 20; break;
    case Limit::MallocHeapSize: *value = 8 << 20; break;
    case Limit::DevRuntimeSyncDepth: *value = 2; break;
    case Limit::DevRuntimePendingLaunchCount: *value = 2048; break;
    case Limit::MaxL2FetchGranularity: *value = 64; break;
    case Limit::PersistingL2CacheSize: *value = 0; break;
    default: return finish(Status::NotSupported);
  }
  return Status::Success;
}

Status Runtime::set_flags(unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  // cudaDeviceScheduleMask (0x07) | cudaDeviceMapHost (0x08) | cudaDeviceLmemResizeToMax (0x10)
  // | cudaDeviceSyncMemops (0x80); anything else is invalid.
  if (flags & ~0x9Fu) return finish(Status::InvalidValue);
  device_flags_ = flags;
  return Status::Success;
}

Status Runtime::get_flags(unsigned* flags) {
  SOFTGPU_API_BEGIN(true);
  if (!flags) return finish(Status::InvalidValue);
  *flags = device_flags_ | 0x08;  // host memory is always mapped
  return Status::Success;
}

exec::ExecOptions Runtime::exec_options() const {
  exec::ExecOptions o;
  o.threads = opts_.threads ? opts_.threads : std::max(1u, std::thread::hardware_concurrency());
  o.watchdog_seconds = opts_.watchdog_seconds;
  if (opts_.progress_seconds) {
    o.progress_after_seconds = *opts_.progress_seconds;
    o.progress_force = *opts_.progress_seconds >= 0;
    o.progress_period_seconds = std::clamp(*opts_.progress_seconds, 0.05, 0.5);
  }
  o.sm_count = gpu_.sm_count;
  o.textures = texture_registry(*this);
  if (auto it = limits_.find(Limit::PrintfFifoSize); it != limits_.end()) o.printf_fifo_bytes = it->second;
  if (auto it = limits_.find(Limit::StackSize); it != limits_.end())
    o.local_bytes_per_thread = std::max<uint64_t>(o.local_bytes_per_thread, it->second);
  return o;
}

// ---------------------------------------------------------------- streams

Status Runtime::check_stream(void* stream) {
  if (stream == nullptr || stream == kLegacyStream || stream == kPerThreadStream) return Status::Success;
  return streams_.count(stream) ? Status::Success : Status::InvalidResourceHandle;
}

Status Runtime::stream_check(void* stream) {
  SOFTGPU_API_BEGIN(true);
  return finish(check_stream(stream));
}

Status Runtime::stream_info(void* stream, unsigned* flags, int* priority) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  auto it = streams_.find(stream);
  if (flags) *flags = it == streams_.end() ? 0u : it->second->flags;
  if (priority) *priority = it == streams_.end() ? 0 : it->second->priority;
  return Status::Success;
}

Status Runtime::stream_create(void** out, unsigned flags, int priority) {
  SOFTGPU_API_BEGIN(true);
  if (!out || (flags & ~kStreamNonBlocking)) return finish(Status::InvalidValue);
  auto s = std::make_unique<Stream>();
  s->flags = flags;
  s->priority = std::clamp(priority, -5, 0);  // priorities are clamped, as CUDA does
  void* h = s.get();
  streams_.emplace(h, std::move(s));
  *out = h;
  return Status::Success;
}

Status Runtime::stream_destroy(void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (!streams_.erase(stream)) return finish(Status::InvalidResourceHandle);
  capture_stream_destroyed(stream);  // graph.cpp
  return Status::Success;
}

Status Runtime::stream_synchronize(void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (auto c = capture_forbid(stream)) return finish(*c);  // graph.cpp
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  mempool_synchronized();  // mempool.cpp
  return Status::Success;
}

Status Runtime::stream_query(void* stream) {
  SOFTGPU_API_BEGIN(true);
  return finish(check_stream(stream));  // Success: nothing is ever pending
}

Status Runtime::stream_wait_event(void* stream, void* event, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (!events_.count(event)) return finish(Status::InvalidResourceHandle);
  if (auto c = capture_wait_event(stream, event)) return finish(*c);  // graph.cpp: joins a capture
  return Status::Success;
}

Status Runtime::launch_host_func(void* stream, HostCallback fn, void* user) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (!fn) return finish(Status::InvalidValue);
  if (auto c = capture_host(stream, fn, user)) return finish(*c);  // graph.cpp
  fn(user);  // earlier work on the stream is complete, so it may run now
  return Status::Success;
}

// ---------------------------------------------------------------- events

Status Runtime::event_create(void** out, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  // cudaEventBlockingSync 1 | cudaEventDisableTiming 2 | cudaEventInterprocess 4;
  // interprocess events must also disable timing.
  if (!out || (flags & ~0x7u) || ((flags & 0x4) && !(flags & kEventDisableTiming)))
    return finish(Status::InvalidValue);
  auto e = std::make_unique<Event>();
  e->flags = flags;
  void* h = e.get();
  events_.emplace(h, std::move(e));
  *out = h;
  return Status::Success;
}

Status Runtime::event_destroy(void* event) {
  SOFTGPU_API_BEGIN(true);
  if (!events_.erase(event)) return finish(Status::InvalidResourceHandle);
  return Status::Success;
}

Status Runtime::event_record(void* event, void* stream) {
  SOFTGPU_API_BEGIN(true);
  auto it = events_.find(event);
  if (it == events_.end()) return finish(Status::InvalidResourceHandle);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = capture_event_record(event, stream)) return finish(*c);  // graph.cpp
  it->second->when = std::chrono::steady_clock::now();
  if (timing_) it->second->simulated_us = timing_->now_us();
  return Status::Success;
}

Status Runtime::event_synchronize(void* event) {
  SOFTGPU_API_BEGIN(true);
  if (!events_.count(event)) return finish(Status::InvalidResourceHandle);
  mempool_synchronized();  // mempool.cpp
  return Status::Success;
}

Status Runtime::event_query(void* event) {
  SOFTGPU_API_BEGIN(true);
  return finish(events_.count(event) ? Status::Success : Status::InvalidResourceHandle);
}

Status Runtime::event_elapsed(float* ms, void* start, void* end) {
  SOFTGPU_API_BEGIN(true);
  if (!ms) return finish(Status::InvalidValue);
  auto a = events_.find(start), b = events_.find(end);
  if (a == events_.end() || b == events_.end()) return finish(Status::InvalidResourceHandle);
  const Event& ea = *a->second;
  const Event& eb = *b->second;
  // CUDA: unrecorded events or events without timing give InvalidResourceHandle.
  if ((ea.flags | eb.flags) & kEventDisableTiming) return finish(Status::InvalidResourceHandle);
  if (!ea.when || !eb.when) return finish(Status::InvalidResourceHandle);
  if (ea.simulated_us && eb.simulated_us) *ms = float((*eb.simulated_us - *ea.simulated_us) / 1000.0);
  else *ms = std::chrono::duration<float, std::milli>(*eb.when - *ea.when).count();
  return Status::Success;
}

// ---------------------------------------------------------------- names

const char* status_name(Status s) {
  switch (s) {
    case Status::Success: return "success";
    case Status::InvalidValue: return "invalid argument";
    case Status::MemoryAllocation: return "out of memory";
    case Status::InitializationError: return "initialization error";
    case Status::InvalidConfiguration: return "invalid configuration argument";
    case Status::InvalidPitchValue: return "invalid pitch argument";
    case Status::InvalidSymbol: return "invalid device symbol";
    case Status::InvalidDevicePointer: return "invalid device pointer";
    case Status::InvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case Status::InvalidDeviceFunction: return "invalid device function";
    case Status::NoDevice: return "no CUDA-capable device is detected";
    case Status::InvalidDevice: return "invalid device ordinal";
    case Status::NoKernelImageForDevice: return "no kernel image is available for execution on the device";
    case Status::InvalidPtx: return "a PTX JIT compilation failed";
    case Status::InvalidResourceHandle: return "invalid resource handle";
    case Status::IllegalState: return "the operation cannot be performed in the present state";
    case Status::StreamCaptureUnsupported: return "operation not permitted when stream is capturing";
    case Status::StreamCaptureInvalidated: return "operation failed due to a previous error during capture";
    case Status::StreamCaptureImplicit: return "operation would make the legacy stream depend on a capturing blocking stream";
    case Status::GraphExecUpdateFailure: return "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update";
    case Status::InvalidClusterSize: return "cluster size is invalid";
    case Status::InvalidChannelDescriptor: return "invalid channel descriptor";
    case Status::NotReady: return "device not ready";
    case Status::IllegalAddress: return "an illegal memory access was encountered";
    case Status::LaunchOutOfResources: return "too many resources requested for launch";
    case Status::LaunchTimeout: return "the launch timed out and was terminated";
    case Status::AssertTriggered: return "device-side assert triggered";
    case Status::HardwareStackError: return "hardware stack error";
    case Status::MisalignedAddress: return "misaligned address";
    case Status::IllegalInstruction: return "an illegal instruction was encountered";
    case Status::LaunchFailure: return "unspecified launch failure";
    case Status::CooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    case Status::NotSupported: return "operation not supported";
    default: return "unknown error";
  }
}

}  // namespace softgpu::runtime
