// Loader for configs/gpus/*.toml. The schema is one explicit table (kFields):
// every section and key is listed there, so an unknown section or key, a
// missing key, a wrong type or an out-of-range value is an error naming the
// key. A later section (e.g. [timing]) is added by adding rows to kFields.
#include "config/gpu_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <variant>

#include <toml++/toml.h>

namespace softgpu::config {
namespace {

// What a key holds and where it goes in GpuConfig.
struct ComputeCapability {};  // "major.minor" string -> cc_major, cc_minor
using U32 = uint32_t GpuConfig::*;
using U64 = uint64_t GpuConfig::*;
using F64 = double GpuConfig::*;
using Str = std::string GpuConfig::*;
using U32x3 = std::array<uint32_t GpuConfig::*, 3>;  // a 3-element array (x, y, z)
using Target = std::variant<U32, U64, F64, Str, U32x3, ComputeCapability>;

struct Field {
  const char* section;
  const char* key;
  Target target;
  // Inclusive bounds. For integers they bound the value; for strings, the length.
  double min;
  double max;
};

constexpr double kU32Max = 4294967295.0;

// The whole schema. Bounds reject nonsense (zero SMs, negative sizes); the
// cross-field rules in check_consistency() catch contradictions between keys.
const Field kFields[] = {
    {"device", "name", &GpuConfig::name, 1, 255},  // cudaDeviceProp::name is char[256]
    {"device", "compute_capability", ComputeCapability{}, 0, 0},
    {"device", "sm_count", &GpuConfig::sm_count, 1, 4096},
    {"device", "global_memory_bytes", &GpuConfig::global_memory_bytes, 1, 1125899906842624.0},  // 1 PiB
    {"device", "warp_size", &GpuConfig::warp_size, 32, 32},  // PTX fixes WARP_SZ at 32
    {"device", "async_engine_count", &GpuConfig::async_engine_count, 0, 16},

    {"limits", "max_threads_per_block", &GpuConfig::max_threads_per_block, 1, 4096},
    {"limits", "max_block_dim",
     U32x3{&GpuConfig::max_block_dim_x, &GpuConfig::max_block_dim_y, &GpuConfig::max_block_dim_z}, 1, 4096},
    {"limits", "max_grid_dim",
     U32x3{&GpuConfig::max_grid_dim_x, &GpuConfig::max_grid_dim_y, &GpuConfig::max_grid_dim_z}, 1,
     2147483647.0},  // gridDim is read into signed 32-bit registers
    {"limits", "max_cluster_size", &GpuConfig::max_cluster_size, 0, 32},
    {"limits", "constant_memory_bytes", &GpuConfig::constant_memory_bytes, 1, 16777216.0},

    {"sm", "clock_khz", &GpuConfig::clock_khz, 1, 10000000},  // up to 10 GHz
    {"sm", "max_threads_per_sm", &GpuConfig::max_threads_per_sm, 1, 8192},
    {"sm", "max_warps_per_sm", &GpuConfig::max_warps_per_sm, 1, 256},
    {"sm", "max_blocks_per_sm", &GpuConfig::max_blocks_per_sm, 1, 256},
    {"sm", "registers_per_sm", &GpuConfig::registers_per_sm, 1, 1048576},
    {"sm", "registers_per_block", &GpuConfig::registers_per_block, 1, 1048576},
    {"sm", "max_registers_per_thread", &GpuConfig::max_registers_per_thread, 1, 255},
    {"sm", "shared_memory_per_sm", &GpuConfig::shared_memory_per_sm, 1, 16777216.0},
    {"sm", "shared_memory_per_block", &GpuConfig::shared_memory_per_block, 1, 16777216.0},
    {"sm", "shared_memory_per_block_optin", &GpuConfig::shared_memory_per_block_optin, 1, 16777216.0},
    {"sm", "reserved_shared_memory_per_block", &GpuConfig::reserved_shared_memory_per_block, 0, 65536},

    {"memory", "memory_type", &GpuConfig::memory_type, 1, 32},
    {"memory", "l2_cache_bytes", &GpuConfig::l2_cache_bytes, 1, 17179869184.0},  // 16 GiB
    {"memory", "memory_clock_khz", &GpuConfig::memory_clock_khz, 1, 100000000},
    {"memory", "memory_bus_width_bits", &GpuConfig::memory_bus_width_bits, 1, 65536},
    {"memory", "bandwidth_gbps", &GpuConfig::memory_bandwidth_gbps, 1, 1000000},
};

bool is_section(std::string_view name) {
  return std::any_of(std::begin(kFields), std::end(kFields), [&](const Field& f) { return name == f.section; });
}

std::string section_list() {
  std::string out;
  for (const Field& f : kFields) {
    std::string s = fmt::format("[{}]", f.section);
    if (out.find(s) == std::string::npos) out += (out.empty() ? "" : ", ") + s;
  }
  return out;
}

const Field* find_field(std::string_view section, std::string_view key) {
  for (const Field& f : kFields)
    if (section == f.section && key == f.key) return &f;
  return nullptr;
}

// "string \"abc\"", "float 1.5", ... for messages about a value of the wrong type.
std::string describe(const toml::node& n) {
  if (auto v = n.as_string()) return fmt::format("string \"{}\"", v->get());
  if (auto v = n.as_integer()) return fmt::format("integer {}", v->get());
  if (auto v = n.as_floating_point()) return fmt::format("float {}", v->get());
  if (auto v = n.as_boolean()) return fmt::format("boolean {}", v->get());
  if (n.is_array()) return "an array";
  if (n.is_table()) return "a table";
  return "a date/time";
}

std::string format_bound(double v) {
  return v == std::floor(v) ? fmt::format("{}", static_cast<uint64_t>(v)) : fmt::format("{}", v);
}

std::string range_text(double min, double max) {
  return min == max ? fmt::format("must be {}", format_bound(min))
                    : fmt::format("must be in [{}, {}]", format_bound(min), format_bound(max));
}

// Collects every problem in one file, each prefixed with file[:line:col].
class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  void error_at(const toml::source_region& where, const std::string& msg) {
    if (where.begin.line != 0)
      errors_.push_back(fmt::format("{}:{}:{}: {}", file_, where.begin.line, where.begin.column, msg));
    else
      errors_.push_back(fmt::format("{}: {}", file_, msg));
  }
  void error_key(const std::string& dotted, const std::string& msg) {
    auto it = where_.find(dotted);
    if (it != where_.end())
      error_at(it->second, msg);
    else
      errors_.push_back(fmt::format("{}: {}", file_, msg));
  }

  void load(const toml::table& root, GpuConfig& cfg) {
    for (auto&& [sec_key, sec_node] : root) {
      const std::string sec(sec_key.str());
      if (!is_section(sec)) {
        if (sec_node.is_table())
          error_at(sec_key.source(), fmt::format("unknown section '[{}]' (known: {})", sec, section_list()));
        else
          error_at(sec_key.source(),
                   fmt::format("unknown key '{}' (keys belong in a section: {})", sec, section_list()));
        continue;
      }
      const toml::table* tbl = sec_node.as_table();
      if (!tbl) {
        error_at(sec_key.source(), fmt::format("'{}' must be a section ([{}]), got {}", sec, sec, describe(sec_node)));
        continue;
      }
      for (auto&& [key, node] : *tbl) {
        const std::string dotted = fmt::format("{}.{}", sec, key.str());
        const Field* f = find_field(sec, key.str());
        if (!f) {
          error_at(key.source(), fmt::format("unknown key '{}'", dotted));
          continue;
        }
        where_[dotted] = key.source();
        seen_.push_back(f);
        set(*f, dotted, node, cfg);
      }
    }
    for (const Field& f : kFields)
      if (std::find(seen_.begin(), seen_.end(), &f) == seen_.end())
        errors_.push_back(fmt::format("{}: missing key '{}.{}'", file_, f.section, f.key));
  }

  // Rules that relate several keys; only run when every key loaded cleanly.
  void check_consistency(const GpuConfig& c) {
    if (c.max_threads_per_sm != c.max_warps_per_sm * c.warp_size)
      error_key("sm.max_threads_per_sm",
                fmt::format("sm.max_threads_per_sm = {} must equal sm.max_warps_per_sm ({}) x device.warp_size ({})",
                            c.max_threads_per_sm, c.max_warps_per_sm, c.warp_size));
    if (c.max_threads_per_block > c.max_threads_per_sm)
      error_key("limits.max_threads_per_block",
                fmt::format("limits.max_threads_per_block = {} exceeds sm.max_threads_per_sm = {}",
                            c.max_threads_per_block, c.max_threads_per_sm));
    const std::array<uint32_t, 3> dims{c.max_block_dim_x, c.max_block_dim_y, c.max_block_dim_z};
    for (size_t i = 0; i < 3; ++i)
      if (dims[i] > c.max_threads_per_block)
        error_key("limits.max_block_dim",
                  fmt::format("limits.max_block_dim[{}] = {} exceeds limits.max_threads_per_block = {}", i, dims[i],
                              c.max_threads_per_block));
    if (c.registers_per_block > c.registers_per_sm)
      error_key("sm.registers_per_block", fmt::format("sm.registers_per_block = {} exceeds sm.registers_per_sm = {}",
                                                      c.registers_per_block, c.registers_per_sm));
    if (c.shared_memory_per_block > c.shared_memory_per_sm)
      error_key("sm.shared_memory_per_block",
                fmt::format("sm.shared_memory_per_block = {} exceeds sm.shared_memory_per_sm = {}",
                            c.shared_memory_per_block, c.shared_memory_per_sm));
    if (c.shared_memory_per_block > c.shared_memory_per_block_optin)
      error_key("sm.shared_memory_per_block",
                fmt::format("sm.shared_memory_per_block = {} exceeds sm.shared_memory_per_block_optin = {}",
                            c.shared_memory_per_block, c.shared_memory_per_block_optin));
    // The driver reserves reserved_shared_memory_per_block of every block's
    // carve-out, so the opt-in maximum can be at most what remains.
    if (c.shared_memory_per_block_optin + c.reserved_shared_memory_per_block > c.shared_memory_per_sm)
      error_key("sm.shared_memory_per_block_optin",
                fmt::format("sm.shared_memory_per_block_optin = {} plus sm.reserved_shared_memory_per_block = {} "
                            "exceeds sm.shared_memory_per_sm = {}",
                            c.shared_memory_per_block_optin, c.reserved_shared_memory_per_block,
                            c.shared_memory_per_sm));
    // Thread block clusters arrived with compute capability 9.0.
    if (c.max_cluster_size != 0 && c.cc_major < 9)
      error_key("limits.max_cluster_size",
                fmt::format("limits.max_cluster_size = {} but compute capability {}.{} has no clusters (use 0)",
                            c.max_cluster_size, c.cc_major, c.cc_minor));
    // Double data rate: bytes/s = 2 x clock x bus width / 8. Published
    // bandwidths are rounded, so allow 5% between the two.
    const double derived_gbps = 2.0 * c.memory_clock_khz * 1e3 * (c.memory_bus_width_bits / 8.0) / 1e9;
    if (std::fabs(c.memory_bandwidth_gbps - derived_gbps) > 0.05 * derived_gbps)
      error_key("memory.bandwidth_gbps",
                fmt::format("memory.bandwidth_gbps = {} disagrees by more than 5% with 2 x memory.memory_clock_khz ({}) "
                            "x memory.memory_bus_width_bits ({}) / 8 = {:.1f} GB/s",
                            c.memory_bandwidth_gbps, c.memory_clock_khz, c.memory_bus_width_bits, derived_gbps));
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  // Reads an integer key, checking type and bounds. nullopt after an error.
  std::optional<uint64_t> integer(const Field& f, const std::string& dotted, const toml::node& n) {
    auto v = n.as_integer();
    if (!v) {
      error_at(n.source(), fmt::format("key '{}' must be an integer, got {}", dotted, describe(n)));
      return std::nullopt;
    }
    const int64_t x = v->get();
    if (static_cast<double>(x) < f.min || static_cast<double>(x) > f.max) {
      error_at(n.source(), fmt::format("key '{}' = {} is out of range ({})", dotted, x, range_text(f.min, f.max)));
      return std::nullopt;
    }
    return static_cast<uint64_t>(x);
  }

  void set(const Field& f, const std::string& dotted, const toml::node& n, GpuConfig& cfg) {
    if (auto m = std::get_if<U32>(&f.target)) {
      if (auto x = integer(f, dotted, n)) cfg.*(*m) = static_cast<uint32_t>(*x);
    } else if (auto m = std::get_if<U64>(&f.target)) {
      if (auto x = integer(f, dotted, n)) cfg.*(*m) = *x;
    } else if (auto m = std::get_if<F64>(&f.target)) {
      // Integers are accepted too: "bandwidth_gbps = 2039" is natural to write.
      std::optional<double> x;
      if (auto d = n.as_floating_point()) x = d->get();
      if (auto i = n.as_integer()) x = static_cast<double>(i->get());
      if (!x) {
        error_at(n.source(), fmt::format("key '{}' must be a number, got {}", dotted, describe(n)));
      } else if (!std::isfinite(*x) || *x < f.min || *x > f.max) {
        error_at(n.source(), fmt::format("key '{}' = {} is out of range ({})", dotted, *x, range_text(f.min, f.max)));
      } else {
        cfg.*(*m) = *x;
      }
    } else if (auto m = std::get_if<Str>(&f.target)) {
      auto s = n.as_string();
      if (!s) {
        error_at(n.source(), fmt::format("key '{}' must be a string, got {}", dotted, describe(n)));
      } else if (s->get().size() < f.min || s->get().size() > f.max) {
        error_at(n.source(), fmt::format("key '{}' = \"{}\" must be {} to {} characters long", dotted, s->get(),
                                         format_bound(f.min), format_bound(f.max)));
      } else {
        cfg.*(*m) = s->get();
      }
    } else if (auto m = std::get_if<U32x3>(&f.target)) {
      auto arr = n.as_array();
      if (!arr || arr->size() != 3) {
        error_at(n.source(), fmt::format("key '{}' must be an array of 3 integers [x, y, z], got {}", dotted,
                                         arr ? fmt::format("{} elements", arr->size()) : describe(n)));
        return;
      }
      for (size_t i = 0; i < 3; ++i)
        if (auto x = integer(f, fmt::format("{}[{}]", dotted, i), (*arr)[i])) cfg.*((*m)[i]) = static_cast<uint32_t>(*x);
    } else {
      set_compute_capability(dotted, n, cfg);
    }
  }

  // "9.0" -> 9, 0. A string, not a float, so "8.6" and "8.60" cannot be confused.
  void set_compute_capability(const std::string& dotted, const toml::node& n, GpuConfig& cfg) {
    auto s = n.as_string();
    if (!s) {
      error_at(n.source(), fmt::format("key '{}' must be a string like \"9.0\", got {}", dotted, describe(n)));
      return;
    }
    const std::string& text = s->get();
    unsigned major = 0, minor = 0;
    char dot = 0, extra = 0;
    std::istringstream in(text);
    const bool digits_only = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
    });
    if (!digits_only || !(in >> major >> dot >> minor) || dot != '.' || (in >> extra) || major < 1 || major > 99 ||
        minor > 9) {
      error_at(n.source(), fmt::format("key '{}' = \"{}\" is not a compute capability \"major.minor\" "
                                       "(major 1..99, minor 0..9)",
                                       dotted, text));
      return;
    }
    cfg.cc_major = major;
    cfg.cc_minor = minor;
  }

  std::string file_;
  std::vector<std::string> errors_;
  std::vector<const Field*> seen_;
  std::map<std::string, toml::source_region> where_;
};

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "\n") + l;
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// The *.toml files in dir, sorted by stem.
Result<std::vector<std::filesystem::path>> list_configs(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    return Error{Status::FileNotFound, fmt::format("GPU config directory '{}' does not exist", dir.string())};
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::directory_iterator(dir, ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() == ".toml" && it->is_regular_file(ec)) files.push_back(it->path());
  }
  if (ec) return Error{Status::FileNotFound, fmt::format("cannot read GPU config directory '{}': {}", dir.string(), ec.message())};
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.stem() < b.stem(); });
  return files;
}

}  // namespace

Result<GpuConfig> load_gpu_config(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error{Status::FileNotFound, fmt::format("{}: cannot open GPU config file", name)};
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();

  toml::table root;
#if TOML_EXCEPTIONS
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    return Error{Status::InvalidValue, fmt::format("{}:{}:{}: TOML syntax error: {}", name, e.source().begin.line,
                                                   e.source().begin.column, e.description())};
  }
#else
  toml::parse_result parsed = toml::parse(text, name);
  if (!parsed) {
    const auto& e = parsed.error();
    return Error{Status::InvalidValue, fmt::format("{}:{}:{}: TOML syntax error: {}", name, e.source().begin.line,
                                                   e.source().begin.column, e.description())};
  }
  root = std::move(parsed).table();
#endif

  GpuConfig cfg;
  cfg.key = file.stem().string();
  Loader loader(name);
  loader.load(root, cfg);
  if (loader.errors().empty()) loader.check_consistency(cfg);
  if (!loader.errors().empty()) return Error{Status::InvalidValue, join(loader.errors())};
  return cfg;
}


Result<std::vector<GpuConfig>> load_all_gpu_configs(const std::filesystem::path& dir) {
  auto files = list_configs(dir);
  if (!files) return files.error();
  std::vector<GpuConfig> configs;
  std::vector<std::string> errors;
  for (const auto& f : *files) {
    auto cfg = load_gpu_config(f);
    if (cfg)
      configs.push_back(std::move(*cfg));
    else
      errors.push_back(cfg.error().message);
  }
  // Names must be unique too, or find_gpu_config by name would be ambiguous.
  for (size_t i = 0; i < configs.size(); ++i)
    for (size_t j = i + 1; j < configs.size(); ++j)
      if (lower(configs[i].name) == lower(configs[j].name))
        errors.push_back(fmt::format("{}: device.name \"{}\" is also used by {}.toml", (dir / (configs[j].key + ".toml")).string(),
                                     configs[j].name, configs[i].key));
  if (!errors.empty()) return Error{Status::InvalidValue, join(errors)};
  if (configs.empty())
    return Error{Status::FileNotFound, fmt::format("no GPU configs (*.toml) in '{}'", dir.string())};
  return configs;
}

Result<GpuConfig> find_gpu_config(const std::string& name_or_key, const std::filesystem::path& dir) {
  const std::string wanted = lower(name_or_key);
  auto files = list_configs(dir);
  if (!files) return files.error();
  // A key names a file directly; load only that one so an unrelated broken
  // file does not block it.
  for (const auto& f : *files)
    if (lower(f.stem().string()) == wanted) return load_gpu_config(f);
  auto all = load_all_gpu_configs(dir);
  if (!all) return all.error();
  std::string known;
  for (const auto& c : *all) {
    if (lower(c.name) == wanted) return c;
    known += fmt::format("{}{} ({})", known.empty() ? "" : ", ", c.key, c.name);
  }
  return Error{Status::InvalidValue,
               fmt::format("unknown GPU '{}' in '{}'; available: {}", name_or_key, dir.string(), known)};
}

}  // namespace softgpu::config
