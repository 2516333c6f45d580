#include "timing/session.h"

#include <fmt/format.h>

#include "common/demangle.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>

#include "config/occupancy.h"
#include "timing/params_from_config.h"
#include "timing/recorder.h"

namespace softgpu::timing {

struct TimingSession::Active {
  TimingParams params;  // with this launch's L1/shared carveout
  std::unique_ptr<KernelModel> model;
  std::unique_ptr<TraceRecorder> recorder;
};

Result<std::unique_ptr<TimingSession>> TimingSession::create(const config::GpuConfig& gpu, SamplingPolicy s) {
  auto p = params_from(gpu, 0);
  if (!p) return p.error();
  return std::unique_ptr<TimingSession>(new TimingSession(gpu, std::move(*p), s));
}

TimingSession::TimingSession(const config::GpuConfig& gpu, TimingParams p, SamplingPolicy s)
    : gpu_(gpu), params_(std::move(p)), sampling_(s) {}

TimingSession::~TimingSession() = default;

exec::ExecutionListener* TimingSession::begin_launch(const LaunchShape& shape, StreamRef stream) {
  launch_stream_ = stream;
  const auto occ = config::occupancy(gpu_, {shape.block.count(), shape.registers_per_thread, shape.shared_bytes});
  const uint32_t resident = std::max<uint32_t>(occ.blocks_per_sm, 1);
  // The carveout the resident CTAs need; the L1 keeps the rest.
  uint64_t carveout = 0;
  if (shape.shared_bytes)
    carveout = std::min<uint64_t>(gpu_.shared_memory_per_sm,
                                  uint64_t(resident) * (shape.shared_bytes + gpu_.reserved_shared_memory_per_block));
  auto p = params_from(gpu_, carveout);
  active_ = std::make_unique<Active>();
  active_->params = p ? std::move(*p) : params_;
  active_->model = std::make_unique<KernelModel>(
      active_->params, KernelShape{shape.kernel, shape.grid, shape.block, resident}, gpu_.max_warps_per_sm, sampling_);
  KernelModel* m = active_->model.get();
  // %clock and %globaltimer count from the kernel's start on the timeline
  // (its stream's end and one launch overhead; timing/warp_clock.h).
  // Both read what earlier launches left in the L2.
  const SectorCache* warm = &l2();
  m->set_warm(warm);
  const ClockSetup clock{&active_->params, m->l2_share(), stream_end(stream) + launch_cycles(stream), warm};
  active_->recorder = std::make_unique<TraceRecorder>([m](std::unique_ptr<CtaTrace> t) { m->add(std::move(t)); },
                                                      [m](uint32_t c) { return m->wanted(c); }, clock);
  return active_->recorder.get();
}

const KernelTiming& TimingSession::end_launch() {
  KernelTiming k = active_ ? active_->model->finish() : KernelTiming{};
  if (active_) active_->model->leave_in(l2());
  active_.reset();
  const double overhead = launch_cycles(launch_stream_);
  launch_overhead_cycles_ += overhead;
  run_on_sms(launch_stream_, std::max<uint32_t>(k.sms_used, 1), overhead + double(k.cycles));
  done_.push_back(std::move(k));
  return done_.back();
}

// A kernel replayed from a CUDA graph costs less to launch than one sent to
// a stream (the work was submitted once, at instantiation); both are the
// configs' back-to-back figures.
double TimingSession::launch_cycles(StreamRef s) const {
  return s.graph_node && params_.graph_kernel_launch_cycles > 0 ? params_.graph_kernel_launch_cycles
                                                                : params_.kernel_launch_cycles;
}

SectorCache& TimingSession::l2() {
  if (!l2_)
    l2_ = std::make_unique<SectorCache>(CacheGeometry{params_.l2_bytes, params_.l2_ways, true},
                                        WritePolicy::WriteBackAllocate);
  return *l2_;
}

void TimingSession::through_l2(uint64_t addr, uint64_t bytes, bool write) {
  if (!addr || !bytes) return;
  const uint64_t keep = std::min<uint64_t>(bytes, params_.l2_bytes);
  const uint64_t begin = addr + bytes - keep, end = addr + bytes;
  SectorCache& c = l2();
  if (bytes >= params_.l2_bytes) c.invalidate();  // it replaced everything the L2 held
  for (uint64_t line = begin / kLineBytes * kLineBytes; line < end; line += kLineBytes) {
    uint8_t sectors = 0;
    for (uint32_t s = 0; s < kSectorsPerLine; ++s) {
      const uint64_t lo = line + uint64_t(s) * kSectorBytes;
      if (lo + kSectorBytes > begin && lo < end) sectors |= uint8_t(1u << s);
    }
    write ? c.write({line, sectors}) : c.read({line, sectors});
  }
}

void TimingSession::copy(CopyPath path, uint64_t bytes, StreamRef stream, bool host_waits, uint64_t dst,
                         uint64_t src) {
  if (path == CopyPath::DeviceToHost || path == CopyPath::DeviceToDevice) through_l2(src, bytes, false);
  if (path == CopyPath::HostToDevice || path == CopyPath::DeviceToDevice) through_l2(dst, bytes, true);
  double rate = 0;
  Engine e = kD2D;
  switch (path) {
    case CopyPath::HostToDevice: rate = params_.host_link_bytes_per_cycle; e = kH2D; break;
    case CopyPath::DeviceToHost: rate = params_.host_link_bytes_per_cycle; e = kD2H; break;
    case CopyPath::DeviceToDevice: rate = params_.d2d_bytes_per_cycle / 2; break;  // read + write
    case CopyPath::HostToHost: return;
  }
  if (rate <= 0) return;
  const double c = double(bytes) / rate;
  copy_cycles_ += c;
  const double end = start_on(stream, e) + c;
  finish_on(stream, e, end);
  if (host_waits) host_ = std::max(host_, end);
}

void TimingSession::memset(uint64_t bytes, StreamRef stream, uint64_t dst) {
  through_l2(dst, bytes, true);
  if (params_.d2d_bytes_per_cycle <= 0) return;
  const double c = params_.kernel_launch_cycles + double(bytes) / params_.d2d_bytes_per_cycle;  // writes only
  copy_cycles_ += c;
  run_on_sms(stream, uint32_t(sm_free_.size()), c);  // bandwidth-bound: the whole GPU
}

// Concurrent kernels: a kernel needs as many SMs as its grid uses (at most
// all of them) and starts when its stream is ready and that many SMs are
// free; a small grid on another stream runs beside it. The SMs it takes
// are the ones free earliest, busy until it ends (its cycles were simulated
// with those SMs to itself; the L2 and DRAM are not shared between
// concurrent kernels).
void TimingSession::run_on_sms(const StreamRef& s, uint32_t sms, double cycles) {
  if (sm_free_.empty()) sm_free_.assign(std::max<uint32_t>(params_.sm_count, 1), 0.0);
  sms = std::min<uint32_t>(std::max<uint32_t>(sms, 1), uint32_t(sm_free_.size()));
  std::vector<size_t> idx(sm_free_.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return sm_free_[a] < sm_free_[b]; });
  const double start = std::max(stream_end(s), sm_free_[idx[sms - 1]]);
  const double end = start + cycles;
  for (uint32_t i = 0; i < sms; ++i) sm_free_[idx[i]] = end;
  finish_on(s, end);
}

double TimingSession::stream_end(const StreamRef& s) const {
  // Work issued now starts no earlier than the host issues it.
  double t = host_;
  if (s.legacy) {
    t = std::max(t, legacy_end_);
    for (const auto& [id, st] : streams_)
      if (st.blocking) t = std::max(t, st.end);
    return t;
  }
  if (auto it = streams_.find(s.id); it != streams_.end()) t = std::max(t, it->second.end);
  if (s.blocking) t = std::max(t, legacy_end_);
  return t;
}

double TimingSession::start_on(const StreamRef& s, Engine e) const {
  return std::max(stream_end(s), engine_free_[e]);
}

void TimingSession::finish_on(const StreamRef& s, Engine e, double end) {
  engine_free_[e] = end;
  finish_on(s, end);
}

void TimingSession::finish_on(const StreamRef& s, double end) {
  if (s.legacy) legacy_end_ = end;
  else streams_[s.id] = {end, s.blocking};
  makespan_ = std::max(makespan_, end);
}

void TimingSession::wait_until(StreamRef s, double event_us) {
  const double t = event_us * clock_mhz();
  if (s.legacy) {
    legacy_end_ = std::max(legacy_end_, t);
    return;
  }
  StreamState& st = streams_[s.id];
  st.end = std::max(st.end, t);
  st.blocking = s.blocking;
}

void TimingSession::print_summary(std::ostream& out) const {
  struct Row {
    std::string kernel;
    uint64_t launches = 0;
    double us = 0, occupancy = 0, ipc = 0, dram = 0, l2 = 0;
    std::map<std::string, int> bounds;
  };
  std::map<std::string, Row> rows;
  double total = 0;
  for (const auto& k : done_) {
    Row& r = rows[k.kernel];
    r.kernel = k.kernel;
    ++r.launches;
    r.us += k.microseconds;
    r.occupancy += k.achieved_occupancy;
    r.ipc += k.ipc;
    r.dram += k.dram_bytes;
    r.l2 += k.l2_bytes;
    ++r.bounds[std::string(bound_name(k.bound))];
    total += k.microseconds;
  }
  std::vector<Row> sorted;
  for (auto& [n, r] : rows) sorted.push_back(r);
  std::sort(sorted.begin(), sorted.end(), [](const Row& a, const Row& b) { return a.us > b.us; });
  out << fmt::format("softgpu: predicted time on {} (timing model, see docs/timing.md)\n", gpu_.name);
  out << fmt::format("  {:>8} {:>12} {:>6} {:>9} {:>6} {:>11} {:>11}  {:<8} {}\n", "launches", "time (us)", "share",
                     "occupancy", "IPC", "DRAM bytes", "L2 bytes", "bound", "kernel");
  for (const Row& r : sorted) {
    std::string bound;
    int most = 0;
    for (const auto& [b, n] : r.bounds)
      if (n > most) { most = n; bound = b; }
    const double n = double(r.launches);
    out << fmt::format("  {:>8} {:>12.2f} {:>5.1f}% {:>8.1f}% {:>6.2f} {:>11.3g} {:>11.3g}  {:<8} {}\n", r.launches,
                       r.us, total > 0 ? 100 * r.us / total : 0, 100 * r.occupancy / n, r.ipc / n, r.dram, r.l2,
                       bound, demangle(r.kernel));
  }
  out << fmt::format("  kernels {:.2f} us, launch overhead {:.2f} us, copies and memsets {:.2f} us, total {:.2f} us\n", total,
                     launch_overhead_cycles_ / clock_mhz(), copy_cycles_ / clock_mhz(), now_us());
}

std::string TimingSession::json() const {
  nlohmann::json j;
  j["gpu"] = gpu_.name;
  j["total_us"] = now_us();
  j["kernel_launch_us"] = params_.kernel_launch_cycles / clock_mhz();
  j["graph_kernel_launch_us"] = launch_cycles(StreamRef{0, false, false, true}) / clock_mhz();
  j["launches"] = nlohmann::json::array();
  for (const auto& k : done_) {
    nlohmann::json l;
    l["kernel"] = k.kernel;
    l["name"] = demangle(k.kernel);  // as written in the source
    l["cycles"] = k.cycles;
    l["us"] = k.microseconds;
    l["ctas"] = k.ctas;
    l["ctas_simulated"] = k.ctas_simulated;
    l["sampled"] = k.sampled;
    l["warp_instructions"] = k.warp_instructions;
    l["ipc"] = k.ipc;
    l["achieved_occupancy"] = k.achieved_occupancy;
    l["dram_bytes"] = k.dram_bytes;
    l["l2_bytes"] = k.l2_bytes;
    l["l1_hit_rate"] = k.l1_hit_rate;
    l["l2_hit_rate"] = k.l2_hit_rate;
    l["l2_far_share"] = k.l2_far_share;
    l["dram_utilization"] = k.dram_utilization;
    l["issue_utilization"] = k.issue_utilization;
    l["top_pipe"] = std::string(program::pipe_name(k.top_pipe));
    nlohmann::json pu;  // every pipe, so a reader can tell which ones a kernel used
    for (size_t i = 0; i < k.pipe_utilization.size(); ++i)
      pu[std::string(program::pipe_name(program::Pipe(i)))] = k.pipe_utilization[i];
    l["pipe_utilization"] = pu;
    l["bound"] = std::string(bound_name(k.bound));
    nlohmann::json st;
    for (size_t i = 0; i < k.stalls.size(); ++i) st[std::string(stall_name(WarpStall(i)))] = k.stalls[i];
    l["warp_states"] = st;
    j["launches"].push_back(std::move(l));
  }
  return j.dump(2);
}

}  // namespace softgpu::timing
