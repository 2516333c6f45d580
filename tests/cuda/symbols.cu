// __constant__ and __device__ variables accessed through cudaMemcpyToSymbol,
// cudaMemcpyFromSymbol (with offsets), cudaGetSymbolAddress and
// cudaGetSymbolSize, including statically initialized ones; the kernel's
// constSizeBytes.
#include "check.cuh"

__constant__ float c_coef[8];
__constant__ int c_bias = 1000;             // initialized in the module image
__device__ int d_counter;
__device__ int d_init[4] = {3, 1, 4, 1};    // initialized in the module image
__device__ float d_table[256];

__global__ void use_symbols(float* out) {
  int i = threadIdx.x;  // one block of 256
  float x = d_table[i];
  float acc = 0.0f;
  for (int k = 7; k >= 0; --k) acc = acc * x + c_coef[k];  // Horner; x and coefs are small integers: exact
  out[i] = acc + (float)c_bias + (float)d_init[i & 3];
  atomicAdd(&d_counter, 1);
  __syncthreads();  // every thread has read d_init before it is overwritten
  if (i == 0) d_init[0] = 99;
}

int main() {
  // Static initializers are visible before any copy.
  int init[4];
  CHECK(cudaMemcpyFromSymbol(init, d_init, sizeof(init)));
  REQUIRE(init[0] == 3 && init[1] == 1 && init[2] == 4 && init[3] == 1, "d_init = {%d,%d,%d,%d}", init[0],
          init[1], init[2], init[3]);
  int bias = 0;
  CHECK(cudaMemcpyFromSymbol(&bias, c_bias, sizeof(int)));
  REQUIRE(bias == 1000, "c_bias initial value %d", bias);

  size_t sz = 0;
  CHECK(cudaGetSymbolSize(&sz, d_table));
  REQUIRE(sz == 256 * sizeof(float), "cudaGetSymbolSize(d_table) = %zu", sz);
  CHECK(cudaGetSymbolSize(&sz, c_coef));
  REQUIRE(sz == 8 * sizeof(float), "cudaGetSymbolSize(c_coef) = %zu", sz);

  float coef[8] = {1, 0, 2, 0, 0, 0, 0, 0};
  CHECK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
  float c3 = -1.0f;  // overwrite coefficient 3 alone through an offset
  CHECK(cudaMemcpyToSymbol(c_coef, &c3, sizeof(float), 3 * sizeof(float)));
  coef[3] = c3;
  int zero = 0, newbias = 5;
  CHECK(cudaMemcpyToSymbol(d_counter, &zero, sizeof(int)));
  CHECK(cudaMemcpyToSymbol(c_bias, &newbias, sizeof(int), 0, cudaMemcpyHostToDevice));

  // Fill d_table through its device address.
  float table[256];
  for (int i = 0; i < 256; ++i) table[i] = (float)((i % 9) - 4);
  void* dtab = nullptr;
  CHECK(cudaGetSymbolAddress(&dtab, d_table));
  REQUIRE(dtab != nullptr, "cudaGetSymbolAddress returned null");
  CHECK(cudaMemcpy(dtab, table, sizeof(table), cudaMemcpyHostToDevice));

  float* dout;
  CHECK(cudaMalloc(&dout, 256 * sizeof(float)));
  use_symbols<<<1, 256>>>(dout);
  CHECK_LAUNCH();
  float out[256], want[256];
  CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i) {
    float x = table[i], acc = 0.0f;
    for (int k = 7; k >= 0; --k) acc = acc * x + coef[k];
    want[i] = acc + (float)newbias + (float)init[i & 3];
  }
  if (count_mismatches("out", out, want, 256)) return 1;

  int counter = -1;
  CHECK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof(int)));
  REQUIRE(counter == 256, "d_counter = %d, expected 256", counter);
  int second = -1;  // read d_init[2] back through an offset
  CHECK(cudaMemcpyFromSymbol(&second, d_init, sizeof(int), 2 * sizeof(int)));
  REQUIRE(second == 4, "d_init[2] = %d, expected 4", second);
  CHECK(cudaMemcpyFromSymbol(&second, d_init, sizeof(int), 0, cudaMemcpyDeviceToHost));
  REQUIRE(second == 99, "d_init[0] = %d after the kernel, expected 99", second);
  // Reading the table back through the symbol must see what cudaMemcpy wrote.
  float back[256];
  CHECK(cudaMemcpyFromSymbol(back, d_table, sizeof(back)));
  if (count_mismatches("d_table", back, table, 256)) return 1;

  // The kernel's user constant bank holds at least the module's two
  // __constant__ variables (ptxas may pad it).
  cudaFuncAttributes attr;
  CHECK(cudaFuncGetAttributes(&attr, use_symbols));
  REQUIRE(attr.constSizeBytes >= sizeof(c_coef) + sizeof(c_bias), "constSizeBytes = %zu, expected at least %zu",
          attr.constSizeBytes, sizeof(c_coef) + sizeof(c_bias));

  CHECK(cudaFree(dout));
  std::printf("PASS symbols\n");
  return 0;
}
