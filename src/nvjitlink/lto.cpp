#include "nvjitlink/lto.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

namespace softgpu::nvjitlink {

namespace {

namespace fs = std::filesystem;

// NVIDIA's entry points by their unversioned names, which its library
// exports beside the versioned ones (nvJitLink.h's inline wrappers call those).
struct Nvidia {
  using Handle = void*;
  int (*create)(Handle*, uint32_t, const char**) = nullptr;
  int (*destroy)(Handle*) = nullptr;
  int (*add_data)(Handle, int, const void*, size_t, const char*) = nullptr;
  int (*complete)(Handle) = nullptr;
  int (*ptx_size)(Handle, size_t*) = nullptr;
  int (*ptx)(Handle, char*) = nullptr;
  int (*log_size[2])(Handle, size_t*) = {nullptr, nullptr};  // error, info
  int (*log[2])(Handle, char*) = {nullptr, nullptr};
  std::string path;
};

constexpr int kInputLtoir = 3;  // NVJITLINK_INPUT_LTOIR

template <class F>
bool bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  return f != nullptr;
}

// This library's own file, so that it never loads itself as NVIDIA's.
fs::path self_path() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&self_path), &info) || !info.dli_fname) return {};
  std::error_code ec;
  return fs::canonical(info.dli_fname, ec);
}

std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  if (const char* p = std::getenv("SOFTGPU_NVJITLINK"); p && *p) out.emplace_back(p);
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* d = std::getenv(var); d && *d) {
      out.push_back(fs::path(d) / "lib64/libnvJitLink.so.13");
      out.push_back(fs::path(d) / "lib/libnvJitLink.so.13");
    }
  out.push_back(fs::path(SOFTGPU_TOOLKIT_DIR) / "lib64/libnvJitLink.so.13");
  out.push_back("/usr/local/cuda/lib64/libnvJitLink.so.13");
  return out;
}

Result<const Nvidia*> load() {
  static std::once_flag once;
  static Nvidia nv;
  static std::string why;
  std::call_once(once, [] {
    const fs::path self = self_path();
    for (const fs::path& p : candidates()) {
      std::error_code ec;
      const fs::path real = fs::canonical(p, ec);
      if (ec || real == self) continue;
      void* lib = dlopen(real.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (!lib) continue;
      Nvidia n;
      n.path = real.string();
      if (bind(lib, "nvJitLinkCreate", n.create) && bind(lib, "nvJitLinkDestroy", n.destroy) &&
          bind(lib, "nvJitLinkAddData", n.add_data) && bind(lib, "nvJitLinkComplete", n.complete) &&
          bind(lib, "nvJitLinkGetLinkedPtxSize", n.ptx_size) && bind(lib, "nvJitLinkGetLinkedPtx", n.ptx) &&
          bind(lib, "nvJitLinkGetErrorLogSize", n.log_size[0]) && bind(lib, "nvJitLinkGetErrorLog", n.log[0]) &&
          bind(lib, "nvJitLinkGetInfoLogSize", n.log_size[1]) && bind(lib, "nvJitLinkGetInfoLog", n.log[1])) {
        nv = n;
        return;
      }
      dlclose(lib);
    }
    why = "NVIDIA's libnvJitLink.so.13 was not found (set SOFTGPU_NVJITLINK to its path, or CUDA_HOME)";
  });
  if (!nv.create) return Error{Status::NotSupported, why};
  return &nv;
}

std::string log_of(const Nvidia& nv, Nvidia::Handle h, int which) {
  size_t n = 0;
  if (nv.log_size[which](h, &n) != 0 || n == 0) return {};
  std::string s(n, '\0');
  if (nv.log[which](h, s.data()) != 0) return {};
  s.resize(s.find('\0') == std::string::npos ? s.size() : s.find('\0'));
  return s;
}

// NVIDIA's linker wants a real architecture for -lto -ptx: sm_ with the
// same number and suffix.
std::string sm_arch(const std::string& arch) {
  for (std::string_view prefix : {"compute_", "lto_"})
    if (arch.starts_with(prefix)) return "sm_" + arch.substr(prefix.size());
  return arch;
}

}  // namespace

Result<std::string> lto_to_ptx(const std::vector<LtoInput>& inputs, const LinkOptions& options, std::string& info) {
  auto loaded = load();
  if (!loaded) return loaded.error();
  const Nvidia& nv = **loaded;
  std::vector<std::string> opts{"-arch=" + sm_arch(options.arch), "-lto", "-ptx"};
  for (const std::string& o : options.passed)
    if (!o.starts_with("-arch=") && o != "-lto" && o != "-ptx" && !o.starts_with("-Xptxas")) opts.push_back(o);
  std::vector<const char*> argv;
  for (const auto& o : opts) argv.push_back(o.c_str());

  Nvidia::Handle h = nullptr;
  if (int r = nv.create(&h, uint32_t(argv.size()), argv.data()); r != 0)
    return Error{Status::InvalidValue, fmt::format("error   : NVIDIA's nvJitLinkCreate ({}) failed with {}", nv.path, r)};
  struct Closer {
    const Nvidia& nv;
    Nvidia::Handle& h;
    ~Closer() { nv.destroy(&h); }
  } closer{nv, h};
  int r = 0;
  for (const LtoInput& in : inputs)
    if ((r = nv.add_data(h, kInputLtoir, in.bytes.data(), in.bytes.size(), in.name.c_str())) != 0) break;
  if (r == 0) r = nv.complete(h);
  info += log_of(nv, h, 1);
  if (r != 0)
    return Error{Status::InvalidSource, fmt::format("error   : LTO through NVIDIA's nvJitLink failed ({}):\n{}", r,
                                                    log_of(nv, h, 0))};
  size_t n = 0;
  if (nv.ptx_size(h, &n) != 0 || n == 0) return Error{Status::InvalidSource, "error   : LTO gave no PTX"};
  std::string ptx(n, '\0');
  if (nv.ptx(h, ptx.data()) != 0) return Error{Status::InvalidSource, "error   : LTO gave no PTX"};
  ptx.resize(ptx.find('\0') == std::string::npos ? ptx.size() : ptx.find('\0'));
  info += fmt::format("info    : LTO-IR of {} inputs optimized to PTX by {}\n", inputs.size(), nv.path);
  return ptx;
}

}  // namespace softgpu::nvjitlink
