// `softgpu run` (see run.h).
#include "tools/run.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string_view>

#include <fmt/core.h>

#include "config/gpu_config.h"
#include "sanitize/options.h"
#include "tools/elf_inspect.h"

namespace fs = std::filesystem;

namespace softgpu::tools {

namespace {

constexpr int kRefused = 126;  // the program was not started (shell convention: cannot execute)
constexpr int kNotFound = 127;

// Directory holding our libcudart.so.13, relative to this executable:
// the build tree layout first, then an installed layout.
std::optional<fs::path> find_cudart_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const char* rel : {SOFTGPU_CUDART_RELDIR, "../lib/softgpu", "../lib", "."}) {
    fs::path dir = (self.parent_path() / rel).lexically_normal();
    if (fs::exists(dir / "libcudart.so.13", ec)) return dir;
  }
  return std::nullopt;
}

// execvp's PATH search, done here so the ELF can be inspected first.
std::optional<fs::path> resolve_program(const std::string& prog) {
  std::error_code ec;
  if (prog.find('/') != std::string::npos) {
    if (fs::exists(prog, ec)) return fs::path(prog);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / prog;
    if (fs::is_regular_file(p, ec) && access(p.c_str(), X_OK) == 0) return p;
  }
  return std::nullopt;
}

// Refuses programs softgpu cannot start; returns a message, or empty if fine.
// A program whose kernels carry no PTX is not refused here: the runtime
// fails the launch of such a kernel and names it, so programs that launch
// none of their own kernels (deviceQuery, library-only code) run.
std::string vet_program(const fs::path& prog) {
  std::error_code ec;
  if (fs::is_directory(prog, ec)) return fmt::format("'{}' is a directory, not a program", prog.string());
  if (!fs::is_regular_file(prog, ec)) return fmt::format("'{}' is not a regular file", prog.string());
  if (access(prog.c_str(), X_OK) != 0)
    return fmt::format("'{}' is not executable (no execute permission)", prog.string());
  auto info = inspect_elf(prog);
  if (!info) {
    // A script (#!), or an ELF file we cannot inspect: the kernel decides.
    // A truncated ELF file would die of SIGBUS/SIGSEGV before main.
    if (info.error().status == Status::InvalidSource) return info.error().message;
    return {};
  }
  // A program linked with the static CUDA runtime (nvcc's default) runs
  // too: its runtime starts through softgpu's libcuda.so.1
  // (cudadrv/export_tables.cpp).
  for (const auto& n : info->needed)
    if (n.rfind("libcudart.so.", 0) == 0 && n != "libcudart.so.13")
      return fmt::format("'{}' needs {}, a different CUDA major version; softgpu replaces libcudart.so.13 only. "
                         "Rebuild it with nvcc 13.", prog.string(), n);
  return {};
}

// Runs the program with the signals softgpu forwards blocked in softgpu
// and waited for synchronously (sigwaitinfo), so no handler or global is
// needed: a SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to softgpu goes to the
// program; the program's exit is SIGCHLD.
int spawn_and_wait(const fs::path& prog, std::vector<std::string>& args) {
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  signal(SIGCHLD, SIG_DFL);  // an inherited SIG_IGN would reap the program before we can
  // Every signal whose default action ends a process and that is sent to a
  // process rather than raised by its own faults: softgpu passes it on to
  // the program and goes on waiting, so it never dies of one and leaves the
  // program behind. What it cannot catch (SIGKILL), or its own crash, the
  // program follows through PR_SET_PDEATHSIG.
  sigset_t forwarded, old;
  sigemptyset(&forwarded);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
                SIGPIPE, SIGXCPU, SIGXFSZ, SIGCHLD})
    sigaddset(&forwarded, s);
  sigprocmask(SIG_BLOCK, &forwarded, &old);
  std::cout.flush();
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    sigprocmask(SIG_SETMASK, &old, nullptr);
    std::cerr << "softgpu run: fork failed: " << std::strerror(err) << "\n";
    return kRefused;
  }
  if (pid == 0) {
    // The program dies with softgpu; a parent that died before prctl took
    // effect shows as a changed parent pid.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(kRefused);
    sigprocmask(SIG_SETMASK, &old, nullptr);
    execv(prog.c_str(), cargv.data());
    std::fprintf(stderr, "softgpu run: cannot execute '%s': %s\n", prog.c_str(), std::strerror(errno));
    _exit(errno == ENOENT ? kNotFound : kRefused);
  }
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) {
      std::cerr << "softgpu run: waitpid failed: " << std::strerror(errno) << "\n";
      sigprocmask(SIG_SETMASK, &old, nullptr);
      return kRefused;
    }
    siginfo_t si;
    int sig = sigwaitinfo(&forwarded, &si);
    // The terminal's Ctrl-C (sent by the kernel to the whole foreground
    // process group) reaches the program by itself; forward the rest.
    if (sig > 0 && sig != SIGCHLD && si.si_code != SI_KERNEL) kill(pid, sig);
  }
  sigprocmask(SIG_SETMASK, &old, nullptr);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

int cmd_run(const std::vector<std::string>& argv_in, const RunOptions& opts) {
  std::vector<std::string> args = argv_in;
  if (!args.empty() && args.front() == "--") args.erase(args.begin());
  if (args.empty()) {
    std::cerr << "softgpu run: no program given (usage: softgpu run [options] [--] PROGRAM [ARGS...])\n";
    return 2;
  }
  if (!opts.gpu.empty()) {
    auto cfg = config::find_gpu_config(opts.gpu);
    if (!cfg) {
      std::cerr << fmt::format("softgpu run: {}\n(`softgpu devices` lists them)\n", cfg.error().message);
      return 2;
    }
  }
  auto prog = resolve_program(args.front());
  if (!prog) {
    std::cerr << fmt::format("softgpu run: program '{}' not found\n", args.front());
    return kNotFound;
  }
  if (std::string why = vet_program(*prog); !why.empty()) {
    std::cerr << "softgpu run: refusing to run: " << why << "\n";
    return kRefused;
  }
  auto libdir = find_cudart_dir();
  if (!libdir) {
    std::cerr << "softgpu run: cannot find softgpu's libcudart.so.13 next to the softgpu executable "
                 "(it is built only when the CUDA headers are found at configure time)\n";
    return kRefused;
  }

  std::string ld = libdir->string();
  if (const char* old = std::getenv("LD_LIBRARY_PATH"); old && *old) ld += std::string(":") + old;
  setenv("LD_LIBRARY_PATH", ld.c_str(), 1);
  // CuPy compiles its kernels with NVRTC to machine code for the device's
  // architecture unless told to keep PTX, which is what softgpu runs.
  setenv("CUPY_COMPILE_WITH_PTX", "1", 0);
  // softgpu sanitize --nvtx yes: our libcudart.so.13 is the program's NVTX
  // injection library (cudart/cudart_nvtx.cpp), as compute-sanitizer's is.
  if (const char* n = std::getenv(sanitize::kEnvNvtx); n && std::string_view(n) == "yes")
    setenv("NVTX_INJECTION64_PATH", (*libdir / "libcudart.so.13").c_str(), 1);
  if (!opts.gpu.empty()) {
    // A config file (--gpu my.toml) is passed on as an absolute path, so the
    // program finds it whatever directory it changes to.
    std::string gpu = opts.gpu;
    std::error_code ec;
    const bool is_file = gpu.find('/') != std::string::npos || gpu.ends_with(".toml");
    if (is_file && std::filesystem::is_regular_file(gpu, ec)) gpu = std::filesystem::absolute(gpu, ec).string();
    setenv("SOFTGPU_GPU", gpu.c_str(), 1);
  }
  if (opts.threads) setenv("SOFTGPU_THREADS", std::to_string(opts.threads).c_str(), 1);
  if (!opts.exec.empty()) setenv("SOFTGPU_EXEC", opts.exec.c_str(), 1);
  if (opts.watchdog) setenv("SOFTGPU_WATCHDOG_SECONDS", fmt::format("{}", *opts.watchdog).c_str(), 1);
  if (opts.progress) setenv("SOFTGPU_PROGRESS", fmt::format("{}", *opts.progress).c_str(), 1);
  if (!opts.timing.empty()) setenv("SOFTGPU_TIMING", opts.timing.c_str(), 1);
  if (!opts.report.empty()) setenv("SOFTGPU_TIMING_REPORT", std::filesystem::absolute(opts.report).c_str(), 1);
  if (!opts.host_memory_limit.empty()) setenv("SOFTGPU_HOST_MEMORY_LIMIT", opts.host_memory_limit.c_str(), 1);
  return spawn_and_wait(*prog, args);
}

}  // namespace softgpu::tools
