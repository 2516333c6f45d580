// Labels are scoped by "{ }" blocks like declarations: inline asm repeats
// labels (CUTLASS's barrier wait loops are "LAB_WAIT: ... @P1 bra DONE;
// bra LAB_WAIT; DONE:" in every expansion), and each branch goes to the
// label of its own block, or of the nearest enclosing one.
#include <gtest/gtest.h>

#include "../../timing/ptx_device.h"

using namespace softgpu;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<2>;
  .reg .pred %q<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 0;
  {
  .reg .pred P1;
  LOOP:
  add.u32 %r1, %r1, 1;
  setp.ge.u32 P1, %r1, 3;
  @P1 bra DONE;
  bra LOOP;
  DONE:
  }
  mov.u32 %r2, 0;
  {
  .reg .pred P1;
  LOOP:
  add.u32 %r2, %r2, 10;
  setp.ge.u32 P1, %r2, 50;
  @P1 bra DONE;
  bra LOOP;
  DONE:
  }
  {
  setp.eq.u32 %q1, %r1, 3;
  @%q1 bra OUTER;
  mov.u32 %r2, 999;
  }
OUTER:
  add.u32 %r3, %r1, %r2;
  st.global.u32 [%rd1], %r3;
  ret;
}
)";

TEST(LabelScope, EachBlockBranchesToItsOwnLabels) {
  test::PtxDevice d(kPtx, "scope.ptx", 1ull << 24);
  auto* out = d.alloc<uint32_t>(1);
  auto r = d.launch("k", d.config("k", {1, 1, 1}, {1, 1, 1}, reinterpret_cast<uint64_t>(out)), {});
  ASSERT_EQ(r.status, Status::Success) << (r.fault ? r.fault->message : r.error);
  EXPECT_EQ(*out, 3u + 50u);  // 3 turns of the first loop, 5 of the second; the inner branch reached OUTER
}

TEST(LabelScope, DuplicatesInOneBlockAndOuterReferencesToRepeatedInnerLabelsAreErrors) {
  auto dup = ptx::parse(".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n{\nA:\nA:\n}\nret;\n}\n",
                        "d.ptx");
  ASSERT_FALSE(dup.module);
  EXPECT_NE(ptx::render(dup.diagnostics, "").find("duplicate label 'A' (first defined at 7:1)"), std::string::npos)
      << ptx::render(dup.diagnostics, "");
  auto outer = ptx::parse(
      ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\nbra IN;\n{\nIN:\nret;\n}\n{\nIN:\nret;\n}\n}\n",
      "o.ptx");
  ASSERT_FALSE(outer.module);
  EXPECT_NE(ptx::render(outer.diagnostics, "").find("unknown label 'IN'"), std::string::npos)
      << ptx::render(outer.diagnostics, "");
}

}  // namespace
