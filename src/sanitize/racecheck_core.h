// racecheck's happens-before model of one CTA (docs/sanitizers.md,
// racecheck): a shadow per shared byte with its last writer and the reads
// since, vector clocks over the CTA's warps advanced at CTA barriers and
// mbarriers, and per warp clocks over its lanes advanced at warp-synchronous
// instructions. Kept apart from the listener so unit tests drive it directly.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "program/program.h"

namespace softgpu::sanitize::race {

inline constexpr uint32_t kNone = ~0u;

// One thread's access to a byte, with the clocks its thread had then.
struct Access {
  const program::Function* fn = nullptr;
  uint32_t pc = 0;
  uint16_t thread = 0;  // linear thread index in the CTA
  bool write = false, atomic = false;
  uint32_t epoch = 0;   // its warp's own entry of the warp clock
  uint32_t lepoch = 0;  // its lane's own entry of the lane clock
  uint32_t bgen = 0;    // CTA barriers its warp had waited at
  uint32_t step = 0;    // its warp's instruction count (same instruction = same step)
};

enum class HazardKind : uint8_t { RAW, WAR, WAW };

// A hazard on one byte: `first` happened earlier, `second` is the access now.
struct Hazard {
  HazardKind kind;
  uint32_t byte;
  const Access* first;
  const Access* second;
  bool warning;         // within a warp, different instructions (warp-level programming)
  bool first_of_access; // the lowest hazard byte of this access pair (print the values here)
  // The second access's bytes before it and what it wrote (null: unknown).
  const std::byte* cur = nullptr;
  const std::byte* incoming = nullptr;
  uint32_t size = 0;
};

using HazardSink = std::function<void(const Hazard&)>;

class CtaModel {
 public:
  // `warps` of the CTA, `shared` bytes of shared memory.
  void reset(uint32_t warps, uint32_t shared);

  uint32_t warps() const { return warps_; }
  void count_step(uint32_t w) { ++steps_[w]; }

  // A shared access of `size` bytes at `addr` by lane `lane` of warp `w`.
  // cur: the bytes before it took effect; incoming: what a write wrote
  // (both may be null: values unknown, never treated as equal).
  void access(uint32_t w, uint32_t lane, uint32_t addr, uint32_t size, bool write, bool atomic,
              const program::Function* fn, uint32_t pc, const std::byte* cur, const std::byte* incoming,
              const HazardSink& sink);

  // Lanes `lanes` of warp w took part in one warp-synchronous instruction.
  void warp_sync(uint32_t w, uint32_t lanes);
  // Warp w reached CTA barrier `id` (bar.sync, bar.red, or bar.arrive when arrive_only).
  void barrier_arrive(uint32_t w, uint32_t id, bool arrive_only);
  // Barrier `id` completed; `warps` waited at it (arrive-only warps in it do not acquire).
  void barrier_release(uint32_t id, uint32_t warps);
  // mbarrier at shared address `addr`: an arrival of warp w / a wait of lanes of warp w.
  void mbarrier_arrive(uint32_t w, uint64_t addr);
  void mbarrier_wait(uint32_t w, uint32_t lanes, uint64_t addr);

  // wgmma: the four warps of a warpgroup issue one wgmma.mma_async, which
  // reads shared memory when the last of them issues it (exec/ops_wgmma.cpp)
  // and is complete for a warp at its wgmma.wait_group. Before the accesses
  // of each step of warp w: `wgmma` says what the step is; `completes`: it
  // is the issue that ran the operation (its reads are in this step).
  // After them, for that step: wgmma_done. The reads are ordered after each
  // warp's accesses before its issue, and before each warp's accesses after
  // its wait (accesses of a warp between its issue and its wait are taken
  // as before the operation: a race between those and the operation's
  // reads is missed, none is invented).
  enum class WgmmaStep : uint8_t { None, Issue, Wait };
  void wgmma_step(uint32_t w, WgmmaStep step, bool completes);
  void wgmma_done(uint32_t w);

  // cp.async: the shared write of lane `lane` of warp w. Checked against
  // earlier accesses now; until its wait no other thread is ordered after it.
  void async_copy(uint32_t w, uint32_t lane, uint32_t addr, uint32_t size, const program::Function* fn, uint32_t pc,
                  const std::byte* cur, const std::byte* incoming, const HazardSink& sink);
  void async_commit(uint32_t w, uint32_t lane);
  // Completes all but the newest `keep` committed groups (wait_all: commit, keep 0);
  // all = also the uncommitted copies (cp.async.mbarrier.arrive).
  void async_wait(uint32_t w, uint32_t lane, uint32_t keep, bool all);

 private:
  struct Shadow {
    uint32_t gen = 0;  // valid when it is the model's gen_ (no clearing per CTA)
    Access w;
    bool has_w = false;
    uint32_t reads = kNone;  // head of the reads since the last write
    uint16_t nreads = 0, prune_at = 16;  // reads in the list; when to drop the ordered ones
  };
  struct ReadNode {
    Access a;
    uint32_t next;
  };
  struct AsyncWrite {
    uint32_t addr, size, pc;
    const program::Function* fn;
  };
  struct ThreadAsync {
    std::vector<AsyncWrite> open;
    std::deque<std::vector<AsyncWrite>> groups;
  };

  Access now(uint32_t w, uint32_t lane, bool write, bool atomic, const program::Function* fn, uint32_t pc) const;
  bool ordered(const Access& before, const Access& a) const;
  uint32_t* vc(uint32_t w) { return &vc_[size_t(w) * warps_]; }
  const uint32_t* vc(uint32_t w) const { return &vc_[size_t(w) * warps_]; }
  uint32_t* lvc(uint32_t w, uint32_t lane) { return &lvc_[(size_t(w) * 32 + lane) * 32]; }
  const uint32_t* lvc(uint32_t w, uint32_t lane) const { return &lvc_[(size_t(w) * 32 + lane) * 32]; }
  void join_into(uint32_t* dst, const std::vector<uint32_t>& src);
  void drop_reads(Shadow& s);
  Shadow& at(uint32_t b);

  uint32_t warps_ = 0, gen_ = 0;
  std::vector<uint32_t> vc_, lvc_, bgen_, steps_;
  std::vector<uint8_t> arrive_only_;
  std::vector<uint8_t> wg_waiting_, wg_pending_;  // per warp: at a wgmma wait; to acquire an operation
  std::array<std::vector<uint32_t>, 16> bar_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> mbar_;
  std::vector<Shadow> shadow_;
  std::vector<ReadNode> nodes_;
  uint32_t free_ = kNone;
  std::unordered_map<uint32_t, ThreadAsync> async_;
};

}  // namespace softgpu::sanitize::race
