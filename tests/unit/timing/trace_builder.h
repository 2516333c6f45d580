// Hand-written traces for the timing model's unit tests: a small GPU's
// parameters (the numbers the tests' hand-computed cycles use) and a CTA
// trace built op by op.
#pragma once
#include <vector>

#include "timing/params.h"
#include "timing/trace.h"

namespace softgpu::timing {

inline TimingParams params() {
  TimingParams p;
  p.sub_partitions = 4;
  p.pipes[size_t(program::Pipe::Fma)] = {4, 1};
  p.pipes[size_t(program::Pipe::Xu)] = {20, 8};
  p.pipes[size_t(program::Pipe::Lsu)] = {4, 1};
  p.pipes[size_t(program::Pipe::Barrier)] = {1, 1};
  p.barrier_latency = 10;
  p.cta_launch_cycles = 5;
  p.l1_latency = 33;
  p.l2_latency = 200;
  p.dram_latency = 500;
  p.shared_latency = 30;
  p.l1_bytes_per_cycle = 128;
  p.l2_bytes_per_cycle = 2048;
  p.dram_bytes_per_cycle = 1000;
  p.shared_wavefronts_per_cycle = 1;
  return p;
}

struct Cta {
  CtaTrace t;
  explicit Cta(int warps) { t.warps.resize(size_t(warps)); }
  TraceOp& op(int w, program::Pipe pipe, std::vector<uint32_t> writes, std::vector<uint32_t> reads,
              OpKind kind = OpKind::Compute) {
    TraceOp o;
    o.pipe = pipe;
    o.kind = kind;
    o.slots = uint32_t(t.slots.size());
    o.n_writes = uint8_t(writes.size());
    o.n_reads = uint8_t(reads.size());
    t.slots.insert(t.slots.end(), writes.begin(), writes.end());
    t.slots.insert(t.slots.end(), reads.begin(), reads.end());
    t.warps[size_t(w)].ops.push_back(o);
    return t.warps[size_t(w)].ops.back();
  }
  TraceOp& load(int w, uint32_t dst, uint32_t addr_reg, uint64_t line, uint8_t sectors) {
    TraceOp& o = op(w, program::Pipe::Lsu, {dst}, {addr_reg}, OpKind::Global);
    o.wavefronts = 1;  // one line's words in distinct banks, as the recorder finds a coalesced load
    o.lines = uint32_t(t.lines.size());
    o.n_lines = 1;
    t.lines.push_back({line, sectors});
    return o;
  }
  TraceOp& store(int w, uint32_t addr_reg, uint32_t data_reg, uint64_t line, uint8_t sectors) {
    TraceOp& o = op(w, program::Pipe::Lsu, {}, {addr_reg, data_reg}, OpKind::Global);
    o.store = true;
    o.lines = uint32_t(t.lines.size());
    o.n_lines = 1;
    t.lines.push_back({line, sectors});
    return o;
  }
};

}  // namespace softgpu::timing
