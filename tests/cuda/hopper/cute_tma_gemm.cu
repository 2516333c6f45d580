// CUTLASS's own Hopper GEMM tutorial (examples/cute/tutorial/hopper/
// wgmma_tma_sm90.cu from the nvidia-cutlass wheel, included as it ships,
// its main() renamed away): TMA loads with 128B swizzle from tensor maps
// CuTe encodes through cuTensorMapEncodeTiled, an mbarrier pipeline of
// stages, and wgmma on the shared-memory tiles. Checked against a CPU GEMM
// on +-1 inputs (every sum an integer of at most k, exact in f16).
#define main cute_tutorial_main
#include "wgmma_tma_sm90.cu"  // found through -I examples/cute/tutorial/hopper
#undef main

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  struct Shape { int m, n, k; char ta, tb; };
  // The tutorial launches clusters of 2 CTAs along M and does not predicate
  // its epilogue, so M must be a multiple of 256 and N of 128 (otherwise the
  // CTA past the matrix writes into C's next columns, on a GPU too: memcheck
  // reports it). K tiles of 64, fewer or more than its 3 pipeline stages
  // (more: its producer lane waits on the consumers inside a branch while
  // the rest of the warp reaches the next wgmma, which must wait for it).
  std::vector<Shape> shapes = {{256, 128, 64, 'N', 'T'}, {512, 128, 192, 'N', 'T'}, {256, 256, 128, 'T', 'N'},
                               {256, 128, 320, 'T', 'N'}, {256, 128, 512, 'N', 'T'}};
  if (argc == 6) shapes = {{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]), argv[4][0], argv[5][0]}};
  int failures = 0;
  for (const Shape& s : shapes) {
    std::vector<cute::half_t> a(size_t(s.m) * s.k), b(size_t(s.n) * s.k), c(size_t(s.m) * s.n, cute::half_t(7.0f));
    unsigned x = 12345;
    auto pm1 = [&] { x = x * 1103515245u + 12345u; return cute::half_t((x >> 16) & 1 ? 1.0f : -1.0f); };
    for (auto& v : a) v = pm1();
    for (auto& v : b) v = pm1();
    cute::half_t *da, *db, *dc;
    cudaMalloc(&da, a.size() * 2);
    cudaMalloc(&db, b.size() * 2);
    cudaMalloc(&dc, c.size() * 2);
    cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice);
    cudaMemcpy(dc, c.data(), c.size() * 2, cudaMemcpyHostToDevice);
    const int lda = s.ta == 'N' ? s.m : s.k, ldb = s.tb == 'N' ? s.k : s.n;
    gemm(s.ta, s.tb, s.m, s.n, s.k, cute::half_t(1.0f), da, lda, db, ldb, cute::half_t(0.0f), dc, s.m);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(c.data(), dc, c.size() * 2, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < s.m; ++i)
      for (int j = 0; j < s.n; ++j) {
        float want = 0;
        for (int p = 0; p < s.k; ++p) {
          const float av = float(s.ta == 'N' ? a[size_t(p) * s.m + i] : a[size_t(i) * s.k + p]);
          const float bv = float(s.tb == 'N' ? b[size_t(j) * s.k + p] : b[size_t(p) * s.n + j]);
          want += av * bv;
        }
        const float got = float(c[size_t(j) * s.m + i]);
        if (got != want && bad++ < 3) std::printf("  (%d,%d): %g, want %g\n", i, j, got, want);
      }
    std::printf("%dx%dx%d %c%c: %s, %d mismatches\n", s.m, s.n, s.k, s.ta, s.tb, cudaGetErrorString(e), bad);
    failures += bad + (e != cudaSuccess);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
  }
  if (failures) return 1;
  std::printf("PASS cute_tma_gemm\n");
  return 0;
}
