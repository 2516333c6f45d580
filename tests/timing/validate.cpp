// The timing model's microbenchmarks on every shipped GPU (micro.ptx):
// pointer-chase latency from L1, L2 and DRAM (cycles per dependent load,
// from differences of chase lengths so that cold misses and the launch
// cancel) and STREAM triad bandwidth, printed as the markdown table of
// docs/validation.md beside the published figures in the configs.
// Run: build/tests/timing/timing_validate [--triad-n N] | --sampling-check N
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include "config/gpu_config.h"
#include "ptx_device.h"
#include "timing/session.h"

using namespace softgpu;

namespace {

struct Device : test::PtxDevice {
  Device() : PtxDevice(test::read_text_file(SOFTGPU_MICRO_PTX), "micro.ptx", 1ull << 33) {}
  void* alloc(uint64_t bytes) { return PtxDevice::alloc<std::byte>(bytes); }
};

template <class... A>
const timing::KernelTiming& timed(Device& d, timing::TimingSession& s, const char* k, Dim3 g, Dim3 b, A... args) {
  const auto cfg = d.config(k, g, b, args...);
  exec::ExecOptions opts;
  opts.threads = 2;
  opts.listener = s.begin_launch({k, g, b, 0, 0});
  auto r = d.launch(k, cfg, opts);
  if (r.status != Status::Success) throw std::runtime_error(r.fault ? r.fault->message : "launch failed");
  return s.end_launch();
}

// Cycles per step of a chase over `lines` lines `stride` bytes apart: the
// difference between 1 + passes and 1 pass over the ring.
double chase_latency(Device& d, timing::TimingSession& s, uint64_t lines, uint64_t stride, uint32_t passes) {
  auto* ring = static_cast<std::byte*>(d.alloc(lines * stride));
  for (uint64_t i = 0; i < lines; ++i) {
    uint64_t next = reinterpret_cast<uint64_t>(ring + ((i + 1) % lines) * stride);
    std::memcpy(ring + i * stride, &next, 8);
  }
  void* out = d.alloc(8);
  auto* p = ring;
  const uint32_t one = uint32_t(lines), many = uint32_t(lines * (1 + passes));
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
// tail cancel): `work_per_iter` units per thread per loop iteration of 32.
double rate_per_sm(Device& d, timing::TimingSession& s, const config::GpuConfig& g, const char* k,
                   double units_per_op) {
  const uint32_t block = 512, ctas = g.sm_count * std::max<uint32_t>(1, g.max_threads_per_sm / block);
  void* out = d.alloc(8);
  const uint32_t n1 = 256, n2 = 512;
  const double c1 = double(timed(d, s, k, {ctas}, {block}, n1, out).cycles);
  const double c2 = double(timed(d, s, k, {ctas}, {block}, n2, out).cycles);
  return units_per_op * double(ctas) * block * (n2 - n1) / ((c2 - c1) * g.sm_count);
}

double fma_latency(Device& d, timing::TimingSession& s) {
  void* out = d.alloc(8);
  const double c1 = double(timed(d, s, "fma_chain", {1}, {32}, 4096u, out).cycles);  // multiples of 32
  const double c2 = double(timed(d, s, "fma_chain", {1}, {32}, 8192u, out).cycles);
  return (c2 - c1) / 4096;
}

// Shared-memory bytes per cycle per SM: one CTA of 1024 threads per SM.
double smem_rate(Device& d, timing::TimingSession& s, const config::GpuConfig& g, uint32_t stride) {
  void* out = d.alloc(8);
  const uint32_t n1 = 256, n2 = 512;
  const double c1 = double(timed(d, s, "smem_read", {g.sm_count}, {1024}, n1, stride, out).cycles);
  const double c2 = double(timed(d, s, "smem_read", {g.sm_count}, {1024}, n2, stride, out).cycles);
  return 4.0 * 1024 * (n2 - n1) / (c2 - c1);
}

void throughput_table(const std::vector<config::GpuConfig>& gpus) {
  std::cout << "\n| GPU | FMA latency: model / config | FP32 FLOP/clk/SM: model / peak | MUFU ex2/clk/SM: model / peak "
               "| FP64 FLOP/clk/SM: model / peak | shared B/clk/SM, no conflicts / 32-way: model / peak |\n"
               "|---|---|---|---|---|---|\n";
  for (const auto& g : gpus) {
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    const auto& t = g.timing;
    const double sp = t.sub_partitions;
    const double lat = fma_latency(d, **s);
    const double fma = rate_per_sm(d, **s, g, "fma_tput", 2);
    const double ex2 = rate_per_sm(d, **s, g, "ex2_tput", 1);
    const double dfma = rate_per_sm(d, **s, g, "dfma_tput", 2);
    const double sm1 = smem_rate(d, **s, g, 1), sm32 = smem_rate(d, **s, g, 32);
    std::cout << fmt::format("| {} | {:.2f} / {} | {:.1f} / {:.0f} | {:.2f} / {:.0f} | {:.2f} / {:.0f} | {:.1f} / {:.2f} "
                             "vs {:.0f} / {:.0f} |\n",
                             g.key, lat, t.fma.latency, fma, 2 * 32 * sp / t.fma.interval, ex2, 32 * sp / t.xu.interval,
                             dfma, 2 * 32 * sp / t.fp64.interval, sm1, sm32, t.shared_bytes_per_clock,
                             t.shared_bytes_per_clock / 32);
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
  uint32_t triad_n = 1u << 24;
  uint32_t sampling_n = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--triad-n") triad_n = uint32_t(std::stoul(argv[i + 1]));
    if (std::string(argv[i]) == "--sampling-check") sampling_n = uint32_t(std::stoul(argv[i + 1]));
  }
  auto gpus = config::load_all_gpu_configs(SOFTGPU_SHIPPED_CONFIG_DIR);
  if (!gpus) { std::cerr << gpus.error().message << "\n"; return 2; }
  if (sampling_n) {
    for (const auto& g : *gpus)
      if (g.key == "h100") return sampling_check(g, sampling_n);
    return 2;
  }
  std::cout << "| GPU | L1 hit: model / config | L2 hit: model / config | DRAM: model / config | "
               "triad TB/s: model / spec x efficiency |\n|---|---|---|---|---|\n";
  try {
    for (const auto& g : *gpus) {
      auto s = timing::TimingSession::create(g);
      if (!s) throw std::runtime_error(s.error().message);
      Device d;
      const double l1 = chase_latency(d, **s, 64, 128, 8);            // 8 KB ring
      const double l2 = chase_latency(d, **s, 8192, 1024, 1);         // 8 MB ring, beyond any L1
      const double dram = cold_latency(d, **s, 8192, 4096);           // 32 MB, every line cold
      float *a = static_cast<float*>(d.alloc(uint64_t(triad_n) * 4)), *b = static_cast<float*>(d.alloc(uint64_t(triad_n) * 4)),
            *c = static_cast<float*>(d.alloc(uint64_t(triad_n) * 4));
      const auto& k = timed(d, **s, "triad", {triad_n / 256}, {256}, a, b, c, 2.0f, triad_n);
      const double tbps = 12.0 * triad_n / (k.microseconds * 1e-6) / 1e12;
      const auto& m = g.timing;
      std::cout << fmt::format("| {} | {:.1f} / {} | {:.1f} / {} | {:.1f} / {} | {:.2f} / {:.2f} |\n", g.key, l1,
                               m.l1_latency, l2, m.l2_latency, dram, m.dram_latency, tbps,
                               g.memory_bandwidth_gbps * m.dram_efficiency / 1000);
    }
    throughput_table(*gpus);
  } catch (const std::exception& e) {
    std::cerr << "timing_validate: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
