// The timing session: the simulated clock against the model's kernel cycles
// and the config's launch overhead and link bandwidths (hand-computed from
// the shipped H100 config), the summary table and the JSON report.
#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "config/gpu_config.h"
#include "../../timing/ptx_device.h"
#include "timing/session.h"

using namespace softgpu;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry scale(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  .reg .f32 %f<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd2, %r5, 4;
  add.s64 %rd3, %rd1, %rd2;
  ld.global.f32 %f1, [%rd3];
  mul.f32 %f2, %f1, 0f40000000;
  st.global.f32 [%rd3], %f2;
DONE:
  ret;
}
)";

// The H100 config and `scale` over 64 Ki floats (256 CTAs of 256 threads)
// on a software GPU, as every test here uses them.
struct ScaleOnH100 {
  config::GpuConfig gpu;
  test::PtxDevice d{kPtx, "scale.ptx", 1ull << 30};
  static constexpr int n = 1 << 16;
  float* x = d.alloc<float>(n);
  exec::LaunchConfig cfg = d.config("scale", {n / 256, 1, 1}, {256, 1, 1}, x, n);
  explicit ScaleOnH100(config::GpuConfig g) : gpu(std::move(g)) {}
};

// Copies pass through the L2 (memory-side): a kernel scaling 256 KB in
// place just copied to the device finds them there (its loads and its
// stores all L2 hits); copied from an address the session is not told (0),
// the same kernel's loads miss (its stores then hit the lines they
// brought: half its L2 accesses). A memset leaves its lines alike; a copy
// to the host changes nothing for the kernel.
TEST(TimingSession, CopiesAndMemsetsLeaveTheirLinesInTheL2) {
  auto found = config::find_gpu_config("h100", SOFTGPU_SHIPPED_CONFIG_DIR);
  ASSERT_TRUE(found) << found.error().message;
  ScaleOnH100 k(*found);
  auto after = [&](auto&& before) {
    auto t = std::move(timing::TimingSession::create(k.gpu).value());
    before(*t);
    exec::ExecOptions opts;
    opts.listener = t->begin_launch({"scale", k.cfg.grid, k.cfg.block, 0, 0});
    EXPECT_EQ(k.d.launch("scale", k.cfg, opts).status, Status::Success);
    return t->end_launch();
  };
  const uint64_t bytes = uint64_t(k.n) * 4, at = reinterpret_cast<uint64_t>(k.x);
  const auto cold = after([&](timing::TimingSession& t) { t.copy(timing::CopyPath::HostToDevice, bytes); });
  const auto copied = after([&](timing::TimingSession& t) { t.copy(timing::CopyPath::HostToDevice, bytes, {}, true, at); });
  const auto set = after([&](timing::TimingSession& t) { t.memset(bytes, {}, at); });
  const auto to_host = after([&](timing::TimingSession& t) { t.copy(timing::CopyPath::DeviceToHost, bytes, {}, true, 0, 0); });
  EXPECT_DOUBLE_EQ(cold.l2_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(copied.l2_hit_rate, 1.0);
  EXPECT_DOUBLE_EQ(set.l2_hit_rate, 1.0);
  EXPECT_DOUBLE_EQ(to_host.l2_hit_rate, 0.5);
  EXPECT_LT(copied.cycles, cold.cycles);
  EXPECT_EQ(copied.cycles, set.cycles);
}

TEST(TimingSession, ClockSummaryAndReport) {
  auto gpu = config::find_gpu_config("h100", SOFTGPU_SHIPPED_CONFIG_DIR);
  ASSERT_TRUE(gpu) << gpu.error().message;
  auto s = timing::TimingSession::create(*gpu);
  ASSERT_TRUE(s) << s.error().message;
  timing::TimingSession& t = **s;

  test::PtxDevice d(kPtx, "scale.ptx", 1ull << 30);
  const int n = 1 << 16;
  float* x = d.alloc<float>(n);
  for (int i = 0; i < n; ++i) x[i] = float(i);
  const auto cfg = d.config("scale", {n / 256, 1, 1}, {256, 1, 1}, x, n);

  exec::ExecOptions opts;
  for (int rep = 0; rep < 2; ++rep) {
    opts.listener = t.begin_launch({"scale", cfg.grid, cfg.block, 0, 0});
    ASSERT_EQ(d.launch("scale", cfg, opts).status, Status::Success);
    t.end_launch();
  }
  for (int i = 0; i < n; i += 1001) EXPECT_EQ(x[i], float(i) * 4) << i;  // timing does not change results
  ASSERT_EQ(t.launches().size(), 2u);
  const auto& k = t.launches()[0];
  EXPECT_GT(k.cycles, 0u);
  // The same launch twice: the second finds its 256 KB in the L2, where
  // the first left it (the L2 persists across launches), among its newest
  // lines, so in the near partition: its loads wait 265 cycles instead of
  // DRAM's 650 (0.41 of them); its other costs keep it above a third.
  EXPECT_LT(t.launches()[1].cycles, k.cycles * 6 / 10);
  EXPECT_GT(t.launches()[1].cycles, k.cycles / 3);
  // h100.toml: kernel_launch_us = 2.5 at 1980 MHz -> 4950 cycles per launch.
  const double launch = 2.5 * 1980;
  EXPECT_NEAR(t.now_us(), (2 * launch + double(k.cycles + t.launches()[1].cycles)) / 1980.0, 1e-6);
  // 64 MiB host to device over the host link (h100.toml: host_link_gbps).
  const double before = t.now_us();
  t.copy(timing::CopyPath::HostToDevice, 64ull << 20);
  EXPECT_NEAR(t.now_us() - before, double(64ull << 20) / (gpu->timing.host_link_gbps * 1e3), 1e-3);

  std::ostringstream table;
  t.print_summary(table);
  EXPECT_NE(table.str().find("NVIDIA H100"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find(" scale\n"), std::string::npos) << table.str();
  EXPECT_NE(table.str().find("         2 "), std::string::npos) << table.str();  // launches column

  auto j = nlohmann::json::parse(t.json());
  ASSERT_EQ(j["launches"].size(), 2u);
  EXPECT_EQ(j["launches"][0]["kernel"], "scale");
  EXPECT_EQ(j["launches"][0]["cycles"], k.cycles);
  EXPECT_EQ(j["launches"][0]["warp_instructions"], k.warp_instructions);
  double shares = 0;
  for (auto& [name, v] : j["launches"][0]["warp_states"].items()) shares += v.get<double>();
  EXPECT_NEAR(shares, 1.0, 1e-9);
  // Every pipe's issue-slot share; the top one is the largest, and `scale`
  // (loads, a multiply, a store) issues nothing on the tensor pipe.
  const auto& pu = j["launches"][0]["pipe_utilization"];
  ASSERT_TRUE(pu.is_object());
  EXPECT_EQ(pu.size(), size_t(program::Pipe::Count_));
  EXPECT_EQ(pu["tensor"].get<double>(), 0.0);
  EXPECT_GT(pu["lsu"].get<double>(), 0.0);
  const std::string top = j["launches"][0]["top_pipe"];
  EXPECT_DOUBLE_EQ(pu[top].get<double>(), k.top_pipe_utilization);
  for (auto& [name, v] : pu.items()) EXPECT_LE(v.get<double>(), k.top_pipe_utilization) << name;
}

// Streams on the timeline (session.h): a copy on one stream runs beside a
// kernel on another; the same stream, or a wait on an event, orders them;
// the legacy stream waits for blocking streams but not non-blocking ones.
TEST(TimingSession, StreamsOverlapCopiesWithKernels) {
  auto found = config::find_gpu_config("h100", SOFTGPU_SHIPPED_CONFIG_DIR);
  ASSERT_TRUE(found) << found.error().message;
  ScaleOnH100 k(*found);
  const config::GpuConfig* gpu = &k.gpu;
  test::PtxDevice& d = k.d;
  const int n = k.n;
  float* x = k.x;
  const auto& cfg = k.cfg;
  const double mhz = 1980, launch = 2.5 * mhz;  // h100.toml: kernel_launch_us = 2.5
  const double copy = double(64ull << 20) / (gpu->timing.host_link_gbps * 1e3) * mhz;  // cycles, 64 MiB H2D
  const timing::StreamRef legacy, a{1, false, true}, b{2, false, true}, nb{3, false, false};
  auto run = [&](timing::TimingSession& t, timing::StreamRef s) {
    exec::ExecOptions opts;
    opts.listener = t.begin_launch({"scale", cfg.grid, cfg.block, 0, 0}, s);
    EXPECT_EQ(d.launch("scale", cfg, opts).status, Status::Success);
    return double(t.end_launch().cycles) + launch;
  };
  {  // copy on a, kernel on b: they overlap; the legacy stream waits for both
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    t->copy(timing::CopyPath::HostToDevice, 64ull << 20, a, false);
    const double k = run(*t, b);
    EXPECT_NEAR(t->stream_time_us(a), copy / mhz, 1e-6);
    EXPECT_NEAR(t->stream_time_us(b), k / mhz, 1e-6);
    EXPECT_NEAR(t->stream_time_us(legacy), std::max(copy, k) / mhz, 1e-6);
    EXPECT_NEAR(t->now_us(), std::max(copy, k) / mhz, 1e-6);
    // b waits for an event recorded on a: its next kernel starts after the copy.
    t->wait_until(b, t->stream_time_us(a));
    const double k2 = run(*t, b);
    EXPECT_NEAR(t->stream_time_us(b), (std::max(copy, k) + k2) / mhz, 1e-6);
  }
  {  // the same on one stream: in order, the times add up
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    t->copy(timing::CopyPath::HostToDevice, 64ull << 20, a, false);
    const double k = run(*t, a);
    EXPECT_NEAR(t->stream_time_us(a), (copy + k) / mhz, 1e-6);
  }
  {  // a memset is a kernel's overhead plus its bytes at device bandwidth, in its stream's order
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    t->copy(timing::CopyPath::HostToDevice, 64ull << 20, a, false);
    t->memset(64ull << 20, a);
    const double set = launch + double(64ull << 20) / (gpu->timing.d2d_copy_gbps * 1e3) * mhz;
    EXPECT_NEAR(t->stream_time_us(a), (copy + set) / mhz, 1e-6);
  }
  {  // two kernels that each fill the GPU (256 CTAs, 132 SMs) on two streams run one after the other
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    const double k1 = run(*t, a), k2 = run(*t, b);
    EXPECT_NEAR(t->stream_time_us(b), (k1 + k2) / mhz, 1e-6);
  }
  {  // small grids (4 CTAs: 4 of the 132 SMs) on two streams run at the same time; a grid that
     // needs every SM waits for both
    const auto small = d.config("scale", {4, 1, 1}, {256, 1, 1}, x, n);
    auto run_small = [&](timing::TimingSession& t, timing::StreamRef s) {
      exec::ExecOptions opts;
      opts.listener = t.begin_launch({"scale", small.grid, small.block, 0, 0}, s);
      EXPECT_EQ(d.launch("scale", small, opts).status, Status::Success);
      const timing::KernelTiming& k = t.end_launch();
      EXPECT_EQ(k.sms_used, 4u);
      return double(k.cycles) + launch;
    };
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    const double k1 = run_small(*t, a), k2 = run_small(*t, b);
    EXPECT_NEAR(t->stream_time_us(a), k1 / mhz, 1e-6);
    EXPECT_NEAR(t->stream_time_us(b), k2 / mhz, 1e-6);
    const double k3 = run(*t, nb);
    EXPECT_NEAR(t->stream_time_us(nb), (std::max(k1, k2) + k3) / mhz, 1e-6);
    // 33 small grids need 132 SMs: the 34th waits for the first SMs to
    // free up (those of the one that ends first: the later ones find the
    // first's data in the L2)
    auto t2 = std::move(timing::TimingSession::create(*gpu).value());
    double soonest = 1e300;
    for (int i = 0; i < 33; ++i)
      soonest = std::min(soonest, run_small(*t2, timing::StreamRef{uint64_t(100 + i), false, false}));
    const double k34 = run_small(*t2, timing::StreamRef{200, false, false});
    EXPECT_NEAR(t2->stream_time_us(timing::StreamRef{200, false, false}), (soonest + k34) / mhz, 1e-6);
  }
  {  // an async copy on the legacy stream holds back a blocking stream's kernel, not a non-blocking one's
    auto t = std::move(timing::TimingSession::create(*gpu).value());
    t->copy(timing::CopyPath::HostToDevice, 64ull << 20, legacy, false);
    const double k = run(*t, nb);
    EXPECT_NEAR(t->stream_time_us(nb), k / mhz, 1e-6);
    const double k2 = run(*t, a);
    EXPECT_NEAR(t->stream_time_us(a), (std::max(copy, k) + k2) / mhz, 1e-6);
    // a synchronous copy makes the host wait: later work starts after it
    auto t2 = std::move(timing::TimingSession::create(*gpu).value());
    t2->copy(timing::CopyPath::HostToDevice, 64ull << 20, legacy, true);
    EXPECT_NEAR(t2->stream_time_us(nb), copy / mhz, 1e-6);
  }
}

// A kernel replayed from a CUDA graph (a graph node's own timeline) costs
// graph_kernel_launch_us, not the stream launch's kernel_launch_us
// (h100.toml: 1.37 and 2.5 us at 1980 MHz); copies and memsets are unchanged.
TEST(TimingSession, GraphNodesLaunchAtTheGraphCost) {
  auto found = config::find_gpu_config("h100", SOFTGPU_SHIPPED_CONFIG_DIR);
  ASSERT_TRUE(found) << found.error().message;
  ScaleOnH100 k(*found);
  const double mhz = 1980, stream_launch = 2.5 * mhz, graph_launch = 1.37 * mhz;
  auto chain = [&](bool graph) {
    auto t = std::move(timing::TimingSession::create(k.gpu).value());
    double kernels = 0, end = 0;
    for (int i = 0; i < 10; ++i) {  // a chain: node i starts when node i-1 ends
      const timing::StreamRef s{uint64_t(1000 + (graph ? i : 0)), false, false, graph};
      t->wait_until(s, end);
      exec::ExecOptions opts;
      opts.listener = t->begin_launch({"scale", k.cfg.grid, k.cfg.block, 0, 0}, s);
      EXPECT_EQ(k.d.launch("scale", k.cfg, opts).status, Status::Success);
      kernels += double(t->end_launch().cycles);
      end = t->stream_time_us(s);
    }
    return std::pair{end * mhz, kernels};
  };
  const auto [stream_end, stream_kernels] = chain(false);
  const auto [graph_end, graph_kernels] = chain(true);
  EXPECT_NEAR(stream_end, stream_kernels + 10 * stream_launch, 1e-3);
  EXPECT_NEAR(graph_end, graph_kernels + 10 * graph_launch, 1e-3);
  EXPECT_EQ(graph_kernels, stream_kernels);  // the kernels themselves are timed alike
}

}  // namespace
