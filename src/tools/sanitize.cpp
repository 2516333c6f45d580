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
#include "sanitize/suppression.h"

namespace softgpu::tools {
namespace {

// Appends text to the report: stdout, or the file (--save, --log-file).
void put(const std::string& file, const std::string& text, bool truncate = false) {
  if (file.empty()) {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream f(file, truncate ? std::ios::trunc : std::ios::app);
  f << text;
}

}  // namespace

int cmd_sanitize(const std::vector<std::string>& argv, const SanitizeOptions& opts) {
  if (!sanitize::tool_from_name(opts.tool)) {
    std::cerr << fmt::format("softgpu sanitize: unknown tool '{}' (memcheck, racecheck, initcheck or synccheck)\n",
                             opts.tool);
    return 2;
  }
  if (!opts.save.empty() && !opts.log_file.empty()) {
    std::cerr << "softgpu sanitize: --save and --log-file both say where the report goes; give one\n";
    return 2;
  }
  unsetenv(sanitize::kEnvSuppressions);
  if (!opts.suppressions.empty()) {
    // Checked here, so that a bad file is a usage error before the program runs.
    if (auto rules = sanitize::read_suppressions(opts.suppressions); !rules) {
      std::cerr << "softgpu sanitize: " << rules.error().message << "\n";
      return 2;
    }
    setenv(sanitize::kEnvSuppressions, std::filesystem::absolute(opts.suppressions).c_str(), 1);
  }
  const std::string& dest = opts.save.empty() ? opts.log_file : opts.save;
  const std::string log = dest.empty() ? "" : std::filesystem::absolute(dest).string();
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
  setenv(sanitize::kEnvXml, opts.xml ? "yes" : "no", 1);
  if (!opts.show_backtrace.empty() && opts.show_backtrace != "no")
    std::cerr << "softgpu sanitize: no backtraces are printed (--show-backtrace " << opts.show_backtrace
              << "); reports name the kernel, the CUDA source line and the PTX line\n";
  setenv(sanitize::kEnvResultFile, result, 1);

  // A line of ours: "========= TEXT", or an XML <message>.
  auto line = [&](const std::string& text) {
    return opts.xml ? sanitize::xml_message(text) : "========= " + text + "\n";
  };
  put(log, opts.xml ? sanitize::xml_begin(opts.tool) : line("COMPUTE-SANITIZER"), true);
  const int rc = cmd_run(argv, opts.run);

  // The program's counts as they were when it ended, also when it died
  // (empty: it never started the CUDA runtime). The summary is ours, and so
  // is the XML report's end: the file is whole however the program ended.
  const sanitize::Counts counts = sanitize::read_result_file(result).value_or(sanitize::Counts{});
  std::remove(result);
  std::string tail;
  if (rc > 128) tail += line("Error: process didn't terminate successfully");
  else if (rc != 0 && opts.check_exit_code == "yes") tail += line("Target application returned an error");
  const auto summary = sanitize::summary_lines(*sanitize::tool_from_name(opts.tool), counts);
  if (opts.xml) tail += sanitize::xml_end(counts, summary);
  else
    for (const std::string& l : summary) tail += line(l);
  put(log, tail);
  if (counts.errors && opts.error_exitcode) return *opts.error_exitcode;
  return rc;
}

}  // namespace softgpu::tools
