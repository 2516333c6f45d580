// The CUDA runtime's logic, independent of the C ABI: one simulated device,
// its memory, the registries that map host-side handles (fatbin handles,
// kernel stubs, variable shadows) to loaded PTX programs, streams, events
// and error state. src/cudart/ only marshals arguments into this class.
// It is a facade over components it owns (docs/architecture.md, "The
// runtime's components"): MemoryManager, ModuleRegistry, StreamsAndEvents,
// StreamOrderedMemory, GraphManager, TextureManager; it keeps the lock, the
// error state and the GPU config.
//
// Execution model: every kernel, copy, memset and host callback runs
// synchronously on the calling thread when it is issued, so work on any
// stream completes in issue order and before the call returns. Streams and
// events therefore only need to be validated; an event records the host
// steady clock at the moment it is recorded, so cudaEventElapsedTime
// measures the simulated work issued between two records.
//
// Errors: each API call returns a Status; a failing call also sets the
// calling thread's last error (read by last_error). A kernel fault is
// printed to stderr and latched as pending, as on a GPU where the launch is
// asynchronous: the launch and calls that do not wait for the device
// (cudaGetLastError included) still succeed, and work issued after it never
// runs. The next synchronizing call (device, stream or event synchronize, a
// blocking copy, cudaFree, a stream or event query) reports it, and from
// then on it is sticky: every later call that touches the device returns it
// until reset(). Launch-time errors (configuration, missing code) are
// returned by the launch itself.
#pragma once
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/types.h"
#include "config/gpu_config.h"
#include "sanitize/sanitizer.h"
#include "timing/session.h"
#include "exec/device_memory.h"
#include "exec/compiled.h"
#include "exec/engine.h"
#include "exec/host_threads.h"

namespace softgpu::runtime {

struct Options {
  std::string gpu = config::kDefaultGpu;  // config key or name
  unsigned threads = 0;                  // host threads per launch, 0 = all cores
  double watchdog_seconds = 0;           // per launch, 0 = unlimited
  uint64_t host_memory_limit = 0;        // bytes device memory may make resident, 0 = from /proc/meminfo
  // Progress line: nullopt = after 3 s when stderr is a terminal; a value
  // forces it on after that many seconds; negative = never.
  std::optional<double> progress_seconds;
  // Timing model (docs/timing.md): "" = off, "sampled" or "full".
  std::string timing;
  std::string timing_report;  // JSON report written at exit (SOFTGPU_TIMING_REPORT)
  // A sanitizer (softgpu sanitize; sanitize/options.h has its variables).
  std::optional<sanitize::Options> sanitize;
  // How kernels execute (SOFTGPU_EXEC): the interpreter, or compiled to
  // host code by the JIT (src/jit) where no listener is set.
  // options_from_env() makes the JIT the default when the build has it.
  enum class Exec { Interp, Jit } exec = Exec::Interp;
  bool jit_verbose = false;  // SOFTGPU_JIT_VERBOSE=1: a line per compiled function
  // SOFTGPU_JIT_HOT: a kernel is compiled once it has run this many warp
  // instructions per PTX instruction interpreted; 0 = at its first launch.
  // Unset (the default): once the interpreted time spent on it, or the
  // projected rest of its launch, outweighs the compile's estimated cost
  // (exec::worth_compiling, docs/jit.md).
  std::optional<uint64_t> jit_hot;
  // SOFTGPU_JIT_CACHE: where compiled code is kept between runs (empty: not kept).
  std::string jit_cache_dir;
};

// Reads SOFTGPU_GPU, SOFTGPU_THREADS, SOFTGPU_WATCHDOG_SECONDS,
// SOFTGPU_HOST_MEMORY_LIMIT (bytes, or with a K/M/G suffix), SOFTGPU_EXEC
// ("interp" or "jit"), SOFTGPU_JIT_VERBOSE, SOFTGPU_JIT_HOT, SOFTGPU_JIT_CACHE and
// SOFTGPU_PROGRESS ("off" or seconds), SOFTGPU_TIMING ("1", "sampled" or
// "full") and SOFTGPU_TIMING_REPORT (a file). A malformed value is an error naming
// the variable.
Result<Options> options_from_env();

enum class CopyKind : int { HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3, Default = 4 };

enum class Limit : int { StackSize = 0, PrintfFifoSize = 1, MallocHeapSize = 2, DevRuntimeSyncDepth = 3,
                         DevRuntimePendingLaunchCount = 4, MaxL2FetchGranularity = 5, PersistingL2CacheSize = 6 };

// Special stream handle values the CUDA headers define.
inline void* const kLegacyStream = reinterpret_cast<void*>(0x1);
inline void* const kPerThreadStream = reinterpret_cast<void*>(0x2);

// Flag values the runtime interprets (numbers from the CUDA headers).
inline constexpr unsigned kEventDisableTiming = 0x2;
inline constexpr unsigned kStreamNonBlocking = 0x1;

struct CallConfig {
  Dim3 grid, block;
  size_t shared_bytes = 0;
  void* stream = nullptr;
};

// Function attributes, as cudaFuncGetAttributes reports them.
struct FuncAttributes {
  size_t shared_bytes = 0, const_bytes = 0, local_bytes = 0;
  int max_threads_per_block = 0, num_regs = 0, ptx_version = 0, binary_version = 0;
  int max_dynamic_shared_bytes = 0, preferred_carveout = -1;
};

enum class FuncAttribute : int { MaxDynamicSharedMemorySize = 8, PreferredSharedMemoryCarveout = 9 };

struct PointerInfo {
  enum Type { Unregistered = 0, Host = 1, Device = 2, Managed = 3 } type = Unregistered;
  int device = 0;
  void* device_pointer = nullptr;
  void* host_pointer = nullptr;
};

using HostCallback = void (*)(void* user);

struct GraphNodeSpec;  // runtime/graph.h
struct MemPool;        // runtime/mempool.h
class StreamOrderedMemory;  // runtime/mempool.h
class GraphManager;     // runtime/graph.h
class TextureManager;  // runtime/texture.h
class StreamsAndEvents;  // runtime/streams.h
class MemoryManager;     // runtime/memory_manager.h
class ModuleRegistry;    // runtime/module_registry.h
struct RegisteredKernel;

// cudaMemPoolProps, as far as one simulated device uses them.
struct PoolProps {
  int alloc_type = 1;     // cudaMemAllocationType: 1 pinned (the only one supported)
  int handle_types = 0;   // cudaMemAllocationHandleType: IPC is not modelled (0 only)
  int location_type = 1;  // cudaMemLocationType: 1 device, 2 host (3 host NUMA: not supported)
  int location_id = 0;
  size_t max_size = 0;    // 0: the device's capacity
};
struct MemAccess { int location_type = 1, location_id = 0, flags = 3; };  // cudaMemAccessDesc
enum class CaptureStatus : int;
enum class ExecUpdateResult : int;

class Runtime {
 public:
  // Never throws: a bad option or missing config makes every device call
  // fail with the init status (message printed once to stderr).
  explicit Runtime(Options opts);
  // Uses a config directly (tests, tools).
  Runtime(config::GpuConfig gpu, Options opts);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // The process-wide runtime behind libcudart, created on first use from env.
  static Runtime& process();

  // ---- the driver API (libcuda.so.1, src/cudadrv/driver.h)
  // The runtime API initializes the driver API: a call that uses the device
  // (cudaMalloc, cudaFree(0), cudaSetDevice...), made by the program and not
  // by a driver API call (suspended meanwhile), initializes the primary
  // context for every thread and makes it current on the calling thread.
  static void suspend_context_use(bool suspended);
  // Whether any thread's runtime calls initialized the primary context;
  // *bind: whether this thread's did since the last query (it is cleared).
  static bool take_context_use(bool* bind);

  // ---- errors
  Status last_error(bool reset);
  // For entry points implemented outside this class (src/runtime/texture.cpp):
  // runs f under the same prologue and epilogue as the others (init and
  // sticky errors first, a failure recorded as the thread's last error).
  template <class F>
  Status guarded(F&& f) {
    std::lock_guard lock(mu_);
    if (Status s = begin(); s != Status::Success) return finish(s);
    return finish(f());
  }
  const std::string& init_message() const { return init_message_; }
  const config::GpuConfig* gpu() const { return init_status_ == Status::Success ? &gpu_ : nullptr; }

  // ---- device
  Status device_count(int* count);
  Status set_device(int device);
  Status get_device(int* device);
  Status check_device(int device);  // InvalidDevice unless 0; for property queries
  Status synchronize();
  Status reset();
  Status set_limit(Limit limit, size_t value);
  Status get_limit(Limit limit, size_t* value);
  Status set_flags(unsigned flags);
  Status get_flags(unsigned* flags);

  // ---- memory
  Status malloc(void** out, size_t size);
  Status malloc_managed(void** out, size_t size, unsigned flags);
  Status host_alloc(void** out, size_t size, unsigned flags);
  Status free(void* p);
  Status free_host(void* p);
  Status host_get_flags(unsigned* out, void* host);
  Status host_register(void* p, size_t size, unsigned flags);
  Status host_unregister(void* p);
  Status host_get_device_pointer(void** out, void* host, unsigned flags);
  // The timing model's summary on stderr and the JSON report, once (at
  // exit, under --timing).
  void finish_timing();
  // The sanitizer's leak check and summaries, once (at exit, under softgpu
  // sanitize).
  void finish_sanitizer();
  // The sanitizer under softgpu sanitize, else nullptr.
  sanitize::Sanitizer* sanitizer() { return sanitizer_.get(); }
  // A failed API call (cudart/ reports each one here for the sanitizers).
  void api_error(std::string_view call, int code, std::string_view name, std::string_view text);
  // Simulated GPU time under --timing, else nullopt.
  std::optional<double> simulated_us() const;

  // async: cudaMemcpy*Async (the host does not wait for it, under --timing).
  Status memcpy(void* dst, const void* src, size_t n, CopyKind kind, void* stream = nullptr, bool async = false);
  Status memcpy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                   CopyKind kind, void* stream = nullptr, bool async = false);
  Status memset(void* dst, int value, size_t n, void* stream = nullptr);
  Status memset_2d(void* dst, size_t pitch, int value, size_t width, size_t height, void* stream = nullptr);
  Status mem_get_info(size_t* free_bytes, size_t* total_bytes);
  Status pointer_info(const void* p, PointerInfo* out);
  Status prefetch(const void* p, size_t n, void* stream);

  // ---- modules (fatbin handles are opaque pointers owned by the runtime)
  // Never fails at registration: a bad fatbin is reported when first used.
  void* register_fatbin(const void* wrapper);
  // Registers PTX text modules directly (tests, tools); all are linked together.
  void* register_ptx(std::vector<std::string> texts, std::string name = "<ptx>");
  void unregister_module(void* module);
  void register_function(void* module, const void* host_fun, const char* device_name);
  void register_var(void* module, const void* host_var, const char* device_name, size_t size, bool constant);
  void register_managed_var(void* module, void** host_ptr_slot, const char* device_name, size_t size);
  Status init_module(void* module);  // loads it now (managed variables become valid)

  // ---- symbols (keyed by the host shadow address)
  Status symbol_address(void** out, const void* symbol);
  Status symbol_size(size_t* out, const void* symbol);
  // async: cudaMemcpy{To,From}SymbolAsync (else a blocking copy, which
  // reports a pending kernel fault).
  Status memcpy_to_symbol(const void* symbol, const void* src, size_t n, size_t offset, CopyKind kind,
                          void* stream = nullptr, bool async = false);
  Status memcpy_from_symbol(void* dst, const void* symbol, size_t n, size_t offset, CopyKind kind,
                            void* stream = nullptr, bool async = false);

  // ---- kernels
  void push_call_config(const CallConfig& c);
  Status pop_call_config(CallConfig* out);
  // A kernel handle for a registered host stub (InvalidDeviceFunction if unknown).
  Status get_kernel(void** handle, const void* host_fun);
  Status func_name(const char** name, const void* host_fun);  // the kernel's mangled name
  // `kernel` is either a handle from get_kernel or a host stub address.
  // cluster: thread-block cluster shape from launch attributes (1x1x1 = none).
  Status launch(const void* kernel, Dim3 grid, Dim3 block, void** args, size_t shared_bytes, void* stream,
                bool cooperative = false, Dim3 cluster = Dim3{});
  Status func_attributes(FuncAttributes* out, const void* kernel);
  Status func_set_attribute(const void* kernel, FuncAttribute attr, int value);
  Status func_check(const void* kernel);  // cache/shared config setters: validate only
  Status occupancy_blocks_per_sm(int* out, const void* kernel, int block_size, size_t dynamic_shared);
  Status occupancy_available_dynamic_smem(size_t* out, const void* kernel, int num_blocks, int block_size);

  // ---- libraries loaded at run time (cudaLibrary*, and the driver API's
  // modules in src/cudadrv; runtime/library.cpp). Handles are opaque.
  // image: PTX text (NUL-terminated), a fatbinary (0xBA55ED50 container or
  // __fatBinC_Wrapper_t), copied, and loaded now: InvalidKernelImage for an
  // image that is none of these or is corrupt, InvalidPtx for PTX that does
  // not parse or load, NoKernelImageForDevice for machine code only (a cubin).
  Status library_load(void** out, const void* image);
  Status library_load_file(void** out, const char* path);  // FileNotFound if unreadable
  Status library_unload(void* library);                    // InvalidResourceHandle if unknown
  // A kernel handle (usable wherever a kernel is: launch, func_attributes...);
  // NotFound when the library defines no kernel of that (mangled) name.
  Status library_kernel(void** out, void* library, const char* name);
  Status library_global(void** address, size_t* bytes, void* library, const char* name);
  // Offset and size of a kernel's parameter `index` (InvalidValue past the last).
  Status func_param_info(const void* kernel, size_t index, size_t* offset, size_t* size);
  // cudaOccupancyMaxActiveClusters: cluster 1x1x1 = the kernel's
  // __cluster_dims__ (InvalidClusterSize if it has none).
  Status occupancy_max_active_clusters(int* out, const void* kernel, int block_size, size_t dynamic_shared,
                                       Dim3 cluster);
  // The allocation holding p (cuMemGetAddressRange); NotFound if none.
  Status address_range(const void* p, void** base, size_t* size);
  // The calling thread's last error alone (no init or sticky status), and
  // setting it back: the driver API's calls go through the runtime's but
  // must leave cudaGetLastError as they found it.
  Status thread_error();
  void set_thread_error(Status s);
  // Number of a kernel's parameters.
  Status func_param_count(const void* kernel, size_t* count);
  // cuMemsetD16/D32: count elements of elem_size (1, 2 or 4) bytes set to value.
  Status memset_elements(void* dst, uint32_t value, size_t elem_size, size_t count, void* stream = nullptr);

  // ---- streams and events
  Status stream_create(void** out, unsigned flags, int priority);
  Status stream_destroy(void* stream);
  Status stream_synchronize(void* stream);
  Status stream_query(void* stream);
  Status stream_wait_event(void* stream, void* event, unsigned flags);
  Status launch_host_func(void* stream, HostCallback fn, void* user);
  Status stream_check(void* stream);  // validates a handle (for stream-taking helpers)
  // Flags and priority a stream was created with (0, 0 for the default streams).
  Status stream_info(void* stream, unsigned* flags, int* priority);
  // cudaStreamSet/GetAttribute: the value (the C ABI's 64-byte union) kept
  // per stream and attribute id; get reports whether one was set. A
  // priority also becomes the stream's (clamped as at creation).
  Status stream_set_attribute(void* stream, int id, const void* value, const int* priority);
  Status stream_get_attribute(void* stream, int id, void* value, bool* was_set);
  Status stream_id(void* stream, unsigned long long* id);  // cudaStreamGetId
  // cudaThreadExchangeStreamCaptureMode: this thread's mode for *mode. The
  // mode decides whether synchronize() is refused during a capture
  // (GraphManager::capture_unsafe_call).
  Status exchange_capture_mode(int* mode);
  Status event_create(void** out, unsigned flags);
  Status event_destroy(void* event);
  Status event_record(void* event, void* stream);
  Status event_synchronize(void* event);
  Status event_query(void* event);
  Status event_elapsed(float* ms, void* start, void* end);

  // Device memory (tests inspect it; the executor needs it).
  exec::DeviceMemory* memory();  // null when initialization failed

 private:
  using Kernel = RegisteredKernel;  // runtime/module_registry.h

  // Common prologue: lock, check init and sticky errors; epilogue records errors.
  Status begin(bool sticky_applies = true);
  // A synchronizing call (mu_ held, before begin): a pending kernel fault
  // becomes the sticky error.
  void synchronizing();
  // A potentially unsafe call during a stream capture (cudaMalloc, cudaFree,
  // a blocking copy, cudaDeviceSynchronize), by this thread's interaction
  // mode: the refusal (StreamCaptureUnsupported, invalidating the captures
  // that forbid it; GraphManager::capture_unsafe_call), else nullopt.
  std::optional<Status> capture_unsafe();
  // A kernel faulted and no synchronizing call has reported it yet: work
  // issued now is queued behind the fault and never runs.
  bool fault_pending() const { return pending_ != Status::Success; }
  Status finish(Status s);
  // Lookups in the ModuleRegistry (module_registry.h), for the facade's files.
  Status use_kernel_module(Kernel& k);
  uint32_t kernel_registers(const Kernel& k) const;
  Status resolve_kernel(const void* kernel, Kernel** out);
  Status resolve_symbol(const void* symbol, exec::VariableInfo* out);
  Status check_stream(void* stream);
  Status check_device_range(const void* p, size_t n);
  exec::ExecOptions exec_options() const;

  Options opts_;

  // Per host thread state (mu_ held): the last error and the
  // __cudaPushCallConfiguration stack. Keyed by a serial number each thread
  // draws once (never reused, unlike std::thread::id); an entry is dropped
  // as soon as it holds nothing, so it lives only while a thread has a
  // pending error or configuration, and goes with the Runtime.
  struct ThreadState {
    Status last_error = Status::Success;
    std::vector<CallConfig> call_stack;
    int capture_mode = 0;  // cudaThreadExchangeStreamCaptureMode's (0 = global)
  };
  std::unordered_map<uint64_t, ThreadState> threads_;
  ThreadState& this_thread();
  void drop_if_empty();  // this thread's entry, when it holds nothing

 public:
  // The texture component (src/runtime/texture.h).
  TextureManager& textures() { return *textures_; }
  const TextureManager& textures() const { return *textures_; }

 private:
  void make_components();
  config::GpuConfig gpu_;
  Status init_status_ = Status::Success;
  std::string init_message_;
  bool init_reported_ = false;

  std::recursive_mutex mu_;
  std::unique_ptr<timing::TimingSession> timing_;  // under --timing
  bool timing_finished_ = false;
  void start_timing();
  void start_jit();
  std::unique_ptr<sanitize::Sanitizer> sanitizer_;  // under softgpu sanitize
  void start_sanitizer();
  timing::CopyPath copy_path(const void* dst, const void* src, CopyKind kind) const;
  timing::StreamRef stream_ref(void* stream) const;  // for the timing model's timeline
  // A graph node being replayed runs on its own timeline (graph_node_timing).
  std::optional<timing::StreamRef> graph_node_stream_;
  std::map<std::pair<const void*, size_t>, uint64_t> graph_node_ids_;  // (exec, node) -> timeline id
  void graph_node_timing(const void* exec, size_t node, const std::vector<uint32_t>* deps, void* stream);
  Status sticky_ = Status::Success;
  Status pending_ = Status::Success;  // a kernel fault not yet reported (synchronizing())
  unsigned device_flags_ = 0;
  std::map<Limit, size_t> limits_;
  bool printf_launched_ = false;  // a kernel that calls printf ran: the printf FIFO size is fixed

  // The components (docs/architecture.md), in dependency order: each may
  // hold references to those above it, so they go in reverse. Created by
  // make_components(); mem_ is null when initialization failed.
  std::unique_ptr<MemoryManager> mem_;         // runtime/memory_manager.h
  std::unique_ptr<StreamsAndEvents> streams_;  // runtime/streams.h
  std::unique_ptr<ModuleRegistry> modules_;    // runtime/module_registry.h
  std::unique_ptr<StreamOrderedMemory> pools_; // runtime/mempool.h
  std::unique_ptr<GraphManager> graphs_;       // runtime/graph.h
  std::unique_ptr<TextureManager> textures_;   // runtime/texture.h
  std::unique_ptr<exec::CodeCompiler> compiler_;  // the JIT (Options::exec), null = interpret
  // The host threads that run launches, kept between them.
  std::unique_ptr<exec::HostThreads> host_threads_ = std::make_unique<exec::HostThreads>();


  // ==========================================================================
  // CUDA graphs and stream capture (the GraphManager component,
  // src/runtime/graph.{h,cpp}; entry points in graph_api.cpp; owned by the
  // graphs engineer). Handles are opaque pointers owned by the component.
  // ==========================================================================
 public:
  Status graph_create(void** out, unsigned flags);
  Status graph_destroy(void* graph);
  // Adds a node; kernel arguments are copied now, as CUDA does.
  Status graph_add_node(void** out, void* graph, void* const* deps, size_t ndeps, const GraphNodeSpec& spec);
  // Node parameters; for a kernel, spec->args points into the node's own copy.
  Status graph_node_get(void* node, GraphNodeSpec* out);
  Status graph_node_set(void* node, const GraphNodeSpec& spec);
  Status graph_add_dependencies(void* graph, void* const* from, void* const* to, size_t n);
  // nodes may be null (count only); otherwise fills min(*count, size) entries.
  Status graph_nodes(void* graph, void** nodes, size_t* count);
  Status graph_clone(void** out, void* graph);
  // flags: cudaGraphInstantiateFlags (AutoFreeOnLaunch = 1 frees the graph's
  // unfreed allocations before each relaunch).
  Status graph_instantiate(void** out, void* graph, unsigned long long flags = 0);
  Status graph_exec_destroy(void* exec);
  Status graph_exec_set_node(void* exec, void* node, const GraphNodeSpec& spec);
  Status graph_exec_update(void* exec, void* graph, ExecUpdateResult* result);
  Status graph_launch(void* exec, void* stream);
  Status stream_begin_capture(void* stream, int mode);
  Status stream_end_capture(void* stream, void** graph);
  // deps (optional): the nodes the stream's next captured work will depend
  // on; the array stays valid until the next capture call on the stream.
  Status stream_capture_info(void* stream, CaptureStatus* status, uint64_t* id, void** graph,
                             void* const** deps = nullptr, size_t* ndeps = nullptr);

  // ==========================================================================
  // Stream-ordered allocation, memory pools and graph memory
  // (the StreamOrderedMemory component, src/runtime/mempool.{h,cpp} and
  // graph_memory.cpp; entry points in mempool_api.cpp).
  // ==========================================================================
 public:
  // `pool` null: the device's current pool.
  Status malloc_async(void** out, size_t size, void* pool, void* stream);
  Status free_async(void* p, void* stream);
  Status mempool_default(void** out, int device);
  Status mempool_current(void** out, int device);
  Status mempool_set_current(int device, void* pool);
  Status mempool_create(void** out, const PoolProps& props);
  Status mempool_destroy(void* pool);
  // Attribute numbers and value types as cudaMemPoolAttr (int or uint64_t).
  Status mempool_set_attribute(void* pool, int attr, const void* value);
  Status mempool_get_attribute(void* pool, int attr, void* value);
  Status mempool_trim(void* pool, size_t keep);
  // Access flags (cudaMemAccessFlags) per location (cudaMemLocationType, id).
  Status mempool_set_access(void* pool, const MemAccess* descs, size_t count);
  Status mempool_get_access(int* flags, void* pool, int location_type, int location_id);
  Status graph_mem_trim(int device);
  // Attribute numbers as cudaGraphMemAttributeType.
  Status graph_mem_get_attribute(int device, int attr, uint64_t* value);
  Status graph_mem_set_attribute(int device, int attr, const uint64_t* value);
};

// Human-readable description of a status (used by error messages and tests).
const char* status_name(Status s);

// ============================================================================
// Texture and surface objects, CUDA arrays (src/runtime/texture.{h,cpp}; owned
// by the texture engineer). Free functions forwarding to the Runtime's
// TextureManager; copies go through Runtime::memcpy_2d.
// ============================================================================
struct ChannelDesc { int x = 0, y = 0, z = 0, w = 0, kind = 0; };  // cudaChannelFormatDesc
inline constexpr unsigned kArrayLayered = 0x1;          // cudaArrayLayered
inline constexpr unsigned kArraySurfaceLoadStore = 0x2; // cudaArraySurfaceLoadStore
struct ArrayInfo { ChannelDesc desc; size_t width = 0, height = 0, depth = 0; unsigned flags = 0; };
// A resource as cudaResourceDesc describes it (array, linear or pitch2D).
struct ResourceSpec {
  enum Kind { Array = 0, Mipmapped = 1, Linear = 2, Pitch2D = 3 } kind = Array;
  void* array = nullptr;
  void* ptr = nullptr;
  ChannelDesc desc;
  size_t size_bytes = 0, width = 0, height = 0, pitch = 0;
};
struct TextureSpec {
  int address[3] = {0, 0, 0};  // cudaTextureAddressMode
  int filter = 0, read_mode = 0, srgb = 0, normalized_coords = 0;
  float border[4] = {0, 0, 0, 0};
};
struct Pos3 { size_t x = 0, y = 0, z = 0; };
// One side of a 3-D copy: an array (positions in elements) or pitched memory (x in bytes).
struct Copy3DSide { void* array = nullptr; void* ptr = nullptr; size_t pitch = 0, xsize = 0, ysize = 0; Pos3 pos; };

// Extent: width/height/depth as cudaExtent (height 0 = 1-D, depth 0 = not 3-D).
Status array_create(Runtime& rt, void** out, const ChannelDesc& desc, size_t width, size_t height, size_t depth,
                    unsigned flags);
Status array_free(Runtime& rt, void* array);
Status array_info(Runtime& rt, const void* array, ArrayInfo* out);
// 2-D copy into/out of an array; woffset and width in bytes, hoffset and height in rows.
Status array_copy_to(Runtime& rt, void* array, size_t woffset, size_t hoffset, const void* src, size_t spitch,
                     size_t width, size_t height, CopyKind kind);
Status array_copy_from(Runtime& rt, void* dst, size_t dpitch, const void* array, size_t woffset, size_t hoffset,
                       size_t width, size_t height, CopyKind kind);
// Extent in elements when either side is an array, else width in bytes.
Status copy_3d(Runtime& rt, const Copy3DSide& src, const Copy3DSide& dst, size_t width, size_t height, size_t depth,
               CopyKind kind);
Status texture_create(Runtime& rt, uint64_t* out, const ResourceSpec& res, const TextureSpec& tex);
Status texture_destroy(Runtime& rt, uint64_t handle);
Status texture_resource(Runtime& rt, uint64_t handle, ResourceSpec* out);
Status texture_spec(Runtime& rt, uint64_t handle, TextureSpec* out);
Status surface_create(Runtime& rt, uint64_t* out, const ResourceSpec& res);
Status surface_destroy(Runtime& rt, uint64_t handle);
Status surface_resource(Runtime& rt, uint64_t handle, ResourceSpec* out);
// The registry launches read (ExecOptions::textures).
const exec::TextureRegistry* texture_registry(const Runtime& rt);

}  // namespace softgpu::runtime
