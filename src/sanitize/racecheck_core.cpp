#include "sanitize/racecheck_core.h"

#include <algorithm>

namespace softgpu::sanitize::race {
namespace {
// Reads kept per CTA (beyond it, further reads go untracked: missed WAR
// hazards, never false ones).
constexpr size_t kMaxReadNodes = size_t(1) << 24;
}  // namespace

void CtaModel::reset(uint32_t warps, uint32_t shared) {
  warps_ = warps;
  vc_.assign(size_t(warps) * warps, 0);
  lvc_.assign(size_t(warps) * 32 * 32, 0);
  for (uint32_t w = 0; w < warps; ++w) {
    vc(w)[w] = 1;
    for (uint32_t l = 0; l < 32; ++l) lvc(w, l)[l] = 1;
  }
  bgen_.assign(warps, 0);
  steps_.assign(warps, 0);
  arrive_only_.assign(warps, 0);
  wg_waiting_.assign(warps, 0);
  wg_pending_.assign(warps, 0);
  for (auto& b : bar_) b.clear();
  mbar_.clear();
  if (++gen_ == 0) {  // wrapped: clear for real
    shadow_.clear();
    gen_ = 1;
  }
  if (shadow_.size() < shared) shadow_.resize(shared);
  nodes_.clear();
  free_ = kNone;
  async_.clear();
}

CtaModel::Shadow& CtaModel::at(uint32_t b) {
  Shadow& s = shadow_[b];
  if (s.gen != gen_) {
    s = Shadow();
    s.gen = gen_;
  }
  return s;
}

Access CtaModel::now(uint32_t w, uint32_t lane, bool write, bool atomic, const program::Function* fn,
                     uint32_t pc) const {
  Access a;
  a.fn = fn;
  a.pc = pc;
  a.thread = uint16_t(w * 32 + lane);
  a.write = write;
  a.atomic = atomic;
  a.epoch = vc(w)[w];
  a.lepoch = lvc(w, lane)[lane];
  a.bgen = bgen_[w];
  a.step = steps_[w];
  return a;
}

// Does `before` happen before `a` (a is an access of now)?
bool CtaModel::ordered(const Access& before, const Access& a) const {
  if (before.thread == a.thread) return true;
  const uint32_t bw = before.thread / 32, aw = a.thread / 32;
  if (bw != aw) return before.epoch <= vc(aw)[bw];
  if (before.bgen < a.bgen) return true;
  return before.lepoch <= lvc(aw, a.thread % 32)[before.thread % 32];
}

void CtaModel::drop_reads(Shadow& s) {
  for (uint32_t n = s.reads; n != kNone;) {
    const uint32_t next = nodes_[n].next;
    nodes_[n].next = free_;
    free_ = n;
    n = next;
  }
  s.reads = kNone;
  s.nreads = 0;
  s.prune_at = 16;
}

void CtaModel::access(uint32_t w, uint32_t lane, uint32_t addr, uint32_t size, bool write, bool atomic,
                      const program::Function* fn, uint32_t pc, const std::byte* cur, const std::byte* incoming,
                      const HazardSink& sink) {
  if (w >= warps_) return;
  const Access a = now(w, lane, write, atomic, fn, pc);
  std::vector<std::pair<uint16_t, uint32_t>> seen;  // (thread, pc) of the other accesses reported so far
  auto emit = [&](HazardKind k, uint32_t b, const Access& first) {
    const auto key = std::make_pair(first.thread, first.pc);
    const bool fresh = std::find(seen.begin(), seen.end(), key) == seen.end();
    if (fresh) seen.push_back(key);
    const bool warning = first.thread / 32 == a.thread / 32 && first.step != a.step;
    sink(Hazard{k, b, &first, &a, warning, fresh, cur, incoming, size});
  };
  // A write of the value the bytes hold changes nothing (compute-sanitizer's
  // INFO level, not shown): no WAW or WAR hazard.
  const bool unchanged = write && cur && incoming && std::equal(cur, cur + size, incoming);
  for (uint32_t k = 0; k < size; ++k) {
    const uint32_t b = addr + k;
    if (b >= shadow_.size()) break;
    Shadow& s = at(b);
    const bool same = unchanged;
    if (!write) {
      if (s.has_w && !(s.w.atomic && atomic) && !ordered(s.w, a)) emit(HazardKind::RAW, b, s.w);
      if (s.nreads >= s.prune_at) {  // reads that happen before this one add nothing: drop them now and then
        uint32_t* link = &s.reads;
        while (*link != kNone) {
          ReadNode& r = nodes_[*link];
          if (ordered(r.a, a)) {
            const uint32_t n = *link;
            *link = r.next;
            nodes_[n].next = free_;
            free_ = n;
            --s.nreads;
          } else {
            link = &r.next;
          }
        }
        s.prune_at = uint16_t(std::min<uint32_t>(std::max<uint32_t>(16, 2u * s.nreads), 0xffff));
      }
      uint32_t n = free_;
      if (n != kNone) {
        free_ = nodes_[n].next;
      } else if (nodes_.size() < kMaxReadNodes) {
        n = uint32_t(nodes_.size());
        nodes_.push_back({});
      } else {
        continue;
      }
      nodes_[n] = ReadNode{a, s.reads};
      s.reads = n;
      if (s.nreads < 0xffff) ++s.nreads;
      continue;
    }
    if (!same) {
      if (s.has_w && !(s.w.atomic && atomic) && !ordered(s.w, a)) emit(HazardKind::WAW, b, s.w);
      for (uint32_t n = s.reads; n != kNone; n = nodes_[n].next) {
        const Access& r = nodes_[n].a;
        if (!(r.atomic && atomic) && !ordered(r, a)) emit(HazardKind::WAR, b, r);
      }
    }
    drop_reads(s);
    s.w = a;
    s.has_w = true;
  }
}

void CtaModel::join_into(uint32_t* dst, const std::vector<uint32_t>& src) {
  for (size_t i = 0; i < src.size() && i < warps_; ++i) dst[i] = std::max(dst[i], src[i]);
}

void CtaModel::warp_sync(uint32_t w, uint32_t lanes) {
  if (w >= warps_ || !lanes) return;
  std::array<uint32_t, 32> j{};
  for (uint32_t l = 0; l < 32; ++l)
    if (lanes >> l & 1)
      for (uint32_t i = 0; i < 32; ++i) j[i] = std::max(j[i], lvc(w, l)[i]);
  for (uint32_t l = 0; l < 32; ++l)
    if (lanes >> l & 1) {
      std::copy(j.begin(), j.end(), lvc(w, l));
      ++lvc(w, l)[l];
    }
}

void CtaModel::barrier_arrive(uint32_t w, uint32_t id, bool arrive_only) {
  if (w >= warps_ || id >= bar_.size()) return;
  auto& b = bar_[id];
  if (b.empty()) b.assign(warps_, 0);
  for (uint32_t i = 0; i < warps_; ++i) b[i] = std::max(b[i], vc(w)[i]);
  ++vc(w)[w];
  arrive_only_[w] = arrive_only;
}

void CtaModel::barrier_release(uint32_t id, uint32_t warps) {
  if (id >= bar_.size()) return;
  for (uint32_t w = 0; w < warps_; ++w) {
    if (!(warps >> w & 1) || arrive_only_[w]) continue;
    join_into(vc(w), bar_[id]);
    ++bgen_[w];
  }
  bar_[id].clear();
}

void CtaModel::mbarrier_arrive(uint32_t w, uint64_t addr) {
  if (w >= warps_) return;
  auto& m = mbar_[addr];
  if (m.empty()) m.assign(warps_, 0);
  for (uint32_t i = 0; i < warps_; ++i) m[i] = std::max(m[i], vc(w)[i]);
  ++vc(w)[w];
}

void CtaModel::mbarrier_wait(uint32_t w, uint32_t lanes, uint64_t addr) {
  if (w >= warps_ || !lanes) return;
  if (auto it = mbar_.find(addr); it != mbar_.end()) join_into(vc(w), it->second);
  ++bgen_[w];  // the waiting lanes are ordered with the warp's earlier accesses
}

namespace {
// The clocks a warpgroup's operations publish, kept as mbarriers at
// addresses no shared address reaches: released by the issues, and by the
// completed operation.
constexpr uint32_t kFullLanes = ~0u;
uint64_t wgmma_key(uint32_t w, bool done) { return (1ull << 48) | uint64_t(w / 4) << 1 | uint64_t(done); }
}  // namespace

void CtaModel::wgmma_step(uint32_t w, WgmmaStep step, bool completes) {
  if (w >= warps_) return;
  if (step != WgmmaStep::Wait) wg_waiting_[w] = 0;
  if (step == WgmmaStep::Issue) {
    mbarrier_arrive(w, wgmma_key(w, false));
    if (completes) mbarrier_wait(w, kFullLanes, wgmma_key(w, false));
  } else if (step == WgmmaStep::Wait) {
    if (wg_pending_[w]) mbarrier_wait(w, kFullLanes, wgmma_key(w, true));
    wg_pending_[w] = 0;
    wg_waiting_[w] = 1;  // until its next step: the operation may complete meanwhile
  }
}

void CtaModel::wgmma_done(uint32_t w) {
  if (w >= warps_) return;
  mbarrier_arrive(w, wgmma_key(w, true));
  for (uint32_t o = w / 4 * 4; o < w / 4 * 4 + 4 && o < warps_; ++o) {
    if (o == w) continue;
    if (wg_waiting_[o]) mbarrier_wait(o, kFullLanes, wgmma_key(w, true));
    else wg_pending_[o] = 1;
  }
}

void CtaModel::async_copy(uint32_t w, uint32_t lane, uint32_t addr, uint32_t size, const program::Function* fn,
                          uint32_t pc, const std::byte* cur, const std::byte* incoming, const HazardSink& sink) {
  if (w >= warps_) return;
  access(w, lane, addr, size, true, false, fn, pc, cur, incoming, sink);
  const uint16_t t = uint16_t(w * 32 + lane);
  for (uint32_t b = addr; b < addr + size && b < shadow_.size(); ++b) {
    Shadow& s = at(b);
    if (s.has_w && s.w.thread == t && s.w.pc == pc && s.w.fn == fn) s.w.epoch = s.w.lepoch = s.w.bgen = kNone;
  }
  async_[t].open.push_back({addr, size, pc, fn});
}

void CtaModel::async_commit(uint32_t w, uint32_t lane) {
  ThreadAsync& t = async_[w * 32 + lane];  // an empty group is a group too
  t.groups.push_back(std::move(t.open));
  t.open.clear();
}

void CtaModel::async_wait(uint32_t w, uint32_t lane, uint32_t keep, bool all) {
  auto it = async_.find(w * 32 + lane);
  if (it == async_.end()) return;
  ThreadAsync& t = it->second;
  if (all) async_commit(w, lane);
  while (t.groups.size() > (all ? 0 : keep)) {
    // The copies land now: their bytes' writer gets this moment's clocks (the
    // reads that came between were reported as they came).
    for (const AsyncWrite& c : t.groups.front()) {
      const Access a = now(w, lane, true, false, c.fn, c.pc);
      for (uint32_t b = c.addr; b < c.addr + c.size && b < shadow_.size(); ++b) {
        Shadow& s = at(b);
        if (!s.has_w || s.w.thread != a.thread || s.w.pc != c.pc || s.w.epoch != kNone) continue;
        drop_reads(s);
        s.w = a;
      }
    }
    t.groups.pop_front();
  }
}

}  // namespace softgpu::sanitize::race
