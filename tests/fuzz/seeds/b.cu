// -rdc=true test program, part 2.
__device__ float factor = 2.0f;
__device__ float scale(float x) { return x * factor; }
