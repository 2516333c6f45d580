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
    ptx::Space space;
    bool write;
    uint32_t ordinal;
    uint32_t lanes = 0, bytes = 0;
    std::array<uint64_t, kWarpSize> addr{};
  };
  std::vector<Group> groups;
  constexpr size_t kSpaces = size_t(ptx::Space::Generic) + 1;
  std::array<uint8_t, kWarpSize * 2 * kSpaces> seen{};  // per lane, direction and space: accesses so far
  for (const Access& a : accesses_) {
    uint8_t& n = seen[(a.lane * 2 + a.write) * kSpaces + uint8_t(a.space)];
    const uint32_t ord = n++;
    auto g = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
      return x.space == a.space && x.write == a.write && x.ordinal == ord;
    });
    if (g == groups.end()) {
      groups.push_back({a.space, a.write, ord});
      g = groups.end() - 1;
    }
    g->lanes |= 1u << a.lane;
    g->bytes = std::max(g->bytes, a.size);
    g->addr[a.lane] = a.addr;
  }
  std::stable_sort(groups.begin(), groups.end(), [](const Group& x, const Group& y) {
    return (x.space == ptx::Space::Shared) < (y.space == ptx::Space::Shared);
  });
  std::vector<MemoryAccess> mem;
  mem.reserve(groups.size());
  for (const Group& g : groups)
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
