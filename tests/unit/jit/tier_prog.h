// A small PTX kernel with a loop and its CPU reference, for the tiering
// and cache tests (tier_test.cpp, cache_test.cpp).
#pragma once
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "exec/compiled.h"
#include "exec/engine.h"
#include "exec/warp.h"
#include "jit/jit.h"
#include "ptx/parser.h"

namespace softgpu::jit_test {


// The kernel's frame: gid in %r5 and in %r6, which the body turns into h;
// out[gid] = h.
inline const char* kHead = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry spin(.param .u64 out, .param .u32 iters) {
  .reg .u32 %r<8>;
  .reg .u64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.u32 %r5, %r3, %r4, %r2;
  mov.u32 %r6, %r5;
)";
inline const char* kTail = R"(  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r5, 4;
  add.u64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

// out[gid] = h after `iters` rounds of h = h * 1664525 + 1013904223; h ^= i.
inline const std::string kPtx = std::string(kHead) + R"(  mov.u32 %r7, 0;
LOOP:
  mad.lo.u32 %r6, %r6, 1664525, 1013904223;
  xor.b32 %r6, %r6, %r7;
  add.u32 %r7, %r7, 1;
  setp.lt.u32 %p1, %r7, %r1;
  @%p1 bra LOOP;
)" + kTail;

// A straight-line kernel: `rounds` copies of spin's loop body unrolled (two
// instructions each, no branch), so out[gid] = reference(gid, rounds); its
// iters parameter is not used (pass `rounds` to Prog::run).
inline std::string unrolled_ptx(uint32_t rounds) {
  std::string s = kHead;
  for (uint32_t i = 0; i < rounds; ++i)
    s += "  mad.lo.u32 %r6, %r6, 1664525, 1013904223;\n  xor.b32 %r6, %r6, " + std::to_string(i) + ";\n";
  return s + kTail;
}

inline uint32_t reference(uint32_t gid, uint32_t iters) {
  uint32_t h = gid;
  for (uint32_t i = 0; i < iters; ++i) h = (h * 1664525u + 1013904223u) ^ i;
  return h;
}

inline exec::CodeCompiler* tier_jit() {
  static std::unique_ptr<exec::CodeCompiler> jit = [] {
    std::string why;
    auto j = jit::make_compiler({}, &why);
    EXPECT_TRUE(j) << why;
    return j;
  }();
  return jit.get();
}

struct Prog {
  exec::DeviceMemory mem{Bytes{1ull << 28}};
  std::shared_ptr<exec::LoadedProgram> lp;
  uint32_t* out = nullptr;
  exec::ExecOptions opts;
  static constexpr size_t kOutBytes = 1 << 20;  // room for 262144 threads
  explicit Prog(exec::CodeCompiler* jit = tier_jit(), const std::string& ptx = kPtx) {
    auto pr = ptx::parse(ptx, "tier.ptx");
    EXPECT_TRUE(pr.module);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    lp = exec::load_program(std::move(mods), mem).program;
    EXPECT_TRUE(lp);
    out = reinterpret_cast<uint32_t*>(mem.allocate(Bytes{kOutBytes}, exec::MemKind::Device)->value);
    opts.compiler = jit;
  }
  exec::LaunchResult run(uint32_t ctas, uint32_t threads, uint32_t iters) {
    EXPECT_LE(size_t(ctas) * threads * 4, kOutBytes);
    std::memset(out, 0, size_t(ctas) * threads * 4);
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{ctas};
    cfg.block = Dim3{threads};
    cfg.params.resize(12);
    std::memcpy(cfg.params.data(), &out, 8);
    std::memcpy(cfg.params.data() + 8, &iters, 4);
    auto r = exec::launch(*lp, "spin", cfg, mem, opts);
    EXPECT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : r.error);
    for (uint32_t g = 0; g < ctas * threads; ++g) {
      EXPECT_EQ(out[g], reference(g, iters)) << "thread " << g;
      if (out[g] != reference(g, iters)) break;
    }
    return r;
  }
};


}  // namespace softgpu::jit_test
