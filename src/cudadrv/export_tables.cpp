// cuGetExportTable: NVIDIA's private driver tables, asked for by UUID. The
// static CUDA runtime linked into a program (nvcc's default) and NVIDIA's
// libraries start up through them. Their layouts are not published; what
// this file relies on was learned from public reverse-engineering notes
// (ZLUDA's dark_api descriptions: each table's UUID, that most begin with
// their own size in bytes, which slot does what) and checked by observing
// what the installed toolkit's libcudart_static.a calls
// (tests/cuda/static_runtime). Written here from those facts.
//
// Every slot of a table softgpu hands out is either implemented or a trap
// that names the table and slot on stderr (once) and fails with
// CUDA_ERROR_NOT_SUPPORTED, so an unknown use is reported, never a jump
// through a null pointer. A table softgpu does not know is named once by
// its UUID and the call fails.
#include <nettle/hmac.h>
#include <nettle/md2.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cudadrv/driver.h"

using softgpu::cudadrv::Driver;
using softgpu::cudadrv::guarded;

namespace {

enum TableId { kCudart, kCallbackHooks, kToolsTls, kContextLocal, kContextChecks, kIntegrity, kTableCount };

struct TableInfo {
  const char* name;
  unsigned char uuid[16];
  bool sized;  // slot 0 holds the table's size in bytes
  int slots;   // including slot 0
};

constexpr TableInfo kTables[kTableCount] = {
    {"CUDART_INTERFACE",
     {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, true, 13},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS",
     {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, true, 7},
    {"TOOLS_TLS", {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc},
     true, 4},
    {"CONTEXT_LOCAL_STORAGE",
     {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, false, 3},
    {"CONTEXT_CHECKS",
     {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, true, 4},
    {"INTEGRITY_CHECK",
     {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, true, 3},
};

// The table CUDA 13's runtime asks for first: when the driver provides it,
// the runtime starts through it alone; when the driver says NOT_FOUND, the
// runtime starts through CUDART_INTERFACE and the others.
constexpr unsigned char kRuntimeBypass[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                              0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};

std::string uuid_text(const unsigned char* b) {
  char s[40];
  std::snprintf(s, sizeof s, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return s;
}

// Says `what` on stderr once per process.
void say_once(const std::string& what) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (!said.insert(what).second) return;
  std::fflush(stdout);
  std::fprintf(stderr, "softgpu cuda: %s\n", what.c_str());
}

// The first four integer argument registers are read whatever the slot's
// real parameters (x86-64: a callee may ignore or read them; they are only
// printed), so the message says what the caller passed.
template <int T, int S>
CUresult CUDAAPI trap(uintptr_t a0, uintptr_t a1, uintptr_t a2, uintptr_t a3) {
  const TableInfo& t = kTables[T];
  char args[96];
  std::snprintf(args, sizeof args, "%#lx, %#lx, %#lx, %#lx", static_cast<unsigned long>(a0),
                static_cast<unsigned long>(a1), static_cast<unsigned long>(a2), static_cast<unsigned long>(a3));
  static std::atomic<bool> said{false};  // once per slot, whatever the arguments
  if (!said.exchange(true))
    say_once("NVIDIA's private driver table " + std::string(t.name) + " {" + uuid_text(t.uuid) + "} slot " +
             std::to_string(S) + " was called (first arguments " + args + "); softgpu does not implement it");
  return CUDA_ERROR_NOT_SUPPORTED;
}

using Slot = const void*;

template <int T, int... S>
constexpr void fill_traps(Slot* slots, std::integer_sequence<int, S...>) {
  ((slots[S] = reinterpret_cast<Slot>(&trap<T, S>)), ...);
}

template <int T>
struct Table {
  Slot slots[kTables[T].slots];
  // Traps everywhere but the slots given (slot number, function).
  Table(std::initializer_list<std::pair<int, Slot>> implemented) {
    fill_traps<T>(slots, std::make_integer_sequence<int, kTables[T].slots>{});
    if (kTables[T].sized) slots[0] = reinterpret_cast<Slot>(sizeof(slots));
    for (auto [i, fn] : implemented) slots[i] = fn;
  }
};

// CUDART_INTERFACE slot 2: the device's primary context, which the
// runtime then makes current itself.
CUresult CUDAAPI primary_context(CUcontext* pctx, CUdevice dev) {
  return guarded([&] {
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = softgpu::cudadrv::check_device(dev); r != CUDA_SUCCESS) return r;
    *pctx = Driver::get().primary();
    return CUDA_SUCCESS;
  });
}

// CUDART_INTERFACE slot 12: called with no arguments by CUDA 13.2's runtime
// (NVIDIA's libcudart.so.13 of the nvidia-cuda-runtime 13.2 wheel, which
// PyTorch loads) as it starts, unless a variable of its own environment says
// to skip it; CUDA_SUCCESS lets it go on, any other code fails every runtime
// call (cudaErrorNotSupported while this slot trapped). Seen at the call
// site; what NVIDIA's driver checks there is not known, and softgpu has
// nothing to check.
CUresult CUDAAPI runtime_start_check() { return CUDA_SUCCESS; }

// TOOLS_RUNTIME_CALLBACK_HOOKS slots 2 and 6: memory the runtime keeps its
// tool-callback state in (sizes as NVIDIA's driver hands out), owned by the
// driver for the life of the process. softgpu's tools do not read it.
template <size_t N>
void CUDAAPI hook_buffer(void** ptr, size_t* size) {
  alignas(64) static unsigned char buffer[N];
  if (ptr) *ptr = buffer;
  if (size) *size = N;
}

// CONTEXT_CHECKS slot 2: a context's flags for the runtime (none here);
// slot 3: a process-wide one (none).
CUresult CUDAAPI context_check(CUcontext, unsigned* flags, const void** detail) {
  if (flags) *flags = 0;
  if (detail) *detail = nullptr;
  return CUDA_SUCCESS;
}
unsigned CUDAAPI global_check() { return 0; }

const Slot* table(int id);

// CONTEXT_LOCAL_STORAGE: values the runtime keeps per (context, key), with
// a destructor called when the context's state goes (a primary context
// reset), so that the runtime forgets what it had loaded into it. A null
// context is the calling thread's current one, or the primary context.
using LocalDtor = void(CUDAAPI*)(CUcontext, void* key, void* value);
struct LocalValue {
  void* value;
  LocalDtor dtor;
};
std::mutex local_mutex;
std::map<std::pair<CUcontext, void*>, LocalValue>& locals() {
  static auto* m = new std::map<std::pair<CUcontext, void*>, LocalValue>();  // never destroyed (atexit callers)
  return *m;
}

// The context a call means: a null one is the calling thread's current
// context (none: the runtime has not set this thread up yet, and learns so
// from the failure).
CUcontext local_context(CUcontext ctx) {
  if (ctx) return ctx;
  auto& s = softgpu::cudadrv::context_stack();
  return s.empty() ? nullptr : s.back();
}

CUresult CUDAAPI local_put(CUcontext ctx, void* key, void* value, LocalDtor dtor) {
  if (!key) return CUDA_ERROR_INVALID_VALUE;
  if (!(ctx = local_context(ctx))) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(local_mutex);
  locals()[{ctx, key}] = {value, dtor};
  return CUDA_SUCCESS;
}

CUresult CUDAAPI local_delete(CUcontext ctx, void* key) {
  if (!key) return CUDA_ERROR_INVALID_VALUE;
  if (!(ctx = local_context(ctx))) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(local_mutex);
  locals().erase({ctx, key});
  return CUDA_SUCCESS;
}

CUresult CUDAAPI local_get(void** value, CUcontext ctx, void* key) {
  if (!value || !key) return CUDA_ERROR_INVALID_VALUE;
  *value = nullptr;
  if (!(ctx = local_context(ctx))) return CUDA_ERROR_INVALID_CONTEXT;
  std::lock_guard lock(local_mutex);
  auto it = locals().find({ctx, key});
  if (it == locals().end()) return CUDA_ERROR_INVALID_HANDLE;
  *value = it->second.value;
  return CUDA_SUCCESS;
}

// INTEGRITY_CHECK slot 1: the runtime checks that it talks to a driver by
// asking for a keyed hash (HMAC-MD2 with the runtime's 16-byte key) of the
// driver's version, the version the runtime passes, the calling process
// and thread, the addresses of the CUDART_INTERFACE table, this table and
// this function, the time the runtime passes, and each device's UUID and
// PCI domain/bus/device numbers, and comparing it with its own.
struct IntegrityInput {
  uint32_t driver_version, version, process, thread;
  const void* cudart_table;
  const void* integrity_table;
  const void* function;
  uint64_t unix_seconds;
};
struct IntegrityDevice {
  CUuuid uuid;
  int32_t pci_domain, pci_bus, pci_device;
};
static_assert(sizeof(IntegrityInput) == 48 && sizeof(IntegrityDevice) == 28);

CUresult CUDAAPI integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]) {
  if (!result) return CUDA_ERROR_INVALID_VALUE;
  constexpr uint8_t kKey[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};
  struct md2_ctx outer, inner, state;
  hmac_set_key(&outer, &inner, &state, &nettle_md2, sizeof kKey, kKey);
  int driver = 0;
  cuDriverGetVersion(&driver);
  IntegrityInput in{static_cast<uint32_t>(driver),
                    version,
                    static_cast<uint32_t>(getpid()),
                    static_cast<uint32_t>(pthread_self()),
                    table(kCudart),
                    table(kIntegrity),
                    reinterpret_cast<const void*>(&integrity_check),
                    unix_seconds};
  hmac_update(&state, &nettle_md2, sizeof in, reinterpret_cast<const uint8_t*>(&in));
  int count = 0;
  if (CUresult r = cuDeviceGetCount(&count); r != CUDA_SUCCESS) return r;
  for (int d = 0; d < count; ++d) {
    IntegrityDevice dev{};
    if (CUresult r = cuDeviceGetUuid(&dev.uuid, d); r != CUDA_SUCCESS) return r;
    cuDeviceGetAttribute(&dev.pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, d);
    cuDeviceGetAttribute(&dev.pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, d);
    cuDeviceGetAttribute(&dev.pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, d);
    hmac_update(&state, &nettle_md2, sizeof dev, reinterpret_cast<const uint8_t*>(&dev));
  }
  uint8_t digest[MD2_DIGEST_SIZE];
  hmac_digest(&outer, &inner, &state, &nettle_md2, sizeof digest, digest);
  std::memcpy(result, digest, sizeof digest);
  return CUDA_SUCCESS;
}

// TOOLS_TLS slot 2: the calling thread's current context.
CUresult CUDAAPI tools_current_context(CUcontext* ctx) { return cuCtxGetCurrent(ctx); }

const Slot* table(int id) {
  auto fn = [](auto* f) { return reinterpret_cast<Slot>(f); };
  static Table<kCudart> cudart{{2, fn(&primary_context)}, {12, fn(&runtime_start_check)}};
  static Table<kCallbackHooks> hooks{{2, fn(&hook_buffer<1024>)}, {6, fn(&hook_buffer<14>)}};
  static Table<kToolsTls> tls{{2, fn(&tools_current_context)}};
  static Table<kContextLocal> local{{0, fn(&local_put)}, {1, fn(&local_delete)}, {2, fn(&local_get)}};
  static Table<kContextChecks> checks{{2, fn(&context_check)}, {3, fn(&global_check)}};
  static Table<kIntegrity> integrity{{1, fn(&integrity_check)}};
  switch (id) {
    case kCudart: return cudart.slots;
    case kCallbackHooks: return hooks.slots;
    case kToolsTls: return tls.slots;
    case kContextLocal: return local.slots;
    case kContextChecks: return checks.slots;
    case kIntegrity: return integrity.slots;
  }
  return nullptr;
}

}  // namespace

namespace softgpu::cudadrv {
void context_reset(CUcontext ctx) {
  std::vector<std::pair<std::pair<CUcontext, void*>, LocalValue>> gone;
  {
    std::lock_guard lock(local_mutex);
    auto& m = locals();
    for (auto it = m.begin(); it != m.end();) {
      if (it->first.first == ctx) {
        gone.emplace_back(*it);
        it = m.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& [k, v] : gone)
    if (v.dtor) v.dtor(ctx, k.second, v.value);
}
}  // namespace softgpu::cudadrv

CUresult CUDAAPI cuGetExportTable(const void** ppExportTable, const CUuuid* pExportTableId) {
  try {
    if (!ppExportTable || !pExportTableId) return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = nullptr;
    const auto* id = reinterpret_cast<const unsigned char*>(pExportTableId->bytes);
    if (std::memcmp(id, kRuntimeBypass, 16) == 0) return CUDA_ERROR_NOT_FOUND;
    for (int t = 0; t < kTableCount; ++t)
      if (std::memcmp(id, kTables[t].uuid, 16) == 0) {
        *ppExportTable = table(t);
        return CUDA_SUCCESS;
      }
    say_once("cuGetExportTable: NVIDIA's private table {" + uuid_text(id) + "} is not provided");
    return CUDA_ERROR_NOT_SUPPORTED;
  } catch (...) {
    return CUDA_ERROR_UNKNOWN;
  }
}
