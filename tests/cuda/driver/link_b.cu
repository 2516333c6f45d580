// Defines what link_a.cu uses (driver_link links the two with cuLink*).
__device__ int offset = 7;
__device__ float poly(float x) { return (3.0f * x - 2.0f) * x + 1.0f; }
