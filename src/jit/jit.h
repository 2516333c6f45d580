// The JIT: compiles the decoded program's straight-line code to host
// machine code with LLVM (exec/compiled.h is the seam it implements).
#pragma once
#include <memory>
#include <string>

#include "exec/compiled.h"

namespace softgpu::jit {

struct JitOptions {
  bool verbose = false;  // one line per compiled function on stderr
  // Directory of the on-disk cache of compiled code (jit/cache.h); empty =
  // no cache.
  std::string cache_dir;
};

// What a compiler did so far: functions compiled by LLVM, loaded from the
// disk cache, or reusing machine code already in the process.
// And the instructions lowered to IR or calling their handler (the
// functions' full-warp copies, as SOFTGPU_JIT_VERBOSE prints them).
struct JitStats {
  uint64_t compiled = 0, from_disk = 0, reused = 0;
  uint64_t lowered = 0, through_handlers = 0;
};
JitStats stats(const exec::CodeCompiler& c);

// True when the build has the JIT (LLVM was found at configure time).
bool available();
// A compiler, or null with `why` set when the JIT cannot start.
std::unique_ptr<exec::CodeCompiler> make_compiler(const JitOptions& opts, std::string* why = nullptr);

}  // namespace softgpu::jit
