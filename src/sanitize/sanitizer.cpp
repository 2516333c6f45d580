#include "sanitize/sanitizer.h"

#include <fmt/format.h>

namespace softgpu::sanitize {

Result<std::unique_ptr<Sanitizer>> Sanitizer::create(const Options& o, exec::DeviceMemory* memory) {
  switch (o.tool) {
    case ToolKind::Memcheck: return make_memcheck(o, memory);
    case ToolKind::Initcheck: return make_initcheck(o, memory);
    case ToolKind::Synccheck: return make_synccheck(o, memory);
    case ToolKind::Racecheck: return make_racecheck(o, memory);
    default:
      return Error{Status::NotSupported,
                   fmt::format("the {} tool is not implemented yet (memcheck is)", tool_name(o.tool))};
  }
}

Sanitizer::Sanitizer(const Options& o, exec::DeviceMemory* memory) : opts_(o), memory_(memory), reporter_(o) {}

Sanitizer::~Sanitizer() = default;

void Sanitizer::api_error(std::string_view call, int code, std::string_view name, std::string_view text) {
  if (!opts_.report_api_errors) return;
  Identity id;
  id.kind = "api_error";
  id.function = call;
  id.error = std::to_string(code);
  reporter_.error(std::move(id),
                  fmt::format("Program hit {} (error {}) due to \"{}\" on CUDA API call to {}.", name, code, text, call),
                  {});
}

bool Sanitizer::take_launch_failure() {
  const bool f = launch_failed_;
  launch_failed_ = false;
  // --destroy-on-device-error kernel: the kernel ended, the program goes on
  // with no error (bad accesses were suppressed, nothing else changed).
  return f && !opts_.destroy_kernel;
}

void Sanitizer::finish() {
  if (finished_) return;
  finished_ = true;
  finish_tool();
  reporter_.finish();
}

void Sanitizer::launch_begin(const exec::LaunchInfo& info) {
  kernel_ = demangle(info.kernel);
  program_ = info.program;
  grid_ = info.grid;
  block_ = info.block;
  shared_per_cta_ = info.shared_per_cta;
  if (opts_.nvtx) nvtx_view_ = nvtx_.view(0);
}

std::string Sanitizer::called(uint64_t base) const {
  if (!opts_.nvtx) return {};
  std::string n = nvtx_.name_of(base);
  return n.empty() ? n : " called " + n;
}

void* Sanitizer::cta_begin(uint32_t, Dim3, uint32_t) { return this; }

Dim3 Sanitizer::thread_of(exec::WarpRef w, uint32_t lane) const {
  const uint64_t t = uint64_t(w.warp_in_cta) * 32 + lane;
  const uint64_t bx = block_.x ? block_.x : 1, by = block_.y ? block_.y : 1;
  return Dim3{uint32_t(t % bx), uint32_t(t / bx % by), uint32_t(t / (bx * by))};
}

Dim3 Sanitizer::block_of(uint32_t cta_linear) const {
  const uint64_t gx = grid_.x ? grid_.x : 1, gy = grid_.y ? grid_.y : 1;
  return Dim3{uint32_t(cta_linear % gx), uint32_t(cta_linear / gx % gy), uint32_t(cta_linear / (gx * gy))};
}

std::vector<std::string> Sanitizer::where(const program::Function* fn, uint32_t pc, exec::WarpRef w,
                                          uint32_t lane) const {
  std::vector<std::string> v;
  if (fn) v = site_lines(*fn, pc, program_, true);
  v.push_back(fmt::format("by thread {} in block {}", dim(thread_of(w, lane)), dim(block_of(w.cta_linear))));
  return v;
}

Identity Sanitizer::site_identity(const char* kind, const program::Function* fn, uint32_t pc) const {
  Identity id;
  id.kind = kind;
  id.kernel = kernel_;
  if (fn && pc < fn->code.size()) {
    if (program_) id.location = program::describe_source(*program_, *fn, pc);
    if (id.location.empty()) id.location = fmt::format("PTX line {}", fn->code[pc].line);
  }
  return id;
}

void Sanitizer::add_frames(std::vector<std::string>& d, const program::Function* fn, uint32_t pc) const {
  if (!fn) return;
  for (std::string& f : device_frames(*fn, pc, program_)) d.push_back(std::move(f));
}

}  // namespace softgpu::sanitize
