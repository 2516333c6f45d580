// `softgpu run`: checks a program, starts it with softgpu's libcudart.so.13
// first on the library path, forwards signals to it and reports how it ended.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace softgpu::tools {

struct RunOptions {
  std::string gpu;                 // config key or name; empty = default
  unsigned threads = 0;            // 0 = all cores
  std::optional<double> watchdog;  // seconds; unset = runtime default
  std::optional<double> progress;  // SOFTGPU_PROGRESS: show the progress line after this many seconds
  std::string timing;              // SOFTGPU_TIMING: "", "sampled" or "full"
  std::string report;              // SOFTGPU_TIMING_REPORT: JSON file
  std::string host_memory_limit;   // SOFTGPU_HOST_MEMORY_LIMIT, e.g. "8G"; empty = the host's available memory
  std::string exec;                // SOFTGPU_EXEC: "interp" or "jit"; empty = the default
};

// Exit status like a shell's: the program's own, 128+N if it died of signal
// N, 126 if it could not be started, 127 if it was not found, 2 on misuse.
int cmd_run(const std::vector<std::string>& argv, const RunOptions& opts);

}  // namespace softgpu::tools
