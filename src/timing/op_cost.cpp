#include "timing/op_cost.h"

#include <algorithm>
#include <cmath>

namespace softgpu::timing {
namespace {

// A tensor-core product occupies the tensor pipe in proportion to its
// work at its type's rate: the configured interval is that of one
// m16n8k16 f16 -> f32 product (4096 FLOP), so a product of F FLOP at a
// rate r times that type's takes interval x F / 4096 / r cycles (rounded
// up to whole cycles, at least one). A type the GPU's tensor cores lack
// runs 16x slower (emulated). Cycles, not whole intervals: a type faster
// than the reference (RTX 4090's f16 accumulate, 2x; its int8, 4x) needs
// less than one interval per product.
uint64_t tensor_cycles(const TimingParams& p, const TraceOp& op, uint32_t interval) {
  const TensorRates& r = p.tensor;
  double rate = 0;
  switch (program::TensorKind(op.tensor)) {
    case program::TensorKind::Fp16F32: rate = r.fp16_f32; break;
    case program::TensorKind::Fp16F16: rate = r.fp16_f16; break;
    case program::TensorKind::Bf16F32: rate = r.bf16_f32; break;
    case program::TensorKind::Tf32: rate = r.tf32; break;
    case program::TensorKind::Fp64: rate = r.fp64; break;
    case program::TensorKind::Int8: rate = r.int8; break;
    case program::TensorKind::Fp8F32: rate = r.fp8_f32; break;
    case program::TensorKind::Fp8F16: rate = r.fp8_f16; break;
    case program::TensorKind::None: break;
  }
  const double ref = r.fp16_f32 > 0 ? r.fp16_f32 : 1;
  const double speed = rate > 0 ? rate / ref : 1.0 / 16;
  return std::max<uint64_t>(1, ceil_cycle(double(interval) * double(op.tensor_flops) / 4096.0 / speed));
}

}  // namespace

uint64_t ceil_cycle(double d) { return d <= 0 ? 0 : uint64_t(std::ceil(d - 1e-9)); }

IssueCost issue_cost(const TimingParams& p, const TraceOp& op) {
  const PipeTiming& pt = p.pipes[size_t(op.pipe)];
  IssueCost c;
  // A sequence issues `slots` instructions on its pipe and its result
  // waits for `depth` dependent ones.
  if (op.sequence != program::Sequence::None) {
    const SequenceCost& s = p.sequence_cost(op.sequence);
    c.slots = std::max<uint32_t>(s.slots, 1);
    c.steps = std::max<uint32_t>(s.depth, 1);
  }
  c.busy = op.tensor_flops ? tensor_cycles(p, op, pt.interval) : uint64_t(pt.interval) * c.slots;
  return c;
}

Completion complete(const TimingParams& p, MemorySystem& mem, const TraceOp& op, const LineAccess* lines, uint64_t t,
                    const IssueCost& c) {
  const PipeTiming& pt = p.pipes[size_t(op.pipe)];
  Completion r;
  // A sequence pays its latency per dependent step; a tensor product taking
  // longer than one interval only its extra issue time.
  r.done = op.tensor_flops ? double(t + pt.latency + (c.busy > pt.interval ? c.busy - pt.interval : 0))
                           : double(t + uint64_t(pt.latency) * c.steps);
  r.from_memory = true;
  const double at = double(t);
  switch (op.kind) {
    case OpKind::Global:
      r.done = op.store ? mem.store(at, lines, op.n_lines) : mem.load(at, lines, op.n_lines, op.wavefronts, !op.skips_l1);
      break;
    case OpKind::Shared: r.done = mem.shared(at, op.wavefronts); break;
    case OpKind::Constant: r.done = mem.constant(at, op.wavefronts); break;
    case OpKind::Atomic: r.done = mem.atomic(at, lines, op.n_lines, op.wavefronts); break;
    case OpKind::AsyncCopy:
      r.async_done = mem.load(at, lines, op.n_lines, 0, !op.skips_l1);
      r.from_memory = false;
      break;
    case OpKind::MbarWait: r.done = mem.shared(at, 1); break;  // reads the object once its phase is complete
    default:
      // A wgmma's shared-memory operands go through the banks as well.
      if (op.tensor_flops && op.wavefronts) r.done = std::max(r.done, mem.shared(at, op.wavefronts));
      r.from_memory = false;
      break;
  }
  return r;
}

}  // namespace softgpu::timing
