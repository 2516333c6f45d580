// What the generated stubs (gen_stubs.py --api curand) share.
#pragma once

#define SG_STUB __attribute__((weak, visibility("default")))

// Prints "softgpu curand: NAME is not implemented yet" to stderr the first
// time it is called for *once (thread-safe).
extern "C" void softgpu_curand_unimplemented(const char* name, int* once);
