// Pitched memory, 2-D and 3-D copies, 2-D memsets, CUDA arrays, texture and
// surface objects of the driver API, over cudart's equivalents (one set of
// arrays and objects for both APIs: a CUarray is a cudaArray_t, a
// CUtexObject a cudaTextureObject_t).
#include <cstring>

#include "cudadrv/driver.h"

using softgpu::cudadrv::guarded;
using softgpu::cudadrv::ptr;
using softgpu::cudadrv::rt;

namespace {

// An array format and channel count as cudart's channel descriptor; false
// for what softgpu's arrays do not hold (block-compressed, NV12, the
// normalized-integer formats, 3 channels).
bool channel_desc(CUarray_format f, unsigned channels, cudaChannelFormatDesc* d) {
  int bits = 0;
  cudaChannelFormatKind kind = cudaChannelFormatKindUnsigned;
  switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: bits = 32; break;
    case CU_AD_FORMAT_SIGNED_INT8: bits = 8, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT16: bits = 16, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT32: bits = 32, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF: bits = 16, kind = cudaChannelFormatKindFloat; break;
    case CU_AD_FORMAT_FLOAT: bits = 32, kind = cudaChannelFormatKindFloat; break;
    default: return false;
  }
  if (channels != 1 && channels != 2 && channels != 4) return false;
  *d = cudaChannelFormatDesc{bits, channels >= 2 ? bits : 0, channels == 4 ? bits : 0, channels == 4 ? bits : 0, kind};
  return true;
}

bool array_format(const cudaChannelFormatDesc& d, CUarray_format* f, unsigned* channels) {
  *channels = (d.x ? 1 : 0) + (d.y ? 1 : 0) + (d.z ? 1 : 0) + (d.w ? 1 : 0);
  switch (d.f) {
    case cudaChannelFormatKindUnsigned:
      *f = d.x == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : d.x == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
      return d.x == 8 || d.x == 16 || d.x == 32;
    case cudaChannelFormatKindSigned:
      *f = d.x == 8 ? CU_AD_FORMAT_SIGNED_INT8 : d.x == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
      return d.x == 8 || d.x == 16 || d.x == 32;
    case cudaChannelFormatKindFloat:
      *f = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
      return d.x == 16 || d.x == 32;
    default: return false;
  }
}

// One side of a 2-D or 3-D copy: an array, or linear memory (host, device
// or unified) with its pitch, the start already applied.
struct Side {
  cudaArray_t array = nullptr;
  char* linear = nullptr;
  size_t pitch = 0, x = 0, y = 0, z = 0;
};

CUresult side_of(CUmemorytype type, const void* host, CUdeviceptr dev, CUarray array, size_t pitch, size_t x,
                 size_t y, size_t z, size_t height, Side* s) {
  s->x = x, s->y = y, s->z = z, s->pitch = pitch;
  switch (type) {
    case CU_MEMORYTYPE_ARRAY:
      if (!array) return CUDA_ERROR_INVALID_VALUE;
      s->array = reinterpret_cast<cudaArray_t>(array);
      return CUDA_SUCCESS;
    case CU_MEMORYTYPE_HOST:
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: {
      char* base = type == CU_MEMORYTYPE_HOST ? static_cast<char*>(const_cast<void*>(host))
                                              : static_cast<char*>(ptr(dev));
      if (!base) return CUDA_ERROR_INVALID_VALUE;
      s->linear = base + (z * height + y) * pitch + x;
      return CUDA_SUCCESS;
    }
    default: return CUDA_ERROR_INVALID_VALUE;
  }
}

// Bytes per element of an array (3-D copies count array positions in
// elements, the driver in bytes).
CUresult element_bytes(cudaArray_t a, size_t* out) {
  cudaChannelFormatDesc d{};
  cudaExtent e{};
  unsigned flags = 0;
  if (CUresult r = rt(cudaArrayGetInfo(&d, &e, &flags, a)); r != CUDA_SUCCESS) return r;
  *out = size_t(d.x + d.y + d.z + d.w) / 8;
  return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// The runtime's description of a 2-D or 3-D copy between two sides.
CUresult params_3d(const Side& src, const Side& dst, size_t width_bytes, size_t height, size_t depth,
                   size_t src_rows, size_t dst_rows, cudaMemcpy3DParms* out) {
  size_t esize = 1;
  if (src.array) {
    if (CUresult r = element_bytes(src.array, &esize); r != CUDA_SUCCESS) return r;
  } else if (dst.array) {
    if (CUresult r = element_bytes(dst.array, &esize); r != CUDA_SUCCESS) return r;
  }
  if (width_bytes % esize || src.x % esize || dst.x % esize) return CUDA_ERROR_INVALID_VALUE;
  cudaMemcpy3DParms p{};
  p.srcArray = src.array;
  p.dstArray = dst.array;
  // Linear sides start at their first byte already; array positions are in elements.
  // One row: the pitch is not read (a 1-D copy may leave it 0).
  auto pitch = [&](size_t given) { return height <= 1 && depth <= 1 && given == 0 ? width_bytes : given; };
  if (src.array) p.srcPos = cudaPos{src.x / esize, src.y, src.z};
  else p.srcPtr = cudaPitchedPtr{src.linear, pitch(src.pitch), pitch(src.pitch), src_rows};
  if (dst.array) p.dstPos = cudaPos{dst.x / esize, dst.y, dst.z};
  else p.dstPtr = cudaPitchedPtr{dst.linear, pitch(dst.pitch), pitch(dst.pitch), dst_rows};
  p.extent = cudaExtent{src.array || dst.array ? width_bytes / esize : width_bytes, height, depth};
  p.kind = cudaMemcpyDefault;
  *out = p;
  return CUDA_SUCCESS;
}

CUresult copy_3d(const Side& src, const Side& dst, size_t width_bytes, size_t height, size_t depth, size_t src_rows,
                 size_t dst_rows, CUstream stream, bool async) {
  cudaMemcpy3DParms p{};
  if (CUresult r = params_3d(src, dst, width_bytes, height, depth, src_rows, dst_rows, &p); r != CUDA_SUCCESS)
    return r;
  return rt(async ? cudaMemcpy3DAsync(&p, reinterpret_cast<cudaStream_t>(stream)) : cudaMemcpy3D(&p));
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream, bool async) {
  if (!c) return CUDA_ERROR_INVALID_VALUE;
  Side src, dst;
  if (CUresult r = side_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch, c->srcXInBytes,
                           c->srcY, 0, 0, &src);
      r != CUDA_SUCCESS)
    return r;
  if (CUresult r = side_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch, c->dstXInBytes,
                           c->dstY, 0, 0, &dst);
      r != CUDA_SUCCESS)
    return r;
  if (!src.array && !dst.array) {
    if (c->Height > 1 && (c->srcPitch < c->WidthInBytes || c->dstPitch < c->WidthInBytes)) return CUDA_ERROR_INVALID_VALUE;
    const size_t sp = c->Height > 1 ? src.pitch : c->WidthInBytes, dp = c->Height > 1 ? dst.pitch : c->WidthInBytes;
    auto s = reinterpret_cast<cudaStream_t>(stream);
    return rt(async ? cudaMemcpy2DAsync(dst.linear, dp, src.linear, sp, c->WidthInBytes, c->Height, cudaMemcpyDefault, s)
                    : cudaMemcpy2D(dst.linear, dp, src.linear, sp, c->WidthInBytes, c->Height, cudaMemcpyDefault));
  }
  return copy_3d(src, dst, c->WidthInBytes, c->Height, 1, c->Height, c->Height, stream, async);
}

// The two sides and row counts of a CUDA_MEMCPY3D.
CUresult sides_3d(const CUDA_MEMCPY3D* c, Side* src, Side* dst, size_t* src_rows, size_t* dst_rows) {
  if (!c || c->reserved0 || c->reserved1) return CUDA_ERROR_INVALID_VALUE;
  if (c->srcLOD || c->dstLOD) return CUDA_ERROR_NOT_SUPPORTED;  // mipmapped arrays
  *src_rows = c->srcHeight ? c->srcHeight : c->Height, *dst_rows = c->dstHeight ? c->dstHeight : c->Height;
  if (CUresult r = side_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcPitch, c->srcXInBytes,
                           c->srcY, c->srcZ, *src_rows, src);
      r != CUDA_SUCCESS)
    return r;
  return side_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstPitch, c->dstXInBytes, c->dstY,
                 c->dstZ, *dst_rows, dst);
}

CUresult copy_3d_desc(const CUDA_MEMCPY3D* c, CUstream stream, bool async) {
  Side src, dst;
  size_t src_rows = 0, dst_rows = 0;
  if (CUresult r = sides_3d(c, &src, &dst, &src_rows, &dst_rows); r != CUDA_SUCCESS) return r;
  return copy_3d(src, dst, c->WidthInBytes, c->Height, c->Depth, src_rows, dst_rows, stream, async);
}

// Rows of `elem`-byte values: cudaMemset2D for bytes, the element memset of
// softgpu's cudart per row otherwise.
CUresult set_2d(CUdeviceptr d, size_t pitch, unsigned value, unsigned elem, size_t width, size_t height, CUstream s,
                bool async) {
  if (elem == 1) {
    auto st = reinterpret_cast<cudaStream_t>(s);
    return rt(async ? cudaMemset2DAsync(ptr(d), pitch, int(value), width, height, st)
                    : cudaMemset2D(ptr(d), pitch, int(value), width, height));
  }
  if (height > 1 && pitch < width * elem) return CUDA_ERROR_INVALID_VALUE;
  for (size_t y = 0; y < height; ++y)
    if (CUresult r = rt(softgpu_cudart_memset_elements(static_cast<char*>(ptr(d)) + y * pitch, value, elem, width,
                                                       async ? reinterpret_cast<cudaStream_t>(s) : nullptr));
        r != CUDA_SUCCESS)
      return r;
  return CUDA_SUCCESS;
}

CUresult resource_desc(const CUDA_RESOURCE_DESC* in, cudaResourceDesc* out) {
  if (!in || in->flags) return CUDA_ERROR_INVALID_VALUE;
  std::memset(out, 0, sizeof *out);
  switch (in->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
      out->resType = cudaResourceTypeArray;
      out->res.array.array = reinterpret_cast<cudaArray_t>(in->res.array.hArray);
      return CUDA_SUCCESS;
    case CU_RESOURCE_TYPE_LINEAR:
      out->resType = cudaResourceTypeLinear;
      out->res.linear.devPtr = ptr(in->res.linear.devPtr);
      out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
      return channel_desc(in->res.linear.format, in->res.linear.numChannels, &out->res.linear.desc)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_INVALID_VALUE;
    case CU_RESOURCE_TYPE_PITCH2D:
      out->resType = cudaResourceTypePitch2D;
      out->res.pitch2D.devPtr = ptr(in->res.pitch2D.devPtr);
      out->res.pitch2D.width = in->res.pitch2D.width;
      out->res.pitch2D.height = in->res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
      return channel_desc(in->res.pitch2D.format, in->res.pitch2D.numChannels, &out->res.pitch2D.desc)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_INVALID_VALUE;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: return CUDA_ERROR_NOT_SUPPORTED;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// The runtime's resource description back as the driver's.
CUresult driver_resource_desc(const cudaResourceDesc& in, CUDA_RESOURCE_DESC* out) {
  std::memset(out, 0, sizeof *out);
  switch (in.resType) {
    case cudaResourceTypeArray:
      out->resType = CU_RESOURCE_TYPE_ARRAY;
      out->res.array.hArray = reinterpret_cast<CUarray>(in.res.array.array);
      return CUDA_SUCCESS;
    case cudaResourceTypeLinear:
      out->resType = CU_RESOURCE_TYPE_LINEAR;
      out->res.linear.devPtr = softgpu::cudadrv::dptr(in.res.linear.devPtr);
      out->res.linear.sizeInBytes = in.res.linear.sizeInBytes;
      return array_format(in.res.linear.desc, &out->res.linear.format, &out->res.linear.numChannels)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_INVALID_VALUE;
    case cudaResourceTypePitch2D:
      out->resType = CU_RESOURCE_TYPE_PITCH2D;
      out->res.pitch2D.devPtr = softgpu::cudadrv::dptr(in.res.pitch2D.devPtr);
      out->res.pitch2D.width = in.res.pitch2D.width;
      out->res.pitch2D.height = in.res.pitch2D.height;
      out->res.pitch2D.pitchInBytes = in.res.pitch2D.pitchInBytes;
      return array_format(in.res.pitch2D.desc, &out->res.pitch2D.format, &out->res.pitch2D.numChannels)
                 ? CUDA_SUCCESS
                 : CUDA_ERROR_INVALID_VALUE;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// The resource's element format (8- and 16-bit integers read as normalized
// floats unless CU_TRSF_READ_AS_INTEGER).
bool small_integer(const cudaResourceDesc& r) {
  cudaChannelFormatDesc d{};
  if (r.resType == cudaResourceTypeArray) {
    cudaExtent e{};
    unsigned flags = 0;
    if (cudaArrayGetInfo(&d, &e, &flags, r.res.array.array) != cudaSuccess) return false;
  } else {
    d = r.resType == cudaResourceTypeLinear ? r.res.linear.desc : r.res.pitch2D.desc;
  }
  return d.f != cudaChannelFormatKindFloat && (d.x == 8 || d.x == 16);
}

}  // namespace

namespace softgpu::cudadrv {
CUresult memcpy3d_params(const CUDA_MEMCPY3D* c, cudaMemcpy3DParms* out) {
  Side src, dst;
  size_t src_rows = 0, dst_rows = 0;
  if (CUresult r = sides_3d(c, &src, &dst, &src_rows, &dst_rows); r != CUDA_SUCCESS) return r;
  return params_3d(src, dst, c->WidthInBytes, c->Height, c->Depth, src_rows, dst_rows, out);
}
}  // namespace softgpu::cudadrv

CUresult CUDAAPI cuMemAllocPitch(CUdeviceptr* dptr, size_t* pitch, size_t WidthInBytes, size_t Height,
                                 unsigned int ElementSizeBytes) {
  return guarded([&] {
    if (!dptr || !pitch || (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
      return CUDA_ERROR_INVALID_VALUE;
    void* p = nullptr;
    if (CUresult r = rt(cudaMallocPitch(&p, pitch, WidthInBytes, Height)); r != CUDA_SUCCESS) return r;
    *dptr = softgpu::cudadrv::dptr(p);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D* pCopy) {
  return guarded([&] { return copy_2d(pCopy, nullptr, false); });
}
CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D* pCopy) {
  return guarded([&] { return copy_2d(pCopy, nullptr, false); });
}
CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
  return guarded([&] { return copy_2d(pCopy, hStream, true); });
}
// A peer 3-D copy: one device, so the contexts must be its context (an array
// side's is ignored) and the copy is an ordinary one.
static CUresult peer_copy(const CUDA_MEMCPY3D_PEER* p, CUstream stream, bool async) {
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  const auto& d = softgpu::cudadrv::Driver::get();
  if ((p->srcMemoryType != CU_MEMORYTYPE_ARRAY && !d.valid_context(p->srcContext)) ||
      (p->dstMemoryType != CU_MEMORYTYPE_ARRAY && !d.valid_context(p->dstContext)))
    return CUDA_ERROR_INVALID_CONTEXT;
  CUDA_MEMCPY3D c{};
  c.srcXInBytes = p->srcXInBytes, c.srcY = p->srcY, c.srcZ = p->srcZ, c.srcLOD = p->srcLOD;
  c.srcMemoryType = p->srcMemoryType, c.srcHost = p->srcHost, c.srcDevice = p->srcDevice, c.srcArray = p->srcArray;
  c.srcPitch = p->srcPitch, c.srcHeight = p->srcHeight;
  c.dstXInBytes = p->dstXInBytes, c.dstY = p->dstY, c.dstZ = p->dstZ, c.dstLOD = p->dstLOD;
  c.dstMemoryType = p->dstMemoryType, c.dstHost = p->dstHost, c.dstDevice = p->dstDevice, c.dstArray = p->dstArray;
  c.dstPitch = p->dstPitch, c.dstHeight = p->dstHeight;
  c.WidthInBytes = p->WidthInBytes, c.Height = p->Height, c.Depth = p->Depth;
  return copy_3d_desc(&c, stream, async);
}

CUresult CUDAAPI cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER* pCopy) {
  return guarded([&] { return peer_copy(pCopy, nullptr, false); });
}

CUresult CUDAAPI cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER* pCopy, CUstream hStream) {
  return guarded([&] { return peer_copy(pCopy, hStream, true); });
}

CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D* pCopy) {
  return guarded([&] { return copy_3d_desc(pCopy, nullptr, false); });
}
CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
  return guarded([&] { return copy_3d_desc(pCopy, hStream, true); });
}

CUresult CUDAAPI cuMemsetD2D8(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h) {
  return guarded([&] { return set_2d(d, pitch, v, 1, w, h, nullptr, false); });
}
CUresult CUDAAPI cuMemsetD2D16(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h) {
  return guarded([&] { return set_2d(d, pitch, v, 2, w, h, nullptr, false); });
}
CUresult CUDAAPI cuMemsetD2D32(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h) {
  return guarded([&] { return set_2d(d, pitch, v, 4, w, h, nullptr, false); });
}
CUresult CUDAAPI cuMemsetD2D8Async(CUdeviceptr d, size_t pitch, unsigned char v, size_t w, size_t h, CUstream s) {
  return guarded([&] { return set_2d(d, pitch, v, 1, w, h, s, true); });
}
CUresult CUDAAPI cuMemsetD2D16Async(CUdeviceptr d, size_t pitch, unsigned short v, size_t w, size_t h, CUstream s) {
  return guarded([&] { return set_2d(d, pitch, v, 2, w, h, s, true); });
}
CUresult CUDAAPI cuMemsetD2D32Async(CUdeviceptr d, size_t pitch, unsigned int v, size_t w, size_t h, CUstream s) {
  return guarded([&] { return set_2d(d, pitch, v, 4, w, h, s, true); });
}

CUresult CUDAAPI cuArrayCreate(CUarray* pHandle, const CUDA_ARRAY_DESCRIPTOR* d) {
  return guarded([&] {
    cudaChannelFormatDesc desc{};
    if (!pHandle || !d || !channel_desc(d->Format, d->NumChannels, &desc)) return CUDA_ERROR_INVALID_VALUE;
    cudaArray_t a = nullptr;
    if (CUresult r = rt(cudaMallocArray(&a, &desc, d->Width, d->Height, 0)); r != CUDA_SUCCESS) return r;
    *pHandle = reinterpret_cast<CUarray>(a);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuArray3DCreate(CUarray* pHandle, const CUDA_ARRAY3D_DESCRIPTOR* d) {
  return guarded([&] {
    cudaChannelFormatDesc desc{};
    if (!pHandle || !d || !channel_desc(d->Format, d->NumChannels, &desc)) return CUDA_ERROR_INVALID_VALUE;
    cudaArray_t a = nullptr;
    // CUDA_ARRAY3D_LAYERED/SURFACE_LDST/CUBEMAP/TEXTURE_GATHER have cudart's values.
    if (CUresult r = rt(cudaMalloc3DArray(&a, &desc, cudaExtent{d->Width, d->Height, d->Depth}, d->Flags));
        r != CUDA_SUCCESS)
      return r;
    *pHandle = reinterpret_cast<CUarray>(a);
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuArrayDestroy(CUarray hArray) {
  return guarded([&] { return rt(cudaFreeArray(reinterpret_cast<cudaArray_t>(hArray))); });
}

CUresult CUDAAPI cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR* out, CUarray hArray) {
  return guarded([&] {
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    cudaChannelFormatDesc d{};
    cudaExtent e{};
    unsigned flags = 0;
    if (CUresult r = rt(cudaArrayGetInfo(&d, &e, &flags, reinterpret_cast<cudaArray_t>(hArray))); r != CUDA_SUCCESS)
      return r;
    if (!array_format(d, &out->Format, &out->NumChannels)) return CUDA_ERROR_INVALID_VALUE;
    out->Width = e.width, out->Height = e.height, out->Depth = e.depth, out->Flags = flags;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR* out, CUarray hArray) {
  return guarded([&] {
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d3{};
    if (CUresult r = cuArray3DGetDescriptor(&d3, hArray); r != CUDA_SUCCESS) return r;
    out->Width = d3.Width, out->Height = d3.Height, out->Format = d3.Format, out->NumChannels = d3.NumChannels;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuTexObjectCreate(CUtexObject* pTexObject, const CUDA_RESOURCE_DESC* pResDesc,
                                   const CUDA_TEXTURE_DESC* pTexDesc, const CUDA_RESOURCE_VIEW_DESC* pResViewDesc) {
  return guarded([&] {
    if (!pTexObject || !pTexDesc) return CUDA_ERROR_INVALID_VALUE;
    if (pResViewDesc) return CUDA_ERROR_NOT_SUPPORTED;
    cudaResourceDesc res;
    if (CUresult r = resource_desc(pResDesc, &res); r != CUDA_SUCCESS) return r;
    cudaTextureDesc tex{};
    for (int i = 0; i < 3; ++i) tex.addressMode[i] = static_cast<cudaTextureAddressMode>(pTexDesc->addressMode[i]);
    tex.filterMode = static_cast<cudaTextureFilterMode>(pTexDesc->filterMode);
    const unsigned f = pTexDesc->flags;
    tex.readMode = !(f & CU_TRSF_READ_AS_INTEGER) && small_integer(res) ? cudaReadModeNormalizedFloat
                                                                          : cudaReadModeElementType;
    tex.normalizedCoords = (f & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    tex.sRGB = (f & CU_TRSF_SRGB) != 0;
    tex.disableTrilinearOptimization = (f & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
    tex.seamlessCubemap = (f & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
    tex.maxAnisotropy = pTexDesc->maxAnisotropy;
    tex.mipmapFilterMode = static_cast<cudaTextureFilterMode>(pTexDesc->mipmapFilterMode);
    tex.mipmapLevelBias = pTexDesc->mipmapLevelBias;
    tex.minMipmapLevelClamp = pTexDesc->minMipmapLevelClamp;
    tex.maxMipmapLevelClamp = pTexDesc->maxMipmapLevelClamp;
    for (int i = 0; i < 4; ++i) tex.borderColor[i] = pTexDesc->borderColor[i];
    cudaTextureObject_t t = 0;
    if (CUresult r = rt(cudaCreateTextureObject(&t, &res, &tex, nullptr)); r != CUDA_SUCCESS) return r;
    *pTexObject = t;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC* pResDesc, CUtexObject texObject) {
  return guarded([&] {
    if (!pResDesc) return CUDA_ERROR_INVALID_VALUE;
    cudaResourceDesc r{};
    if (CUresult e = rt(cudaGetTextureObjectResourceDesc(&r, texObject)); e != CUDA_SUCCESS) return e;
    return driver_resource_desc(r, pResDesc);
  });
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject texObject) {
  return guarded([&] { return rt(cudaDestroyTextureObject(texObject)); });
}

CUresult CUDAAPI cuSurfObjectCreate(CUsurfObject* pSurfObject, const CUDA_RESOURCE_DESC* pResDesc) {
  return guarded([&] {
    if (!pSurfObject) return CUDA_ERROR_INVALID_VALUE;
    cudaResourceDesc res;
    if (CUresult r = resource_desc(pResDesc, &res); r != CUDA_SUCCESS) return r;
    cudaSurfaceObject_t s = 0;
    if (CUresult r = rt(cudaCreateSurfaceObject(&s, &res)); r != CUDA_SUCCESS) return r;
    *pSurfObject = s;
    return CUDA_SUCCESS;
  });
}

CUresult CUDAAPI cuSurfObjectDestroy(CUsurfObject surfObject) {
  return guarded([&] { return rt(cudaDestroySurfaceObject(surfObject)); });
}
