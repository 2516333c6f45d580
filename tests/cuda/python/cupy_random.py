"""cupy.random under softgpu: the legacy RandomState draws through the cuRAND
host API (curandCreateGenerator, curandSetPseudoRandomGeneratorSeed,
curandGenerate, curandGenerateUniformDouble, curandGenerateNormal...), which
`softgpu run` gives as softgpu's libcurand.so.10. The samples are checked
against their laws and against NumPy samples of the same size (moments and a
two-sample Kolmogorov-Smirnov distance), not value by value: softgpu's
output order is its own."""

import cupy as cp
import numpy as np

from checks import check, finish

np_rng = np.random.default_rng(3)
N = 200_000


def ks2(a, b):
    """Two-sample KS distance, scaled by sqrt(n m / (n + m))."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    d = np.abs(np.searchsorted(a, grid, side="right") / a.size - np.searchsorted(b, grid, side="right") / b.size).max()
    return d * np.sqrt(a.size * b.size / (a.size + b.size))


def same_law(name, got, want, mean, sd):
    """got (CuPy) and want (NumPy) samples of a law with this mean and sd."""
    n = got.size
    check(f"{name} mean", abs(got.mean() - mean) < 6 * sd / np.sqrt(n), True)
    check(f"{name} sd", abs(got.std() / sd - 1) < 0.01, True)
    check(f"{name} vs NumPy (KS)", ks2(got, want) < 2.5, True)


cp.random.seed(5)
a = cp.random.random(1000).get()
cp.random.seed(5)
b = cp.random.random(1000).get()
cp.random.seed(6)
c = cp.random.random(1000).get()
check("same seed repeats", a, b)
check("another seed differs", int((a == c).sum()) < 3, True)

cp.random.seed(1)
same_law("random", cp.random.random(N).get(), np_rng.random(N), 0.5, np.sqrt(1 / 12))
same_law("random float32", cp.random.random(N, dtype=cp.float32).get(), np_rng.random(N), 0.5, np.sqrt(1 / 12))
same_law("standard_normal", cp.random.standard_normal(N + 1).get(), np_rng.standard_normal(N + 1), 0.0, 1.0)
same_law("normal float32", cp.random.normal(3.0, 2.0, N, dtype=cp.float32).get(), np_rng.normal(3.0, 2.0, N), 3.0, 2.0)
k = cp.random.randint(0, 10, size=N).get()
counts = np.bincount(k, minlength=10)
check("randint range", (int(k.min()), int(k.max())), (0, 9))
check("randint chi-square (9 dof)", float(((counts - N / 10) ** 2 / (N / 10)).sum()) < 40, True)
finish()
