// A two-layer MLP trained on the GPU through cuBLAS, and the same training on
// the CPU in double with plain loops; the losses must agree step by step and
// fall.
//
// Model: 64 inputs -> 128 hidden (ReLU) -> 10 classes (softmax, cross
// entropy), batch 32, full-batch SGD with learning rate 0.5 for 10 steps.
// Data (deterministic): x uniform in [-1, 1), labels argmax(T x) of a fixed
// random 10 x 64 "teacher" T, so the task is learnable. Matrices are
// column-major with one column per sample, as cuBLAS stores them.
//
// GPU: forward and backward are cublasSgemm (W1 X, W2 A1, dZ2 A1^T,
// W2^T dZ2, dZ1 X^T), bias gradients cublasSgemv against a vector of ones,
// the loss cublasSasum of the per-sample losses, the update cublasSgeam
// (W = W - lr dW, in place) and cublasSaxpy (biases); bias + ReLU, softmax +
// loss + its gradient and the ReLU mask are kernels of this file.
//
// Runs twice. Default math (SIMT f32): every step's loss within 1e-5
// relative of the CPU's and the final weights within 1e-6 absolute (f32
// rounding against double over 10 steps; measured: 1.2e-7 and 3.9e-8).
// CUBLAS_TF32_TENSOR_OP_MATH (every Sgemm on the tensor cores, inputs
// rounded to tf32, 2^-11 relative each): loss within 1e-3 relative, weights
// within 5e-3 (measured: 5e-5 and 1.1e-3), and the weights must differ from
// the CPU's by more than 1e-5, which exact f32 math never does (tf32 used).
#include <cublas_v2.h>

#include <cmath>
#include <vector>

#include "common.cuh"

constexpr int kIn = 64, kHid = 128, kOut = 10, kBatch = 32, kSteps = 10;
constexpr float kLr = 0.5f;

__global__ void bias_relu(float* z, const float* bias, float* a, int rows, int cols) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= rows * cols) return;
  const float v = z[e] + bias[e % rows];
  z[e] = v;  // kept (with the bias) for the ReLU mask of the backward pass
  a[e] = v > 0.f ? v : 0.f;
}

// One thread per sample: logits z (+ bias), softmax p, loss -log p[label],
// and dz = (p - onehot) / batch, the gradient of the mean loss.
__global__ void softmax_xent(const float* z, const float* bias, const int* label, float* dz, float* loss, int classes,
                             int batch) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= batch) return;
  const float* zj = z + j * classes;
  float mx = -INFINITY;
  for (int i = 0; i < classes; ++i) mx = fmaxf(mx, zj[i] + bias[i]);
  float sum = 0.f;
  for (int i = 0; i < classes; ++i) sum += expf(zj[i] + bias[i] - mx);
  loss[j] = logf(sum) - (zj[label[j]] + bias[label[j]] - mx);
  for (int i = 0; i < classes; ++i) {
    const float p = expf(zj[i] + bias[i] - mx) / sum;
    dz[i + j * classes] = (p - (i == label[j] ? 1.f : 0.f)) / batch;
  }
}

__global__ void relu_backward(const float* da, const float* z, float* dz, int n) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e < n) dz[e] = z[e] > 0.f ? da[e] : 0.f;
}

struct Params {
  std::vector<float> w1, b1, w2, b2;
};

// The CPU reference in double: the same model and updates, plain loops.
struct Cpu {
  std::vector<double> w1, b1, w2, b2;
  double step(const std::vector<float>& x, const std::vector<int>& y) {
    std::vector<double> z1(kHid * kBatch), a1(kHid * kBatch), z2(kOut * kBatch), dz2(kOut * kBatch);
    for (int j = 0; j < kBatch; ++j)
      for (int i = 0; i < kHid; ++i) {
        double s = b1[i];
        for (int p = 0; p < kIn; ++p) s += w1[i + p * kHid] * x[p + j * kIn];
        z1[i + j * kHid] = s;
        a1[i + j * kHid] = s > 0 ? s : 0;
      }
    double loss = 0;
    for (int j = 0; j < kBatch; ++j) {
      double mx = -INFINITY, sum = 0;
      for (int i = 0; i < kOut; ++i) {
        double s = b2[i];
        for (int p = 0; p < kHid; ++p) s += w2[i + p * kOut] * a1[p + j * kHid];
        z2[i + j * kOut] = s;
        mx = std::fmax(mx, s);
      }
      for (int i = 0; i < kOut; ++i) sum += std::exp(z2[i + j * kOut] - mx);
      loss += std::log(sum) - (z2[y[j] + j * kOut] - mx);
      for (int i = 0; i < kOut; ++i)
        dz2[i + j * kOut] = (std::exp(z2[i + j * kOut] - mx) / sum - (i == y[j])) / kBatch;
    }
    std::vector<double> dz1(kHid * kBatch);
    for (int j = 0; j < kBatch; ++j)
      for (int p = 0; p < kHid; ++p) {
        double s = 0;
        for (int i = 0; i < kOut; ++i) s += w2[i + p * kOut] * dz2[i + j * kOut];
        dz1[p + j * kHid] = z1[p + j * kHid] > 0 ? s : 0;
      }
    for (int i = 0; i < kOut; ++i) {  // W2, b2 (after dZ1 used the old W2)
      double db = 0;
      for (int j = 0; j < kBatch; ++j) db += dz2[i + j * kOut];
      for (int p = 0; p < kHid; ++p) {
        double g = 0;
        for (int j = 0; j < kBatch; ++j) g += dz2[i + j * kOut] * a1[p + j * kHid];
        w2[i + p * kOut] -= kLr * g;
      }
      b2[i] -= kLr * db;
    }
    for (int i = 0; i < kHid; ++i) {
      double db = 0;
      for (int j = 0; j < kBatch; ++j) db += dz1[i + j * kHid];
      for (int p = 0; p < kIn; ++p) {
        double g = 0;
        for (int j = 0; j < kBatch; ++j) g += dz1[i + j * kHid] * x[p + j * kIn];
        w1[i + p * kHid] -= kLr * g;
      }
      b1[i] -= kLr * db;
    }
    return loss / kBatch;
  }
};

struct Gpu {
  float *x, *w1, *b1, *w2, *b2, *z1, *a1, *z2, *dz2, *da1, *dz1, *dw1, *dw2, *db1, *db2, *loss, *ones;
  int* y;
};

static int alloc(float** p, size_t n) {
  CHECK(cudaMalloc(p, n * sizeof(float)));
  return 0;
}

static int gpu_step(cublasHandle_t h, Gpu& g, double& loss_out) {
  const float one = 1, zero = 0, neg_lr = -kLr;
  // Forward.
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kHid, kBatch, kIn, &one, g.w1, kHid, g.x, kIn, &zero, g.z1,
                         kHid));
  bias_relu<<<(kHid * kBatch + 255) / 256, 256>>>(g.z1, g.b1, g.a1, kHid, kBatch);
  CHECK(cudaGetLastError());
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, kOut, kBatch, kHid, &one, g.w2, kOut, g.a1, kHid, &zero, g.z2,
                         kOut));
  softmax_xent<<<1, kBatch>>>(g.z2, g.b2, g.y, g.dz2, g.loss, kOut, kBatch);
  CHECK(cudaGetLastError());
  float loss_sum = 0;
  CHECK_BLAS(cublasSasum(h, kBatch, g.loss, 1, &loss_sum));  // the losses are positive
  loss_out = loss_sum / kBatch;
  // Backward: dA1 = W2^T dZ2 (before W2 changes), dW2 = dZ2 A1^T, db2 = dZ2 1.
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, kHid, kBatch, kOut, &one, g.w2, kOut, g.dz2, kOut, &zero, g.da1,
                         kHid));
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, kOut, kHid, kBatch, &one, g.dz2, kOut, g.a1, kHid, &zero, g.dw2,
                         kOut));
  CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, kOut, kBatch, &one, g.dz2, kOut, g.ones, 1, &zero, g.db2, 1));
  relu_backward<<<(kHid * kBatch + 255) / 256, 256>>>(g.da1, g.z1, g.dz1, kHid * kBatch);
  CHECK(cudaGetLastError());
  CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, kHid, kIn, kBatch, &one, g.dz1, kHid, g.x, kIn, &zero, g.dw1,
                         kHid));
  CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, kHid, kBatch, &one, g.dz1, kHid, g.ones, 1, &zero, g.db1, 1));
  // SGD.
  CHECK_BLAS(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, kHid, kIn, &one, g.w1, kHid, &neg_lr, g.dw1, kHid, g.w1, kHid));
  CHECK_BLAS(cublasSgeam(h, CUBLAS_OP_N, CUBLAS_OP_N, kOut, kHid, &one, g.w2, kOut, &neg_lr, g.dw2, kOut, g.w2, kOut));
  CHECK_BLAS(cublasSaxpy(h, kHid, &neg_lr, g.db1, 1, g.b1, 1));
  CHECK_BLAS(cublasSaxpy(h, kOut, &neg_lr, g.db2, 1, g.b2, 1));
  return 0;
}

// Trains from `init` on the GPU and the CPU side by side.
static int train(cublasHandle_t h, cublasMath_t math, const char* label, double loss_tol, double weight_tol,
                 double weight_min_diff, const Params& init, const std::vector<float>& x, const std::vector<int>& y) {
  Gpu g;
  if (alloc(&g.x, x.size()) || alloc(&g.w1, init.w1.size()) || alloc(&g.b1, kHid) || alloc(&g.w2, init.w2.size()) ||
      alloc(&g.b2, kOut) || alloc(&g.z1, kHid * kBatch) || alloc(&g.a1, kHid * kBatch) ||
      alloc(&g.z2, kOut * kBatch) || alloc(&g.dz2, kOut * kBatch) || alloc(&g.da1, kHid * kBatch) ||
      alloc(&g.dz1, kHid * kBatch) || alloc(&g.dw1, kHid * kIn) || alloc(&g.dw2, kOut * kHid) ||
      alloc(&g.db1, kHid) || alloc(&g.db2, kOut) || alloc(&g.loss, kBatch) || alloc(&g.ones, kBatch))
    return 1;
  CHECK(cudaMalloc(&g.y, kBatch * sizeof(int)));
  const std::vector<float> ones(kBatch, 1.f);
  CHECK(cudaMemcpy(g.x, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.w1, init.w1.data(), init.w1.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.b1, init.b1.data(), kHid * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.w2, init.w2.data(), init.w2.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.b2, init.b2.data(), kOut * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.ones, ones.data(), kBatch * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(g.y, y.data(), kBatch * sizeof(int), cudaMemcpyHostToDevice));
  Cpu cpu{{init.w1.begin(), init.w1.end()}, {init.b1.begin(), init.b1.end()}, {init.w2.begin(), init.w2.end()},
          {init.b2.begin(), init.b2.end()}};
  CHECK_BLAS(cublasSetMathMode(h, math));
  double prev = INFINITY, first = 0, last = 0;
  for (int s = 0; s < kSteps; ++s) {
    double loss = 0;
    if (gpu_step(h, g, loss)) return 1;
    const double ref = cpu.step(x, y);
    std::printf("%s step %d: loss %.7f (cpu %.7f, diff %.2e)\n", label, s, loss, ref, std::fabs(loss - ref));
    REQUIRE(std::fabs(loss - ref) <= loss_tol * ref, "%s step %d: loss %.9g, cpu %.9g", label, s, loss, ref);
    REQUIRE(loss < prev, "%s step %d: loss %.9g did not fall (previous %.9g)", label, s, loss, prev);
    if (s == 0) first = loss;
    last = loss;
    prev = loss;
  }
  REQUIRE(last < 0.8 * first, "%s: loss only went from %.6g to %.6g", label, first, last);
  CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  std::vector<float> w1(init.w1.size()), w2(init.w2.size());
  CHECK(cudaMemcpy(w1.data(), g.w1, w1.size() * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(w2.data(), g.w2, w2.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (size_t i = 0; i < w1.size(); ++i) worst = std::fmax(worst, std::fabs(w1[i] - cpu.w1[i]));
  for (size_t i = 0; i < w2.size(); ++i) worst = std::fmax(worst, std::fabs(w2[i] - cpu.w2[i]));
  std::printf("%s: final weights differ from the cpu's by at most %.2e\n", label, worst);
  REQUIRE(worst <= weight_tol, "%s: weights differ by %.3g", label, worst);
  REQUIRE(worst >= weight_min_diff, "%s: weights differ by only %.3g, not the rounding of %s", label, worst, label);
  for (float* p : {g.x, g.w1, g.b1, g.w2, g.b2, g.z1, g.a1, g.z2, g.dz2, g.da1, g.dz1, g.dw1, g.dw2, g.db1, g.db2,
                   g.loss, g.ones})
    CHECK(cudaFree(p));
  CHECK(cudaFree(g.y));
  return 0;
}

int main() {
  std::vector<float> x(kIn * kBatch), teacher(kOut * kIn);
  for (auto& v : x) v = (float)urand();
  for (auto& v : teacher) v = (float)urand();
  std::vector<int> y(kBatch);
  for (int j = 0; j < kBatch; ++j) {
    double best = -INFINITY;
    for (int i = 0; i < kOut; ++i) {
      double s = 0;
      for (int p = 0; p < kIn; ++p) s += teacher[i + p * kOut] * x[p + j * kIn];
      if (s > best) best = s, y[j] = i;
    }
  }
  Params init{std::vector<float>(kHid * kIn), std::vector<float>(kHid), std::vector<float>(kOut * kHid),
              std::vector<float>(kOut)};
  for (auto& v : init.w1) v = (float)(urand() / std::sqrt((double)kIn));
  for (auto& v : init.b1) v = (float)(0.1 * urand());
  for (auto& v : init.w2) v = (float)(urand() / std::sqrt((double)kHid));
  for (auto& v : init.b2) v = (float)(0.1 * urand());
  cublasHandle_t h;
  CHECK_BLAS(cublasCreate(&h));
  if (train(h, CUBLAS_DEFAULT_MATH, "f32", 1e-5, 1e-6, 0, init, x, y)) return 1;
  if (train(h, CUBLAS_TF32_TENSOR_OP_MATH, "tf32", 1e-3, 5e-3, 1e-5, init, x, y)) return 1;
  CHECK_BLAS(cublasDestroy(h));
  std::printf("PASS mlp_train\n");
  return 0;
}
