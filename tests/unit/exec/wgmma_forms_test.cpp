// The forms of wgmma and setmaxnreg the executor binds, and those it does
// not: a kernel with a form outside the ISA's (a register count that does
// not fit N, an N the type lacks, imm-scale 0, imm-trans on tf32, mixed
// types the ISA does not list, a sparse form's K or selector outside the
// ISA's) fails at launch naming the instruction; the valid ones load.
#include <gtest/gtest.h>

#include "exec/engine.h"
#include "ptx/parser.h"

using namespace softgpu;

namespace {

const char* kHead = ".version 8.0\n.target sm_90a\n.address_size 64\n";

// not_implemented of kernel k whose body is `body` (an empty string: it loads and may run).
std::string form(const std::string& body) {
  std::string text = std::string(kHead) + ".visible .entry k()\n{\n.reg .b32 %d<129>;\n.reg .b64 %rd<3>;\n"
                     ".reg .pred %p<2>;\n" + body + "\tret;\n}\n";
  auto pr = ptx::parse(text, "w.ptx");
  EXPECT_TRUE(pr.module) << ptx::render(pr.diagnostics, text);
  if (!pr.module) return "parse failed";
  exec::DeviceMemory mem{Bytes{1ull << 24}};
  std::vector<ptx::Module> mods;
  mods.push_back(std::move(*pr.module));
  auto lr = exec::load_program(std::move(mods), mem);
  EXPECT_TRUE(lr.program);
  if (!lr.program) return "load failed";
  return exec::find_kernel(*lr.program, "k")->not_implemented;
}

std::string regs(int n) {
  std::string s = "{";
  for (int i = 0; i < n; ++i) s += (i ? ", %d" : "%d") + std::to_string(i);
  return s + "}";
}

TEST(WgmmaForms, ValidFormsBind) {
  EXPECT_EQ(form("\twgmma.fence.sync.aligned;\n\twgmma.commit_group.sync.aligned;\n"
                 "\twgmma.wait_group.sync.aligned 0;\n\tsetmaxnreg.dec.sync.aligned.u32 40;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " + regs(128) +
                 ", %rd1, %rd2, %p1, 1, -1, 1, 0;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sync.aligned.m64n16k16.f16.f16.f16 " + regs(4) +
                 ", {%d10, %d11, %d12, %d13}, %rd2, 1, 1, 1, 1;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sync.aligned.m64n24k8.f32.tf32.tf32 " + regs(12) + ", %rd1, %rd2, 0, 1, 1;\n"),
            "");
  EXPECT_EQ(form("\twgmma.mma_async.sync.aligned.m64n24k32.f16.e5m2.e4m3 " + regs(6) + ", %rd1, %rd2, 1, -1, 1;\n"),
            "");
  EXPECT_EQ(form("\twgmma.mma_async.sync.aligned.m64n48k32.s32.u8.s8.satfinite " + regs(24) +
                 ", %rd1, %rd2, %p1;\n"), "");
  // Sparse: K twice the dense one, sp-meta and sp-sel before scale-d.
  EXPECT_EQ(form("\twgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) +
                 ", %rd1, %rd2, %d9, 1, 1, 1, 1, 0, 0;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sp.sync.aligned.m64n16k32.f32.bf16.bf16 " + regs(8) +
                 ", {%d10, %d11, %d12, %d13}, %rd2, %d9, 0, %p1, 1, -1, 1;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 " + regs(4) +
                 ", %rd1, %rd2, %d9, 1, 1, 1, 1;\n"), "");
  EXPECT_EQ(form("\twgmma.mma_async.sp.sync.aligned.m64n16k64.s32.s8.u8.satfinite " + regs(8) +
                 ", %rd1, %rd2, %d9, 0, 1;\n"), "");
}

TEST(WgmmaForms, FormsOutsideTheIsaFailAtLaunch) {
  const std::string bad[] = {
      // 32 registers is N = 64, not 128
      "\twgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " + regs(32) + ", %rd1, %rd2, 1, 1, 1, 0, 0;\n",
      // integers have no N = 40
      "\twgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 " + regs(20) + ", %rd1, %rd2, 1;\n",
      // imm-scale-a 0
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, 1, 0, 1, 0, 0;\n",
      // tf32 takes no imm-trans
      "\twgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32 " + regs(4) + ", %rd1, %rd2, 1, 1, 1, 0, 0;\n",
      // bf16 accumulates in f32 only; f16 x bf16 is no form
      "\twgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16 " + regs(2) + ", %rd1, %rd2, 1, 1, 1, 0, 0;\n",
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 " + regs(4) + ", %rd1, %rd2, 1, 1, 1, 0, 0;\n",
      // k16 is not the fp8 shape; .satfinite is for integers
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.e4m3.e4m3 " + regs(4) + ", %rd1, %rd2, 1, 1, 1;\n",
      "\twgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.satfinite " + regs(4) + ", %rd1, %rd2, 1, 1, 1, 0, 0;\n",
      // sparse: the dense K, a selector of 2 (16-bit types have 0 and 1), 1 for 8-bit types (only 0)
      "\twgmma.mma_async.sp.sync.aligned.m64n8k16.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %d9, 0, 1, 1, 1, 0, 0;\n",
      "\twgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 " + regs(4) + ", %rd1, %rd2, %d9, 2, 1, 1, 1, 0, 0;\n",
      "\twgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 " + regs(4) + ", %rd1, %rd2, %d9, 1, 1;\n",
      "\twgmma.wait_group.sync.aligned %d1;\n",
      "\tsetmaxnreg.sync.aligned.u32 40;\n",
  };
  for (const std::string& b : bad) {
    const std::string msg = form(b);
    EXPECT_NE(msg.find("softgpu does not implement instruction '"), std::string::npos) << b << msg;
    EXPECT_NE(msg.find("at PTX line 9"), std::string::npos) << b << msg;
  }
}

}  // namespace
