// -rdc=true test program, part 1: calls a device function and reads a global
// that live in b.cu, so the PTX modules must be linked by the runtime.
extern __device__ float scale(float x);
__global__ void kmain(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale(p[i]);
}
int main() { return 0; }
