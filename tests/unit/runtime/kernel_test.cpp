// Runtime API with kernels written in PTX here: parameter packing from
// `void** args`, launch validation codes, symbols, managed variables,
// sticky faults, -rdc style multi-module linking, occupancy.
#include <cstring>
#include <vector>

#include "runtime_fixture.h"

namespace softgpu::runtime::testing {
namespace {

constexpr const char* kHeader = ".version 8.0\n.target sm_80\n.address_size 64\n";

constexpr const char* kKernels = R"(
.global .align 4 .u32 gcounter;
.const .align 4 .f32 cscale[4];

.visible .entry scale(.param .u64 p, .param .f32 s, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<4>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [p];
  ld.param.f32 %f1, [s];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.f32 %f2, [%rd4];
  mul.f32 %f3, %f2, %f1;
  st.global.f32 [%rd4], %f3;
DONE:
  ret;
}

.visible .entry pack(.param .u64 out, .param .u8 a, .param .u64 b, .param .u32 c)
{
  .reg .b16 %rs<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<7>;
  ld.param.u64 %rd1, [out];
  ld.param.u8 %rs1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r1, [c];
  cvta.to.global.u64 %rd3, %rd1;
  cvt.u64.u16 %rd4, %rs1;
  st.global.u64 [%rd3], %rd4;
  st.global.u64 [%rd3+8], %rd2;
  cvt.u64.u32 %rd5, %r1;
  st.global.u64 [%rd3+16], %rd5;
  ret;
}

.visible .entry syms(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.const.f32 %f1, [cscale+4];
  st.global.f32 [%rd2], %f1;
  atom.global.add.u32 %r1, [gcounter], 1;
  ret;
}

.visible .entry fault(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 7;
  st.global.u32 [%rd1], %r1;
  ret;
}

.visible .entry big_static()
{
  .shared .align 4 .b8 sbuf[40000];
  .reg .b32 %r<2>;
  mov.u32 %r1, 1;
  st.shared.u32 [sbuf], %r1;
  ret;
}

.visible .entry bounded() .maxntid 128, 1, 1
{
  ret;
}
)";

std::string kernels_ptx() { return std::string(kHeader) + kKernels; }

// Stand-ins for the host stubs and shadows nvcc would generate.
char k_scale, k_pack, k_syms, k_fault, k_big_static, k_bounded;
float v_cscale[4];
unsigned v_gcounter;

class KernelTest : public RuntimeTest {
 protected:
  void SetUp() override {
    mod = rt.register_ptx({kernels_ptx()}, "kernels.ptx");
    rt.register_function(mod, &k_scale, "scale");
    rt.register_function(mod, &k_pack, "pack");
    rt.register_function(mod, &k_syms, "syms");
    rt.register_function(mod, &k_fault, "fault");
    rt.register_function(mod, &k_big_static, "big_static");
    rt.register_function(mod, &k_bounded, "bounded");
    rt.register_var(mod, v_cscale, "cscale", sizeof v_cscale, true);
    rt.register_var(mod, &v_gcounter, "gcounter", sizeof v_gcounter, false);
  }
  void* mod = nullptr;
};

TEST_F(KernelTest, ScaleKernelWithPackedParams) {
  const int n = 1000;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = float(i);
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, n * sizeof(float)), Status::Success);
  ASSERT_EQ(rt.memcpy(d, host.data(), n * sizeof(float), CopyKind::HostToDevice), Status::Success);
  float s = 2.5f;
  int count = n;
  void* args[] = {&d, &s, &count};
  ASSERT_EQ(rt.launch(&k_scale, {(n + 127) / 128, 1, 1}, {128, 1, 1}, args, 0, nullptr), Status::Success);
  ASSERT_EQ(rt.synchronize(), Status::Success);
  ASSERT_EQ(rt.memcpy(host.data(), d, n * sizeof(float), CopyKind::DeviceToHost), Status::Success);
  for (int i = 0; i < n; ++i) ASSERT_EQ(host[i], 2.5f * float(i)) << i;
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(KernelTest, ParamOffsetsComeFromThePtx) {
  // u8 at 8, u64 aligned up to 16, u32 at 24: the host passes only pointers.
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 24), Status::Success);
  unsigned char a = 0xC3;
  unsigned long long b = 0x1122334455667788ull;
  unsigned c = 0xDEADBEEF;
  void* args[] = {&d, &a, &b, &c};
  void* handle = nullptr;
  ASSERT_EQ(rt.get_kernel(&handle, &k_pack), Status::Success);
  ASSERT_EQ(rt.launch(handle, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::Success);
  unsigned long long out[3] = {};
  ASSERT_EQ(rt.memcpy(out, d, sizeof out, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(out[0], 0xC3u);
  EXPECT_EQ(out[1], 0x1122334455667788ull);
  EXPECT_EQ(out[2], 0xDEADBEEFull);
  // Missing argument array.
  EXPECT_EQ(rt.launch(handle, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::InvalidValue);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(KernelTest, LaunchValidationCodes) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 64), Status::Success);
  float s = 1;
  int n = 0;
  void* args[] = {&d, &s, &n};
  auto L = [&](Dim3 g, Dim3 b, size_t shm = 0) { return rt.launch(&k_scale, g, b, args, shm, nullptr); };
  EXPECT_EQ(L({1, 1, 1}, {1025, 1, 1}), Status::InvalidValue);
  EXPECT_EQ(L({1, 1, 1}, {1, 1, 65}), Status::InvalidValue);
  EXPECT_EQ(L({1, 1, 1}, {64, 32, 1}), Status::InvalidValue);  // 2048 threads
  EXPECT_EQ(L({0, 1, 1}, {32, 1, 1}), Status::InvalidValue);
  EXPECT_EQ(L({1, 1, 1}, {0, 1, 1}), Status::InvalidValue);
  EXPECT_EQ(L({1, 65536, 1}, {32, 1, 1}), Status::InvalidValue);
  EXPECT_EQ(L({1, 1, 1}, {32, 1, 1}, 49153), Status::InvalidValue);
  EXPECT_EQ(L({1, 1, 1}, {32, 1, 1}, 49152), Status::Success);
  // Past .maxntid 128: invalid value, as numba-cuda's TestLaunchBounds expects of NVIDIA's driver.
  EXPECT_EQ(rt.launch(&k_bounded, {1, 1, 1}, {256, 1, 1}, nullptr, 0, nullptr), Status::InvalidValue);
  EXPECT_EQ(rt.launch(&k_bounded, {1, 1, 1}, {128, 1, 1}, nullptr, 0, nullptr), Status::Success);
  EXPECT_EQ(rt.launch(&k_scale, {1, 1, 1}, {32, 1, 1}, args, 0, reinterpret_cast<void*>(0x77)),
            Status::InvalidResourceHandle);
  EXPECT_EQ(rt.synchronize(), Status::Success);  // validation errors are not sticky
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(KernelTest, StaticPlusDynamicSharedAndOptIn) {
  // 40000 static: 9152 dynamic bytes fit under the 48 KiB default.
  EXPECT_EQ(rt.launch(&k_big_static, {1, 1, 1}, {32, 1, 1}, nullptr, 9152, nullptr), Status::Success);
  EXPECT_EQ(rt.launch(&k_big_static, {1, 1, 1}, {32, 1, 1}, nullptr, 9153, nullptr), Status::InvalidValue);
  // Opt in to more, up to the per-block opt-in limit (101376 - 40000 = 61376).
  EXPECT_EQ(rt.func_set_attribute(&k_big_static, FuncAttribute::MaxDynamicSharedMemorySize, 61377),
            Status::InvalidValue);
  ASSERT_EQ(rt.func_set_attribute(&k_big_static, FuncAttribute::MaxDynamicSharedMemorySize, 60000),
            Status::Success);
  EXPECT_EQ(rt.launch(&k_big_static, {1, 1, 1}, {32, 1, 1}, nullptr, 60000, nullptr), Status::Success);
  EXPECT_EQ(rt.launch(&k_big_static, {1, 1, 1}, {32, 1, 1}, nullptr, 60001, nullptr), Status::InvalidValue);
  FuncAttributes fa;
  ASSERT_EQ(rt.func_attributes(&fa, &k_big_static), Status::Success);
  EXPECT_EQ(fa.shared_bytes, 40000u);
  EXPECT_EQ(fa.max_dynamic_shared_bytes, 60000);
  EXPECT_EQ(fa.max_threads_per_block, 1024);
  ASSERT_EQ(rt.func_attributes(&fa, &k_bounded), Status::Success);
  EXPECT_EQ(fa.max_threads_per_block, 128);
}

TEST_F(KernelTest, SymbolsCopyAndKernelsSeeThem) {
  ASSERT_EQ(rt.init_module(mod), Status::Success);
  float scales[4] = {1.f, 3.25f, 5.f, 7.f};
  ASSERT_EQ(rt.memcpy_to_symbol(v_cscale, scales, sizeof scales, 0, CopyKind::HostToDevice), Status::Success);
  unsigned zero = 0;
  ASSERT_EQ(rt.memcpy_to_symbol(&v_gcounter, &zero, 4, 0, CopyKind::HostToDevice), Status::Success);
  size_t sz = 0;
  EXPECT_EQ(rt.symbol_size(&sz, v_cscale), Status::Success);
  EXPECT_EQ(sz, 16u);
  // Errors: past the end, wrong direction.
  EXPECT_EQ(rt.memcpy_to_symbol(v_cscale, scales, 8, 12, CopyKind::HostToDevice), Status::InvalidValue);
  EXPECT_EQ(rt.memcpy_to_symbol(v_cscale, scales, 4, 0, CopyKind::DeviceToHost), Status::InvalidMemcpyDirection);
  EXPECT_EQ(rt.memcpy_from_symbol(scales, v_cscale, 4, 0, CopyKind::HostToDevice), Status::InvalidMemcpyDirection);

  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 4), Status::Success);
  void* args[] = {&d};
  ASSERT_EQ(rt.launch(&k_syms, {3, 1, 1}, {64, 1, 1}, args, 0, nullptr), Status::Success);
  float got = 0;
  ASSERT_EQ(rt.memcpy(&got, d, 4, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(got, 3.25f);
  unsigned counter = 0;
  ASSERT_EQ(rt.memcpy_from_symbol(&counter, &v_gcounter, 4, 0, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(counter, 192u);
  // The partial copy at an offset reads the right element.
  float third = 0;
  ASSERT_EQ(rt.memcpy_from_symbol(&third, v_cscale, 4, 8, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(third, 5.f);
  void* addr = nullptr;
  ASSERT_EQ(rt.symbol_address(&addr, &v_gcounter), Status::Success);
  EXPECT_EQ(*static_cast<unsigned*>(addr), 192u);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(KernelTest, FaultIsStickyUntilReset) {
  void* bad = reinterpret_cast<void*>(16);  // no allocation there
  void* args[] = {&bad};
  // As on hardware, the launch itself succeeds; the fault surfaces afterwards.
  EXPECT_EQ(rt.launch(&k_fault, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::Success);
  EXPECT_EQ(rt.last_error(false), Status::Success);  // not before a synchronizing call
  EXPECT_EQ(rt.synchronize(), Status::IllegalAddress);
  void* d = nullptr;
  EXPECT_EQ(rt.malloc(&d, 16), Status::IllegalAddress);
  EXPECT_EQ(rt.last_error(true), Status::IllegalAddress);
  EXPECT_EQ(rt.last_error(true), Status::IllegalAddress);  // not cleared by reading
  EXPECT_EQ(rt.reset(), Status::Success);
  EXPECT_EQ(rt.synchronize(), Status::Success);
  EXPECT_EQ(rt.last_error(true), Status::Success);
  // Modules reload after reset and work again.
  ASSERT_EQ(rt.malloc(&d, 4), Status::Success);
  void* ok_args[] = {&d};
  EXPECT_EQ(rt.launch(&k_fault, {1, 1, 1}, {1, 1, 1}, ok_args, 0, nullptr), Status::Success);
  EXPECT_EQ(rt.synchronize(), Status::Success);
  EXPECT_EQ(*static_cast<unsigned*>(d), 7u);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(KernelTest, MisalignedStoreFaults) {
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 16), Status::Success);
  void* mis = static_cast<char*>(d) + 2;
  void* args[] = {&mis};
  EXPECT_EQ(rt.launch(&k_fault, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::Success);
  EXPECT_EQ(rt.synchronize(), Status::MisalignedAddress);
  EXPECT_EQ(rt.reset(), Status::Success);
}

TEST_F(KernelTest, OccupancyAndCooperativeLimit) {
  int blocks = 0;
  ASSERT_EQ(rt.occupancy_blocks_per_sm(&blocks, &k_scale, 256, 0), Status::Success);
  EXPECT_EQ(blocks, 8);  // 2048 threads per SM / 256
  ASSERT_EQ(rt.occupancy_blocks_per_sm(&blocks, &k_scale, 32, 0), Status::Success);
  EXPECT_EQ(blocks, 32);  // block-slot limit
  ASSERT_EQ(rt.occupancy_blocks_per_sm(&blocks, &k_big_static, 32, 0), Status::Success);
  EXPECT_EQ(blocks, 4);  // 167936 / (40000 + 1024)
  EXPECT_EQ(rt.occupancy_blocks_per_sm(&blocks, &k_scale, 0, 0), Status::InvalidValue);
  // 4 SMs x 8 blocks of 256 threads can be co-resident.
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 4), Status::Success);
  float s = 1;
  int n = 0;
  void* args[] = {&d, &s, &n};
  EXPECT_EQ(rt.launch(&k_scale, {33, 1, 1}, {256, 1, 1}, args, 0, nullptr, true), Status::CooperativeLaunchTooLarge);
  EXPECT_EQ(rt.launch(&k_scale, {32, 1, 1}, {256, 1, 1}, args, 0, nullptr, true), Status::Success);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, ManagedVariableIsHostVisible) {
  // What nvcc emits for `__managed__ unsigned mvar;`.
  std::string ptx = std::string(kHeader) + R"(
.global .attribute(.managed) .align 4 .u32 mvar;
.visible .entry setm()
{
  .reg .b32 %r<2>;
  mov.u32 %r1, 42;
  st.global.u32 [mvar], %r1;
  ret;
}
)";
  static char k_setm;
  static void* slot = nullptr;
  void* m = rt.register_ptx({ptx}, "managed.ptx");
  rt.register_function(m, &k_setm, "setm");
  rt.register_managed_var(m, &slot, "mvar", 4);
  ASSERT_EQ(rt.init_module(m), Status::Success);
  ASSERT_NE(slot, nullptr);  // the host reads the variable through this pointer
  *static_cast<unsigned*>(slot) = 5;
  ASSERT_EQ(rt.launch(&k_setm, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::Success);
  EXPECT_EQ(*static_cast<unsigned*>(slot), 42u);
  // cudaMemcpyFromSymbol(mvar) passes the managed address itself.
  unsigned v = 0;
  ASSERT_EQ(rt.memcpy_from_symbol(&v, slot, 4, 0, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(v, 42u);
}

TEST_F(RuntimeTest, ModulesLinkAcrossObjectsLikeRdc) {
  std::string a = std::string(kHeader) + R"(
.extern .func (.param .b32 func_retval0) twice(.param .b32 x);
.visible .entry call_twice(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 21;
  {
  .param .b32 param0;
  st.param.b32 [param0], %r1;
  .param .b32 retval0;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0];
  }
  st.global.u32 [%rd2], %r2;
  ret;
}
)";
  std::string b = std::string(kHeader) + R"(
.visible .func (.param .b32 func_retval0) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [func_retval0], %r2;
  ret;
}
)";
  static char k_call_twice;
  void* m = rt.register_ptx({a, b}, "rdc");
  rt.register_function(m, &k_call_twice, "call_twice");
  void* d = nullptr;
  ASSERT_EQ(rt.malloc(&d, 4), Status::Success);
  void* args[] = {&d};
  ASSERT_EQ(rt.launch(&k_call_twice, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::Success);
  unsigned out = 0;
  ASSERT_EQ(rt.memcpy(&out, d, 4, CopyKind::DeviceToHost), Status::Success);
  EXPECT_EQ(out, 42u);
  rt.unregister_module(m);
  EXPECT_EQ(rt.launch(&k_call_twice, {1, 1, 1}, {1, 1, 1}, args, 0, nullptr), Status::InvalidDeviceFunction);
  EXPECT_EQ(rt.free(d), Status::Success);
}

TEST_F(RuntimeTest, BadPtxFailsAtFirstUseWithInvalidPtx) {
  static char k_broken;
  void* m = rt.register_ptx({std::string(kHeader) + ".visible .entry broken( {\n  frobnicate;\n}\n"}, "broken.ptx");
  rt.register_function(m, &k_broken, "broken");
  EXPECT_EQ(rt.launch(&k_broken, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::InvalidPtx);
  EXPECT_EQ(rt.last_error(true), Status::InvalidPtx);
  EXPECT_EQ(rt.launch(&k_broken, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::InvalidPtx);
  EXPECT_EQ(rt.synchronize(), Status::Success);  // not sticky
}

TEST_F(RuntimeTest, KernelMissingFromPtxIsInvalidDeviceFunction) {
  static char k_ghost;
  void* m = rt.register_ptx({std::string(kHeader) + ".visible .entry real()\n{\n  ret;\n}\n"}, "real.ptx");
  rt.register_function(m, &k_ghost, "ghost");
  EXPECT_EQ(rt.launch(&k_ghost, {1, 1, 1}, {1, 1, 1}, nullptr, 0, nullptr), Status::InvalidDeviceFunction);
}

}  // namespace
}  // namespace softgpu::runtime::testing
