// Conformance: atomics. One thread runs a scripted sequence of atomics on a
// global word and on a shared word (each returned old value and the final
// value checked against a sequential host model of the PTX atom semantics:
// inc wraps to 0 at old >= b, dec reloads b at old == 0 or old > b, CAS, exch,
// min/max signed and unsigned, and/or/xor, f32/f64 add with inf/NaN/-0, f32
// add of subnormals). Then contended forms, whose final values and old-value
// multisets do not depend on the order: inc wrap counts, CAS-loop increments,
// f32/f64 sums of exactly representable values, max over all threads.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include "conf.h"

enum Op : uint32_t { ADD_U32, INC, DEC, CAS, EXCH, MIN_S32, MAX_S32, MIN_U32, MAX_U32, AND, OR, XOR, ADD_F32,
                     ADD_H2, ADD_BF2, ADD_U64, CAS_U64, MIN_S64, MAX_U64, ADD_F64, NUM_OPS };
static const char* kOpName[NUM_OPS] = {"atom.add.u32", "atom.inc.u32", "atom.dec.u32", "atom.cas.b32",
                                       "atom.exch.b32", "atom.min.s32", "atom.max.s32", "atom.min.u32",
                                       "atom.max.u32", "atom.and.b32", "atom.or.b32", "atom.xor.b32",
                                       "atom.add.f32", "atom.add.noftz.f16x2",
                                       "atom.add.noftz.bf16x2", "atom.add.u64", "atom.cas.b64", "atom.min.s64",
                                       "atom.max.u64", "atom.add.f64"};
__host__ __device__ static bool wide(uint32_t op) { return op >= ADD_U64; }

struct Step { uint32_t op; uint64_t init, b, c; };  // init: value stored before the atomic

template <class W>
__device__ uint64_t apply(uint32_t op, W* p32, unsigned long long* p64, uint64_t b, uint64_t c) {
  uint32_t b32 = (uint32_t)b;
  switch (op) {
    case ADD_U32: return atomicAdd((unsigned*)p32, b32);
    case INC: return atomicInc((unsigned*)p32, b32);
    case DEC: return atomicDec((unsigned*)p32, b32);
    case CAS: return atomicCAS((unsigned*)p32, b32, (uint32_t)c);
    case EXCH: return atomicExch((unsigned*)p32, b32);
    case MIN_S32: return (uint32_t)atomicMin((int*)p32, (int)b32);
    case MAX_S32: return (uint32_t)atomicMax((int*)p32, (int)b32);
    case MIN_U32: return atomicMin((unsigned*)p32, b32);
    case MAX_U32: return atomicMax((unsigned*)p32, b32);
    case AND: return atomicAnd((unsigned*)p32, b32);
    case OR: return atomicOr((unsigned*)p32, b32);
    case XOR: return atomicXor((unsigned*)p32, b32);
    case ADD_F32: return __float_as_uint(atomicAdd((float*)p32, __uint_as_float(b32)));
    case ADD_H2: { __half2 v, r; memcpy(&v, &b32, 4); r = atomicAdd((__half2*)p32, v); uint32_t u; memcpy(&u, &r, 4); return u; }
    case ADD_BF2: {
      __nv_bfloat162 v, r;
      memcpy(&v, &b32, 4);
      r = atomicAdd((__nv_bfloat162*)p32, v);
      uint32_t u;
      memcpy(&u, &r, 4);
      return u;
    }
    case ADD_U64: return atomicAdd(p64, b);
    case CAS_U64: return atomicCAS(p64, b, c);
    case MIN_S64: return (uint64_t)atomicMin((long long*)p64, (long long)b);
    case MAX_U64: return atomicMax(p64, (unsigned long long)b);
    default: return (uint64_t)__double_as_longlong(atomicAdd((double*)p64, __longlong_as_double((long long)b)));
  }
}

// out[2*i] = old value, out[2*i+1] = value after the atomic. Block 0 uses
// global memory, block 1 shared memory.
__global__ void script(const Step* s, int n, unsigned long long* gword, uint64_t* out) {
  __shared__ unsigned long long sword;
  unsigned long long* w = blockIdx.x == 0 ? gword : &sword;
  uint64_t* o = out + (size_t)blockIdx.x * 2 * n;
  for (int i = 0; i < n; ++i) {
    Step st = s[i];
    *w = st.init;
    __threadfence_block();
    uint64_t old = apply(st.op, (unsigned*)w, w, st.b, st.c);
    __threadfence_block();
    o[2 * i] = old;
    o[2 * i + 1] = wide(st.op) ? *w : (uint64_t)*(volatile unsigned*)w;
  }
}

struct Contended {
  unsigned inc_word, dec_word, cas_word, max_word;
  float fsum;
  double dsum;
  unsigned inc_hist[16];
  unsigned shared_inc;
};
__global__ void contended(Contended* c, int n) {
  __shared__ unsigned s_inc;
  if (threadIdx.x == 0) s_inc = 0;
  __syncthreads();
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    unsigned old = atomicInc(&c->inc_word, 9);  // wraps 0..9
    atomicAdd(&c->inc_hist[old & 15], 1u);
    atomicDec(&c->dec_word, 6);
    unsigned cur = c->cas_word, seen;
    do { seen = cur; cur = atomicCAS(&c->cas_word, seen, seen + 3); } while (cur != seen);
    atomicMax(&c->max_word, (unsigned)(t * 2654435761u));
    atomicAdd(&c->fsum, (float)(t % 7) * 0.25f);
    atomicAdd(&c->dsum, (double)t * 0.5);
    atomicInc(&s_inc, 4);
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&c->shared_inc, s_inc);
}

// --- sequential host model -------------------------------------------------------
static uint64_t model(const Step& s, bool shared, uint64_t& after) {
  uint64_t old = s.init;
  uint32_t o = (uint32_t)old, b = (uint32_t)s.b;
  float fo = bitsf(o), fb = bitsf(b);
  uint32_t r = o;
  switch (s.op) {
    case ADD_U32: r = o + b; break;
    case INC: r = o >= b ? 0 : o + 1; break;
    case DEC: r = (o == 0 || o > b) ? b : o - 1; break;
    case CAS: r = o == b ? (uint32_t)s.c : o; break;
    case EXCH: r = b; break;
    case MIN_S32: r = (uint32_t)std::min((int32_t)o, (int32_t)b); break;
    case MAX_S32: r = (uint32_t)std::max((int32_t)o, (int32_t)b); break;
    case MIN_U32: r = std::min(o, b); break;
    case MAX_U32: r = std::max(o, b); break;
    case AND: r = o & b; break;
    case OR: r = o | b; break;
    case XOR: r = o ^ b; break;
    case ADD_F32: {
      // CUDA C++ Programming Guide, "Floating-Point Standard": atomic f32 adds on
      // global memory always flush to zero (FADD.F32.FTZ.RN); on shared memory
      // they keep subnormals (FADD.F32.RN).
      auto ftz = [&](float v) {
        return !shared && std::fpclassify(v) == FP_SUBNORMAL ? std::copysign(0.0f, v) : v;
      };
      volatile float x = ftz(fo), y = ftz(fb);
      r = fbits(ftz(x + y));
      break;
    }
    case ADD_H2: case ADD_BF2: {  // per lane, round to nearest even, subnormals kept (.noftz)
      bool bf = s.op == ADD_BF2;
      int mb = bf ? 7 : 10, eb = bf ? 8 : 5;
      r = 0;
      for (int l = 0; l < 2; ++l) {
        volatile double x = small_to_double((o >> (16 * l)) & 0xffff, mb, eb);
        volatile double y = small_to_double((b >> (16 * l)) & 0xffff, mb, eb);
        r |= round_small(round_to_odd([&] { return x + y; }), mb, eb, 0) << (16 * l);
      }
      break;
    }
    case ADD_U64: after = old + s.b; return old;
    case CAS_U64: after = old == s.b ? s.c : old; return old;
    case MIN_S64: after = (uint64_t)std::min((int64_t)old, (int64_t)s.b); return old;
    case MAX_U64: after = std::max(old, s.b); return old;
    case ADD_F64: { volatile double x = bitsd(old), y = bitsd(s.b); after = dbits(x + y); return old; }
  }
  after = r;
  return old;
}

int main(int argc, char** argv) {
  Conf conf("conf_atomic", argc, argv, {});
  std::vector<Step> steps;
  const uint32_t vals[] = {0u, 1u, 5u, 6u, 7u, 0x7fffffffu, 0x80000000u, 0xfffffffeu, 0xffffffffu};
  for (uint32_t op : {INC, DEC})
    for (uint32_t init : vals) for (uint32_t b : {0u, 1u, 6u, 0x80000000u, 0xffffffffu}) steps.push_back({op, init, b, 0});
  for (uint32_t op : {ADD_U32, EXCH, MIN_S32, MAX_S32, MIN_U32, MAX_U32, AND, OR, XOR})
    for (uint32_t init : {0u, 5u, 0x80000000u, 0xffffffffu}) for (uint32_t b : {1u, 0x7fffffffu, 0xfffffff0u}) steps.push_back({op, init, b, 0});
  for (uint32_t init : {5u, 6u, 0xffffffffu}) for (uint32_t b : {5u, 0xffffffffu}) steps.push_back({CAS, init, b, 0x12345678u});
  const uint32_t fl[] = {0x00000000u, 0x80000000u, 0x3f800000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                         0x00000001u, 0x00400000u, 0x80400000u, 0x7f7fffffu, 0x00800000u, 0x33800000u};
  for (uint32_t a : fl) for (uint32_t b : fl) steps.push_back({ADD_F32, a, b, 0});
  // Packed halves: no -inf among the values, so no lane produces a NaN.
  const uint32_t h[] = {0x0000, 0x8000, 0x3c00, 0x0001, 0x7bff, 0x7c00, 0xbc00, 0x3555, 0x8001};
  const uint32_t bh[] = {0x0000, 0x8000, 0x3f80, 0x0001, 0x7f7f, 0x7f80, 0xbf80, 0x3eab, 0x8001};
  for (int i = 0; i < 9; ++i)
    for (int j = 0; j < 9; ++j) {
      steps.push_back({ADD_H2, h[i] | h[(i + 4) % 9] << 16, h[j] | h[(j + 2) % 9] << 16, 0});
      steps.push_back({ADD_BF2, bh[i] | bh[(i + 4) % 9] << 16, bh[j] | bh[(j + 2) % 9] << 16, 0});
    }
  for (uint64_t init : {0ull, 0xffffffffffffffffull, 0x8000000000000000ull, 0x00000000ffffffffull})
    for (uint64_t b : {1ull, 0x7fffffffffffffffull, 0x00000000ffffffffull}) {
      steps.push_back({ADD_U64, init, b, 0});
      steps.push_back({MIN_S64, init, b, 0});
      steps.push_back({MAX_U64, init, b, 0});
      steps.push_back({CAS_U64, init, b, 0x1122334455667788ull});
    }
  const uint64_t dl[] = {0x0ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0x7ff0000000000000ull,
                         0xfff0000000000000ull, 0x0000000000000001ull, 0x3ca0000000000000ull};
  for (uint64_t a : dl) for (uint64_t b : dl) steps.push_back({ADD_F64, a, b, 0});

  int n = (int)steps.size();
  Step* ds;
  unsigned long long* gw;
  uint64_t* dout;
  CONF_CHECK(cudaMalloc(&ds, n * sizeof(Step)));
  CONF_CHECK(cudaMalloc(&gw, 8));
  CONF_CHECK(cudaMalloc(&dout, 2 * 2 * n * 8));
  CONF_CHECK(cudaMemcpy(ds, steps.data(), n * sizeof(Step), cudaMemcpyHostToDevice));
  script<<<2, 1>>>(ds, n, gw, dout);
  CONF_CHECK(cudaGetLastError());
  std::vector<uint64_t> out(4 * n);
  CONF_CHECK(cudaMemcpy(out.data(), dout, 4 * n * 8, cudaMemcpyDeviceToHost));
  for (int space = 0; space < 2; ++space)
    for (int i = 0; i < n; ++i) {
      const Step& s = steps[i];
      uint64_t after;
      uint64_t old = model(s, space == 1, after);
      int w = wide(s.op) ? 64 : 32;
      std::string form = std::string(kOpName[s.op]) + (space ? ".shared" : ".global");
      std::string in = "mem=" + Conf::hex(s.init, w) + ",b=" + Conf::hex(s.b, w) +
                       (s.op == CAS || s.op == CAS_U64 ? ",c=" + Conf::hex(s.c, w) : "");
      uint64_t g_old = out[space * 2 * n + 2 * i], g_after = out[space * 2 * n + 2 * i + 1];
      if (w == 32) { g_old &= 0xffffffffu; g_after &= 0xffffffffu; }
      conf.bits(form + ".old", in, old, g_old, w);
      if (s.op == ADD_F32) conf.f32(form + ".mem", in, bitsf((uint32_t)after), (uint32_t)g_after);
      else if (s.op == ADD_F64) conf.f64(form + ".mem", in, bitsd(after), g_after);
      else conf.bits(form + ".mem", in, after, g_after, w);
    }

  // Contended forms.
  const int nt = 1000;
  Contended* dc;
  CONF_CHECK(cudaMalloc(&dc, sizeof(Contended)));
  CONF_CHECK(cudaMemset(dc, 0, sizeof(Contended)));
  contended<<<(nt + 127) / 128, 128>>>(dc, nt);
  CONF_CHECK(cudaGetLastError());
  Contended hc;
  CONF_CHECK(cudaMemcpy(&hc, dc, sizeof hc, cudaMemcpyDeviceToHost));
  std::string in = "threads=" + std::to_string(nt);
  conf.bits("atomicInc(contended,9).final", in, nt % 10, hc.inc_word, 32);
  for (int k = 0; k < 16; ++k)
    conf.bits("atomicInc(contended,9).old_count[" + std::to_string(k) + "]", in,
              k < 10 ? (uint32_t)(nt / 10 + (k < nt % 10)) : 0u, hc.inc_hist[k], 32);
  // dec from 0 with b=6 cycles 0->6->5..->0: period 7.
  uint32_t dec = 0;
  for (int i = 0; i < nt; ++i) dec = (dec == 0 || dec > 6) ? 6 : dec - 1;
  conf.bits("atomicDec(contended,6).final", in, dec, hc.dec_word, 32);
  conf.bits("atomicCAS(loop +3).final", in, 3u * nt, hc.cas_word, 32);
  uint32_t mx = 0;
  for (int t = 0; t < nt; ++t) mx = std::max(mx, (uint32_t)(t * 2654435761u));
  conf.bits("atomicMax(contended).final", in, mx, hc.max_word, 32);
  float fs = 0;
  for (int t = 0; t < nt; ++t) fs += (float)(t % 7) * 0.25f;  // every partial sum is exact
  conf.f32("atomicAdd.f32(contended).final", in, fs, fbits(hc.fsum));
  double ds_ = 0;
  for (int t = 0; t < nt; ++t) ds_ += t * 0.5;
  conf.f64("atomicAdd.f64(contended).final", in, ds_, dbits(hc.dsum));
  // Per block: 128 threads (last block 1000-896=104) each atomicInc(.,4) on a
  // shared counter: final = count % 5; summed over blocks.
  uint32_t sh = 0;
  for (int b = 0; b < (nt + 127) / 128; ++b) sh += (uint32_t)(std::min(128, nt - b * 128) % 5);
  conf.bits("atomicInc.shared(contended,4).sum_of_finals", in, sh, hc.shared_inc, 32);
  cudaFree(ds);
  cudaFree(gw);
  cudaFree(dout);
  cudaFree(dc);
  return conf.finish();
}
