// A module with instructions softgpu does not implement loads: the kernels
// that reach one (in their own code, or through functions they call,
// directly or through a function pointer, transitively) fail at launch with
// Status::NotSupported and a message naming the instruction, its PTX line
// and the kernel; the other kernels run.
#include <gtest/gtest.h>

#include <cstring>

#include "exec/engine.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

const char* kPtx = R"(.version 8.0
.target sm_90a
.address_size 64

.func helper()
{
	multimem.red.relaxed.sys.global.add.u32 [0], 1;
	ret;
}

.func mid()
{
	call helper, ();
	ret;
}

.func fine()
{
	ret;
}

.global .align 8 .u64 table[1] = {helper};

.visible .entry fill(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	add.s32 %r2, %r1, 100;
	st.global.u32 [%rd4], %r2;
	ret;
}

.visible .entry uses_multimem()
{
	.reg .f32 %f<2>; multimem.ld_reduce.relaxed.sys.global.add.f32 %f1, [0];
	ret;
}

.visible .entry calls_chain()
{
	call fine, ();
	call mid, ();
	ret;
}

.visible .entry through_table()
{
	.reg .b64 %rd<3>;
	mov.u64 %rd1, table;
	ld.global.u64 %rd2, [%rd1];
	{
	prototype_0 : .callprototype ()_ ();
	call %rd2, (), prototype_0;
	}
	ret;
}

.visible .entry tma_load()
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<2>;
	.reg .b16 %h<2>;
	cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes [%r1], [%rd1, {%r2, %r3, %r1}], [%r4], {%h1};
	ret;
}
)";

struct Loaded {
  exec::DeviceMemory mem{Bytes{1ull << 28}};
  exec::LoadResult lr;
  Loaded() {
    auto pr = ptx::parse(kPtx, "u.ptx");
    EXPECT_TRUE(pr.module) << ptx::render(pr.diagnostics, kPtx);
    EXPECT_TRUE(ptx::has_not_implemented(pr.diagnostics));
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    lr = exec::load_program(std::move(mods), mem);
  }
  exec::LaunchResult run(const std::string& k, uint64_t arg = 0) {
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{1, 1, 1};
    cfg.block = Dim3{32, 1, 1};
    const auto* ki = exec::find_kernel(*lr.program, k);
    EXPECT_NE(ki, nullptr);
    cfg.params.resize(ki->param_bytes);
    if (ki->param_bytes) std::memcpy(cfg.params.data(), &arg, sizeof arg);
    exec::ExecOptions opts;
    return exec::launch(*lr.program, k, cfg, mem, opts);
  }
};

TEST(Unimplemented, ModuleLoadsAndOnlyTheKernelsReachingOneFail) {
  Loaded l;
  ASSERT_TRUE(l.lr.program) << ptx::render(l.lr.diagnostics, kPtx);
  EXPECT_FALSE(ptx::has_errors(l.lr.diagnostics));
  // The form no handler accepts is reported by the loader (the parser's own
  // reports cover the opcodes it does not know).
  ASSERT_EQ(l.lr.diagnostics.size(), 1u) << ptx::render(l.lr.diagnostics, kPtx);
  EXPECT_EQ(l.lr.diagnostics[0].severity, ptx::Severity::NotImplemented);
  EXPECT_EQ(l.lr.diagnostics[0].loc.line, 68u);
  EXPECT_EQ(l.lr.diagnostics[0].message,
            "instruction 'cp.async.bulk.tensor.3d.shared::cluster.global.im2col::w.mbarrier::complete_tx::bytes' is not "
            "implemented by softgpu (in function 'tma_load'); kernels that use it fail at launch");

  auto msg = [&](const char* k) { return exec::find_kernel(*l.lr.program, k)->not_implemented; };
  EXPECT_EQ(msg("fill"), "");
  EXPECT_EQ(msg("uses_multimem"),
            "cannot launch kernel 'uses_multimem': softgpu does not implement instruction "
            "'multimem.ld_reduce.relaxed.sys.global.add.f32' at PTX line 40 (cudaErrorNotSupported; the module's other kernels run)");
  EXPECT_EQ(msg("calls_chain"),
            "cannot launch kernel 'calls_chain': softgpu does not implement instruction "
            "'multimem.red.relaxed.sys.global.add.u32' at PTX line 7, in function 'helper' that the kernel calls "
            "(cudaErrorNotSupported; the module's other kernels run)");
  EXPECT_NE(msg("through_table").find("'multimem.red.relaxed.sys.global.add.u32' at PTX line 7, in function 'helper'"),
            std::string::npos);
  EXPECT_NE(msg("tma_load").find("at PTX line 68 (cudaErrorNotSupported"), std::string::npos);

  auto buf = l.mem.allocate(Bytes{32 * 4}, exec::MemKind::Device);
  ASSERT_TRUE(buf);
  auto check_fill = [&] {
    std::memset(exec::DeviceMemory::host_ptr(*buf), 0, 32 * 4);
    auto r = l.run("fill", buf->value);
    EXPECT_EQ(r.status, Status::Success) << r.error;
    EXPECT_FALSE(r.fault);
    const auto* out = reinterpret_cast<const uint32_t*>(exec::DeviceMemory::host_ptr(*buf));
    for (uint32_t i = 0; i < 32; ++i) EXPECT_EQ(out[i], 100 + i);
  };
  check_fill();
  for (const char* k : {"uses_multimem", "calls_chain", "through_table", "tma_load"}) {
    auto r = l.run(k);
    EXPECT_EQ(r.status, Status::NotSupported) << k;
    EXPECT_FALSE(r.fault) << k;  // refused, never started: nothing sticky
    EXPECT_EQ(r.error, msg(k));
    EXPECT_EQ(r.warp_instructions, 0u);
  }
  check_fill();
}

// ld/st of a 128-bit element: a register is a 64-bit lane slot, so these
// forms are not implemented (the per-lane path copied 16 bytes into one
// 8-byte slot). The kernel is refused at launch; vector forms of 64-bit
// elements, the same 16 bytes per lane, run.
TEST(Unimplemented, LoadsAndStoresOf128BitElementsAreRefused) {
  const char* ptx = R"(.version 8.3
.target sm_90
.address_size 64

.visible .entry b128(.param .u64 p)
{
	.reg .b64 %rd<2>;
	.reg .b128 %q<2>;
	ld.param.u64 %rd1, [p];
	ld.global.b128 %q1, [%rd1];
	st.global.b128 [%rd1+16], %q1;
	ret;
}

.visible .entry v2b64(.param .u64 p)
{
	.reg .b64 %rd<4>;
	ld.param.u64 %rd1, [p];
	ld.global.v2.b64 {%rd2, %rd3}, [%rd1];
	st.global.v2.b64 [%rd1+16], {%rd3, %rd2};
	ret;
}
)";
  exec::DeviceMemory mem{Bytes{1ull << 28}};
  auto pr = ptx::parse(ptx, "b128.ptx");
  ASSERT_TRUE(pr.module) << ptx::render(pr.diagnostics, ptx);
  std::vector<ptx::Module> mods;
  mods.push_back(std::move(*pr.module));
  exec::LoadResult lr = exec::load_program(std::move(mods), mem);
  ASSERT_TRUE(lr.program) << ptx::render(lr.diagnostics, ptx);
  ASSERT_EQ(lr.diagnostics.size(), 2u) << ptx::render(lr.diagnostics, ptx);
  for (const auto& d : lr.diagnostics) EXPECT_EQ(d.severity, ptx::Severity::NotImplemented);
  EXPECT_EQ(lr.diagnostics[0].loc.line, 10u);
  EXPECT_EQ(lr.diagnostics[1].loc.line, 11u);

  auto buf = mem.allocate(Bytes{64}, exec::MemKind::Device);
  ASSERT_TRUE(buf);
  auto* words = reinterpret_cast<uint64_t*>(exec::DeviceMemory::host_ptr(*buf));
  auto run = [&](const char* k) {
    exec::LaunchConfig cfg;
    cfg.grid = Dim3{1, 1, 1};
    cfg.block = Dim3{1, 1, 1};
    cfg.params.resize(8);
    std::memcpy(cfg.params.data(), &buf->value, 8);
    exec::ExecOptions opts;
    return exec::launch(*lr.program, k, cfg, mem, opts);
  };
  for (int i = 0; i < 8; ++i) words[i] = 0x1111111111111111ull * uint64_t(i + 1);
  auto r = run("b128");
  EXPECT_EQ(r.status, Status::NotSupported);
  EXPECT_NE(r.error.find("'ld.global.b128' at PTX line 10"), std::string::npos) << r.error;
  EXPECT_EQ(words[2], 0x3333333333333333ull);  // never started: nothing written
  r = run("v2b64");
  ASSERT_EQ(r.status, Status::Success) << r.error;
  EXPECT_EQ(words[2], 0x2222222222222222ull);
  EXPECT_EQ(words[3], 0x1111111111111111ull);
}

}  // namespace
