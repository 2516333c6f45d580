// Runtime entry points that are thin over others: pitched and 3-D
// allocation and memset, peer copies and peer access on the one device
// softgpu has, memory advice, kernel handles and names, PCI bus ids.
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "cudart/cudart_internal.h"

using namespace softgpu;
using softgpu::cudart::call;
using softgpu::cudart::rt;

namespace {

// Rows of pitched allocations start 512 bytes apart at least, as on NVIDIA
// GPUs (cudaDeviceProp::texturePitchAlignment is 32 there too; the pitch
// cudaMallocPitch returns is a multiple of 512 on every recent GPU).
constexpr size_t kPitchAlign = 512;

Status pitched(void** out, size_t* pitch, size_t width, size_t rows) {
  if (!out || !pitch) return Status::InvalidValue;
  if (width > SIZE_MAX - kPitchAlign) return Status::MemoryAllocation;
  const size_t p = (width + kPitchAlign - 1) / kPitchAlign * kPitchAlign;
  if (rows && p > SIZE_MAX / rows) return Status::MemoryAllocation;
  *pitch = p;
  return rt().malloc(out, p * rows);
}

// Peers: only device 0 exists, and a device is not its own peer.
Status peer_pair(int a, int b) {
  if (Status s = rt().check_device(a); s != Status::Success) return s;
  if (Status s = rt().check_device(b); s != Status::Success) return s;
  return a == b ? Status::InvalidDevice : Status::Success;
}

}  // namespace

static_assert(sizeof(cudaLaunchAttributeValue) == 64, "the runtime keeps 64 bytes per stream attribute");

namespace {
bool known_stream_attribute(cudaStreamAttrID attr) {
  switch (attr) {
    case cudaStreamAttributeAccessPolicyWindow:
    case cudaStreamAttributeSynchronizationPolicy:
    case cudaStreamAttributePriority:
    case cudaStreamAttributeMemSyncDomainMap:
    case cudaStreamAttributeMemSyncDomain:
      return true;
    default:
      return false;
  }
}

// A value cudaStreamSetAttribute accepts for a known attribute.
bool valid_stream_attribute(cudaStreamAttrID attr, const cudaStreamAttrValue& v) {
  if (attr == cudaStreamAttributeAccessPolicyWindow) {
    const cudaAccessPolicyWindow& w = v.accessPolicyWindow;
    auto prop = [](cudaAccessProperty p) {
      return p == cudaAccessPropertyNormal || p == cudaAccessPropertyStreaming || p == cudaAccessPropertyPersisting;
    };
    return w.hitRatio >= 0.0f && w.hitRatio <= 1.0f && prop(w.hitProp) && prop(w.missProp);
  }
  if (attr == cudaStreamAttributeSynchronizationPolicy)
    return v.syncPolicy >= cudaSyncPolicyAuto && v.syncPolicy <= cudaSyncPolicyBlockingSync;
  return known_stream_attribute(attr);
}
}  // namespace

extern "C" {

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  return call([&] { return pitched(devPtr, pitch, width, height); });
}

cudaError_t cudaMalloc3D(struct cudaPitchedPtr* p, struct cudaExtent e) {
  return call([&] {
    if (!p) return Status::InvalidValue;
    if (e.depth && e.height > SIZE_MAX / e.depth) return Status::MemoryAllocation;
    void* ptr = nullptr;
    size_t pitch = 0;
    if (Status s = pitched(&ptr, &pitch, e.width, e.height * e.depth); s != Status::Success) return s;
    p->ptr = ptr, p->pitch = pitch, p->xsize = e.width, p->ysize = e.height;
    return Status::Success;
  });
}

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e) {
  return call([&] {
    for (size_t z = 0; z < e.depth; ++z)
      if (Status s = rt().memset_2d(static_cast<char*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, value, e.width,
                                    e.height);
          s != Status::Success)
        return s;
    return Status::Success;
  });
}

cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t stream) {
  return call([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    for (size_t z = 0; z < e.depth; ++z)
      if (Status s = rt().memset_2d(static_cast<char*>(p.ptr) + z * p.pitch * p.ysize, p.pitch, value, e.width,
                                    e.height, stream);
          s != Status::Success)
        return s;
    return Status::Success;
  });
}

// A copy between the memories of two devices: with one device, both must
// name it, and it is a device-to-device copy.
cudaError_t cudaMemcpyPeer(void* dst, int dstDevice, const void* src, int srcDevice, size_t count) {
  return call([&] {
    if (Status s = rt().check_device(dstDevice); s != Status::Success) return s;
    if (Status s = rt().check_device(srcDevice); s != Status::Success) return s;
    return rt().memcpy(dst, src, count, runtime::CopyKind::DeviceToDevice);
  });
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dstDevice, const void* src, int srcDevice, size_t count,
                                cudaStream_t stream) {
  return call([&] {
    if (Status s = rt().check_device(dstDevice); s != Status::Success) return s;
    if (Status s = rt().check_device(srcDevice); s != Status::Success) return s;
    return rt().memcpy(dst, src, count, runtime::CopyKind::DeviceToDevice, stream, true);
  });
}

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  return call([&] {
    if (!canAccessPeer) return Status::InvalidValue;
    if (Status s = rt().check_device(device); s != Status::Success) return s;
    if (Status s = rt().check_device(peerDevice); s != Status::Success) return s;
    *canAccessPeer = 0;  // one device: no peer to reach
    return Status::Success;
  });
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
  return call([&] {
    int current = 0;
    if (Status s = rt().get_device(&current); s != Status::Success) return s;
    if (Status s = peer_pair(current, peerDevice); s != Status::Success) return s;
    return flags ? Status::InvalidValue : Status::Success;  // not reached with one device
  });
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
  return call([&] {
    int current = 0;
    if (Status s = rt().get_device(&current); s != Status::Success) return s;
    if (Status s = peer_pair(current, peerDevice); s != Status::Success) return s;
    return static_cast<Status>(cudaErrorPeerAccessNotEnabled);
  });
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
  return call([&] {
    if (!value || attr < cudaDevP2PAttrPerformanceRank || attr > cudaDevP2PAttrOnlyPartialNativeAtomicSupported)
      return Status::InvalidValue;
    return peer_pair(srcDevice, dstDevice);  // never Success with one device
  });
}

// Advice changes where managed memory lives, never what it holds: softgpu's
// memory is one, so valid advice is accepted and has no effect.
cudaError_t cudaMemAdvise(const void* devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location) {
  return call([&] {
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy) return Status::InvalidValue;
    if (location.type != cudaMemLocationTypeDevice && location.type != cudaMemLocationTypeHost &&
        location.type != cudaMemLocationTypeHostNuma && location.type != cudaMemLocationTypeHostNumaCurrent &&
        location.type != cudaMemLocationTypeInvalid)
      return Status::InvalidValue;
    if (location.type == cudaMemLocationTypeDevice)
      if (Status s = rt().check_device(location.id); s != Status::Success) return s;
    if (!devPtr || !count) return Status::InvalidValue;
    runtime::PointerInfo info;
    if (Status s = rt().pointer_info(devPtr, &info); s != Status::Success) return s;
    return info.type == runtime::PointerInfo::Managed ? Status::Success : Status::InvalidValue;
  });
}

// Which streams may touch managed memory: every one may here.
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void* devPtr, size_t length, unsigned int flags) {
  return call([&] {
    if (Status s = rt().stream_check(stream); s != Status::Success) return s;
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
      return Status::InvalidValue;
    if (!devPtr) return Status::InvalidValue;
    runtime::PointerInfo info;
    if (Status s = rt().pointer_info(devPtr, &info); s != Status::Success) return s;
    return info.type == runtime::PointerInfo::Managed ? Status::Success : Status::InvalidValue;
  });
}

cudaError_t cudaFuncGetName(const char** name, const void* func) {
  return call([&] { return rt().func_name(name, func); });
}

// The driver API's handle of a kernel (softgpu's libcuda takes the same
// handles): its cudaKernel_t.
cudaError_t cudaGetFuncBySymbol(cudaFunction_t* functionPtr, const void* symbolPtr) {
  return call([&] { return rt().get_kernel(reinterpret_cast<void**>(functionPtr), symbolPtr); });
}

cudaError_t cudaGetKernel(cudaKernel_t* kernelPtr, const void* entryFuncAddr) {
  return call([&] { return rt().get_kernel(reinterpret_cast<void**>(kernelPtr), entryFuncAddr); });
}

// "domain:bus:device.function" as cudaDeviceProp's PCI fields say.
cudaError_t cudaDeviceGetPCIBusId(char* pciBusId, int len, int device) {
  return call([&] {
    if (!pciBusId || len <= 0) return Status::InvalidValue;
    if (Status s = rt().check_device(device); s != Status::Success) return s;
    int domain = 0, bus = 0, dev = 0;
    cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, device);
    cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, device);
    cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, device);
    std::snprintf(pciBusId, size_t(len), "%04x:%02x:%02x.0", unsigned(domain), unsigned(bus), unsigned(dev));
    return Status::Success;
  });
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char* pciBusId) {
  return call([&] {
    if (!device || !pciBusId) return Status::InvalidValue;
    unsigned d = 0, b = 0, v = 0, f = 0;
    // [domain:]bus:device.function, hexadecimal
    if (std::sscanf(pciBusId, "%x:%x:%x.%x", &d, &b, &v, &f) != 4) {
      d = 0;
      if (std::sscanf(pciBusId, "%x:%x.%x", &b, &v, &f) != 3) return Status::InvalidValue;
    }
    int domain = 0, bus = 0, dev = 0;
    cudaDeviceGetAttribute(&domain, cudaDevAttrPciDomainId, 0);
    cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, 0);
    cudaDeviceGetAttribute(&dev, cudaDevAttrPciDeviceId, 0);
    if (d != unsigned(domain) || b != unsigned(bus) || v != unsigned(dev)) return Status::InvalidDevice;
    *device = 0;
    return Status::Success;
  });
}

// Initializes the device without making it current (cudaSetDevice does that).
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
  return call([&] {
    if (flags != 0 && flags != cudaInitDeviceFlagsAreValid) return Status::InvalidValue;
    if (Status s = rt().check_device(device); s != Status::Success) return s;
    if (flags == cudaInitDeviceFlagsAreValid) return rt().set_flags(deviceFlags);
    return Status::Success;
  });
}

cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long* streamId) {
  return call([&] { return rt().stream_id(hStream, streamId); });
}

// The per-thread-default-stream build's symbol: the null stream is then the
// thread's stream.
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long* streamId);
cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long* streamId) {
  return cudaStreamGetId(hStream ? hStream : cudaStreamPerThread, streamId);
}

cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode* mode) {
  return call([&] { return rt().exchange_capture_mode(reinterpret_cast<int*>(mode)); });
}

// Stream attributes (cudaStreamAttrValue = cudaLaunchAttributeValue): the
// access-policy window, synchronization policy, priority and memory-sync
// domains are validated and kept, and read back as set; none changes how
// work runs (softgpu has no persisting L2 lines or sync domains). A
// priority becomes the stream's, as cudaStreamGetPriority then says.
// Unset: zeros, the synchronization policy cudaSyncPolicyAuto, the
// stream's priority.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value) {
  return call([&] {
    if (!value || !valid_stream_attribute(attr, *value)) return Status::InvalidValue;
    return rt().stream_set_attribute(stream, int(attr), value,
                                     attr == cudaStreamAttributePriority ? &value->priority : nullptr);
  });
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out) {
  return call([&] {
    if (!value_out || !known_stream_attribute(attr)) return Status::InvalidValue;
    bool set = false;
    cudaStreamAttrValue v{};  // stays zero unless set
    if (Status s = rt().stream_get_attribute(stream, int(attr), &v, &set); s != Status::Success) return s;
    if (!set && attr == cudaStreamAttributeSynchronizationPolicy) v.syncPolicy = cudaSyncPolicyAuto;
    if (attr == cudaStreamAttributePriority)
      if (Status s = rt().stream_info(stream, nullptr, &v.priority); s != Status::Success) return s;
    *value_out = v;
    return Status::Success;
  });
}

cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value);
cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue* value) {
  return cudaStreamSetAttribute(stream ? stream : cudaStreamPerThread, attr, value);
}
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out);
cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue* value_out) {
  return cudaStreamGetAttribute(stream ? stream : cudaStreamPerThread, attr, value_out);
}

}  // extern "C"
