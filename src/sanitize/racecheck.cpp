// racecheck: shared-memory hazards (RAW, WAR, WAW) between threads of a
// block that nothing orders, across warps (CTA barriers, mbarriers) and
// within a warp (__syncwarp, shfl/vote/match/redux .sync); atomics do not
// race with atomics; a cp.async write happens at its wait. The model is in
// racecheck_core; this file feeds it the executor's records and prints
// compute-sanitizer's hazard and analysis reports.
#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "isa/opcode.h"
#include "sanitize/racecheck_core.h"
#include "sanitize/sanitizer.h"

namespace softgpu::sanitize {
namespace {

using race::Access;
using race::Hazard;
using race::HazardKind;

constexpr uint32_t kMaxValueBytes = 32;

std::string_view kind_name(HazardKind k) {
  switch (k) {
    case HazardKind::RAW: return "RAW";
    case HazardKind::WAR: return "WAR";
    default: return "WAW";
  }
}

std::string value(const std::byte* p, uint32_t n) {
  if (n <= 8) {
    uint64_t v = 0;
    for (uint32_t i = 0; i < n; ++i) v |= uint64_t(uint8_t(p[i])) << (8 * i);
    return fmt::format("{}", v);
  }
  std::string s = "0x";
  for (uint32_t i = n; i-- > 0;) s += fmt::format("{:02x}", uint8_t(p[i]));
  return s;
}

std::string_view mod(const program::Inst& in, size_t i) {
  return i < in.raw_mods.size() ? std::string_view(in.raw_mods[i]) : std::string_view();
}

std::vector<std::string> site(const program::Function* fn, uint32_t pc, const program::Program* prog) {
  return fn ? site_lines(*fn, pc, prog) : std::vector<std::string>{"at an unknown instruction"};
}

bool has_mod(const program::Inst& in, std::string_view m) {
  return std::find(in.raw_mods.begin(), in.raw_mods.end(), m) != in.raw_mods.end();
}

class Racecheck final : public Sanitizer {
 public:
  Racecheck(const Options& o, exec::DeviceMemory* m) : Sanitizer(o, m) {}

  bool checks_accesses() const override { return true; }

  void launch_begin(const exec::LaunchInfo& info) override {
    Sanitizer::launch_begin(info);
    ++launches_;
  }

  void* cta_begin(uint32_t cta_linear, Dim3, uint32_t warps) override {
    std::unique_ptr<State> st;
    {
      std::lock_guard lock(mu_);
      if (!pool_.empty()) {
        st = std::move(pool_.back());
        pool_.pop_back();
      }
    }
    if (!st) st = std::make_unique<State>();
    if (st->launch != launches_) {
      st->kinds.clear();
      st->launch = launches_;
    }
    st->cta = cta_linear;
    st->model.reset(warps, uint32_t(shared_per_cta_));
    st->pending.clear();
    return st.release();
  }

  void cta_end(uint32_t, void* ctx) override {
    if (!ctx) return;
    std::lock_guard lock(mu_);
    pool_.emplace_back(static_cast<State*>(ctx));
  }

  // Shared accesses of this CTA, before they take effect: their place and
  // the bytes they find (a write's value is known once the step is reported).
  bool check_access(const exec::AccessCheck& c) override {
    if (c.space != ptx::Space::Shared || !c.data || !c.cta_context || c.addr >= c.region_bytes) return false;
    auto* st = static_cast<State*>(c.cta_context);
    Pending p{c.lane, uint32_t(c.addr), c.size, c.write, c.data, {}};
    std::copy_n(c.data, std::min(c.size, kMaxValueBytes), p.cur.begin());
    st->pending.push_back(p);
    return false;
  }

  void step(const exec::WarpStep& s) override {
    auto* st = static_cast<State*>(s.cta_context);
    if (!st || !s.inst) return;
    race::CtaModel& m = st->model;
    const uint32_t w = s.warp.warp_in_cta;
    m.count_step(w);
    const program::Inst& in = *s.inst;
    const isa::OpcodeInfo& info = isa::info(in.op);
    const Kind& k = kind_of(*st, in);
    const bool async = info.has(isa::kAsync);
    const bool cp_async = k.cp_async, copy = k.copy;
    const bool mbarrier = info.has(isa::kAtomic) && info.has(isa::kBarrier);
    // Memory-model strong accesses (ld/st .relaxed/.acquire/.release, e.g.
    // cuda::atomic_ref) do not race with atomics or each other; a release
    // publishes the warp's accesses at the address, an acquire takes them.
    const bool memory = !s.mem.empty() && !mbarrier;
    const bool acquire = memory && k.acquire;
    const bool release = memory && k.release;
    const bool strong = acquire || release || (memory && k.relaxed);
    auto sink = [&](const Hazard& h) { hazard(*st, h); };
    // wgmma.mma_async's reads come in the step of the warp whose issue ran it.
    using race::CtaModel;
    const std::string_view wg = in.op == isa::Opcode::Wgmma ? mod(in, 0) : std::string_view();
    const bool wg_ran = wg == ".mma_async" && !st->pending.empty();
    m.wgmma_step(w, wg == ".mma_async"    ? CtaModel::WgmmaStep::Issue
                    : wg == ".wait_group" ? CtaModel::WgmmaStep::Wait
                                          : CtaModel::WgmmaStep::None, wg_ran);
    if (!st->pending.empty()) {
      if (copy || !async)  // bulk copies' shared writes are not tracked
        accesses(*st, s, info.has(isa::kAtomic) || strong, copy, sink);
      st->pending.clear();
    }
    if (wg_ran) m.wgmma_done(w);
    if (acquire || release)
      for_shared(s, [&](uint32_t lane, uint64_t a) {
        if (release) m.mbarrier_arrive(w, a);
        if (acquire) m.mbarrier_wait(w, 1u << lane, a);
      });
    if (s.sync_mask && (s.sync_mask & s.executed)) m.warp_sync(w, s.sync_mask & s.executed);
    if (s.outcome == exec::StepOutcome::AtBarrier) m.barrier_arrive(w, s.barrier_id, in.m.arrive);
    if (mbarrier) {
      const bool arrive = k.mb_arrive, wait = k.mb_wait;
      if (arrive || wait)
        for_shared(s, [&](uint32_t lane, uint64_t a) {
          if (arrive) m.mbarrier_arrive(w, a);
          else m.mbarrier_wait(w, 1u << lane, a);
        });
    }
    if (cp_async && !copy) {
      const uint32_t keep = in.nops >= 1 && in.o[0].kind == program::Operand::Kind::Imm ? uint32_t(in.o[0].imm) : 0;
      for (uint32_t l = 0; l < 32; ++l) {
        if (!(s.executed >> l & 1)) continue;
        if (k.async_op == AsyncOp::Commit) m.async_commit(w, l);
        else if (k.async_op == AsyncOp::WaitGroup) m.async_wait(w, l, keep, false);
        else if (k.async_op == AsyncOp::WaitAll) m.async_wait(w, l, 0, true);
      }
      if (k.async_op == AsyncOp::Mbarrier)
        for_shared(s, [&](uint32_t lane, uint64_t a) {
          m.async_wait(w, lane, 0, true);
          m.mbarrier_arrive(w, a);
        });
    }
  }

  void barrier_released(void* ctx, uint32_t id, uint32_t warps) override {
    if (ctx) static_cast<State*>(ctx)->model.barrier_release(id, warps);
  }

  void launch_end(Status) override {
    std::vector<Race> races;
    {
      std::lock_guard lock(mu_);
      races.swap(races_);
      race_index_.clear();
    }
    for (const Race& r : races) {
      auto a = site(r.fn1, r.pc1, program_), b = site(r.fn2, r.pc2, program_);
      std::vector<std::string> d{fmt::format("and {} access {} [{} hazard{}]", r.write2 ? "Write" : "Read", b[0],
                                             r.count, r.count == 1 ? "" : "s")};
      if (a.size() > 1) d.push_back(a[1]);
      if (b.size() > 1 && (r.fn1 != r.fn2 || r.pc1 != r.pc2)) d.push_back(b[1]);
      const std::string head =
          fmt::format("{}: Race reported between {} access {}", r.error ? "Error" : "Warning",
                      r.write1 ? "Write" : "Read", a[0]);
      report(r.error, pair_identity("race", r.fn1, r.pc1, r.fn2, r.pc2,
                                    fmt::format("{}-{}", r.write1 ? "write" : "read", r.write2 ? "write" : "read")),
             head, d);
    }
  }

 private:
  struct Pending {
    uint32_t lane, addr, size;
    bool write;
    const std::byte* data;
    std::array<std::byte, kMaxValueBytes> cur;
  };
  // What an instruction's modifiers say, read from its text once per
  // instruction and launch (never per step).
  enum class AsyncOp : uint8_t { None, Commit, WaitGroup, WaitAll, Mbarrier };
  struct Kind {
    bool cp_async = false, copy = false, acquire = false, release = false, relaxed = false;
    bool mb_arrive = false, mb_wait = false;
    AsyncOp async_op = AsyncOp::None;
  };
  static Kind classify(const program::Inst& in) {
    Kind k;
    const isa::OpcodeInfo& info = isa::info(in.op);
    k.cp_async = info.has(isa::kAsync) && mod(in, 0) == ".async";
    k.copy = k.cp_async && (mod(in, 1) == ".ca" || mod(in, 1) == ".cg");
    k.acquire = has_mod(in, ".acquire") || has_mod(in, ".acq_rel");
    k.release = has_mod(in, ".release") || has_mod(in, ".acq_rel");
    k.relaxed = has_mod(in, ".relaxed");
    const std::string_view op = mod(in, 0);
    k.mb_arrive = op == ".arrive" || op == ".arrive_drop";
    k.mb_wait = op == ".try_wait" || op == ".test_wait";
    if (k.cp_async && !k.copy) {
      const std::string_view a = mod(in, 1);
      k.async_op = a == ".commit_group" ? AsyncOp::Commit
                   : a == ".wait_group" ? AsyncOp::WaitGroup
                   : a == ".wait_all"   ? AsyncOp::WaitAll
                   : a == ".mbarrier"   ? AsyncOp::Mbarrier
                                        : AsyncOp::None;
    }
    return k;
  }
  uint64_t launches_ = 0;
  struct State {
    uint32_t cta = 0;
    uint64_t launch = 0;  // the launch `kinds` belongs to (instructions go with their module)
    race::CtaModel model;
    std::vector<Pending> pending;
    std::unordered_map<const program::Inst*, Kind> kinds;
  };
  const Kind& kind_of(State& st, const program::Inst& in) {
    auto it = st.kinds.find(&in);
    if (it == st.kinds.end()) it = st.kinds.emplace(&in, classify(in)).first;
    return it->second;
  }
  struct Race {
    const program::Function *fn1, *fn2;
    uint32_t pc1, pc2;
    bool write1, write2, error;
    uint64_t count;
  };

  template <class F>
  static void for_shared(const exec::WarpStep& s, F f) {
    for (const exec::MemoryAccess& a : s.mem)
      if (a.space == ptx::Space::Shared)
        for (uint32_t l = 0; l < 32; ++l)
          if (a.lanes >> l & 1) f(l, a.lane_addr[l]);
  }

  // The step's shared accesses in the order the lanes made them; a write's
  // incoming bytes are what the next write to the byte found, else memory now.
  void accesses(State& st, const exec::WarpStep& s, bool atomic, bool copy, const race::HazardSink& sink) {
    const std::vector<Pending>& p = st.pending;
    bool overlap = false;
    if (p.size() > 1) {
      std::vector<std::pair<uint32_t, uint32_t>> r;
      for (const Pending& x : p)
        if (x.write) r.emplace_back(x.addr, x.addr + x.size);
      std::sort(r.begin(), r.end());
      for (size_t i = 1; i < r.size() && !overlap; ++i) overlap = r[i].first < r[i - 1].second;
    }
    const uint32_t w = s.warp.warp_in_cta;
    for (size_t i = 0; i < p.size(); ++i) {
      const Pending& x = p[i];
      const bool values = !atomic && x.size <= kMaxValueBytes;
      std::array<std::byte, kMaxValueBytes> inc{};
      if (x.write && values) {
        std::copy_n(x.data, x.size, inc.begin());
        for (uint32_t k = 0; overlap && k < x.size; ++k) {
          const uint32_t b = x.addr + k;
          for (size_t j = i + 1; j < p.size(); ++j)
            if (p[j].write && b >= p[j].addr && b - p[j].addr < std::min(p[j].size, kMaxValueBytes)) {
              inc[k] = p[j].cur[b - p[j].addr];
              break;
            }
        }
      }
      const std::byte* c = values ? x.cur.data() : nullptr;
      const std::byte* n = x.write && values ? inc.data() : nullptr;
      if (copy) {
        if (x.write) st.model.async_copy(w, x.lane, x.addr, x.size, s.fn, s.pc, c, n, sink);
      } else {
        st.model.access(w, x.lane, x.addr, x.size, x.write, atomic, s.fn, s.pc, c, n, sink);
      }
    }
  }
  void hazard(State& st, const Hazard& h) {
    const Access &a = *h.first, &b = *h.second;
    const bool error = !h.warning;
    if (opts_.race_report != RaceReport::Analysis) {
      std::vector<std::string> d;
      for (const Access* x : {&a, &b})
        d.push_back(fmt::format("{} Thread {} {}", x->write ? "Write" : "Read",
                                dim(thread_of({st.cta, x->thread / 32u}, x->thread % 32u)),
                                site(x->fn, x->pc, program_)[0]));
      if (h.kind != HazardKind::RAW && h.first_of_access && h.cur && h.incoming)
        d.push_back(fmt::format("Current Value : {}, Incoming Value : {}", value(h.cur, h.size),
                                value(h.incoming, h.size)));
      const std::string head = fmt::format("{}: Potential {} hazard detected at __shared__ 0x{:x} in block {} :",
                                           error ? "Error" : "Warning", kind_name(h.kind), h.byte,
                                           dim(block_of(st.cta)));
      report(error, pair_identity("hazard", a.fn, a.pc, b.fn, b.pc, std::string(kind_name(h.kind))), head, d);
    }
    if (opts_.race_report == RaceReport::Hazard) return;
    // One analysis report per pair of instructions, in the order first seen.
    auto k1 = std::make_tuple(a.fn, a.pc, a.write), k2 = std::make_tuple(b.fn, b.pc, b.write);
    const bool swap = k2 < k1;
    const auto key = swap ? std::make_tuple(k2, k1) : std::make_tuple(k1, k2);
    std::lock_guard lock(mu_);
    auto [it, fresh] = race_index_.try_emplace(key, races_.size());
    if (fresh) races_.push_back({a.fn, b.fn, a.pc, b.pc, a.write, b.write, false, 0});
    Race& r = races_[it->second];
    ++r.count;
    r.error |= error;
  }

  // Hazard reports; the RACECHECK SUMMARY (summary_lines) counts those shown.
  void report(bool error, Identity id, const std::string& head, const std::vector<std::string>& d) {
    reporter_.hazard(error, std::move(id), head, d);
  }
  // Two accesses' identity: the first's location, the second's as other_location.
  Identity pair_identity(const char* kind, const program::Function* fn1, uint32_t pc1, const program::Function* fn2,
                         uint32_t pc2, std::string access) const {
    Identity id = site_identity(kind, fn1, pc1);
    id.other_location = site_identity(kind, fn2, pc2).location;
    id.access = std::move(access);
    id.space = "shared";
    return id;
  }

  using Site = std::tuple<const program::Function*, uint32_t, bool>;
  std::mutex mu_;
  std::vector<std::unique_ptr<State>> pool_;
  std::vector<Race> races_;
  std::map<std::tuple<Site, Site>, size_t> race_index_;
};

}  // namespace

std::unique_ptr<Sanitizer> make_racecheck(const Options& o, exec::DeviceMemory* memory) {
  return std::make_unique<Racecheck>(o, memory);
}

}  // namespace softgpu::sanitize
