// The build without LLVM: no JIT; asking for one says why.
#include "jit/jit.h"

namespace softgpu::jit {

bool available() { return false; }

JitStats stats(const exec::CodeCompiler&) { return {}; }

std::unique_ptr<exec::CodeCompiler> make_compiler(const JitOptions&, std::string* why) {
  if (why) *why = "this softgpu was built without LLVM 16 (install llvm-16-dev and rebuild)";
  return nullptr;
}

}  // namespace softgpu::jit
