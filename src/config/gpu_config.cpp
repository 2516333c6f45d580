// Loader for configs/gpus/*.toml. The schema is one explicit table
// (schema.cpp): every section and key is listed there, so an unknown section
// or key, a missing key, a wrong type or an out-of-range value is an error
// naming the key. A file may start from another (`base = "h100"`) and
// override any of its keys; the merged table is then checked as one file.
#include "config/gpu_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>
#include <system_error>
#include <variant>

#include <toml++/toml.h>

#include "common/read_file.h"
#include "config/schema.h"

namespace softgpu::config {
namespace {

using schema::ComputeCapability;
using schema::Field;
using schema::find_field;
using schema::is_section;
using schema::section_list;

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

  // Where a value came from: its own file (a base file's values keep theirs).
  void error_at(const toml::source_region& where, const std::string& msg) {
    const std::string& file = where.path && !where.path->empty() ? *where.path : file_;
    if (where.begin.line != 0)
      errors_.push_back(fmt::format("{}:{}:{}: {}", file, where.begin.line, where.begin.column, msg));
    else
      errors_.push_back(fmt::format("{}: {}", file, msg));
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
      load_table(sec, *tbl, cfg);
    }
    report_missing();
  }

  // Rules that relate several keys; only run when every key loaded cleanly.
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
    // The L1 is what the shared-memory carveout leaves of the unified array.
    const TimingConfig& t = c.timing;
    if (t.l1_shared_bytes < c.shared_memory_per_sm)
      error_key("timing.memory.l1_shared_bytes",
                fmt::format("timing.memory.l1_shared_bytes = {} is less than sm.shared_memory_per_sm = {} (the "
                            "unified L1 + shared array holds the largest carveout)",
                            t.l1_shared_bytes, c.shared_memory_per_sm));
    if (t.l2_far_latency < t.l2_latency)
      error_key("timing.memory.l2_far_latency",
                fmt::format("timing.memory.l2_far_latency = {} is less than timing.memory.l2_latency = {}",
                            t.l2_far_latency, t.l2_latency));
    // A result cannot be ready before the pipe has taken all 32 lanes.
    const std::pair<const char*, const PipeConfig*> pipes[] = {
        {"alu", &t.alu}, {"fma", &t.fma}, {"fp16", &t.fp16}, {"fp64", &t.fp64}, {"xu", &t.xu},
        {"lsu", &t.lsu}, {"tex", &t.tex}, {"tensor", &t.tensor}, {"branch", &t.branch}, {"barrier", &t.barrier}};
    for (const auto& [name, pc] : pipes)
      if (pc->latency < pc->interval)
        error_key(fmt::format("timing.pipes.{}.latency", name),
                  fmt::format("timing.pipes.{}.latency = {} is less than its interval {}", name, pc->latency,
                              pc->interval));
    // A chain of dependent instructions cannot be longer than the sequence.
    for (size_t i = 0; i < kSequenceKeys.size(); ++i)
      if (t.sequences[i].depth > t.sequences[i].slots)
        error_key(fmt::format("timing.sequences.{}.depth", kSequenceKeys[i]),
                  fmt::format("timing.sequences.{}.depth = {} exceeds its slots {}", kSequenceKeys[i],
                              t.sequences[i].depth, t.sequences[i].slots));
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  // The keys of section `sec` ("timing.pipes"); sub-tables that are sections
  // themselves ([timing.memory], fma = { ... }) are walked in turn.
  void load_table(const std::string& sec, const toml::table& tbl, GpuConfig& cfg) {
    for (auto&& [key, node] : tbl) {
      const std::string dotted = fmt::format("{}.{}", sec, key.str());
      if (const Field* f = find_field(sec, key.str())) {
        where_[dotted] = key.source();
        seen_.push_back(f);
        set(*f, dotted, node, cfg);
      } else if (is_section(dotted)) {
        if (const toml::table* sub = node.as_table())
          load_table(dotted, *sub, cfg);
        else
          error_at(key.source(), fmt::format("'{}' must be a table ([{}] or {} = {{ ... }}), got {}", dotted, dotted,
                                             key.str(), describe(node)));
      } else if (node.is_table()) {
        error_at(key.source(), fmt::format("unknown section '[{}]'", dotted));
      } else {
        error_at(key.source(), fmt::format("unknown key '{}'", dotted));
      }
    }
  }

  // A top-level section with no key at all is reported once ("missing
  // section '[timing]'"), otherwise each missing key.
  void report_missing() {
    auto top = [](const Field& f) { std::string_view s = f.section; return s.substr(0, s.find('.')); };
    std::vector<std::string_view> present, reported;
    for (const Field* f : seen_) present.push_back(top(*f));
    for (const Field& f : schema::fields()) {
      if (std::find(seen_.begin(), seen_.end(), &f) != seen_.end()) continue;
      if (std::find(present.begin(), present.end(), top(f)) != present.end()) {
        errors_.push_back(fmt::format("{}: missing key '{}.{}'", file_, f.section, f.key));
      } else if (std::find(reported.begin(), reported.end(), top(f)) == reported.end()) {
        reported.push_back(top(f));
        errors_.push_back(fmt::format("{}: missing section '[{}]'", file_, top(f)));
      }
    }
  }

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
    if (auto m = std::get_if<schema::U32>(&f.target)) {
      if (auto x = integer(f, dotted, n)) (*m)(cfg) = static_cast<uint32_t>(*x);
    } else if (auto m = std::get_if<schema::U64>(&f.target)) {
      if (auto x = integer(f, dotted, n)) (*m)(cfg) = *x;
    } else if (auto m = std::get_if<schema::Policy>(&f.target)) {
      auto str = n.as_string();
      if (str && (str->get() == "gto" || str->get() == "lrr"))
        (*m)(cfg) = str->get() == "gto" ? SchedulerPolicy::Gto : SchedulerPolicy::Lrr;
      else
        error_at(n.source(), fmt::format("key '{}' must be \"gto\" or \"lrr\", got {}", dotted, describe(n)));
    } else if (auto m = std::get_if<schema::F64>(&f.target)) {
      // Integers are accepted too: "bandwidth_gbps = 2039" is natural to write.
      std::optional<double> x;
      if (auto d = n.as_floating_point()) x = d->get();
      if (auto i = n.as_integer()) x = static_cast<double>(i->get());
      if (!x) {
        error_at(n.source(), fmt::format("key '{}' must be a number, got {}", dotted, describe(n)));
      } else if (!std::isfinite(*x) || *x < f.min || *x > f.max) {
        error_at(n.source(), fmt::format("key '{}' = {} is out of range ({})", dotted, *x, range_text(f.min, f.max)));
      } else {
        (*m)(cfg) = *x;
      }
    } else if (auto m = std::get_if<schema::Str>(&f.target)) {
      auto s = n.as_string();
      if (!s) {
        error_at(n.source(), fmt::format("key '{}' must be a string, got {}", dotted, describe(n)));
      } else if (s->get().size() < f.min || s->get().size() > f.max) {
        error_at(n.source(), fmt::format("key '{}' = \"{}\" must be {} to {} characters long", dotted, s->get(),
                                         format_bound(f.min), format_bound(f.max)));
      } else {
        (*m)(cfg) = s->get();
      }
    } else if (auto m = std::get_if<schema::U32x3>(&f.target)) {
      auto arr = n.as_array();
      if (!arr || arr->size() != 3) {
        error_at(n.source(), fmt::format("key '{}' must be an array of 3 integers [x, y, z], got {}", dotted,
                                         arr ? fmt::format("{} elements", arr->size()) : describe(n)));
        return;
      }
      for (size_t i = 0; i < 3; ++i)
        if (auto x = integer(f, fmt::format("{}[{}]", dotted, i), (*arr)[i])) (*m)[i](cfg) = static_cast<uint32_t>(*x);
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

// "configs/mine.toml", "./x", "mine.toml": a file, not a key or a name.
bool is_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && lower(s.substr(s.size() - 5)) == ".toml");
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

// The file as a TOML table; syntax errors give file:line:col.
Result<toml::table> parse_file(const std::filesystem::path& file) {
  const std::string name = file.string();
  auto read = read_regular_file(file, kMaxConfigFileBytes);
  if (!read) return Error{read.error().status, fmt::format("GPU config file {}", read.error().message)};
  const std::string text = std::move(read.value());
#if TOML_EXCEPTIONS
  try {
    return toml::parse(text, name);
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
  return std::move(parsed).table();
#endif
}

// Copies `over` into `into`; tables present in both are merged key by key,
// so `fma = { latency = 5 }` keeps the base's fma.interval.
void merge(toml::table& into, const toml::table& over) {
  for (auto&& [key, node] : over) {
    toml::table* both = node.is_table() ? into[key].as_table() : nullptr;
    if (both)
      merge(*both, *node.as_table());
    else
      node.visit([&, &k = key](const auto& v) { into.insert_or_assign(k, v); });
  }
}

// `file` with its base (and the base's base) merged under it. `base` names a
// config in config_dir by key ("h100"), or a .toml path relative to `file`.
Result<toml::table> resolve(const std::filesystem::path& file, const std::filesystem::path& config_dir,
                            std::vector<std::filesystem::path>& chain) {
  std::error_code ec;
  auto canon = std::filesystem::weakly_canonical(file, ec);
  if (ec) canon = file;
  if (std::find(chain.begin(), chain.end(), canon) != chain.end()) {
    std::string cycle;
    for (const auto& p : chain) cycle += p.filename().string() + " -> ";
    return Error{Status::InvalidValue, fmt::format("{}: cyclic base: {}{}", chain.front().string(), cycle,
                                                   canon.filename().string())};
  }
  chain.push_back(canon);
  auto root = parse_file(file);
  if (!root) return root.error();
  const toml::node* base = root->get("base");
  if (!base) return root;
  const toml::source_region where = base->source();
  const std::string at = fmt::format("{}:{}:{}", file.string(), where.begin.line, where.begin.column);
  auto str = base->as_string();
  if (!str || str->get().empty())
    return Error{Status::InvalidValue, fmt::format("{}: key 'base' must be a GPU key (\"h100\") or a .toml path, "
                                                   "got {}", at, describe(*base))};
  const std::string b = str->get();
  const std::filesystem::path base_file = is_path(b) ? file.parent_path() / b : config_dir / (b + ".toml");
  if (!std::filesystem::is_regular_file(base_file, ec)) {
    std::string known;
    if (auto files = list_configs(config_dir))
      for (const auto& f : *files) known += (known.empty() ? "" : ", ") + f.stem().string();
    return Error{Status::InvalidValue,
                 fmt::format("{}: base \"{}\" not found ({} does not exist){}", at, b, base_file.string(),
                             is_path(b) || known.empty() ? "" : "; available: " + known)};
  }
  auto merged = resolve(base_file, config_dir, chain);
  if (!merged) return merged.error();
  root->erase("base");
  merge(*merged, *root);
  return merged;
}

}  // namespace

Result<GpuConfig> load_gpu_config(const std::filesystem::path& file, const std::filesystem::path& config_dir) {
  const std::string name = file.string();
  std::vector<std::filesystem::path> chain;
  auto root = resolve(file, config_dir, chain);
  if (!root) return root.error();

  GpuConfig cfg;
  cfg.key = file.stem().string();
  Loader loader(name);
  loader.load(*root, cfg);
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
    auto cfg = load_gpu_config(f, dir);
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
  if (is_path(name_or_key)) return load_gpu_config(name_or_key, dir);
  const std::string wanted = lower(name_or_key);
  auto files = list_configs(dir);
  if (!files) return files.error();
  // A key names a file directly; load only that one so an unrelated broken
  // file does not block it.
  for (const auto& f : *files)
    if (lower(f.stem().string()) == wanted) return load_gpu_config(f, dir);
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
