// What handle.cpp shares with the generated stubs (gen_stubs.py), which
// declare the helper themselves with the same signature.
#pragma once

// Prints "softgpu cublas: NAME is not implemented yet" to stderr the first
// time it is called for *once (thread-safe).
extern "C" void softgpu_cublas_unimplemented(const char* name, int* once);
