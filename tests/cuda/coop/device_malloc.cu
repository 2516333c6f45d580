// Device-side malloc/free and new/delete: per-thread buffers, a heap limit
// set with cudaDeviceSetLimit, and malloc returning NULL when the heap is
// exhausted. Checked against CPU-computed values.
#include <vector>

#include "../check.cuh"

struct Node {
  int value;
  Node* next;
};

// Each thread builds a linked list of `len` nodes with new, sums it, deletes it.
__global__ void lists(int* out, int len) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  Node* head = nullptr;
  for (int i = 0; i < len; ++i) head = new Node{tid * 10 + i, head};
  int sum = 0;
  while (head) {
    sum += head->value;
    Node* n = head->next;
    delete head;
    head = n;
  }
  out[tid] = sum;
}

// Each thread mallocs an array, fills it, publishes the pointer; after a
// barrier a neighbour reads it, then the owner frees it.
__global__ void arrays(long long* out, int n) {
  __shared__ int* ptrs[128];
  int* p = (int*)malloc(n * sizeof(int));
  ptrs[threadIdx.x] = p;
  if (p)
    for (int i = 0; i < n; ++i) p[i] = threadIdx.x * 1000 + i;
  __syncthreads();
  int* q = ptrs[(threadIdx.x + 1) % blockDim.x];
  long long s = -1;
  if (q) {
    s = 0;
    for (int i = 0; i < n; ++i) s += q[i];
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
  __syncthreads();
  free(p);
}

// One thread asks for more than the heap holds: malloc returns NULL.
__global__ void too_big(unsigned long long* out, size_t bytes) {
  void* p = malloc(bytes);
  out[0] = (unsigned long long)(p != nullptr);
  free(p);  // free(NULL) is a no-op
  void* small = malloc(64);
  out[1] = (unsigned long long)(small != nullptr) | ((unsigned long long)small & 15) << 8;
  free(small);
}

int main() {
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 16 << 20));
  size_t heap = 0;
  CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  REQUIRE(heap >= (16u << 20), "heap limit %zu", heap);

  const int blocks = 4, threads = 64, len = 20;
  int* d_out;
  CHECK(cudaMalloc(&d_out, blocks * threads * sizeof(int)));
  lists<<<blocks, threads>>>(d_out, len);
  CHECK_LAUNCH();
  std::vector<int> got(blocks * threads), want(blocks * threads);
  CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < blocks * threads; ++t) want[t] = t * 10 * len + len * (len - 1) / 2;
  REQUIRE(count_mismatches("lists", got.data(), want.data(), (long)got.size()) == 0, "lists");

  const int n = 100, at = 128;
  long long* d_sums;
  CHECK(cudaMalloc(&d_sums, 2 * at * sizeof(long long)));
  // Run twice: memory freed by the first launch is reusable by the second.
  for (int rep = 0; rep < 2; ++rep) {
    arrays<<<2, at>>>(d_sums, n);
    CHECK_LAUNCH();
    std::vector<long long> s(2 * at), w(2 * at);
    CHECK(cudaMemcpy(s.data(), d_sums, s.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < at; ++t) {
        long long nb = (t + 1) % at;
        w[b * at + t] = nb * 1000 * n + (long long)n * (n - 1) / 2;
      }
    REQUIRE(count_mismatches("arrays", s.data(), w.data(), (long)s.size()) == 0, "arrays rep %d", rep);
  }

  unsigned long long* d_flags;
  CHECK(cudaMalloc(&d_flags, 2 * sizeof(unsigned long long)));
  too_big<<<1, 1>>>(d_flags, (size_t)64 << 20);
  CHECK_LAUNCH();
  unsigned long long flags[2];
  CHECK(cudaMemcpy(flags, d_flags, sizeof flags, cudaMemcpyDeviceToHost));
  REQUIRE(flags[0] == 0, "64 MiB malloc from a 16 MiB heap succeeded");
  REQUIRE(flags[1] == 1, "small malloc after a failed one: %llx (want non-null, 16-byte aligned)", flags[1]);
  std::printf("PASS device_malloc\n");
  return 0;
}
