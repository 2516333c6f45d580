// Texture sampling as the CUDA Programming Guide's "Texture Fetching"
// appendix defines it, and the handle registry.
#include "exec/texture.h"

#include <cmath>
#include <cstring>

#include "exec/float_util.h"

namespace softgpu::exec {

// ---------------------------------------------------------------- registry

uint64_t TextureRegistry::add_texture(const TextureObject& t) {
  std::lock_guard lk(mu_);
  uint64_t h = next_++;
  tex_[h] = t;
  return h;
}

uint64_t TextureRegistry::add_surface(const SurfaceObject& s) {
  std::lock_guard lk(mu_);
  uint64_t h = next_++;
  surf_[h] = s;
  return h;
}

bool TextureRegistry::remove_texture(uint64_t h) {
  std::lock_guard lk(mu_);
  return tex_.erase(h) != 0;
}

bool TextureRegistry::remove_surface(uint64_t h) {
  std::lock_guard lk(mu_);
  return surf_.erase(h) != 0;
}

std::optional<TextureObject> TextureRegistry::texture(uint64_t h) const {
  std::lock_guard lk(mu_);
  auto it = tex_.find(h);
  if (it == tex_.end()) return std::nullopt;
  return it->second;
}

std::optional<SurfaceObject> TextureRegistry::surface(uint64_t h) const {
  std::lock_guard lk(mu_);
  auto it = surf_.find(h);
  if (it == surf_.end()) return std::nullopt;
  return it->second;
}

// ---------------------------------------------------------------- texels

namespace {

uint32_t fbits(float f) { return std::bit_cast<uint32_t>(f); }

// Channel c of a raw texel, as a float (normalized or not) or an integer.
void decode_channel(const TexelFormat& fmt, bool norm, const uint8_t* p, Texel& t, uint32_t c) {
  using K = TexelFormat::Kind;
  const uint8_t* q = p + c * (fmt.bits / 8);
  if (fmt.kind == K::Float) {
    if (fmt.bits == 16) {
      uint16_t h; std::memcpy(&h, q, 2);
      t.bits[c] = fbits(f16_to_f32(h));
    } else {
      std::memcpy(&t.bits[c], q, 4);
    }
    return;
  }
  int64_t v = 0;
  const bool s = fmt.kind == K::Signed;
  switch (fmt.bits) {
    case 8: v = s ? int64_t(int8_t(*q)) : int64_t(*q); break;
    case 16: { uint16_t u; std::memcpy(&u, q, 2); v = s ? int64_t(int16_t(u)) : int64_t(u); break; }
    default: { uint32_t u; std::memcpy(&u, q, 4); v = s ? int64_t(int32_t(u)) : int64_t(u); break; }
  }
  if (norm && fmt.bits <= 16) {
    // Unsigned maps [0, 2^n-1] to [0, 1]; signed maps to [-1, 1], the most
    // negative value clamping to -1.
    const float scale = s ? float((1u << (fmt.bits - 1)) - 1) : float((1u << fmt.bits) - 1);
    float f = float(v) / scale;
    if (f < -1.0f) f = -1.0f;
    t.bits[c] = fbits(f);
  } else {
    t.bits[c] = uint32_t(v);
  }
}

}  // namespace

Texel decode_texel(const TexelFormat& fmt, bool normalized_float, const void* raw) {
  Texel t;
  const bool norm = normalized_float && fmt.kind != TexelFormat::Kind::Float && fmt.bits <= 16;
  t.is_float = fmt.kind == TexelFormat::Kind::Float || norm;
  const auto* p = static_cast<const uint8_t*>(raw);
  for (uint32_t c = 0; c < fmt.channels; ++c) decode_channel(fmt, norm, p, t, c);
  // Missing channels read as 0, w included (measured on an H200).
  for (uint32_t c = fmt.channels; c < 4; ++c) t.bits[c] = 0;
  return t;
}

uint32_t weight_steps(float frac) {
  // 9-bit fixed point with 8 fractional bits, so 1.0 is exactly representable;
  // ties round up (measured on an H200 with a 1/1024 sweep).
  return uint32_t(std::floor(frac * 256.0f + 0.5f));
}

float quantize_weight(float frac) { return float(weight_steps(frac)) / 256.0f; }

void linear_weights(const uint32_t* a, uint32_t dims, uint32_t* w) {
  // 1-D: (256-a, a). 2-D: the corner product a*b/256 is rounded half up and
  // the other corners take what is left of their row and column, so each
  // axis keeps its exact 9-bit weight and the four sum to 256 (fits every
  // 2-D linear sample recorded on an H200; rounding all four products
  // independently does not: equal texels then stop reading back exactly).
  // 3-D applies the same split to each 2-D weight for the third axis; no
  // H200 data covers it yet.
  if (dims == 1) { w[0] = 256 - a[0]; w[1] = a[0]; return; }
  const uint32_t A = a[0], B = a[1];
  const uint32_t w11 = (A * B + 128) >> 8;
  uint32_t w2[4] = {256 - A - B + w11, A - w11, B - w11, w11};
  if (dims == 2) { for (int i = 0; i < 4; ++i) w[i] = w2[i]; return; }
  const uint32_t C = a[2];
  for (int i = 0; i < 4; ++i) {
    const uint32_t hi = (w2[i] * C + 128) >> 8;
    w[4 + i] = hi;
    w[i] = w2[i] - hi;
  }
}

namespace {

// Maps an integer texel index through the address mode; false = border.
bool address(int64_t& i, uint32_t n, AddressMode m) {
  const int64_t N = n;
  switch (m) {
    case AddressMode::Clamp: i = i < 0 ? 0 : (i >= N ? N - 1 : i); return true;
    case AddressMode::Border: return i >= 0 && i < N;
    case AddressMode::Wrap: i %= N; if (i < 0) i += N; return true;
    case AddressMode::Mirror: {
      int64_t m2 = i % (2 * N);
      if (m2 < 0) m2 += 2 * N;
      i = m2 >= N ? 2 * N - 1 - m2 : m2;
      return true;
    }
  }
  return false;
}

// Reads texel (x, y, z) or returns the border colour.
// raw (optional): the stored integers of a normalized-float read, which linear
// filtering works on (signed 8-bit -128 is not yet clamped to -1 there).
bool texel_at(const TextureObject& t, const int64_t* idx, const bool* inside, uint32_t dims, int32_t layer,
              TexelReader& r, Texel& out, int32_t* raw_ints = nullptr) {
  const TexResource& R = t.res;
  for (uint32_t d = 0; d < dims; ++d)
    if (!inside[d]) {
      // The border colour fills the format's channels; missing ones stay 0.
      // Normalized-float reads see it stored in the texel format first,
      // rounded to nearest with ties toward zero (measured on an H200:
      // 0.5 in an 8-bit unsigned format reads back as 127/255).
      out.is_float = true;
      for (uint32_t c = 0; c < 4; ++c) {
        float b = c < R.fmt.channels ? t.sampler.border[c] : 0.0f;
        if (t.sampler.normalized_float && R.fmt.kind != TexelFormat::Kind::Float) {
          const bool sgn = R.fmt.kind == TexelFormat::Kind::Signed;
          const double scale = sgn ? double((1u << (R.fmt.bits - 1)) - 1) : double((1u << R.fmt.bits) - 1);
          double q = std::ceil(std::fabs(double(b)) * scale - 0.5);
          q = std::fmin(q, scale);
          if (b < 0) q = sgn ? -q : 0.0;
          b = float(q) / float(scale);
          if (raw_ints) raw_ints[c] = int32_t(q);
        }
        out.bits[c] = fbits(b);
      }
      return true;
    }
  uint64_t addr = R.base + uint64_t(idx[0]) * R.fmt.bytes();
  if (dims > 1) addr += uint64_t(idx[1]) * R.pitch;
  if (dims > 2) addr += uint64_t(idx[2]) * R.slice_pitch;
  if (R.layered) addr += uint64_t(layer) * (dims == 1 ? R.pitch : R.slice_pitch);
  uint8_t raw[16];
  if (!r.read(addr, R.fmt.bytes(), raw)) return false;
  out = decode_texel(R.fmt, t.sampler.normalized_float, raw);
  if (raw_ints) {
    const bool s = R.fmt.kind == TexelFormat::Kind::Signed;
    for (uint32_t c = 0; c < 4; ++c) {
      if (c >= R.fmt.channels) { raw_ints[c] = 0; continue; }
      if (R.fmt.bits == 8) raw_ints[c] = s ? int32_t(int8_t(raw[c])) : int32_t(raw[c]);
      else { uint16_t u; std::memcpy(&u, raw + 2 * c, 2); raw_ints[c] = s ? int32_t(int16_t(u)) : int32_t(u); }
    }
  }
  return true;
}

// A linearly filtered normalized-integer channel. acc = sum of weight (1/256
// steps) x stored integer. The H200 filters the exact value and rounds it to
// 16-bit normalized (half up; 8-bit unsigned data is thus v*257 in 16 bits),
// then converts that to float: every unsigned 8-bit sample recorded matches.
// Signed: the same with round half away from zero and a final clamp to -1
// (-128 enters the filter as -128/127); 3 of the 64 recorded signed 8-bit
// samples, exact values 0.52-0.57 of a step above an integer, read one step
// lower in magnitude on the H200 (tests/cuda/texture/tex_probe.known_diffs).
// 16-bit formats follow the same rule unverified (no H200 data).
float filtered_norm(int64_t acc, const TexelFormat& fmt) {
  const bool sgn = fmt.kind == TexelFormat::Kind::Signed;
  const int64_t vmax = sgn ? (int64_t(1) << (fmt.bits - 1)) - 1 : (int64_t(1) << fmt.bits) - 1;
  const int64_t out_max = sgn ? 32767 : 65535;
  const int64_t den = 256 * vmax;
  const int64_t mag = acc < 0 ? -acc : acc;
  int64_t n = (mag * out_max + den / 2) / den;
  if (acc < 0) n = -n;
  const float f = float(n) / float(out_max);
  return f < -1.0f ? -1.0f : f;
}

uint32_t extent(const TexResource& R, uint32_t d) { return d == 0 ? R.width : d == 1 ? R.height : R.depth; }

int32_t clamp_layer(const TexResource& R, uint32_t dims, int32_t layer) {
  const int32_t n = int32_t(dims == 1 ? R.height : R.depth);
  return layer < 0 ? 0 : (layer >= n ? n - 1 : layer);
}

}  // namespace

std::optional<Texel> sample(const TextureObject& t, const float* c, uint32_t dims, int32_t layer, TexelReader& r) {
  const TexResource& R = t.res;
  const Sampler& S = t.sampler;
  if (R.layered) layer = clamp_layer(R, dims, layer);
  float x[3];
  for (uint32_t d = 0; d < dims; ++d) x[d] = S.normalized_coords ? c[d] * float(extent(R, d)) : c[d];
  // Unnormalized coordinates support only clamp and border; wrap and mirror act as clamp.
  AddressMode mode[3];
  for (uint32_t d = 0; d < dims; ++d) {
    mode[d] = S.address[d];
    if (!S.normalized_coords && (mode[d] == AddressMode::Wrap || mode[d] == AddressMode::Mirror))
      mode[d] = AddressMode::Clamp;
  }
  if (!S.linear) {
    int64_t idx[3];
    bool in[3];
    for (uint32_t d = 0; d < dims; ++d) {
      float f = std::floor(x[d]);
      idx[d] = std::isfinite(f) ? int64_t(std::fmax(std::fmin(f, 1e15f), -1e15f)) : 0;
      in[d] = address(idx[d], extent(R, d), mode[d]);
    }
    Texel out;
    if (!texel_at(t, idx, in, dims, layer, r, out)) return std::nullopt;
    return out;
  }
  // Linear: sum over the 2^dims corners of integer weights (1/256 steps) times texels.
  int64_t base[3];
  uint32_t a[3];
  for (uint32_t d = 0; d < dims; ++d) {
    float xb = x[d] - 0.5f;
    float f = std::floor(xb);
    base[d] = std::isfinite(f) ? int64_t(std::fmax(std::fmin(f, 1e15f), -1e15f)) : 0;
    a[d] = weight_steps(xb - f);
  }
  uint32_t w[8];
  linear_weights(a, dims, w);
  const bool norm_int = S.normalized_float && R.fmt.kind != TexelFormat::Kind::Float && R.fmt.bits <= 16;
  float acc[4] = {0, 0, 0, 0};
  int64_t iacc[4] = {0, 0, 0, 0};
  for (uint32_t corner = 0; corner < (1u << dims); ++corner) {
    int64_t idx[3];
    bool in[3];
    for (uint32_t d = 0; d < dims; ++d) {
      idx[d] = base[d] + ((corner >> d) & 1);
      in[d] = address(idx[d], extent(R, d), mode[d]);
    }
    Texel tx;
    int32_t raw[4] = {0, 0, 0, 0};
    if (!texel_at(t, idx, in, dims, layer, r, tx, norm_int ? raw : nullptr)) return std::nullopt;
    for (int k = 0; k < 4; ++k) {
      if (norm_int) iacc[k] += int64_t(w[corner]) * raw[k];
      else acc[k] += float(w[corner]) * (1.0f / 256.0f) * std::bit_cast<float>(tx.bits[k]);
    }
  }
  Texel out;
  for (int k = 0; k < 4; ++k) {
    if (norm_int) out.bits[k] = k < R.fmt.channels ? fbits(filtered_norm(iacc[k], R.fmt)) : 0;
    else out.bits[k] = fbits(acc[k]);
  }
  return out;
}

std::optional<Texel> fetch(const TextureObject& t, const int32_t* c, uint32_t dims, int32_t layer, TexelReader& r) {
  const TexResource& R = t.res;
  if (R.layered) layer = clamp_layer(R, dims, layer);
  int64_t idx[3];
  bool in[3];
  for (uint32_t d = 0; d < dims; ++d) {
    idx[d] = c[d];
    in[d] = idx[d] >= 0 && idx[d] < int64_t(extent(R, d));
  }
  Texel out;
  for (uint32_t d = 0; d < dims; ++d)
    if (!in[d]) {
      out.is_float = R.fmt.kind == TexelFormat::Kind::Float || t.sampler.normalized_float;
      out.bits = {0, 0, 0, 0};
      return out;
    }
  if (!texel_at(t, idx, in, dims, layer, r, out)) return std::nullopt;
  return out;
}

std::optional<Texel> gather(const TextureObject& t, const float* c, int32_t layer, uint32_t comp, TexelReader& r) {
  const TexResource& R = t.res;
  const Sampler& S = t.sampler;
  if (R.layered) layer = clamp_layer(R, 2, layer);
  int64_t base[2];
  AddressMode mode[2];
  for (uint32_t d = 0; d < 2; ++d) {
    float x = S.normalized_coords ? c[d] * float(extent(R, d)) : c[d];
    float f = std::floor(x - 0.5f);
    base[d] = std::isfinite(f) ? int64_t(std::fmax(std::fmin(f, 1e15f), -1e15f)) : 0;
    mode[d] = S.address[d];
    if (!S.normalized_coords && (mode[d] == AddressMode::Wrap || mode[d] == AddressMode::Mirror))
      mode[d] = AddressMode::Clamp;
  }
  static const int kCorner[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  Texel out;
  for (int k = 0; k < 4; ++k) {
    int64_t idx[2] = {base[0] + kCorner[k][0], base[1] + kCorner[k][1]};
    bool in[2] = {address(idx[0], R.width, mode[0]), address(idx[1], R.height, mode[1])};
    Texel tx;
    if (!texel_at(t, idx, in, 2, layer, r, tx)) return std::nullopt;
    out.bits[k] = tx.bits[comp & 3];
    out.is_float = tx.is_float;
  }
  return out;
}

}  // namespace softgpu::exec
