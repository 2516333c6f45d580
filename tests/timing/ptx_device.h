// A software GPU with one PTX module loaded, for the timing tests and tools:
// load text or a file, allocate device memory, build a launch with its
// parameters laid out as the kernel declares them. Errors throw.
#pragma once
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "exec/engine.h"
#include "ptx/parser.h"

namespace softgpu::test {

inline std::string read_text_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct PtxDevice {
  exec::DeviceMemory mem;
  std::shared_ptr<exec::LoadedProgram> prog;

  PtxDevice(const std::string& text, const std::string& name, uint64_t memory_bytes = 1ull << 31)
      : mem(Bytes{memory_bytes}) {
    auto pr = ptx::parse(text, name);
    if (!pr.module) throw std::runtime_error(ptx::render(pr.diagnostics, text));
    std::vector<ptx::Module> mods;
    mods.push_back(std::move(*pr.module));
    auto lr = exec::load_program(std::move(mods), mem);
    if (!lr.program) throw std::runtime_error(ptx::render(lr.diagnostics, text));
    prog = lr.program;
  }
  static PtxDevice from_file(const std::string& path, uint64_t memory_bytes = 1ull << 31) {
    return PtxDevice(read_text_file(path), path, memory_bytes);
  }
  PtxDevice(PtxDevice&&) = delete;

  template <class T = std::byte>
  T* alloc(uint64_t count) {
    auto a = mem.allocate(Bytes{count * sizeof(T)}, exec::MemKind::Device);
    if (!a) throw std::runtime_error(a.error().message);
    return reinterpret_cast<T*>(a->value);
  }

  // A launch of `kernel` with `args` in the kernel's parameter order.
  template <class... A>
  exec::LaunchConfig config(const std::string& kernel, Dim3 grid, Dim3 block, A... args) const {
    const auto* ki = exec::find_kernel(*prog, kernel);
    if (!ki) throw std::runtime_error("no kernel " + kernel);
    if (ki->params.size() != sizeof...(A)) throw std::runtime_error("wrong argument count for " + kernel);
    exec::LaunchConfig cfg;
    cfg.grid = grid;
    cfg.block = block;
    cfg.params.resize(ki->param_bytes);
    size_t i = 0;
    ((std::memcpy(cfg.params.data() + ki->params[i++].offset, &args, sizeof args)), ...);
    return cfg;
  }
  exec::LaunchResult launch(const std::string& kernel, const exec::LaunchConfig& cfg, const exec::ExecOptions& o) {
    return exec::launch(*prog, kernel, cfg, mem, o);
  }
};

}  // namespace softgpu::test
