// Conformance: integer arithmetic and bit manipulation (add.sat, mul.hi/wide,
// mul24, div/rem, shifts past the width, bfe, bfi, prmt in every mode, lop3,
// funnel shifts, popc, clz, brev, bfind, ffs, sad, hadd/rhadd, dp4a/dp2a).
// References are bit manipulation written from the PTX ISA definitions.
#include "conf.h"

enum Op : uint32_t {
  ADD_SAT_S32, SUB_SAT_S32, MULHI_S32, MULHI_U32, MULHI_S64, MULHI_U64, MULWIDE_S32, MULWIDE_U32,
  MUL24_S32, MUL24_U32, MUL24HI_U32, DIV_S32, REM_S32, DIV_U32, REM_U32, DIV_S64, REM_S64, DIV_U64,
  REM_U64, SHL_B32, SHR_U32, SHR_S32, SHL_B64, SHR_U64, SHR_S64, BFE_U32, BFE_S32, BFE_U64, BFE_S64,
  BFI_B32, BFI_B64, PRMT, PRMT_F4E, PRMT_B4E, PRMT_RC8, PRMT_ECL, PRMT_ECR, PRMT_RC16, LOP3_96,
  LOP3_E8, LOP3_CA, LOP3_1E, LOP3_80, LOP3_FE, LOP3_00, LOP3_FF, SHF_L, SHF_LC, SHF_R, SHF_RC,
  POPC32, POPC64, CLZ32, CLZ64, BREV32, BREV64, BFIND_U32, BFIND_S32, BFIND_SHAMT_U32, BFIND_S64,
  FFS32, FFS64, SAD_U32, SAD_S32, HADD_S32, RHADD_S32, HADD_U32, RHADD_U32, DP4A_S32, DP4A_U32,
  DP2A_LO_S32, MIN_S32, MAX_U32, ABS_S32, NUM_OPS
};
static const char* kOpName[NUM_OPS] = {
  "add.sat.s32", "sub.sat.s32", "mul.hi.s32", "mul.hi.u32", "mul.hi.s64", "mul.hi.u64",
  "mul.wide.s32", "mul.wide.u32", "mul24.lo.s32", "mul24.lo.u32", "mul24.hi.u32", "div.s32",
  "rem.s32", "div.u32", "rem.u32", "div.s64", "rem.s64", "div.u64", "rem.u64", "shl.b32",
  "shr.u32", "shr.s32", "shl.b64", "shr.u64", "shr.s64", "bfe.u32", "bfe.s32", "bfe.u64",
  "bfe.s64", "bfi.b32", "bfi.b64", "prmt.b32", "prmt.b32.f4e", "prmt.b32.b4e", "prmt.b32.rc8",
  "prmt.b32.ecl", "prmt.b32.ecr", "prmt.b32.rc16", "lop3.b32(0x96)", "lop3.b32(0xe8)",
  "lop3.b32(0xca)", "lop3.b32(0x1e)", "lop3.b32(0x80)", "lop3.b32(0xfe)", "lop3.b32(0x00)",
  "lop3.b32(0xff)", "shf.l.wrap.b32", "shf.l.clamp.b32", "shf.r.wrap.b32", "shf.r.clamp.b32",
  "popc.b32", "popc.b64", "clz.b32", "clz.b64", "brev.b32", "brev.b64", "bfind.u32", "bfind.s32",
  "bfind.shiftamt.u32", "bfind.s64", "__ffs", "__ffsll", "sad.u32", "sad.s32", "__hadd(s32)",
  "__rhadd(s32)", "__uhadd(u32)", "__urhadd(u32)", "dp4a.s32.s32", "dp4a.u32.u32",
  "dp2a.lo.s32.s32", "min.s32", "max.u32", "abs.s32"};

struct Rec {
  uint32_t op;
  uint64_t a, b, c;
};

#define ASM3(ins, ty, d, a, b, c) asm(ins " %0, %1, %2, %3;" : "=" ty(d) : ty(a), ty(b), ty(c))

__global__ void run(const Rec* r, uint64_t* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Rec x = r[i];
  uint32_t a = (uint32_t)x.a, b = (uint32_t)x.b, c = (uint32_t)x.c, d = 0;
  uint64_t A = x.a, B = x.b, D = 0;
  bool wide = false;
  switch (x.op) {
    case ADD_SAT_S32: asm("add.sat.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case SUB_SAT_S32: asm("sub.sat.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case MULHI_S32: d = (uint32_t)__mulhi((int)a, (int)b); break;
    case MULHI_U32: d = __umulhi(a, b); break;
    case MULHI_S64: D = (uint64_t)__mul64hi((long long)A, (long long)B); wide = true; break;
    case MULHI_U64: D = __umul64hi(A, B); wide = true; break;
    case MULWIDE_S32: D = (uint64_t)((long long)(int)a * (long long)(int)b); wide = true; break;
    case MULWIDE_U32: D = (uint64_t)a * (uint64_t)b; wide = true; break;
    case MUL24_S32: d = (uint32_t)__mul24((int)a, (int)b); break;
    case MUL24_U32: d = __umul24(a, b); break;
    case MUL24HI_U32: asm("mul24.hi.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case DIV_S32: d = (uint32_t)((int)a / (int)b); break;
    case REM_S32: d = (uint32_t)((int)a % (int)b); break;
    case DIV_U32: d = a / b; break;
    case REM_U32: d = a % b; break;
    case DIV_S64: D = (uint64_t)((long long)A / (long long)B); wide = true; break;
    case REM_S64: D = (uint64_t)((long long)A % (long long)B); wide = true; break;
    case DIV_U64: D = A / B; wide = true; break;
    case REM_U64: D = A % B; wide = true; break;
    case SHL_B32: asm("shl.b32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case SHR_U32: asm("shr.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case SHR_S32: asm("shr.s32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b)); break;
    case SHL_B64: asm("shl.b64 %0, %1, %2;" : "=l"(D) : "l"(A), "r"(b)); wide = true; break;
    case SHR_U64: asm("shr.u64 %0, %1, %2;" : "=l"(D) : "l"(A), "r"(b)); wide = true; break;
    case SHR_S64: asm("shr.s64 %0, %1, %2;" : "=l"(D) : "l"(A), "r"(b)); wide = true; break;
    case BFE_U32: ASM3("bfe.u32", "r", d, a, b, c); break;
    case BFE_S32: ASM3("bfe.s32", "r", d, a, b, c); break;
    case BFE_U64: asm("bfe.u64 %0, %1, %2, %3;" : "=l"(D) : "l"(A), "r"(b), "r"(c)); wide = true; break;
    case BFE_S64: asm("bfe.s64 %0, %1, %2, %3;" : "=l"(D) : "l"(A), "r"(b), "r"(c)); wide = true; break;
    // bfi: c packs pos (low 16 bits) and len (high 16 bits) for the record.
    case BFI_B32:
      asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(c & 0xffff), "r"(c >> 16)); break;
    case BFI_B64:
      asm("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(D) : "l"(A), "l"(B), "r"(c & 0xffff), "r"(c >> 16));
      wide = true; break;
    // Raw prmt: __byte_perm would mask the selector with 0x7777 first (nvcc
    // emits and.b32 c, 30583), hiding the sign-replicate bit.
    case PRMT: ASM3("prmt.b32", "r", d, a, b, c); break;
    case PRMT_F4E: ASM3("prmt.b32.f4e", "r", d, a, b, c); break;
    case PRMT_B4E: ASM3("prmt.b32.b4e", "r", d, a, b, c); break;
    case PRMT_RC8: ASM3("prmt.b32.rc8", "r", d, a, b, c); break;
    case PRMT_ECL: ASM3("prmt.b32.ecl", "r", d, a, b, c); break;
    case PRMT_ECR: ASM3("prmt.b32.ecr", "r", d, a, b, c); break;
    case PRMT_RC16: ASM3("prmt.b32.rc16", "r", d, a, b, c); break;
#define LOP(k, imm) case k: asm("lop3.b32 %0, %1, %2, %3, " #imm ";" : "=r"(d) : "r"(a), "r"(b), "r"(c)); break;
    LOP(LOP3_96, 0x96) LOP(LOP3_E8, 0xe8) LOP(LOP3_CA, 0xca) LOP(LOP3_1E, 0x1e)
    LOP(LOP3_80, 0x80) LOP(LOP3_FE, 0xfe) LOP(LOP3_00, 0x00) LOP(LOP3_FF, 0xff)
#undef LOP
    case SHF_L: d = __funnelshift_l(a, b, c); break;
    case SHF_LC: d = __funnelshift_lc(a, b, c); break;
    case SHF_R: d = __funnelshift_r(a, b, c); break;
    case SHF_RC: d = __funnelshift_rc(a, b, c); break;
    case POPC32: d = __popc(a); break;
    case POPC64: d = __popcll(A); break;
    case CLZ32: d = __clz((int)a); break;
    case CLZ64: d = __clzll((long long)A); break;
    case BREV32: d = __brev(a); break;
    case BREV64: D = __brevll(A); wide = true; break;
    case BFIND_U32: asm("bfind.u32 %0, %1;" : "=r"(d) : "r"(a)); break;
    case BFIND_S32: asm("bfind.s32 %0, %1;" : "=r"(d) : "r"(a)); break;
    case BFIND_SHAMT_U32: asm("bfind.shiftamt.u32 %0, %1;" : "=r"(d) : "r"(a)); break;
    case BFIND_S64: asm("bfind.s64 %0, %1;" : "=r"(d) : "l"(A)); break;
    case FFS32: d = __ffs((int)a); break;
    case FFS64: d = __ffsll((long long)A); break;
    case SAD_U32: d = __usad(a, b, c); break;
    case SAD_S32: d = __sad((int)a, (int)b, c); break;
    case HADD_S32: d = (uint32_t)__hadd((int)a, (int)b); break;
    case RHADD_S32: d = (uint32_t)__rhadd((int)a, (int)b); break;
    case HADD_U32: d = __uhadd(a, b); break;
    case RHADD_U32: d = __urhadd(a, b); break;
    case DP4A_S32: d = (uint32_t)__dp4a((int)a, (int)b, (int)c); break;
    case DP4A_U32: d = __dp4a(a, b, c); break;
    case DP2A_LO_S32: d = (uint32_t)__dp2a_lo((int)a, (int)b, (int)c); break;
    case MIN_S32: d = (uint32_t)min((int)a, (int)b); break;
    case MAX_U32: d = max(a, b); break;
    case ABS_S32: d = (uint32_t)abs((int)a); break;
  }
  out[i] = wide ? D : d;
}

// --- host reference (PTX ISA definitions) ------------------------------------
static int32_t s32(uint64_t v) { return (int32_t)(uint32_t)v; }
static uint32_t sat32(int64_t v) { return (uint32_t)(int32_t)(v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v); }
static uint64_t bfe_ref(uint64_t a, uint32_t pos, uint32_t len, int w, bool sgn) {
  pos &= 0xff; len &= 0xff;
  int msb = w - 1;
  if (len == 0) return 0;  // ISA: a zero-length field gives 0
  uint64_t sbit = 0;
  if (sgn) sbit = (a >> std::min<uint32_t>(pos + len - 1, msb)) & 1;
  uint64_t d = 0;
  for (int i = 0; i <= msb; ++i) {
    uint64_t bit = (i < (int)len && pos + i <= (uint32_t)msb) ? (a >> (pos + i)) & 1 : sbit;
    d |= bit << i;
  }
  return d;
}
static uint64_t bfi_ref(uint64_t a, uint64_t b, uint32_t pos, uint32_t len, int w) {
  pos &= 0xff; len &= 0xff;
  uint64_t f = b;
  for (uint32_t i = 0; i < len && pos + i < (uint32_t)w; ++i)
    f = (f & ~(1ull << (pos + i))) | (((a >> i) & 1) << (pos + i));
  return w == 32 ? (uint32_t)f : f;
}
static uint32_t byte_of(uint32_t a, uint32_t b, int k) {  // bytes 0-3 from a, 4-7 from b
  return ((k < 4 ? a >> (8 * k) : b >> (8 * (k - 4)))) & 0xff;
}
static uint32_t prmt_ref(uint32_t a, uint32_t b, uint32_t c, int mode) {
  uint32_t d = 0, n = c & 3;
  for (int i = 0; i < 4; ++i) {
    uint32_t byte;
    int k;
    switch (mode) {
      case 0: {
        uint32_t sel = (c >> (4 * i)) & 0xf;
        byte = byte_of(a, b, sel & 7);
        if (sel & 8) byte = (byte & 0x80) ? 0xff : 0;
        d |= byte << (8 * i);
        continue;
      }
      case 1: k = (i + n) & 7; break;                 // f4e
      case 2: k = (int)((n - i) & 7); break;          // b4e
      case 3: k = n; break;                           // rc8
      case 4: k = std::max<int>(i, n); break;         // ecl
      case 5: k = std::min<int>(i, n); break;         // ecr
      default: k = (n & 1) * 2 + (i & 1); break;      // rc16
    }
    d |= byte_of(a, b, k) << (8 * i);
  }
  return d;
}
static uint32_t lop3_ref(uint32_t a, uint32_t b, uint32_t c, uint32_t lut) {
  uint32_t d = 0;
  for (int i = 0; i < 32; ++i) {
    uint32_t idx = (((a >> i) & 1) << 2) | (((b >> i) & 1) << 1) | ((c >> i) & 1);
    d |= ((lut >> idx) & 1) << i;
  }
  return d;
}
static int clz64(uint64_t v) { int n = 0; for (int i = 63; i >= 0 && !((v >> i) & 1); --i) ++n; return n; }
static uint64_t brev_ref(uint64_t v, int w) { uint64_t r = 0; for (int i = 0; i < w; ++i) r |= ((v >> i) & 1) << (w - 1 - i); return r; }
static uint32_t bfind_ref(uint64_t v, int w, bool sgn, bool shamt) {
  if (sgn && ((v >> (w - 1)) & 1)) v = ~v;
  if (w == 32) v &= 0xffffffffu;
  int msb = -1;
  for (int i = w - 1; i >= 0; --i) if ((v >> i) & 1) { msb = i; break; }
  if (msb < 0) return 0xffffffffu;
  return shamt ? (uint32_t)(w - 1 - msb) : (uint32_t)msb;
}
static uint32_t ffs_ref(uint64_t v, int w) { for (int i = 0; i < w; ++i) if ((v >> i) & 1) return i + 1; return 0; }
static unsigned __int128 mul128(uint64_t a, uint64_t b) { return (unsigned __int128)a * b; }

// Returns true and the expected value, or false when the ISA leaves it open.
static bool ref(const Rec& r, uint64_t& e) {
  uint32_t a = (uint32_t)r.a, b = (uint32_t)r.b, c = (uint32_t)r.c;
  uint64_t A = r.a, B = r.b;
  int64_t SA = (int64_t)A, SB = (int64_t)B;
  switch (r.op) {
    case ADD_SAT_S32: e = sat32((int64_t)s32(a) + s32(b)); return true;
    case SUB_SAT_S32: e = sat32((int64_t)s32(a) - s32(b)); return true;
    case MULHI_S32: e = (uint32_t)(((int64_t)s32(a) * s32(b)) >> 32); return true;
    case MULHI_U32: e = (uint32_t)(((uint64_t)a * b) >> 32); return true;
    case MULHI_S64: e = (uint64_t)(((__int128)SA * SB) >> 64); return true;
    case MULHI_U64: e = (uint64_t)(mul128(A, B) >> 64); return true;
    case MULWIDE_S32: e = (uint64_t)((int64_t)s32(a) * s32(b)); return true;
    case MULWIDE_U32: e = (uint64_t)a * b; return true;
    case MUL24_S32: {  // low 32 bits of the 48-bit product of sign-extended 24-bit values
      int64_t x = (int32_t)(a << 8) >> 8, y = (int32_t)(b << 8) >> 8;
      e = (uint32_t)(x * y); return true;
    }
    case MUL24_U32: e = (uint32_t)((uint64_t)(a & 0xffffff) * (b & 0xffffff)); return true;
    case MUL24HI_U32: e = (uint32_t)(((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 16); return true;
    case DIV_S32: if (b == 0 || (a == 0x80000000u && b == 0xffffffffu)) return false;
      e = (uint32_t)(s32(a) / s32(b)); return true;
    case REM_S32: if (b == 0 || (a == 0x80000000u && b == 0xffffffffu)) return false;
      e = (uint32_t)(s32(a) % s32(b)); return true;
    case DIV_U32: if (b == 0) return false; e = a / b; return true;
    case REM_U32: if (b == 0) return false; e = a % b; return true;
    case DIV_S64: if (B == 0 || (SA == INT64_MIN && SB == -1)) return false; e = (uint64_t)(SA / SB); return true;
    case REM_S64: if (B == 0 || (SA == INT64_MIN && SB == -1)) return false; e = (uint64_t)(SA % SB); return true;
    case DIV_U64: if (B == 0) return false; e = A / B; return true;
    case REM_U64: if (B == 0) return false; e = A % B; return true;
    // Shift amounts above the width clamp to the width (ISA).
    case SHL_B32: e = b >= 32 ? 0 : (uint32_t)(a << b); return true;
    case SHR_U32: e = b >= 32 ? 0 : a >> b; return true;
    case SHR_S32: e = (uint32_t)(s32(a) >> (b >= 32 ? 31 : b)); return true;
    case SHL_B64: e = b >= 64 ? 0 : A << b; return true;
    case SHR_U64: e = b >= 64 ? 0 : A >> b; return true;
    case SHR_S64: e = (uint64_t)(SA >> (b >= 64 ? 63 : b)); return true;
    case BFE_U32: e = bfe_ref(a, b, c, 32, false); return true;
    case BFE_S32: e = (uint32_t)bfe_ref(a, b, c, 32, true); return true;
    case BFE_U64: e = bfe_ref(A, b, c, 64, false); return true;
    case BFE_S64: e = bfe_ref(A, b, c, 64, true); return true;
    case BFI_B32: e = bfi_ref(a, b, c & 0xffff, c >> 16, 32); return true;
    case BFI_B64: e = bfi_ref(A, B, c & 0xffff, c >> 16, 64); return true;
    case PRMT: case PRMT_F4E: case PRMT_B4E: case PRMT_RC8: case PRMT_ECL: case PRMT_ECR: case PRMT_RC16:
      e = prmt_ref(a, b, c, (int)(r.op - PRMT)); return true;
    case LOP3_96: e = lop3_ref(a, b, c, 0x96); return true;
    case LOP3_E8: e = lop3_ref(a, b, c, 0xe8); return true;
    case LOP3_CA: e = lop3_ref(a, b, c, 0xca); return true;
    case LOP3_1E: e = lop3_ref(a, b, c, 0x1e); return true;
    case LOP3_80: e = lop3_ref(a, b, c, 0x80); return true;
    case LOP3_FE: e = lop3_ref(a, b, c, 0xfe); return true;
    case LOP3_00: e = 0; return true;
    case LOP3_FF: e = 0xffffffffu; return true;
    case SHF_L: case SHF_LC: {  // high word of (b:a) << n
      uint32_t n = r.op == SHF_L ? (c & 31) : std::min<uint32_t>(c, 32);
      uint64_t v = ((uint64_t)b << 32) | a;
      e = (uint32_t)((v << n) >> 32); return true;
    }
    case SHF_R: case SHF_RC: {  // low word of (b:a) >> n
      uint32_t n = r.op == SHF_R ? (c & 31) : std::min<uint32_t>(c, 32);
      uint64_t v = ((uint64_t)b << 32) | a;
      e = (uint32_t)(v >> n); return true;
    }
    case POPC32: e = (uint32_t)__builtin_popcount(a); return true;
    case POPC64: e = (uint32_t)__builtin_popcountll(A); return true;
    case CLZ32: e = (uint32_t)clz64(a) - 32; return true;
    case CLZ64: e = (uint32_t)clz64(A); return true;
    case BREV32: e = brev_ref(a, 32); return true;
    case BREV64: e = brev_ref(A, 64); return true;
    case BFIND_U32: e = bfind_ref(a, 32, false, false); return true;
    case BFIND_S32: e = bfind_ref(a, 32, true, false); return true;
    case BFIND_SHAMT_U32: e = bfind_ref(a, 32, false, true); return true;
    case BFIND_S64: e = bfind_ref(A, 64, true, false); return true;
    case FFS32: e = ffs_ref(a, 32); return true;
    case FFS64: e = ffs_ref(A, 64); return true;
    case SAD_U32: e = (uint32_t)((a > b ? a - b : b - a) + c); return true;
    case SAD_S32: { int64_t x = s32(a), y = s32(b); e = (uint32_t)((uint64_t)(x > y ? x - y : y - x) + c); return true; }
    case HADD_S32: e = (uint32_t)(int32_t)(((int64_t)s32(a) + s32(b)) >> 1); return true;
    case RHADD_S32: e = (uint32_t)(int32_t)(((int64_t)s32(a) + s32(b) + 1) >> 1); return true;
    case HADD_U32: e = (uint32_t)(((uint64_t)a + b) >> 1); return true;
    case RHADD_U32: e = (uint32_t)(((uint64_t)a + b + 1) >> 1); return true;
    case DP4A_S32: case DP4A_U32: {
      uint32_t acc = c;
      for (int k = 0; k < 4; ++k) {
        int32_t x = (int32_t)((a >> (8 * k)) & 0xff), y = (int32_t)((b >> (8 * k)) & 0xff);
        if (r.op == DP4A_S32) { x = (int8_t)x; y = (int8_t)y; }
        acc += (uint32_t)(x * y);
      }
      e = acc; return true;
    }
    case DP2A_LO_S32: {  // 16-bit halves of a times the low two bytes of b
      uint32_t acc = c;
      for (int k = 0; k < 2; ++k) acc += (uint32_t)((int16_t)(a >> (16 * k)) * (int8_t)(b >> (8 * k)));
      e = acc; return true;
    }
    case MIN_S32: e = (uint32_t)std::min(s32(a), s32(b)); return true;
    case MAX_U32: e = std::max(a, b); return true;
    case ABS_S32: e = a == 0x80000000u ? a : (uint32_t)std::abs(s32(a)); return true;
  }
  return false;
}

static bool is_wide(uint32_t op) {
  switch (op) {
    case MULHI_S64: case MULHI_U64: case MULWIDE_S32: case MULWIDE_U32: case DIV_S64: case REM_S64:
    case DIV_U64: case REM_U64: case SHL_B64: case SHR_U64: case SHR_S64: case BFE_U64: case BFE_S64:
    case BFI_B64: case BREV64: return true;
    default: return false;
  }
}

int main(int argc, char** argv) {
  Conf conf("conf_int", argc, argv, {});
  const uint32_t v32[] = {0u, 1u, 2u, 3u, 7u, 0x7fu, 0x80u, 0xffu, 0x7fffffffu, 0x80000000u, 0x80000001u,
                          0xffffffffu, 0xfffffffeu, 0x12345678u, 0x9abcdef0u, 0x00ff00ffu, 0x00800000u,
                          0xff800000u, 0x55555555u, 0x0000ffffu, 100u, (uint32_t)-100, (uint32_t)-7};
  const uint64_t v64[] = {0ull, 1ull, 3ull, 0x7fffffffffffffffull, 0x8000000000000000ull, 0xffffffffffffffffull,
                          0xfffffffffffffffeull, 0x123456789abcdef0ull, 0x00000000ffffffffull,
                          0x0000000100000000ull, (uint64_t)-7, 1000000007ull};
  const uint32_t shamts[] = {0, 1, 5, 31, 32, 33, 63, 64, 65, 255, 256, 0xffffffffu};
  std::vector<Rec> recs;
  auto add = [&](uint32_t op, uint64_t a, uint64_t b, uint64_t c) { recs.push_back({op, a, b, c}); };
  for (uint32_t op : {ADD_SAT_S32, SUB_SAT_S32, MULHI_S32, MULHI_U32, MULWIDE_S32, MULWIDE_U32, MUL24_S32,
                      MUL24_U32, MUL24HI_U32, DIV_S32, REM_S32, DIV_U32, REM_U32, HADD_S32, RHADD_S32,
                      HADD_U32, RHADD_U32, MIN_S32, MAX_U32})
    for (uint32_t a : v32) for (uint32_t b : v32) add(op, a, b, 0);
  for (uint32_t op : {MULHI_S64, MULHI_U64, DIV_S64, REM_S64, DIV_U64, REM_U64})
    for (uint64_t a : v64) for (uint64_t b : v64) add(op, a, b, 0);
  for (uint32_t op : {SHL_B32, SHR_U32, SHR_S32})
    for (uint32_t a : {0x1u, 0x80000001u, 0x7fffffffu, 0xffffffffu, 0x12345678u}) for (uint32_t s : shamts) add(op, a, s, 0);
  for (uint32_t op : {SHL_B64, SHR_U64, SHR_S64})
    for (uint64_t a : {1ull, 0x8000000000000001ull, 0x123456789abcdef0ull}) for (uint32_t s : shamts) add(op, a, s, 0);
  const uint32_t pos[] = {0, 1, 8, 24, 31, 32, 40, 63, 64, 255, 256, 0x1ff};
  const uint32_t len[] = {0, 1, 4, 8, 16, 31, 32, 33, 64, 255, 256};
  for (uint32_t p : pos) for (uint32_t l : len) {
    for (uint32_t a : {0x8badf00du, 0x7ff0f00fu}) { add(BFE_U32, a, p, l); add(BFE_S32, a, p, l); }
    for (uint64_t a : {0x8badf00ddeadbeefull, 0x7ff0f00f12345678ull}) { add(BFE_U64, a, p, l); add(BFE_S64, a, p, l); }
    if (p < 0x10000 && l < 0x10000) {
      add(BFI_B32, 0xabcdef12u, 0x0f0f0f0fu, p | (l << 16));
      add(BFI_B64, 0xabcdef12345678ffull, 0x0f0f0f0f0f0f0f0full, p | (l << 16));
    }
  }
  const uint32_t sels[] = {0x3210, 0x7654, 0x0123, 0x4567, 0x89ab, 0xcdef, 0x8888, 0x1357, 0xf0e1, 0, 1, 2, 3,
                           0xfffffff1u, 0x00005432};
  for (uint32_t op = PRMT; op <= PRMT_RC16; ++op)
    for (uint32_t s : sels) { add(op, 0x80ff7f01u, 0x12fe83c4u, s); add(op, 0x44332211u, 0x88776655u, s); }
  for (uint32_t op = LOP3_96; op <= LOP3_FF; ++op) {
    add(op, 0xf0f0f0f0u, 0xccccccccu, 0xaaaaaaaau);
    add(op, 0x12345678u, 0x9abcdef0u, 0x0ff00ff0u);
  }
  for (uint32_t op : {SHF_L, SHF_LC, SHF_R, SHF_RC})
    for (uint32_t s : shamts) { add(op, 0x89abcdefu, 0x01234567u, s); add(op, 0xffffffffu, 0x80000000u, s); }
  for (uint32_t op : {POPC32, CLZ32, BREV32, BFIND_U32, BFIND_S32, BFIND_SHAMT_U32, FFS32, ABS_S32})
    for (uint32_t a : v32) add(op, a, 0, 0);
  for (uint32_t op : {POPC64, CLZ64, BREV64, BFIND_S64, FFS64})
    for (uint64_t a : v64) add(op, a, 0, 0);
  for (uint32_t op : {SAD_U32, SAD_S32, DP4A_S32, DP4A_U32, DP2A_LO_S32})
    for (uint32_t a : {0u, 0x7f80ff01u, 0x80808080u, 0xffffffffu, 0x12345678u})
      for (uint32_t b : {1u, 0x7f7f7f7fu, 0x80ff0180u, 0xfffffff0u})
        for (uint32_t c : {0u, 0x7fffffffu, 0xffffff00u}) add(op, a, b, c);

  int n = (int)recs.size();
  Rec* dr;
  uint64_t* dout;
  CONF_CHECK(cudaMalloc(&dr, n * sizeof(Rec)));
  CONF_CHECK(cudaMalloc(&dout, n * sizeof(uint64_t)));
  CONF_CHECK(cudaMemcpy(dr, recs.data(), n * sizeof(Rec), cudaMemcpyHostToDevice));
  run<<<(n + 127) / 128, 128>>>(dr, dout, n);
  CONF_CHECK(cudaGetLastError());
  CONF_CHECK(cudaDeviceSynchronize());
  std::vector<uint64_t> out(n);
  CONF_CHECK(cudaMemcpy(out.data(), dout, n * sizeof(uint64_t), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    const Rec& r = recs[i];
    int w = is_wide(r.op) ? 64 : 32;
    int iw = (r.op == MULHI_S64 || r.op == MULHI_U64 || (r.op >= DIV_S64 && r.op <= REM_U64) ||
              r.op == POPC64 || r.op == CLZ64 || r.op == BREV64 || r.op == BFIND_S64 || r.op == FFS64 ||
              r.op == SHL_B64 || r.op == SHR_U64 || r.op == SHR_S64 || r.op == BFE_U64 || r.op == BFE_S64 ||
              r.op == BFI_B64) ? 64 : 32;
    std::string in = "a=" + Conf::hex(r.a, iw) + ",b=" + Conf::hex(r.b, iw) + ",c=" + Conf::hex(r.c, 32);
    uint64_t e;
    if (ref(r, e)) conf.bits(kOpName[r.op], in, e, out[i], w);
    else conf.data(kOpName[r.op], in, out[i], w);  // division by zero / overflow: ISA-unspecified
  }
  cudaFree(dr);
  cudaFree(dout);
  return conf.finish();
}
