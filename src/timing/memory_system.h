// The memory hierarchy as one SM sees it: its L1 (sectored, write-through
// for global stores), shared-memory banks, constant cache, and its share of
// the L2 (write-back) and of DRAM bandwidth. Latencies are those of a
// single-sector access; queues add transfer and waiting time on top.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

#include "timing/bandwidth.h"
#include "timing/cache.h"
#include "timing/params.h"

namespace softgpu::timing {

struct MemoryStats {
  uint64_t l1_hit_sectors = 0, l1_miss_sectors = 0;
  uint64_t l2_hit_sectors = 0, l2_miss_sectors = 0;
  uint64_t l2_far_hit_sectors = 0;  // of the hits: from the far partition
  uint64_t l2_bytes = 0;      // moved between L1 and L2 (reads, stores, atomics)
  // DRAM traffic, in bytes (a shared line's divided among its sharers):
  double dram_bytes = 0;       // read from and written back to DRAM
  double dram_read_bytes = 0;  // of those: read (L2 misses of loads and atomics)
  double dirty_bytes = 0;      // sectors made dirty in the L2 (each written back once, at the latest when evicted)
  uint64_t shared_wavefronts = 0;
  uint64_t shared_accesses = 0;
};

// What an L1 and the L2 (its `share` of the capacity) hold; memory systems
// with bandwidth queues of their own may share one (timing/warp_clock.h).
// GPUs whose L2 has a far partition (l2_far_latency above l2_latency:
// A100, H100, H200) also track what the SM's near partition holds: half of
// its L2 share. An L2 hit it lacks comes from the far partition, which is
// how a pointer chase over more than half the L2 sees the far latency
// (gpu-facts.md section 2: H100's plateau at 39-52 MB of its 50 MB).
struct Caches {
  Caches(const TimingParams& p, double share);
  SectorCache l1, l2;
  std::optional<SectorCache> near;
};

// L2 lines that more than one simulated SM touches in a launch
// (KernelModel finds them in the traces before it simulates), with the
// number of the launch's SMs estimated to share each. The L2 is one cache
// for all SMs: such a line is fetched from DRAM once for all its sharers
// and stays for all of them, which SMs simulated each with a private slice
// would miss.
struct SharedLines {
  std::unordered_map<uint64_t, double> sharers;  // line address -> SMs sharing it (>= 2)
  double sharers_of(uint64_t line) const {
    auto it = sharers.find(line);
    return it == sharers.end() ? 0 : it->second;
  }
};

class MemorySystem {
 public:
  // `share`: the part of the chip's L2 capacity and L2/DRAM bandwidth this
  // model gets (1/sm_count when each SM is modelled on its own).
  MemorySystem(const TimingParams& p, double share);
  // The same, reading and filling `caches` (which must outlive it).
  MemorySystem(const TimingParams& p, double share, Caches& caches);
  // The same, with `shared` lines (which must outlive it) kept in a cache
  // of their own, of the whole L2's capacity (or less when they take less),
  // their DRAM traffic divided among their sharers.
  MemorySystem(const TimingParams& p, double share, const SharedLines* shared);

  // Each returns the cycle at which the access's data is back.
  // `banks`: a warp's global load's worst count of distinct 4-byte words in
  // one L1 bank (timing/smem_banks.h); the L1 is then busy max(banks, 1 +
  // (n - 1) / l1_lines_per_cycle) cycles (its data banks, its tag stage).
  // 0 (cp.async, TMA): their sectors' bytes at l1_bytes_per_cycle.
  // `through_l1` false (TMA and cp.async.bulk copies, .cg loads and
  // cp.async): the access passes the SM's port to the L2 but neither looks
  // up nor fills the L1.
  double load(double t, const LineAccess* lines, uint32_t n, uint32_t banks = 0, bool through_l1 = true);
  double store(double t, const LineAccess* lines, uint32_t n);
  double atomic(double t, const LineAccess* lines, uint32_t n, uint32_t serial);
  double shared(double t, uint32_t wavefronts);
  double constant(double t, uint32_t distinct) const;

  const MemoryStats& stats() const { return stats_; }

  // What earlier launches left in the L2 (the whole chip's; it must
  // outlive this): a sector this SM's caches miss but `warm` holds is an
  // L2 hit, not a DRAM read. Read only, never filled from here.
  void set_warm(const SectorCache* warm) { warm_ = warm; }

  // The least time this SM's share of the L2 and of DRAM needs to move
  // `s`'s traffic, scaled by `scale` (the waves it stands for): every L2
  // byte at the L2's bandwidth; every DRAM read, and every dirty byte that
  // no longer fits in the L2 share (written back during the kernel, not
  // after it), at DRAM's. Loads wait on the queues as they go, but stores
  // do not (a store leaves the SM at once), so a write stream's cost shows
  // only here: a kernel cannot end before its memory traffic has drained.
  double drain_floor(const MemoryStats& s, double scale) const;

 private:
  double to_l2(double t, const LineAccess& a, bool write);  // L2 (and DRAM behind it); returns done
  // The cache holding `line` in this SM's view of the L2 (the shared lines'
  // or its own slice), and the part of the line's DRAM traffic it pays.
  struct L2Home {
    SectorCache& cache;
    double part;
  };
  L2Home home(uint64_t line);
  void charge_write_back(double t, uint8_t newly_dirty, double part = 1);
  MemorySystem(const TimingParams& p, double share, std::unique_ptr<Caches> own, Caches* shared);
  const TimingParams& p_;
  std::unique_ptr<Caches> own_;
  SectorCache &l1_, &l2_;  // own_'s or the shared ones
  SectorCache* near_;      // the near L2 partition's contents, or null (one partition)
  const SharedLines* shared_ = nullptr;
  const SectorCache* warm_ = nullptr;
  std::optional<SectorCache> shared_l2_;  // the shared lines' part of the L2
  BandwidthQueue l1q_, smemq_, l2q_, dramq_;
  MemoryStats stats_;
};

}  // namespace softgpu::timing
