// Texture and surface objects: what a cudaTextureObject_t / cudaSurfaceObject_t
// handle stands for. The runtime creates and destroys them; the tex/tld4/
// suld/sust handlers look them up through ExecOptions::textures and sample
// with the functions below, which follow the CUDA Programming Guide appendix
// "Texture Fetching" (point and linear filtering, 9-bit fixed-point weights,
// address modes, normalized coordinates and read modes).
#pragma once
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "common/types.h"

namespace softgpu::exec {

// Texel layout: `channels` channels of `bits` each (8, 16 or 32), all the same kind.
struct TexelFormat {
  enum class Kind : uint8_t { Signed = 0, Unsigned = 1, Float = 2 };  // cudaChannelFormatKind values
  Kind kind = Kind::Float;
  uint8_t channels = 1;  // 1, 2 or 4
  uint8_t bits = 32;
  uint32_t bytes() const { return uint32_t(channels) * bits / 8; }
};

// The memory a texture or surface reads: a CUDA array (dense rows of
// width texels, height rows, depth slices; layered arrays keep layers in
// height (1-D) or depth (2-D)), linear memory (1-D, width texels) or pitched
// 2-D memory.
struct TexResource {
  enum class Kind : uint8_t { Array, Linear, Pitch2D } kind = Kind::Array;
  uint64_t base = 0;  // device address of texel (0,0,0)
  uint32_t width = 0, height = 1, depth = 1;  // texels; height/depth are 1 when unused
  uint64_t pitch = 0;        // bytes between rows
  uint64_t slice_pitch = 0;  // bytes between slices (3-D / layers of a 2-D array)
  bool layered = false;
  uint8_t dims = 1;          // 1, 2 or 3 (array dimensionality; layers not counted)
  TexelFormat fmt;
  uint64_t size_bytes() const { return slice_pitch * (depth ? depth : 1); }
};

enum class AddressMode : uint8_t { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };  // cudaTextureAddressMode

struct Sampler {
  AddressMode address[3] = {AddressMode::Wrap, AddressMode::Wrap, AddressMode::Wrap};
  bool linear = false;             // cudaFilterModeLinear
  bool normalized_float = false;   // cudaReadModeNormalizedFloat (8/16-bit integer formats)
  bool normalized_coords = false;
  float border[4] = {0, 0, 0, 0};
};

struct TextureObject {
  TexResource res;
  Sampler sampler;
};

struct SurfaceObject {
  TexResource res;  // always an array
};

// Handle -> object map shared by the runtime (writer) and running kernels
// (readers). Handles start at 1: 0 is never a valid object, as on NVIDIA GPUs.
class TextureRegistry {
 public:
  uint64_t add_texture(const TextureObject& t);
  uint64_t add_surface(const SurfaceObject& s);
  bool remove_texture(uint64_t h);
  bool remove_surface(uint64_t h);
  std::optional<TextureObject> texture(uint64_t h) const;
  std::optional<SurfaceObject> surface(uint64_t h) const;

 private:
  mutable std::mutex mu_;
  uint64_t next_ = 1;
  std::unordered_map<uint64_t, TextureObject> tex_;
  std::unordered_map<uint64_t, SurfaceObject> surf_;
};

// ---- sampling (pure functions; the caller supplies texel reads) ----

// Reads one texel's raw bytes (fmt.bytes() of them) at a device address into
// out; returns false after reporting a fault.
struct TexelReader {
  virtual ~TexelReader() = default;
  virtual bool read(uint64_t addr, uint32_t size, void* out) = 0;
};

// A fetched value: four 32-bit channels, either floats or integers (per the
// texture's format and read mode); missing channels read as 0.
struct Texel {
  std::array<uint32_t, 4> bits{};
  bool is_float = true;
};

// Converts raw texel bytes to the value the sampler returns before filtering.
Texel decode_texel(const TexelFormat& fmt, bool normalized_float, const void* raw);

// Samples at coordinates c[0..dims) (float, as passed to tex; unnormalized or
// normalized per the sampler). layer: array layer for layered textures.
// Returns nullopt if a texel read failed (fault already reported).
std::optional<Texel> sample(const TextureObject& t, const float* c, uint32_t dims, int32_t layer, TexelReader& r);
// Integer-coordinate fetch (tex.1d with .s32 coordinates, i.e. tex1Dfetch):
// no filtering; out-of-range coordinates return zero.
std::optional<Texel> fetch(const TextureObject& t, const int32_t* c, uint32_t dims, int32_t layer, TexelReader& r);
// tld4: the four texels of the bilinear footprint, component `comp`, in the
// order PTX defines (i,j+1), (i+1,j+1), (i+1,j), (i,j).
std::optional<Texel> gather(const TextureObject& t, const float* c, int32_t layer, uint32_t comp, TexelReader& r);

// The 9-bit fixed-point (8 fractional bits) weight the hardware uses for a
// linear-filter fraction in [0, 1): in 1/256 steps (0..256), and as a float.
uint32_t weight_steps(float frac);
float quantize_weight(float frac);
// Corner weights (1/256 steps, summing to 256) for per-axis weights a[0..dims):
// corner bit d set = the upper texel on axis d (w[1] is (i+1, j), w[2] (i, j+1)).
void linear_weights(const uint32_t* a, uint32_t dims, uint32_t* w);

}  // namespace softgpu::exec
