// CPU time, for cost decisions that must not count time the machine gave
// to other processes (a loaded host stretches wall time, not CPU time).
#pragma once
#include <ctime>

namespace softgpu {

inline double cpu_seconds(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}
// Every thread of this process together.
inline double process_cpu_seconds() { return cpu_seconds(CLOCK_PROCESS_CPUTIME_ID); }
// The calling thread alone.
inline double thread_cpu_seconds() { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace softgpu
