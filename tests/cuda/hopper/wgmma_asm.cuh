// Inline-PTX wgmma for the Hopper tests: one asm block runs a whole GEMM
// k-loop on a warpgroup. The accumulator lives in PTX registers declared in
// the block (d<ab>_0, d<ab>_1: pairs named by two octal digits, so that the
// preprocessor can spell lists of up to 128 registers); the block loads it
// from a per-thread buffer, runs `ksteps` wgmma.mma_async (each committed,
// descriptors read from a table of (a, b) pairs), waits for all groups and
// stores it back. Each step fences its register operands first
// (wgmma.fence), as the ISA requires. scale-d is a predicate: the first step's from the
// argument, then 1 (accumulate).
#pragma once
#include <cstdint>

#define WG_P(x) "d" #x "_0, d" #x "_1"
#define WG_P8(a) WG_P(a##0) ", " WG_P(a##1) ", " WG_P(a##2) ", " WG_P(a##3) ", " \
                 WG_P(a##4) ", " WG_P(a##5) ", " WG_P(a##6) ", " WG_P(a##7)
#define WG_D(x) ".reg .b32 d" #x "_<2>;\n"
#define WG_D8(a) WG_D(a##0) WG_D(a##1) WG_D(a##2) WG_D(a##3) WG_D(a##4) WG_D(a##5) WG_D(a##6) WG_D(a##7)
#define WG_L(x) "ld.b32 d" #x "_0, [ptr];\nld.b32 d" #x "_1, [ptr+4];\nadd.u64 ptr, ptr, 8;\n"
#define WG_L8(a) WG_L(a##0) WG_L(a##1) WG_L(a##2) WG_L(a##3) WG_L(a##4) WG_L(a##5) WG_L(a##6) WG_L(a##7)
#define WG_S(x) "st.b32 [ptr], d" #x "_0;\nst.b32 [ptr+4], d" #x "_1;\nadd.u64 ptr, ptr, 8;\n"
#define WG_S8(a) WG_S(a##0) WG_S(a##1) WG_S(a##2) WG_S(a##3) WG_S(a##4) WG_S(a##5) WG_S(a##6) WG_S(a##7)

// Accumulator registers per thread: R2 .. R128 (list, declarations, load, store).
#define WG_R4_LIST WG_P(0) ", " WG_P(1)
#define WG_R16_LIST WG_P8(0)
#define WG_R32_LIST WG_P8(0) ", " WG_P8(1)
#define WG_R64_LIST WG_P8(0) ", " WG_P8(1) ", " WG_P8(2) ", " WG_P8(3)
#define WG_R128_LIST WG_R64_LIST ", " WG_P8(4) ", " WG_P8(5) ", " WG_P8(6) ", " WG_P8(7)
#define WG_R2_LIST WG_P(0)
#define WG_R2_EACH(M) M(0)
#define WG_R4_EACH(M) M(0) M(1)
#define WG_R16_EACH(M) M##8(0)
#define WG_R32_EACH(M) M##8(0) M##8(1)
#define WG_R64_EACH(M) M##8(0) M##8(1) M##8(2) M##8(3)
#define WG_R128_EACH(M) WG_R64_EACH(M) M##8(4) M##8(5) M##8(6) M##8(7)

// Operands of the asm: %0 accumulator buffer, %1 descriptor table, %2 k-steps,
// %3 first scale-d, %4 A fragments (register-A forms: 4 words per step),
// %5..%8 imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b.
#define WG_TAIL_SS_T " da, db, p, %5, %6, %7, %8;\n"  // f16/bf16, A from a descriptor
#define WG_TAIL_RS_T " {a0, a1, a2, a3}, db, p, %5, %6, %8;\n"
#define WG_TAIL_SS " da, db, p, %5, %6;\n"  // tf32, fp8
#define WG_TAIL_RS " {a0, a1, a2, a3}, db, p, %5, %6;\n"
#define WG_TAIL_SS_I " da, db, p;\n"  // integers
#define WG_TAIL_RS_I " {a0, a1, a2, a3}, db, p;\n"
#define WG_ALOAD_SS ""
#define WG_ALOAD_RS \
  "ld.b32 a0, [ap];\nld.b32 a1, [ap+4];\nld.b32 a2, [ap+8];\nld.b32 a3, [ap+12];\nadd.u64 ap, ap, 16;\n"

// struct NAME { template <SA, SB, TA, TB> run(...) } issuing INSTR (without operands).
#define WG_OP(NAME, INSTR, R, FORM, TAIL)                                                                    \
  struct NAME {                                                                                              \
    static constexpr int kRegs = R;                                                                          \
    template <int SA, int SB, int TA, int TB>                                                                \
    __device__ static void run(uint32_t* d, const uint64_t* tab, int ksteps, int scale_d, const uint32_t* a) { \
      asm volatile(                                                                                          \
          "{\n.reg .b64 ptr, tab, ap, da, db;\n.reg .b32 a<4>;\n.reg .b32 cnt;\n.reg .pred p, q;\n"          \
          WG_R##R##_EACH(WG_D)                                                                               \
          "mov.b64 ptr, %0;\n" WG_R##R##_EACH(WG_L)                                                          \
          "mov.b64 tab, %1;\nmov.b64 ap, %4;\nmov.b32 cnt, %2;\nsetp.ne.b32 p, %3, 0;\n"                     \
          "WG_LOOP:\n"                                                                                       \
          "ld.b64 da, [tab];\nld.b64 db, [tab+8];\nadd.u64 tab, tab, 16;\n" WG_ALOAD_##FORM                  \
          "wgmma.fence.sync.aligned;\n"                                                                      \
          INSTR " {" WG_R##R##_LIST "}," TAIL                                                               \
          "wgmma.commit_group.sync.aligned;\n"                                                               \
          "setp.eq.b32 p, cnt, cnt;\nsub.u32 cnt, cnt, 1;\nsetp.ne.b32 q, cnt, 0;\n@q bra WG_LOOP;\n"       \
          "wgmma.wait_group.sync.aligned 0;\n"                                                               \
          "mov.b64 ptr, %0;\n" WG_R##R##_EACH(WG_S) "}\n"                                                    \
          :                                                                                                  \
          : "l"(d), "l"(tab), "r"(ksteps), "r"(scale_d), "l"(a), "n"(SA), "n"(SB), "n"(TA), "n"(TB)          \
          : "memory");                                                                                       \
    }                                                                                                        \
  };
