// Divergent, nested, data-dependent control flow with early returns.
// For each i < n, with v = in[i]:
//   v < 0          -> out[i] = -1 (early return)
//   otherwise r = sum over k in [0, min(v % 8, 5)) of (k odd ? k : 2k);
//   then r += 100 if v is odd, else r += 200 if v % 3 == 0; out[i] = r.
extern "C" __global__ void branches(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int v = in[i];
  if (v < 0) {
    out[i] = -1;
    return;
  }
  int r = 0;
  for (int k = 0; k < v % 8; ++k) {
    if (k == 5) break;
    if (k & 1) r += k;
    else r += 2 * k;
  }
  if (v & 1) r += 100;
  else if (v % 3 == 0) r += 200;
  out[i] = r;
}
