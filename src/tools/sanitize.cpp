#include "tools/sanitize.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>

#include "sanitize/options.h"
#include "sanitize/result_file.h"

namespace softgpu::tools {
namespace {

// Appends one line to the log (stdout or the log file).
void log_line(const std::string& log_file, const std::string& text, bool truncate = false) {
  if (log_file.empty()) {
    std::cout << "========= " << text << std::endl;
    return;
  }
  std::ofstream f(log_file, truncate ? std::ios::trunc : std::ios::app);
  f << "========= " << text << "\n";
}

}  // namespace

int cmd_sanitize(const std::vector<std::string>& argv, const SanitizeOptions& opts) {
  if (!opts.unsupported.empty()) {
    std::cerr << "softgpu sanitize: " << opts.unsupported
              << " is not supported: softgpu neither saves reports (--save, --xml) nor reads compute-sanitizer's "
                 "suppression files (--suppressions); run without it\n";
    return 2;
  }
  if (!sanitize::tool_from_name(opts.tool)) {
    std::cerr << fmt::format("softgpu sanitize: unknown tool '{}' (memcheck, racecheck, initcheck or synccheck)\n",
                             opts.tool);
    return 2;
  }
  std::string log = opts.log_file.empty() ? "" : std::filesystem::absolute(opts.log_file).string();
  char result[] = "/tmp/softgpu-sanitize-XXXXXX";
  const int fd = mkstemp(result);
  if (fd < 0) {
    std::cerr << "softgpu sanitize: cannot create a temporary file in /tmp\n";
    return 126;
  }
  close(fd);  // empty until the program's sanitizer maps it (sanitize/result_file.h)
  setenv(sanitize::kEnvTool, opts.tool.c_str(), 1);
  setenv(sanitize::kEnvLeakCheck, opts.leak_check.c_str(), 1);
  if (opts.print_limit) setenv(sanitize::kEnvPrintLimit, std::to_string(*opts.print_limit).c_str(), 1);
  if (!opts.racecheck_report.empty()) setenv(sanitize::kEnvRaceReport, opts.racecheck_report.c_str(), 1);
  if (!log.empty()) setenv(sanitize::kEnvLogFile, log.c_str(), 1);
  if (!opts.report_api_errors.empty()) setenv(sanitize::kEnvApiErrors, opts.report_api_errors.c_str(), 1);
  if (!opts.destroy_on_device_error.empty()) setenv(sanitize::kEnvDestroy, opts.destroy_on_device_error.c_str(), 1);
  if (!opts.check_device_heap.empty()) setenv(sanitize::kEnvDeviceHeap, opts.check_device_heap.c_str(), 1);
  if (!opts.track_unused_memory.empty()) setenv(sanitize::kEnvUnused, opts.track_unused_memory.c_str(), 1);
  if (opts.padding) setenv(sanitize::kEnvPadding, std::to_string(*opts.padding).c_str(), 1);
  if (!opts.nvtx.empty()) setenv(sanitize::kEnvNvtx, opts.nvtx.c_str(), 1);
  if (!opts.show_backtrace.empty() && opts.show_backtrace != "no")
    std::cerr << "softgpu sanitize: no backtraces are printed (--show-backtrace " << opts.show_backtrace
              << "); reports name the kernel, the CUDA source line and the PTX line\n";
  setenv(sanitize::kEnvResultFile, result, 1);

  log_line(log, "COMPUTE-SANITIZER", true);
  const int rc = cmd_run(argv, opts.run);

  // The program's counts as they were when it ended, also when it died
  // (empty: it never started the CUDA runtime). The summary is ours.
  const sanitize::Counts counts = sanitize::read_result_file(result).value_or(sanitize::Counts{});
  std::remove(result);
  if (rc > 128) log_line(log, "Error: process didn't terminate successfully");
  else if (rc != 0 && opts.check_exit_code == "yes") log_line(log, "Target application returned an error");
  for (const std::string& l : sanitize::summary_lines(*sanitize::tool_from_name(opts.tool), counts)) log_line(log, l);
  const uint64_t errors = counts.errors;
  if (errors && opts.error_exitcode) return *opts.error_exitcode;
  return rc;
}

}  // namespace softgpu::tools
