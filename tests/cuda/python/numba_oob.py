"""A Numba-CUDA kernel that writes one element past its array (no bounds guard): memcheck's finding."""
import numpy as np
from numba import cuda


@cuda.jit
def scale_unguarded(a):
    i = cuda.grid(1)
    a[i] = 2.0 * a[i]  # 101 threads, 100 elements: thread 100 reads and writes a[100]


a = cuda.to_device(np.ones(100, np.float32))
scale_unguarded[1, 101](a)
cuda.synchronize()
print("done")
