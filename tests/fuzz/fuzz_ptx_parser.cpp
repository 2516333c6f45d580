// libFuzzer target: the PTX parser (and diagnostic rendering) on arbitrary
// text. Also built into fuzz_replay_ptx (g++) to replay the corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ptx/diagnostics.h"
#include "ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = softgpu::ptx::parse(text, "fuzz.ptx");
  // A module and errors are mutually exclusive by the parser's contract.
  if (r.module && softgpu::ptx::has_errors(r.diagnostics)) __builtin_trap();
  (void)softgpu::ptx::render(r.diagnostics, text);
  return 0;
}
