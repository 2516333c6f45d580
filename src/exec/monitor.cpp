// Watchdog and progress line (see monitor.h).
#include "exec/monitor.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ostream>

#include "exec/warp.h"

namespace softgpu::exec {
namespace {

double elapsed(const LaunchState& L) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - L.start).count();
}

void write_progress(const LaunchState& L, const std::string& s) {
  if (L.opts->progress_out) {
    *L.opts->progress_out << s;
    L.opts->progress_out->flush();
  } else {
    std::fputs(s.c_str(), stderr);
    std::fflush(stderr);
  }
}

// Caller holds L.mu.
void update_progress(LaunchState& L, double secs, uint64_t total) {
  if (secs < L.progress_next) return;
  const double dt = secs - L.progress_last_secs;
  const double rate = dt > 0 ? double(total - L.progress_last_instructions) / dt : 0;
  L.progress_last_secs = secs;
  L.progress_last_instructions = total;
  L.progress_next = secs + std::max(L.opts->progress_period_seconds, 0.01);
  write_progress(L, fmt::format("\rsoftgpu: kernel '{}': {}/{} CTAs done, {:.3g} warp instructions/s, {:.1f} s\033[K",
                                L.kernel->name, L.ctas_done.load(std::memory_order_relaxed), L.total_ctas, rate,
                                secs));
  L.progress_shown = true;
}

}  // namespace

void init_progress(LaunchState& L) {
  const ExecOptions& o = *L.opts;
  L.progress = o.progress_after_seconds >= 0 &&
               (o.progress_force || o.progress_out || isatty(fileno(stderr)) == 1);
  L.progress_next = o.progress_after_seconds;
}

void finish_progress(LaunchState& L) {
  std::lock_guard lock(L.mu);
  if (L.progress_shown) write_progress(L, "\r\033[K");
  L.progress_shown = false;
}

Monitor::Monitor(LaunchState& L) : L_(L), check_every_(100000) {
  // Every host thread's share below the limit is checked: the launch stops
  // within a quarter of the limit past it.
  if (const uint64_t lim = L.opts->watchdog_warp_instructions)
    check_every_ = std::clamp<uint64_t>(lim / (4 * std::max(1u, L.opts->threads)), 100, check_every_);
}

void Monitor::flush_count() {
  if (pending_) L_.warp_instructions.fetch_add(pending_, std::memory_order_relaxed);
  pending_ = 0;
}

bool Monitor::check(Dim3 block) {
  const uint64_t total = L_.warp_instructions.fetch_add(pending_, std::memory_order_relaxed) + pending_;
  pending_ = 0;
  if (L_.abort.load(std::memory_order_relaxed)) return false;
  jit_progress(L_, total);
  const ExecOptions& o = *L_.opts;
  const bool timed = o.watchdog_seconds > 0 || L_.progress;
  const double secs = timed ? elapsed(L_) : 0;
  if ((o.watchdog_warp_instructions && total > o.watchdog_warp_instructions) ||
      (o.watchdog_seconds > 0 && secs > o.watchdog_seconds)) {
    Fault f;
    f.status = Status::LaunchTimeout;
    f.kernel = L_.kernel->name;
    f.block = block;
    f.message = fmt::format(
        "softgpu: kernel '{}' stopped by the watchdog after {:.1f} s and {} warp instructions ({} of {} CTAs "
        "done; block ({},{},{}) was running); raise the limit with --watchdog SECONDS",
        f.kernel, elapsed(L_), total, L_.ctas_done.load(), L_.total_ctas, block.x, block.y, block.z);
    L_.report(std::move(f));
    return false;
  }
  if (L_.progress && secs >= o.progress_after_seconds) {
    std::lock_guard lock(L_.mu);
    update_progress(L_, secs, total);
  }
  return true;
}

}  // namespace softgpu::exec
