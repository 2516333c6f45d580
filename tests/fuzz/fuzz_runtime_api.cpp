// libFuzzer target: random sequences of runtime API calls (malloc, free,
// memcpy, memset, streams, events, launches of a tiny kernel, synchronize,
// reset) with random and invalid arguments, on the runtime's C++ API.
// Host-side pointers are always valid (as CUDA requires); device pointers,
// handles, sizes, offsets, kinds, flags and launch shapes are not.
// Oracle: each call returns a code from its documented set (CUDA runtime
// API reference), and the exact one where the arguments decide it; a
// kernel fault is latched, as on a GPU where the launch is asynchronous:
// calls that do not wait for the device still return their own codes (the
// work they queue never runs), the next synchronizing call (device, stream
// or event synchronize, a stream or event query, a blocking copy other than
// device to device, cudaFree) reports it, and from then on every call does
// until reset; device memory always holds what a host-side model of it says.
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <iostream>

#include "fuzz_util.h"
#include "runtime/runtime.h"

using namespace softgpu;
using namespace softgpu::fuzz;
using runtime::CopyKind;

namespace {

// p[i] += v for i < n (u32 elements), one thread per element.
constexpr const char* kPtx = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry add(.param .u64 p, .param .u32 n, .param .u32 v)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  ld.param.u32 %r6, [v];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r7, [%rd4];
  add.s32 %r7, %r7, %r6;
  st.global.u32 [%rd4], %r7;
DONE:
  ret;
}
)";

// Codes a kernel fault can surface as at a later call.
bool async_error(Status s) {
  return one_of(s, {Status::IllegalAddress, Status::MisalignedAddress, Status::LaunchFailure, Status::LaunchTimeout,
                    Status::IllegalInstruction, Status::InvalidAddressSpace, Status::InvalidPc,
                    Status::AssertTriggered});
}

struct Bytes_ {
  const uint8_t* p;
  size_t n;
  size_t at = 0;
  bool empty() const { return at >= n; }
  uint8_t u8() { return at < n ? p[at++] : 0; }
  uint32_t u16() { return uint32_t(u8()) | uint32_t(u8()) << 8; }
  uint32_t u32() { return u16() | u16() << 16; }
};

struct Alloc {
  std::vector<uint8_t> model;  // what the device memory must hold
  std::vector<bool> known;     // model byte defined (written by us)
};

class Session {
 public:
  explicit Session(Bytes_ in) : in_(in), host_(kHost) {
    for (size_t i = 0; i < host_.size(); ++i) host_[i] = uint8_t(i * 7 + 1);
    module_ = rt_.register_ptx({kPtx}, "fuzz_api.ptx");
    rt_.register_function(module_, &stub_, "add");
  }

  void run() {
    for (int ops = 0; ops < 200 && !in_.empty(); ++ops) step(in_.u8() % 16);
  }

 private:
  static constexpr size_t kHost = 1 << 16;

  // got must be `exact` when the arguments decide it (else any of
  // `documented`); once a fault is sticky, that code instead. A call that
  // does not synchronize returns its own code while a fault is pending.
  void expect(const char* call, Status got, std::initializer_list<Status> documented,
              std::optional<Status> exact = std::nullopt) {
    if (trace_) std::fprintf(stderr, "  %s -> %d\n", call, int(got));
    if (sticky_) {
      if (got != *sticky_) violation(call, int(got));
      return;
    }
    if (exact ? got != *exact : !one_of(got, documented)) violation(call, int(got));
  }

  // The same for a synchronizing call: a pending fault surfaces here, whatever
  // the arguments, and becomes sticky. A stray access that may have stayed
  // inside mapped device memory (the arena maps whole 2 MiB chunks, as a GPU
  // does) surfaces as a fault or not at all.
  void expect_sync(const char* call, Status got, std::initializer_list<Status> documented,
                   std::optional<Status> exact = std::nullopt) {
    if (fault_pending_ || fault_maybe_) {
      const bool certain = fault_pending_;
      fault_pending_ = fault_maybe_ = false;
      if (async_error(got)) {
        if (trace_) std::fprintf(stderr, "  %s -> %d (the kernel fault)\n", call, int(got));
        sticky_ = got;
        return;
      }
      if (certain) violation(call, int(got));
    }
    expect(call, got, documented, exact);
  }

  // A device pointer: into a live allocation (maybe past its end), a freed
  // one, null or an address no allocation can have.
  void* device_ptr(size_t* alloc_size, size_t* off) {
    *alloc_size = 0;
    *off = 0;
    uint8_t how = in_.u8() % 8;
    if (how < 5 && !live_.empty()) {
      auto it = live_.begin();
      std::advance(it, in_.u8() % live_.size());
      *alloc_size = it->second.model.size();
      *off = in_.u16() % (*alloc_size + 64);
      return static_cast<uint8_t*>(it->first) + *off;
    }
    if (how == 5 && !freed_.empty()) return freed_[in_.u8() % freed_.size()];
    if (how == 6) return nullptr;
    return reinterpret_cast<void*>(uintptr_t(0x1000) + in_.u16() * 16);
  }
  Alloc* alloc_of(void* base) {
    auto it = live_.find(base);
    return it == live_.end() ? nullptr : &it->second;
  }
  // The allocation holding [p, p+n), if any, and p's offset in it.
  Alloc* containing(void* p, size_t n, size_t* off) {
    for (auto& [b, a] : live_) {
      auto* base = static_cast<uint8_t*>(b);
      auto* q = static_cast<uint8_t*>(p);
      if (q >= base && q <= base + a.model.size() && n <= size_t(base + a.model.size() - q)) {
        *off = size_t(q - base);
        return &a;
      }
    }
    return nullptr;
  }
  void* handle(const std::set<void*>& live, const std::vector<void*>& dead) {
    uint8_t how = in_.u8() % 4;
    if (how < 2 && !live.empty()) {
      auto it = live.begin();
      std::advance(it, in_.u8() % live.size());
      return *it;
    }
    if (how == 2 && !dead.empty()) return dead[in_.u8() % dead.size()];
    return reinterpret_cast<void*>(uintptr_t(0x1000) + in_.u16() * 16);
  }
  void* stream() {
    uint8_t how = in_.u8() % 4;
    if (how == 0) return nullptr;
    if (how == 1) return runtime::kLegacyStream;
    return handle(streams_, dead_streams_);
  }
  bool stream_ok(void* s) const {
    return !s || s == runtime::kLegacyStream || s == runtime::kPerThreadStream || streams_.count(s);
  }

  void step(uint8_t op) {
    switch (op) {
      case 0: {  // cudaMalloc: Success, InvalidValue, MemoryAllocation
        size_t size = in_.u8() % 8 == 0 ? size_t(in_.u32()) << 16 : in_.u16();
        void* p = nullptr;
        Status s = rt_.malloc(&p, size);
        expect("malloc", s, {Status::Success, Status::InvalidValue, Status::MemoryAllocation});
        if (s == Status::Success && !sticky_) {
          if (size > 0 && !p) violation("malloc: success without a pointer", 0);
          if (p && live_.size() < 64) {
            live_[p] = Alloc{std::vector<uint8_t>(size), std::vector<bool>(size, false)};
            std::erase(freed_, p);
          } else if (p) {
            expect_sync("free", rt_.free(p), {}, Status::Success);
          }
        }
        break;
      }
      case 1: {  // cudaFree: Success, InvalidValue (it waits for the device)
        size_t size, off;
        void* p = device_ptr(&size, &off);
        bool base = p && live_.count(p);
        Status s = rt_.free(p);
        expect_sync("free", s, {}, !p || base ? Status::Success : Status::InvalidValue);
        if (base && s == Status::Success) {
          live_.erase(p);
          freed_.push_back(p);
        }
        break;
      }
      case 2: case 3: case 4: {  // cudaMemcpy: Success, InvalidValue, InvalidMemcpyDirection
        copy(op);
        break;
      }
      case 5: {  // cudaMemset: Success, InvalidValue (asynchronous to the host)
        size_t size, off;
        void* p = device_ptr(&size, &off);
        size_t n = in_.u16() % 4096;
        int value = int(in_.u8());
        size_t aoff = 0;
        Alloc* a = p ? containing(p, n, &aoff) : nullptr;
        void* st = stream_or_null();
        Status s = rt_.memset(p, value, n, st);
        expect("memset", s, {Status::InvalidResourceHandle},
               want(st, n == 0 || a ? Status::Success : Status::InvalidValue));
        if (s == Status::Success && a && !sticky_)
          for (size_t i = 0; i < n; ++i) a->model[aoff + i] = uint8_t(value), a->known[aoff + i] = true;
        break;
      }
      case 6: {  // cudaStreamCreateWithPriority: Success, InvalidValue
        unsigned flags = in_.u8() % 4;
        void* h = nullptr;
        Status s = rt_.stream_create(&h, flags, int(int8_t(in_.u8())));
        expect("stream_create", s, {}, flags <= 1 ? Status::Success : Status::InvalidValue);
        if (s == Status::Success && !sticky_) streams_.insert(h), std::erase(dead_streams_, h);
        break;
      }
      case 7: {  // cudaStreamDestroy: Success, InvalidValue, InvalidResourceHandle
        void* h = handle(streams_, dead_streams_);
        bool ok = streams_.count(h);
        Status s = rt_.stream_destroy(h);
        expect("stream_destroy", s, {Status::InvalidValue, Status::InvalidResourceHandle},
               ok ? std::optional(Status::Success) : std::nullopt);
        if (ok && s == Status::Success) streams_.erase(h), dead_streams_.push_back(h);
        break;
      }
      case 8: {  // cudaStreamSynchronize / cudaStreamQuery: Success, InvalidValue, InvalidResourceHandle, NotReady
        void* h = stream();
        bool ok = stream_ok(h);
        auto want = ok ? std::optional(Status::Success) : std::nullopt;
        expect_sync("stream_synchronize", rt_.stream_synchronize(h),
                    {Status::InvalidValue, Status::InvalidResourceHandle}, want);
        expect_sync("stream_query", rt_.stream_query(h), {Status::InvalidValue, Status::InvalidResourceHandle}, want);
        break;
      }
      case 9: {  // cudaEventCreateWithFlags: Success, InvalidValue, LaunchFailure, MemoryAllocation
        unsigned flags = in_.u8() % 8;
        void* h = nullptr;
        Status s = rt_.event_create(&h, flags);
        bool valid = !(flags & 4) || (flags & 2);
        expect("event_create", s, {}, valid ? Status::Success : Status::InvalidValue);
        if (s == Status::Success && !sticky_) events_.insert(h), std::erase(dead_events_, h);
        break;
      }
      case 10: {  // cudaEventRecord / Query / Synchronize
        void* e = handle(events_, dead_events_);
        void* st = stream();
        bool ok = events_.count(e);
        auto want = [&](bool good) { return good ? std::optional(Status::Success) : std::nullopt; };
        std::initializer_list<Status> bad = {Status::InvalidValue, Status::InvalidResourceHandle};
        expect("event_record", rt_.event_record(e, st), bad, want(ok && stream_ok(st)));
        expect_sync("event_query", rt_.event_query(e), bad, want(ok));
        expect_sync("event_synchronize", rt_.event_synchronize(e), bad, want(ok));
        break;
      }
      case 11: {  // cudaEventElapsedTime: Success, NotReady, InvalidValue, InvalidResourceHandle, Unknown
        void* a = handle(events_, dead_events_);
        void* b = handle(events_, dead_events_);
        float ms = -1;
        Status s = rt_.event_elapsed(in_.u8() % 8 ? &ms : nullptr, a, b);
        expect("event_elapsed", s, {Status::Success, Status::NotReady, Status::InvalidValue,
                                    Status::InvalidResourceHandle, Status::Unknown});
        if (s == Status::Success && !sticky_ && !(ms >= 0 || ms < 0)) violation("event_elapsed: NaN", 0);
        break;
      }
      case 12: {  // cudaEventDestroy: Success, InvalidValue, InvalidResourceHandle
        void* e = handle(events_, dead_events_);
        bool ok = events_.count(e);
        Status s = rt_.event_destroy(e);
        expect("event_destroy", s, {Status::InvalidValue, Status::InvalidResourceHandle},
               ok ? std::optional(Status::Success) : std::nullopt);
        if (ok && s == Status::Success) events_.erase(e), dead_events_.push_back(e);
        break;
      }
      case 13:
        launch();
        break;
      case 14:  // cudaDeviceSynchronize: Success (or a pending/sticky fault)
        expect_sync("synchronize", rt_.synchronize(), {}, Status::Success);
        break;
      default: {  // cudaDeviceReset: Success; frees everything, clears a sticky fault
        Status s = rt_.reset();
        if (s != Status::Success) violation("reset", int(s));
        for (auto& [p, a] : live_) freed_.push_back(p);
        live_.clear();
        for (void* h : streams_) dead_streams_.push_back(h);
        for (void* h : events_) dead_events_.push_back(h);
        streams_.clear();
        events_.clear();
        sticky_.reset();
        fault_pending_ = fault_maybe_ = false;
        break;
      }
    }
  }

  void* stream_or_null() { return in_.u8() % 4 ? nullptr : stream(); }
  // The exact code when the stream is valid; an invalid stream gives
  // InvalidResourceHandle (or, documented too, InvalidValue).
  std::optional<Status> want(void* stream, Status if_valid) const {
    return stream_ok(stream) ? std::optional(if_valid) : std::nullopt;
  }

  // A blocking cudaMemcpy waits for the device, except device to device ("no
  // host-side synchronization is performed", API synchronization behavior).
  void copy(uint8_t op) {
    size_t n = in_.u16() % 8192;
    size_t hoff = in_.u16() % (kHost - 8192);
    size_t size, off;
    void* d = device_ptr(&size, &off);
    size_t doff = 0;
    Alloc* a = d ? containing(d, n, &doff) : nullptr;
    uint8_t* h = host_.data() + hoff;
    if (op == 2) {  // host to device (sometimes as Default)
      CopyKind kind = in_.u8() % 4 == 0 && a ? CopyKind::Default : CopyKind::HostToDevice;
      void* st = stream_or_null();
      Status s = rt_.memcpy(d, h, n, kind, st);
      expect_sync("memcpy H2D", s, {Status::InvalidResourceHandle},
             want(st, n == 0 || a ? Status::Success : Status::InvalidValue));
      if (s == Status::Success && a && !sticky_)
        for (size_t i = 0; i < n; ++i) a->model[doff + i] = h[i], a->known[doff + i] = true;
    } else if (op == 3) {  // device to host, checked against the model
      std::vector<uint8_t> got(n);
      void* st = stream_or_null();
      Status s = rt_.memcpy(got.data(), d, n, CopyKind::DeviceToHost, st);
      expect_sync("memcpy D2H", s, {Status::InvalidResourceHandle},
             want(st, n == 0 || a ? Status::Success : Status::InvalidValue));
      if (s == Status::Success && a && !sticky_)
        for (size_t i = 0; i < n; ++i)
          if (a->known[doff + i] && got[i] != a->model[doff + i]) violation("device memory differs from the model", 0);
    } else {  // device to device, or an invalid direction
      size_t size2, off2;
      void* d2 = device_ptr(&size2, &off2);
      size_t soff = 0;
      Alloc* b = d2 ? containing(d2, n, &soff) : nullptr;
      uint8_t k = in_.u8();
      if (k % 4 == 0) {
        auto bad = static_cast<CopyKind>(5 + k % 200);
        expect_sync("memcpy bad kind", rt_.memcpy(d, d2, n, bad), {}, Status::InvalidMemcpyDirection);
        return;
      }
      void* st = stream_or_null();
      Status s = rt_.memcpy(d, d2, n, CopyKind::DeviceToDevice, st);
      expect("memcpy D2D", s, {Status::InvalidResourceHandle},
             want(st, n == 0 || (a && b) ? Status::Success : Status::InvalidValue));
      if (s == Status::Success && a && b && !sticky_) {
        Alloc tmp = *b;
        for (size_t i = 0; i < n; ++i) a->model[doff + i] = tmp.model[soff + i], a->known[doff + i] = tmp.known[soff + i];
      }
    }
  }

  // cudaLaunchKernel: Success, InvalidValue (bad shape, measured on an H200),
  // InvalidConfiguration, InvalidDeviceFunction, InvalidResourceHandle,
  // LaunchOutOfResources; a bad pointer faults (reported by the next
  // synchronizing call). Launched behind a pending fault, a kernel never runs.
  void launch() {
    size_t size, off;
    void* p = device_ptr(&size, &off);
    uint32_t n = in_.u8() % 8 == 0 ? in_.u32() : in_.u16() % 4096;
    uint32_t v = in_.u32();
    // Mostly small blocks (each launch is simulated); sometimes up to and past 1024.
    Dim3 grid{1 + in_.u8() % 4u, 1, 1}, block{in_.u8() % 4 ? in_.u16() % 130u : in_.u16() % 1100u, 1, 1};
    if (in_.u8() % 16 == 0) grid.y = 70000;  // over the limit
    size_t shared = in_.u8() % 8 == 0 ? size_t(in_.u32()) : 0;
    void* st = stream();
    bool no_args = in_.u8() % 16 == 0;
    uint64_t pv = reinterpret_cast<uint64_t>(p);
    void* args[] = {&pv, &n, &v};
    Status s = rt_.launch(&stub_, grid, block, no_args ? nullptr : args, shared, st);
    bool shape_ok = block.x >= 1 && block.x <= 1024 && grid.y <= 65535 && shared <= 49152;
    std::optional<Status> want;
    if (!stream_ok(st)) want = std::nullopt;  // InvalidResourceHandle or InvalidValue
    else if (!shape_ok || no_args) want = Status::InvalidValue;
    else want = Status::Success;
    expect("launch", s, {Status::InvalidValue, Status::InvalidResourceHandle}, want);
    if (s != Status::Success || sticky_) return;
    // Which elements the kernel touched, and whether that faults.
    uint64_t threads = uint64_t(grid.x) * block.x, count = std::min<uint64_t>(n, threads);
    if (count == 0) return;
    size_t aoff = 0;
    Alloc* a = p ? containing(p, size_t(count) * 4, &aoff) : nullptr;
    if (!a || pv % 4) {
      // Misaligned, null or far below any allocation: the next synchronizing
      // call reports the fault. Past an allocation's end or into freed memory: a fault
      // unless the chunk is still mapped, and then other allocations may
      // have been written.
      const bool certain = pv % 4 || pv < (uint64_t(1) << 32);
      (certain ? fault_pending_ : fault_maybe_) = true;
      for (auto& [b, al] : live_) al.known.assign(al.known.size(), false);  // partly written
      return;
    }
    for (uint64_t i = 0; i < count; ++i) {
      size_t at = aoff + size_t(i) * 4;
      uint32_t x;
      std::memcpy(&x, &a->model[at], 4);
      x += v;
      std::memcpy(&a->model[at], &x, 4);
      // An element is known only if all four bytes were.
      bool k = a->known[at] && a->known[at + 1] && a->known[at + 2] && a->known[at + 3];
      for (int j = 0; j < 4; ++j) a->known[at + j] = k;
    }
  }

  Bytes_ in_;
  runtime::Runtime rt_{fuzz_gpu(), fuzz_options(5.0)};
  void* module_ = nullptr;
  char stub_ = 0;  // the kernel's host stub: its address is the key
  std::vector<uint8_t> host_;
  std::map<void*, Alloc> live_;
  std::vector<void*> freed_;
  std::set<void*> streams_, events_;
  std::vector<void*> dead_streams_, dead_events_;
  std::optional<Status> sticky_;
  bool fault_pending_ = false;
  bool fault_maybe_ = false;
  // SOFTGPU_FUZZ_TRACE=1: print each call and its code (replaying an input).
  bool trace_ = std::getenv("SOFTGPU_FUZZ_TRACE") != nullptr;
};

}  // namespace

// libFuzzer only (the replay build keeps the messages): the runtime reports
// every load failure and kernel fault on std::cerr, which at thousands of
// inputs a second would drown the fuzzer's own output. Oracle violations
// and sanitizer reports go to stderr directly and still appear.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  std::cerr.rdbuf(nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Session(Bytes_{data, size}).run();
  return 0;
}
