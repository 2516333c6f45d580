// The `softgpu` command: run a CUDA program on the simulated GPU, list the
// GPU configs, check a PTX file.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "config/gpu_config.h"
#include "exec/device_memory.h"
#include "exec/engine.h"
#include "ptx/parser.h"
#include "tools/elf_inspect.h"

namespace fs = std::filesystem;
using namespace softgpu;

namespace {

constexpr int kRefused = 126;   // the program was not started (shell convention: cannot execute)
constexpr int kNotFound = 127;

// Directory holding our libcudart.so.13, relative to this executable:
// the build tree layout first, then an installed layout.
std::optional<fs::path> find_cudart_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  for (const char* rel : {SOFTGPU_CUDART_RELDIR, "../lib", "../lib/softgpu", "."}) {
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

// Refuses programs softgpu cannot run; returns a message, or empty if fine.
std::string vet_program(const fs::path& prog) {
  auto info = tools::inspect_elf(prog);
  if (!info) return {};  // not ELF (e.g. a script): nothing to check, let it run
  const auto& needed = info->needed;
  bool shared13 = std::find(needed.begin(), needed.end(), "libcudart.so.13") != needed.end();
  std::string other;
  for (const auto& n : needed)
    if (n.rfind("libcudart.so.", 0) == 0 && n != "libcudart.so.13") other = n;
  if (!other.empty())
    return fmt::format("'{}' needs {}, a different CUDA major version; softgpu replaces libcudart.so.13 only. "
                       "Rebuild it with nvcc 13: nvcc -cudart shared ...", prog.string(), other);
  if (!info->has_device_code) return {};  // a plain host program, or one that loads CUDA code another way
  if (!shared13)
    return fmt::format("'{}' contains CUDA device code but is linked with the static CUDA runtime, which softgpu "
                       "cannot replace. Rebuild it with `nvcc -cudart shared` (or link with -lcudart instead of "
                       "libcudart_static).", prog.string());
  if (info->fatbin_error.empty() && info->fatbin_containers > 0 && info->ptx_entries == 0) {
    std::string archs;
    std::vector<uint32_t> elf = info->elf_archs;
    std::sort(elf.begin(), elf.end());
    elf.erase(std::unique(elf.begin(), elf.end()), elf.end());
    for (uint32_t a : elf) archs += fmt::format("{}sm_{}", archs.empty() ? "" : ", ", a);
    return fmt::format("'{}' embeds only GPU machine code ({}) and no PTX, and softgpu executes PTX. Rebuild with "
                       "PTX embedded, e.g. `-gencode arch=compute_80,code=[sm_80,compute_80]`, or drop "
                       "`code=sm_XX`-only flags (plain `-arch=sm_80` embeds PTX too).",
                       prog.string(), archs.empty() ? "none" : archs);
  }
  return {};
}

int cmd_run(const std::vector<std::string>& argv_in, const std::string& gpu, unsigned threads,
            std::optional<double> watchdog, std::optional<double> progress) {
  std::vector<std::string> args = argv_in;
  if (!args.empty() && args.front() == "--") args.erase(args.begin());
  if (args.empty()) {
    std::cerr << "softgpu run: no program given (usage: softgpu run [options] [--] PROGRAM [ARGS...])\n";
    return 2;
  }
  if (!gpu.empty()) {
    auto cfg = config::find_gpu_config(gpu);
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
  if (!gpu.empty()) setenv("SOFTGPU_GPU", gpu.c_str(), 1);
  if (threads) setenv("SOFTGPU_THREADS", std::to_string(threads).c_str(), 1);
  if (watchdog) setenv("SOFTGPU_WATCHDOG_SECONDS", fmt::format("{}", *watchdog).c_str(), 1);
  if (progress) setenv("SOFTGPU_PROGRESS", fmt::format("{}", *progress).c_str(), 1);

  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = fork();
  if (pid < 0) {
    std::cerr << "softgpu run: fork failed: " << std::strerror(errno) << "\n";
    return kRefused;
  }
  if (pid == 0) {
    execv(prog->c_str(), cargv.data());
    std::fprintf(stderr, "softgpu run: cannot execute '%s': %s\n", prog->c_str(), std::strerror(errno));
    _exit(errno == ENOENT ? kNotFound : kRefused);
  }
  // The terminal's Ctrl-C reaches the child too; we just report how it ended.
  signal(SIGINT, SIG_IGN);
  signal(SIGQUIT, SIG_IGN);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      std::cerr << "softgpu run: waitpid failed: " << std::strerror(errno) << "\n";
      return kRefused;
    }
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
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
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    std::cerr << fmt::format("softgpu check: cannot open '{}'\n", file);
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  auto parsed = ptx::parse(text, file);
  std::cerr << ptx::render(parsed.diagnostics, text);
  if (!parsed.module || ptx::has_errors(parsed.diagnostics)) {
    std::cout << fmt::format("{}: parse failed\n", file);
    return 1;
  }
  std::vector<ptx::Module> mods;
  mods.push_back(std::move(*parsed.module));
  exec::DeviceMemory memory(Bytes{1ull << 32});
  auto loaded = exec::load_program(std::move(mods), memory);
  std::cerr << ptx::render(loaded.diagnostics, text);
  if (!loaded.program || ptx::has_errors(loaded.diagnostics)) {
    std::cout << fmt::format("{}: load failed\n", file);
    return 1;
  }
  const auto& ks = exec::kernels(*loaded.program);
  std::cout << fmt::format("{}: ok, {} kernel{}\n", file, ks.size(), ks.size() == 1 ? "" : "s");
  for (const auto& k : ks)
    std::cout << fmt::format("  {} ({} param bytes, {} static shared bytes)\n", k.name, k.param_bytes,
                             k.static_shared_bytes);
  exec::unload_program(*loaded.program, memory);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"softgpu: run CUDA programs on a GPU simulated in software"};
  app.require_subcommand(1);

  auto* run = app.add_subcommand("run", "Run a program built with `nvcc -cudart shared` on the simulated GPU");
  std::string gpu;
  unsigned threads = 0;
  std::optional<double> watchdog, progress;
  run->add_option("--gpu", gpu, "GPU config key or name (see `softgpu devices`)");
  run->add_option("--threads", threads, "host threads that execute blocks (default: all cores)")
      ->check(CLI::Range(1u, 4096u));
  run->add_option("--watchdog", watchdog, "per-launch wall-clock limit in seconds, across all blocks (default and 0: none)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--progress", progress,
                  "show the progress line of kernels running longer than SECONDS, even when stderr is not a "
                  "terminal (default: after 3 s on a terminal)")
      ->check(CLI::NonNegativeNumber);
  run->footer(
      "Usage: softgpu run [--gpu NAME] [--threads N] [--watchdog SECONDS] [--progress SECONDS] [--] PROGRAM "
      "[ARGS...]");

  app.add_subcommand("devices", "List the simulated GPUs");

  auto* check = app.add_subcommand("check", "Parse and load a PTX file, print diagnostics");
  std::string ptx_file;
  check->add_option("FILE", ptx_file, "PTX file")->required();

  // Everything from PROGRAM on belongs to the program, options included, so
  // split the command line there before CLI11 sees it.
  std::vector<std::string> program;
  int ours = argc;
  if (argc > 1 && std::string(argv[1]) == "run") {
    for (int i = 2; i < argc; ++i) {
      std::string a = argv[i];
      if (a == "--") {
        ours = i;
        for (int j = i + 1; j < argc; ++j) program.emplace_back(argv[j]);
        break;
      }
      bool takes_value = a == "--gpu" || a == "--threads" || a == "--watchdog" || a == "--progress";
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
    return cmd_run(program, gpu, threads, watchdog, progress);
  }
  if (app.got_subcommand("devices")) return cmd_devices();
  if (check->parsed()) return cmd_check(ptx_file);
  return 2;
}
