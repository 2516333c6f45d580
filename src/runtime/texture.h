// The runtime's texture component: CUDA arrays, texture objects and surface
// objects of one Runtime (which owns it; src/runtime/texture.cpp). It
// reaches device memory only through the three calls it is given (the
// facade's malloc, free and memcpy_2d, so failures are recorded as the
// calling thread's last error as before).
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "exec/texture.h"
#include "runtime/runtime.h"

namespace softgpu::runtime {

class TextureManager {
 public:
  struct Device {
    std::function<Status(void** out, size_t size)> malloc;
    std::function<Status(void* p)> free;
    std::function<Status(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         CopyKind kind)>
        memcpy_2d;
  };
  explicit TextureManager(Device dev) : dev_(std::move(dev)) {}
  TextureManager(const TextureManager&) = delete;
  TextureManager& operator=(const TextureManager&) = delete;

  // The calls behind the free functions of the same names in runtime.h.
  Status array_create(void** out, const ChannelDesc& desc, size_t width, size_t height, size_t depth, unsigned flags);
  Status array_free(void* array);
  Status array_info(const void* array, ArrayInfo* out);
  Status array_copy_to(void* array, size_t woffset, size_t hoffset, const void* src, size_t spitch, size_t width,
                       size_t height, CopyKind kind);
  Status array_copy_from(void* dst, size_t dpitch, const void* array, size_t woffset, size_t hoffset, size_t width,
                         size_t height, CopyKind kind);
  Status copy_3d(const Copy3DSide& src, const Copy3DSide& dst, size_t width, size_t height, size_t depth,
                 CopyKind kind);
  Status texture_create(uint64_t* out, const ResourceSpec& res, const TextureSpec& tex);
  Status texture_destroy(uint64_t handle);
  Status texture_resource(uint64_t handle, ResourceSpec* out);
  Status texture_spec(uint64_t handle, TextureSpec* out);
  Status surface_create(uint64_t* out, const ResourceSpec& res);
  Status surface_destroy(uint64_t handle);
  Status surface_resource(uint64_t handle, ResourceSpec* out);
  // The registry launches read (ExecOptions::textures).
  const exec::TextureRegistry* registry() const { return &reg_; }

  struct Array {
    ArrayInfo info;
    exec::TexelFormat fmt;
    void* base = nullptr;
    size_t pitch = 0, rows = 1, slices = 1;  // rows per slice, slices (depth or layers)
  };

 private:
  Array* find_array(const void* a);
  Status resource_of(const ResourceSpec& spec, exec::TexResource* out);

  Device dev_;
  std::mutex mu_;
  exec::TextureRegistry reg_;
  std::unordered_map<const void*, std::unique_ptr<Array>> arrays_;
  std::unordered_map<uint64_t, std::pair<ResourceSpec, TextureSpec>> textures_;
  std::unordered_map<uint64_t, ResourceSpec> surfaces_;
};

}  // namespace softgpu::runtime
