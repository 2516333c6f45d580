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
  close(fd);
  std::remove(result);  // the program writes it at its end; absent = it never started the runtime
  setenv(sanitize::kEnvTool, opts.tool.c_str(), 1);
  setenv(sanitize::kEnvLeakCheck, opts.leak_check.c_str(), 1);
  if (opts.print_limit) setenv(sanitize::kEnvPrintLimit, std::to_string(*opts.print_limit).c_str(), 1);
  if (!opts.racecheck_report.empty()) setenv(sanitize::kEnvRaceReport, opts.racecheck_report.c_str(), 1);
  if (!log.empty()) setenv(sanitize::kEnvLogFile, log.c_str(), 1);
  if (!opts.report_api_errors.empty()) setenv(sanitize::kEnvApiErrors, opts.report_api_errors.c_str(), 1);
  if (!opts.show_backtrace.empty() && opts.show_backtrace != "no")
    std::cerr << "softgpu sanitize: no backtraces are printed (--show-backtrace " << opts.show_backtrace
              << "); reports name the kernel, the CUDA source line and the PTX line\n";
  setenv(sanitize::kEnvResultFile, result, 1);

  log_line(log, "COMPUTE-SANITIZER", true);
  const int rc = cmd_run(argv, opts.run);

  uint64_t errors = 0;
  bool reported = false;
  if (std::ifstream f(result); f) {
    std::string key;
    uint64_t n = 0;
    while (f >> key >> n)
      if (key == "errors") {
        errors = n;
        reported = true;
      }
  }
  std::remove(result);
  if (rc != 0) log_line(log, rc > 128 ? "Error: process didn't terminate successfully"
                                      : "Target application returned an error");
  if (!reported)  // the program never started the CUDA runtime
    log_line(log, opts.tool == "racecheck" ? "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
                                           : "ERROR SUMMARY: 0 errors");
  if (errors && opts.error_exitcode) return *opts.error_exitcode;
  return rc;
}

}  // namespace softgpu::tools
