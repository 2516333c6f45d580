"""What the Python test programs share: each result checked against NumPy,
a PASS/FAIL line per check, and the summary line the tests look for."""
import sys

import numpy as np

failures = []


def check(name, got, want, tol=0.0):
    got, want = np.asarray(got), np.asarray(want)
    ok = got.shape == want.shape and (np.array_equal(got, want) if tol == 0 else np.allclose(got, want, rtol=tol, atol=tol))
    print(f"{'PASS' if ok else 'FAIL'} {name}")
    if not ok:
        print(f"  got {got.ravel()[:8]} want {want.ravel()[:8]}")
        failures.append(name)


def finish():
    print(f"{'FAILED' if failures else 'PASSED'}: {len(failures)} failures")
    sys.exit(1 if failures else 0)
