#!/usr/bin/env bash
# Runs modules of CuPy's own test suite (from the PyPI sdist of the CuPy the
# Python tests pin) under softgpu, one pytest process per module, and prints
# each module's pytest summary line; docs/status.md records a run.
#   scripts/cupy-suite.sh [MODULE ...]   (default: the sample below)
# Needs the build (build/src/tools/softgpu) and the Python tests' environment
# (build/_deps/pyenv, made by scripts/setup.sh), plus pytest-timeout, which it
# installs there. Logs go to build/cupy-suite/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=$root/build/_deps/pyenv/bin/python
softgpu=$root/build/src/tools/softgpu
out=$root/build/cupy-suite
version=$($py -c "import cupy; print(cupy.__version__)")
mkdir -p "$out"
"$py" -m pip install -q pytest pytest-timeout
src=$out/cupy-$version
if [ ! -d "$src/tests" ]; then
  url=$("$py" - "$version" <<'PY'
import re, sys, urllib.request
v = sys.argv[1]
page = urllib.request.urlopen("https://pypi.org/simple/cupy/").read().decode()
m = re.search(r'href="([^"#]*/cupy-%s\.tar\.gz)[#"]' % re.escape(v), page)
print(m.group(1) if m else "")
PY
)
  [ -n "$url" ] || { echo "cupy-suite.sh: no sdist of cupy $version on PyPI"; exit 1; }
  curl -sSfL "$url" | tar xz -C "$out"
fi
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
  modules=(core_tests/test_elementwise.py core_tests/test_userkernel.py core_tests/test_reduction.py
    core_tests/test_raw.py core_tests/test_ndarray_reduction.py creation_tests/test_basic.py
    creation_tests/test_ranges.py creation_tests/test_from_data.py manipulation_tests/test_shape.py
    manipulation_tests/test_transpose.py manipulation_tests/test_join.py logic_tests/test_comparison.py
    sorting_tests/test_sort.py sorting_tests/test_search.py statistics_tests/test_meanvar.py
    statistics_tests/test_order.py indexing_tests/test_indexing.py linalg_tests/test_product.py
    math_tests/test_explog.py math_tests/test_trigonometric.py math_tests/test_rounding.py
    random_tests/test_random.py)
fi
# Tests that need more host memory than a 24 GiB machine has (docs/status.md).
deselect="not jitify and not int32_overflow and not over_size_array"
cd "$src/tests"
for m in "${modules[@]}"; do
  log=$out/$(echo "$m" | tr / _).log
  CUPY_TEST_GPU_LIMIT=1 timeout 1500 "$softgpu" run -- "$py" -m pytest -v -rfE --no-header -p no:cacheprovider \
    --timeout=300 -k "$deselect" "cupy_tests/$m" >"$log" 2>&1 || true
  echo "$m: $(tail -n 1 "$log")"
done
