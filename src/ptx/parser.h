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
  // The module's .version is newer than kMaxPtxVersionMajor.Minor (one of the errors):
  // a driver's JIT says CUDA_ERROR_UNSUPPORTED_PTX_VERSION rather than
  // CUDA_ERROR_INVALID_PTX.
  bool unsupported_version = false;
};

// Limits PTX itself does not bound but the hardware does (ptxas, CUDA
// programming guide "Features and Technical Specifications").
inline constexpr uint64_t kMaxStaticSharedBytes = 48 * 1024;    // per block, all sm_XX (ptxas: "0xc000 max")
inline constexpr uint64_t kMaxLocalBytesPerThread = 512 * 1024;  // per thread, compute capability 2.0 and up
inline constexpr uint64_t kMaxThreadsPerCta = 1024;              // .maxntid/.reqntid: x, y <= 1024, z <= 64
inline constexpr uint64_t kMaxKernelParamBytes = 32764;          // CUDA 12.1+, Volta and later
// The newest PTX ISA the toolkit softgpu stands in for (CUDA 13.0) reads.
inline constexpr uint32_t kMaxPtxVersionMajor = 9, kMaxPtxVersionMinor = 0;

struct ParseOptions {
  size_t max_errors = 20;
  // Also report functions whose .local variables exceed kMaxLocalBytesPerThread.
  // ptxas accepts them (the launch fails), so only `softgpu check` asks.
  bool check_local_limit = false;
  // Read a .version newer than kMaxPtxVersionMajor.Minor rather than refuse
  // it (PTX the runtime uses in place of machine code, runtime/
  // module_registry.cpp: its instructions still have to be ones softgpu
  // knows, or they are errors as any).
  bool accept_newer_version = false;
};

// Parses a whole module. Stops after max_errors errors.
ParseResult parse(std::string_view text, std::string filename = "<ptx>", size_t max_errors = 20);
ParseResult parse(std::string_view text, std::string filename, const ParseOptions& options);

}  // namespace softgpu::ptx
