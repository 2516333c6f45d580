// The held-out set (tests/timing/heldout.json): published measurements the
// configs were not built from, each rerun here through the timing model with
// kernels of the same shape (heldout.ptx), printed beside the published
// value with the error and the MAPE per group. `timing_validate --only
// heldout`; kept apart from the calibration tables in validate.cpp.
#include "validate_heldout.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "ptx_device.h"
#include "timing/session.h"

using namespace softgpu;

namespace {

struct Device : test::PtxDevice {
  Device() : PtxDevice(test::read_text_file(SOFTGPU_HELDOUT_PTX), "heldout.ptx", 1ull << 33) {}
  void* alloc(uint64_t bytes) { return PtxDevice::alloc<std::byte>(bytes); }
  std::map<std::string, void*> streams;  // gpu-stream's three arrays, reused by its kernels
};

// Microseconds of one launch; `shared` only sets the occupancy the model
// sees (the kernels use none).
template <class... A>
double run(test::PtxDevice& d, timing::TimingSession& s, const char* k, Dim3 g, Dim3 b, uint64_t shared, A... args) {
  const auto cfg = d.config(k, g, b, args...);
  exec::ExecOptions opts;
  opts.threads = 2;
  opts.listener = s.begin_launch({k, g, b, 0, shared});
  auto r = d.launch(k, cfg, opts);
  if (r.status != Status::Success) throw std::runtime_error(r.fault ? r.fault->message : "launch failed");
  return s.end_launch().microseconds;
}

// A fresh timing session for `g` (an empty L2), or an exception.
std::unique_ptr<timing::TimingSession> new_session(const config::GpuConfig& g) {
  auto s = timing::TimingSession::create(g);
  if (!s) throw std::runtime_error(s.error().message);
  return std::move(*s);
}

// gpu-stream: GB/s = streams x n x 8 / time, 2 CTAs per SM.
double stream_gbps(Device& d, timing::TimingSession& s, const config::GpuConfig& g, const std::string& kernel,
                   uint32_t block, uint32_t streams, uint32_t n) {
  for (const char* x : {"a", "b", "c"})
    if (!d.streams[x]) d.streams[x] = d.alloc(uint64_t(n) * 8);
  void *a = d.streams["a"], *b = d.streams["b"], *c = d.streams["c"];
  const Dim3 grid{n / block + 1}, blk{block};
  const uint64_t shared = g.shared_memory_per_sm / 2 - 2048;  // 2 CTAs per SM, as the spoiler makes it
  const std::string k = "hs_" + kernel;
  double us = 0;
  if (kernel == "init") us = run(d, s, k.c_str(), grid, blk, shared, a, n);
  else if (kernel == "triad") us = run(d, s, k.c_str(), grid, blk, shared, a, b, c, n);
  else us = run(d, s, k.c_str(), grid, blk, shared, a, b, n);
  return double(streams) * n * 8 / (us * 1e-6) / 1e9;
}

// gpu-cache's sumKernel<N, iters, 256> as nvcc unrolls it: each of the 256
// threads reads floats t, t+256, ... of B (N / 256 = `per_pass` loads a
// pass), 32 loads in flight per warp (the inner loop unrolled 32 times, or
// the outer one 32 / per_pass times for buffers of fewer than 32 x 256
// floats), the loads first, then the 32 dependent adds; the sum times 1.3
// after each pass; stored only if it equals a value it never reaches.
// Kernel hs_cache_sum(a, b, blocks): `blocks` runs of the 32-load body.
std::string cache_ptx(uint32_t per_pass) {
  if (per_pass < 32 ? 32 % per_pass : per_pass % 32)
    throw std::runtime_error(fmt::format("gpu-cache: {} loads per pass is neither a divisor nor a multiple of 32", per_pass));
  std::string body;
  for (uint32_t k = 0; k < 32; ++k)
    body += fmt::format("  ld.global.nc.f32 %f{}, [%rd2+{}];\n", 10 + k, (per_pass < 32 ? k % per_pass : k) * 1024);
  for (uint32_t k = 0; k < 32; ++k) {
    body += fmt::format("  add.f32 %f1, %f1, %f{};\n", 10 + k);
    const bool pass_end = per_pass < 32 ? (k + 1) % per_pass == 0 : false;
    if (pass_end) body += "  mul.f32 %f1, %f1, 0f3FA66666;\n";
  }
  // Buffers of 32 x 256 floats and more: the pointer steps 32 KB a body and
  // returns to the start (and the sum is scaled) after `per_pass / 32` bodies.
  const std::string step = per_pass < 32 ? std::string()
                                         : fmt::format(
                                               "  add.s64 %rd2, %rd2, 32768;\n"
                                               "  add.u32 %r6, %r6, 1;\n"
                                               "  setp.lt.u32 %p2, %r6, {};\n"
                                               "  @%p2 bra NEXT;\n"
                                               "  mov.u32 %r6, 0;\n"
                                               "  mov.u64 %rd2, %rd1;\n"
                                               "  mul.f32 %f1, %f1, 0f3FA66666;\n"
                                               "NEXT:\n",
                                               per_pass / 32);
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".visible .entry hs_cache_sum(.param .u64 a, .param .u64 b, .param .u32 blocks)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<10>;\n  .reg .b64 %rd<8>;\n  .reg .f32 %f<48>;\n"
         "  ld.param.u32 %r2, [blocks];\n  ld.param.u64 %rd1, [b];\n  cvta.to.global.u64 %rd1, %rd1;\n"
         "  mov.u32 %r3, %tid.x;\n  mul.wide.u32 %rd3, %r3, 4;\n  add.s64 %rd1, %rd1, %rd3;\n"
         "  mov.u64 %rd2, %rd1;\n  mov.f32 %f1, 0f00000000;\n  mov.u32 %r4, 0;\n  mov.u32 %r6, 0;\n"
         "BODY:\n" + body + step +
         "  add.u32 %r4, %r4, 1;\n  setp.lt.u32 %p3, %r4, %r2;\n  @%p3 bra BODY;\n"
         "  setp.neu.f32 %p1, %f1, 0f449A2000;\n  @%p1 bra DONE;\n"
         "  mov.u32 %r7, %ctaid.x;\n  mov.u32 %r8, %ntid.x;\n  mad.lo.s32 %r9, %r7, %r8, %r3;\n"
         "  ld.param.u64 %rd4, [a];\n  mul.wide.u32 %rd5, %r9, 4;\n  add.s64 %rd6, %rd4, %rd5;\n"
         "  st.global.f32 [%rd6], %f1;\nDONE:\n  ret;\n}\n";
}

// gpu-cache: every SM's CTA re-reads one buffer; the rate of the passes
// between two pass counts after a warm-up launch (the first pass, cold in
// the L1, and the launch cancel).
double cache_gbps(timing::TimingSession& s, const config::GpuConfig& g, uint64_t bytes) {
  const uint32_t per_pass = uint32_t(bytes / 4 / 256);
  test::PtxDevice d(cache_ptx(per_pass), "gpu-cache", 1ull << 30);
  void* b = d.alloc(bytes);
  void* a = d.alloc(uint64_t(g.sm_count) * 256 * 4);
  // Passes per body (buffers under 32 x 256 floats) or bodies per pass.
  const uint32_t passes_per_body = per_pass < 32 ? 32 / per_pass : 1, bodies_per_pass = per_pass < 32 ? 1 : per_pass / 32;
  // At least 32 bodies a warp in the shorter run, so that the rate is the
  // steady state's (the published runs make about 10^9 / N passes).
  const uint32_t i1 = passes_per_body * ((32 + bodies_per_pass - 1) / bodies_per_pass), i2 = 2 * i1;
  auto time = [&](uint32_t passes) {
    return run(d, s, "hs_cache_sum", {g.sm_count}, {256}, 0, a, b, passes / passes_per_body * bodies_per_pass);
  };
  time(passes_per_body);  // a warm-up: the L2 persists, so both timed runs find the buffer there
  const double t1 = time(i1), t2 = time(i2);
  return double(bytes) * g.sm_count * (i2 - i1) / ((t2 - t1) * 1e-6) / 1e9;
}

// gpu-roofline's testfun<float, N, M, 256> as nvcc 13 writes its PTX
// (-O3; read from nvcc's output for N = 8 to 512): each thread walks its
// column of A and B (BLOCKSIZE floats apart), two elements of each per
// iteration, then two chains of N dependent v = v * a - b as mul.f32 and
// sub.f32 (ptxas, and softgpu's decoder, contract each pair into one fma),
// the inner loop fully unrolled up to N = 96, above that unrolled 32 times
// (8 times where 32 does not divide N) around a counter; thread 0 stores
// the sum. Kernel hs_roof(a, b, c, m): m elements of A and B per thread.
std::string roofline_ptx(uint32_t inner) {
  const uint32_t unroll = inner <= 96 ? inner : inner % 32 == 0 ? 32 : inner % 8 == 0 ? 8 : 1;
  std::string chain;
  for (uint32_t k = 0; k < unroll; ++k)
    chain += fmt::format("  mul.f32 %m{0}, %f3, %f6;\n  sub.f32 %f6, %m{0}, %f4;\n"
                         "  mul.f32 %m{1}, %f1, %f5;\n  sub.f32 %f5, %m{1}, %f2;\n",
                         2 * k, 2 * k + 1);  // each product its own register, as in nvcc's SSA
  const std::string inner_loop =
      unroll == inner ? chain
                      : fmt::format("  mov.u32 %r7, 0;\nINNER:\n{}  add.s32 %r7, %r7, {};\n"
                                    "  setp.ne.s32 %p3, %r7, {};\n  @%p3 bra INNER;\n",
                                    chain, unroll, inner);
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".visible .entry hs_roof(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 m)\n{\n"
         "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n  .reg .f32 %f<16>;\n" +
         fmt::format("  .reg .f32 %m<{}>;\n", 2 * unroll) +
         "  ld.param.u32 %r1, [m];\n  ld.param.u64 %rd1, [a];\n  ld.param.u64 %rd2, [b];\n"
         "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
         "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mul.lo.s32 %r4, %r3, %r1;\n"
         "  mad.lo.s32 %r5, %r4, 256, %r2;\n  mul.wide.u32 %rd3, %r5, 4;\n"
         "  add.s64 %rd4, %rd1, %rd3;\n  add.s64 %rd5, %rd2, %rd3;\n"
         "  mov.f32 %f10, 0f00000000;\n  mov.u32 %r6, 0;\n"
         "LOOP:\n"
         "  ld.global.nc.f32 %f4, [%rd5+1024];\n  ld.global.nc.f32 %f3, [%rd4+1024];\n"
         "  sub.f32 %f6, %f3, %f4;\n"
         "  ld.global.nc.f32 %f2, [%rd5];\n  ld.global.nc.f32 %f1, [%rd4];\n"
         "  sub.f32 %f5, %f1, %f2;\n" +
         inner_loop +
         "  add.f32 %f9, %f5, %f6;\n  add.f32 %f10, %f10, %f9;\n"
         "  add.s64 %rd4, %rd4, 2048;\n  add.s64 %rd5, %rd5, 2048;\n"
         "  add.u32 %r6, %r6, 2;\n  setp.lt.u32 %p1, %r6, %r1;\n  @%p1 bra LOOP;\n"
         "  setp.ne.u32 %p2, %r2, 0;\n  @%p2 bra DONE;\n"
         "  ld.param.u64 %rd6, [c];\n  cvta.to.global.u64 %rd6, %rd6;\n  mul.wide.u32 %rd7, %r3, 4;\n"
         "  add.s64 %rd8, %rd6, %rd7;\n  st.global.f32 [%rd8], %f10;\nDONE:\n  ret;\n}\n";
}

// gpu-roofline: one wave of as many 256-thread CTAs as fit (8 per SM on
// A100 and H200, the published 864 and 1056), GFLOP/s = (2 + 2N) flops
// per element of A. The published runs use M = 4000 elements a thread
// (4 GB per array), timed over 1000 launches; here M is cut so that each
// thread runs about 8,000 instructions (at least 16 elements; the first
// loads' latency is then 2-5% of the time), on a fresh session so that
// the L2 starts cold as it is for the published arrays.
double roofline_gflops(const config::GpuConfig& g, uint32_t inner, uint32_t blocks_per_sm) {
  const uint32_t m = 2 * std::clamp(4000u / (inner + 4), 8u, 100u);
  const auto s = new_session(g);
  test::PtxDevice d(roofline_ptx(inner), "gpu-roofline", 1ull << 32);
  const uint32_t blocks = g.sm_count * blocks_per_sm;
  const uint64_t elements = uint64_t(blocks) * 256 * m;
  void* a = d.alloc<std::byte>(elements * 4);
  void* b = d.alloc<std::byte>(elements * 4);
  void* c = d.alloc<std::byte>(uint64_t(blocks) * 4);
  const double us = run(d, *s, "hs_roof", {blocks}, {256}, 0, a, b, c, m);
  return (2.0 + 2.0 * inner) * double(elements) / (us * 1e-6) / 1e9;
}

// gpu-strides' strideKernel<T, N>: one CTA of 1024 threads, thread t
// reading T at A + (t % 64) * stride, 8 loads an iteration (elements 0, 4,
// 8, 12, 20, 16, 24, 28: the loads first, as nvcc orders them) and 4
// dependent fmas into the sum; the pointer steps by a runtime zero, so the
// loads stay in the loop. Kernel hs_stride(a, b, zero, stride, iters).
std::string stride_ptx(uint32_t bytes) {
  const char* t = bytes == 8 ? "f64" : "f32";
  const char* r = bytes == 8 ? "%fd" : "%f";
  std::string loads;
  const int at[8] = {0, 4, 8, 12, 20, 16, 24, 28};
  for (int k = 0; k < 8; ++k) loads += fmt::format("  ld.global.{} {}{}, [%rd5+{}];\n", t, r, 10 + k, at[k] * bytes);
  std::string fmas;
  for (int k = 0; k < 8; k += 2) fmas += fmt::format("  fma.rn.{0} {1}1, {1}{2}, {1}{3}, {1}1;\n", t, r, 10 + k, 11 + k);
  return fmt::format(
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".visible .entry hs_stride(.param .u64 a, .param .u64 b, .param .u32 zero, .param .u32 stride, .param .u32 iters)\n{{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n  .reg .{0} {1}<24>;\n"
      "  ld.param.u64 %rd1, [a];\n  cvta.to.global.u64 %rd1, %rd1;\n  ld.param.u32 %r1, [zero];\n"
      "  ld.param.u32 %r2, [stride];\n  ld.param.u32 %r3, [iters];\n  mov.u32 %r4, %tid.x;\n"
      "  and.b32 %r5, %r4, 63;\n  mul.lo.s32 %r6, %r5, %r2;\n  mul.wide.s32 %rd2, %r6, {2};\n"
      "  add.s64 %rd5, %rd1, %rd2;\n  mul.wide.s32 %rd3, %r1, {2};\n  mov.{0} {1}1, 0{3};\n  mov.u32 %r7, 0;\n"
      "LOOP:\n  add.s64 %rd5, %rd5, %rd3;\n{4}{5}"
      "  add.u32 %r7, %r7, 1;\n  setp.lt.u32 %p1, %r7, %r3;\n  @%p1 bra LOOP;\n"
      "  setp.neu.{0} %p2, {1}1, 0{6};\n  @%p2 bra DONE;\n"
      "  ld.param.u64 %rd6, [b];\n  cvta.to.global.u64 %rd6, %rd6;\n  mul.wide.u32 %rd7, %r4, {2};\n"
      "  add.s64 %rd8, %rd6, %rd7;\n  st.global.{0} [%rd8], {1}1;\nDONE:\n  ret;\n}}\n",
      t, r, bytes, bytes == 8 ? "d0000000000000000" : "f00000000", loads, fmas,
      bytes == 8 ? "d40FE0F33AE147AE1" : "f47F0799D");
}

}  // namespace

double strides_bytes_per_cycle(const config::GpuConfig& g, uint32_t bytes, uint32_t stride) {
  test::PtxDevice d(stride_ptx(bytes), "gpu-strides", 1ull << 28);
  void* a = d.alloc<std::byte>(uint64_t(64 * stride + 32) * bytes);
  void* b = d.alloc<std::byte>(1024 * 8);
  const auto s = new_session(g);
  // The rate between two iteration counts (the first loads' misses and the
  // launch cancel; the published runs make 147,456 iterations).
  auto cycles = [&](uint32_t iters) {
    return run(d, *s, "hs_stride", {1}, {1024}, 0, a, b, 0u, stride, iters) * double(g.clock_khz) / 1e3;
  };
  const uint32_t i1 = 64, i2 = 128;
  const double per_warp_load = (cycles(i2) - cycles(i1)) / (1024.0 / 32 * 8 * (i2 - i1));
  return 32.0 * bytes / per_warp_load;
}

namespace {

// HPMLL's tma_bw (NewFeatures/TMA/Throughput/tma_bw): CTAs of one thread,
// each copying `bytes` at a time from global memory into shared memory with
// one cp.async.bulk whose completion it then waits for on an mbarrier (the
// copy issued, then expect_tx, then an arrival, then try_wait until the
// phase completes, as the benchmark orders them), its CTA's chunks `bytes`
// x the grid apart. Kernel hs_tma_bw(a, iters).
std::string tma_bulk_ptx(uint32_t bytes) {
  return fmt::format(
      ".version 8.0\n.target sm_90\n.address_size 64\n"
      ".visible .entry hs_tma_bw(.param .u64 a, .param .u32 iters)\n{{\n"
      "  .reg .pred %p<4>;\n  .reg .b32 %r<12>;\n  .reg .b64 %rd<12>;\n"
      "  .shared .align 128 .b8 smem[{0}];\n  .shared .align 8 .b64 bar;\n"
      "  ld.param.u64 %rd1, [a];\n  cvta.to.global.u64 %rd1, %rd1;\n  ld.param.u32 %r1, [iters];\n"
      "  mov.u32 %r2, %ctaid.x;\n  mov.u32 %r3, %nctaid.x;\n  mul.wide.u32 %rd2, %r2, {0};\n"
      "  add.s64 %rd3, %rd1, %rd2;\n  mul.wide.u32 %rd4, %r3, {0};\n"
      "  mov.u32 %r5, bar;\n  mov.u32 %r6, smem;\n"
      "  mbarrier.init.shared::cta.b64 [%r5], 1;\n  fence.proxy.async.shared::cta;\n  mov.u32 %r7, 0;\n"
      "LOOP:\n"
      "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd3], {0}, [%r5];\n"
      "  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r5], {0};\n"
      "  mbarrier.arrive.shared::cta.b64 %rd5, [%r5];\n"
      "WAIT:\n  mbarrier.try_wait.shared::cta.b64 %p1, [%r5], %rd5;\n  @!%p1 bra WAIT;\n"
      "  add.s64 %rd3, %rd3, %rd4;\n  add.u32 %r7, %r7, 1;\n  setp.lt.u32 %p2, %r7, %r1;\n  @%p2 bra LOOP;\n"
      "  ret;\n}}\n",
      bytes);
}

// tma_bw: GiB/s (the benchmark divides by 2^30) of `ctas` CTAs copying
// `bytes` at a time. The published runs stream 4 GiB (cold, never reread);
// here the rate between 16 and 32 copies a CTA, each run on a fresh
// session so that both read cold data as the published run does.
double tma_bulk_gibps(const config::GpuConfig& g, uint32_t ctas, uint32_t bytes) {
  test::PtxDevice d(tma_bulk_ptx(bytes), "tma_bw", 1ull << 32);
  const uint32_t i1 = 16, i2 = 32;
  void* a = d.alloc<std::byte>(uint64_t(ctas) * bytes * i2);
  auto time = [&](uint32_t iters) {
    return run(d, *new_session(g), "hs_tma_bw", {ctas}, {1}, uint64_t(bytes) + 8, a, iters);  // its static shared memory
  };
  const double t1 = time(i1), t2 = time(i2);
  return double(ctas) * bytes * (i2 - i1) / ((t2 - t1) * 1e-6) / double(1ull << 30);
}

// HPMLL's tma_lat_random (NewFeatures/TMA/Latency/tma_lat_random): one
// thread chasing pointers through a buffer with cp.async.bulk: each step
// copies the 16 bytes at the address the previous copy brought into shared
// memory, waiting on an mbarrier for them (the copy, expect_tx, an arrival,
// try_wait). The elements are 128 bytes apart in a random cycle. Kernel
// hs_tma_chase(start, steps).
const char* kTmaChasePtx = R"(.version 8.0
.target sm_90
.address_size 64
.visible .entry hs_tma_chase(.param .u64 start, .param .u32 steps, .param .u64 sink)
{
  .reg .pred %p<4>;
  .reg .b32 %r<12>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 ptr[16];
  .shared .align 8 .b64 bar;
  ld.param.u64 %rd1, [start];
  ld.param.u32 %r1, [steps];
  mov.u32 %r5, bar;
  mov.u32 %r6, ptr;
  mbarrier.init.shared::cta.b64 [%r5], 1;
  fence.proxy.async.shared::cta;
  st.shared.u64 [%r6], %rd1;
  mov.u32 %r7, 0;
LOOP:
  ld.shared.u64 %rd2, [%r6];
  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r6], [%rd2], 16, [%r5];
  mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r5], 16;
  mbarrier.arrive.shared::cta.b64 %rd5, [%r5];
WAIT:
  mbarrier.try_wait.shared::cta.b64 %p1, [%r5], %rd5;
  @!%p1 bra WAIT;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p2, %r7, %r1;
  @%p2 bra LOOP;
  ld.shared.u64 %rd3, [%r6];
  setp.ne.u64 %p3, %rd3, 0;
  @%p3 bra DONE;
  ld.param.u64 %rd4, [sink];
  st.global.u64 [%rd4], %rd3;
DONE:
  ret;
}
)";

// tma_lat_random: cycles per step over a `footprint`-byte buffer (one
// element per 128 bytes, in a random cycle as the benchmark shuffles it).
// The published runs make 10^6 steps after a warm-up launch; here the rate
// between one and two runs of whole turns of the cycle (at least 2,048
// steps) after a warm-up launch that walks it once (buffers the L2 holds),
// or between 2,048 and 4,096 steps on cold data with no warm-up (larger
// buffers: their published steps mostly miss the L2 too).
double tma_chase_cycles(const config::GpuConfig& g, uint64_t footprint) {
  const uint64_t n = footprint / 128;
  test::PtxDevice d(kTmaChasePtx, "tma_lat_random", std::max<uint64_t>(1ull << 28, footprint * 2));
  auto* buf = d.alloc<std::byte>(footprint);
  uint64_t* sink = d.alloc<uint64_t>(1);
  std::vector<uint64_t> order(n);
  for (uint64_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(42);
  std::shuffle(order.begin() + 1, order.end(), rng);  // a cycle through every element, starting at 0
  for (uint64_t i = 0; i < n; ++i) {
    const uint64_t next = reinterpret_cast<uint64_t>(buf + order[(i + 1) % n] * 128);
    std::memcpy(buf + order[i] * 128, &next, 8);
  }
  const bool warm = footprint < g.l2_cache_bytes;
  auto s = new_session(g);
  auto cycles = [&](uint32_t steps) {
    if (!warm) s = new_session(g);  // cold data in each run: the L2 persists within a session
    return run(d, *s, "hs_tma_chase", {1}, {1}, 32, buf, steps, sink) * double(g.clock_khz) / 1e3;
  };
  if (warm) cycles(uint32_t(n));
  // Whole turns of the cycle (the published 10^6 steps make at least one):
  // every line is then reused after all the others, as there.
  const uint32_t s1 = warm ? uint32_t(n * ((2048 + n - 1) / n)) : 2048, s2 = 2 * s1;
  const double c1 = cycles(s1), c2 = cycles(s2);
  return (c2 - c1) / (s2 - s1);
}

// The gemm group: heldout_gemm (tests/cuda/timing/heldout_gemm.cu, an
// nvcc-built program calling cublasLtMatmul in the benchmark's shape) run
// under `softgpu run --timing --gpu KEY`, one warm-up call and one timed
// call, f16 or (fp8) e4m3 inputs; the TFLOP/s it prints from its cudaEvents. Throws when the program
// is not built (no CUDA toolkit) or fails.
double gemm_tflops(const std::string& gpu, uint64_t m, uint64_t n, uint64_t k, bool fp8) {
  const std::string cmd = fmt::format("'{}' run --timing --gpu {} -- '{}' --type {} {} {} {} 2>&1", SOFTGPU_CLI, gpu,
                                      SOFTGPU_HELDOUT_GEMM, fp8 ? "fp8" : "fp16", m, n, k);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run " + cmd);
  std::string out;
  char buf[4096];
  while (size_t got = fread(buf, 1, sizeof buf, p)) out.append(buf, got);
  const int rc = pclose(p);
  const size_t at = out.find("value=");
  if (rc != 0 || at == std::string::npos || out.find("PASS heldout_gemm") == std::string::npos)
    throw std::runtime_error(fmt::format("{} failed (status {}):\n{}", cmd, rc, out));
  return std::stod(out.substr(at + 6));
}

}  // namespace

void heldout_table(const std::vector<config::GpuConfig>& gpus, uint32_t stream_n, uint64_t max_footprint,
                   double max_gemm_flop, const std::string& match, std::ostream& out) {
  std::ifstream f(SOFTGPU_HELDOUT_JSON);
  const nlohmann::json doc = nlohmann::json::parse(f);
  const auto started = std::chrono::steady_clock::now();
  const std::time_t today = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&today));
  out << fmt::format(
      "`tests/timing/heldout.json` (sources there), produced by `build/tests/timing/timing_validate --only "
      "heldout` on {}: gpu-stream arrays of {} doubles (the published runs: 134,217,730), gpu-cache footprints "
      "up to {} kB and GEMMs up to {:.3g} GFLOP simulated (larger entries are left out). Error = model / "
      "published - 1.\n\n"
      "| benchmark | GPU | published | model | error |\n|---|---|---|---|---|\n",
      date, stream_n, max_footprint / 1024, max_gemm_flop / 1e9);
  std::map<std::string, std::pair<double, int>> by_group;  // group -> sum |error|, count
  for (const auto& g : gpus) {
    const auto s = new_session(g);
    Device d;
    for (const auto& e : doc["entries"]) {
      if (e["gpu"] != g.key) continue;
      const std::string bench = e["benchmark"], id = e["id"];
      if (id.find(match) == std::string::npos) continue;
      const auto& p = e["params"];
      double model = 0;
      if (bench == "gpu-stream") {
        model = stream_gbps(d, *s, g, e["kernel"], p["block_size"], p["streams"], stream_n);
      } else if (bench == "gpu-cache") {
        const uint64_t bytes = p["footprint_bytes"];
        if (bytes > max_footprint) continue;
        model = cache_gbps(*s, g, bytes);
      } else if (bench == "gpu-strides") {
        model = strides_bytes_per_cycle(g, p["element_bytes"], p["stride"]);
      } else if (bench == "gpu-roofline") {
        model = roofline_gflops(g, p["inner_iterations"], p["blocks_per_sm"]);
      } else if (bench == "hpmll tma_bw") {
        model = tma_bulk_gibps(g, p["ctas"], p["load_bytes"]);
      } else if (bench == "hpmll tma_lat_random") {
        model = tma_chase_cycles(g, p["footprint_bytes"]);
      } else if (bench == "superbenchmark cublaslt_gemm") {
        const uint64_t m = p["m"], n = p["n"], k = p["k"];
        if (2.0 * double(m) * double(n) * double(k) > max_gemm_flop) continue;
        model = gemm_tflops(g.key, m, n, k, p.value("a_b_type", "") == "CUDA_R_8F_E4M3");
      } else {
        continue;
      }
      const double pub = e["value"], err = model / pub - 1;
      auto& [sum, count] = by_group[e["group"]];
      sum += std::fabs(err);
      ++count;
      // Whole numbers from 1000 on, else 4 significant digits.
      auto num = [](double v) { return v >= 1000 ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v); };
      out << fmt::format("| {} | {} | {} {} | {} | {:+.0f}% |\n", id, g.key, num(pub), std::string(e["unit"]),
                         num(model), 100 * err);
      out.flush();
    }
  }
  double all = 0;
  int n = 0;
  out << "\n| group | figures | MAPE |\n|---|---|---|\n";
  for (const auto& [group, v] : by_group) {
    out << fmt::format("| {} | {} | {:.0f}% |\n", group, v.second, 100 * v.first / v.second);
    all += v.first;
    n += v.second;
  }
  if (n) out << fmt::format("| all | {} | {:.0f}% |\n", n, 100 * all / n);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  out << fmt::format("\n({:.0f} s on this machine.)\n", secs);
}

void write_heldout_section(const std::string& path, const std::string& generated) {
  static const std::string begin = "<!-- heldout:begin", end = "<!-- heldout:end -->";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t b = text.find(begin), b_end = b == std::string::npos ? b : text.find("-->", b);
  const size_t e = b_end == std::string::npos ? b_end : text.find(end, b_end);
  if (e == std::string::npos)
    throw std::runtime_error(path + " has no '" + begin + " ... -->' ... '" + end + "' block to replace");
  const std::string updated = text.substr(0, b_end + 3) + "\n" + generated + text.substr(e);
  std::ofstream o(path, std::ios::trunc);
  if (!(o << updated)) throw std::runtime_error("cannot write " + path);
}
