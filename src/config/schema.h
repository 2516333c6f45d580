// The config file schema, one row per key (internal to src/config): where
// each value goes in GpuConfig, its type and its bounds. The loader
// (gpu_config.cpp) knows nothing else about the keys.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "config/gpu_config.h"

namespace softgpu::config::schema {

// Each target is a function returning the field it fills.
template <class T>
using Ref = T& (*)(GpuConfig&);
using U32 = Ref<uint32_t>;
using U64 = Ref<uint64_t>;
using F64 = Ref<double>;
using Str = Ref<std::string>;
using U32x3 = std::array<U32, 3>;       // a 3-element array (x, y, z)
struct ComputeCapability {};             // "major.minor" string -> cc_major, cc_minor
using Policy = Ref<SchedulerPolicy>;     // "gto" | "lrr"
using Target = std::variant<U32, U64, F64, Str, U32x3, ComputeCapability, Policy>;

struct Field {
  const char* section;  // dotted: "sm", "timing.memory", "timing.pipes.fma"
  const char* key;
  Target target;
  // Inclusive bounds. For numbers they bound the value; for strings, the length.
  double min;
  double max;
};

std::span<const Field> fields();

// True if `path` is a section or holds one ("timing" holds "timing.pipes.fma").
bool is_section(std::string_view path);
// "[device], [limits], ..." (top-level sections), for messages.
std::string section_list();
const Field* find_field(std::string_view section, std::string_view key);

}  // namespace softgpu::config::schema
