"""CuPy under softgpu, each result checked against NumPy on the host.

CuPy's runtime module has NVIDIA's static CUDA runtime linked in, which
starts through softgpu's libcuda.so.1; CuPy compiles its elementwise and
reduction kernels with NVRTC to PTX (`softgpu run` sets
CUPY_COMPILE_WITH_PTX=1); its prebuilt CUB kernels carry PTX for the newest
GPU only, which softgpu runs in place of their machine code.
"""

import cupy as cp
import numpy as np

from checks import check, finish


props = cp.cuda.runtime.getDeviceProperties(0)
print(f"device: {props['name'].decode()} sm_{props['major']}{props['minor']}")
rng = np.random.default_rng(11)

# arrays, arithmetic and ufuncs (NVRTC-compiled elementwise kernels)
x = rng.standard_normal(10_000).astype(np.float32)
y = rng.standard_normal(10_000).astype(np.float32)
dx, dy = cp.asarray(x), cp.asarray(y)
check("arange", cp.arange(1000, dtype=cp.int32).get(), np.arange(1000, dtype=np.int32))
check("axpy", (2.5 * dx + dy).get(), np.float32(2.5) * x + y, 1e-6)
check("ufuncs", cp.sqrt(cp.abs(dx)).get() + cp.exp(-dy * dy).get(), np.sqrt(np.abs(x)) + np.exp(-y * y), 1e-5)
check("where", cp.where(dx > 0, dx, 0).get(), np.where(x > 0, x, 0))

# reductions
check("sum", float(dx.sum()), float(x.astype(np.float64).sum()), 1e-3)
check("max/argmin", (float(dx.max()), int(dy.argmin())), (float(x.max()), int(y.argmin())))
m = rng.standard_normal((64, 100)).astype(np.float64)
check("mean axis 1", cp.asarray(m).mean(axis=1).get(), m.mean(axis=1), 1e-12)

# user kernels: ElementwiseKernel, ReductionKernel, RawKernel, RawModule
squared_diff = cp.ElementwiseKernel("float32 a, float32 b", "float32 out", "out = (a - b) * (a - b)", "squared_diff")
check("ElementwiseKernel", squared_diff(dx, dy).get(), (x - y) * (x - y), 1e-6)
l2 = cp.ReductionKernel("float64 v", "float64 y", "v * v", "a + b", "y = sqrt(a)", "0", "l2norm")
check("ReductionKernel", float(l2(cp.asarray(m))), float(np.sqrt((m * m).sum())), 1e-12)
raw = cp.RawKernel(r'''
extern "C" __global__ void scale(const float* x, float* out, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i];
}''', "scale")
out = cp.empty_like(dx)
raw(((x.size + 127) // 128,), (128,), (dx, out, cp.float32(-3.0), cp.int32(x.size)))
check("RawKernel", out.get(), np.float32(-3.0) * x)
mod = cp.RawModule(code=r'''
template <typename T> __global__ void shift(T* v, T by, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += by;
}''', name_expressions=["shift<int>", "shift<double>"])
vi = cp.arange(300, dtype=cp.int32)
mod.get_function("shift<int>")((3,), (128,), (vi, cp.int32(7), cp.int32(300)))
check("RawModule template", vi.get(), np.arange(300, dtype=np.int32) + 7)

# CUB (CuPy's prebuilt kernels): sort and prefix sum
k = rng.integers(-1000, 1000, 5000).astype(np.int32)
check("sort", cp.sort(cp.asarray(k)).get(), np.sort(k))
check("cumsum", cp.cumsum(cp.asarray(k)).get(), np.cumsum(k))

# matmul through cuBLAS (softgpu's libcublas.so.13)
a = rng.standard_normal((96, 80)).astype(np.float32)
b = rng.standard_normal((80, 72)).astype(np.float32)
check("matmul", (cp.asarray(a) @ cp.asarray(b)).get(), a @ b, 1e-4)

finish()
