// Executor limits and reports, on small hand-written kernels: the address in
// misaligned-access reports, the reserved shared memory registers, device
// assert, stack overflow, local frames and the printf FIFO.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <sstream>

#include "exec/engine.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

constexpr const char* kPtx = R"(.version 9.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) vprintf (.param .b64 f, .param .b64 a);
.extern .func __assertfail (.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn, .param .b64 c);
.global .align 1 .b8 fmt1[9] = {108, 105, 110, 101, 32, 37, 100, 10, 0};
.global .align 1 .b8 amsg[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 afile[5] = {107, 46, 99, 117, 0};
.global .align 1 .b8 afn[7] = {118, 111, 105, 100, 32, 107, 0};

.visible .entry misaligned_global(.param .u64 p)
{
	.reg .b32 %r<2>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	add.s64 %rd2, %rd1, 6;
	ld.global.u32 %r1, [%rd2];
	ret;
}

.visible .entry misaligned_shared()
{
	.shared .align 8 .b8 s[64];
	.reg .b64 %rd<2>;
	ld.shared.u64 %rd1, [s+12];
	ret;
}

.visible .entry reserved(.param .u64 p)
{
	.shared .align 4 .b8 mine[200];
	.reg .b32 %r<10>;
	.reg .b64 %rd<6>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %reserved_smem_offset_begin;
	mov.u32 %r2, %reserved_smem_offset_end;
	mov.u32 %r3, %reserved_smem_offset_cap;
	mov.u32 %r4, %reserved_smem_offset_0;
	mov.u32 %r5, %reserved_smem_offset_1;
	mov.u32 %r6, %total_smem_size;
	st.global.u32 [%rd1], %r1;
	st.global.u32 [%rd1+4], %r2;
	st.global.u32 [%rd1+8], %r3;
	st.global.u32 [%rd1+12], %r4;
	st.global.u32 [%rd1+16], %r5;
	st.global.u32 [%rd1+20], %r6;
	mov.u32 %r7, 77;
	st.shared.u32 [mine+196], %r7;
	// The last word of the reserved region, through a generic address.
	add.s32 %r8, %r2, -4;
	cvt.u64.u32 %rd2, %r8;
	cvta.shared.u64 %rd3, %rd2;
	mov.u32 %r9, -1;
	st.u32 [%rd3], %r9;
	ld.shared.u32 %r7, [mine+196];
	st.global.u32 [%rd1+24], %r7;
	ret;
}

.visible .entry asserts(.param .u32 bad)
{
	.reg .pred %p<2>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<5>;
	ld.param.u32 %r1, [bad];
	mov.u32 %r2, %tid.x;
	setp.ne.s32 %p1, %r2, %r1;
	@%p1 bra $L_ok;
	mov.u64 %rd1, amsg;
	cvta.global.u64 %rd1, %rd1;
	mov.u64 %rd2, afile;
	cvta.global.u64 %rd2, %rd2;
	mov.u64 %rd3, afn;
	cvta.global.u64 %rd3, %rd3;
	{
	.param .b64 a0;
	st.param.b64 [a0], %rd1;
	.param .b64 a1;
	st.param.b64 [a1], %rd2;
	.param .b32 a2;
	st.param.b32 [a2], 42;
	.param .b64 a3;
	st.param.b64 [a3], %rd3;
	.param .b64 a4;
	st.param.b64 [a4], 1;
	call.uni __assertfail, (a0, a1, a2, a3, a4);
	}
$L_ok:
	ret;
}

.visible .entry huge_frame()
{
	.local .align 4 .b8 a[5000000000];
	ret;
}

.visible .entry frame_600k()
{
	.local .align 4 .b8 a[614400];
	ret;
}

.visible .entry prints(.param .u32 n)
{
	.local .align 8 .b8 buf[8];
	.reg .b32 %r<4>;
	.reg .b64 %rd<5>;
	mov.u32 %r1, %tid.x;
	mov.u64 %rd1, buf;
	cvta.local.u64 %rd2, %rd1;
	st.local.u32 [buf], %r1;
	mov.u64 %rd3, fmt1;
	cvta.global.u64 %rd3, %rd3;
	{
	.param .b64 f;
	st.param.b64 [f], %rd3;
	.param .b64 a;
	st.param.b64 [a], %rd2;
	.param .b32 r;
	call.uni (r), vprintf, (f, a);
	}
	ret;
}
)";

struct Fixture {
  exec::DeviceMemory mem{Bytes{1ull << 30}};
  std::shared_ptr<exec::LoadedProgram> prog;
  exec::ExecOptions opts;

  Fixture() {
    auto pr = ptx::parse(kPtx, "limits.ptx");
    if (!pr.module) ADD_FAILURE() << ptx::render(pr.diagnostics, kPtx);
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    auto lr = exec::load_program(std::move(mods), mem);
    if (!lr.program) ADD_FAILURE() << ptx::render(lr.diagnostics, kPtx);
    prog = lr.program;
  }
  template <class T>
  T* alloc(size_t n) {
    auto a = mem.allocate(Bytes{n * sizeof(T)}, exec::MemKind::Device);
    std::memset(reinterpret_cast<void*>(a->value), 0, n * sizeof(T));
    return reinterpret_cast<T*>(a->value);
  }
  template <class... A>
  exec::LaunchResult run(const std::string& k, Dim3 g, Dim3 b, A... args) {
    exec::LaunchConfig cfg;
    cfg.grid = g;
    cfg.block = b;
    const auto* ki = exec::find_kernel(*prog, k);
    EXPECT_NE(ki, nullptr);
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    auto put = [&](auto v) {
      std::memcpy(cfg.params.data() + ki->params[i].offset, &v, sizeof v);
      ++i;
    };
    (put(args), ...);
    (void)put;  // unused when the kernel takes no arguments
    return exec::launch(*prog, k, cfg, mem, opts);
  }
};

TEST(Limits, MisalignedGlobalReportNamesTheAddress) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  int* p = f.alloc<int>(64);
  auto r = f.run("misaligned_global", Dim3{1}, Dim3{1}, p);
  EXPECT_EQ(r.status, Status::MisalignedAddress);
  ASSERT_TRUE(r.fault);
  const uint64_t want = reinterpret_cast<uint64_t>(p) + 6;
  EXPECT_EQ(r.fault->address, want);
  EXPECT_NE(r.fault->message.find(fmt::format("misaligned 4-byte read of global memory at address 0x{:x} ", want)),
            std::string::npos)
      << r.fault->message;
}

TEST(Limits, MisalignedSharedReportNamesTheOffset) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  auto r = f.run("misaligned_shared", Dim3{1}, Dim3{1});
  EXPECT_EQ(r.status, Status::MisalignedAddress);
  ASSERT_TRUE(r.fault);
  EXPECT_NE(r.fault->message.find("misaligned 8-byte read of shared memory at offset 12 "), std::string::npos)
      << r.fault->message;
}

TEST(Limits, ReservedSharedMemoryFollowsTheBlocksOwn) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  uint32_t* out = f.alloc<uint32_t>(8);
  auto r = f.run("reserved", Dim3{2}, Dim3{32}, out);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  const uint32_t total = out[5];
  EXPECT_GE(total, 200u);                       // the kernel's own 200 bytes
  EXPECT_EQ(out[0], (total + 127) / 128 * 128);  // begin: next 128-byte unit after them
  EXPECT_EQ(out[1], out[0] + 1024);              // end: 1 KB reserved per block
  EXPECT_EQ(out[2], 1024u);                      // cap
  EXPECT_EQ(out[3], out[0]);                     // _0: first half
  EXPECT_EQ(out[4], out[0] + 512);               // _1: second half
  EXPECT_EQ(out[6], 77u);                        // writing the region left the kernel's data alone
}

TEST(Limits, DeviceAssertPrintsWhatHardwarePrints) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  auto r = f.run("asserts", Dim3{3}, Dim3{64}, uint32_t(37));
  EXPECT_EQ(r.status, Status::AssertTriggered);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->status, Status::AssertTriggered);
  // The first block to run asserts first (one host thread: block 0).
  EXPECT_EQ(r.fault->message.rfind("k.cu:42: void k: block: [0,0,0], thread: [37,0,0] Assertion `x > 0` failed.\n"
                                   "softgpu: kernel 'asserts' block (0,0,0) thread (37,0,0): device-side assert "
                                   "triggered",
                                   0),
            0u)
      << r.fault->message;
}

TEST(Limits, PassingAssertsDoNothing) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  auto r = f.run("asserts", Dim3{3}, Dim3{64}, uint32_t(1000));
  EXPECT_EQ(r.status, Status::Success);
  EXPECT_FALSE(r.fault);
}

TEST(Limits, FramesBeyond512KBNeverLaunch) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  auto r = f.run("frame_600k", Dim3{1}, Dim3{32});
  EXPECT_EQ(r.status, Status::LaunchOutOfResources);
  EXPECT_FALSE(r.fault);  // a refused launch, not a fault
  EXPECT_EQ(r.error, "kernel 'frame_600k' needs 614400 bytes of local memory per thread, more than the 524288 a "
                     "thread may have");
  r = f.run("huge_frame", Dim3{1}, Dim3{32});  // 5 GB: counted without wrapping around
  EXPECT_EQ(r.status, Status::LaunchOutOfResources);
  EXPECT_EQ(r.error.find("kernel 'huge_frame' needs over 4294901760 bytes"), 0u) << r.error;
}

TEST(Limits, PrintfStopsWhenTheFifoIsFull) {
  Fixture f;
  ASSERT_TRUE(f.prog);
  std::ostringstream os;
  f.opts.printf_out = &os;
  f.opts.threads = 1;
  f.opts.printf_fifo_bytes = 1000;  // 24-byte records (16 + one 8-byte argument): 41 fit (984 bytes)
  auto r = f.run("prints", Dim3{2}, Dim3{64}, 0u);
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : "");
  std::string want;
  for (int t = 0; t < 41; ++t) want += fmt::format("line {}\n", t);
  EXPECT_EQ(os.str(), want);
  // The default 1 MB holds all 128.
  std::ostringstream all;
  f.opts.printf_out = &all;
  f.opts.printf_fifo_bytes = 1ull << 20;
  r = f.run("prints", Dim3{2}, Dim3{64}, 0u);
  ASSERT_EQ(r.status, Status::Success);
  const std::string text = all.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 128);
}

}  // namespace
