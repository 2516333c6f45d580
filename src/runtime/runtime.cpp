// Runtime core: construction from options, error state, device calls,
// streams and events.
#include <fstream>
#include <algorithm>
#include <cstring>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <fmt/core.h>

#include "jit/jit.h"
#include "ptx/parser.h"
#include "runtime/memory_manager.h"
#include "runtime/mempool.h"
#include "runtime/module_registry.h"
#include "runtime/graph.h"
#include "runtime/runtime_internal.h"
#include "runtime/streams.h"
#include "runtime/texture.h"

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

namespace {
// This host thread's serial number (Runtime::threads_ is keyed by it).
uint64_t thread_serial() {
  static std::atomic<uint64_t> next{1};
  thread_local const uint64_t serial = next.fetch_add(1, std::memory_order_relaxed);
  return serial;
}
}  // namespace

Runtime::ThreadState& Runtime::this_thread() { return threads_[thread_serial()]; }

namespace {
std::atomic<bool> g_context_used{false};
thread_local bool t_context_bind = false;       // this thread's calls since the driver last asked
thread_local bool t_context_suspended = false;  // inside a driver API call
void note_context_use() {
  if (t_context_suspended) return;
  t_context_bind = true;
  if (!g_context_used.load(std::memory_order_relaxed)) g_context_used.store(true, std::memory_order_release);
}
}  // namespace

void Runtime::suspend_context_use(bool suspended) { t_context_suspended = suspended; }

bool Runtime::take_context_use(bool* bind) {
  if (bind) *bind = t_context_bind;
  t_context_bind = false;
  return g_context_used.load(std::memory_order_acquire);
}

void Runtime::drop_if_empty() {
  auto it = threads_.find(thread_serial());
  if (it != threads_.end() && it->second.last_error == Status::Success && it->second.call_stack.empty() &&
      it->second.capture_mode == 0)
    threads_.erase(it);
}

void Runtime::make_components() {
  streams_ = std::make_unique<StreamsAndEvents>();
  modules_ = std::make_unique<ModuleRegistry>(gpu_, mem_ ? &mem_->device() : nullptr);
  pools_ = std::make_unique<StreamOrderedMemory>(mem_ ? &mem_->device() : nullptr);
  graphs_ = std::make_unique<GraphManager>(
      *modules_, *pools_, *streams_,
      GraphManager::Replay{
          [this](const void* k, Dim3 g, Dim3 b, void** a, size_t sh, void* s) { return launch(k, g, b, a, sh, s); },
          // A graph's copies are asynchronous to the host, like cudaMemcpyAsync.
          [this](void* d, const void* s, size_t n, CopyKind k, void* st) { return memcpy(d, s, n, k, st, true); },
          [this](void* d, size_t dp, const void* s, size_t sp, size_t w, size_t h, CopyKind k, void* st) {
            return memcpy_2d(d, dp, s, sp, w, h, k, st, true);
          },
          [this](void* d, int v, size_t n, void* st) { return memset(d, v, n, st); },
          [this](void* d, size_t p, int v, size_t w, size_t h, void* st) { return memset_2d(d, p, v, w, h, st); },
          [this](void* st, HostCallback fn, void* u) { return launch_host_func(st, fn, u); },
          [this](const void* x, size_t i, const std::vector<uint32_t>* d, void* st) { graph_node_timing(x, i, d, st); }});
  textures_ = std::make_unique<TextureManager>(TextureManager::Device{
      [this](void** out, size_t size) { return malloc(out, size); },
      [this](void* p) { return free(p); },
      [this](void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height, CopyKind kind) {
        return memcpy_2d(dst, dpitch, src, spitch, width, height, kind);
      }});
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
  // The JIT by default where the build has it (docs/jit.md).
  o.exec = jit::available() ? Options::Exec::Jit : Options::Exec::Interp;
  if (const char* e = std::getenv("SOFTGPU_EXEC"); e && *e) {
    const std::string v = e;
    if (v == "interp") o.exec = Options::Exec::Interp;
    else if (v == "jit") o.exec = Options::Exec::Jit;
    else
      return Error{Status::InitializationError, fmt::format("SOFTGPU_EXEC='{}' is not interp or jit", e)};
    if (o.exec == Options::Exec::Jit && !jit::available())
      return Error{Status::InitializationError,
                   "SOFTGPU_EXEC=jit: this softgpu was built without LLVM 16 (install llvm-16-dev and rebuild)"};
  }
  if (const char* v = std::getenv("SOFTGPU_JIT_VERBOSE"); v && *v && std::string(v) != "0") o.jit_verbose = true;
  // The JIT's on-disk cache: SOFTGPU_JIT_CACHE=DIR, or off; by default
  // under $XDG_CACHE_HOME (else ~/.cache).
  if (const char* c = std::getenv("SOFTGPU_JIT_CACHE"); c && *c) {
    const std::string v = c;
    o.jit_cache_dir = v == "0" || v == "off" ? "" : v;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    o.jit_cache_dir = std::string(x) + "/softgpu/jit";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    o.jit_cache_dir = std::string(home) + "/.cache/softgpu/jit";
  }
  if (const char* h = std::getenv("SOFTGPU_JIT_HOT"); h && *h) {
    auto v = parse_number<uint64_t>(h);
    if (!v || *v > (1ull << 32))
      return Error{Status::InitializationError,
                   fmt::format("SOFTGPU_JIT_HOT='{}' is not a number of warp instructions per PTX instruction "
                               "(0 = compile every kernel at its first launch)", h)};
    o.jit_hot = *v;
  }
  auto san = sanitize::options_from_env();
  if (!san) return san.error();
  o.sanitize = std::move(san.value());
  return o;
}

Runtime::Runtime(Options opts) : opts_(std::move(opts)) {
  auto cfg = config::find_gpu_config(opts_.gpu);
  if (!cfg) {
    init_status_ = Status::NoDevice;
    init_message_ = fmt::format("softgpu: cannot use GPU '{}': {} (run `softgpu devices` for the list)", opts_.gpu,
                                cfg.error().message);
    make_components();  // registration still works; nothing loads
    return;
  }
  gpu_ = std::move(cfg.value());
  mem_ = std::make_unique<MemoryManager>(gpu_.global_memory_bytes, opts_.host_memory_limit);
  make_components();
  start_jit();
  start_timing();
  start_sanitizer();
}

Runtime::Runtime(config::GpuConfig gpu, Options opts) : opts_(std::move(opts)), gpu_(std::move(gpu)) {
  mem_ = std::make_unique<MemoryManager>(gpu_.global_memory_bytes, opts_.host_memory_limit);
  make_components();
  start_jit();
  start_timing();
  start_sanitizer();
}

void Runtime::start_jit() {
  if (opts_.exec != Options::Exec::Jit) return;
  jit::JitOptions jo;
  jo.verbose = opts_.jit_verbose;
  jo.cache_dir = opts_.jit_cache_dir;
  std::string why;
  compiler_ = jit::make_compiler(jo, &why);
  // Kernels still run, interpreted; the user asked for the JIT, so say why not.
  if (!compiler_) fmt::print(stderr, "softgpu: the JIT did not start ({}); kernels run interpreted\n", why);
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

void Runtime::start_sanitizer() {
  if (!opts_.sanitize) return;
  if (timing_) {
    init_status_ = Status::InitializationError;
    init_message_ = "softgpu: the timing model and a sanitizer cannot run together (choose --timing or sanitize)";
    return;
  }
  auto s = sanitize::Sanitizer::create(*opts_.sanitize, mem_ ? &mem_->device() : nullptr);
  if (!s) {
    init_status_ = Status::InitializationError;
    init_message_ = "softgpu sanitize: " + s.error().message;
    return;
  }
  sanitizer_ = std::move(s.value());
  if (mem_) mem_->device().set_observer(sanitizer_.get());
  if (mem_) mem_->device().set_padding(opts_.sanitize->padding);
  opts_.threads = 1;  // reports in a deterministic order
}

void Runtime::finish_sanitizer() {
  std::lock_guard lock(mu_);
  if (sanitizer_) sanitizer_->finish();
}

void Runtime::api_error(std::string_view call, int code, std::string_view name, std::string_view text) {
  std::lock_guard lock(mu_);
  if (sanitizer_) sanitizer_->api_error(call, code, name, text);
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
  if (mem_) modules_->unload_all();
}

exec::DeviceMemory* Runtime::memory() { return mem_ ? &mem_->device() : nullptr; }

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
    if (r->sanitizer_) std::atexit([] { Runtime::process().finish_sanitizer(); });
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
  if (sticky_applies) note_context_use();  // a call that uses the device
  if (sticky_applies && sticky_ != Status::Success) return sticky_;
  return Status::Success;
}

std::optional<Status> Runtime::capture_unsafe() {
  const int mode = this_thread().capture_mode;
  drop_if_empty();
  return graphs_->capture_unsafe_call(mode);
}

void Runtime::synchronizing() {
  if (pending_ == Status::Success) return;
  if (sticky_ == Status::Success) sticky_ = pending_;
  pending_ = Status::Success;
}

Status Runtime::finish(Status s) {
  if (s != Status::Success) this_thread().last_error = s;
  return s;
}

Status Runtime::thread_error() {
  std::lock_guard lock(mu_);
  auto it = threads_.find(thread_serial());
  return it == threads_.end() ? Status::Success : it->second.last_error;
}

void Runtime::set_thread_error(Status s) {
  std::lock_guard lock(mu_);
  if (s == Status::Success && !threads_.count(thread_serial())) return;
  this_thread().last_error = s;
  drop_if_empty();
}

Status Runtime::last_error(bool reset) {
  std::lock_guard lock(mu_);
  if (init_status_ != Status::Success) return init_status_;
  if (sticky_ != Status::Success) return sticky_;  // sticky: not cleared by reading
  auto it = threads_.find(thread_serial());
  if (it == threads_.end()) return Status::Success;
  Status v = it->second.last_error;
  if (reset) {
    it->second.last_error = Status::Success;
    drop_if_empty();
  }
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
  if (device != 0) return finish(Status::InvalidDevice);
  note_context_use();  // CUDA 12+: cudaSetDevice initializes the primary context
  return Status::Success;
}

Status Runtime::get_device(int* device) {
  SOFTGPU_API_BEGIN(false);
  if (!device) return finish(Status::InvalidValue);
  *device = 0;
  return Status::Success;
}

Status Runtime::synchronize() {
  SOFTGPU_API_BEGIN(true);
  // Not while this thread's capture interaction mode forbids it (graph.cpp);
  // a pending fault then stays pending, as the device was not waited for.
  if (auto c = capture_unsafe()) return finish(*c);
  synchronizing();
  if (sticky_ != Status::Success) return finish(sticky_);
  pools_->mempool_synchronized();  // mempool.cpp: pools give back memory above their release threshold
  if (timing_) timing_->host_waits_all();
  return Status::Success;  // all work already completed when issued
}

Status Runtime::reset() {
  std::lock_guard lock(mu_);
  if (Status s = begin(false); s != Status::Success) return finish(s);
  if (sanitizer_) sanitizer_->device_reset();  // leaks are reported when the context goes
  modules_->unload_all();
  mem_->device().reset();
  pools_->mempool_reset();  // mempool.cpp: the pools' blocks went with the memory
  streams_->clear();
  limits_.clear();
  device_flags_ = 0;
  sticky_ = pending_ = Status::Success;
  if (auto it = threads_.find(thread_serial()); it != threads_.end()) {
    it->second.last_error = Status::Success;
    drop_if_empty();
  }
  return Status::Success;
}

namespace {
constexpr Status kUnsupportedLimit = static_cast<Status>(215);  // cudaErrorUnsupportedLimit
bool known_limit(Limit l) {
  return static_cast<int>(l) >= 0 && static_cast<int>(l) <= static_cast<int>(Limit::PersistingL2CacheSize);
}
}  // namespace

// cudaDeviceSetLimit's rules (cuda_runtime_api.h): an unknown limit, or
// cudaLimitDevRuntimeSyncDepth on compute capability 9.0 and up, is
// cudaErrorUnsupportedLimit; a value the device cannot have is refused (the
// limit keeps its value) or, for the two performance hints, clamped.
Status Runtime::set_limit(Limit limit, size_t value) {
  SOFTGPU_API_BEGIN(true);
  if (!known_limit(limit)) return finish(kUnsupportedLimit);
  switch (limit) {
    case Limit::StackSize:
      // The stack is the thread's local memory, at most 512 KB per thread
      // (the executor gives an accepted size: exec_options()).
      if (value > ptx::kMaxLocalBytesPerThread) return finish(Status::InvalidValue);
      break;
    case Limit::PrintfFifoSize:
      // "Setting cudaLimitPrintfFifoSize must not be performed after launching
      // any kernel that uses the printf() device system call - in such case
      // cudaErrorInvalidValue will be returned."
      if (printf_launched_) return finish(Status::InvalidValue);
      [[fallthrough]];
    case Limit::MallocHeapSize:
      // Reserved in device memory: more than the device has cannot be.
      if (value > gpu_.global_memory_bytes) return finish(Status::MemoryAllocation);
      break;
    case Limit::DevRuntimeSyncDepth:
      if (gpu_.cc_major >= 9) return finish(kUnsupportedLimit);
      if (value > 24) return finish(Status::InvalidValue);  // "up the maximum launch depth of 24"
      break;
    case Limit::MaxL2FetchGranularity: value = std::min<size_t>(value, 128); break;  // "0B to 128B"
    case Limit::PersistingL2CacheSize: value = 0; break;  // no persisting L2 (cudaDevAttrMaxPersistingL2CacheSize 0)
    default: break;
  }
  limits_[limit] = value;
  return Status::Success;
}

Status Runtime::get_limit(Limit limit, size_t* value) {
  SOFTGPU_API_BEGIN(true);
  if (!known_limit(limit) || (limit == Limit::DevRuntimeSyncDepth && gpu_.cc_major >= 9))
    return finish(kUnsupportedLimit);
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
  o.compiler = compiler_.get();
  o.host_threads = host_threads_.get();
  o.jit_hot = opts_.jit_hot;
  if (auto it = limits_.find(Limit::PrintfFifoSize); it != limits_.end()) o.printf_fifo_bytes = it->second;
  if (auto it = limits_.find(Limit::StackSize); it != limits_.end())
    o.local_bytes_per_thread = std::max<uint64_t>(o.local_bytes_per_thread, it->second);
  return o;
}

// ---------------------------------------------------------------- streams
// The handles live in the StreamsAndEvents component (streams.{h,cpp}); the
// facade adds the prologue, the capture hooks (graph.cpp) and the pools'
// release at synchronization (mempool.cpp).

Status Runtime::check_stream(void* stream) { return streams_->check_stream(stream); }

Status Runtime::stream_check(void* stream) {
  SOFTGPU_API_BEGIN(true);
  return finish(check_stream(stream));
}

Status Runtime::stream_info(void* stream, unsigned* flags, int* priority) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  const StreamsAndEvents::Stream* st = streams_->find_stream(stream);
  if (flags) *flags = st ? st->flags : 0u;
  if (priority) *priority = st ? st->priority : 0;
  return Status::Success;
}

Status Runtime::stream_set_attribute(void* stream, int id, const void* value, const int* priority) {
  SOFTGPU_API_BEGIN(true);
  if (!value) return finish(Status::InvalidValue);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  StreamsAndEvents::AttrValue v;
  std::memcpy(v.data(), value, v.size());
  streams_->set_attribute(stream, id, v);
  if (priority) streams_->set_priority(stream, *priority);
  return Status::Success;
}

Status Runtime::stream_get_attribute(void* stream, int id, void* value, bool* was_set) {
  SOFTGPU_API_BEGIN(true);
  if (!value || !was_set) return finish(Status::InvalidValue);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  const StreamsAndEvents::AttrValue* v = streams_->attribute(stream, id);
  *was_set = v != nullptr;
  if (v) std::memcpy(value, v->data(), v->size());
  return Status::Success;
}

Status Runtime::stream_id(void* stream, unsigned long long* id) {
  SOFTGPU_API_BEGIN(true);
  if (!id) return finish(Status::InvalidValue);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  const StreamsAndEvents::Stream* st = streams_->find_stream(stream);
  *id = st ? st->id : stream == kPerThreadStream ? 2 : 1;
  return Status::Success;
}

Status Runtime::exchange_capture_mode(int* mode) {
  SOFTGPU_API_BEGIN(false);
  if (!mode || *mode < 0 || *mode > 2) return finish(Status::InvalidValue);
  ThreadState& t = this_thread();
  std::swap(t.capture_mode, *mode);
  drop_if_empty();
  return Status::Success;
}

Status Runtime::stream_create(void** out, unsigned flags, int priority) {
  SOFTGPU_API_BEGIN(true);
  return finish(streams_->create_stream(out, flags, priority));
}

Status Runtime::stream_destroy(void* stream) {
  SOFTGPU_API_BEGIN(true);
  if (!streams_->destroy_stream(stream)) return finish(Status::InvalidResourceHandle);
  graphs_->capture_stream_destroyed(stream);  // graph.cpp
  return Status::Success;
}

Status Runtime::stream_synchronize(void* stream) {
  SOFTGPU_API_BEGIN_SYNC(true);
  if (auto c = graphs_->capture_forbid(stream)) return finish(*c);  // graph.cpp
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  pools_->mempool_synchronized();  // mempool.cpp
  if (timing_) timing_->host_waits(stream_ref(stream));
  return Status::Success;
}

Status Runtime::stream_query(void* stream) {
  SOFTGPU_API_BEGIN_SYNC(true);  // the kernels before it have finished: a fault shows
  return finish(check_stream(stream));  // Success: nothing is ever pending
}

Status Runtime::stream_wait_event(void* stream, void* event, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (!streams_->has_event(event)) return finish(Status::InvalidResourceHandle);
  if (auto c = graphs_->capture_wait_event(stream, event)) return finish(*c);  // graph.cpp: joins a capture
  if (timing_)
    if (const StreamsAndEvents::Event* e = streams_->find_event(event); e && e->simulated_us)
      timing_->wait_until(stream_ref(stream), *e->simulated_us);
  return Status::Success;
}

Status Runtime::launch_host_func(void* stream, HostCallback fn, void* user) {
  SOFTGPU_API_BEGIN(true);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (!fn) return finish(Status::InvalidValue);
  if (auto c = graphs_->capture_host(stream, fn, user)) return finish(*c);  // graph.cpp
  // Behind a faulted kernel: "the function will not be called in the event of
  // an error in the CUDA context" (cudaLaunchHostFunc).
  if (fault_pending()) return Status::Success;
  fn(user);  // earlier work on the stream is complete, so it may run now
  return Status::Success;
}

// ---------------------------------------------------------------- events

Status Runtime::event_create(void** out, unsigned flags) {
  SOFTGPU_API_BEGIN(true);
  return finish(streams_->create_event(out, flags));
}

Status Runtime::event_destroy(void* event) {
  SOFTGPU_API_BEGIN(true);
  if (!streams_->destroy_event(event)) return finish(Status::InvalidResourceHandle);
  return Status::Success;
}

Status Runtime::event_record(void* event, void* stream) {
  SOFTGPU_API_BEGIN(true);
  StreamsAndEvents::Event* e = streams_->find_event(event);
  if (!e) return finish(Status::InvalidResourceHandle);
  if (Status s = check_stream(stream); s != Status::Success) return finish(s);
  if (auto c = graphs_->capture_event_record(event, stream)) return finish(*c);  // graph.cpp
  e->when = std::chrono::steady_clock::now();
  if (timing_) e->simulated_us = timing_->stream_time_us(stream_ref(stream));
  return Status::Success;
}

Status Runtime::event_synchronize(void* event) {
  SOFTGPU_API_BEGIN_SYNC(true);
  if (!streams_->has_event(event)) return finish(Status::InvalidResourceHandle);
  pools_->mempool_synchronized();  // mempool.cpp
  if (timing_)
    if (const StreamsAndEvents::Event* e = streams_->find_event(event); e && e->simulated_us)
      timing_->host_waits_until(*e->simulated_us);
  return Status::Success;
}

Status Runtime::event_query(void* event) {
  SOFTGPU_API_BEGIN_SYNC(true);
  return finish(streams_->has_event(event) ? Status::Success : Status::InvalidResourceHandle);
}

Status Runtime::event_elapsed(float* ms, void* start, void* end) {
  SOFTGPU_API_BEGIN(true);
  return finish(streams_->elapsed(ms, start, end));
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
    case Status::UnsupportedPtxVersion: return "the provided PTX was compiled with an unsupported toolchain.";
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
