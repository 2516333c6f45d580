// Conformance: warp collectives. __shfl_sync/_up/_down/_xor with every width
// and out-of-range lanes, raw shfl.sync with other clamp values and the
// validity predicate, __ballot_sync/__any_sync/__all_sync, __match_any_sync/
// __match_all_sync, __reduce_{add,min,max,and,or,xor}_sync (u32 and s32),
// partial member masks. Reference: the PTX ISA shfl.sync definition
// (segmask = c[12:8], clamp = c[4:0], minLane/maxLane) evaluated per lane.
#include "conf.h"

enum Kind : uint32_t {
  SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, RAW_IDX, RAW_UP, RAW_DOWN, RAW_BFLY, BALLOT, ANY, ALL, MATCH_ANY,
  MATCH_ALL, RED_ADD, RED_MIN_U, RED_MAX_U, RED_MIN_S, RED_MAX_S, RED_AND, RED_OR, RED_XOR, NUM_KINDS
};
static const char* kKindName[NUM_KINDS] = {
  "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "shfl.sync.idx.b32",
  "shfl.sync.up.b32", "shfl.sync.down.b32", "shfl.sync.bfly.b32", "__ballot_sync", "__any_sync",
  "__all_sync", "__match_any_sync", "__match_all_sync", "__reduce_add_sync(u32)", "__reduce_min_sync(u32)",
  "__reduce_max_sync(u32)", "__reduce_min_sync(s32)", "__reduce_max_sync(s32)", "__reduce_and_sync",
  "__reduce_or_sync", "__reduce_xor_sync"};

// One test case per block of 32 threads. For shuffles `arg` is the lane/delta/
// mask operand (per-lane offset `step` added: arg + lane*step), `width` the CUDA
// width, or for the raw forms the c operand. `vals` selects the value pattern.
struct Case { uint32_t kind, mask, arg, step, width, vals; };

__device__ __host__ inline uint32_t value(uint32_t pattern, uint32_t lane) {
  switch (pattern) {
    case 0: return lane * 0x01010101u + 0x100u;                 // all distinct
    case 1: return (lane % 5) * 7u;                              // repeats
    case 2: return lane < 16 ? 0xffffffffu - lane : lane * 3u;   // signed/unsigned extremes
    case 3: return 42u;                                          // uniform
    default: return (lane * 2654435761u) ^ (lane << 28);         // hashed
  }
}

__global__ void run(const Case* cases, uint32_t* out, uint32_t* pred) {
  Case c = cases[blockIdx.x];
  uint32_t lane = threadIdx.x;
  uint32_t v = value(c.vals, lane), r = 0xdeadbeefu, p = 0;
  if ((c.mask >> lane) & 1) {
    uint32_t a = c.arg + lane * c.step;
    int w = (int)c.width;
    switch (c.kind) {
      case SHFL_IDX: r = __shfl_sync(c.mask, v, (int)a, w); break;
      case SHFL_UP: r = __shfl_up_sync(c.mask, v, a, w); break;
      case SHFL_DOWN: r = __shfl_down_sync(c.mask, v, a, w); break;
      case SHFL_XOR: r = __shfl_xor_sync(c.mask, v, (int)a, w); break;
      case RAW_IDX:
        asm volatile("{.reg .pred %cq; shfl.sync.idx.b32 %0|%cq, %2, %3, %4, %5; selp.u32 %1, 1, 0, %cq;}"
                     : "=r"(r), "=r"(p) : "r"(v), "r"(a), "r"(c.width), "r"(c.mask));
        break;
      case RAW_UP:
        asm volatile("{.reg .pred %cq; shfl.sync.up.b32 %0|%cq, %2, %3, %4, %5; selp.u32 %1, 1, 0, %cq;}"
                     : "=r"(r), "=r"(p) : "r"(v), "r"(a), "r"(c.width), "r"(c.mask));
        break;
      case RAW_DOWN:
        asm volatile("{.reg .pred %cq; shfl.sync.down.b32 %0|%cq, %2, %3, %4, %5; selp.u32 %1, 1, 0, %cq;}"
                     : "=r"(r), "=r"(p) : "r"(v), "r"(a), "r"(c.width), "r"(c.mask));
        break;
      case RAW_BFLY:
        asm volatile("{.reg .pred %cq; shfl.sync.bfly.b32 %0|%cq, %2, %3, %4, %5; selp.u32 %1, 1, 0, %cq;}"
                     : "=r"(r), "=r"(p) : "r"(v), "r"(a), "r"(c.width), "r"(c.mask));
        break;
      case BALLOT: r = __ballot_sync(c.mask, (v >> c.arg) & 1); break;
      case ANY: r = __any_sync(c.mask, v == c.arg); break;
      case ALL: r = __all_sync(c.mask, v == c.arg); break;
      case MATCH_ANY: r = __match_any_sync(c.mask, v); break;
      case MATCH_ALL: { int q; r = __match_all_sync(c.mask, v, &q); p = q != 0; break; }
      case RED_ADD: r = __reduce_add_sync(c.mask, v); break;
      case RED_MIN_U: r = __reduce_min_sync(c.mask, v); break;
      case RED_MAX_U: r = __reduce_max_sync(c.mask, v); break;
      case RED_MIN_S: r = (uint32_t)__reduce_min_sync(c.mask, (int)v); break;
      case RED_MAX_S: r = (uint32_t)__reduce_max_sync(c.mask, (int)v); break;
      case RED_AND: r = __reduce_and_sync(c.mask, v); break;
      case RED_OR: r = __reduce_or_sync(c.mask, v); break;
      default: r = __reduce_xor_sync(c.mask, v); break;
    }
  }
  out[blockIdx.x * 32 + lane] = r;
  pred[blockIdx.x * 32 + lane] = p;
}

// PTX ISA shfl.sync: returns the source lane and the validity predicate.
static uint32_t shfl_src(int mode, uint32_t lane, uint32_t b, uint32_t c, bool& valid) {
  uint32_t segmask = (c >> 8) & 0x1f, cval = c & 0x1f;
  uint32_t maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
  int64_t j;
  bool pval;
  switch (mode) {
    case 0: j = minLane | (b & 0x1f & ~segmask); pval = j <= maxLane; break;  // idx
    case 1: j = (int64_t)lane - (int64_t)b; pval = j >= (int64_t)maxLane; break;  // up
    case 2: j = (int64_t)lane + b; pval = j <= maxLane; break;                  // down
    default: j = lane ^ b; pval = j <= maxLane; break;                           // bfly
  }
  valid = pval;
  return pval ? (uint32_t)j : lane;
}

int main(int argc, char** argv) {
  Conf conf("conf_warp", argc, argv, {
  });
  std::vector<Case> cases;
  const uint32_t full = 0xffffffffu;
  for (uint32_t w : {32u, 16u, 8u, 4u, 2u, 1u}) {
    for (uint32_t arg : {0u, 1u, 3u, 5u, 15u, 16u, 31u, 33u}) cases.push_back({SHFL_IDX, full, arg, 0, w, 0});
    cases.push_back({SHFL_IDX, full, 31, 0xffffffffu, w, 4});  // lane-dependent source: 31 - lane
    for (uint32_t d : {0u, 1u, 2u, 7u, 16u, 31u})
      for (uint32_t k : {SHFL_UP, SHFL_DOWN, SHFL_XOR}) cases.push_back({k, full, d, 0, w, 0});
  }
  for (uint32_t c : {0x1fu, 0x0fu, 0x00u, 0x1f00u | 0x1fu, 0x1800u | 0x07u, 0x1c00u, 0x1003u})
    for (uint32_t b : {0u, 1u, 3u, 9u, 17u})
      for (uint32_t k : {RAW_IDX, RAW_UP, RAW_DOWN, RAW_BFLY}) cases.push_back({k, full, b, 0, c, 4});
  // Partial masks: the low half and the even lanes shuffle among themselves.
  cases.push_back({SHFL_IDX, 0x0000ffffu, 3, 0, 32, 0});
  cases.push_back({SHFL_XOR, 0x0000ffffu, 1, 0, 16, 0});
  cases.push_back({SHFL_DOWN, 0x55555555u, 2, 0, 32, 0});
  for (uint32_t bit : {0u, 1u, 8u, 31u}) for (uint32_t pat : {0u, 2u, 4u}) cases.push_back({BALLOT, full, bit, 0, 32, pat});
  cases.push_back({BALLOT, 0xf0f0f0f0u, 0, 0, 32, 4});
  for (uint32_t k : {ANY, ALL}) {
    cases.push_back({k, full, 42, 0, 32, 3});
    cases.push_back({k, full, 42, 0, 32, 0});
    cases.push_back({k, full, value(0, 5), 0, 32, 0});
    cases.push_back({k, 0x0000000fu, 0, 0, 32, 1});
  }
  for (uint32_t k : {MATCH_ANY, MATCH_ALL})
    for (uint32_t pat : {0u, 1u, 3u}) {
      cases.push_back({k, full, 0, 0, 32, pat});
      cases.push_back({k, 0x00ff00ffu, 0, 0, 32, pat});
    }
  for (uint32_t k = RED_ADD; k < NUM_KINDS; ++k)
    for (uint32_t pat : {0u, 2u, 4u}) {
      cases.push_back({k, full, 0, 0, 32, pat});
      cases.push_back({k, 0x8000ff01u, 0, 0, 32, pat});
    }

  int n = (int)cases.size();
  Case* dc;
  uint32_t *dout, *dpred;
  CONF_CHECK(cudaMalloc(&dc, n * sizeof(Case)));
  CONF_CHECK(cudaMalloc(&dout, n * 32 * 4));
  CONF_CHECK(cudaMalloc(&dpred, n * 32 * 4));
  CONF_CHECK(cudaMemcpy(dc, cases.data(), n * sizeof(Case), cudaMemcpyHostToDevice));
  run<<<n, 32>>>(dc, dout, dpred);
  CONF_CHECK(cudaGetLastError());
  std::vector<uint32_t> out(n * 32), pred(n * 32);
  CONF_CHECK(cudaMemcpy(out.data(), dout, n * 32 * 4, cudaMemcpyDeviceToHost));
  CONF_CHECK(cudaMemcpy(pred.data(), dpred, n * 32 * 4, cudaMemcpyDeviceToHost));

  for (int t = 0; t < n; ++t) {
    const Case& c = cases[t];
    for (uint32_t lane = 0; lane < 32; ++lane) {
      if (!((c.mask >> lane) & 1)) continue;
      uint32_t got = out[t * 32 + lane], gp = pred[t * 32 + lane];
      uint32_t a = c.arg + lane * c.step;
      uint32_t want = 0, wp = 0;
      bool check_pred = false;
      char in[128];
      std::snprintf(in, sizeof in, "lane=%u,mask=0x%08x,arg=%u,%s=0x%x,vals=%u", lane, c.mask, a,
                    c.kind >= RAW_IDX && c.kind <= RAW_BFLY ? "c" : "width", c.width, c.vals);
      if (c.kind <= SHFL_XOR) {
        // nvcc passes c = ((32 - width) << 8) | clamp, clamp 0 for up and 0x1f otherwise.
        uint32_t cc = ((32 - c.width) << 8) | (c.kind == SHFL_UP ? 0 : 0x1f);
        bool ok;
        want = value(c.vals, shfl_src((int)c.kind, lane, a, cc, ok));
      } else if (c.kind <= RAW_BFLY) {
        bool ok;
        want = value(c.vals, shfl_src((int)(c.kind - RAW_IDX), lane, a, c.width, ok));
        wp = ok;
        check_pred = true;
      } else {
        uint32_t ballot = 0, anyv = 0, allv = 1, match = 0, sum = 0, mn = ~0u, mx = 0, an = ~0u, orr = 0, xr = 0;
        int32_t smn = INT32_MAX, smx = INT32_MIN;
        bool all_eq = true;
        for (uint32_t l = 0; l < 32; ++l) {
          if (!((c.mask >> l) & 1)) continue;
          uint32_t v = value(c.vals, l);
          if ((v >> c.arg) & 1) ballot |= 1u << l;
          if (v == c.arg) anyv = 1; else allv = 0;
          if (v == value(c.vals, lane)) match |= 1u << l; else all_eq = false;
          sum += v; mn = std::min(mn, v); mx = std::max(mx, v); an &= v; orr |= v; xr ^= v;
          smn = std::min(smn, (int32_t)v); smx = std::max(smx, (int32_t)v);
        }
        switch (c.kind) {
          case BALLOT: want = ballot; break;
          case ANY: want = anyv; break;
          case ALL: want = allv; break;
          case MATCH_ANY: want = match; break;
          case MATCH_ALL: want = all_eq ? c.mask : 0; wp = all_eq; check_pred = true; break;
          case RED_ADD: want = sum; break;
          case RED_MIN_U: want = mn; break;
          case RED_MAX_U: want = mx; break;
          case RED_MIN_S: want = (uint32_t)smn; break;
          case RED_MAX_S: want = (uint32_t)smx; break;
          case RED_AND: want = an; break;
          case RED_OR: want = orr; break;
          default: want = xr; break;
        }
      }
      conf.bits(kKindName[c.kind], in, want, got, 32);
      if (check_pred) conf.bits(std::string(kKindName[c.kind]) + ".pred", in, wp, gp, 32);
    }
  }
  cudaFree(dc);
  cudaFree(dout);
  cudaFree(dpred);
  return conf.finish();
}
