// Warp collectives: shfl, vote, match, redux, activemask, elect. These
// read other lanes' values, so every source row is copied to a local array
// before any destination is written (the destination may alias a source).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "exec/ops_common.h"

namespace softgpu::exec {
namespace ops {

// shfl.sync source-lane computation for one lane, exactly as the PTX ISA
// pseudocode: c packs the clamp value (bits 4:0) and segment mask (12:8).
// Returns the source lane j and whether it is in range (the |p output).
struct ShflResult { uint32_t lane; bool valid; };
ShflResult shfl_source(program::ShflMode mode, uint32_t lane, uint32_t b, uint32_t c) {
  const uint32_t bval = b & 0x1f, cval = c & 0x1f, segmask = (c >> 8) & 0x1f;
  const uint32_t max_lane = (lane & segmask) | (cval & ~segmask);
  const uint32_t min_lane = lane & segmask;
  int32_t j;
  bool pval;
  switch (mode) {
    case program::ShflMode::Up: j = int32_t(lane) - int32_t(bval); pval = j >= int32_t(max_lane); break;
    case program::ShflMode::Down: j = int32_t(lane + bval); pval = j <= int32_t(max_lane); break;
    case program::ShflMode::Bfly: j = int32_t(lane ^ bval); pval = j <= int32_t(max_lane); break;
    default: j = int32_t(min_lane | (bval & ~segmask)); pval = j <= int32_t(max_lane); break;
  }
  if (!pval) j = int32_t(lane);
  return {uint32_t(j), pval};
}

namespace {

using program::Type;
using program::VoteMode;
using OK = Operand::Kind;

// Lanes that take part. Each lane names its own membermask; lanes naming the
// same mask form one group (tiled_partition gives each tile its own), so
// f(group, members) runs once per distinct mask among the executing lanes.
template <class F>
void for_member_groups(Warp& w, const Inst& in, int idx, uint32_t mask, F&& f) {
  if (idx >= in.nops) {
    f(mask, mask);
    return;
  }
  uint64_t s[kWarpSize];
  const uint64_t* m = w.src(in.o[idx], s);
  uint32_t rest = mask;
  while (rest) {
    const uint32_t mv = uint32_t(m[std::countr_zero(rest)]);
    uint32_t group = 0;
    for_lanes(rest, [&](uint32_t l) { group |= uint32_t(uint32_t(m[l]) == mv) << l; });
    rest &= ~group;
    f(group, mv & mask);
  }
}

template <program::ShflMode Mode>
void exec_shfl(Warp& w, const Inst& in, uint32_t mask) {
  if (mask == 0) return;
  uint64_t sa[kWarpSize], sb[kWarpSize], sc[kWarpSize], vals[kWarpSize];
  const uint64_t* a = w.src(in.o[1], sa);
  const uint64_t* b = w.src(in.o[2], sb);
  const uint64_t* c = w.src(in.o[3], sc);
  std::memcpy(vals, a, sizeof vals);
  uint64_t* d = w.dst(in.o[0]);
  uint32_t p = 0;
  uint64_t out[kWarpSize];
  for_lanes(mask, [&](uint32_t l) {
    ShflResult r = shfl_source(Mode, l, uint32_t(b[l]), uint32_t(c[l]));
    out[l] = vals[r.lane] & 0xffffffffu;
    p |= uint32_t(r.valid) << l;
  });
  if (d) for_lanes(mask, [&](uint32_t l) { d[l] = out[l]; });
  if (in.pair().kind == OK::Pred) w.set_pred(in.pair(), p, mask);
}

template <VoteMode Mode>
void exec_vote(Warp& w, const Inst& in, uint32_t mask) {
  const uint32_t pred = w.pred_value(in.o[1]);
  uint64_t* d = Mode == VoteMode::Ballot ? w.dst(in.o[0]) : nullptr;
  for_member_groups(w, in, 2, mask, [&](uint32_t group, uint32_t m) {
    const uint32_t a = pred & m;
    if constexpr (Mode == VoteMode::Ballot) {
      if (d) for_lanes(group, [&](uint32_t l) { d[l] = a; });
    } else {
      bool r;
      if constexpr (Mode == VoteMode::All) r = a == m;
      else if constexpr (Mode == VoteMode::Any) r = a != 0;
      else r = a == m || a == 0;
      w.set_pred(in.o[0], r ? kFullMask : 0, group);
    }
  });
}

template <class T, bool All>
void exec_match(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t sa[kWarpSize];
  const uint64_t* ap = w.src(in.o[1], sa);
  T v[kWarpSize];
  for (uint32_t l = 0; l < kWarpSize; ++l) v[l] = T(ap[l]);
  uint64_t out[kWarpSize];
  uint32_t p = 0;
  for_member_groups(w, in, 2, mask, [&](uint32_t group, uint32_t m) {
    if constexpr (All) {
      const uint32_t first = uint32_t(std::countr_zero(m | 0x80000000u));
      bool same = true;
      for_lanes(m, [&](uint32_t l) { same &= v[l] == v[first]; });
      for_lanes(group, [&](uint32_t l) { out[l] = same ? m : 0; });
      if (same) p |= group;
    } else {
      for_lanes(group, [&](uint32_t l) {
        uint32_t r = 0;
        for_lanes(m, [&](uint32_t k) { r |= uint32_t(v[k] == v[l]) << k; });
        out[l] = r;
      });
    }
  });
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = out[l]; });
  if (All && in.pair().kind == OK::Pred) w.set_pred(in.pair(), p, mask);
}

template <class T, int Op>
void exec_redux(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t sa[kWarpSize];
  const uint64_t* a = w.src(in.o[1], sa);
  uint64_t out[kWarpSize];
  for_member_groups(w, in, 2, mask, [&](uint32_t group, uint32_t m) {
    T acc;
    if constexpr (Op == 0 || Op == 4 || Op == 5) acc = 0;          // add, or, xor
    else if constexpr (Op == 1) acc = std::numeric_limits<T>::max();  // min
    else if constexpr (Op == 2) acc = std::numeric_limits<T>::min();  // max
    else acc = T(~T(0));                                          // and
    for_lanes(m, [&](uint32_t l) {
      T x = T(a[l]);
      if constexpr (Op == 0) acc = T(uint32_t(acc) + uint32_t(x));
      else if constexpr (Op == 1) acc = std::min(acc, x);
      else if constexpr (Op == 2) acc = std::max(acc, x);
      else if constexpr (Op == 3) acc = T(acc & x);
      else if constexpr (Op == 4) acc = T(acc | x);
      else acc = T(acc ^ x);
    });
    for_lanes(group, [&](uint32_t l) { out[l] = to_bits<T>(acc); });
  });
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = out[l]; });
}

// redux.sync.{min,max}{.abs}{.NaN}.f32 (sm_100a): min/max.f32 semantics
// (NaN inputs ignored unless .NaN; -0 < +0), .abs on each input first.
template <bool Max, bool Abs, bool NaN>
void exec_redux_f32(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t sa[kWarpSize];
  const uint64_t* a = w.src(in.o[1], sa);
  uint64_t out[kWarpSize];
  for_member_groups(w, in, 2, mask, [&](uint32_t group, uint32_t m) {
    bool any = false, nan = false;
    float acc = 0;
    for_lanes(m, [&](uint32_t l) {
      float x = std::bit_cast<float>(uint32_t(a[l]));
      if (Abs) x = std::fabs(x);
      if (x != x) { nan = true; return; }
      if (!any) { acc = x; any = true; return; }
      if (x == acc) acc = (std::signbit(x) == Max) ? acc : x;  // -0 < +0
      else if ((x > acc) == Max) acc = x;
    });
    // All inputs NaN (or any NaN with .NaN): the canonical NaN.
    const uint32_t r = (!any || (NaN && nan)) ? 0x7fffffffu : std::bit_cast<uint32_t>(acc);
    for_lanes(group, [&](uint32_t l) { out[l] = r; });
  });
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = out[l]; });
}

void exec_activemask(Warp& w, const Inst& in, uint32_t mask) {
  if (uint64_t* d = w.dst(in.o[0])) for_lanes(mask, [&](uint32_t l) { d[l] = mask; });
}

void exec_elect(Warp& w, const Inst& in, uint32_t mask) {
  uint64_t* d = w.dst(in.o[0]);
  uint32_t p = 0;
  for_member_groups(w, in, 1, mask, [&](uint32_t group, uint32_t m) {
    if (m == 0) return;
    const uint32_t leader = uint32_t(std::countr_zero(m));
    if (d) for_lanes(group, [&](uint32_t l) { d[l] = leader; });
    p |= 1u << leader;
  });
  w.set_pred(in.pair(), p, mask);
}

ExecFn bind_shfl(const Inst& in) {
  if (in.type != Type::B32) return nullptr;
  switch (in.m.shfl) {
    case program::ShflMode::Up: return &exec_shfl<program::ShflMode::Up>;
    case program::ShflMode::Down: return &exec_shfl<program::ShflMode::Down>;
    case program::ShflMode::Bfly: return &exec_shfl<program::ShflMode::Bfly>;
    case program::ShflMode::Idx: return &exec_shfl<program::ShflMode::Idx>;
    default: return nullptr;
  }
}
ExecFn bind_vote(const Inst& in) {
  switch (in.m.vote) {
    case VoteMode::All: return in.type == Type::Pred ? &exec_vote<VoteMode::All> : nullptr;
    case VoteMode::Any: return in.type == Type::Pred ? &exec_vote<VoteMode::Any> : nullptr;
    case VoteMode::Uni: return in.type == Type::Pred ? &exec_vote<VoteMode::Uni> : nullptr;
    case VoteMode::Ballot: return in.type == Type::B32 ? &exec_vote<VoteMode::Ballot> : nullptr;
    default: return nullptr;
  }
}
ExecFn bind_match(const Inst& in) {
  const bool all = in.m.vote == VoteMode::All;
  if (!all && in.m.vote != VoteMode::Any) return nullptr;
  if (in.type == Type::B32) return all ? &exec_match<uint32_t, true> : &exec_match<uint32_t, false>;
  if (in.type == Type::B64) return all ? &exec_match<uint64_t, true> : &exec_match<uint64_t, false>;
  return nullptr;
}
template <bool Max>
ExecFn redux_f32(const Inst& in) {
  const bool ab = has_mod(in, ".abs"), n = has_mod(in, ".NaN");
  if (ab) return n ? &exec_redux_f32<Max, true, true> : &exec_redux_f32<Max, true, false>;
  return n ? &exec_redux_f32<Max, false, true> : &exec_redux_f32<Max, false, false>;
}
ExecFn bind_redux(const Inst& in) {
  using program::AtomOp;
  const Type t = in.type;
  switch (in.m.atom) {
    case AtomOp::Add:
      if (t == Type::U32) return &exec_redux<uint32_t, 0>;
      if (t == Type::S32) return &exec_redux<int32_t, 0>;
      return nullptr;
    case AtomOp::Min:
      if (t == Type::F32) return redux_f32<false>(in);
      if (t == Type::U32) return &exec_redux<uint32_t, 1>;
      if (t == Type::S32) return &exec_redux<int32_t, 1>;
      return nullptr;
    case AtomOp::Max:
      if (t == Type::F32) return redux_f32<true>(in);
      if (t == Type::U32) return &exec_redux<uint32_t, 2>;
      if (t == Type::S32) return &exec_redux<int32_t, 2>;
      return nullptr;
    case AtomOp::And: return t == Type::B32 ? &exec_redux<uint32_t, 3> : nullptr;
    case AtomOp::Or: return t == Type::B32 ? &exec_redux<uint32_t, 4> : nullptr;
    case AtomOp::Xor: return t == Type::B32 ? &exec_redux<uint32_t, 5> : nullptr;
    default: return nullptr;
  }
}
ExecFn bind_activemask(const Inst& in) { return in.type == Type::B32 ? &exec_activemask : nullptr; }
ExecFn bind_elect(const Inst& in) { return in.pair().kind == OK::Pred ? &exec_elect : nullptr; }

}  // namespace
}  // namespace ops

void register_warp_handlers(HandlerTable& t) {
  using isa::Opcode;
  t.bind[size_t(Opcode::Shfl)] = &ops::bind_shfl;
  t.bind[size_t(Opcode::Vote)] = &ops::bind_vote;
  t.bind[size_t(Opcode::Match)] = &ops::bind_match;
  t.bind[size_t(Opcode::Redux)] = &ops::bind_redux;
  t.bind[size_t(Opcode::Activemask)] = &ops::bind_activemask;
  t.bind[size_t(Opcode::Elect)] = &ops::bind_elect;
}

}  // namespace softgpu::exec
