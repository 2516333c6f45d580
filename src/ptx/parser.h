// PTX text -> Module. Never aborts: any input yields a module or diagnostics.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ptx/ast.h"
#include "ptx/diagnostics.h"

namespace softgpu::ptx {

struct ParseResult {
  std::optional<Module> module;        // present when no errors were found
  std::vector<Diagnostic> diagnostics; // errors and warnings, in source order
};

// Limits PTX itself does not bound but the hardware does (ptxas, CUDA
// programming guide "Features and Technical Specifications").
inline constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;    // per block, all sm_XX (ptxas: "0xc000 max")
inline constexpr uint64_t kMaxLocalBytesPerThread = 512 * 1024;  // per thread, compute capability 2.0 and up

struct ParseOptions {
  size_t max_errors = 20;
  // Also report functions whose .local variables exceed kMaxLocalBytesPerThread.
  // ptxas accepts them (the launch fails), so only `softgpu check` asks.
  bool check_local_limit = false;
};

// Parses a whole module. Stops after max_errors errors.
ParseResult parse(std::string_view text, std::string filename = "<ptx>", size_t max_errors = 20);
ParseResult parse(std::string_view text, std::string filename, const ParseOptions& options);

}  // namespace softgpu::ptx
