// Golden cycle baselines: predicted cycles and warp instructions of a set of
// kernels (the committed nvcc PTX in tests/ptx) on every shipped GPU. The
// ctest compares against baselines.json so that any change to predictions
// shows in review; `timing_baselines --write FILE` regenerates it.
//
// Each case runs the real kernel functionally (results are checked against a
// CPU computation, so a broken kernel cannot hide behind a baseline) with the
// trace recorder and the kernel model attached. Resident CTAs per SM come
// from config::occupancy (registers unknown: PTX only); the shared-memory
// carveout is what the resident CTAs need.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <sstream>

#include "config/gpu_config.h"
#include "config/occupancy.h"
#include "ptx_device.h"
#include "timing/kernel_model.h"
#include "timing/params_from_config.h"
#include "timing/recorder.h"

using namespace softgpu;

namespace {

using Device = test::PtxDevice;

Device corpus(const std::string& name) {
  return Device::from_file(std::string(SOFTGPU_PTX_CORPUS) + "/" + name + ".ptx");
}

struct Launch {
  std::string kernel;
  exec::LaunchConfig cfg;
};

template <class... A>
Launch make_launch(const Device& d, std::string k, Dim3 g, Dim3 b, A... args) {
  auto cfg = d.config(k, g, b, args...);
  return {std::move(k), std::move(cfg)};
}

struct Timed {
  uint64_t cycles = 0, warp_instructions = 0;
  std::string bound;
};

Timed time_launch(Device& d, const Launch& l, const config::GpuConfig& gpu) {
  const auto* ki = exec::find_kernel(*d.prog, l.kernel);
  const auto occ = config::occupancy(gpu, {l.cfg.block.count(), 0, ki->static_shared_bytes});
  const uint64_t carveout =
      ki->static_shared_bytes ? std::min<uint64_t>(gpu.shared_memory_per_sm,
                                                   uint64_t(occ.blocks_per_sm) *
                                                       (ki->static_shared_bytes + gpu.reserved_shared_memory_per_block))
                              : 0;
  auto p = timing::params_from(gpu, carveout);
  if (!p) throw std::runtime_error(p.error().message);
  timing::KernelModel model(*p, {l.kernel, l.cfg.grid, l.cfg.block, std::max<uint32_t>(occ.blocks_per_sm, 1)},
                            gpu.max_warps_per_sm);
  timing::TraceRecorder rec([&](std::unique_ptr<timing::CtaTrace> t) { model.add(std::move(t)); },
                            [&](uint32_t c) { return model.wanted(c); });
  exec::ExecOptions opts;
  opts.threads = 2;
  opts.listener = &rec;
  opts.sm_count = gpu.sm_count;
  auto r = d.launch(l.kernel, l.cfg, opts);
  if (r.status != Status::Success)
    throw std::runtime_error(r.fault ? r.fault->message : fmt::format("status {}", int(r.status)));
  auto k = model.finish();
  return {k.cycles, k.warp_instructions, std::string(timing::bound_name(k.bound))};
}

struct Case {
  std::string name;
  std::function<Timed(const config::GpuConfig&)> run;
};

// What tests/ptx/branches.cu computes per element.
int branches_ref(int v) {
  if (v < 0) return -1;
  int r = 0;
  for (int k = 0; k < std::min(v % 8, 5); ++k) r += (k & 1) ? k : 2 * k;
  if (v & 1) r += 100;
  else if (v % 3 == 0) r += 200;
  return r;
}

void require(bool ok, const std::string& what) {
  if (!ok) throw std::runtime_error("wrong result: " + what);
}

std::vector<Case> cases() {
  std::vector<Case> v;
  v.push_back({"vadd_256k", [](const config::GpuConfig& g) {
                 Device d = corpus("vadd");
                 const int n = 1 << 18;
                 float *a = d.alloc<float>(n), *b = d.alloc<float>(n), *c = d.alloc<float>(n);
                 for (int i = 0; i < n; ++i) { a[i] = float(i); b[i] = 0.5f; }
                 auto r = time_launch(d, make_launch(d, "vadd", {n / 256}, {256}, a, b, c, n), g);
                 for (int i = 0; i < n; i += 4099) require(c[i] == float(i) + 0.5f, "vadd");
                 return r;
               }});
  v.push_back({"reduce_sum_256k", [](const config::GpuConfig& g) {
                 Device d = corpus("reduce");
                 const int n = 1 << 18;
                 int *in = d.alloc<int>(n), *sums = d.alloc<int>(n / 256);
                 for (int i = 0; i < n; ++i) in[i] = i % 7;
                 auto r = time_launch(d, make_launch(d, "reduce_sum", {n / 256}, {256}, in, sums, n), g);
                 int want = 0;
                 for (int t = 0; t < 256; ++t) want += in[t];
                 require(sums[0] == want, "reduce_sum");
                 return r;
               }});
  v.push_back({"atomics_64k", [](const config::GpuConfig& g) {
                 Device d = corpus("atomics");
                 const int n = 1 << 16;
                 int *cnt = d.alloc<int>(6), *vals = d.alloc<int>(n);
                 int init[6] = {0, 0, INT32_MIN, INT32_MAX, 0, -1};
                 std::memcpy(cnt, init, sizeof init);
                 for (int i = 0; i < n; ++i) vals[i] = (i * 7919) % 2001 - 1000;
                 auto r = time_launch(d, make_launch(d, "atomics", {n / 128}, {128}, cnt, vals, n), g);
                 require(cnt[0] == n, "atomics count");
                 return r;
               }});
  v.push_back({"branches_64k", [](const config::GpuConfig& g) {
                 Device d = corpus("branches");
                 const int n = 1 << 16;
                 int *in = d.alloc<int>(n), *out = d.alloc<int>(n);
                 for (int i = 0; i < n; ++i) in[i] = i % 97 - 5;
                 auto r = time_launch(d, make_launch(d, "branches", {n / 32}, {32}, in, out, n), g);
                 for (int i = 0; i < n; i += 37) require(out[i] == branches_ref(in[i]), "branches");
                 return r;
               }});
  // f64 math: sqrt.rn.f64 and rcp.rn.f64 are machine-code sequences
  // ([timing.sequences] sqrt_f64, rcp_f64), exp and sin libdevice code.
  v.push_back({"dmath_16k", [](const config::GpuConfig& g) {
                 Device d = corpus("double_math");
                 const int n = 1 << 14;
                 double *in = d.alloc<double>(n), *out = d.alloc<double>(4 * n);
                 for (int i = 0; i < n; ++i) in[i] = 0.5 + 0.001 * i;
                 auto r = time_launch(d, make_launch(d, "dmath", {n / 128}, {128}, in, out, n), g);
                 for (int i = 0; i < n; i += 511) {
                   const double x = in[i];
                   require(out[4 * i] == std::sqrt(x), "dmath sqrt");
                   require(std::fabs(out[4 * i + 3] - std::fma(x, x, 1.0 / x)) <= 4e-16 * (x * x + 1 / x), "dmath x*x+1/x");
                 }
                 return r;
               }});
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string write, compare;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--write") write = argv[i + 1];
    else if (std::string(argv[i]) == "--compare") compare = argv[i + 1];
  }
  if (write.empty() == compare.empty()) {
    std::cerr << "usage: timing_baselines --compare FILE | --write FILE\n";
    return 2;
  }
  auto gpus = config::load_all_gpu_configs(SOFTGPU_SHIPPED_CONFIG_DIR);
  if (!gpus) {
    std::cerr << gpus.error().message << "\n";
    return 2;
  }
  std::map<std::string, std::string> got;  // "case gpu" -> "cycles instructions bound"
  try {
    for (const auto& c : cases())
      for (const auto& g : *gpus) {
        Timed r = c.run(g);
        got[c.name + " " + g.key] = fmt::format("{} {} {}", r.cycles, r.warp_instructions, r.bound);
      }
  } catch (const std::exception& e) {
    std::cerr << "timing_baselines: " << e.what() << "\n";
    return 1;
  }
  std::string text = "# case gpu: predicted cycles, warp instructions, bound (tests/timing/baselines.cpp)\n";
  for (const auto& [k, v] : got) text += k + ": " + v + "\n";
  if (!write.empty()) {
    std::ofstream(write) << text;
    std::cout << "wrote " << got.size() << " baselines to " << write << "\n";
    return 0;
  }
  const std::string want = test::read_text_file(compare);
  if (want == text) {
    std::cout << got.size() << " baselines match\n";
    return 0;
  }
  std::cout << "predicted timing changed; if intended, regenerate with\n  timing_baselines --write " << compare
            << "\nand commit the diff. Now:\n" << text << "Committed:\n" << want;
  return 1;
}
