// CUDA arrays, texture objects and surface objects. Arrays are ordinary
// device allocations (dense rows, so the executor addresses texels directly);
// the handles and their descriptions live in the TextureManager each
// Runtime owns (runtime/texture.h).
#include "runtime/texture.h"

#include <memory>
#include <mutex>
#include <unordered_map>

#include "exec/texture.h"

namespace softgpu::runtime {
namespace {

// Formats CUDA arrays and textures accept: 1, 2 or 4 equal channels of 8, 16
// or 32 bits, signed/unsigned integer or float (16-bit float = half).
std::optional<exec::TexelFormat> format_of(const ChannelDesc& d) {
  const int c[4] = {d.x, d.y, d.z, d.w};
  int n = 0;
  while (n < 4 && c[n] != 0) ++n;
  for (int i = n; i < 4; ++i)
    if (c[i] != 0) return std::nullopt;
  if (n != 1 && n != 2 && n != 4) return std::nullopt;
  for (int i = 1; i < n; ++i)
    if (c[i] != c[0]) return std::nullopt;
  if (c[0] != 8 && c[0] != 16 && c[0] != 32) return std::nullopt;
  if (d.kind < 0 || d.kind > 2) return std::nullopt;
  if (d.kind == 2 && c[0] == 8) return std::nullopt;
  exec::TexelFormat f;
  f.kind = exec::TexelFormat::Kind(d.kind);
  f.channels = uint8_t(n);
  f.bits = uint8_t(c[0]);
  return f;
}

exec::TexResource resource_of_array(const TextureManager::Array& a) {
  exec::TexResource r;
  r.kind = exec::TexResource::Kind::Array;
  r.base = reinterpret_cast<uint64_t>(a.base);
  r.fmt = a.fmt;
  r.pitch = a.pitch;
  r.slice_pitch = a.pitch * a.rows;
  r.layered = a.info.flags & kArrayLayered;
  r.width = uint32_t(a.info.width);
  if (r.layered) {
    r.dims = a.info.height ? 2 : 1;
    r.height = a.info.height ? uint32_t(a.info.height) : uint32_t(a.info.depth);  // 1-D: layers in height
    r.depth = a.info.height ? uint32_t(a.info.depth) : 1;
  } else {
    r.dims = a.info.depth ? 3 : a.info.height ? 2 : 1;
    r.height = a.info.height ? uint32_t(a.info.height) : 1;
    r.depth = a.info.depth ? uint32_t(a.info.depth) : 1;
  }
  return r;
}

}  // namespace

TextureManager::Array* TextureManager::find_array(const void* a) {
  auto it = arrays_.find(a);
  return it == arrays_.end() ? nullptr : it->second.get();
}

Status TextureManager::resource_of(const ResourceSpec& spec, exec::TexResource* out) {
  switch (spec.kind) {
    case ResourceSpec::Array: {
      Array* a = find_array(spec.array);
      if (!a) return Status::InvalidResourceHandle;
      *out = resource_of_array(*a);
      return Status::Success;
    }
    case ResourceSpec::Linear:
    case ResourceSpec::Pitch2D: {
      auto f = format_of(spec.desc);
      if (!f || !spec.ptr) return Status::InvalidValue;
      exec::TexResource r;
      r.fmt = *f;
      r.base = reinterpret_cast<uint64_t>(spec.ptr);
      if (spec.kind == ResourceSpec::Linear) {
        if (spec.size_bytes == 0 || spec.size_bytes % f->bytes()) return Status::InvalidValue;
        r.kind = exec::TexResource::Kind::Linear;
        r.width = uint32_t(spec.size_bytes / f->bytes());
        r.pitch = r.slice_pitch = spec.size_bytes;
      } else {
        if (spec.width == 0 || spec.height == 0 || spec.pitch < spec.width * f->bytes()) return Status::InvalidValue;
        r.kind = exec::TexResource::Kind::Pitch2D;
        r.dims = 2;
        r.width = uint32_t(spec.width);
        r.height = uint32_t(spec.height);
        r.pitch = spec.pitch;
        r.slice_pitch = spec.pitch * spec.height;
      }
      *out = r;
      return Status::Success;
    }
    default:
      return Status::InvalidValue;  // mipmapped arrays are not supported
  }
}

Status TextureManager::array_create(void** out, const ChannelDesc& desc, size_t width, size_t height, size_t depth,
                    unsigned flags) {
  if (!out) return Status::InvalidValue;
  auto f = format_of(desc);
  if (!f) return Status::InvalidValue;  // CUDA: cudaErrorInvalidChannelDescriptor (no Status for it yet)
  if (width == 0 || (depth && !height && !(flags & kArrayLayered))) return Status::InvalidValue;
  if ((flags & kArrayLayered) && depth == 0) return Status::InvalidValue;
  if (flags & ~(kArrayLayered | kArraySurfaceLoadStore)) return Status::InvalidValue;
  auto a = std::make_unique<Array>();
  a->info = {desc, width, height, depth, flags};
  a->fmt = *f;
  a->pitch = width * f->bytes();
  a->rows = height ? height : 1;
  a->slices = depth ? depth : 1;
  void* p = nullptr;
  if (Status st = dev_.malloc(&p, a->pitch * a->rows * a->slices); st != Status::Success) return st;
  a->base = p;
  std::lock_guard lk(mu_);
  *out = a.get();
  arrays_[a.get()] = std::move(a);
  return Status::Success;
}

Status TextureManager::array_free(void* array) {
  if (!array) return Status::Success;  // cudaFreeArray(NULL) is a no-op
  std::unique_ptr<Array> a;
  {
    std::lock_guard lk(mu_);
    auto it = arrays_.find(array);
    if (it == arrays_.end()) return Status::InvalidValue;
    a = std::move(it->second);
    arrays_.erase(it);
  }
  return dev_.free(a->base);
}

Status TextureManager::array_info(const void* array, ArrayInfo* out) {
  std::lock_guard lk(mu_);
  Array* a = find_array(array);
  if (!a) return Status::InvalidResourceHandle;
  if (out) *out = a->info;
  return Status::Success;
}

Status TextureManager::array_copy_to(void* array, size_t woffset, size_t hoffset, const void* src, size_t spitch,
                     size_t width, size_t height, CopyKind kind) {
  Array a;
  {
    std::lock_guard lk(mu_);
    Array* p = find_array(array);
    if (!p) return Status::InvalidResourceHandle;
    a = *p;
  }
  if (woffset + width > a.pitch || hoffset + height > a.rows * a.slices) return Status::InvalidValue;
  if (kind == CopyKind::HostToHost || kind == CopyKind::DeviceToHost) return Status::InvalidMemcpyDirection;
  auto* dst = static_cast<std::byte*>(a.base) + hoffset * a.pitch + woffset;
  return dev_.memcpy_2d(dst, a.pitch, src, spitch, width, height, kind);
}

Status TextureManager::array_copy_from(void* dst, size_t dpitch, const void* array, size_t woffset, size_t hoffset,
                       size_t width, size_t height, CopyKind kind) {
  Array a;
  {
    std::lock_guard lk(mu_);
    Array* p = find_array(array);
    if (!p) return Status::InvalidResourceHandle;
    a = *p;
  }
  if (woffset + width > a.pitch || hoffset + height > a.rows * a.slices) return Status::InvalidValue;
  if (kind == CopyKind::HostToHost || kind == CopyKind::HostToDevice) return Status::InvalidMemcpyDirection;
  const auto* src = static_cast<const std::byte*>(a.base) + hoffset * a.pitch + woffset;
  return dev_.memcpy_2d(dst, dpitch, src, a.pitch, width, height, kind);
}

Status TextureManager::copy_3d(const Copy3DSide& src, const Copy3DSide& dst, size_t width, size_t height, size_t depth,
               CopyKind kind) {
  // Resolve each side to (base, pitch, rows per slice, element size for x).
  struct Side { std::byte* base; size_t pitch, rows, elem, row_bytes, slices; };
  auto resolve = [&](const Copy3DSide& c, Side* out) -> Status {
    if ((c.array != nullptr) == (c.ptr != nullptr)) return Status::InvalidValue;
    if (c.array) {
      std::lock_guard lk(mu_);
      Array* a = find_array(c.array);
      if (!a) return Status::InvalidResourceHandle;
      *out = {static_cast<std::byte*>(a->base), a->pitch, a->rows, a->fmt.bytes(), a->pitch, a->slices};
    } else {
      const size_t rows = c.ysize ? c.ysize : height;
      *out = {static_cast<std::byte*>(c.ptr), c.pitch, rows, 1, c.pitch, size_t(-1)};
    }
    return Status::Success;
  };
  Side S, D;
  if (Status st = resolve(src, &S); st != Status::Success) return st;
  if (Status st = resolve(dst, &D); st != Status::Success) return st;
  // With an array on either side the extent's width counts elements.
  const size_t elem = src.array ? S.elem : dst.array ? D.elem : 1;
  const size_t wbytes = width * elem;
  if (width == 0 || height == 0 || depth == 0) return Status::Success;
  auto fits = [&](const Copy3DSide& c, const Side& sd) {
    const size_t x = c.pos.x * (c.array ? sd.elem : 1);
    return x + wbytes <= sd.row_bytes && c.pos.y + height <= sd.rows && (c.array == nullptr || c.pos.z + depth <= sd.slices);
  };
  if (!fits(src, S) || !fits(dst, D)) return Status::InvalidValue;
  for (size_t z = 0; z < depth; ++z) {
    const std::byte* sp = S.base + (src.pos.z + z) * S.pitch * S.rows + src.pos.y * S.pitch + src.pos.x * (src.array ? S.elem : 1);
    std::byte* dp = D.base + (dst.pos.z + z) * D.pitch * D.rows + dst.pos.y * D.pitch + dst.pos.x * (dst.array ? D.elem : 1);
    if (Status st = dev_.memcpy_2d(dp, D.pitch, sp, S.pitch, wbytes, height, kind); st != Status::Success) return st;
  }
  return Status::Success;
}

Status TextureManager::texture_create(uint64_t* out, const ResourceSpec& res, const TextureSpec& tex) {
  if (!out) return Status::InvalidValue;
  std::lock_guard lk(mu_);
  exec::TextureObject t;
  if (Status st = resource_of(res, &t.res); st != Status::Success) return st;
  for (int d = 0; d < 3; ++d) {
    if (tex.address[d] < 0 || tex.address[d] > 3) return Status::InvalidValue;
    t.sampler.address[d] = exec::AddressMode(tex.address[d]);
  }
  if (tex.filter < 0 || tex.filter > 1 || tex.read_mode < 0 || tex.read_mode > 1) return Status::InvalidValue;
  if (tex.srgb) return Status::InvalidValue;  // sRGB conversion is not implemented
  t.sampler.linear = tex.filter == 1;
  t.sampler.normalized_float = tex.read_mode == 1 && t.res.fmt.kind != exec::TexelFormat::Kind::Float &&
                               t.res.fmt.bits <= 16;
  t.sampler.normalized_coords = tex.normalized_coords != 0;
  for (int c = 0; c < 4; ++c) t.sampler.border[c] = tex.border[c];
  // Linear filtering needs float texels: a float format or normalized-float reads.
  const bool float_texels = t.res.fmt.kind == exec::TexelFormat::Kind::Float || t.sampler.normalized_float;
  if (t.sampler.linear && !float_texels) return Status::InvalidValue;
  // Linear memory is fetched with integer coordinates only, without filtering.
  if (t.res.kind == exec::TexResource::Kind::Linear && (t.sampler.linear || t.sampler.normalized_coords))
    return Status::InvalidValue;
  const uint64_t h = reg_.add_texture(t);
  textures_[h] = {res, tex};
  *out = h;
  return Status::Success;
}

Status TextureManager::texture_destroy(uint64_t handle) {
  std::lock_guard lk(mu_);
  if (!reg_.remove_texture(handle)) return Status::InvalidValue;
  textures_.erase(handle);
  return Status::Success;
}

Status TextureManager::texture_resource(uint64_t handle, ResourceSpec* out) {
  std::lock_guard lk(mu_);
  auto it = textures_.find(handle);
  if (it == textures_.end() || !out) return Status::InvalidValue;
  *out = it->second.first;
  return Status::Success;
}

Status TextureManager::texture_spec(uint64_t handle, TextureSpec* out) {
  std::lock_guard lk(mu_);
  auto it = textures_.find(handle);
  if (it == textures_.end() || !out) return Status::InvalidValue;
  *out = it->second.second;
  return Status::Success;
}

Status TextureManager::surface_create(uint64_t* out, const ResourceSpec& res) {
  if (!out) return Status::InvalidValue;
  if (res.kind != ResourceSpec::Array) return Status::InvalidValue;  // surfaces bind arrays only
  std::lock_guard lk(mu_);
  exec::SurfaceObject so;
  if (Status st = resource_of(res, &so.res); st != Status::Success) return st;
  const uint64_t h = reg_.add_surface(so);
  surfaces_[h] = res;
  *out = h;
  return Status::Success;
}

Status TextureManager::surface_destroy(uint64_t handle) {
  std::lock_guard lk(mu_);
  if (!reg_.remove_surface(handle)) return Status::InvalidValue;
  surfaces_.erase(handle);
  return Status::Success;
}

Status TextureManager::surface_resource(uint64_t handle, ResourceSpec* out) {
  std::lock_guard lk(mu_);
  auto it = surfaces_.find(handle);
  if (it == surfaces_.end() || !out) return Status::InvalidValue;
  *out = it->second;
  return Status::Success;
}

// ---------------------------------------------------------------- the free functions (the C++ API)

Status array_create(Runtime& rt, void** out, const ChannelDesc& desc, size_t width, size_t height, size_t depth,
                    unsigned flags) {
  return rt.textures().array_create(out, desc, width, height, depth, flags);
}
Status array_free(Runtime& rt, void* array) { return rt.textures().array_free(array); }
Status array_info(Runtime& rt, const void* array, ArrayInfo* out) { return rt.textures().array_info(array, out); }
Status array_copy_to(Runtime& rt, void* array, size_t woffset, size_t hoffset, const void* src, size_t spitch,
                     size_t width, size_t height, CopyKind kind) {
  return rt.textures().array_copy_to(array, woffset, hoffset, src, spitch, width, height, kind);
}
Status array_copy_from(Runtime& rt, void* dst, size_t dpitch, const void* array, size_t woffset, size_t hoffset,
                       size_t width, size_t height, CopyKind kind) {
  return rt.textures().array_copy_from(dst, dpitch, array, woffset, hoffset, width, height, kind);
}
Status copy_3d(Runtime& rt, const Copy3DSide& src, const Copy3DSide& dst, size_t width, size_t height, size_t depth,
               CopyKind kind) {
  return rt.textures().copy_3d(src, dst, width, height, depth, kind);
}
Status texture_create(Runtime& rt, uint64_t* out, const ResourceSpec& res, const TextureSpec& tex) {
  return rt.textures().texture_create(out, res, tex);
}
Status texture_destroy(Runtime& rt, uint64_t handle) { return rt.textures().texture_destroy(handle); }
Status texture_resource(Runtime& rt, uint64_t handle, ResourceSpec* out) {
  return rt.textures().texture_resource(handle, out);
}
Status texture_spec(Runtime& rt, uint64_t handle, TextureSpec* out) { return rt.textures().texture_spec(handle, out); }
Status surface_create(Runtime& rt, uint64_t* out, const ResourceSpec& res) {
  return rt.textures().surface_create(out, res);
}
Status surface_destroy(Runtime& rt, uint64_t handle) { return rt.textures().surface_destroy(handle); }
Status surface_resource(Runtime& rt, uint64_t handle, ResourceSpec* out) {
  return rt.textures().surface_resource(handle, out);
}
const exec::TextureRegistry* texture_registry(const Runtime& rt) { return rt.textures().registry(); }

}  // namespace softgpu::runtime
