// libFuzzer target: the PTX parser (and diagnostic rendering) on arbitrary
// text, then, for text that parses, the decoder and loader (name resolution,
// layout, reconvergence analysis, handler binding) as a program load does.
// Also built into fuzz_replay_ptx (g++) to replay the corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "exec/engine.h"
#include "ptx/diagnostics.h"
#include "ptx/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = softgpu::ptx::parse(text, "fuzz.ptx");
  // A module and errors are mutually exclusive by the parser's contract.
  if (r.module && softgpu::ptx::has_errors(r.diagnostics)) __builtin_trap();
  (void)softgpu::ptx::render(r.diagnostics, text);
  if (r.module) {
    // A small device: huge declared variables must fail to allocate, cleanly.
    softgpu::exec::DeviceMemory mem(softgpu::Bytes{64u << 20});
    std::vector<softgpu::ptx::Module> mods;
    mods.push_back(std::move(*r.module));
    auto lr = softgpu::exec::load_program(std::move(mods), mem);
    if (!lr.program && !softgpu::ptx::has_errors(lr.diagnostics)) __builtin_trap();  // failure must say why
    (void)softgpu::ptx::render(lr.diagnostics, text);
  }
  return 0;
}
