#!/usr/bin/env bash
# Checks the built libcudart.so.13 the way the dynamic loader sees it:
# soname, the libcudart.so.13 version node, and the entry points nvcc 13
# programs import, each exported at that version; with NVIDIA's library
# (REF), every cuda* function it exports is exported here too (implemented,
# or a generated stub returning cudaErrorNotSupported), so a program
# importing any of them loads. Usage: check_cudart_abi.sh LIB [REF]
set -euo pipefail
lib=$1
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libcudart.so.13" ]; then echo "FAIL: soname is '$soname'"; fail=1; fi
versions=$(readelf -V "$lib")
if ! grep -q "Name: libcudart.so.13" <<<"$versions"; then echo "FAIL: no libcudart.so.13 version definition"; fail=1; fi
exports=$(nm -D --defined-only "$lib")
for sym in __cudaRegisterFatBinary __cudaRegisterFatBinaryEnd __cudaUnregisterFatBinary __cudaRegisterFunction \
    __cudaRegisterVar __cudaRegisterManagedVar __cudaInitModule __cudaPushCallConfiguration \
    __cudaPopCallConfiguration __cudaGetKernel __cudaLaunchKernel __cudaLaunchKernel_ptsz cudaLaunchKernel \
    cudaMalloc cudaFree cudaMemcpy cudaMemcpyToSymbol cudaDeviceSynchronize cudaGetLastError cudaGetErrorString \
    cudaEventCreate cudaEventRecord cudaEventSynchronize cudaEventElapsedTime cudaEventDestroy \
    cudaGetDeviceProperties cudaDeviceGetAttribute cudaMallocManaged cudaHostAlloc cudaMemcpyAsync_ptsz \
    cudaMemset_ptds cudaStreamSynchronize_ptsz cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags \
    cudaFuncSetAttribute cudaGetErrorName cudaProfilerStart; do
  if ! grep -qE " T ${sym}@@libcudart.so.13\$" <<<"$exports"; then echo "FAIL: ${sym}@@libcudart.so.13 not exported"; fail=1; fi
done
# Nothing but the CUDA API, the private softgpu_cudart_ calls softgpu's
# libcuda.so.1 uses, and NVTX's injection entry point (cudart_nvtx.cpp)
# may leak out (our C++ internals stay local).
leaked=$(grep -vE " (__cuda|cuda|softgpu_cudart_)[A-Za-z0-9_]*@@libcudart.so.13\$| InitializeInjectionNvtxExtension@@libcudart.so.13\$| A libcudart.so.13\$" <<<"$exports" || true)
if [ -n "$leaked" ]; then echo "FAIL: unexpected exports:"; echo "$leaked" | head; fail=1; fi
# A CUDA entry point compiled with C++ linkage would be silently hidden.
mangled=$(nm "$lib" | grep -E " [tT] _Z[0-9]+_?_?cuda" || true)
if [ -n "$mangled" ]; then echo "FAIL: CUDA entry points with C++ linkage (not exported):"; echo "$mangled"; fail=1; fi
if [ -n "${2:-}" ] && [ -f "$2" ]; then
  missing=$(comm -23 <(nm -D --defined-only "$2" | awk '$2 == "T" && $3 ~ /^cuda/ {sub(/@.*/, "", $3); print $3}' | sort -u) \
                     <(nm -D --defined-only "$lib" | awk '$2 ~ /^[TW]$/ && $3 ~ /^cuda/ {sub(/@.*/, "", $3); print $3}' | sort -u))
  if [ -n "$missing" ]; then echo "FAIL: not exported (NVIDIA's libcudart has them):"; echo "$missing" | head -20; fail=1; fi
fi
n=$(grep -c "@@libcudart.so.13" <<<"$exports")
echo "libcudart.so.13: soname ok, $n versioned exports"
exit $fail
