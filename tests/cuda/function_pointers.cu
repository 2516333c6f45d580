// Indirect calls through device function pointers (PTX `call` through a
// register with a `.callprototype`): first with the same target for a whole
// warp, then with targets that differ between lanes of one warp (divergent
// indirect call). Integers, compared exactly with the same table on the CPU.
#include "check.cuh"
#include <vector>

__host__ __device__ __noinline__ int op_add(int a, int b) { return a + b; }
__host__ __device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__host__ __device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__host__ __device__ __noinline__ int op_max3(int a, int b) { return (a > b ? a : b) * 3; }

typedef int (*binop)(int, int);
__device__ binop d_ops[4] = {op_add, op_mul, op_sub, op_max3};

// sel(i) picks the table entry: per warp (uniform) or per lane (divergent).
__host__ __device__ int sel(int i, bool per_lane) { return per_lane ? (i * 7 + i / 5) % 4 : (i / 32) % 4; }

__global__ void apply(const int* a, const int* b, int* out, int n, bool per_lane) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  binop f = d_ops[sel(i, per_lane)];
  out[i] = f(a[i], b[i]);
}

int main() {
  const int n = 4096 + 17;
  std::vector<int> a(n), b(n), out(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i % 201 - 100;
    b[i] = (i * 13) % 97 - 40;
  }
  int *da, *db, *dout;
  CHECK(cudaMalloc(&da, n * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  binop ops[4] = {op_add, op_mul, op_sub, op_max3};
  for (int per_lane = 0; per_lane < 2; ++per_lane) {
    CHECK(cudaMemset(dout, 0, n * sizeof(int)));
    apply<<<(n + 127) / 128, 128>>>(da, db, dout, n, per_lane != 0);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) want[i] = ops[sel(i, per_lane != 0)](a[i], b[i]);
    if (count_mismatches(per_lane ? "divergent indirect calls" : "warp-uniform indirect calls", out.data(),
                         want.data(), n))
      return 1;
  }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dout));
  std::printf("PASS function_pointers\n");
  return 0;
}
