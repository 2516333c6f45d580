#include "timing/memory_system.h"

#include <algorithm>
#include <bit>

namespace softgpu::timing {
namespace {

uint32_t popc(uint8_t s) { return uint32_t(std::popcount(unsigned(s))); }

// A queue whose single-unit access takes exactly `latency` in all.
BandwidthQueue queue(double per_cycle, double latency, double unit) {
  per_cycle = std::max(per_cycle, 1e-9);
  return BandwidthQueue(per_cycle, std::max(0.0, latency - unit / per_cycle));
}

}  // namespace

Caches::Caches(const TimingParams& p, double share)
    : l1({p.l1_bytes, p.l1_ways, true}, WritePolicy::WriteThroughNoAllocate),
      l2({uint64_t(double(p.l2_bytes) * share), p.l2_ways, true}, WritePolicy::WriteBackAllocate) {
  if (p.l2_far_latency > p.l2_latency)
    near.emplace(CacheGeometry{uint64_t(double(p.l2_bytes) * share / 2), p.l2_ways, true}, WritePolicy::WriteBackAllocate);
}

MemorySystem::MemorySystem(const TimingParams& p, double share)
    : MemorySystem(p, share, std::make_unique<Caches>(p, share), nullptr) {}

MemorySystem::MemorySystem(const TimingParams& p, double share, Caches& caches)
    : MemorySystem(p, share, nullptr, &caches) {}

MemorySystem::MemorySystem(const TimingParams& p, double share, const SharedLines* shared)
    : MemorySystem(p, share) {
  if (!shared || shared->sharers.empty()) return;
  shared_ = shared;
  // Room for twice the shared lines (so that a set of them that fits is not
  // thrashed by set conflicts), at most the whole L2.
  const uint64_t want = std::bit_ceil(uint64_t(shared->sharers.size()) * 2 * kLineBytes);
  const uint64_t bytes = std::clamp<uint64_t>(want, uint64_t(p.l2_ways) * kLineBytes, std::max<uint64_t>(p.l2_bytes, kLineBytes));
  shared_l2_.emplace(CacheGeometry{bytes, p.l2_ways, true}, WritePolicy::WriteBackAllocate);
}

MemorySystem::MemorySystem(const TimingParams& p, double share, std::unique_ptr<Caches> own, Caches* shared)
    : p_(p),
      own_(std::move(own)),
      l1_(shared ? shared->l1 : own_->l1),
      l2_(shared ? shared->l2 : own_->l2),
      near_(shared ? (shared->near ? &*shared->near : nullptr) : (own_->near ? &*own_->near : nullptr)),
      // A load takes at least one wavefront (a cycle of the L1), so the
      // latency is that of a one-wavefront load.
      l1q_(queue(p.l1_bytes_per_cycle, p.l1_latency, p.l1_bytes_per_cycle)),
      smemq_(queue(p.shared_wavefronts_per_cycle, p.shared_latency, 1)),
      l2q_(queue(p.l2_bytes_per_cycle * share, p.l2_latency, kSectorBytes)),
      // DRAM sustains the measured fraction of its spec bandwidth (STREAM).
      dramq_(queue(p.dram_bytes_per_cycle * std::clamp(p.dram_efficiency, 0.01, 1.0) * share, p.dram_latency,
                   kSectorBytes)) {}

double MemorySystem::to_l2(double t, const LineAccess& a, bool write) {
  const uint64_t bytes = uint64_t(popc(a.sectors)) * kSectorBytes;
  stats_.l2_bytes += bytes;
  double done = l2q_.request(t, bytes);
  const L2Home h = home(a.line);
  auto o = write ? h.cache.write(a) : h.cache.read(a);
  uint8_t left = 0;  // sectors an earlier launch left in the L2
  if (!write && o.miss && warm_) {
    left = warm_->present({a.line, o.miss});
    o.hit |= left;
    o.miss &= uint8_t(~left);
  }
  stats_.l2_hit_sectors += popc(o.hit);
  stats_.l2_miss_sectors += popc(o.miss);
  if (near_) {
    // The near partition keeps what this SM reads and writes; L2 hits it
    // does not hold come from the far one.
    uint8_t far = uint8_t(o.hit & (write ? 0 : near_->read(a).miss));
    // What earlier launches left among the newer half of the L2's lines is
    // in the near partition too, as this launch's own recent reads are.
    if (far & left && warm_->among_newest(a.line, std::max<uint32_t>(p_.l2_ways / 2, 1))) far &= uint8_t(~left);
    if (write) near_->write(a);
    if (far) {
      stats_.l2_far_hit_sectors += popc(far);
      done += double(p_.l2_far_latency - p_.l2_latency);
    }
  }
  // Data made dirty will be written to DRAM: streaming kernels write back
  // about everything they write, during the kernel or right after it. Its
  // DRAM bandwidth is charged when a sector first becomes dirty (so that a
  // sampled run sees it before the L2 fills), not again at the eviction.
  // A shared line moves between DRAM and the L2 once for all its sharers:
  // each pays its part of the transfer (and the whole latency).
  charge_write_back(t, o.newly_dirty, h.part);
  if (o.miss && !write) {
    const double rd = double(popc(o.miss)) * kSectorBytes * h.part;
    stats_.dram_bytes += rd;
    stats_.dram_read_bytes += rd;
    done = std::max(done, dramq_.request(t, rd));
  }
  return done;
}

void MemorySystem::charge_write_back(double t, uint8_t newly_dirty, double part) {
  if (!newly_dirty) return;
  const double wb = double(popc(newly_dirty)) * kSectorBytes * part;
  stats_.dram_bytes += wb;
  stats_.dirty_bytes += wb;
  dramq_.request(t, wb);
}

MemorySystem::L2Home MemorySystem::home(uint64_t line) {
  const double sharers = shared_ ? shared_->sharers_of(line) : 0;
  if (sharers > 0) return {*shared_l2_, 1 / sharers};
  return {l2_, 1};
}

double MemorySystem::drain_floor(const MemoryStats& s, double scale) const {
  const double write_back = std::max(0.0, s.dirty_bytes * scale - double(l2_.capacity_bytes()));
  const double dram = (s.dram_read_bytes * scale + write_back) / dramq_.bytes_per_cycle();
  return std::max(dram, double(s.l2_bytes) * scale / l2q_.bytes_per_cycle());
}

double MemorySystem::load(double t, const LineAccess* lines, uint32_t n, uint32_t banks, bool through_l1) {
  uint32_t sectors = 0;
  for (uint32_t i = 0; i < n; ++i) sectors += popc(lines[i].sectors);
  const double cycles = std::max(double(banks), 1 + double(std::max<uint32_t>(n, 1) - 1) / p_.l1_lines_per_cycle);
  double done = l1q_.request(t, banks ? cycles * p_.l1_bytes_per_cycle : double(sectors) * kSectorBytes);
  for (uint32_t i = 0; i < n; ++i) {
    if (!through_l1) {
      done = std::max(done, to_l2(t, lines[i], false));
      continue;
    }
    auto o = l1_.read(lines[i]);
    stats_.l1_hit_sectors += popc(o.hit);
    stats_.l1_miss_sectors += popc(o.miss);
    if (o.miss) done = std::max(done, to_l2(t, {lines[i].line, o.miss}, false));
  }
  return done;
}

double MemorySystem::store(double t, const LineAccess* lines, uint32_t n) {
  uint32_t sectors = 0;
  for (uint32_t i = 0; i < n; ++i) sectors += popc(lines[i].sectors);
  const double done = l1q_.request(t, uint64_t(sectors) * kSectorBytes);
  for (uint32_t i = 0; i < n; ++i) {
    l1_.write(lines[i]);  // write-through: present sectors updated, nothing allocated
    to_l2(t, lines[i], true);
  }
  return done;  // a store frees its registers once it has left the SM
}

double MemorySystem::atomic(double t, const LineAccess* lines, uint32_t n, uint32_t serial) {
  double done = t;
  for (uint32_t i = 0; i < n; ++i) {
    // The read half brings the line into the L2 if needed; the write half dirties it.
    done = std::max(done, to_l2(t, lines[i], false));
    const L2Home h = home(lines[i].line);
    charge_write_back(t, h.cache.write(lines[i]).newly_dirty, h.part);
  }
  // Lanes on one address serialize at the L2: each further update of that
  // word is one more read-modify-write of its sector, so it takes a sector's
  // worth of L2 bandwidth after the first (and the result returns after
  // the last), instead of riding free in the first transfer.
  if (serial > 1) {
    const uint64_t extra = uint64_t(serial - 1) * kSectorBytes;
    stats_.l2_bytes += extra;
    done = std::max(done, l2q_.request(t, extra));
  }
  return done + double(p_.atomic_extra) * double(std::max<uint32_t>(serial, 1) - 1);
}

double MemorySystem::shared(double t, uint32_t wavefronts) {
  stats_.shared_wavefronts += wavefronts;
  ++stats_.shared_accesses;
  return smemq_.request(t, std::max<uint32_t>(wavefronts, 1));
}

double MemorySystem::constant(double t, uint32_t distinct) const {
  return t + double(p_.const_latency) * double(std::max<uint32_t>(distinct, 1));
}

}  // namespace softgpu::timing
