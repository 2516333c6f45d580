// What `softgpu sanitize` asks for, as compute-sanitizer's options name it.
// The CLI (src/tools) passes them to the program's process in environment
// variables; the runtime reads them back with options_from_env.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/types.h"

namespace softgpu::sanitize {

enum class ToolKind : uint8_t { Memcheck, Racecheck, Initcheck, Synccheck };

enum class RaceReport : uint8_t { Analysis, Hazard, All };

struct Options {
  ToolKind tool = ToolKind::Memcheck;
  bool leak_check = false;      // --leak-check full
  uint64_t print_limit = 100;   // --print-limit: errors printed; 0 = unlimited
  RaceReport race_report = RaceReport::Analysis;  // --racecheck-report
  std::string log_file;         // --log-file; "" = stdout
  std::string result_file;      // counts for the CLI, kept current (result_file.h)
  bool report_api_errors = true;  // --report-api-errors explicit|all (no: off)
  bool destroy_kernel = false;  // --destroy-on-device-error kernel: a faulting launch does not fail
  bool check_device_heap = true;  // --check-device-heap: device malloc blocks and free checked (memcheck)
  uint64_t padding = 0;         // --padding: bytes kept free after each cudaMalloc/cudaMallocManaged
  bool track_unused_memory = false;  // --track-unused-memory (initcheck)
  bool nvtx = false;            // --nvtx yes: NVTX memory annotations read (sanitize/nvtx_memory.h)
  bool xml = false;             // --xml: findings as XML records (sanitize/suppression.h)
  std::string suppressions;     // --suppressions: a report written with --xml; its findings are not reported
};

std::string_view tool_name(ToolKind t);
std::optional<ToolKind> tool_from_name(std::string_view s);

// The environment variables that carry Options to the program's process.
inline constexpr const char* kEnvTool = "SOFTGPU_SANITIZE";               // memcheck|racecheck|initcheck|synccheck
inline constexpr const char* kEnvLeakCheck = "SOFTGPU_SANITIZE_LEAK_CHECK";  // full|no
inline constexpr const char* kEnvPrintLimit = "SOFTGPU_SANITIZE_PRINT_LIMIT";
inline constexpr const char* kEnvRaceReport = "SOFTGPU_SANITIZE_RACECHECK_REPORT";  // analysis|hazard|all
inline constexpr const char* kEnvLogFile = "SOFTGPU_SANITIZE_LOG_FILE";
inline constexpr const char* kEnvResultFile = "SOFTGPU_SANITIZE_RESULT_FILE";
inline constexpr const char* kEnvApiErrors = "SOFTGPU_SANITIZE_API_ERRORS";  // explicit|all|no
inline constexpr const char* kEnvDestroy = "SOFTGPU_SANITIZE_DESTROY_ON_DEVICE_ERROR";  // context|kernel
inline constexpr const char* kEnvDeviceHeap = "SOFTGPU_SANITIZE_CHECK_DEVICE_HEAP";     // yes|no
inline constexpr const char* kEnvPadding = "SOFTGPU_SANITIZE_PADDING";                  // bytes
inline constexpr const char* kEnvUnused = "SOFTGPU_SANITIZE_TRACK_UNUSED_MEMORY";       // yes|no
inline constexpr const char* kEnvNvtx = "SOFTGPU_SANITIZE_NVTX";                        // yes|no
inline constexpr const char* kEnvXml = "SOFTGPU_SANITIZE_XML";                          // yes|no
inline constexpr const char* kEnvSuppressions = "SOFTGPU_SANITIZE_SUPPRESSIONS";        // a file

// nullopt when SOFTGPU_SANITIZE is unset or empty; an error naming the
// variable when a value is malformed.
Result<std::optional<Options>> options_from_env();

}  // namespace softgpu::sanitize
