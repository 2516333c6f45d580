// The executor's records for an ExecutionListener (exec/listener.h): one per
// executed warp instruction, with the accesses translate saw, grouped into
// per-lane address vectors.
#include <algorithm>
#include <array>

#include "exec/listener.h"
#include "exec/warp.h"

namespace softgpu::exec {
namespace {

// From the opcode table: atomics (with a destination) and reductions (without),
// hints, texture reads, async copies' global reads, plain loads and stores.
AccessKind kind_of(const Inst& in, bool write, ptx::Space space) {
  const isa::OpcodeInfo& info = isa::info(in.op);
  if (info.has(isa::kAtomic) && !info.has(isa::kBarrier))
    return info.destinations ? AccessKind::Atomic : AccessKind::Reduce;
  if (info.has(isa::kMemHint)) return AccessKind::Prefetch;
  if (info.unit == isa::UnitClass::Texture && !write) return AccessKind::TexFetch;
  if (info.has(isa::kAsync) && !write && space != ptx::Space::Shared) return AccessKind::AsyncCopy;
  return write ? AccessKind::Store : AccessKind::Load;
}

}  // namespace

void Warp::report_step(const Function& f, uint32_t pc, const Inst& in, uint32_t active, uint32_t mask) {
  // Group the accesses: the i-th access of each lane in one (space, direction)
  // goes to group i of it; global groups first (cp.async: the read, then the
  // shared write).
  struct Group {
    Group(ptx::Space s, bool w, uint32_t o) : space(s), write(w), ordinal(o) {}
    ptx::Space space;
    bool write;
    uint32_t ordinal;
    uint32_t lanes = 0, bytes = 0;
    std::array<uint64_t, kWarpSize> addr;  // valid for `lanes`
  };
  std::vector<Group> groups;
  constexpr size_t kSpaces = size_t(ptx::Space::Generic) + 1;
  std::array<uint32_t, kWarpSize * 2 * kSpaces> seen{};  // per lane, direction and space: accesses so far
  // Per direction and space, the group of each ordinal (a wgmma or a TMA
  // copy makes thousands of one-lane accesses: no linear search).
  std::array<std::vector<uint32_t>, 2 * kSpaces> group_of;
  for (const Access& a : accesses_) {
    const uint32_t ord = seen[(a.lane * 2 + a.write) * kSpaces + uint8_t(a.space)]++;
    auto& index = group_of[a.write * kSpaces + uint8_t(a.space)];
    if (index.size() <= ord) {
      index.push_back(uint32_t(groups.size()));
      groups.emplace_back(a.space, a.write, ord);
    }
    Group* g = &groups[index[ord]];
    g->lanes |= 1u << a.lane;
    g->bytes = std::max(g->bytes, a.size);
    g->addr[a.lane] = a.addr;
  }
  std::vector<MemoryAccess> mem;
  mem.reserve(groups.size());
  for (bool shared : {false, true})
    for (const Group& g : groups)
      if ((g.space == ptx::Space::Shared) == shared)
        mem.push_back({g.space, kind_of(in, g.write, g.space), g.bytes, g.lanes, g.addr.data()});

  WarpStep st;
  st.warp = {cta_->linear, warp_id_};
  st.cta_context = cta_->listener_ctx;
  st.function = uint32_t(&f - L_.lp->prog.functions.data());
  st.pc = pc;
  st.fn = &f;
  st.inst = &in;
  st.active = active;
  st.executed = mask;
  if (isa::has_flag(in.op, isa::kBranch)) st.taken = mask;
  st.mem = mem;
  st.sync = syncs_;
  if (faulted_) st.outcome = StepOutcome::Faulted;
  else if (state == WarpState::AtBarrier) {
    st.outcome = StepOutcome::AtBarrier;
    st.barrier_id = bar_id;
    st.barrier_count = bar_expected;
  } else if (state == WarpState::AtClusterBarrier) st.outcome = StepOutcome::AtClusterBarrier;
  else if (state == WarpState::Done) st.outcome = StepOutcome::Exited;
  st.sync_mask = trace_sync_mask_;
  if (is_warp_sync(in)) st.member_masks = trace_members_;
  L_.opts->listener->step(st);
}

}  // namespace softgpu::exec
