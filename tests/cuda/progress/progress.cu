// Forward progress as on sm_70+ hardware (independent thread scheduling,
// co-resident CTAs), partial barriers and the watchdog. Each mode checks
// its results against values computed here on the CPU.
//   spinlock      per-thread spin lock, every lane of every warp contending:
//                 a non-atomic counter and a list appended in the lock
//   spinlock_loop the lock taken 20 times by every thread, in a loop
//   lock_reduce   a ticket under the lock, then __shfl_xor_sync over the warp
//   lane_flag     a lane spins on a flag that a lane of its own warp sets
//                 after the reconvergence point (and the reverse: siblings)
//   coresident    block 0 spins on a flag block 1 sets; a chain where
//                 block i waits for block i+1 (all fit in one wave)
//   barrier_exit  __syncthreads() after some warps / some lanes exited
//   barrier_spin  one lane spins on another warp's flag, then __syncthreads()
//   barrier_diverge  barrier.sync in both branches of a divergent if
//   deadlock      warps wait at different named barriers: an error, no hang
//   one_wave      every block of a full wave waits for the last one
//   overfull      the same with one block more: a deadlock, as on hardware,
//                 ended by the watchdog
//   watchdog      many short blocks, total past the watchdog: LaunchTimeout
//   long          a kernel of a few seconds (progress line test)
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <vector>

#include "../check.cuh"

__device__ void lock(int* m) {
  while (atomicCAS(m, 0, 1) != 0) {
  }
}
__device__ void unlock(int* m) {
  __threadfence();
  atomicExch(m, 0);
}

__global__ void spinlock_kernel(int* m, volatile int* counter, int* list) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  lock(m);
  const int c = *counter;  // non-atomic read-modify-write, safe under the lock
  list[c] = id;
  *counter = c + 1;
  unlock(m);
}

// The lock taken `rounds` times by every thread, in a loop.
__global__ void spinlock_loop_kernel(int* m, volatile int* counter, int* mine, int rounds) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    lock(m);
    *counter = *counter + 1;
    mine[id] += 1;
    unlock(m);
  }
}

// A ticket under the lock, then a warp-wide sum of the tickets: the lanes that
// got the lock first must wait at the shuffle for the others.
__global__ void lock_reduce_kernel(int* m, volatile int* counter, int* ticket, int* sum) {
  const int id = blockIdx.x * blockDim.x + threadIdx.x;
  lock(m);
  const int c = *counter;
  *counter = c + 1;
  unlock(m);
  ticket[id] = c;
  int v = c;
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  sum[id] = v;
}

// Lane 0 waits for lane 1, which sets the flag only after the branch.
__global__ void lane_flag_kernel(volatile int* flags, int* out) {
  const int lane = threadIdx.x % 32, w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  int seen = 0;
  if (lane == 0) {
    while (flags[w] == 0) {
    }
    seen = flags[w];
  }
  if (lane == 1) atomicExch((int*)&flags[w], 7 + w);
  // Siblings: lanes below 16 wait for lane 20 in the other branch.
  if (lane < 16) {
    while (flags[64 + w] == 0) {
    }
    seen += flags[64 + w];
  } else if (lane == 20) {
    atomicExch((int*)&flags[64 + w], 100 + w);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = seen;
}

// Block 0 waits for block 1 (all threads spin); then every block i > 1
// waits for block i+1 except the last, which starts the chain.
__global__ void coresident_kernel(volatile int* flags, int* out, int n) {
  const int b = blockIdx.x;
  if (b == 0) {
    while (flags[1] == 0) {
    }
  } else if (b < n - 1) {
    if (threadIdx.x == 0)
      while (flags[b + 1] == 0) {
      }
    __syncthreads();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    out[b] = b == n - 1 ? 1 : flags[b + 1] + 1;  // chain length from the end
    __threadfence();
    if (b > 0) atomicExch((int*)&flags[b], out[b]);
  }
}

// Warps >= `live_warps` and odd lanes exit; the rest share data through a barrier.
__global__ void barrier_exit_kernel(int* out, int live_warps) {
  __shared__ int s[1024];
  const int t = threadIdx.x;
  if (t / 32 >= live_warps || (t & 1)) return;
  s[t] = t * 3;
  __syncthreads();
  const int peer = (t + 64) % (live_warps * 32);
  out[t] = s[peer & ~1] + 1;
}

// Lane 0 of warp 0 waits for warp 1 before the barrier; the others are there.
__global__ void barrier_spin_kernel(volatile int* flag, int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t == 0)
    while (*flag == 0) {
    }
  if (t == 32) *flag = 5;
  s[t] = t + (t == 0 ? *flag : 0);
  __syncthreads();
  out[t] = s[63 - t];
}

// sm_70+ barrier.sync (not .aligned) in both branches of a divergent if: a
// warp arrives once all its non-exited threads executed a barrier.
__global__ void barrier_diverge_kernel(int* out) {
  __shared__ int s[64];
  const int t = threadIdx.x;
  if (t % 32 < 16) {
    s[t] = t;
    asm volatile("barrier.sync 0;" ::: "memory");
    out[t] = s[63 - t];
  } else {
    s[t] = 2 * t;
    asm volatile("barrier.sync 0, 64;" ::: "memory");
    out[t] = s[63 - t] + 1000;
  }
}

// Warp 0 waits at barrier 1, warp 1 at barrier 2: never completes.
__global__ void deadlock_kernel() {
  if (threadIdx.x < 32) asm volatile("bar.sync 1, 64;");
  else asm volatile("bar.sync 2, 64;");
}

// Every block but the last waits for the last one.
__global__ void overfull_kernel(volatile int* flag, int n) {
  if (blockIdx.x == n - 1) {
    if (threadIdx.x == 0) *flag = 1;
    return;
  }
  while (*flag == 0) {
  }
}

// out has `wrap` (a power of two) entries; thread i writes entry i % wrap.
__global__ void work_kernel(unsigned* out, int iters, unsigned wrap) {
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  for (int i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  out[(blockIdx.x * blockDim.x + threadIdx.x) & (wrap - 1)] = x;
}

unsigned lcg(unsigned x, int iters) {
  for (int i = 0; i < iters; ++i) x = x * 1664525u + 1013904223u;
  return x;
}

int spinlock() {
  const int blocks = 32, threads = 256, n = blocks * threads;
  int *m, *counter, *list;
  CHECK(cudaMalloc(&m, sizeof(int)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&list, n * sizeof(int)));
  CHECK(cudaMemset(m, 0, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  CHECK(cudaMemset(list, 0xff, n * sizeof(int)));
  spinlock_kernel<<<blocks, threads>>>(m, counter, list);
  CHECK_LAUNCH();
  int count = 0;
  std::vector<int> got(n);
  CHECK(cudaMemcpy(&count, counter, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got.data(), list, n * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count == n, "counter %d, want %d", count, n);
  std::vector<int> seen(n, 0);
  for (int v : got) {
    REQUIRE(v >= 0 && v < n, "list entry %d out of range", v);
    ++seen[v];
  }
  for (int i = 0; i < n; ++i) REQUIRE(seen[i] == 1, "thread %d appended %d times", i, seen[i]);
  return 0;
}

int spinlock_loop() {
  const int blocks = 4, threads = 128, n = blocks * threads, rounds = 20;
  int *m, *counter, *mine;
  CHECK(cudaMalloc(&m, sizeof(int)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&mine, n * sizeof(int)));
  CHECK(cudaMemset(m, 0, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  CHECK(cudaMemset(mine, 0, n * sizeof(int)));
  spinlock_loop_kernel<<<blocks, threads>>>(m, counter, mine, rounds);
  CHECK_LAUNCH();
  int count = 0;
  std::vector<int> got(n), want(n, rounds);
  CHECK(cudaMemcpy(&count, counter, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got.data(), mine, n * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count == n * rounds, "counter %d, want %d", count, n * rounds);
  REQUIRE(count_mismatches("spinlock_loop", got.data(), want.data(), n) == 0, "mismatches");
  return 0;
}

int lock_reduce() {
  const int blocks = 4, threads = 64, n = blocks * threads;
  int *m, *counter, *ticket, *sum;
  CHECK(cudaMalloc(&m, sizeof(int)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMalloc(&ticket, n * sizeof(int)));
  CHECK(cudaMalloc(&sum, n * sizeof(int)));
  CHECK(cudaMemset(m, 0, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  lock_reduce_kernel<<<blocks, threads>>>(m, counter, ticket, sum);
  CHECK_LAUNCH();
  std::vector<int> t(n), got(n), want(n);
  CHECK(cudaMemcpy(t.data(), ticket, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(got.data(), sum, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> seen(n, 0);
  for (int v : t) {
    REQUIRE(v >= 0 && v < n, "ticket %d out of range", v);
    ++seen[v];
  }
  for (int i = 0; i < n; ++i) REQUIRE(seen[i] == 1, "ticket %d given %d times", i, seen[i]);
  for (int w = 0; w < n / 32; ++w) {
    int s = 0;
    for (int l = 0; l < 32; ++l) s += t[w * 32 + l];
    for (int l = 0; l < 32; ++l) want[w * 32 + l] = s;
  }
  REQUIRE(count_mismatches("lock_reduce", got.data(), want.data(), n) == 0, "mismatches");
  return 0;
}

int lane_flag() {
  const int blocks = 2, threads = 64, warps = blocks * threads / 32;
  int *flags, *out;
  CHECK(cudaMalloc(&flags, 128 * sizeof(int)));
  CHECK(cudaMalloc(&out, blocks * threads * sizeof(int)));
  CHECK(cudaMemset(flags, 0, 128 * sizeof(int)));
  lane_flag_kernel<<<blocks, threads>>>(flags, out);
  CHECK_LAUNCH();
  std::vector<int> got(blocks * threads), want(blocks * threads, 0);
  for (int t = 0; t < blocks * threads; ++t) {
    const int lane = t % 32, w = t / 32;
    if (lane == 0) want[t] += 7 + w;
    if (lane < 16) want[t] += 100 + w;
  }
  (void)warps;
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count_mismatches("lane_flag", got.data(), want.data(), long(got.size())) == 0, "mismatches");
  return 0;
}

int coresident() {
  const int n = 48, threads = 128;
  int bps = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, coresident_kernel, threads, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  REQUIRE(bps * sms >= n, "the grid of %d blocks must fit in one wave (%d x %d)", n, bps, sms);
  int *flags, *out;
  CHECK(cudaMalloc(&flags, n * sizeof(int)));
  CHECK(cudaMalloc(&out, n * sizeof(int)));
  CHECK(cudaMemset(flags, 0, n * sizeof(int)));
  coresident_kernel<<<n, threads>>>(flags, out, n);
  CHECK_LAUNCH();
  std::vector<int> got(n), want(n);
  for (int b = 0; b < n; ++b) want[b] = b == 0 ? n : n - b;  // block b >= 1: n-b blocks from the end
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count_mismatches("coresident", got.data(), want.data(), n) == 0, "mismatches");
  return 0;
}

int barrier_exit() {
  int* out;
  CHECK(cudaMalloc(&out, 256 * sizeof(int)));
  for (int live : {1, 3, 8}) {
    CHECK(cudaMemset(out, 0, 256 * sizeof(int)));
    barrier_exit_kernel<<<1, 256>>>(out, live);
    CHECK_LAUNCH();
    std::vector<int> got(256), want(256, 0);
    for (int t = 0; t < live * 32; t += 2) want[t] = (((t + 64) % (live * 32)) & ~1) * 3 + 1;
    CHECK(cudaMemcpy(got.data(), out, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    REQUIRE(count_mismatches("barrier_exit", got.data(), want.data(), 256) == 0, "live warps %d", live);
  }
  return 0;
}

int barrier_spin() {
  int *flag, *out;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  barrier_spin_kernel<<<1, 64>>>(flag, out);
  CHECK_LAUNCH();
  std::vector<int> got(64), want(64);
  for (int t = 0; t < 64; ++t) want[t] = (63 - t) + (63 - t == 0 ? 5 : 0);
  CHECK(cudaMemcpy(got.data(), out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count_mismatches("barrier_spin", got.data(), want.data(), 64) == 0, "mismatches");
  return 0;
}

int barrier_diverge() {
  int* out;
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  barrier_diverge_kernel<<<1, 64>>>(out);
  CHECK_LAUNCH();
  std::vector<int> got(64), want(64);
  for (int t = 0; t < 64; ++t) {
    const int p = 63 - t, v = p % 32 < 16 ? p : 2 * p;
    want[t] = t % 32 < 16 ? v : v + 1000;
  }
  CHECK(cudaMemcpy(got.data(), out, 64 * sizeof(int), cudaMemcpyDeviceToHost));
  REQUIRE(count_mismatches("barrier_diverge", got.data(), want.data(), 64) == 0, "mismatches");
  return 0;
}

int deadlock() {
  deadlock_kernel<<<1, 64>>>();
  cudaError_t e = cudaDeviceSynchronize();
  REQUIRE(e != cudaSuccess, "a deadlocked kernel must fail, got %s", cudaGetErrorName(e));
  return 0;
}

// Blocks spinning on a later block: completes when the grid fits in one wave
// of the GPU; one block more deadlocks (as on hardware) until the watchdog.
int overfull(int extra, cudaError_t want) {
  const int threads = 1024;
  int bps = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&bps, overfull_kernel, threads, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int n = bps * sms + extra;
  int* flag;
  CHECK(cudaMalloc(&flag, sizeof(int)));
  CHECK(cudaMemset(flag, 0, sizeof(int)));
  overfull_kernel<<<n, threads>>>(flag, n);
  EXPECT_ERR(cudaDeviceSynchronize(), want);
  return 0;
}

int work(int blocks, int iters, cudaError_t want) {
  const int threads = 64, n = std::min(blocks * threads, 1 << 14);
  unsigned* out;
  CHECK(cudaMalloc(&out, n * sizeof(unsigned)));
  work_kernel<<<blocks, threads>>>(out, iters, unsigned(n));
  // The launch runs when issued: its fault surfaces at the next call.
  EXPECT_ERR(cudaDeviceSynchronize(), want);
  if (want != cudaSuccess) return 0;
  std::vector<unsigned> got(n), ref(n);
  for (int i = 0; i < n; ++i) ref[i] = lcg(unsigned(i), iters);
  CHECK(cudaMemcpy(got.data(), out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  REQUIRE(count_mismatches("work", got.data(), ref.data(), n) == 0, "mismatches");
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int rc = 2;
  if (!std::strcmp(mode, "spinlock")) rc = spinlock();
  else if (!std::strcmp(mode, "lane_flag")) rc = lane_flag();
  else if (!std::strcmp(mode, "lock_reduce")) rc = lock_reduce();
  else if (!std::strcmp(mode, "spinlock_loop")) rc = spinlock_loop();
  else if (!std::strcmp(mode, "coresident")) rc = coresident();
  else if (!std::strcmp(mode, "barrier_exit")) rc = barrier_exit();
  else if (!std::strcmp(mode, "barrier_spin")) rc = barrier_spin();
  else if (!std::strcmp(mode, "barrier_diverge")) rc = barrier_diverge();
  else if (!std::strcmp(mode, "deadlock")) rc = deadlock();
  else if (!std::strcmp(mode, "one_wave")) rc = overfull(0, cudaSuccess);
  else if (!std::strcmp(mode, "overfull")) rc = overfull(1, cudaErrorLaunchTimeout);
  // Each block runs well under a millisecond; the grid (1M blocks, minutes
  // here) far longer than the watchdog.
  else if (!std::strcmp(mode, "watchdog")) rc = work(1 << 20, 2000, cudaErrorLaunchTimeout);
  else if (!std::strcmp(mode, "long")) rc = work(256, 60000, cudaSuccess);
  else std::fprintf(stderr, "usage: progress spinlock|spinlock_loop|lock_reduce|lane_flag|coresident|barrier_exit|barrier_spin|barrier_diverge|deadlock|one_wave|overfull|watchdog|long\n");
  if (rc == 0) std::printf("PASS progress %s\n", mode);
  return rc;
}
