// A per-thread array indexed by data, so it lives in local memory
// (.local, ld.local/st.local). For i < n, with v = in[i] (v >= 0):
//   a[k] = v * k + k * k for k in [0, 16)
//   out[i] = a[v & 15] + a[(v >> 4) & 15]
extern "C" __global__ void local_array(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = v * k + k * k;
  out[i] = a[v & 15] + a[(v >> 4) & 15];
}
