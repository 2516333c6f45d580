// CUB device-wide algorithms with the two-phase temp-storage protocol:
// DeviceReduce::Sum, DeviceScan::InclusiveSum, DeviceRadixSort::SortKeys and
// SortPairs (full and partial bit ranges), DeviceHistogram::HistogramEven,
// each checked against a host computation.
#include <cub/device/device_histogram.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "../check.cuh"

// Owns one device buffer; frees it on scope exit.
template <typename T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(size_t n) { cudaMalloc(&p, n * sizeof(T) + 1); }
  ~DevBuf() { cudaFree(p); }
};

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 500000;
  Lcg rng(99);
  std::vector<int> h(n);
  for (auto& x : h) x = (int)(rng.next() % 1001) - 500;
  DevBuf<int> d_in(n), d_out(n), d_sum(1);
  REQUIRE(d_in.p && d_out.p && d_sum.p, "cudaMalloc failed");
  CHECK(cudaMemcpy(d_in.p, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // DeviceReduce::Sum
  size_t tmp_bytes = 0;
  CHECK(cub::DeviceReduce::Sum(nullptr, tmp_bytes, d_in.p, d_sum.p, n));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceReduce::Sum(tmp.p, tmp_bytes, d_in.p, d_sum.p, n));
  }
  int got_sum = 0;
  CHECK(cudaMemcpy(&got_sum, d_sum.p, sizeof(int), cudaMemcpyDeviceToHost));
  long long want_sum = std::accumulate(h.begin(), h.end(), 0LL);
  REQUIRE(got_sum == want_sum, "DeviceReduce::Sum got %d expected %lld", got_sum, want_sum);

  // DeviceScan::InclusiveSum
  tmp_bytes = 0;
  CHECK(cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, d_in.p, d_out.p, n));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceScan::InclusiveSum(tmp.p, tmp_bytes, d_in.p, d_out.p, n));
  }
  std::vector<int> got(n), want(n);
  std::partial_sum(h.begin(), h.end(), want.begin());
  CHECK(cudaMemcpy(got.data(), d_out.p, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("DeviceScan::InclusiveSum", got.data(), want.data(), n)) return 1;

  // DeviceRadixSort::SortKeys on 32-bit unsigned keys
  std::vector<unsigned> keys(n);
  for (auto& k : keys) k = rng.next() ^ (rng.next() << 13);
  DevBuf<unsigned> d_k(n), d_k_out(n);
  CHECK(cudaMemcpy(d_k.p, keys.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  tmp_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, tmp_bytes, d_k.p, d_k_out.p, n));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceRadixSort::SortKeys(tmp.p, tmp_bytes, d_k.p, d_k_out.p, n));
  }
  std::vector<unsigned> kwant = keys, kgot(n);
  std::sort(kwant.begin(), kwant.end());
  CHECK(cudaMemcpy(kgot.data(), d_k_out.p, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  if (count_mismatches("DeviceRadixSort::SortKeys", kgot.data(), kwant.data(), n)) return 1;

  // DeviceRadixSort::SortPairs: float keys (sign handling), int values =
  // original index; the sort is stable so the result is fully determined.
  std::vector<float> fk(n);
  for (auto& x : fk) x = (float)((int)(rng.next() % 4001) - 2000) * 0.25f;
  std::vector<int> vals(n);
  std::iota(vals.begin(), vals.end(), 0);
  DevBuf<float> d_fk(n), d_fk_out(n);
  DevBuf<int> d_v(n), d_v_out(n);
  CHECK(cudaMemcpy(d_fk.p, fk.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_v.p, vals.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  tmp_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(nullptr, tmp_bytes, d_fk.p, d_fk_out.p, d_v.p, d_v_out.p, n));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceRadixSort::SortPairs(tmp.p, tmp_bytes, d_fk.p, d_fk_out.p, d_v.p, d_v_out.p, n));
  }
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fk[a] < fk[b]; });
  std::vector<float> fwant(n), fgot(n);
  for (int i = 0; i < n; ++i) fwant[i] = fk[order[i]];
  std::vector<int> vgot(n);
  CHECK(cudaMemcpy(fgot.data(), d_fk_out.p, n * sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(vgot.data(), d_v_out.p, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("DeviceRadixSort::SortPairs.keys", fgot.data(), fwant.data(), n)) return 1;
  if (count_mismatches("DeviceRadixSort::SortPairs.values", vgot.data(), order.data(), n)) return 1;

  // SortPairsDescending on bits [4, 20) only: keys compare by that field.
  tmp_bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairsDescending(nullptr, tmp_bytes, d_k.p, d_k_out.p, d_v.p, d_v_out.p, n, 4,
                                                  20));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceRadixSort::SortPairsDescending(tmp.p, tmp_bytes, d_k.p, d_k_out.p, d_v.p, d_v_out.p, n, 4, 20));
  }
  auto field = [](unsigned k) { return (k >> 4) & 0xFFFFu; };
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return field(keys[a]) > field(keys[b]); });
  for (int i = 0; i < n; ++i) kwant[i] = keys[order[i]];
  CHECK(cudaMemcpy(kgot.data(), d_k_out.p, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(vgot.data(), d_v_out.p, n * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("SortPairsDescending[4,20).keys", kgot.data(), kwant.data(), n)) return 1;
  if (count_mismatches("SortPairsDescending[4,20).values", vgot.data(), order.data(), n)) return 1;

  // DeviceHistogram::HistogramEven: 64 bins over [-500, 524) (width 16).
  const int bins = 64;
  DevBuf<int> d_hist(bins);
  tmp_bytes = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, tmp_bytes, d_in.p, d_hist.p, bins + 1, -500, 524, n));
  {
    DevBuf<char> tmp(tmp_bytes);
    CHECK(cub::DeviceHistogram::HistogramEven(tmp.p, tmp_bytes, d_in.p, d_hist.p, bins + 1, -500, 524, n));
  }
  std::vector<int> hwant(bins, 0), hgot(bins);
  for (int x : h) hwant[(x + 500) / 16]++;
  CHECK(cudaMemcpy(hgot.data(), d_hist.p, bins * sizeof(int), cudaMemcpyDeviceToHost));
  if (count_mismatches("DeviceHistogram::HistogramEven", hgot.data(), hwant.data(), bins)) return 1;

  CHECK(cudaDeviceSynchronize());
  std::printf("PASS cub_device (n=%d sum=%d)\n", n, got_sum);
  return 0;
}
