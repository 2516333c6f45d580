// cuGetExportTable, the driver's private tables NVIDIA's runtime and
// libraries ask for (src/cudadrv/export_tables.cpp). softgpu's behaviour,
// not a real driver's (whose tables hold more): bad arguments are refused,
// the table CUDA 13's runtime asks for first is NOT_FOUND (so it starts the
// classic way), an unknown table is NOT_SUPPORTED and named on stderr, a
// known table starts with its size, its implemented slots answer, and an
// unimplemented slot returns NOT_SUPPORTED and names table, UUID and slot.
#include <cstring>

#include "drv_check.h"

namespace {

CUuuid uuid(const unsigned char (&b)[16]) {
  CUuuid u;
  std::memcpy(u.bytes, b, 16);
  return u;
}

constexpr unsigned char kCudartInterface[16] = {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a,
                                                0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9};
constexpr unsigned char kRuntimeFirst[16] = {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e,
                                             0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9};
constexpr unsigned char kUnknown[16] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
                                        0x10, 0x32, 0x54, 0x76, 0x98, 0xba, 0xdc, 0xfe};

}  // namespace

int main() {
  CU_CHECK(cuInit(0));
  const void* table = reinterpret_cast<const void*>(1);
  CUuuid id = uuid(kCudartInterface);
  CU_EXPECT(cuGetExportTable(nullptr, &id), CUDA_ERROR_INVALID_VALUE);
  CU_EXPECT(cuGetExportTable(&table, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUuuid first = uuid(kRuntimeFirst);
  CU_EXPECT(cuGetExportTable(&table, &first), CUDA_ERROR_NOT_FOUND);
  CUuuid unknown = uuid(kUnknown);
  CU_EXPECT(cuGetExportTable(&table, &unknown), CUDA_ERROR_NOT_SUPPORTED);
  if (table) {
    std::fprintf(stderr, "FAIL an unknown table left a pointer behind\n");
    return 1;
  }

  CU_CHECK(cuGetExportTable(&table, &id));
  const void* const* slots = static_cast<const void* const*>(table);
  // Slot 0: the table's size in bytes, 13 slots of 8 bytes.
  if (reinterpret_cast<uintptr_t>(slots[0]) != 13 * sizeof(void*)) {
    std::fprintf(stderr, "FAIL CUDART_INTERFACE size %zu\n", size_t(reinterpret_cast<uintptr_t>(slots[0])));
    return 1;
  }
  // Slot 2: the device's primary context, as cuDevicePrimaryCtxRetain gives.
  using PrimaryContext = CUresult (*)(CUcontext*, CUdevice);
  CUcontext ctx = nullptr, primary = nullptr;
  CU_CHECK(reinterpret_cast<PrimaryContext>(slots[2])(&ctx, 0));
  CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
  if (ctx != primary) {
    std::fprintf(stderr, "FAIL slot 2 context %p, primary %p\n", static_cast<void*>(ctx), static_cast<void*>(primary));
    return 1;
  }
  CU_EXPECT(reinterpret_cast<PrimaryContext>(slots[2])(&ctx, 7), CUDA_ERROR_INVALID_DEVICE);
  // Slot 12: CUDA 13.2's start-up check, no arguments.
  CU_CHECK(reinterpret_cast<CUresult (*)()>(slots[12])());
  // Slot 5: not implemented; named on stderr (checked by the test).
  using Any = CUresult (*)(uintptr_t, uintptr_t, uintptr_t, uintptr_t);
  CU_EXPECT(reinterpret_cast<Any>(slots[5])(0x11, 0x22, 0x33, 0x44), CUDA_ERROR_NOT_SUPPORTED);
  CU_CHECK(cuDevicePrimaryCtxRelease(0));
  std::printf("PASS driver_tables\n");
  return 0;
}
