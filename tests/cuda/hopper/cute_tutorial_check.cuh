// The main of the CuTe tutorial tests (cute_tma_gemm.cu, cute_cpasync_gemm.cu):
// runs the tutorial's own gemm() (included before this header, its main()
// renamed away) at each shape and checks it against a CPU GEMM on +-1
// inputs (every sum an integer of at most k, exact in f16).
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>

struct TutorialShape {
  int m, n, k;
  char ta, tb;
};

// Shapes from the command line (m n k ta tb) replace `shapes`.
inline int check_tutorial(const char* name, std::vector<TutorialShape> shapes, int argc, char** argv) {
  if (argc == 6) shapes = {{std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3]), argv[4][0], argv[5][0]}};
  int failures = 0;
  for (const TutorialShape& s : shapes) {
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
  std::printf("PASS %s\n", name);
  return 0;
}
