"""Numba-CUDA kernels under softgpu, each checked against NumPy on the host."""
import math

import numpy as np
from numba import cuda, float32, int32

from checks import check, finish


rng = np.random.default_rng(7)

# one thread per element, a device function
@cuda.jit(device=True)
def axpy1(a, x, y):
    return a * x + y


@cuda.jit
def saxpy(a, x, y, out):
    i = cuda.grid(1)
    if i < out.size:
        out[i] = axpy1(a, x[i], y[i])


n = 10_000
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
out = cuda.device_array_like(x)
saxpy[(n + 255) // 256, 256](np.float32(2.5), cuda.to_device(x), cuda.to_device(y), out)
check("saxpy", out.copy_to_host(), np.float32(2.5) * x + y, 1e-6)

# shared memory and syncthreads: a block sum, then an atomic across blocks
TPB = 128


@cuda.jit
def block_sum(a, partial, total):
    s = cuda.shared.array(TPB, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    s[t] = a[i] if i < a.size else 0.0
    cuda.syncthreads()
    step = TPB // 2
    while step > 0:
        if t < step:
            s[t] += s[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = s[0]
        cuda.atomic.add(total, 0, s[0])


blocks = (n + TPB - 1) // TPB
partial = cuda.device_array(blocks, np.float32)
total = cuda.to_device(np.zeros(1, np.float32))
block_sum[blocks, TPB](cuda.to_device(x), partial, total)
want_partial = np.array([x[b * TPB:(b + 1) * TPB].astype(np.float64).sum() for b in range(blocks)])
check("block_sum partials", partial.copy_to_host(), want_partial, 1e-4)
check("block_sum atomic total", total.copy_to_host()[0], x.astype(np.float64).sum(), 1e-3)

# integer atomics: a histogram
@cuda.jit
def histogram(v, bins):
    i = cuda.grid(1)
    if i < v.size:
        cuda.atomic.add(bins, v[i] % bins.size, 1)


v = rng.integers(0, 1 << 20, size=50_000).astype(np.int32)
bins = cuda.to_device(np.zeros(37, np.int32))
histogram[(v.size + 255) // 256, 256](cuda.to_device(v), bins)
check("histogram (atomic.add int32)", bins.copy_to_host(), np.bincount(v % 37, minlength=37).astype(np.int32))

# 2-D grid, math functions from libdevice
@cuda.jit
def wave(out):
    r, c = cuda.grid(2)
    if r < out.shape[0] and c < out.shape[1]:
        out[r, c] = math.sin(0.01 * r) * math.exp(-0.001 * c) + math.sqrt(float(r + c))


img = cuda.device_array((100, 70), np.float64)
wave[(7, 5), (16, 16)](img)
rr, cc = np.meshgrid(np.arange(100), np.arange(70), indexing="ij")
check("2-D grid, sin/exp/sqrt (float64)", img.copy_to_host(), np.sin(0.01 * rr) * np.exp(-0.001 * cc) + np.sqrt(rr + cc), 1e-12)

# a tiled matrix product with two shared arrays
TILE = 16


@cuda.jit
def matmul(A, B, C):
    sA = cuda.shared.array((TILE, TILE), float32)
    sB = cuda.shared.array((TILE, TILE), float32)
    x_, y_ = cuda.grid(2)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    acc = float32(0.0)
    for t in range((A.shape[1] + TILE - 1) // TILE):
        sA[ty, tx] = A[y_, t * TILE + tx] if y_ < A.shape[0] and t * TILE + tx < A.shape[1] else 0
        sB[ty, tx] = B[t * TILE + ty, x_] if x_ < B.shape[1] and t * TILE + ty < B.shape[0] else 0
        cuda.syncthreads()
        for k in range(TILE):
            acc += sA[ty, k] * sB[k, tx]
        cuda.syncthreads()
    if y_ < C.shape[0] and x_ < C.shape[1]:
        C[y_, x_] = acc


A = rng.standard_normal((45, 70)).astype(np.float32)
B = rng.standard_normal((70, 33)).astype(np.float32)
C = cuda.device_array((45, 33), np.float32)
matmul[(3, 3), (TILE, TILE)](cuda.to_device(A), cuda.to_device(B), C)
check("tiled matmul (shared 2-D arrays)", C.copy_to_host(), A.astype(np.float64) @ B, 1e-4)

# local arrays, warp votes and shuffles
@cuda.jit
def warp_ops(v, ballots, sums):
    i = cuda.grid(1)
    lane = cuda.laneid
    loc = cuda.local.array(4, int32)
    for k in range(4):
        loc[k] = v[i] + k
    x_ = loc[0] + loc[3]
    b = cuda.ballot_sync(0xFFFFFFFF, x_ % 2 == 0)
    off = 16
    while off > 0:
        x_ += cuda.shfl_down_sync(0xFFFFFFFF, x_, off)
        off //= 2
    if lane == 0:
        ballots[i // 32] = b
        sums[i // 32] = x_


w = rng.integers(-1000, 1000, size=256).astype(np.int32)
ballots = cuda.device_array(8, np.uint32)
sums = cuda.device_array(8, np.int32)
warp_ops[2, 128](cuda.to_device(w), ballots, sums)
vals = (2 * w + 3).reshape(8, 32)
want_ballot = np.array([sum(1 << l for l in range(32) if vals[k, l] % 2 == 0) for k in range(8)], np.uint32)
check("ballot_sync", ballots.copy_to_host(), want_ballot)
check("shfl_down_sync warp sum", sums.copy_to_host(), vals.sum(axis=1).astype(np.int32))

# a ufunc compiled for the GPU, and a stream
from numba import vectorize


@vectorize(["float32(float32, float32)"], target="cuda")
def hypot_gpu(a, b):
    return math.sqrt(a * a + b * b)


check("@vectorize(target='cuda')", hypot_gpu(x, y), np.hypot(x, y), 1e-6)
stream = cuda.stream()
dx = cuda.to_device(x, stream=stream)
dout = cuda.device_array_like(x, stream=stream)
saxpy[(n + 255) // 256, 256, stream](np.float32(-1.0), dx, dx, dout)
host = dout.copy_to_host(stream=stream)
stream.synchronize()
check("launch and copies on a stream", host, np.zeros_like(x))

# dynamic shared memory (an extern .shared array, sized at launch)
@cuda.jit
def reverse_block(a):
    s = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    base = cuda.blockIdx.x * cuda.blockDim.x
    s[t] = a[base + t]
    cuda.syncthreads()
    a[base + t] = s[cuda.blockDim.x - 1 - t]


r = np.arange(4 * 96, dtype=np.float32)
dr = cuda.to_device(r)
reverse_block[4, 96, 0, 96 * 4](dr)
check("dynamic shared memory", dr.copy_to_host(), r.reshape(4, 96)[:, ::-1].reshape(-1))

# grid synchronization (cooperative groups: a cooperative launch, and
# libcudadevrt's cudaCGSynchronize, which softgpu's linker provides)
@cuda.jit
def rotate_twice(a, out):
    g = cuda.cg.this_grid()
    i = cuda.grid(1)
    a[i] = i
    g.sync()
    out[i] = a[(i + 1) % a.size] + a[(i + 777) % a.size]
    g.sync()
    a[i] = 0
    g.sync()
    out[i] += a[(i + 5) % a.size]


ng = 16 * 64
ga = cuda.device_array(ng, np.int32)
gout = cuda.device_array(ng, np.int32)
rotate_twice[16, 64](ga, gout)
gi = np.arange(ng)
check("grid sync (this_grid().sync())", gout.copy_to_host(), ((gi + 1) % ng + (gi + 777) % ng).astype(np.int32))

# the device is softgpu's
dev = cuda.get_current_device()
print("device:", dev.name.decode() if isinstance(dev.name, bytes) else dev.name, dev.compute_capability)

finish()
