// A host thread reuses the register storage of its finished CTAs' warps for
// its next CTAs (exec/launch.cpp, SpareRegisters): every warp still starts
// with all registers zero, as a freshly allocated one does, whatever the
// warp before it left there.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "../../timing/ptx_device.h"

using namespace softgpu;

namespace {

// Stores %r1 before anything writes it (a fresh warp reads 0), then fills
// every register with values that depend on the thread, so that a warp
// given this storage without clearing it would read them.
constexpr const char* kPtx = R"(.version 9.0
.target sm_80
.address_size 64

.visible .entry unwritten(.param .u64 out, .param .u64 out2)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.reg .pred %p<3>;
	ld.param.u64 %rd1, [out];
	ld.param.u64 %rd2, [out2];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mad.lo.s32 %r5, %r2, %r3, %r4;
	mul.wide.s32 %rd3, %r5, 4;
	add.s64 %rd4, %rd1, %rd3;
	add.s64 %rd5, %rd2, %rd3;
	selp.u32 %r6, 1, 0, %p1;
	or.b32 %r6, %r6, %r1;
	st.global.u32 [%rd4], %r6;
	add.s32 %r1, %r5, 1;
	setp.ne.s32 %p1, %r1, 0;
	mul.lo.s32 %r7, %r1, 7;
	st.global.u32 [%rd5], %r7;
	ret;
}
)";

void expect_fresh_registers(unsigned threads) {
  test::PtxDevice d{kPtx, "cta_reuse.ptx", 1ull << 30};
  exec::ExecOptions opts;
  opts.threads = threads;
  constexpr uint32_t kCtas = 48, kThreads = 96;  // three warps per CTA
  constexpr size_t n = size_t(kCtas) * kThreads;
  uint32_t* out = d.alloc<uint32_t>(n);
  uint32_t* out2 = d.alloc<uint32_t>(n);
  std::memset(out, 0xff, n * sizeof(uint32_t));
  std::memset(out2, 0xff, n * sizeof(uint32_t));
  const auto cfg = d.config("unwritten", Dim3{kCtas}, Dim3{kThreads}, out, out2);
  for (int launch = 0; launch < 2; ++launch) {
    auto r = d.launch("unwritten", cfg, opts);
    ASSERT_EQ(r.status, Status::Success);
    size_t stale = 0, wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      stale += out[i] != 0;
      wrong += out2[i] != uint32_t(i + 1) * 7;
    }
    EXPECT_EQ(stale, 0u) << "threads read a register value an earlier warp left (launch " << launch << ")";
    EXPECT_EQ(wrong, 0u) << "launch " << launch;
  }
}

TEST(CtaReuse, RegistersStartAtZeroInEveryCtaOneHostThread) { expect_fresh_registers(1); }
TEST(CtaReuse, RegistersStartAtZeroInEveryCtaTwoHostThreads) { expect_fresh_registers(2); }

}  // namespace
