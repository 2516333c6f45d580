// What the generated stubs (gen_stubs.py --api cusparse) share.
#pragma once

#define SG_STUB __attribute__((weak, visibility("default")))

// Prints "softgpu cusparse: NAME is not implemented yet" to stderr the first
// time it is called for *once (thread-safe).
extern "C" void softgpu_cusparse_unimplemented(const char* name, int* once);
