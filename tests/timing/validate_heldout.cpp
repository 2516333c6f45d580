// The held-out set (tests/timing/heldout.json): published measurements the
// configs were not built from, each rerun here through the timing model with
// kernels of the same shape (heldout.ptx), printed beside the published
// value with the error and the MAPE per group. `timing_validate --only
// heldout`; kept apart from the calibration tables in validate.cpp.
#include "validate_heldout.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

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
double run(Device& d, timing::TimingSession& s, const char* k, Dim3 g, Dim3 b, uint64_t shared, A... args) {
  const auto cfg = d.config(k, g, b, args...);
  exec::ExecOptions opts;
  opts.threads = 2;
  opts.listener = s.begin_launch({k, g, b, 0, shared});
  auto r = d.launch(k, cfg, opts);
  if (r.status != Status::Success) throw std::runtime_error(r.fault ? r.fault->message : "launch failed");
  return s.end_launch().microseconds;
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

// gpu-cache: every SM's CTA re-reads one buffer; the rate of the passes
// between two pass counts (the first, cold pass and the launch cancel).
double cache_gbps(Device& d, timing::TimingSession& s, const config::GpuConfig& g, uint64_t bytes) {
  const uint32_t floats = uint32_t(bytes / 4);
  void* b = d.alloc(bytes);
  void* a = d.alloc(uint64_t(g.sm_count) * 256 * 4);
  const uint32_t i1 = bytes <= (1u << 20) ? 8 : 1, i2 = 2 * i1;
  const double t1 = run(d, s, "hs_cache_sum", {g.sm_count}, {256}, 0, a, b, floats, i1);
  const double t2 = run(d, s, "hs_cache_sum", {g.sm_count}, {256}, 0, a, b, floats, i2);
  return double(bytes) * g.sm_count * (i2 - i1) / ((t2 - t1) * 1e-6) / 1e9;
}

}  // namespace

void heldout_table(const std::vector<config::GpuConfig>& gpus, uint32_t stream_n, uint64_t max_footprint) {
  std::ifstream f(SOFTGPU_HELDOUT_JSON);
  const nlohmann::json doc = nlohmann::json::parse(f);
  std::cout << fmt::format(
      "\n## Held-out: published measurements the configs were not built from\n\n"
      "`tests/timing/heldout.json` (sources there); gpu-stream arrays of {} doubles here (the published runs: "
      "134,217,730), gpu-cache footprints up to {} kB simulated. Error = model / published - 1.\n\n"
      "| benchmark | GPU | published | model | error |\n|---|---|---|---|---|\n",
      stream_n, max_footprint / 1024);
  std::map<std::string, std::pair<double, int>> by_group;  // group -> sum |error|, count
  for (const auto& g : gpus) {
    auto s = timing::TimingSession::create(g);
    if (!s) throw std::runtime_error(s.error().message);
    Device d;
    for (const auto& e : doc["entries"]) {
      if (e["gpu"] != g.key) continue;
      const std::string bench = e["benchmark"], id = e["id"];
      const auto& p = e["params"];
      double model = 0;
      if (bench == "gpu-stream") {
        model = stream_gbps(d, **s, g, e["kernel"], p["block_size"], p["streams"], stream_n);
      } else if (bench == "gpu-cache") {
        const uint64_t bytes = p["footprint_bytes"];
        if (bytes > max_footprint) continue;
        model = cache_gbps(d, **s, g, bytes);
      } else {
        continue;
      }
      const double pub = e["value"], err = model / pub - 1;
      auto& [sum, count] = by_group[e["group"]];
      sum += std::fabs(err);
      ++count;
      std::cout << fmt::format("| {} | {} | {:.0f} {} | {:.0f} | {:+.0f}% |\n", id, g.key, pub,
                               std::string(e["unit"]), model, 100 * err);
      std::cout.flush();
    }
  }
  double all = 0;
  int n = 0;
  std::cout << "\n| group | figures | MAPE |\n|---|---|---|\n";
  for (const auto& [group, v] : by_group) {
    std::cout << fmt::format("| {} | {} | {:.0f}% |\n", group, v.second, 100 * v.first / v.second);
    all += v.first;
    n += v.second;
  }
  if (n) std::cout << fmt::format("| all | {} | {:.0f}% |\n", n, 100 * all / n);
}
