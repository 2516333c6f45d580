// `softgpu sanitize`: runs a program under one of the sanitizers
// (src/sanitize), with compute-sanitizer's tool names, options and report
// lines.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tools/run.h"

namespace softgpu::tools {

struct SanitizeOptions {
  std::string tool = "memcheck";    // memcheck | racecheck | initcheck | synccheck
  std::string leak_check = "no";    // full | no
  std::optional<int> error_exitcode;  // exit status when errors were found
  std::optional<uint64_t> print_limit;
  std::string log_file;
  std::string racecheck_report;     // analysis | hazard | all
  std::string report_api_errors;    // explicit | all | no
  std::string show_backtrace;       // accepted for compute-sanitizer's scripts; no backtraces are printed
  std::string destroy_on_device_error;  // context | kernel
  std::string check_device_heap;    // yes | no
  std::string track_unused_memory;  // yes | no
  std::string nvtx;                 // yes | no: NVTX memory annotations read
  std::string check_exit_code = "yes";  // no: no "Target application returned an error" line
  std::optional<uint64_t> padding;  // bytes after each allocation
  bool xml = false;                 // --xml: the report as XML (sanitize/suppression.h)
  std::string save;                 // --save: the report goes to this file (instead of stdout or --log-file)
  std::string suppressions;         // --suppressions: a report saved with --xml; its findings are not reported
  RunOptions run;                   // --gpu, --watchdog, ...
};

// The program's exit status, or error_exitcode when the tool found errors.
int cmd_sanitize(const std::vector<std::string>& argv, const SanitizeOptions& opts);

}  // namespace softgpu::tools
