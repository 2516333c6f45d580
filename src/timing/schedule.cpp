#include "timing/schedule.h"

#include <algorithm>

namespace softgpu::timing {
namespace {

// Arithmetic only: not branches, barriers, fences and shuffles (the LSU
// pipe), textures, or tensor instructions (wgmma's fences order registers).
bool passable(const TraceOp& p) {
  using program::Pipe;
  if (p.kind != OpKind::Compute) return false;
  switch (p.pipe) {
    case Pipe::Alu: case Pipe::Fma: case Pipe::Fp16: case Pipe::Fp64: case Pipe::Xu: return true;
    default: return false;
  }
}

bool overlaps(const uint32_t* a, uint32_t na, const uint32_t* b, uint32_t nb) {
  for (uint32_t i = 0; i < na; ++i)
    if (std::find(b, b + nb, a[i]) != b + nb) return true;
  return false;
}

// Whether `load` may issue before `p`: no register either writes that the
// other reads or writes.
bool independent(const CtaTrace& t, const TraceOp& load, const TraceOp& p) {
  const uint32_t* lw = t.slots.data() + load.slots;
  const uint32_t* lr = lw + load.n_writes;
  const uint32_t* pw = t.slots.data() + p.slots;
  const uint32_t* pr = pw + p.n_writes;
  return !overlaps(pw, p.n_writes, lr, load.n_reads) && !overlaps(lw, load.n_writes, pr, p.n_reads) &&
         !overlaps(lw, load.n_writes, pw, p.n_writes);
}

}  // namespace

void hoist_loads(CtaTrace& t) {
  for (WarpTrace& w : t.warps) {
    auto& ops = w.ops;
    for (size_t i = 1; i < ops.size(); ++i) {
      if (ops[i].kind != OpKind::Global || ops[i].store) continue;
      size_t j = i;
      while (j > 0 && i - j < kLoadHoistWindow && passable(ops[j - 1]) && independent(t, ops[i], ops[j - 1])) --j;
      if (j < i) std::rotate(ops.begin() + long(j), ops.begin() + long(i), ops.begin() + long(i) + 1);
    }
  }
}

}  // namespace softgpu::timing
