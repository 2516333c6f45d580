// The timing model's microbenchmarks on every shipped GPU (micro.ptx):
// pointer-chase latency from L1, L2 and DRAM (cycles per dependent load,
// from differences of chase lengths so that cold misses and the launch
// cancel) and STREAM triad bandwidth, printed as the markdown table of
// docs/validation.md beside the published figures in the configs.
// Also FP32/MUFU/FP64/mma.sync throughput, shared memory, atomics, launch
// overhead and copies, CTA turnaround (each table: --only latency|throughput|tensor|atomics|host|cta|l1).
// Run: build/tests/timing/timing_validate [--triad-n N] [--only TABLE] [--gpu KEY] [--verbose] | --sampling-check N
// Held-out figures (validate_heldout.cpp): --only heldout [--match ID-PART] [--stream-n N] [--max-footprint BYTES]
//   [--max-gemm-flop F] [--write docs/validation.md] (the gemm group runs tests/cuda's heldout_gemm under
//   softgpu run --timing; --write replaces the file's held-out block)
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/gpu_config.h"
#include "ptx_device.h"
#include "validate_heldout.h"
#include "timing/session.h"

using namespace softgpu;

namespace {

// A stream buffer writing to two others (the held-out table to the
// terminal as it is made and to the text --write puts in the doc).
class TeeBuf : public std::streambuf {
 public:
  TeeBuf(std::streambuf* a, std::streambuf* b) : a_(a), b_(b) {}

 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;  // nothing to write: success
    return a_->sputc(char(c)) == EOF || b_->sputc(char(c)) == EOF ? EOF : c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    a_->sputn(s, n);
    return b_->sputn(s, n);
  }
  int sync() override { return a_->pubsync() | b_->pubsync(); }

 private:
  std::streambuf *a_, *b_;
};

bool g_verbose = false;  // --verbose: cycles, issue use, occupancy and warp states of each throughput run

struct Device : test::PtxDevice {
  Device() : PtxDevice(test::read_text_file(SOFTGPU_MICRO_PTX), "micro.ptx", 1ull << 33) {}
  void* alloc(uint64_t bytes) { return PtxDevice::alloc<std::byte>(bytes); }
};

template <class... A>
const timing::KernelTiming& timed_on(timing::StreamRef stream, Device& d, timing::TimingSession& s, const char* k,
                                     Dim3 g, Dim3 b, A... args) {
  const auto cfg = d.config(k, g, b, args...);
  exec::ExecOptions opts;
  opts.threads = 2;
  opts.listener = s.begin_launch({k, g, b, 0, 0}, stream);
  auto r = d.launch(k, cfg, opts);
  if (r.status != Status::Success) throw std::runtime_error(r.fault ? r.fault->message : "launch failed");
  return s.end_launch();
}
template <class... A>
const timing::KernelTiming& timed(Device& d, timing::TimingSession& s, const char* k, Dim3 g, Dim3 b, A... args) {
  return timed_on({}, d, s, k, g, b, args...);
}

// Cycles per step of a chase over `lines` lines `stride` bytes apart: the
// difference between 1 + passes and 1 pass over the ring, after a warm-up
// pass (the L2 persists across launches: both timed runs find the ring
// there, so their first, cold passes cancel; the L1 starts cold in each).
double chase_latency(Device& d, timing::TimingSession& s, uint64_t lines, uint64_t stride, uint32_t passes) {
  auto* ring = static_cast<std::byte*>(d.alloc(lines * stride));
  for (uint64_t i = 0; i < lines; ++i) {
    uint64_t next = reinterpret_cast<uint64_t>(ring + ((i + 1) % lines) * stride);
    std::memcpy(ring + i * stride, &next, 8);
  }
  void* out = d.alloc(8);
  auto* p = ring;
  const uint32_t one = uint32_t(lines), many = uint32_t(lines * (1 + passes));
  timed(d, s, "chase", {1}, {1}, p, one, out);
  const double c1 = double(timed(d, s, "chase", {1}, {1}, p, one, out).cycles);
  const double cn = double(timed(d, s, "chase", {1}, {1}, p, many, out).cycles);
  return (cn - c1) / double(many - one);
}

// A cold chase: every step a line never touched before (DRAM).
double cold_latency(Device& d, timing::TimingSession& s, uint64_t lines, uint64_t stride) {
  auto* ring = static_cast<std::byte*>(d.alloc(lines * stride));
  for (uint64_t i = 0; i < lines; ++i) {
    uint64_t next = reinterpret_cast<uint64_t>(ring + ((i + 1) % lines) * stride);
    std::memcpy(ring + i * stride, &next, 8);
  }
  void* out = d.alloc(8);
  const double c1 = double(timed(d, s, "chase", {1}, {1}, ring, uint32_t(lines / 2), out).cycles);
  const double c2 = double(timed(d, s, "chase", {1}, {1}, ring + (lines / 2) * stride, uint32_t(lines / 2), out).cycles);
  (void)c1;
  return c2 / double(lines / 2);  // includes the launch's own few hundred cycles over many steps
}

// Per SM and cycle, from the difference of two loop lengths (launch and
// tail cancel): `units_per_op` units per thread and operation, n1 and n2
// operations per thread (multiples of the kernel's operations per loop).
double rate_per_sm(Device& d, timing::TimingSession& s, const config::GpuConfig& g, const char* k,
                   double units_per_op, uint32_t n1 = 256, uint32_t n2 = 512) {
  const uint32_t block = 512, ctas = g.sm_count * std::max<uint32_t>(1, g.max_threads_per_sm / block);
  void* out = d.alloc(8);
  const double c1 = double(timed(d, s, k, {ctas}, {block}, n1, out).cycles);
  const auto& kt = timed(d, s, k, {ctas}, {block}, n2, out);
  const double c2 = double(kt.cycles);
  if (g_verbose) {
    std::cerr << fmt::format("{}: c1 {} c2 {} ipc {:.3f} issue {:.3f} occ {:.3f} ctas {} sim {} stalls", k, c1, c2, kt.ipc,
                             kt.issue_utilization, kt.achieved_occupancy, kt.ctas, kt.ctas_simulated);
    for (size_t i = 0; i < kt.stalls.size(); ++i)
      std::cerr << fmt::format(" {}={:.3f}", timing::stall_name(timing::WarpStall(i)), kt.stalls[i]);
    std::cerr << "\n";
  }
  return units_per_op * double(ctas) * block * (n2 - n1) / ((c2 - c1) * g.sm_count);
}

// Cycles per step of one warp's dependent chain (fma_chain, ex2_chain, dfma_chain).
double chain_latency(Device& d, timing::TimingSession& s, const char* kernel = "fma_chain") {
  void* out = d.alloc(8);
  const double c1 = double(timed(d, s, kernel, {1}, {32}, 4096u, out).cycles);  // multiples of 32
  const double c2 = double(timed(d, s, kernel, {1}, {32}, 8192u, out).cycles);
  return (c2 - c1) / 4096;
}

// Shared-memory bytes per cycle per SM: one CTA of 1024 threads per SM.
double smem_rate(Device& d, timing::TimingSession& s, const config::GpuConfig& g, uint32_t stride,
                 const char* k = "smem_read") {
  void* out = d.alloc(8);
  const uint32_t n1 = 256, n2 = 512;
  const double c1 = double(timed(d, s, k, {g.sm_count}, {1024}, n1, stride, out).cycles);
  const double c2 = double(timed(d, s, k, {g.sm_count}, {1024}, n2, stride, out).cycles);
  return 4.0 * 1024 * (n2 - n1) / (c2 - c1);
}

void throughput_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | FMA latency: model / config | MUFU ex2 latency: model / config | DFMA latency: model / config "
               "| FP32 FLOP/clk/SM, 32 per loop / 128 per loop: model / peak "
               "| MUFU ex2/clk/SM: model / peak | FP64 FLOP/clk/SM: model / peak "
               "| shared B/clk/SM, 4 per loop / 16 per loop / 32-way: model / peak |\n"
               "|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : gpus) {
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    const auto& t = g.timing;
    const double sp = t.sub_partitions;
    const double lat = chain_latency(d, **s), ex2_lat = chain_latency(d, **s, "ex2_chain"),
                 dfma_lat = chain_latency(d, **s, "dfma_chain");
    const double fma = rate_per_sm(d, **s, g, "fma_tput", 2);
    const double fma128 = rate_per_sm(d, **s, g, "fma_tput128", 2, 256, 512);
    const double ex2 = rate_per_sm(d, **s, g, "ex2_tput", 1);
    const double dfma = rate_per_sm(d, **s, g, "dfma_tput", 2);
    const double sm1 = smem_rate(d, **s, g, 1), sm16 = smem_rate(d, **s, g, 1, "smem_read16"),
                 sm32 = smem_rate(d, **s, g, 32);
    std::cout << fmt::format("| {} | {:.2f} / {} | {:.2f} / {} | {:.2f} / {} | {:.1f} / {:.1f} / {:.0f} | {:.2f} / {:.0f} "
                             "| {:.2f} / {:.0f} | {:.1f} / {:.1f} / {:.2f} / {:.0f} |\n",
                             g.key, lat, t.fma.latency, ex2_lat, t.xu.latency, dfma_lat, t.fp64.latency, fma, fma128, 2 * 32 * sp / t.fma.interval, ex2,
                             32 * sp / t.xu.interval, dfma, 2 * 32 * sp / t.fp64.interval, sm1, sm16, sm32,
                             t.shared_bytes_per_clock);
  }
}

// Dense tensor peaks from the spec sheets (shared/reference/gpu-facts.md
// section 1), TFLOP/s (int8: TOP/s), and the clock each is quoted at: the
// published per-SM, per-clock figure is tflops / (SMs x clock). 0: the GPU
// has no tensor cores for the type.
struct SpecPeak {
  const char* gpu;
  double fp16_f32, fp16_f16, bf16, tf32, int8, fp64, fp8_f32;
  double tensor_mhz, fp64_mhz;
  const char* note;
};
constexpr SpecPeak kSpecPeaks[] = {
    {"a100", 312, 312, 312, 156, 624, 19.5, 0, 1410, 1410, "A100 whitepaper/datasheet, 1410 MHz boost"},
    {"h100", 989.4, 989.4, 989.4, 494.7, 1978.9, 66.9, 1978.9, 1830, 1980,
     "H100 datasheet; tensor peaks at the 1830 MHz tensor boost clock, FP64 at 1980 MHz"},
    {"h100pcie", 756.5, 756.5, 756.5, 378, 1513, 51.2, 1513, 1620, 1755,
     "H100 datasheet, PCIe (sparse figures halved); tensor peaks at a 1620 MHz tensor clock they imply, FP64 at 1755 MHz"},
    {"h200", 989.4, 989.4, 989.4, 494.7, 1978.9, 66.9, 1978.9, 1830, 1980,
     "H200 brief (= H100 SXM); 1830 MHz implied by the equal tensor peaks"},
    {"l4", 121, 121, 121, 60, 242.5, 0, 242.5, 2040, 2040, "L4 datasheet, sparse figures halved, 2040 MHz"},
    {"rtx4090", 165.2, 330.3, 165.2, 82.6, 660.6, 0, 330.3, 2520, 2520,
     "Ada whitepaper appendix, 2520 MHz (FP8 through third-party restatements)"},
};

// mma.sync: dense FLOP (int8: OP) per SM and clock, every SM full, 16
// independent products per warp and iteration.
void tensor_table(const std::vector<config::GpuConfig>& gpus) {
  struct Kind {
    const char* kernel;
    const char* label;
    double flops;  // per warp instruction
    double SpecPeak::*peak;
    bool fp64;
  };
  const Kind kinds[] = {{"mma_f16f32", "f16->f32 m16n8k16", 4096, &SpecPeak::fp16_f32, false},
                        {"mma_f16f16", "f16->f16 m16n8k16", 4096, &SpecPeak::fp16_f16, false},
                        {"mma_bf16", "bf16->f32 m16n8k16", 4096, &SpecPeak::bf16, false},
                        {"mma_tf32", "tf32->f32 m16n8k8", 2048, &SpecPeak::tf32, false},
                        {"mma_s8", "s8->s32 m16n8k32", 8192, &SpecPeak::int8, false},
                        {"mma_f64", "f64 m8n8k4", 512, &SpecPeak::fp64, true},
                        {"mma_e4m3", "e4m3->f32 m16n8k32", 8192, &SpecPeak::fp8_f32, false}};
  std::cout << "\n| GPU | type | model FLOP/clk/SM | published FLOP/clk/SM | error | model TFLOP/s at the SM clock "
               "| spec TFLOP/s | error |\n|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : gpus) {
    const SpecPeak* sp = nullptr;
    for (const auto& x : kSpecPeaks)
      if (g.key == x.gpu) sp = &x;
    if (!sp) continue;
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    for (const auto& k : kinds) {
      const double model = rate_per_sm(d, **s, g, k.kernel, k.flops / 32, 64, 128);
      const double tf = sp->*k.peak;
      const double model_tf = model * g.sm_count * g.clock_khz * 1e3 / 1e12;
      if (tf <= 0) {
        std::cout << fmt::format("| {} | {} | {:.1f} | none (no tensor cores for it) | - | {:.2f} | - | - |\n", g.key,
                                 k.label, model, model_tf);
        continue;
      }
      const double mhz = k.fp64 ? sp->fp64_mhz : sp->tensor_mhz;
      const double pub = tf * 1e12 / (double(g.sm_count) * mhz * 1e6);
      std::cout << fmt::format("| {} | {} | {:.1f} | {:.1f} ({} / ({} x {} MHz)) | {:+.1f}% | {:.1f} | {} | {:+.1f}% |\n",
                               g.key, k.label, model, pub, tf, g.sm_count, mhz, 100 * (model / pub - 1), model_tf, tf,
                               100 * (model_tf / tf - 1));
    }
  }
}

// Atomic reductions (red.add.u32) per clock: global ones for the whole chip,
// shared ones per SM. Every SM full (512-thread CTAs up to the thread limit).
double atomic_rate(Device& d, timing::TimingSession& s, const config::GpuConfig& g, const char* k, bool per_sm) {
  const uint32_t block = 512, ctas = g.sm_count * std::max<uint32_t>(1, g.max_threads_per_sm / block);
  void* buf = d.alloc(uint64_t(ctas) * block * 4);
  void* out = d.alloc(8);
  const uint32_t n1 = 32, n2 = 64;
  const double c1 = double(timed(d, s, k, {ctas}, {block}, buf, n1, out).cycles);
  const double c2 = double(timed(d, s, k, {ctas}, {block}, buf, n2, out).cycles);
  return double(ctas) * block * (n2 - n1) / ((c2 - c1) * (per_sm ? g.sm_count : 1));
}

void atomics_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | global, distinct words: atomics/clk (chip) | global, one word: atomics/clk (chip) "
               "| shared, distinct words: atomics/clk/SM | shared, one word: atomics/clk/SM |\n|---|---|---|---|---|\n";
  for (const auto& g : gpus) {
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    std::cout << fmt::format("| {} | {:.1f} | {:.1f} | {:.2f} | {:.2f} |\n", g.key,
                             atomic_rate(d, **s, g, "red_global_distinct", false),
                             atomic_rate(d, **s, g, "red_global_same", false),
                             atomic_rate(d, **s, g, "red_shared_distinct", true),
                             atomic_rate(d, **s, g, "red_shared_same", true));
  }
}

// The calibration of `cta_launch_cycles`: gpu-stream's read at its lowest
// occupancy (blocks of 32 threads, 2 CTAs per SM; te42kyfo/gpu-benches at
// 1c36d50, gpu-stream/<file>.txt, row blockSize 32, column read), where a
// CTA's life is its start, one load's DRAM latency and its end. Published
// GB/s become cycles per CTA with the measuring GPU's SMs and clock (2
// CTAs x 32 threads x 8 bytes per SM per CTA lifetime); the model's cycles
// per CTA come from its GB/s the same way. The gap at cta_launch_cycles =
// 0 is what the configs set. Its other rows (25% and 100% occupancy) are
// the held-out set's.
struct StreamRow {
  const char* gpu;
  const char* file;   // gpu-benches gpu-stream result file
  double gbps;        // its blockSize 32 read figure
  uint32_t sms;       // the measuring GPU's SMs and boost clock
  double ghz;
};
constexpr StreamRow kStreamRead32[] = {
    {"a100", "a100_80", 85, 108, 1.41},
    {"h100", "h100_pcie (H100 PCIe: a proxy)", 96, 114, 1.755},
    {"h100pcie", "h100_pcie", 96, 114, 1.755},
    {"h200", "h200", 123, 132, 1.98},
    {"l4", "l40 (L40: a proxy)", 163, 142, 2.49},
    {"rtx4090", "l40 (L40: a proxy)", 163, 142, 2.49},
};

void cta_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | gpu-stream read, blocks of 32, 2 per SM: published GB/s (file) | cycles per CTA: published "
               "| model GB/s | cycles per CTA: model | cta_launch_cycles |\n|---|---|---|---|---|---|\n";
  const uint32_t n = 134217730;  // gpu-stream's arrays
  for (const auto& g : gpus) {
    const StreamRow* row = nullptr;
    for (const auto& r : kStreamRead32)
      if (g.key == r.gpu) row = &r;
    if (!row) continue;
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    void* a = d.alloc(uint64_t(n) * 8);
    void* b = d.alloc(uint64_t(n) * 8);
    const Dim3 grid{n / 32 + 1}, block{32};
    const auto cfg = d.config("stream_read", grid, block, a, b, n);
    exec::ExecOptions opts;
    opts.threads = 2;
    // 2 CTAs per SM, as gpu-stream's shared-memory spoiler makes it.
    opts.listener = (*s)->begin_launch({"stream_read", grid, block, 0, g.shared_memory_per_sm / 2 - 2048});
    auto r = d.launch("stream_read", cfg, opts);
    if (r.status != Status::Success) throw std::runtime_error(r.fault ? r.fault->message : "launch failed");
    const double us = (*s)->end_launch().microseconds;
    const double gbps = double(n) * 8 / (us * 1e-6) / 1e9;
    const double per_cta_bytes = 2.0 * 32 * 8;
    const double published = per_cta_bytes / (row->gbps * 1e9 / row->sms / (row->ghz * 1e9));
    const double model = per_cta_bytes / (gbps * 1e9 / g.sm_count / (double(g.clock_khz) * 1e3));
    std::cout << fmt::format("| {} | {:.0f} ({}) | {:.0f} | {:.1f} | {:.0f} | {} |\n", g.key, row->gbps, row->file,
                             published, gbps, model, g.timing.cta_launch_cycles);
  }
}

// L1 rate against gpu-strides' float rows (calibration of
// l1_lines_per_clock; the double rows are held out): published B/cycle
// per SM, gpu-benches 1c36d50 (a100.txt, h200.txt).
struct StridesRow {
  const char* gpu;
  uint32_t stride;
  double bytes_per_cycle;
};
constexpr StridesRow kStridesFloat[] = {
    {"a100", 1, 126}, {"a100", 2, 64}, {"a100", 3, 79}, {"a100", 4, 32.0}, {"a100", 5, 58}, {"a100", 7, 48.0},
    {"a100", 8, 16.0}, {"a100", 9, 42.2}, {"a100", 11, 35.2}, {"a100", 13, 31.9}, {"a100", 15, 28.8},
    {"a100", 16, 8.0}, {"a100", 32, 4.00}, {"h200", 1, 126}, {"h200", 2, 64}, {"h200", 3, 79}, {"h200", 4, 32.0},
    {"h200", 5, 64}, {"h200", 7, 53}, {"h200", 8, 16.0}, {"h200", 9, 42.6}, {"h200", 11, 37.5}, {"h200", 13, 31.2},
    {"h200", 15, 27.8}};

void l1_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | float stride | published B/cycle (cycles per warp load) | model B/cycle (cycles) | error | "
               "l1_lines_per_clock |\n|---|---|---|---|---|---|\n";
  for (const auto& g : gpus)
    for (const auto& r : kStridesFloat) {
      if (g.key != r.gpu) continue;
      const double m = strides_bytes_per_cycle(g, 4, r.stride);
      std::cout << fmt::format("| {} | {} | {:.1f} ({:.2f}) | {:.1f} ({:.2f}) | {:+.0f}% | {} |\n", g.key, r.stride,
                               r.bytes_per_cycle, 128 / r.bytes_per_cycle, m, 128 / m, 100 * (m / r.bytes_per_cycle - 1),
                               g.timing.l1_lines_per_clock);
    }
}

// Launch overhead (empty kernels back to back in one session) and copies
// through the session's copy path, as the runtime drives it under --timing.
void host_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | empty kernel back to back, us per launch: model (overhead + kernel) | the same as "
               "graph nodes in a chain | H2D GB/s | D2H GB/s | D2D GB/s (read + write) |\n|---|---|---|---|---|---|\n";
  for (const auto& g : gpus) {
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    const uint32_t launches = 100;
    const double t0 = (*s)->now_us();
    for (uint32_t i = 0; i < launches; ++i) timed(d, **s, "empty", {1}, {32});
    const double per_launch = ((*s)->now_us() - t0) / launches;
    const double kernel_us = (*s)->launches().back().microseconds;
    // The same kernels as the nodes of a chain in one graph launch: each
    // on its node's timeline, starting when the previous node ends.
    const double g0 = (*s)->now_us();
    double end = g0;
    for (uint32_t i = 0; i < launches; ++i) {
      const timing::StreamRef node{(uint64_t(1) << 63) | i, false, false, true};
      (*s)->wait_until(node, end);
      timed_on(node, d, **s, "empty", {1}, {32});
      end = (*s)->stream_time_us(node);
    }
    const double per_node = (end - g0) / launches;
    (*s)->wait_until({}, end);  // the launch stream waits for the graph's nodes
    const uint64_t bytes = 256ull << 20;
    auto gbps = [&](timing::CopyPath path, double moved) {
      const double a = (*s)->now_us();
      (*s)->copy(path, bytes);
      return moved / (((*s)->now_us() - a) * 1e-6) / 1e9;
    };
    const double h2d = gbps(timing::CopyPath::HostToDevice, double(bytes));
    const double d2h = gbps(timing::CopyPath::DeviceToHost, double(bytes));
    const double d2d = gbps(timing::CopyPath::DeviceToDevice, 2.0 * double(bytes));
    std::cout << fmt::format("| {} | {:.3f} ({:.3f} + {:.3f}: {} cycles) | {:.3f} | {:.1f} | {:.1f} | {:.0f} |\n",
                             g.key, per_launch, per_launch - kernel_us, kernel_us, (*s)->launches().back().cycles,
                             per_node, h2d, d2h, d2d);
  }
}

}  // namespace

// Sampled against full simulation of one triad (many waves) on `gpu`:
// predicted cycles of each, the error, and the host time of each.
int sampling_check(const config::GpuConfig& g, uint32_t n) {
  double cycles[2], secs[2];
  for (int full = 0; full < 2; ++full) {
    timing::SamplingPolicy sp;
    sp.full = full;
    auto s = timing::TimingSession::create(g, sp);
    if (!s) return 1;
    Device d;
    float *a = static_cast<float*>(d.alloc(uint64_t(n) * 4)), *b = static_cast<float*>(d.alloc(uint64_t(n) * 4)),
          *c = static_cast<float*>(d.alloc(uint64_t(n) * 4));
    const auto t0 = std::chrono::steady_clock::now();
    cycles[full] = double(timed(d, **s, "triad", {n / 256}, {256}, a, b, c, 2.0f, n).cycles);
    secs[full] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::cout << fmt::format("triad n={} on {}: sampled {:.0f} cycles ({:.2f} s), full {:.0f} cycles ({:.2f} s): "
                           "error {:+.2f}%, {:.1f}x faster\n",
                           n, g.key, cycles[0], secs[0], cycles[1], secs[1], 100 * (cycles[0] / cycles[1] - 1),
                           secs[1] / secs[0]);
  return 0;
}

int main(int argc, char** argv) {
  uint32_t triad_n = 1u << 25;  // --triad-n: BabelStream's default array length (doubles)
  uint32_t sampling_n = 0;
  std::string gpu_key;  // --gpu KEY: one GPU
  std::string only;  // --only latency|throughput|tensor|atomics|host|cta|l1|heldout: one table
  uint32_t stream_n = 134217730;          // --stream-n: held-out gpu-stream array length (doubles), as published
  uint64_t max_footprint = 8ull << 20;    // --max-footprint: largest held-out gpu-cache buffer simulated
  std::string write_path;                 // --write FILE: the held-out block of FILE (docs/validation.md)
  std::string match;                      // --match TEXT: only held-out entries whose id contains TEXT
  double max_gemm_flop = 1.5e11;          // --max-gemm-flop: largest held-out GEMM simulated (4096^3: 1.37e11)
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--stream-n") stream_n = uint32_t(std::stoul(argv[i + 1]));
    if (std::string(argv[i]) == "--max-footprint") max_footprint = std::stoull(argv[i + 1]);
    if (std::string(argv[i]) == "--max-gemm-flop") max_gemm_flop = std::stod(argv[i + 1]);
    if (std::string(argv[i]) == "--write") write_path = argv[i + 1];
    if (std::string(argv[i]) == "--match") match = argv[i + 1];
    if (std::string(argv[i]) == "--triad-n") triad_n = uint32_t(std::stoul(argv[i + 1]));
    if (std::string(argv[i]) == "--sampling-check") sampling_n = uint32_t(std::stoul(argv[i + 1]));
    if (std::string(argv[i]) == "--only") only = argv[i + 1];
    if (std::string(argv[i]) == "--gpu") gpu_key = argv[i + 1];
  }
  for (int i = 1; i < argc; ++i) g_verbose |= std::string(argv[i]) == "--verbose";
  // The held-out table only when asked for (--only heldout): it is kept
  // apart from the calibration tables and takes minutes.
  auto want = [&](const char* t) { return (only.empty() && std::string_view(t) != "heldout") || only == t; };
  auto gpus = config::load_all_gpu_configs(SOFTGPU_SHIPPED_CONFIG_DIR);
  if (!gpus) { std::cerr << gpus.error().message << "\n"; return 2; }
  if (!gpu_key.empty())
    std::erase_if(*gpus, [&](const config::GpuConfig& g) { return g.key != gpu_key; });
  if (sampling_n) {
    for (const auto& g : *gpus)
      if (g.key == "h100") return sampling_check(g, sampling_n);
    return 2;
  }
  try {
    if (want("latency")) std::cout << "| GPU | L1 hit: model / config | L2 hit: model / config | L2 far: model / config | DRAM: model / config | "
                                      "triad TB/s: model / spec x efficiency | copy TB/s: model |\n|---|---|---|---|---|---|---|\n";
    for (const auto& g : *gpus) {
      if (!want("latency")) break;
      auto s = timing::TimingSession::create(g);
      if (!s) throw std::runtime_error(s.error().message);
      Device d;
      const double l1 = chase_latency(d, **s, 64, 128, 8);            // 8 KB ring
      const double l2 = chase_latency(d, **s, 8192, 1024, 1);         // 8 MB ring, beyond any L1
      // 3/4 of the L2: beyond the near partition's half (where there is one).
      const double far = chase_latency(d, **s, g.l2_cache_bytes / 4 * 3 / 128, 128, 1);
      const double dram = cold_latency(d, **s, 8192, 4096);           // 32 MB, every line cold
      // BabelStream's shape: doubles, blocks of 1024 threads.
      double *a = static_cast<double*>(d.alloc(uint64_t(triad_n) * 8)), *b = static_cast<double*>(d.alloc(uint64_t(triad_n) * 8)),
             *c = static_cast<double*>(d.alloc(uint64_t(triad_n) * 8));
      const Dim3 grid{(triad_n + 1023) / 1024}, block{1024};
      const auto& k = timed(d, **s, "triad_f64", grid, block, a, b, c, 0.4, triad_n);
      const double tbps = 24.0 * triad_n / (k.microseconds * 1e-6) / 1e12;
      const auto& kc = timed(d, **s, "copy_f64", grid, block, a, c, triad_n);
      const double copy_tbps = 16.0 * triad_n / (kc.microseconds * 1e-6) / 1e12;
      const auto& m = g.timing;
      std::cout << fmt::format("| {} | {:.1f} / {} | {:.1f} / {} | {:.1f} / {} | {:.1f} / {} | {:.3f} / {:.3f} | {:.3f} |\n", g.key,
                               l1, m.l1_latency, l2, m.l2_latency, far, m.l2_far_latency, dram, m.dram_latency, tbps,
                               g.memory_bandwidth_gbps * m.dram_efficiency / 1000, copy_tbps);
    }
    if (want("throughput")) throughput_table(*gpus);
    if (want("tensor")) tensor_table(*gpus);
    if (want("atomics")) atomics_table(*gpus);
    if (want("host")) host_table(*gpus);
    if (want("cta")) cta_table(*gpus);
    if (want("l1")) l1_table(*gpus);
    if (want("heldout")) {
      // Shown as it goes; with --write FILE also put into FILE's held-out block.
      std::cout << "\n## Held-out: published measurements the configs were not built from\n\n";
      std::ostringstream table;
      TeeBuf tee(std::cout.rdbuf(), table.rdbuf());
      std::ostream out(&tee);
      heldout_table(*gpus, stream_n, max_footprint, max_gemm_flop, match, out);
      if (!write_path.empty()) {
        if (!gpu_key.empty() || !match.empty())
          throw std::runtime_error("--write takes every figure: leave out --gpu and --match");
        write_heldout_section(write_path, table.str());
        std::cout << "written to " << write_path << "\n";
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "timing_validate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
