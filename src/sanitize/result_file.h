// The counts a sanitized program shares with `softgpu sanitize` while it
// runs. The CLI creates an empty file and names it in
// SOFTGPU_SANITIZE_RESULT_FILE; the program's Reporter maps it and stores
// its counts there at every finding. The CLI prints the summary from it
// after the program ended, so the summary and --error-exitcode are right
// also when the program died first (abort, assert, a signal, even SIGKILL:
// a shared mapping's stores are in the file once made).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sanitize/options.h"

namespace softgpu::sanitize {

struct Counts {
  uint64_t errors = 0;    // count towards ERROR SUMMARY and --error-exitcode
  uint64_t warnings = 0;
  uint64_t printed = 0;   // findings printed (the rest fell past --print-limit)
  uint64_t hazard_errors_shown = 0, hazard_warnings_shown = 0;  // racecheck's displayed reports
};

// Program side: maps the file at `path` (nothing when path is empty).
class ResultFile {
 public:
  explicit ResultFile(const std::string& path);
  ~ResultFile();
  ResultFile(const ResultFile&) = delete;
  ResultFile& operator=(const ResultFile&) = delete;
  void store(const Counts& c);

 private:
  int fd_ = -1;
  uint64_t* map_ = nullptr;  // magic, then the counts
};

// CLI side: the counts the program left in the file; nullopt when no
// sanitizer started in it (the program never used the CUDA runtime).
std::optional<Counts> read_result_file(const std::string& path);

// The closing lines, without the "========= " prefix: "ERROR SUMMARY: N
// errors" (racecheck: "RACECHECK SUMMARY: N hazards displayed (E errors, W
// warnings)", counting the reports shown), then, when --print-limit cut
// findings, "ERROR SUMMARY: K errors were not printed. ...".
std::vector<std::string> summary_lines(ToolKind tool, const Counts& c);

}  // namespace softgpu::sanitize
