// memcheck: out-of-bounds and misaligned accesses to global, shared and
// local memory, checked before they take effect (a bad access is reported
// and suppressed, the kernel goes on so that every bad thread is reported,
// and the launch then fails with cudaErrorLaunchFailure as on a GPU);
// device malloc/free errors; failed API calls; leaks at exit (--leak-check
// full).
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "sanitize/sanitizer.h"

namespace softgpu::sanitize {
namespace {

using exec::AccessCheck;
using exec::AccessProblem;

std::string_view space_name(ptx::Space s) {
  switch (s) {
    case ptx::Space::Shared: return "__shared__";
    case ptx::Space::Local: return "__local__";
    default: return "__global__";
  }
}

class Memcheck final : public Sanitizer {
 public:
  Memcheck(const Options& o, exec::DeviceMemory* m) : Sanitizer(o, m) {}

  bool checks_accesses() const override { return true; }

  bool check_access(const AccessCheck& c) override {
    std::vector<std::string> extra;
    if (c.problem == AccessProblem::None) {
      if (c.space != ptx::Space::Global && c.space != ptx::Space::Const) return false;
      if (!memory_ || !memory_->arena().contains(c.addr, c.size)) return false;  // external regions: exact already
      if (global_ok(c.addr, c.size)) return false;
      report(c, "is out of bounds");
      return true;
    }
    report(c, c.problem == AccessProblem::Misaligned ? "is misaligned" : "is out of bounds");
    return true;
  }

  bool heap_event(const exec::HeapEvent& e) override {
    std::lock_guard lock(mu_);
    switch (e.kind) {
      case exec::HeapEvent::Kind::Malloc:
        if (e.addr) heap_[e.addr] = e.size;
        return false;
      case exec::HeapEvent::Kind::Free:
        heap_.erase(e.addr);
        return false;
      case exec::HeapEvent::Kind::InvalidFree: {
        auto d = where(e.fn, e.pc, e.warp, e.lane);
        d.push_back(fmt::format("Address 0x{:x} is not the start of a live block from device malloc", e.addr));
        reporter_.error("Malloc/Free error encountered : Invalid pointer to free", d);
        fail_launch();
        return true;
      }
    }
    return false;
  }

 private:
  // Inside one live allocation (and, in the device heap, one live block).
  bool global_ok(uint64_t addr, uint32_t size) {
    auto a = memory_->find(DeviceAddr{addr});
    if (!a || size > a->size - (addr - a->base)) return false;
    if (a->kind != exec::MemKind::Internal || !is_heap(*a)) return true;
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
        return relation(addr, best->first, best->second);
      }
    }
    return relation(addr, a->base, a->size);
  }

  static std::string relation(uint64_t addr, uint64_t base, uint64_t size) {
    if (addr >= base && addr - base < size)
      return fmt::format("and is inside the nearest allocation at 0x{:x} of size {} bytes", base, size);
    if (addr >= base + size)
      return fmt::format("and is {} bytes after the nearest allocation at 0x{:x} of size {} bytes",
                         addr - (base + size), base, size);
    return fmt::format("and is {} bytes before the nearest allocation at 0x{:x} of size {} bytes", base - addr, base,
                       size);
  }

  void report(const AccessCheck& c, std::string_view what) {
    auto d = where(c.fn, c.pc, c.warp, c.lane);
    if (c.space == ptx::Space::Shared || c.space == ptx::Space::Local) {
      d.push_back(fmt::format("Address 0x{:x} {}", c.addr, what));
      d.push_back(fmt::format("and is at offset {} of the {} {} bytes", c.addr,
                              c.space == ptx::Space::Shared ? "block's" : "thread's", c.region_bytes));
    } else {
      d.push_back(fmt::format("Address 0x{:x} {}", c.addr, what));
      if (std::string n = nearest(c.addr); !n.empty()) d.push_back(std::move(n));
    }
    reporter_.error(fmt::format("Invalid {} {} of size {} bytes", space_name(c.space), c.write ? "write" : "read",
                                c.size),
                    d);
    fail_launch();
  }

  void finish_tool() override {
    if (!opts_.leak_check || !memory_) return;
    uint64_t bytes = 0, count = 0;
    for (const exec::Allocation& a : memory_->allocations()) {
      if (a.kind != exec::MemKind::Device && a.kind != exec::MemKind::Managed) continue;
      reporter_.error(fmt::format("Leaked {} bytes at 0x{:x}", a.size, a.base), {});
      bytes += a.size;
      ++count;
    }
    std::map<uint64_t, uint64_t> heap;
    {
      std::lock_guard lock(mu_);
      heap = heap_;
    }
    for (const auto& [p, n] : heap) {
      reporter_.error(fmt::format("Leaked {} bytes at 0x{:x} (device malloc)", n, p), {});
      bytes += n;
      ++count;
    }
    reporter_.line(fmt::format("LEAK SUMMARY: {} bytes leaked in {} allocations", bytes, count));
  }

  std::mutex mu_;
  std::map<uint64_t, uint64_t> heap_;  // live device-malloc blocks: address -> bytes requested
};

}  // namespace

std::unique_ptr<Sanitizer> make_memcheck(const Options& o, exec::DeviceMemory* memory) {
  return std::make_unique<Memcheck>(o, memory);
}

}  // namespace softgpu::sanitize
