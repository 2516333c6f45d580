// nvJitLink's C ABI over runtime::PtxLinker (the linker behind cuLink*).
// The "cubin" a link hands back is softgpu's linked-PTX image; LTO-IR inputs
// are optimized to PTX first (lto.h). A handle is checked against the live
// ones, so a destroyed or made-up handle is an error, not a crash.
#define NVJITLINK_NO_INLINE  // the header's inline wrappers would clash with the definitions below
#include <nvJitLink.h>
#include <cuda.h>  // CUDA_VERSION, for nvJitLinkVersion

#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/read_file.h"
#include "nvjitlink/lto.h"
#include "nvjitlink/options.h"
#include "runtime/link.h"

struct nvJitLink {
  softgpu::nvjitlink::LinkOptions options;
  softgpu::runtime::PtxLinker linker;
  std::vector<softgpu::nvjitlink::LtoInput> lto;
  std::string error, info;  // this layer's messages; the linker keeps its own
  bool completed = false;
  std::string error_log, info_log;  // both parts, as last handed out
};

namespace {

using softgpu::Status;
using softgpu::runtime::LinkInput;

std::mutex live_mutex;
std::set<nvJitLinkHandle> live;

bool is_live(nvJitLinkHandle h) {
  std::lock_guard lock(live_mutex);
  return h && live.count(h);
}

template <class F>
nvJitLinkResult guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    return NVJITLINK_ERROR_INTERNAL;
  } catch (...) {
    return NVJITLINK_ERROR_INTERNAL;
  }
}

nvJitLinkResult result_of(Status s) {
  switch (s) {
    case Status::Success: return NVJITLINK_SUCCESS;
    case Status::InvalidPtx:
    case Status::UnsupportedPtxVersion: return NVJITLINK_ERROR_PTX_COMPILE;
    case Status::InvalidSource: return NVJITLINK_ERROR_NVVM_COMPILE;
    case Status::MemoryAllocation: return NVJITLINK_ERROR_INTERNAL;
    default: return NVJITLINK_ERROR_INVALID_INPUT;  // no PTX for the arch, a malformed image, LTO unavailable
  }
}

constexpr int kLtoir = NVJITLINK_INPUT_LTOIR;

// NVJITLINK_INPUT_ANY: what the bytes are, by their magic numbers.
int detect(const unsigned char* p, size_t n) {
  if (n >= 20 && std::memcmp(p, "\x7f" "ELF", 4) == 0) {
    const unsigned machine = p[18] | (p[19] << 8);
    return machine == 190 ? NVJITLINK_INPUT_CUBIN : NVJITLINK_INPUT_OBJECT;  // 190: EM_CUDA
  }
  if (n >= 8 && std::memcmp(p, "!<arch>\n", 8) == 0) return NVJITLINK_INPUT_LIBRARY;
  if (n >= 4 && std::memcmp(p, "\x50\xed\x55\xba", 4) == 0) return NVJITLINK_INPUT_FATBIN;
  if (n >= 4 && std::memcmp(p, "\xed\x43\x4e\x7f", 4) == 0) return kLtoir;
  return NVJITLINK_INPUT_PTX;
}

// nvJitLink's input types as cuLink's (runtime::LinkInput).
int as_link_input(int type) {
  switch (type) {
    case NVJITLINK_INPUT_CUBIN: return int(LinkInput::Cubin);
    case NVJITLINK_INPUT_PTX: return int(LinkInput::Ptx);
    case NVJITLINK_INPUT_FATBIN: return int(LinkInput::Fatbinary);
    case NVJITLINK_INPUT_OBJECT: return int(LinkInput::Object);
    case NVJITLINK_INPUT_LIBRARY: return int(LinkInput::Library);
    default: return -1;
  }
}

nvJitLinkResult add(nvJitLinkHandle h, int type, const void* data, size_t size, const char* name) {
  if (!is_live(h)) return NVJITLINK_ERROR_INVALID_INPUT;
  if (!data || !size) return NVJITLINK_ERROR_NULL_INPUT;
  if (h->completed) {
    h->error += "error   : input added after nvJitLinkComplete\n";
    return NVJITLINK_ERROR_INVALID_INPUT;
  }
  const std::string label = name && *name ? name : "<unnamed input>";
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (type == NVJITLINK_INPUT_ANY) type = detect(bytes, size);
  if (type == kLtoir) {
    const auto* b = static_cast<const std::byte*>(data);
    h->lto.push_back({label, std::vector<std::byte>(b, b + size)});
    return NVJITLINK_SUCCESS;
  }
  const int as_cu = as_link_input(type);
  if (as_cu < 0) {
    h->error += fmt::format("error   : '{}': input type {} is not supported by softgpu's nvJitLink\n", label, type);
    return NVJITLINK_ERROR_UNRECOGNIZED_INPUT;
  }
  return result_of(h->linker.add(as_cu, {static_cast<const std::byte*>(data), size}, label));
}

// The logs as one text each: this layer's lines, then the linker's.
void refresh_logs(nvJitLinkHandle h) {
  h->error_log = h->error + h->linker.error_log();
  h->info_log = h->info + h->linker.info_log();
}

nvJitLinkResult copy_out(const std::string& s, char* out) {
  if (!out) return NVJITLINK_ERROR_NULL_INPUT;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return NVJITLINK_SUCCESS;
}

using Log = std::string nvJitLink::*;

// nvJitLinkGet{Error,Info}Log{Size,}: the size with its terminator, the text.
nvJitLinkResult log_size(nvJitLinkHandle h, Log log, size_t* size) {
  if (!is_live(h)) return NVJITLINK_ERROR_INVALID_INPUT;
  if (!size) return NVJITLINK_ERROR_NULL_INPUT;
  refresh_logs(h);
  *size = (h->*log).size() + 1;
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult log_text(nvJitLinkHandle h, Log log, char* out) {
  if (!is_live(h)) return NVJITLINK_ERROR_INVALID_INPUT;
  refresh_logs(h);
  return copy_out(h->*log, out);
}

// The PTX a link can hand back: NVIDIA's gives it for -lto -ptx; softgpu's
// has it whenever the link holds one module (PTX modules do not merge).
const std::string* linked_ptx(nvJitLinkHandle h) {
  const auto& modules = h->linker.modules();
  return modules.size() == 1 ? &modules.front().text : nullptr;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle* handle,
                                                                               uint32_t numOptions,
                                                                               const char* const* options) {
  return guarded([&] {
    if (!handle || (numOptions && !options)) return NVJITLINK_ERROR_NULL_INPUT;
    *handle = nullptr;
    std::vector<std::string_view> opts;
    for (uint32_t i = 0; i < numOptions; ++i) {
      if (!options[i]) return NVJITLINK_ERROR_NULL_INPUT;
      opts.emplace_back(options[i]);
    }
    auto parsed = softgpu::nvjitlink::parse_options(opts);
    if (!parsed) {
      // NVIDIA's library prints nothing here; the message goes to stderr,
      // since no handle exists to carry a log.
      fmt::print(stderr, "softgpu nvJitLink: {}\n", parsed.error().message);
      switch (parsed.error().status) {
        case Status::NotFound: return NVJITLINK_ERROR_MISSING_ARCH;
        case Status::InvalidDevice: return NVJITLINK_ERROR_UNRECOGNIZED_ARCH;
        default: return NVJITLINK_ERROR_UNRECOGNIZED_OPTION;
      }
    }
    auto* h = new nvJitLink{*parsed, softgpu::runtime::PtxLinker(parsed->cc), {}, {}, {}, false, {}, {}};
    std::lock_guard lock(live_mutex);
    live.insert(h);
    *handle = h;
    return NVJITLINK_SUCCESS;
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle* handle) {
  return guarded([&] {
    if (!handle) return NVJITLINK_ERROR_NULL_INPUT;
    {
      std::lock_guard lock(live_mutex);
      if (!*handle || !live.erase(*handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    }
    delete *handle;
    *handle = nullptr;
    return NVJITLINK_SUCCESS;
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkAddData_13_0(nvJitLinkHandle handle,
                                                                                nvJitLinkInputType inputType,
                                                                                const void* data, size_t size,
                                                                                const char* name) {
  return guarded([&] { return add(handle, inputType, data, size, name); });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkAddFile_13_0(nvJitLinkHandle handle,
                                                                                nvJitLinkInputType inputType,
                                                                                const char* fileName) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (!fileName) return NVJITLINK_ERROR_NULL_INPUT;
    auto read = softgpu::read_regular_file(fileName, softgpu::kMaxSourceFileBytes);
    if (!read) {
      handle->error += fmt::format("error   : {}\n", read.error().message);
      return NVJITLINK_ERROR_INVALID_INPUT;
    }
    return add(handle, inputType, read->data(), read->size(), fileName);
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkComplete_13_0(nvJitLinkHandle handle) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (handle->completed) return NVJITLINK_SUCCESS;
    if (!handle->lto.empty()) {
      auto ptx = softgpu::nvjitlink::lto_to_ptx(handle->lto, handle->options, handle->info);
      if (!ptx) {
        handle->error += ptx.error().message + "\n";
        return ptx.error().status == Status::NotSupported ? NVJITLINK_ERROR_INVALID_INPUT
                                                          : NVJITLINK_ERROR_NVVM_COMPILE;
      }
      std::string& text = *ptx;
      if (nvJitLinkResult r = result_of(handle->linker.add(int(LinkInput::Ptx),
                                                           {reinterpret_cast<const std::byte*>(text.data()), text.size()},
                                                           "<LTO>"));
          r != NVJITLINK_SUCCESS)
        return r;
      handle->lto.clear();
    }
    if (Status s = handle->linker.complete(); s != Status::Success)
      return s == static_cast<Status>(200) ? NVJITLINK_ERROR_FINALIZE : result_of(s);  // 200: unresolved or doubled symbols
    handle->completed = true;
    return NVJITLINK_SUCCESS;
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle handle,
                                                                                          size_t* size) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (!size) return NVJITLINK_ERROR_NULL_INPUT;
    if (!handle->completed) return NVJITLINK_ERROR_INTERNAL;
    *size = handle->linker.image().size() + 1;  // with the NUL, as cuModuleLoadData reads it
    return NVJITLINK_SUCCESS;
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle handle,
                                                                                      void* cubin) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (!handle->completed) return NVJITLINK_ERROR_INTERNAL;
    return copy_out(std::string(handle->linker.image()), static_cast<char*>(cubin));
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetLinkedPtxSize_13_0(nvJitLinkHandle handle,
                                                                                        size_t* size) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (!size) return NVJITLINK_ERROR_NULL_INPUT;
    if (!handle->completed) return NVJITLINK_ERROR_INTERNAL;
    const std::string* ptx = linked_ptx(handle);
    if (!ptx) {
      handle->error += fmt::format("error   : the link holds {} PTX modules; softgpu's nvJitLink hands back "
                                   "linked PTX only for one (use the cubin, which holds them all)\n",
                                   handle->linker.modules().size());
      return NVJITLINK_ERROR_INTERNAL;
    }
    *size = ptx->size() + 1;
    return NVJITLINK_SUCCESS;
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetLinkedPtx_13_0(nvJitLinkHandle handle,
                                                                                    char* ptx) {
  return guarded([&] {
    if (!is_live(handle)) return NVJITLINK_ERROR_INVALID_INPUT;
    if (!handle->completed) return NVJITLINK_ERROR_INTERNAL;
    const std::string* text = linked_ptx(handle);
    if (!text) return NVJITLINK_ERROR_INTERNAL;
    return copy_out(*text, ptx);
  });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetErrorLogSize_13_0(nvJitLinkHandle handle,
                                                                                       size_t* size) {
  return guarded([&] { return log_size(handle, &nvJitLink::error_log, size); });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetErrorLog_13_0(nvJitLinkHandle handle,
                                                                                   char* log) {
  return guarded([&] { return log_text(handle, &nvJitLink::error_log, log); });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetInfoLogSize_13_0(nvJitLinkHandle handle,
                                                                                      size_t* size) {
  return guarded([&] { return log_size(handle, &nvJitLink::info_log, size); });
}

__attribute__((visibility("default"))) nvJitLinkResult __nvJitLinkGetInfoLog_13_0(nvJitLinkHandle handle,
                                                                                  char* log) {
  return guarded([&] { return log_text(handle, &nvJitLink::info_log, log); });
}

__attribute__((visibility("default"))) nvJitLinkResult nvJitLinkVersion(unsigned int* major, unsigned int* minor) {
  if (!major || !minor) return NVJITLINK_ERROR_NULL_INPUT;
  *major = CUDA_VERSION / 1000;
  *minor = CUDA_VERSION % 1000 / 10;
  return NVJITLINK_SUCCESS;
}

// The unversioned names NVIDIA's library exports too (programs built
// without the header's wrappers, and dlsym by name).
#define SOFTGPU_ALIAS(ret, name, params, versioned) \
  __attribute__((visibility("default"), alias(#versioned))) ret name params;
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkCreate, (nvJitLinkHandle*, uint32_t, const char* const*), __nvJitLinkCreate_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkDestroy, (nvJitLinkHandle*), __nvJitLinkDestroy_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkAddData, (nvJitLinkHandle, nvJitLinkInputType, const void*, size_t, const char*),
              __nvJitLinkAddData_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkAddFile, (nvJitLinkHandle, nvJitLinkInputType, const char*),
              __nvJitLinkAddFile_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkComplete, (nvJitLinkHandle), __nvJitLinkComplete_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetLinkedCubinSize, (nvJitLinkHandle, size_t*),
              __nvJitLinkGetLinkedCubinSize_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetLinkedCubin, (nvJitLinkHandle, void*), __nvJitLinkGetLinkedCubin_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetLinkedPtxSize, (nvJitLinkHandle, size_t*), __nvJitLinkGetLinkedPtxSize_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetLinkedPtx, (nvJitLinkHandle, char*), __nvJitLinkGetLinkedPtx_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetErrorLogSize, (nvJitLinkHandle, size_t*), __nvJitLinkGetErrorLogSize_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetErrorLog, (nvJitLinkHandle, char*), __nvJitLinkGetErrorLog_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetInfoLogSize, (nvJitLinkHandle, size_t*), __nvJitLinkGetInfoLogSize_13_0)
SOFTGPU_ALIAS(nvJitLinkResult, nvJitLinkGetInfoLog, (nvJitLinkHandle, char*), __nvJitLinkGetInfoLog_13_0)
#undef SOFTGPU_ALIAS

}  // extern "C"
