#include "sanitize/options.h"

#include <cerrno>
#include <cstdlib>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace softgpu::sanitize {

std::string_view tool_name(ToolKind t) {
  switch (t) {
    case ToolKind::Memcheck: return "memcheck";
    case ToolKind::Racecheck: return "racecheck";
    case ToolKind::Initcheck: return "initcheck";
    case ToolKind::Synccheck: return "synccheck";
  }
  return "?";
}

std::optional<ToolKind> tool_from_name(std::string_view s) {
  for (ToolKind t : {ToolKind::Memcheck, ToolKind::Racecheck, ToolKind::Initcheck, ToolKind::Synccheck})
    if (tool_name(t) == s) return t;
  return std::nullopt;
}

Result<std::optional<Options>> options_from_env() {
  const char* t = std::getenv(kEnvTool);
  if (!t || !*t) return std::optional<Options>{};
  auto bad = [](const char* var, const char* v, const char* want) {
    return Error{Status::InitializationError, fmt::format("{}='{}' is not {}", var, v, want)};
  };
  Options o;
  auto tool = tool_from_name(t);
  if (!tool) return bad(kEnvTool, t, "memcheck, racecheck, initcheck or synccheck");
  o.tool = *tool;
  if (const char* v = std::getenv(kEnvLeakCheck); v && *v) {
    const std::string_view s = v;
    if (s != "full" && s != "no") return bad(kEnvLeakCheck, v, "full or no");
    o.leak_check = s == "full";
  }
  for (auto [var, out] : {std::pair{kEnvPrintLimit, &o.print_limit}, std::pair{kEnvPadding, &o.padding}}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (*end || *v == '-' || errno) return bad(var, v, "a number");
    *out = n;
  }
  // yes|no (or the two words given) options.
  for (auto [var, yes, no, out] : {std::tuple{kEnvDestroy, "kernel", "context", &o.destroy_kernel},
                                   std::tuple{kEnvDeviceHeap, "yes", "no", &o.check_device_heap},
                                   std::tuple{kEnvUnused, "yes", "no", &o.track_unused_memory},
                                   std::tuple{kEnvNvtx, "yes", "no", &o.nvtx},
                                   std::tuple{kEnvXml, "yes", "no", &o.xml}}) {
    const char* v = std::getenv(var);
    if (!v || !*v) continue;
    const std::string_view s = v;
    if (s != yes && s != no) return bad(var, v, fmt::format("{} or {}", yes, no).c_str());
    *out = s == yes;
  }
  if (const char* v = std::getenv(kEnvRaceReport); v && *v) {
    const std::string_view s = v;
    if (s == "analysis") o.race_report = RaceReport::Analysis;
    else if (s == "hazard") o.race_report = RaceReport::Hazard;
    else if (s == "all") o.race_report = RaceReport::All;
    else return bad(kEnvRaceReport, v, "analysis, hazard or all");
  }
  if (const char* v = std::getenv(kEnvApiErrors); v && *v) {
    const std::string_view s = v;
    if (s != "explicit" && s != "all" && s != "no") return bad(kEnvApiErrors, v, "explicit, all or no");
    o.report_api_errors = s != "no";
  }
  if (const char* v = std::getenv(kEnvLogFile); v && *v) o.log_file = v;
  if (const char* v = std::getenv(kEnvResultFile); v && *v) o.result_file = v;
  if (const char* v = std::getenv(kEnvSuppressions); v && *v) o.suppressions = v;
  return std::optional<Options>{std::move(o)};
}

}  // namespace softgpu::sanitize
