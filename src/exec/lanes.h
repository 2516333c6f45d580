// Helpers shared by all instruction handlers: bit casts between register
// bits and C++ types, and the one loop over a warp's active lanes.
#pragma once
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace softgpu::exec {

inline constexpr uint32_t kWarpSize = 32;
inline constexpr uint32_t kFullMask = 0xffffffffu;

// Runs f(lane) for every set bit of mask. A full warp takes a plain loop so
// the compiler can vectorize the body.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
  if (mask == kFullMask) {
    for (uint32_t l = 0; l < kWarpSize; ++l) f(l);
    return;
  }
  while (mask) {
    uint32_t l = uint32_t(std::countr_zero(mask));
    f(l);
    mask &= mask - 1;
  }
}

// Set bits of a lane mask, without the library call std::popcount becomes
// for baseline x86-64 (no POPCNT): the scheduler counts live threads at
// every barrier arrival.
inline uint32_t lane_count(uint32_t m) {
  m = m - ((m >> 1) & 0x55555555u);
  m = (m & 0x33333333u) + ((m >> 2) & 0x33333333u);
  return (((m + (m >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24;
}

// Register bits -> value of type T (low bits of the 64-bit lane slot).
template <class T>
inline T from_bits(uint64_t b) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<float>(uint32_t(b));
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<double>(b);
  } else {
    return T(b);
  }
}

// Value -> register bits. Signed integers are sign-extended to 64 bits so
// that a narrower read of the same register sees the right value.
template <class T>
inline uint64_t to_bits(T v) {
  if constexpr (std::is_same_v<T, float>) {
    return std::bit_cast<uint32_t>(v);
  } else if constexpr (std::is_same_v<T, double>) {
    return std::bit_cast<uint64_t>(v);
  } else if constexpr (std::is_signed_v<T>) {
    return uint64_t(int64_t(v));
  } else {
    return uint64_t(v);
  }
}

}  // namespace softgpu::exec
