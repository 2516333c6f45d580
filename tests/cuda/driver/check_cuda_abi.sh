#!/usr/bin/env bash
# Checks the built libcuda.so.1 the way the dynamic loader sees it: soname,
# every entry point the toolkit's link stub (lib64/stubs/libcuda.so) exports
# is defined (programs linked against the stub import from that list), the
# entry points softgpu implements are strong definitions (not the weak
# NOT_SUPPORTED stubs), and nothing but cu* leaks out.
# Usage: check_cuda_abi.sh LIB STUB
set -euo pipefail
lib=$1 stub=$2
fail=0
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" != "libcuda.so.1" ]; then echo "FAIL: soname is '$soname'"; fail=1; fi
exports=$(nm -D --defined-only "$lib")
wanted=$(nm -D --defined-only "$stub" | awk '$2 == "T" {print $3}')
missing=0
for sym in $wanted; do
  if ! grep -qE " [TW] ${sym}\$" <<<"$exports"; then echo "FAIL: ${sym} not exported"; missing=$((missing + 1)); fi
done
[ "$missing" = 0 ] || fail=1
for sym in cuInit cuDriverGetVersion cuDeviceGet cuDeviceGetAttribute cuDeviceTotalMem_v2 cuDeviceGetUuid_v2 \
    cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease_v2 cuCtxCreate_v4 cuCtxDestroy_v2 cuCtxGetCurrent \
    cuCtxSetCurrent cuCtxPushCurrent_v2 cuCtxPopCurrent_v2 cuModuleLoad cuModuleLoadData cuModuleLoadDataEx \
    cuModuleLoadFatBinary cuModuleGetFunction cuModuleGetGlobal_v2 cuLibraryLoadData cuLibraryGetKernel \
    cuKernelGetFunction cuLaunchKernel cuLaunchKernelEx cuLaunchKernel_ptsz cuMemAlloc_v2 cuMemFree_v2 \
    cuMemAllocHost_v2 cuMemHostRegister_v2 cuMemGetInfo_v2 cuMemGetAddressRange_v2 cuMemcpy cuMemcpyHtoD_v2 \
    cuMemcpyDtoH_v2 cuMemcpyDtoD_v2 cuMemcpyHtoDAsync_v2 cuMemsetD8_v2 cuMemsetD16_v2 cuMemsetD32_v2 \
    cuMemsetD32Async cuPointerGetAttribute cuPointerGetAttributes cuStreamCreate cuStreamDestroy_v2 \
    cuStreamSynchronize cuStreamWaitEvent cuEventCreate cuEventRecord cuEventElapsedTime_v2 cuEventDestroy_v2 \
    cuFuncGetAttribute cuFuncSetAttribute cuOccupancyMaxActiveBlocksPerMultiprocessor \
    cuOccupancyMaxPotentialBlockSize cuOccupancyMaxActiveClusters cuGetProcAddress_v2 cuGetErrorString \
    cuGetErrorName; do
  if ! grep -qE " T ${sym}\$" <<<"$exports"; then echo "FAIL: ${sym} is not implemented (weak stub or missing)"; fail=1; fi
done
leaked=$(grep -vE " [TW] cu[A-Za-z0-9_]*\$" <<<"$exports" || true)
if [ -n "$leaked" ]; then echo "FAIL: unexpected exports:"; echo "$leaked" | head; fail=1; fi
echo "libcuda.so.1: $(grep -c ' T cu' <<<"$exports") implemented, $(grep -c ' W cu' <<<"$exports") NOT_SUPPORTED stubs; $(wc -w <<<"$wanted") stub names checked, $missing missing"
exit $fail
