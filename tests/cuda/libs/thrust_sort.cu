// thrust::sort on 32-bit keys (radix sort path), on floats with a custom
// comparator (merge sort path), and thrust::sort_by_key, each compared with
// std::sort / std::stable_sort on the host.
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "../check.cuh"

struct abs_less {  // not a plain less: forces the comparison-sort (merge sort) path
  __host__ __device__ bool operator()(float a, float b) const { return fabsf(a) < fabsf(b); }
};

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 500000;
  Lcg rng(2024);

  // Keys: full 32-bit range with many duplicates in the low bits.
  std::vector<unsigned> keys(n);
  for (auto& k : keys) k = rng.next() ^ (rng.next() << 16);
  thrust::device_vector<unsigned> d_keys(keys.begin(), keys.end());
  thrust::sort(d_keys.begin(), d_keys.end());
  std::vector<unsigned> want = keys;
  std::sort(want.begin(), want.end());
  thrust::host_vector<unsigned> got = d_keys;
  if (count_mismatches("sort_u32", got.data(), want.data(), n)) return 1;

  // Descending signed ints (radix sort with a greater<> comparator).
  std::vector<int> ikeys(n);
  for (auto& k : ikeys) k = (int)(rng.next() % 2000001) - 1000000;
  thrust::device_vector<int> d_ikeys(ikeys.begin(), ikeys.end());
  thrust::sort(d_ikeys.begin(), d_ikeys.end(), thrust::greater<int>());
  std::vector<int> iwant = ikeys;
  std::sort(iwant.begin(), iwant.end(), std::greater<int>());
  thrust::host_vector<int> igot = d_ikeys;
  if (count_mismatches("sort_i32_desc", igot.data(), iwant.data(), n)) return 1;

  // Floats by absolute value: merge sort; stable_sort keeps equal keys in order.
  const long nf = n / 4;
  std::vector<float> f(nf);
  for (auto& x : f) x = (float)((int)(rng.next() % 20001) - 10000) / 8.0f;
  thrust::device_vector<float> d_f(f.begin(), f.end());
  thrust::stable_sort(d_f.begin(), d_f.end(), abs_less{});
  std::vector<float> fwant = f;
  std::stable_sort(fwant.begin(), fwant.end(), abs_less{});
  thrust::host_vector<float> fgot = d_f;
  if (count_mismatches("stable_sort_f32_abs", fgot.data(), fwant.data(), nf)) return 1;

  // sort_by_key: keys with duplicates, values = original index, so the
  // (stable) radix sort result is fully determined.
  std::vector<unsigned> k2(n);
  for (auto& k : k2) k = rng.next() % 5000;
  std::vector<int> v2(n);
  std::iota(v2.begin(), v2.end(), 0);
  thrust::device_vector<unsigned> d_k2(k2.begin(), k2.end());
  thrust::device_vector<int> d_v2(v2.begin(), v2.end());
  thrust::sort_by_key(d_k2.begin(), d_k2.end(), d_v2.begin());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return k2[a] < k2[b]; });
  std::vector<unsigned> kwant(n);
  for (long i = 0; i < n; ++i) kwant[i] = k2[order[i]];
  thrust::host_vector<unsigned> kgot = d_k2;
  thrust::host_vector<int> vgot = d_v2;
  if (count_mismatches("sort_by_key.keys", kgot.data(), kwant.data(), n)) return 1;
  if (count_mismatches("sort_by_key.values", vgot.data(), order.data(), n)) return 1;

  CHECK(cudaDeviceSynchronize());
  std::printf("PASS thrust_sort (n=%ld)\n", n);
  return 0;
}
