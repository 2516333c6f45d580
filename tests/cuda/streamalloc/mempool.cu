// Stream-ordered allocation and memory pools: cudaMallocAsync/cudaFreeAsync
// results checked against a CPU computation, pool attributes (reserved/used,
// current/high) after allocations, frees, synchronizes and trims, and the
// documented error codes for invalid uses.
//
// The attribute values follow softgpu's documented pool model
// (src/runtime/mempool.h): a block is round_up(size, 512) bytes, a freed
// block is reused for a request of rounded size r when r <= block <= 2r,
// cached blocks are released largest first without dropping below the
// release threshold (at synchronize) or minBytesToKeep (cudaMemPoolTrimTo).
#include <vector>

#include "../check.cuh"

__global__ void fill(int* p, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * k + 1;
}
__global__ void add(const int* a, const int* b, int* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static uint64_t attr64(cudaMemPool_t p, cudaMemPoolAttr a) {
  uint64_t v = ~0ull;
  if (cudaMemPoolGetAttribute(p, a, &v) != cudaSuccess) return ~0ull;
  return v;
}

// reserved current, used current
#define EXPECT_POOL(pool, reserved, used)                                                              \
  do {                                                                                                 \
    uint64_t r_ = attr64(pool, cudaMemPoolAttrReservedMemCurrent), u_ = attr64(pool, cudaMemPoolAttrUsedMemCurrent); \
    REQUIRE(r_ == (uint64_t)(reserved) && u_ == (uint64_t)(used), "reserved %llu used %llu, expected %llu %llu", \
            (unsigned long long)r_, (unsigned long long)u_, (unsigned long long)(reserved),            \
            (unsigned long long)(used));                                                               \
  } while (0)

int main() {
  cudaStream_t s, s2;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  int supported = 0;
  CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
  REQUIRE(supported == 1, "memory pools not supported");

  // ---- default and current pool
  cudaMemPool_t def = nullptr, cur = nullptr;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  REQUIRE(def && def == cur, "current pool %p is not the default %p", (void*)cur, (void*)def);
  EXPECT_ERR(cudaDeviceGetDefaultMemPool(&cur, 1), cudaErrorInvalidDevice);
  EXPECT_ERR(cudaDeviceGetDefaultMemPool(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceGetMemPool(nullptr, 0), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolDestroy(def), cudaErrorInvalidValue);  // the default pool cannot be destroyed
  int flag = -1;
  CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &flag));
  REQUIRE(flag == 1, "opportunistic reuse default %d", flag);
  CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseFollowEventDependencies, &flag));
  REQUIRE(flag == 1, "follow-event reuse default %d", flag);
  CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowInternalDependencies, &flag));
  REQUIRE(flag == 1, "internal-dependency reuse default %d", flag);
  REQUIRE(attr64(def, cudaMemPoolAttrReleaseThreshold) == 0, "release threshold default");
  EXPECT_POOL(def, 0, 0);

  // ---- allocation, use in kernels, CPU reference
  const int na = 250, nb = 1250;  // 1000 B -> 1024-byte block, 5000 B -> 5120-byte block
  int *a = nullptr, *b = nullptr, *c = nullptr;
  (void)cudaGetLastError();  // clear the errors the checks above provoked
  CHECK(cudaMallocAsync(&a, na * sizeof(int), s));
  CHECK(cudaMallocAsync(&b, nb * sizeof(int), s));
  REQUIRE(a && b && a != b, "allocations %p %p", (void*)a, (void*)b);
  EXPECT_POOL(def, 1024 + 5120, 1024 + 5120);
  fill<<<(nb + 127) / 128, 128, 0, s>>>(b, nb, 3);
  fill<<<(na + 127) / 128, 128, 0, s>>>(a, na, -2);
  CHECK(cudaGetLastError());
  CHECK(cudaMallocAsync(&c, na * sizeof(int), s2));  // another stream; used after an event
  cudaEvent_t ev;
  CHECK(cudaEventCreate(&ev));
  CHECK(cudaEventRecord(ev, s));
  CHECK(cudaStreamWaitEvent(s2, ev, 0));
  add<<<(na + 127) / 128, 128, 0, s2>>>(a, b, c, na);
  std::vector<int> hc(na), hb(nb);
  CHECK(cudaMemcpyAsync(hc.data(), c, na * sizeof(int), cudaMemcpyDeviceToHost, s2));
  CHECK(cudaMemcpyAsync(hb.data(), b, nb * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s2));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> wc(na), wb(nb);
  for (int i = 0; i < nb; ++i) wb[i] = i * 3 + 1;
  for (int i = 0; i < na; ++i) wc[i] = (i * -2 + 1) + (i * 3 + 1);
  REQUIRE(count_mismatches("b", hb.data(), wb.data(), nb) == 0, "fill results");
  REQUIRE(count_mismatches("c", hc.data(), wc.data(), na) == 0, "add results");
  EXPECT_POOL(def, 1024 + 5120 + 1024, 1024 + 5120 + 1024);

  // ---- free, reuse of the cached block, double free
  CHECK(cudaFreeAsync(a, s));
  EXPECT_POOL(def, 7168, 6144);
  EXPECT_ERR(cudaFreeAsync(a, s), cudaErrorInvalidValue);  // freed twice
  EXPECT_ERR(cudaFree(a), cudaErrorInvalidValue);
  int* d = nullptr;
  CHECK(cudaMallocAsync(&d, 600, s));  // rounds to 1024: takes the cached 1024-byte block
  REQUIRE(d == a, "cached block not reused: %p vs %p", (void*)d, (void*)a);
  EXPECT_POOL(def, 7168, 7168);
  EXPECT_ERR(cudaFreeAsync(b + 4, s), cudaErrorInvalidValue);  // not the start of an allocation
  int* plain = nullptr;
  CHECK(cudaMalloc(&plain, 4096));
  EXPECT_ERR(cudaFreeAsync(plain, s), cudaErrorInvalidValue);  // not from a pool
  CHECK(cudaFree(plain));
  CHECK(cudaFree(d));  // cudaFree accepts stream-ordered allocations
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaFreeAsync(c, s2));
  EXPECT_POOL(def, 7168, 0);
  REQUIRE(attr64(def, cudaMemPoolAttrUsedMemHigh) == 7168, "used high %llu",
          (unsigned long long)attr64(def, cudaMemPoolAttrUsedMemHigh));
  REQUIRE(attr64(def, cudaMemPoolAttrReservedMemHigh) == 7168, "reserved high");
  // Threshold 0: a synchronize gives all cached memory back.
  CHECK(cudaStreamSynchronize(s));
  EXPECT_POOL(def, 0, 0);

  // ---- size 0, null pointers
  void* z = (void*)0x1;
  CHECK(cudaMallocAsync(&z, 0, s));
  REQUIRE(z == nullptr, "size 0 gave %p", z);
  CHECK(cudaFreeAsync(nullptr, s));
  EXPECT_ERR(cudaMallocAsync(nullptr, 16, s), cudaErrorInvalidValue);

  // ---- release threshold and trim
  uint64_t thr = 4096;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &thr));
  REQUIRE(attr64(def, cudaMemPoolAttrReleaseThreshold) == 4096, "threshold not set");
  void *x1, *x2, *x3;
  CHECK(cudaMallocAsync(&x1, 3000, s));  // 3072
  CHECK(cudaMallocAsync(&x2, 2000, s));  // 2048
  CHECK(cudaMallocAsync(&x3, 1, s));     // 512
  CHECK(cudaMallocAsync(&z, 1024, s));   // 1024
  EXPECT_POOL(def, 6656, 6656);
  CHECK(cudaFreeAsync(x1, s));
  CHECK(cudaFreeAsync(x2, s));
  CHECK(cudaFreeAsync(x3, s));
  CHECK(cudaFreeAsync(z, s));
  // Largest first, never below 4096: 3072 stays (6656-3072 < 4096), 2048 goes (4608),
  // 1024 stays (3584 < 4096), 512 goes (4096).
  CHECK(cudaDeviceSynchronize());
  EXPECT_POOL(def, 4096, 0);
  CHECK(cudaMemPoolTrimTo(def, 1000));  // 3072 goes (1024 left); the last 1024 stays (0 < 1000)
  EXPECT_POOL(def, 1024, 0);
  CHECK(cudaMemPoolTrimTo(def, 0));
  EXPECT_POOL(def, 0, 0);
  EXPECT_ERR(cudaMemPoolTrimTo(nullptr, 0), cudaErrorInvalidValue);

  // ---- attribute errors and watermark resets
  uint64_t zero = 0, five = 5;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
  REQUIRE(attr64(def, cudaMemPoolAttrUsedMemHigh) == 0, "used high not reset");
  REQUIRE(attr64(def, cudaMemPoolAttrReservedMemHigh) == 0, "reserved high not reset");
  EXPECT_ERR(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &five), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &zero), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &zero), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, nullptr), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolGetAttribute(def, (cudaMemPoolAttr)99, &thr), cudaErrorInvalidValue);
  flag = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &flag));
  flag = 7;
  CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &flag));
  REQUIRE(flag == 0, "opportunistic reuse not disabled");

  // ---- access
  cudaMemLocation dev0{cudaMemLocationTypeDevice, 0}, dev1{cudaMemLocationTypeDevice, 1};
  cudaMemAccessFlags af = cudaMemAccessFlagsProtNone;
  CHECK(cudaMemPoolGetAccess(&af, def, &dev0));
  REQUIRE(af == cudaMemAccessFlagsProtReadWrite, "device access %d", (int)af);
  cudaMemAccessDesc ad{dev0, cudaMemAccessFlagsProtReadWrite};
  CHECK(cudaMemPoolSetAccess(def, &ad, 1));
  ad.location = dev1;
  EXPECT_ERR(cudaMemPoolSetAccess(def, &ad, 1), cudaErrorInvalidValue);
  ad = {dev0, cudaMemAccessFlagsProtNone};  // the owning device keeps read-write access
  EXPECT_ERR(cudaMemPoolSetAccess(def, &ad, 1), cudaErrorInvalidValue);
  EXPECT_ERR(cudaMemPoolGetAccess(&af, def, nullptr), cudaErrorInvalidValue);

  // ---- explicit pools
  cudaMemPoolProps props{};
  cudaMemPool_t pool = nullptr;
  EXPECT_ERR(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);  // allocType invalid
  EXPECT_ERR(cudaMemPoolCreate(&pool, nullptr), cudaErrorInvalidValue);
  props.allocType = cudaMemAllocationTypePinned;
  props.location = dev1;
  EXPECT_ERR(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
  props.location = dev0;
  props.maxSize = 4096;
  CHECK(cudaMemPoolCreate(&pool, &props));
  REQUIRE(pool && pool != def, "new pool %p", (void*)pool);
  int* q = nullptr;
  CHECK(cudaMallocFromPoolAsync((void**)&q, 100 * sizeof(int), pool, s));  // 400 -> 512
  EXPECT_POOL(pool, 512, 512);
  EXPECT_POOL(def, 0, 0);
  void* big = nullptr;
  EXPECT_ERR(cudaMallocFromPoolAsync(&big, 3700, pool, s), cudaErrorMemoryAllocation);  // 512 + 4096 > 4096
  CHECK(cudaMallocFromPoolAsync(&big, 3500, pool, s));                                    // 512 + 3584
  CHECK(cudaFreeAsync(big, s));
  CHECK(cudaDeviceSetMemPool(0, pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  REQUIRE(cur == pool, "current pool not set");
  int* r = nullptr;
  // From the current pool. The cached 3584-byte block is too big to reuse for
  // 512 (> 2 * 512), and a new block would pass maxSize: the cache is released first.
  CHECK(cudaMallocAsync(&r, 100 * sizeof(int), s));
  EXPECT_POOL(pool, 1024, 1024);
  fill<<<1, 128, 0, s>>>(q, 100, 5);
  fill<<<1, 128, 0, s>>>(r, 100, 7);
  std::vector<int> hq(100), hr(100);
  CHECK(cudaMemcpyAsync(hq.data(), q, 400, cudaMemcpyDeviceToHost, s));
  CHECK(cudaMemcpyAsync(hr.data(), r, 400, cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < 100; ++i) REQUIRE(hq[i] == i * 5 + 1 && hr[i] == i * 7 + 1, "pool data at %d", i);
  // Destroying a pool with live allocations: immediate; they stay usable until freed.
  CHECK(cudaMemPoolDestroy(pool));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  REQUIRE(cur == def, "current pool did not revert to the default");
  EXPECT_ERR(cudaMallocFromPoolAsync((void**)&q, 16, nullptr, s), cudaErrorInvalidValue);
  fill<<<1, 128, 0, s>>>(q, 100, 9);
  CHECK(cudaMemcpy(hq.data(), q, 400, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 100; ++i) REQUIRE(hq[i] == i * 9 + 1, "destroyed pool data at %d", i);
  CHECK(cudaFreeAsync(q, s));
  CHECK(cudaFreeAsync(r, s));
  EXPECT_ERR(cudaFreeAsync(r, s), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetMemPool(0, nullptr), cudaErrorInvalidValue);
  EXPECT_ERR(cudaDeviceSetMemPool(1, def), cudaErrorInvalidDevice);

  CHECK(cudaEventDestroy(ev));
  CHECK(cudaStreamDestroy(s2));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaDeviceSynchronize());
  std::printf("PASS mempool\n");
  return 0;
}
