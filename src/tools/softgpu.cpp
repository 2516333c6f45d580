// The `softgpu` command: run a CUDA program on the simulated GPU, list the
// GPU configs, check a PTX file.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <utility>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "common/read_file.h"
#include "config/gpu_config.h"
#include "exec/device_memory.h"
#include "exec/engine.h"
#include "ptx/parser.h"
#include "tools/run.h"
#include "tools/sanitize.h"

namespace fs = std::filesystem;
using namespace softgpu;

namespace {

std::string version_text() {
  std::string v = fmt::format("softgpu {}", SOFTGPU_VERSION);
  if (std::string_view git = SOFTGPU_GIT_DESCRIBE; !git.empty()) v += fmt::format(" (git {})", git);
  return v;
}

// A bad argument of `softgpu CMD` (run or sanitize): said under its name, exit 2.
int usage_error(const std::string& msg, const char* cmd = "run") {
  std::cerr << "softgpu " << cmd << ": " << msg << "\n";
  return 2;
}

Result<unsigned> parse_threads(const std::string& s) {
  unsigned v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v < 1 || v > 4096)
    return Error{Status::InvalidValue, fmt::format("--threads must be a whole number from 1 to 4096, got '{}'", s)};
  return v;
}

Result<double> parse_watchdog(const std::string& s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
    return Error{Status::InvalidValue,
                 fmt::format("--watchdog must be a number of seconds >= 0 (0 = no limit), got '{}'", s)};
  return v;
}

Result<double> parse_progress(const std::string& s) {
  double v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v < 0)
    return Error{Status::InvalidValue, fmt::format("--progress must be a number of seconds >= 0, got '{}'", s)};
  return v;
}

int cmd_devices() {
  auto dir = config::default_config_dir();
  auto all = config::load_all_gpu_configs(dir);
  if (!all) {
    std::cerr << fmt::format("softgpu devices: cannot load GPU configs from {}: {}\n", dir.string(),
                             all.error().message);
    return 1;
  }
  std::cout << fmt::format("{:<8} {:<34} {:>5} {:>10} {:>6}\n", "KEY", "NAME", "SMs", "MEMORY", "CC");
  for (const auto& g : all.value()) {
    bool def = g.key == config::kDefaultGpu;
    std::cout << fmt::format("{:<8} {:<34} {:>5} {:>7.1f} GiB {:>3}.{}{}\n", g.key, g.name, g.sm_count,
                             double(g.global_memory_bytes) / double(1ull << 30), g.cc_major, g.cc_minor,
                             def ? "  (default)" : "");
  }
  std::cout << fmt::format("configs: {}\n", dir.string());
  return 0;
}

int cmd_check(const std::string& file) {
  auto read = read_regular_file(file, kMaxSourceFileBytes);
  if (!read) {
    std::cerr << fmt::format("softgpu check: {}\n", read.error().message);
    return 1;
  }
  const std::string text = std::move(read.value());
  ptx::ParseOptions options;
  options.check_local_limit = true;  // the launch would fail; say so here
  auto parsed = ptx::parse(text, file, options);
  std::cerr << ptx::render(parsed.diagnostics, text);
  if (!parsed.module || ptx::has_errors(parsed.diagnostics)) {
    std::cout << fmt::format("{}: parse failed\n", file);
    return 1;
  }
  std::vector<ptx::Module> mods;
  mods.push_back(std::move(*parsed.module));
  exec::DeviceMemory memory(Bytes{1ull << 32});
  auto loaded = exec::load_program(std::move(mods), memory);
  // The loader knows an instruction's line, not its column: point the caret
  // at the line's first word (where the instruction, or its guard, starts).
  for (auto& d : loaded.diagnostics) {
    if (d.severity != ptx::Severity::NotImplemented || d.loc.col != 1) continue;
    size_t b = 0;
    for (uint32_t l = 1; l < d.loc.line && b != std::string::npos; ++l) {
      b = text.find('\n', b);
      if (b != std::string::npos) ++b;
    }
    if (b == std::string::npos) continue;
    size_t e = text.find_first_not_of(" \t", b);
    if (e != std::string::npos && text[e] != '\n') d.loc.col = uint32_t(e - b + 1);
  }
  std::cerr << ptx::render(loaded.diagnostics, text);
  if (!loaded.program || ptx::has_errors(loaded.diagnostics)) {
    std::cout << fmt::format("{}: load failed\n", file);
    return 1;
  }
  const auto& ks = exec::kernels(*loaded.program);
  // Instructions softgpu does not implement load, but the kernels that reach
  // them cannot run: reported as "not implemented" above, and not ok.
  const bool incomplete =
      ptx::has_not_implemented(parsed.diagnostics) || ptx::has_not_implemented(loaded.diagnostics);
  size_t bad = 0;
  for (const auto& k : ks) bad += !k.not_implemented.empty();
  if (incomplete)
    std::cout << fmt::format("{}: not implemented: {} of {} kernel{} cannot run on softgpu\n", file, bad, ks.size(),
                             ks.size() == 1 ? "" : "s");
  else
    std::cout << fmt::format("{}: ok, {} kernel{}\n", file, ks.size(), ks.size() == 1 ? "" : "s");
  for (const auto& k : ks)
    std::cout << fmt::format("  {} ({} param bytes, {} static shared bytes){}\n", k.name, k.param_bytes,
                             k.static_shared_bytes, k.not_implemented.empty() ? "" : ": fails at launch");
  exec::unload_program(*loaded.program, memory);
  return incomplete ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"softgpu: run CUDA programs on a GPU simulated in software"};
  app.require_subcommand(1);

  app.set_version_flag("--version", version_text());
  auto* run = app.add_subcommand("run", "Run a program built with `nvcc -cudart shared` on the simulated GPU");
  tools::RunOptions ro;
  std::string threads_text, watchdog_text, progress_text;
  run->add_option("--gpu", ro.gpu, "GPU config key or name (see `softgpu devices`), or a .toml file");
  // Taken as text and checked by parse_threads/parse_seconds, whose
  // messages say what is allowed.
  run->add_option("--threads", threads_text, "host threads that execute blocks, 1-4096 (default: all cores)");
  run->add_option("--watchdog", watchdog_text,
                  "per-launch wall-clock limit in seconds, across all blocks (default and 0: none)");
  run->add_option("--progress", progress_text,
                  "show the progress line of kernels running longer than SECONDS, even when stderr is not a "
                  "terminal (default: after 3 s on a terminal)");
  run->add_flag("--timing{sampled}", ro.timing,
                "predict the time on the GPU with the timing model: a table per kernel at exit; --timing=full "
                "simulates every CTA (no sampling)")
      ->check(CLI::IsMember({"sampled", "full"}));
  run->add_option("--exec", ro.exec,
                  "how kernels execute: jit (compiled to host code with LLVM; the default) or interp (the interpreter); "
                  "runs with --timing or a sanitizer interpret")
      ->check(CLI::IsMember({"interp", "jit"}));
  run->add_option("--report", ro.report, "with --timing: write every launch's prediction as JSON to FILE");
  run->add_option("--host-memory-limit", ro.host_memory_limit,
                  "host memory device memory may make resident, e.g. 8G (default: what the host has available)");
  run->footer(
      "Usage: softgpu run [--gpu NAME] [--timing[=full]] [--report FILE] [--threads N] [--watchdog SECONDS] "
      "[--progress SECONDS] [--host-memory-limit SIZE] [--exec jit|interp] [--] PROGRAM [ARGS...]");

  auto* san = app.add_subcommand(
      "sanitize", "Run a program under a sanitizer (memcheck, racecheck, initcheck, synccheck), as compute-sanitizer");
  tools::SanitizeOptions so;
  std::string san_watchdog_text, print_limit_text, padding_text;
  san->add_option("--tool", so.tool, "memcheck (default), racecheck, initcheck or synccheck")
      ->check(CLI::IsMember({"memcheck", "racecheck", "initcheck", "synccheck"}));
  san->add_option("--leak-check", so.leak_check, "memcheck: full reports device memory not freed at exit (default no)")
      ->check(CLI::IsMember({"full", "no"}));
  san->add_option("--error-exitcode", so.error_exitcode, "exit with this status when errors were found");
  san->add_option("--print-limit", print_limit_text, "stop printing after this many errors (default 100, 0 = no limit)");
  san->add_option("--log-file", so.log_file, "write the report to FILE instead of stdout");
  san->add_option("--racecheck-report", so.racecheck_report, "racecheck: analysis (default), hazard or all")
      ->check(CLI::IsMember({"analysis", "hazard", "all"}));
  san->add_option("--report-api-errors", so.report_api_errors,
                  "report failed CUDA API calls: explicit (default), all, or no")
      ->check(CLI::IsMember({"explicit", "all", "no"}));
  san->add_option("--show-backtrace", so.show_backtrace, "accepted as compute-sanitizer's; no backtraces are printed")
      ->check(CLI::IsMember({"yes", "host", "device", "no"}));
  san->add_option("--destroy-on-device-error", so.destroy_on_device_error,
                  "context (default): a kernel's memory error fails it and later calls, as a destroyed context; "
                  "kernel: the kernel ends, the program goes on without an error")
      ->check(CLI::IsMember({"context", "kernel"}));
  san->add_option("--check-device-heap", so.check_device_heap,
                  "memcheck: check accesses to device malloc blocks and device free (yes, default) or not")
      ->check(CLI::IsMember({"yes", "no"}));
  san->add_option("--padding", padding_text,
                  "memcheck: keep N bytes free after each cudaMalloc/cudaMallocManaged allocation, so an overflow "
                  "into them is reported (default 0)");
  san->add_option("--track-unused-memory", so.track_unused_memory,
                  "initcheck: report allocations with bytes nothing wrote, when freed or at exit (default no)")
      ->check(CLI::IsMember({"yes", "no"}));
  san->add_option("--check-exit-code", so.check_exit_code,
                  "yes (default): say when the program's exit status is not 0; no: do not")
      ->check(CLI::IsMember({"yes", "no"}));
  san->add_option("--nvtx", so.nvtx,
                  "yes: read the program's NVTX memory annotations (pools, names, permissions); no (default)")
      ->check(CLI::IsMember({"yes", "no"}));
  san->add_option("--save", so.save, "write the report to FILE (text, or XML with --xml) instead of stdout");
  san->add_flag("--xml", so.xml,
                "write the report as XML (softgpu's own format: one record per finding, see docs/sanitizers.md)");
  san->add_option("--suppressions", so.suppressions,
                  "a report saved with --xml: findings that match one of its records are neither reported nor "
                  "counted");
  san->add_option("--gpu", so.run.gpu, "GPU config key or name (see `softgpu devices`), or a .toml file");
  san->add_option("--watchdog", san_watchdog_text, "per-launch wall-clock limit in seconds (default: none)");
  san->footer(
      "Usage: softgpu sanitize [--tool memcheck|racecheck|initcheck|synccheck] [--leak-check full] "
      "[--error-exitcode N] [--print-limit N] [--log-file FILE] [--racecheck-report analysis|hazard|all] "
      "[--report-api-errors explicit|all|no] [--show-backtrace no] [--destroy-on-device-error context|kernel] "
      "[--check-device-heap yes|no] [--padding N] [--track-unused-memory yes|no] [--nvtx yes|no] "
      "[--check-exit-code yes|no] [--save FILE] [--xml] [--suppressions FILE] "
      "[--gpu NAME] [--watchdog SECONDS] [--] PROGRAM [ARGS...]");

  app.add_subcommand("devices", "List the simulated GPUs");

  auto* check = app.add_subcommand("check", "Parse and load a PTX file, print diagnostics");
  std::string ptx_file;
  check->add_option("FILE", ptx_file, "PTX file")->required();

  // Everything from PROGRAM on belongs to the program, options included, so
  // split the command line there before CLI11 sees it.
  std::vector<std::string> program;
  int ours = argc;
  const bool runs = argc > 1 && (std::string(argv[1]) == "run" || std::string(argv[1]) == "sanitize");
  if (runs) {
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--") {
        ours = i;
        for (int j = i + 1; j < argc; ++j) program.emplace_back(argv[j]);
        break;
      }
      bool takes_value = a == "--gpu" || a == "--threads" || a == "--watchdog" || a == "--progress" ||
                         a == "--host-memory-limit" || a == "--report" || a == "--exec" || a == "--tool" || a == "--leak-check" ||
                         a == "--error-exitcode" || a == "--print-limit" || a == "--log-file" ||
                         a == "--racecheck-report" || a == "--report-api-errors" || a == "--show-backtrace" ||
                         a == "--destroy-on-device-error" || a == "--check-device-heap" || a == "--padding" ||
                         a == "--track-unused-memory" || a == "--nvtx" || a == "--suppressions" || a == "--save" ||
                         a == "--check-exit-code";
      if (takes_value) {
        ++i;
        continue;
      }
      if (a.empty() || a[0] != '-') {
        ours = i;
        for (int j = i; j < argc; ++j) program.emplace_back(argv[j]);
        break;
      }
    }
  }

  try {
    app.parse(ours, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);  // prints help or the usage error
    return rc == 0 ? 0 : 2;
  }
  if (run->parsed()) {
    if (!threads_text.empty()) {
      auto t = parse_threads(threads_text);
      if (!t) return usage_error(t.error().message);
      ro.threads = *t;
    }
    if (!watchdog_text.empty()) {
      auto w = parse_watchdog(watchdog_text);
      if (!w) return usage_error(w.error().message);
      ro.watchdog = *w;
    }
    if (!progress_text.empty()) {
      auto p = parse_progress(progress_text);
      if (!p) return usage_error(p.error().message);
      ro.progress = *p;
    }
    return tools::cmd_run(program, ro);
  }
  if (san->parsed()) {
    if (program.empty())
      return usage_error("no program given (usage: softgpu sanitize [options] [--] PROGRAM [ARGS...])", "sanitize");
    if (!san_watchdog_text.empty()) {
      auto w = parse_watchdog(san_watchdog_text);
      if (!w) return usage_error(w.error().message, "sanitize");
      so.run.watchdog = *w;
    }
    if (!print_limit_text.empty()) {
      char* end = nullptr;
      const unsigned long long n = std::strtoull(print_limit_text.c_str(), &end, 10);
      if (*end || print_limit_text[0] == '-') return usage_error("--print-limit takes a number of errors", "sanitize");
      so.print_limit = n;
    }
    if (!padding_text.empty()) {
      char* end = nullptr;
      errno = 0;
      const unsigned long long n = std::strtoull(padding_text.c_str(), &end, 10);
      if (*end || padding_text[0] == '-' || errno || n > (1ull << 30))
        return usage_error("--padding takes a number of bytes, at most 1073741824", "sanitize");
      so.padding = n;
    }
    return tools::cmd_sanitize(program, so);
  }
  if (app.got_subcommand("devices")) return cmd_devices();
  if (check->parsed()) return cmd_check(ptx_file);
  return 2;
}
