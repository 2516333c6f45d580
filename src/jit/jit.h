// The JIT: compiles the decoded program's straight-line code to host
// machine code with LLVM (exec/compiled.h is the seam it implements).
#pragma once
#include <memory>
#include <string>

#include "exec/compiled.h"

namespace softgpu::jit {

struct JitOptions {
  bool verbose = false;  // one line per compiled function on stderr
};

// True when the build has the JIT (LLVM was found at configure time).
bool available();
// A compiler, or null with `why` set when the JIT cannot start.
std::unique_ptr<exec::CodeCompiler> make_compiler(const JitOptions& opts, std::string* why = nullptr);

}  // namespace softgpu::jit
