// memcheck: out-of-bounds and misaligned accesses to global, shared and
// local memory, checked before they take effect (a bad access is reported
// and suppressed, the kernel goes on so that every bad thread is reported,
// and the launch then fails with cudaErrorLaunchFailure as on a GPU);
// device malloc/free errors; failed API calls; leaks at exit or
// cudaDeviceReset (--leak-check full). Wording: NVIDIA's Compute Sanitizer
// user guide ("Understanding Memcheck Errors", "Leak Checking").
#include <map>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "isa/opcode.h"
#include "sanitize/sanitizer.h"

namespace softgpu::sanitize {
namespace {

using exec::AccessCheck;
using exec::AccessProblem;

// "global" (also for const), "shared", "local": the report's __global__.
const char* space_name(ptx::Space s) {
  switch (s) {
    case ptx::Space::Shared: return "shared";
    case ptx::Space::Local: return "local";
    default: return "global";
  }
}

// "read", "write", or "atomic" for atom/red (compute-sanitizer's "Invalid
// __global__ atomic of size 4 bytes"); an mbarrier operation is not one.
std::string_view access_name(const AccessCheck& c) {
  if (c.fn && c.pc < c.fn->code.size()) {
    const isa::OpcodeInfo& info = isa::info(c.fn->code[c.pc].op);
    if (info.has(isa::kAtomic) && !info.has(isa::kBarrier)) return "atomic";
  }
  return c.write ? "write" : "read";
}

uint32_t nvtx_kind(const AccessCheck& c) {
  const std::string_view a = access_name(c);
  return a == "atomic" ? kPermAtomic : a == "write" ? kPermWrite : kPermRead;
}

// The relation of an address to a region, compute-sanitizer's second line.
std::string relation(uint64_t addr, uint64_t base, uint64_t size, std::string_view what) {
  if (addr >= base && addr - base < size)
    return fmt::format("and is inside {} at 0x{:x} of size {} bytes", what, base, grouped(size));
  if (addr >= base + size)
    return fmt::format("and is {} bytes after {} at 0x{:x} of size {} bytes", grouped(addr - (base + size)), what,
                       base, grouped(size));
  return fmt::format("and is {} bytes before {} at 0x{:x} of size {} bytes", grouped(base - addr), what, base,
                     grouped(size));
}

class Memcheck final : public Sanitizer {
 public:
  Memcheck(const Options& o, exec::DeviceMemory* m) : Sanitizer(o, m) {}

  bool checks_accesses() const override { return true; }

  bool check_access(const AccessCheck& c) override {
    if (c.problem == AccessProblem::None) {
      if (c.space != ptx::Space::Global && c.space != ptx::Space::Const) return false;
      // NVTX pools and permissions (--nvtx yes): the address line alone, as
      // compute-sanitizer prints these.
      if (nvtx_view_.active && c.space == ptx::Space::Global)
        if (auto why = nvtx_view_.check(c.addr, c.size, nvtx_kind(c))) {
          report(c, *why, false);
          return true;
        }
      if (!memory_) return false;
      // The last allocation found covers most accesses of a kernel.
      if (c.addr - hit_base_ < hit_size_ && c.size <= hit_size_ - (c.addr - hit_base_)) return false;
      if (!memory_->arena().contains(c.addr, c.size)) return false;  // external regions: exact already
      if (global_ok(c.addr, c.size)) return false;
      report(c, "is out of bounds");
      return true;
    }
    report(c, c.problem == AccessProblem::Misaligned ? "is misaligned" : "is out of bounds");
    return true;
  }

  bool heap_event(const exec::HeapEvent& e) override {
    if (!opts_.check_device_heap) return false;  // the heap is one allocation; a bad free faults as unsanitized
    std::lock_guard lock(mu_);
    switch (e.kind) {
      case exec::HeapEvent::Kind::Malloc:
        if (e.addr) {
          heap_[e.addr] = e.size;
          freed_.erase(e.addr);
          dirty_ = true;
        }
        return false;
      case exec::HeapEvent::Kind::Free:
        heap_.erase(e.addr);
        freed_.insert(e.addr);
        hit_size_ = 0;
        return false;
      case exec::HeapEvent::Kind::InvalidFree: {
        auto d = where(e.fn, e.pc, e.warp, e.lane);
        d.push_back(fmt::format("Address 0x{:x}", e.addr));
        add_frames(d, e.fn, e.pc);
        const bool twice = freed_.count(e.addr) != 0;
        reporter_.error(site_identity(twice ? "double_free" : "invalid_free", e.fn, e.pc),
                        twice ? "Malloc/Free error encountered : Double free"
                              : "Malloc/Free error encountered : Invalid pointer to free",
                        d);
        fail_launch();
        return true;
      }
    }
    return false;
  }

  // ---- exec::MemoryObserver (called with the memory's lock held; mu_ is
  // never held while calling into the memory, so the order is memory, mu_) ----
  void allocated(const exec::Allocation&) override {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  void released(const exec::Allocation& a) override {
    Sanitizer::released(a);
    std::lock_guard lock(mu_);
    hit_size_ = 0;
    pooled_.erase(a.base);
  }
  void pool_block(uint64_t base, bool in_use) override {
    std::lock_guard lock(mu_);
    if (in_use) pooled_.erase(base);
    else pooled_.insert(base);
  }

  void device_reset() override {
    leak_check();
    std::lock_guard lock(mu_);
    heap_.clear();
    freed_.clear();
    pooled_.clear();
    dirty_ = false;  // nothing to check at exit unless the program allocates again
    hit_size_ = 0;
  }

 private:
  // Inside one live allocation (and, in the device heap, one live block).
  bool global_ok(uint64_t addr, uint32_t size) {
    auto a = memory_->find(DeviceAddr{addr});
    if (!a || size > a->size - (addr - a->base)) return false;
    if (a->kind != exec::MemKind::Internal || !opts_.check_device_heap || !is_heap(*a)) {
      hit_base_ = a->base;
      hit_size_ = a->size;
      return true;
    }
    std::lock_guard lock(mu_);
    auto it = heap_.upper_bound(addr);
    if (it == heap_.begin()) return false;
    --it;
    return addr - it->first < it->second && size <= it->second - (addr - it->first);
  }

  bool is_heap(const exec::Allocation& a) const {
    const exec::DeviceHeap* h = memory_->existing_heap();
    return h && a.base == h->base();
  }

  // "and is N bytes after/before the nearest allocation at 0x.. of size S bytes"
  std::string nearest(uint64_t addr) {
    auto a = memory_ ? memory_->nearest(DeviceAddr{addr}) : std::nullopt;
    if (!a) return {};
    if (a->kind == exec::MemKind::Internal && is_heap(*a)) {
      std::lock_guard lock(mu_);
      if (!heap_.empty()) {
        auto hi = heap_.lower_bound(addr);
        auto best = hi;
        if (hi == heap_.end() || (hi != heap_.begin() && addr - (std::prev(hi)->first + std::prev(hi)->second) <
                                                             hi->first - addr))
          best = std::prev(hi);
        return relation(addr, best->first, best->second, "the nearest allocation");
      }
    }
    return relation(addr, a->base, a->size, "the nearest allocation");
  }

  void report(const AccessCheck& c, std::string_view what, bool relate = true) {
    auto d = where(c.fn, c.pc, c.warp, c.lane);
    d.push_back(fmt::format("Address 0x{:x} {}", c.addr, what));
    if (!relate) {
    } else if (c.space == ptx::Space::Shared || c.space == ptx::Space::Local) {
      // softgpu's addition: where the block's shared memory or the thread's
      // local memory (its frames in use) ends.
      d.push_back(relation(c.addr, 0, c.region_bytes,
                           c.space == ptx::Space::Shared ? "the block's shared memory" : "the thread's local memory"));
    } else if (std::string n = nearest(c.addr); !n.empty()) {
      d.push_back(std::move(n));
    }
    add_frames(d, c.fn, c.pc);
    Identity id = site_identity(c.problem == AccessProblem::Misaligned ? "misaligned_access" : "invalid_access", c.fn,
                                c.pc);
    id.access = access_name(c);
    id.space = space_name(c.space);
    id.size = std::to_string(c.size);
    reporter_.error(std::move(id),
                    fmt::format("Invalid __{}__ {} of size {} bytes", space_name(c.space), access_name(c), c.size), d);
    fail_launch();
  }

  // Device memory the program allocated and did not free: cudaMalloc,
  // cudaMallocManaged, stream-ordered blocks in use, device malloc.
  void leak_check() {
    if (!opts_.leak_check || !memory_) return;
    uint64_t bytes = 0, count = 0;
    std::map<uint64_t, uint64_t> heap;
    std::set<uint64_t> pooled;
    {
      std::lock_guard lock(mu_);
      heap = heap_;
      pooled = pooled_;
    }
    for (const exec::Allocation& a : memory_->allocations()) {
      if (a.kind != exec::MemKind::Device && a.kind != exec::MemKind::Managed) continue;
      if (pooled.count(a.base)) continue;
      if (!reporter_.error(leak_identity("global", a.size),
                           fmt::format("Leaked {} bytes at 0x{:x}{}", grouped(a.size), a.base, called(a.base)), {}))
        continue;  // suppressed
      bytes += a.size;
      ++count;
    }
    for (const auto& [p, n] : heap) {
      if (!reporter_.error(leak_identity("heap", n),
                           fmt::format("Leaked {} bytes at 0x{:x} on the device heap", grouped(n), p), {}))
        continue;
      bytes += n;
      ++count;
    }
    reporter_.line(fmt::format("LEAK SUMMARY: {} bytes leaked in {} allocations", bytes, count));
  }

  static Identity leak_identity(const char* space, uint64_t bytes) {
    Identity id = sized_identity("leak", bytes);
    id.space = space;
    return id;
  }

  void finish_tool() override {
    if (dirty_) leak_check();
  }

  std::mutex mu_;
  std::map<uint64_t, uint64_t> heap_;  // live device-malloc blocks: address -> bytes requested
  std::set<uint64_t> freed_;           // device-malloc blocks freed and not handed out again
  std::set<uint64_t> pooled_;          // pool blocks the program gave back (cached by their pool)
  bool dirty_ = true;                  // allocations since the start or the last cudaDeviceReset
  // The allocation the last global access fell in (launches run on one host
  // thread under a sanitizer; any release clears it).
  uint64_t hit_base_ = 0, hit_size_ = 0;
};

}  // namespace

std::unique_ptr<Sanitizer> make_memcheck(const Options& o, exec::DeviceMemory* memory) {
  return std::make_unique<Memcheck>(o, memory);
}

}  // namespace softgpu::sanitize
