// libcudart.so.13 C ABI, part 3: CUDA arrays, texture and surface objects.
// Marshalling only; the logic is in src/runtime/texture.cpp.
#include <cstring>

#include "cudart/cudart_internal.h"

using namespace softgpu;
using softgpu::cudart::call;
using softgpu::cudart::rt;
using softgpu::cudart::to_kind;

namespace {

// Texture entry points are implemented outside Runtime; run them under its
// prologue/epilogue so sticky errors and cudaGetLastError behave as elsewhere.
template <class F>
cudaError_t tcall(F&& f) noexcept {
  return call([&] { return rt().guarded(f); });
}

runtime::ChannelDesc to_rt(const cudaChannelFormatDesc& d) { return {d.x, d.y, d.z, d.w, int(d.f)}; }

cudaChannelFormatDesc to_cuda(const runtime::ChannelDesc& d) {
  cudaChannelFormatDesc c{};
  c.x = d.x; c.y = d.y; c.z = d.z; c.w = d.w;
  c.f = cudaChannelFormatKind(d.kind);
  return c;
}

Status to_rt(const cudaResourceDesc* r, runtime::ResourceSpec* out) {
  if (!r) return Status::InvalidValue;
  runtime::ResourceSpec s;
  switch (r->resType) {
    case cudaResourceTypeArray:
      s.kind = runtime::ResourceSpec::Array;
      s.array = r->res.array.array;
      break;
    case cudaResourceTypeLinear:
      s.kind = runtime::ResourceSpec::Linear;
      s.ptr = r->res.linear.devPtr;
      s.desc = to_rt(r->res.linear.desc);
      s.size_bytes = r->res.linear.sizeInBytes;
      break;
    case cudaResourceTypePitch2D:
      s.kind = runtime::ResourceSpec::Pitch2D;
      s.ptr = r->res.pitch2D.devPtr;
      s.desc = to_rt(r->res.pitch2D.desc);
      s.width = r->res.pitch2D.width;
      s.height = r->res.pitch2D.height;
      s.pitch = r->res.pitch2D.pitchInBytes;
      break;
    default:
      return Status::InvalidValue;  // mipmapped arrays are not supported
  }
  *out = s;
  return Status::Success;
}

void to_cuda(const runtime::ResourceSpec& s, cudaResourceDesc* r) {
  std::memset(r, 0, sizeof *r);
  switch (s.kind) {
    case runtime::ResourceSpec::Linear:
      r->resType = cudaResourceTypeLinear;
      r->res.linear.devPtr = s.ptr;
      r->res.linear.desc = to_cuda(s.desc);
      r->res.linear.sizeInBytes = s.size_bytes;
      break;
    case runtime::ResourceSpec::Pitch2D:
      r->resType = cudaResourceTypePitch2D;
      r->res.pitch2D.devPtr = s.ptr;
      r->res.pitch2D.desc = to_cuda(s.desc);
      r->res.pitch2D.width = s.width;
      r->res.pitch2D.height = s.height;
      r->res.pitch2D.pitchInBytes = s.pitch;
      break;
    default:
      r->resType = cudaResourceTypeArray;
      r->res.array.array = static_cast<cudaArray_t>(s.array);
      break;
  }
}

runtime::Copy3DSide side(cudaArray_t a, const cudaPitchedPtr& p, const cudaPos& pos) {
  runtime::Copy3DSide s;
  s.array = a;
  s.ptr = a ? nullptr : p.ptr;
  s.pitch = p.pitch;
  s.xsize = p.xsize;
  s.ysize = p.ysize;
  s.pos = {pos.x, pos.y, pos.z};
  return s;
}

}  // namespace

// ---------------------------------------------------------------- arrays

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
  cudaChannelFormatDesc d{};
  d.x = x; d.y = y; d.z = z; d.w = w; d.f = f;
  return d;
}

cudaError_t cudaMallocArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
  return tcall([&] {
    if (!array || !desc) return Status::InvalidValue;
    void* out = nullptr;
    Status s = runtime::array_create(rt(), &out, to_rt(*desc), width, height, 0, flags);
    if (s == Status::Success) *array = static_cast<cudaArray_t>(out);
    return s;
  });
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const struct cudaChannelFormatDesc* desc, struct cudaExtent extent,
                              unsigned int flags) {
  return tcall([&] {
    if (!array || !desc) return Status::InvalidValue;
    void* out = nullptr;
    Status s = runtime::array_create(rt(), &out, to_rt(*desc), extent.width, extent.height, extent.depth, flags);
    if (s == Status::Success) *array = static_cast<cudaArray_t>(out);
    return s;
  });
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  return tcall([&] { return runtime::array_free(rt(), array); });
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc* desc, struct cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
  return tcall([&] {
    runtime::ArrayInfo info;
    Status s = runtime::array_info(rt(), array, &info);
    if (s != Status::Success) return s;
    if (desc) *desc = to_cuda(info.desc);
    if (extent) {
      extent->width = info.width;
      extent->height = info.height;
      extent->depth = info.depth;
    }
    if (flags) *flags = info.flags;
    return s;
  });
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc* desc, cudaArray_const_t array) {
  return tcall([&] {
    if (!desc) return Status::InvalidValue;
    runtime::ArrayInfo info;
    Status s = runtime::array_info(rt(), array, &info);
    if (s == Status::Success) *desc = to_cuda(info.desc);
    return s;
  });
}

// ---------------------------------------------------------------- copies

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind) {
  return tcall([&] {
    return runtime::array_copy_to(rt(), dst, wOffset, hOffset, src, spitch, width, height, to_kind(kind));
  });
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    return runtime::array_copy_to(rt(), dst, wOffset, hOffset, src, spitch, width, height, to_kind(kind));
  });
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                  size_t width, size_t height, enum cudaMemcpyKind kind) {
  return tcall([&] {
    return runtime::array_copy_from(rt(), dst, dpitch, src, wOffset, hOffset, width, height, to_kind(kind));
  });
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    return runtime::array_copy_from(rt(), dst, dpitch, src, wOffset, hOffset, width, height, to_kind(kind));
  });
}

// Deprecated 1-D forms: count bytes starting at (wOffset, hOffset), within one row.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                              enum cudaMemcpyKind kind) {
  return tcall([&] { return runtime::array_copy_to(rt(), dst, wOffset, hOffset, src, count, count, 1, to_kind(kind)); });
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind) {
  return tcall([&] {
    return runtime::array_copy_from(rt(), dst, count, src, wOffset, hOffset, count, 1, to_kind(kind));
  });
}

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms* p) {
  return tcall([&] {
    if (!p) return Status::InvalidValue;
    return runtime::copy_3d(rt(), side(p->srcArray, p->srcPtr, p->srcPos), side(p->dstArray, p->dstPtr, p->dstPos),
                            p->extent.width, p->extent.height, p->extent.depth, to_kind(p->kind));
  });
}

cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms* p, cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    if (!p) return Status::InvalidValue;
    return runtime::copy_3d(rt(), side(p->srcArray, p->srcPtr, p->srcPos), side(p->dstArray, p->dstPtr, p->dstPos),
                            p->extent.width, p->extent.height, p->extent.depth, to_kind(p->kind));
  });
}

// With one device both peers are device 0; the copy is cudaMemcpy3D's.
cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms* p) {
  return tcall([&] {
    if (!p) return Status::InvalidValue;
    if (Status s = rt().check_device(p->srcDevice); s != Status::Success) return s;
    if (Status s = rt().check_device(p->dstDevice); s != Status::Success) return s;
    return runtime::copy_3d(rt(), side(p->srcArray, p->srcPtr, p->srcPos), side(p->dstArray, p->dstPtr, p->dstPos),
                            p->extent.width, p->extent.height, p->extent.depth, runtime::CopyKind::Default);
  });
}

cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms* p, cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    if (!p) return Status::InvalidValue;
    if (Status s = rt().check_device(p->srcDevice); s != Status::Success) return s;
    if (Status s = rt().check_device(p->dstDevice); s != Status::Success) return s;
    return runtime::copy_3d(rt(), side(p->srcArray, p->srcPtr, p->srcPos), side(p->dstArray, p->dstPtr, p->dstPos),
                            p->extent.width, p->extent.height, p->extent.depth, runtime::CopyKind::Default);
  });
}

// The deprecated 1-D array copies' stream forms (copies happen when issued,
// in stream order, as the synchronous ones).
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    return runtime::array_copy_to(rt(), dst, wOffset, hOffset, src, count, count, 1, to_kind(kind));
  });
}

cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream) {
  return tcall([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    return runtime::array_copy_from(rt(), dst, count, src, wOffset, hOffset, count, 1, to_kind(kind));
  });
}

// ---------------------------------------------------------------- texture objects

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* pTexObject, const struct cudaResourceDesc* pResDesc,
                                    const struct cudaTextureDesc* pTexDesc,
                                    const struct cudaResourceViewDesc* pResViewDesc) {
  return tcall([&] {
    if (!pTexObject || !pTexDesc) return Status::InvalidValue;
    if (pResViewDesc) return Status::InvalidValue;  // resource views are not supported
    runtime::ResourceSpec res;
    if (Status s = to_rt(pResDesc, &res); s != Status::Success) return s;
    runtime::TextureSpec t;
    for (int d = 0; d < 3; ++d) t.address[d] = int(pTexDesc->addressMode[d]);
    t.filter = int(pTexDesc->filterMode);
    t.read_mode = int(pTexDesc->readMode);
    t.srgb = pTexDesc->sRGB;
    t.normalized_coords = pTexDesc->normalizedCoords;
    for (int c = 0; c < 4; ++c) t.border[c] = pTexDesc->borderColor[c];
    uint64_t h = 0;
    Status s = runtime::texture_create(rt(), &h, res, t);
    if (s == Status::Success) *pTexObject = h;
    return s;
  });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  return tcall([&] { return runtime::texture_destroy(rt(), texObject); });
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaTextureObject_t texObject) {
  return tcall([&] {
    if (!pResDesc) return Status::InvalidValue;
    runtime::ResourceSpec s;
    Status st = runtime::texture_resource(rt(), texObject, &s);
    if (st == Status::Success) to_cuda(s, pResDesc);
    return st;
  });
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc* pTexDesc, cudaTextureObject_t texObject) {
  return tcall([&] {
    if (!pTexDesc) return Status::InvalidValue;
    runtime::TextureSpec t;
    Status st = runtime::texture_spec(rt(), texObject, &t);
    if (st != Status::Success) return st;
    std::memset(pTexDesc, 0, sizeof *pTexDesc);
    for (int d = 0; d < 3; ++d) pTexDesc->addressMode[d] = cudaTextureAddressMode(t.address[d]);
    pTexDesc->filterMode = cudaTextureFilterMode(t.filter);
    pTexDesc->readMode = cudaTextureReadMode(t.read_mode);
    pTexDesc->sRGB = t.srgb;
    pTexDesc->normalizedCoords = t.normalized_coords;
    for (int c = 0; c < 4; ++c) pTexDesc->borderColor[c] = t.border[c];
    return st;
  });
}

// ---------------------------------------------------------------- surface objects

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* pSurfObject, const struct cudaResourceDesc* pResDesc) {
  return tcall([&] {
    if (!pSurfObject) return Status::InvalidValue;
    runtime::ResourceSpec res;
    if (Status s = to_rt(pResDesc, &res); s != Status::Success) return s;
    uint64_t h = 0;
    Status s = runtime::surface_create(rt(), &h, res);
    if (s == Status::Success) *pSurfObject = h;
    return s;
  });
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
  return tcall([&] { return runtime::surface_destroy(rt(), surfObject); });
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc* pResDesc, cudaSurfaceObject_t surfObject) {
  return tcall([&] {
    if (!pResDesc) return Status::InvalidValue;
    runtime::ResourceSpec s;
    Status st = runtime::surface_resource(rt(), surfObject, &s);
    if (st == Status::Success) to_cuda(s, pResDesc);
    return st;
  });
}
