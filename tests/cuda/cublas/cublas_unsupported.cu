// A cuBLAS routine softgpu does not implement yet (cublasStpmv, packed
// triangular) returns CUBLAS_STATUS_NOT_SUPPORTED, prints "softgpu cublas:
// cublasStpmv_v2 is not implemented yet" on stderr once (the program captures its own stderr to
// count), and leaves the library usable. softgpu-only: on a GPU it succeeds.
#include <cublas_v2.h>
#include <unistd.h>

#include <string>

#include "../check.cuh"

int main() {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::fprintf(stderr, "FAIL cublasCreate\n"); return 1; }
  float *a, *x, *y;
  CHECK(cudaMalloc(&a, 16 * sizeof(float)));
  CHECK(cudaMalloc(&x, 4 * sizeof(float)));
  CHECK(cudaMalloc(&y, 4 * sizeof(float)));

  // stderr into a temporary file for the two calls.
  std::fflush(stderr);
  FILE* tmp = std::tmpfile();
  REQUIRE(tmp, "tmpfile");
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  cublasStatus_t s1 = cublasStpmv(h, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, 4, a, x, 1);
  cublasStatus_t s2 = cublasStpmv(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_T, CUBLAS_DIAG_NON_UNIT, 4, a, y, 1);
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::string text;
  std::rewind(tmp);
  for (int c; (c = std::fgetc(tmp)) != EOF;) text += (char)c;
  std::fclose(tmp);
  std::fputs(text.c_str(), stderr);  // for the test's stderr check

  REQUIRE(s1 == CUBLAS_STATUS_NOT_SUPPORTED && s2 == CUBLAS_STATUS_NOT_SUPPORTED, "statuses %d %d", (int)s1, (int)s2);
  const std::string line = "softgpu cublas: cublasStpmv_v2 is not implemented yet\n";
  size_t first = text.find(line);
  REQUIRE(first != std::string::npos, "message missing, stderr was: %s", text.c_str());
  REQUIRE(text.find(line, first + 1) == std::string::npos, "message printed twice");
  REQUIRE(std::strcmp(cublasGetStatusName(s1), "CUBLAS_STATUS_NOT_SUPPORTED") == 0, "name %s", cublasGetStatusName(s1));

  // The 64-bit-index variants of unimplemented routines are stubs too.
  float one = 1, zero = 0;
  REQUIRE(cublasSspmv_v2_64(h, CUBLAS_FILL_MODE_LOWER, 4, &one, a, x, 1, &zero, y, 1) == CUBLAS_STATUS_NOT_SUPPORTED,
          "Sspmv_v2_64");

  // The handle still works.
  CHECK(cudaMemset(x, 0, 4 * sizeof(float)));
  int i = -1;
  REQUIRE(cublasIsamax(h, 4, x, 1, &i) == CUBLAS_STATUS_SUCCESS && i == 1, "Isamax after: %d", i);
  REQUIRE(cublasDestroy(h) == CUBLAS_STATUS_SUCCESS, "destroy");
  std::printf("PASS cublas_unsupported\n");
  return 0;
}
