// cudaGetErrorName / cudaGetErrorString for every cudaError_t value.
#include "cudart/cudart_internal.h"

namespace {
struct ErrorText {
  cudaError_t code;
  const char* name;
  const char* text;
};

constexpr ErrorText kErrors[] = {
#define SOFTGPU_ERROR(code, text) {code, #code, text},
#include "cudart/errors.inc"
#undef SOFTGPU_ERROR
};

const ErrorText* lookup(cudaError_t e) {
  for (const auto& t : kErrors)
    if (t.code == e) return &t;
  return nullptr;
}
}  // namespace

const char* cudaGetErrorName(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->name : "cudaErrorUnknown";
}

const char* cudaGetErrorString(cudaError_t error) {
  const ErrorText* t = lookup(error);
  return t ? t->text : "unrecognized error code";
}
