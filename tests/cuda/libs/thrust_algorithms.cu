// Thrust on the device: sequence, transform, reduce, inclusive_scan, copy,
// count_if over a multi-block-sized vector, each checked against the same
// computation on the host. Unmodified Thrust from the toolkit's CCCL headers.
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/transform.h>

#include <cstdlib>
#include <vector>

#include "../check.cuh"

struct affine {
  int a, b;
  __host__ __device__ int operator()(int x) const { return a * x + b; }
};

struct is_multiple_of_7 {
  __host__ __device__ bool operator()(int x) const { return x % 7 == 0; }
};

// Keeps values small enough that the int scan cannot overflow.
struct mod_1000 {
  __host__ __device__ int operator()(int x) const { return ((x % 1000) + 1000) % 1000; }
};

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 1000000;

  // sequence: 5, 8, 11, ...
  thrust::device_vector<int> seq(n);
  thrust::sequence(seq.begin(), seq.end(), 5, 3);
  std::vector<int> h_seq(n);
  for (long i = 0; i < n; ++i) h_seq[i] = 5 + 3 * (int)i;
  thrust::host_vector<int> got = seq;
  if (count_mismatches("sequence", got.data(), h_seq.data(), n)) return 1;

  // transform (unary functor) then mod into a small range
  thrust::device_vector<int> t(n);
  thrust::transform(seq.begin(), seq.end(), t.begin(), affine{-7, 11});
  thrust::transform(t.begin(), t.end(), t.begin(), mod_1000{});
  std::vector<int> h_t(n);
  for (long i = 0; i < n; ++i) h_t[i] = (((-7 * h_seq[i] + 11) % 1000) + 1000) % 1000;
  got = t;
  if (count_mismatches("transform", got.data(), h_t.data(), n)) return 1;

  // binary transform with a Thrust functor
  thrust::device_vector<int> sum2(n);
  thrust::transform(seq.begin(), seq.end(), t.begin(), sum2.begin(), thrust::plus<int>());
  std::vector<int> h_sum2(n);
  for (long i = 0; i < n; ++i) h_sum2[i] = h_seq[i] + h_t[i];
  got = sum2;
  if (count_mismatches("transform_plus", got.data(), h_sum2.data(), n)) return 1;

  // reduce: sum (64-bit to avoid overflow) and max
  long long want_sum = 0;
  int want_max = h_t[0];
  for (long i = 0; i < n; ++i) {
    want_sum += h_t[i];
    want_max = h_t[i] > want_max ? h_t[i] : want_max;
  }
  long long got_sum = thrust::reduce(t.begin(), t.end(), 0LL, thrust::plus<long long>());
  REQUIRE(got_sum == want_sum, "reduce sum got %lld expected %lld", got_sum, want_sum);
  int got_max = thrust::reduce(t.begin(), t.end(), -1, thrust::maximum<int>());
  REQUIRE(got_max == want_max, "reduce max got %d expected %d", got_max, want_max);

  // inclusive_scan
  thrust::device_vector<int> scan(n);
  thrust::inclusive_scan(t.begin(), t.end(), scan.begin());
  std::vector<int> h_scan(n);
  int run = 0;
  for (long i = 0; i < n; ++i) h_scan[i] = run += h_t[i];
  got = scan;
  if (count_mismatches("inclusive_scan", got.data(), h_scan.data(), n)) return 1;

  // copy device->device, then copy back to the host through an iterator range
  thrust::device_vector<int> c(n);
  thrust::copy(scan.begin(), scan.end(), c.begin());
  std::vector<int> back(n);
  thrust::copy(c.begin(), c.end(), back.begin());
  if (count_mismatches("copy", back.data(), h_scan.data(), n)) return 1;

  // count_if
  long want_cnt = 0;
  for (long i = 0; i < n; ++i) want_cnt += h_t[i] % 7 == 0;
  long got_cnt = (long)thrust::count_if(t.begin(), t.end(), is_multiple_of_7{});
  REQUIRE(got_cnt == want_cnt, "count_if got %ld expected %ld", got_cnt, want_cnt);

  CHECK(cudaDeviceSynchronize());
  std::printf("PASS thrust_algorithms (n=%ld sum=%lld max=%d count=%ld)\n", n, got_sum, got_max, got_cnt);
  return 0;
}
