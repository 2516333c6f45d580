// NVTX's memory API under softgpu sanitize --nvtx yes, in the shapes of
// NVIDIA's compute-sanitizer NVTX samples (written anew). MODE:
//   pool     a 4 KB cudaMalloc registered as a pool, one 63-byte region at
//            offset 16 suballocated from it; kernels write one byte per
//            thread: inside the region (fine), one byte past it, after a
//            resize (fine), after the region is unregistered, after the
//            pool is reset, and after the pool is unregistered (fine).
//   perms    a counter a kernel reads, writes and increments atomically,
//            under process-wide permissions read-only, write-only, none,
//            read+write, then reset to natural.
//   bound    a permissions object bound to the stream scope: a buffer it
//            makes read-only, another it does not list (free, then denied
//            under a strict-write binding), and after unbinding.
//   name     a 1-byte allocation named "My buffer", leaked at cudaDeviceReset.
//   pool_unused  a pool whose 64-byte region is half written before cudaFree.
//   marked   a buffer no one wrote, marked initialized, then read by a kernel.
// The program prints what the kernels left in memory, so the tests check
// that bad accesses were suppressed and good ones took effect.
#include <nvtx3/nvToolsExtMem.h>
#include <nvtx3/nvToolsExtMemCudaRt.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void fill(uint8_t* p) { p[threadIdx.x] = uint8_t(threadIdx.x + 1); }

__global__ void bump(unsigned* v) {
  const unsigned x = *v;
  *v = x + 1;
  atomicAdd(v, 1u);
}

__global__ void store(int* p, int value) { *p = value; }

__global__ void sum(const int* p, int n, int* out) {
  int s = 0;
  for (int i = 0; i < n; ++i) s += p[i];
  *out = s;
}

static nvtxDomainHandle_t domain;

// An NVTX batch or descriptor, zeroed, with its compatibility id and size set.
template <class T>
static T batch() {
  T b = {};
  b.extCompatID = NVTX_EXT_COMPATID_MEM;
  b.structSize = sizeof(b);
  return b;
}

static nvtxMemVirtualRangeDesc_t span(const void* p, size_t bytes) {
  nvtxMemVirtualRangeDesc_t r = {};
  r.ptr = p;
  r.size = bytes;
  return r;
}

static void sync(const char* what) { std::printf("%s: %s\n", what, cudaGetErrorString(cudaDeviceSynchronize())); }

static nvtxMemHeapHandle_t make_pool(void* base, size_t bytes) {
  const nvtxMemVirtualRangeDesc_t range = span(base, bytes);
  auto d = batch<nvtxMemHeapDesc_t>();
  d.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
  d.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  d.typeSpecificDescSize = sizeof(range);
  d.typeSpecificDesc = &range;
  return nvtxMemHeapRegister(domain, &d);
}

static void region(nvtxMemHeapHandle_t heap, void* p, size_t bytes, bool resize = false) {
  const nvtxMemVirtualRangeDesc_t range = span(p, bytes);
  if (resize) {
    auto b = batch<nvtxMemRegionsResizeBatch_t>();
    b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    b.regionDescCount = 1;
    b.regionDescElementSize = sizeof(range);
    b.regionDescElements = &range;
    nvtxMemRegionsResize(domain, &b);
    return;
  }
  auto b = batch<nvtxMemRegionsRegisterBatch_t>();
  b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  b.heap = heap;
  b.regionCount = 1;
  b.regionDescElementSize = sizeof(range);
  b.regionDescElements = &range;
  nvtxMemRegionsRegister(domain, &b);
}

static void unregister(void* p) {
  nvtxMemRegionRef_t ref;
  ref.pointer = p;
  auto b = batch<nvtxMemRegionsUnregisterBatch_t>();
  b.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  b.refCount = 1;
  b.refElementSize = sizeof(ref);
  b.refElements = &ref;
  nvtxMemRegionsUnregister(domain, &b);
}

static void permit(nvtxMemPermissionsHandle_t h, const void* p, uint32_t flags) {
  nvtxMemPermissionsAssignRegionDesc_t r;
  r.flags = flags;
  r.regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  r.region.pointer = p;
  auto b = batch<nvtxMemPermissionsAssignBatch_t>();
  b.permissions = h;
  b.regionCount = 1;
  b.regionElementSize = sizeof(r);
  b.regionElements = &r;
  nvtxMemPermissionsAssign(domain, &b);
}

static int pool_mode() {
  uint8_t* pool = nullptr;
  cudaMalloc(&pool, 4096);
  cudaMemset(pool, 0, 4096);
  nvtxMemHeapHandle_t heap = make_pool(pool, 4096);
  if (!heap) std::printf("no NVTX tool: the pool is a plain allocation\n");
  uint8_t* a = pool + 16;
  region(heap, a, 63);
  fill<<<1, 63>>>(a);
  sync("inside");
  fill<<<1, 64>>>(a);  // thread 63 writes one byte past the region
  sync("one past");
  region(heap, a, 64, true);
  fill<<<1, 64>>>(a);
  sync("resized");
  unregister(a);
  fill<<<1, 1>>>(a);
  sync("unregistered");
  region(heap, a, 63);
  nvtxMemHeapReset(domain, heap);
  fill<<<1, 1>>>(a);
  sync("reset");
  nvtxMemHeapUnregister(domain, heap);
  fill<<<1, 1>>>(pool);  // a plain allocation again
  sync("no pool");
  uint8_t h[4096];
  cudaMemcpy(h, pool, sizeof h, cudaMemcpyDeviceToHost);
  int good = h[0] == 1;
  for (int i = 0; i < 64; ++i) good &= h[16 + i] == i + 1;
  std::printf("pool bytes %s\n", good ? "as written" : "wrong");
  cudaFree(pool);
  return 0;
}

static int perms_mode() {
  unsigned* v = nullptr;
  cudaMalloc(&v, sizeof(unsigned));
  cudaMemset(v, 0, sizeof(unsigned));
  nvtxMemPermissionsHandle_t all = nvtxMemCudaGetProcessWidePermissions(domain);
  bump<<<1, 1>>>(v);
  sync("natural");
  const struct { uint32_t flags; const char* name; } steps[] = {
      {NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ, "read-only"},
      {NVTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE, "write-only"},
      {NVTX_MEM_PERMISSIONS_REGION_FLAGS_NONE, "none"},
      {NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ | NVTX_MEM_PERMISSIONS_REGION_FLAGS_WRITE, "read-write"},
      {NVTX_MEM_PERMISSIONS_REGION_FLAGS_RESET, "reset"},
  };
  for (const auto& s : steps) {
    permit(all, v, s.flags);
    bump<<<1, 1>>>(v);
    sync(s.name);
  }
  unsigned h = 0;
  cudaMemcpy(&h, v, sizeof h, cudaMemcpyDeviceToHost);
  std::printf("counter %u\n", h);
  cudaFree(v);
  return 0;
}

static int bound_mode() {
  int *a = nullptr, *b = nullptr;
  cudaMalloc(&a, 256);
  cudaMalloc(&b, 256);
  nvtxMemPermissionsHandle_t mine = nvtxMemPermissionsCreate(domain, NVTX_MEM_PERMISSIONS_CREATE_FLAGS_NONE);
  permit(mine, a, NVTX_MEM_PERMISSIONS_REGION_FLAGS_READ);
  store<<<1, 1>>>(a, 1);
  sync("a before binding");
  nvtxMemPermissionsBind(domain, mine, NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM, NVTX_MEM_PERMISSIONS_BIND_FLAGS_NONE);
  store<<<1, 1>>>(a, 2);  // read-only in the bound object
  sync("a bound");
  store<<<1, 1>>>(b, 3);  // not listed: as before
  sync("b bound");
  nvtxMemPermissionsBind(domain, mine, NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM,
                         NVTX_MEM_PERMISSIONS_BIND_FLAGS_STRICT_WRITE);
  store<<<1, 1>>>(b, 4);  // strict: only what the object lets be written may be
  sync("b strict");
  nvtxMemPermissionsUnbind(domain, NVTX_MEM_PERMISSIONS_BIND_SCOPE_CUDA_STREAM);
  store<<<1, 1>>>(a, 5);
  sync("a unbound");
  nvtxMemPermissionsDestroy(domain, mine);
  int ha = 0, hb = 0;
  cudaMemcpy(&ha, a, sizeof ha, cudaMemcpyDeviceToHost);
  cudaMemcpy(&hb, b, sizeof hb, cudaMemcpyDeviceToHost);
  std::printf("a %d b %d\n", ha, hb);
  cudaFree(a);
  cudaFree(b);
  return 0;
}

static void name(void* p, const char* text) {
  nvtxMemRegionNameDesc_t n = {};
  n.regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
  n.nameType = NVTX_MESSAGE_TYPE_ASCII;
  n.region.pointer = p;
  n.name.ascii = text;
  auto b = batch<nvtxMemRegionsNameBatch_t>();
  b.regionCount = 1;
  b.regionElementSize = sizeof(n);
  b.regionElements = &n;
  nvtxMemRegionsName(domain, &b);
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "pool";
  domain = nvtxDomainCreateA("softgpu-test");
  if (!std::strcmp(mode, "pool")) return pool_mode();
  if (!std::strcmp(mode, "perms")) return perms_mode();
  if (!std::strcmp(mode, "bound")) return bound_mode();
  if (!std::strcmp(mode, "name")) {
    void* p = nullptr;
    cudaMalloc(&p, 1);
    name(p, "My buffer");
    cudaDeviceReset();  // leaks it
    return 0;
  }
  if (!std::strcmp(mode, "pool_unused")) {
    uint8_t* pool = nullptr;
    cudaMalloc(&pool, 4096);
    nvtxMemHeapHandle_t heap = make_pool(pool, 4096);
    region(heap, pool + 16, 64);
    fill<<<1, 32>>>(pool + 16);
    sync("half");
    unregister(pool + 16);
    nvtxMemHeapUnregister(domain, heap);
    cudaFree(pool);
    return 0;
  }
  if (!std::strcmp(mode, "marked")) {
    int *p = nullptr, *out = nullptr;
    cudaMalloc(&p, 64 * sizeof(int));
    cudaMalloc(&out, sizeof(int));
    const nvtxMemVirtualRangeDesc_t range = span(p, 64 * sizeof(int));
    auto b = batch<nvtxMemMarkInitializedBatch_t>();
    b.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    b.regionDescCount = 1;
    b.regionDescElementSize = sizeof(range);
    b.regionDescElements = &range;
    if (argc <= 2 || std::strcmp(argv[2], "unmarked")) nvtxMemCudaMarkInitialized(domain, 0, 0, &b);
    sum<<<1, 1>>>(p, 64, out);
    sync("sum");
    cudaFree(p);
    cudaFree(out);
    return 0;
  }
  std::printf("unknown mode %s\n", mode);
  return 2;
}
