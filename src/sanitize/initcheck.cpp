// initcheck: reads of device memory (cudaMalloc, pitched and 3D, pools and
// graph allocations) that no copy, memset or kernel wrote, at byte
// granularity; copies whose device source holds such bytes; and (as
// warnings) reads of a CTA's shared memory no thread of it wrote. Reads are reported
// and go ahead: initcheck never stops a kernel. Managed, pinned, registered,
// symbol and internal memory count as written (the host writes them
// directly). See docs/sanitizers.md.
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "sanitize/init_shadow.h"
#include "sanitize/sanitizer.h"

namespace softgpu::sanitize {
namespace {

using exec::AccessKind;

bool checks(AccessKind k) { return k == AccessKind::Load || k == AccessKind::Atomic || k == AccessKind::AsyncCopy; }
bool marks(AccessKind k) {
  return k == AccessKind::Store || k == AccessKind::Atomic || k == AccessKind::Reduce;
}

struct CtaState {
  ByteShadow shared;  // bytes of the CTA's shared memory written so far
};

class Initcheck final : public Sanitizer {
 public:
  Initcheck(const Options& o, exec::DeviceMemory* m) : Sanitizer(o, m) {}

  // ---- device memory ----
  void allocated(const exec::Allocation& a) override {
    if (a.kind != exec::MemKind::Device || a.size == 0) return;
    std::lock_guard lock(mu_);
    drop_overlapping(a.base, a.size);
    shadows_.emplace(a.base, Tracked{a.size, ByteShadow(a.size)});
    last_ = nullptr;
  }
  void released(const exec::Allocation& a) override {
    {
      std::lock_guard lock(mu_);
      if (auto it = shadows_.find(a.base); it != shadows_.end()) report_unused(it->first, it->second);
      shadows_.erase(a.base);
      last_ = nullptr;
    }
    Sanitizer::released(a);  // after the report, which reads the NVTX pool's extent
  }
  void mark_initialized(uint64_t addr, uint64_t n) override { host_write(addr, n); }
  void host_write(uint64_t addr, uint64_t n) override {
    std::lock_guard lock(mu_);
    for_tracked(addr, n, [](uint64_t, Tracked& t, uint64_t off, uint64_t len) { t.bits.set(off, len); });
  }
  void host_read(uint64_t addr, uint64_t n, const char* what) override {
    std::lock_guard lock(mu_);
    for_tracked(addr, n, [&](uint64_t base, Tracked& t, uint64_t off, uint64_t len) {
      const uint64_t bad = t.bits.first_unset(off, len);
      if (bad == len) return;
      Identity id = sized_identity("uninitialized_copy", n);
      id.function = what;
      reporter_.error(std::move(id),
                      fmt::format("Host API memory access error at host access to 0x{:x} of size {} bytes", addr, n),
                      {fmt::format("Uninitialized access at 0x{:x} on access by {} source", base + off + bad, what),
                       fmt::format("and is at offset {} of the allocation at 0x{:x} of size {} bytes", off + bad, base,
                                   t.size)});
    });
  }

  // ---- kernels ----
  void launch_begin(const exec::LaunchInfo& info) override {
    Sanitizer::launch_begin(info);
    // Distributed shared memory (clusters) can write another CTA's shared
    // memory, which one CTA's shadow cannot follow: shared reads go unchecked.
    const uint64_t cluster = uint64_t(info.cluster.x ? info.cluster.x : 1) * (info.cluster.y ? info.cluster.y : 1) *
                             (info.cluster.z ? info.cluster.z : 1);
    check_shared_ = cluster <= 1;
  }
  void* cta_begin(uint32_t, Dim3, uint32_t) override {
    auto* c = new CtaState;
    c->shared = ByteShadow(shared_per_cta_);
    return c;
  }
  void cta_end(uint32_t, void* ctx) override { delete static_cast<CtaState*>(ctx); }

  void step(const exec::WarpStep& s) override {
    for (const exec::MemoryAccess& m : s.mem) {
      if (m.space == ptx::Space::Global) global(s, m);
      else if (m.space == ptx::Space::Shared) shared(s, m);
    }
  }

 private:
  struct Tracked {
    uint64_t size;
    ByteShadow bits;
  };

  // --track-unused-memory: a tracked allocation with bytes nothing wrote,
  // when it is freed (or a pool hands it out again) and at the end.
  void report_unused(uint64_t base, const Tracked& t) {
    if (!opts_.track_unused_memory || !t.size) return;
    constexpr size_t kMaxRanges = 16;
    std::vector<std::string> d;
    uint64_t unused = 0, ranges = 0;
    // An NVTX pool: only the regions the program suballocated from it count.
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    if (opts_.nvtx)
      for (auto [b, n] : nvtx_.pool_extent(base, t.size))
        if (b >= base && b - base < t.size) spans.push_back({b - base, std::min(t.size, b - base + n)});
    const bool pool = !spans.empty();
    if (!pool) spans.push_back({0, t.size});
    for (auto [from, to] : spans)
      for (uint64_t off = from; off < to;) {
        const uint64_t lo = off + t.bits.first_unset(off, to - off);
        if (lo >= to) break;
        const uint64_t hi = lo + t.bits.first_set(lo, to - lo);  // one past the range
        unused += hi - lo;
        if (++ranges <= kMaxRanges)
          d.push_back(fmt::format("Not written {} bytes between offsets 0x{:x} (0x{:x}) and 0x{:x} (0x{:x}) (inclusive)",
                                  grouped(hi - lo), lo, base + lo, hi - 1, base + hi - 1));
        off = hi;
      }
    if (!unused) return;
    if (unused == t.size && !pool) d = {"Not written any memory."};
    else if (ranges > kMaxRanges) d.push_back(fmt::format("and {} more ranges not written", ranges - kMaxRanges));
    // Of a pool, the share of its suballocated bytes.
    uint64_t tracked = 0;
    for (auto [from, to] : spans) tracked += to - from;
    d.push_back(fmt::format("{}% of allocation were unused.", unused * 100 / tracked));
    reporter_.error(sized_identity("unused_memory", t.size),
                    fmt::format(" Unused memory in allocation 0x{:x}{} of size {}", base, called(base), grouped(t.size)),
                    d);
  }
  void finish_tool() override {
    std::lock_guard lock(mu_);
    for (const auto& [base, t] : shadows_) report_unused(base, t);
  }

  // Calls f(base, tracked, offset, length) for each tracked allocation that
  // [addr, addr+n) overlaps.
  template <class F>
  void for_tracked(uint64_t addr, uint64_t n, F&& f) {
    auto it = shadows_.upper_bound(addr);
    if (it != shadows_.begin()) --it;
    for (; it != shadows_.end() && it->first < addr + n; ++it) {
      const uint64_t lo = std::max(addr, it->first), hi = std::min(addr + n, it->first + it->second.size);
      if (lo < hi) f(it->first, it->second, lo - it->first, hi - lo);
    }
  }
  void drop_overlapping(uint64_t addr, uint64_t n) {
    std::vector<uint64_t> gone;
    for_tracked(addr, n, [&](uint64_t base, Tracked&, uint64_t, uint64_t) { gone.push_back(base); });
    for (uint64_t b : gone) shadows_.erase(b);
  }
  // The tracked allocation holding [addr, addr+n), or nullptr (untracked
  // memory counts as written; out-of-bounds accesses are memcheck's).
  std::pair<uint64_t, Tracked*> lookup(uint64_t addr, uint64_t n) {
    if (last_ && addr - last_base_ < last_->size && n <= last_->size - (addr - last_base_)) return {last_base_, last_};
    auto it = shadows_.upper_bound(addr);
    if (it == shadows_.begin()) return {0, nullptr};
    --it;
    if (addr - it->first >= it->second.size || n > it->second.size - (addr - it->first)) return {0, nullptr};
    last_base_ = it->first;
    last_ = &it->second;
    return {last_base_, last_};
  }

  Identity read_identity(const char* kind, const char* space, const exec::WarpStep& s,
                         const exec::MemoryAccess& m) const {
    Identity id = site_identity(kind, s.fn, s.pc);
    id.access = "read";
    id.space = space;
    id.size = std::to_string(m.bytes_per_lane);
    return id;
  }

  void global(const exec::WarpStep& s, const exec::MemoryAccess& m) {
    const bool check = checks(m.kind), mark = marks(m.kind);
    if (!check && !mark) return;
    std::lock_guard lock(mu_);
    if (shadows_.empty()) return;
    for (uint32_t lanes = m.lanes; lanes; lanes &= lanes - 1) {
      const uint32_t l = uint32_t(__builtin_ctz(lanes));
      const uint64_t addr = m.lane_addr[l];
      auto [base, t] = lookup(addr, m.bytes_per_lane);
      if (!t) continue;
      const uint64_t off = addr - base;
      if (check && !t->bits.all_set(off, m.bytes_per_lane)) {
        std::vector<std::string> d;
        Identity id;
        if (reporter_.wants_details()) {  // not past the print limit (a kernel may read millions)
          d = where(s.fn, s.pc, s.warp, l);
          d.push_back(fmt::format("Address 0x{:x}", addr));
          d.push_back(fmt::format("and is at offset {} of the allocation at 0x{:x} of size {} bytes", off, base,
                                  t->size));
          add_frames(d, s.fn, s.pc);
          id = read_identity("uninitialized_read", "global", s, m);
        }
        reporter_.error(std::move(id),
                        fmt::format("Uninitialized __global__ memory read of size {} bytes", m.bytes_per_lane), d);
      }
      if (mark) t->bits.set(off, m.bytes_per_lane);
    }
  }

  void shared(const exec::WarpStep& s, const exec::MemoryAccess& m) {
    auto* c = static_cast<CtaState*>(s.cta_context);
    if (!c) return;
    const bool check = checks(m.kind) && check_shared_;
    const bool mark = marks(m.kind);
    if (!check && !mark) return;
    const uint64_t size = c->shared.size();
    for (uint32_t lanes = m.lanes; lanes; lanes &= lanes - 1) {
      const uint32_t l = uint32_t(__builtin_ctz(lanes));
      const uint64_t off = m.lane_addr[l];
      if (off >= size || m.bytes_per_lane > size - off) continue;  // another CTA's (cluster) or out of bounds
      // A warning, once per instruction: compute-sanitizer does not check
      // shared memory, and libraries (CUB's merge sort) read a slot past
      // their data whose value they then discard.
      if (check && !c->shared.all_set(off, m.bytes_per_lane) && warned_.emplace(s.fn, s.pc).second) {
        auto d = where(s.fn, s.pc, s.warp, l);
        d.push_back(fmt::format("Address 0x{:x}", off));
        d.push_back(fmt::format("and is at offset {} of the block's {} bytes of shared memory", off, size));
        add_frames(d, s.fn, s.pc);
        reporter_.warning(read_identity("uninitialized_shared_read", "shared", s, m),
                          fmt::format("Warning: Uninitialized __shared__ memory read of size {} bytes", m.bytes_per_lane),
                          d);
      }
      if (mark) c->shared.set(off, m.bytes_per_lane);
    }
  }

  std::mutex mu_;
  std::map<uint64_t, Tracked> shadows_;  // tracked allocations by base
  uint64_t last_base_ = 0;
  Tracked* last_ = nullptr;  // the allocation the last lookup found
  bool check_shared_ = true;
  std::set<std::pair<const program::Function*, uint32_t>> warned_;  // shared reads reported
};

}  // namespace

std::unique_ptr<Sanitizer> make_initcheck(const Options& o, exec::DeviceMemory* memory) {
  return std::make_unique<Initcheck>(o, memory);
}

}  // namespace softgpu::sanitize
