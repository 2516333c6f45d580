// Global and shared atomics. counters must hold 6 ints initialised to
// {0, 0, INT_MIN, INT_MAX, 0, -1} by the host. For all i < n:
//   counters[0] = number of threads with i < n          (atom.global.add)
//   counters[1] = sum of vals[i]                         (atom.global.add)
//   counters[2] = max of vals[i]                         (atom.global.max)
//   counters[3] = min of vals[i]                         (atom.global.min)
//   counters[4] = number of even vals[i], counted per block in shared memory
//                 (atom.shared.add) and merged by thread 0 of each block
//   counters[5] = index i of some thread (atom.global.exch; any i < n is valid)
extern "C" __global__ void atomics(int* counters, const int* vals, int n) {
  __shared__ int evens;
  if (threadIdx.x == 0) evens = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int v = vals[i];
    atomicAdd(&counters[0], 1);
    atomicAdd(&counters[1], v);
    atomicMax(&counters[2], v);
    atomicMin(&counters[3], v);
    if ((v & 1) == 0) atomicAdd(&evens, 1);
    atomicExch(&counters[5], i);
  }
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&counters[4], evens);
}
