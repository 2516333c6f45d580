#include "runtime/link.h"

#include <cstring>
#include <map>

#include <fmt/format.h>

#include "fatbin/cubin.h"
#include "fatbin/fatbin.h"
#include "ptx/parser.h"

namespace softgpu::runtime {

namespace {

constexpr Status kInvalidImage = static_cast<Status>(200);  // CUDA_ERROR_INVALID_IMAGE
constexpr std::string_view kMagic = "// softgpu: PTX modules linked by cuLinkComplete";
constexpr std::string_view kModuleLine = "//softgpu-module ";

bool is_builtin(std::string_view name) {
  return name == "vprintf" || name == "malloc" || name == "free" || name == "__assertfail";
}

// `.extern .shared` declares the kernel's dynamic shared memory: no module
// defines it.
bool is_extern_use(const ptx::Module& m, size_t g) {
  return g < m.global_linkage.size() && m.global_linkage[g] == ptx::Linkage::Extern &&
         m.globals[g].space != ptx::Space::Shared;
}

// NVIDIA's device runtime (libcudadevrt.a) holds machine code only. What
// code linked against it calls from it, softgpu defines here in PTX:
// cooperative groups' grid synchronization as Numba-CUDA compiles it
// (cudaCGGetIntrinsicHandle(scope) -> handle; cudaCGSynchronize(handle,
// flags) -> cudaError_t). The handle is the cooperative launch's grid
// workspace (%envreg1:%envreg2, exec/launch.cpp), whose second word is the
// barrier: one thread per CTA adds 1 to it, the CTA at (0,0,0) adds
// 0x80000000 - (CTAs - 1), so the top bit flips when the last CTA arrives;
// each waits for its flip.
constexpr std::string_view kDeviceRuntimeName = "softgpu device runtime (in place of libcudadevrt.a)";
constexpr std::string_view kDeviceRuntimePtx = R"(.version 7.0
.target sm_70
.address_size 64

.visible .func (.param .b64 handle) cudaCGGetIntrinsicHandle(.param .b32 scope)
{
  .reg .b32 %hi, %lo;
  .reg .b64 %h, %l;
  mov.u32 %hi, %envreg1;
  mov.u32 %lo, %envreg2;
  cvt.u64.u32 %h, %hi;
  shl.b64 %h, %h, 32;
  cvt.u64.u32 %l, %lo;
  or.b64 %h, %h, %l;
  st.param.b64 [handle], %h;
  ret;
}

.visible .func (.param .b32 status) cudaCGSynchronize(.param .b64 handle, .param .b32 flags)
{
  .reg .pred %p<3>;
  .reg .b32 %r<12>;
  .reg .b64 %ws;
  ld.param.u64 %ws, [handle];
  bar.sync 0;
  mov.u32 %r0, %tid.x;
  mov.u32 %r1, %tid.y;
  or.b32 %r0, %r0, %r1;
  mov.u32 %r1, %tid.z;
  or.b32 %r0, %r0, %r1;
  setp.ne.u32 %p0, %r0, 0;
  @%p0 bra DONE;
  mov.u32 %r3, %nctaid.x;
  mov.u32 %r4, %nctaid.y;
  mul.lo.u32 %r3, %r3, %r4;
  mov.u32 %r4, %nctaid.z;
  mul.lo.u32 %r3, %r3, %r4;
  mov.u32 %r5, %ctaid.x;
  mov.u32 %r6, %ctaid.y;
  or.b32 %r5, %r5, %r6;
  mov.u32 %r6, %ctaid.z;
  or.b32 %r5, %r5, %r6;
  setp.eq.u32 %p1, %r5, 0;
  sub.u32 %r7, 0x80000001, %r3;
  selp.b32 %r8, %r7, 1, %p1;
  membar.gl;
  atom.global.add.u32 %r9, [%ws+4], %r8;
SPIN:
  ld.volatile.global.u32 %r10, [%ws+4];
  xor.b32 %r11, %r10, %r9;
  and.b32 %r11, %r11, 0x80000000;
  setp.eq.u32 %p2, %r11, 0;
  @%p2 bra SPIN;
  membar.gl;
DONE:
  bar.sync 0;
  mov.u32 %r0, 0;
  st.param.b32 [status], %r0;
  ret;
}
)";

std::string_view as_text(std::span<const std::byte> b) {
  const char* p = reinterpret_cast<const char*>(b.data());
  return {p, strnlen(p, b.size())};
}

// The members of an ar archive ("!<arch>\n", 60-byte member headers, data
// padded to even offsets); the symbol table and long-name table are skipped.
struct Member {
  std::string name;
  std::span<const std::byte> data;
};

Result<std::vector<Member>> ar_members(std::span<const std::byte> ar) {
  constexpr std::string_view kArMagic = "!<arch>\n";
  if (ar.size() < kArMagic.size() || std::memcmp(ar.data(), kArMagic.data(), kArMagic.size()) != 0)
    return Error{kInvalidImage, "not an ar archive (no !<arch> header)"};
  std::vector<Member> out;
  std::string_view long_names;
  size_t off = kArMagic.size();
  while (off + 60 <= ar.size()) {
    const char* h = reinterpret_cast<const char*>(ar.data() + off);
    if (h[58] != '`' || h[59] != '\n') return Error{kInvalidImage, fmt::format("archive member header at {} is damaged", off)};
    std::string_view raw_name(h, 16);
    uint64_t size = 0;
    for (int i = 48; i < 58 && h[i] >= '0' && h[i] <= '9'; ++i) size = size * 10 + uint64_t(h[i] - '0');
    off += 60;
    if (size > ar.size() - off) return Error{kInvalidImage, fmt::format("archive member at {} runs past the end", off)};
    auto data = ar.subspan(off, size);
    off += size + (size & 1);
    raw_name = raw_name.substr(0, raw_name.find_last_not_of(' ') + 1);
    if (raw_name == "/" || raw_name == "/SYM64/") continue;  // symbol tables
    if (raw_name == "//") {
      long_names = std::string_view(reinterpret_cast<const char*>(data.data()), data.size());
      continue;
    }
    std::string name(raw_name);
    if (name.size() > 1 && name[0] == '/' && name[1] >= '0' && name[1] <= '9') {
      const size_t at = size_t(std::strtoull(name.c_str() + 1, nullptr, 10));
      if (at < long_names.size()) name = std::string(long_names.substr(at, long_names.find('\n', at) - at));
    }
    if (!name.empty() && name.back() == '/') name.pop_back();
    out.push_back({std::move(name), data});
  }
  return out;
}

bool is_device_runtime(const std::vector<Member>& members) {
  for (const auto& m : members)
    if (m.name == "cuda_device_runtime.o") return true;
  return false;
}

}  // namespace

Status PtxLinker::fail(Status s, std::string message) {
  error_ += message;
  if (!error_.empty() && error_.back() != '\n') error_ += '\n';
  return s;
}

Status PtxLinker::add(int type, std::span<const std::byte> data, const std::string& name) {
  if (data.empty()) return fail(Status::InvalidValue, fmt::format("error   : '{}' is empty", name));
  switch (static_cast<LinkInput>(type)) {
    case LinkInput::Ptx:
      return add_ptx(std::string(as_text(data)), name);
    case LinkInput::Fatbinary:
      return add_fatbin(data, name);
    case LinkInput::Object:
      return add_object(data, name, false);
    case LinkInput::Library:
      return add_library(data, name);
    case LinkInput::Cubin:
      return fail(Status::NoKernelImageForDevice,
                  fmt::format("error   : '{}' is a cubin (machine code only); softgpu runs PTX: add the PTX "
                              "(CU_JIT_INPUT_PTX) or a fatbinary that embeds it",
                              name));
    case LinkInput::Nvvm:
      return fail(Status::NotSupported,
                  fmt::format("error   : '{}': LTO-IR (CU_JIT_INPUT_NVVM) is not supported by softgpu, which "
                              "runs PTX; add the PTX instead",
                              name));
  }
  return fail(Status::InvalidValue, fmt::format("error   : '{}': unknown input type {}", name, type));
}

Status PtxLinker::add_ptx(std::string text, const std::string& name) {
  auto r = ptx::parse(text, name);
  if (!r.module || ptx::has_errors(r.diagnostics))
    return fail(r.unsupported_version ? Status::UnsupportedPtxVersion : Status::InvalidPtx,
                "error   : cannot parse PTX:\n" + ptx::render(r.diagnostics, text));
  modules_.push_back({name, std::move(text)});
  parsed_.push_back(std::move(*r.module));
  info_ += fmt::format("info    : added PTX '{}'\n", name);
  return Status::Success;
}

Status PtxLinker::add_fatbin(std::span<const std::byte> data, const std::string& name) {
  auto containers = fatbin::read_section(data);
  if (!containers) return fail(kInvalidImage, fmt::format("error   : '{}': {}", name, containers.error().message));
  const size_t before = modules_.size();
  for (size_t i = 0; i < containers.value().size(); ++i) {
    const fatbin::Container& c = containers.value()[i];
    const fatbin::PtxEntry* e = c.ptx_for(cc_);
    if (!e) {
      modules_.resize(before);
      parsed_.resize(before);
      return fail(Status::NoKernelImageForDevice,
                  fmt::format("error   : '{}' holds no PTX for compute capability {}.{} or lower "
                              "(softgpu runs PTX: build with -gencode arch=compute_XX,code=compute_XX)",
                              name, cc_ / 10, cc_ % 10));
    }
    const std::string module_name =
        containers.value().size() == 1 ? name : fmt::format("{}#{}", name, i);
    if (Status s = add_ptx(e->text, module_name); s != Status::Success) {
      modules_.resize(before);
      parsed_.resize(before);
      return s;
    }
  }
  return Status::Success;
}

Status PtxLinker::add_object(std::span<const std::byte> data, const std::string& name, bool in_library) {
  std::vector<std::span<const std::byte>> fatbins;
  for (const char* section : {".nv_fatbin", "__nv_relfatbin"}) {
    auto secs = fatbin::elf_sections(data, section);
    if (!secs) return fail(kInvalidImage, fmt::format("error   : '{}': {}", name, secs.error().message));
    fatbins.insert(fatbins.end(), secs.value().begin(), secs.value().end());
  }
  if (fatbins.empty()) {
    if (in_library) return Status::Success;  // a host-only member
    return fail(kInvalidImage, fmt::format("error   : '{}' holds no device code (no .nv_fatbin section)", name));
  }
  const size_t before = modules_.size();
  for (auto f : fatbins)
    if (Status s = add_fatbin(f, name); s != Status::Success) {
      modules_.resize(before);
      parsed_.resize(before);
      return s;
    }
  return Status::Success;
}

Status PtxLinker::add_library(std::span<const std::byte> data, const std::string& name) {
  auto members = ar_members(data);
  if (!members) return fail(members.error().status, fmt::format("error   : '{}': {}", name, members.error().message));
  if (is_device_runtime(members.value())) {
    for (const auto& m : modules_)
      if (m.name == kDeviceRuntimeName) return Status::Success;  // linked once
    info_ += fmt::format("info    : '{}' is NVIDIA's device runtime (machine code); softgpu links its own\n", name);
    return add_ptx(std::string(kDeviceRuntimePtx), std::string(kDeviceRuntimeName));
  }
  const size_t before = modules_.size();
  for (const Member& m : members.value()) {
    if (m.data.size() < 4 || std::memcmp(m.data.data(), "\x7f" "ELF", 4) != 0) continue;
    if (Status s = add_object(m.data, fmt::format("{}({})", name, m.name), true); s != Status::Success) {
      modules_.resize(before);
      parsed_.resize(before);
      return s;
    }
  }
  if (modules_.size() == before)
    return fail(kInvalidImage, fmt::format("error   : library '{}' holds no device code with PTX", name));
  return Status::Success;
}

Status PtxLinker::complete() {
  if (modules_.empty()) return fail(Status::InvalidValue, "error   : nothing to link (no input was added)");
  // Definitions first, then every use must find one.
  std::map<std::string, std::string, std::less<>> functions, variables;  // name -> module defining it
  std::string errors;
  for (size_t i = 0; i < parsed_.size(); ++i) {
    const ptx::Module& m = parsed_[i];
    for (const auto& f : m.functions) {
      if (!f.body) continue;
      auto [it, fresh] = functions.try_emplace(f.name, modules_[i].name);
      if (!fresh && f.linkage != ptx::Linkage::Weak)
        errors += fmt::format("error   : multiple definition of '{}' in '{}', first defined in '{}'\n", f.name,
                              modules_[i].name, it->second);
    }
    for (size_t g = 0; g < m.globals.size(); ++g) {
      const bool is_extern = g < m.global_linkage.size() && m.global_linkage[g] == ptx::Linkage::Extern;
      if (!is_extern) variables.try_emplace(m.globals[g].name, modules_[i].name);
    }
  }
  for (size_t i = 0; i < parsed_.size(); ++i) {
    const ptx::Module& m = parsed_[i];
    for (const auto& f : m.functions)
      if (!f.body && !is_builtin(f.name) && !functions.count(f.name))
        errors += fmt::format("error   : undefined reference to '{}' in '{}'\n", f.name, modules_[i].name);
    for (size_t g = 0; g < m.globals.size(); ++g) {
      if (is_extern_use(m, g) && !variables.count(m.globals[g].name))
        errors += fmt::format("error   : undefined reference to '{}' in '{}'\n", m.globals[g].name, modules_[i].name);
    }
  }
  if (!errors.empty()) return fail(kInvalidImage, errors);
  image_ = fmt::format("{}: {} modules\n", kMagic, modules_.size());
  for (const auto& m : modules_) {
    std::string name = m.name;
    for (char& c : name)
      if (c == '\n' || c == '\r') c = ' ';
    image_ += fmt::format("{}{} {}\n", kModuleLine, m.text.size(), name);
    image_ += m.text;
    image_ += '\n';
  }
  info_ += fmt::format("info    : linked {} PTX modules\n", modules_.size());
  return Status::Success;
}

bool is_linked_image(std::string_view text) { return text.starts_with(kMagic); }

Result<std::vector<LinkedModule>> read_linked_image(std::string_view text) {
  auto bad = [](std::string why) { return Error{kInvalidImage, "linked image: " + why}; };
  if (!is_linked_image(text)) return bad("no header line");
  size_t off = text.find('\n');
  if (off == std::string_view::npos) return bad("the header line does not end");
  ++off;
  std::vector<LinkedModule> out;
  while (off < text.size()) {
    const std::string_view rest = text.substr(off);
    if (!rest.starts_with(kModuleLine)) return bad(fmt::format("expected a module line at byte {}", off));
    const size_t eol = rest.find('\n');
    if (eol == std::string_view::npos) return bad(fmt::format("the module line at byte {} does not end", off));
    std::string_view line = rest.substr(kModuleLine.size(), eol - kModuleLine.size());
    uint64_t len = 0;
    size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9' && digits < 12)
      len = len * 10 + uint64_t(line[digits++] - '0');
    if (!digits) return bad(fmt::format("no length on the module line at byte {}", off));
    std::string name(line.substr(std::min(line.size(), digits + 1)));
    const size_t start = off + eol + 1;
    if (len > text.size() - start) return bad(fmt::format("module '{}' runs past the end of the image", name));
    out.push_back({std::move(name), std::string(text.substr(start, len))});
    off = start + len;
    if (off < text.size() && text[off] == '\n') ++off;
  }
  if (out.empty()) return bad("no module");
  return out;
}

}  // namespace softgpu::runtime
