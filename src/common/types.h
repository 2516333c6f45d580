// Strong types shared by every layer: addresses, sizes, grid dimensions, errors.
#pragma once
#include <compare>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace softgpu {

// A byte count. Kept distinct from addresses so the two cannot be mixed up.
struct Bytes {
  uint64_t value = 0;
  constexpr auto operator<=>(const Bytes&) const = default;
};

// An address in the simulated device's unified (generic) address space.
// Global, managed and pinned memory live at host addresses (so managed
// memory is directly usable by the host); shared and local memory live in
// windows that no host pointer can reach (see exec/address_space.h).
struct DeviceAddr {
  uint64_t value = 0;
  constexpr auto operator<=>(const DeviceAddr&) const = default;
  constexpr DeviceAddr operator+(Bytes b) const { return {value + b.value}; }
};

struct Cycles {
  uint64_t value = 0;
  constexpr auto operator<=>(const Cycles&) const = default;
};

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  constexpr uint64_t count() const { return uint64_t(x) * y * z; }
  constexpr bool operator==(const Dim3&) const = default;
};

// Error codes use the numeric values of cudaError_t so the C ABI layer can
// pass them straight through.
enum class Status : int {
  Success = 0,
  InvalidValue = 1,
  MemoryAllocation = 2,
  InitializationError = 3,
  InvalidConfiguration = 9,
  InvalidPitchValue = 12,
  InvalidChannelDescriptor = 20,
  InvalidSymbol = 13,
  InvalidDevicePointer = 17,
  InvalidMemcpyDirection = 21,
  InvalidDeviceFunction = 98,
  NoDevice = 100,
  InvalidDevice = 101,
  NoKernelImageForDevice = 209,
  InvalidPtx = 218,
  UnsupportedPtxVersion = 222,
  InvalidSource = 300,
  FileNotFound = 301,
  InvalidResourceHandle = 400,
  IllegalState = 401,
  NotFound = 500,
  NotReady = 600,
  IllegalAddress = 700,
  LaunchOutOfResources = 701,
  LaunchTimeout = 702,
  AssertTriggered = 710,
  HardwareStackError = 714,
  MisalignedAddress = 716,
  IllegalInstruction = 715,
  InvalidAddressSpace = 717,
  InvalidPc = 718,
  LaunchFailure = 719,
  CooperativeLaunchTooLarge = 720,
  NotSupported = 801,
  StreamCaptureUnsupported = 900,
  StreamCaptureInvalidated = 901,
  StreamCaptureImplicit = 906,
  GraphExecUpdateFailure = 910,
  InvalidClusterSize = 912,
  Unknown = 999,
};

// An error with a human-readable explanation.
struct Error {
  Status status = Status::Unknown;
  std::string message;
};

// Minimal expected-like result (std::expected is C++23).
template <class T>
class Result {
 public:
  Result(T v) : v_(std::move(v)) {}
  Result(Error e) : v_(std::move(e)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

}  // namespace softgpu
