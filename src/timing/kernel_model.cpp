#include "timing/kernel_model.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace softgpu::timing {
namespace {

uint64_t div_up(uint64_t a, uint64_t b) { return b ? (a + b - 1) / b : 0; }

}  // namespace

std::string_view bound_name(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Latency: return "latency";
  }
  return "unknown";
}

KernelModel::KernelModel(const TimingParams& p, KernelShape shape, uint32_t max_warps_per_sm, SamplingPolicy s)
    : p_(p), shape_(std::move(shape)), max_warps_(std::max<uint32_t>(max_warps_per_sm, 1)), policy_(s) {
  shape_.resident_ctas_per_sm = std::max<uint32_t>(shape_.resident_ctas_per_sm, 1);
  ctas_ = shape_.grid.count();
  const uint32_t sms = std::max<uint32_t>(p_.sm_count, 1);
  sms_used_ = uint32_t(std::min<uint64_t>(sms, ctas_));
  const uint64_t waves = div_up(div_up(ctas_, sms), shape_.resident_ctas_per_sm);
  if (!policy_.full && (sms_used_ > policy_.detailed_sms || waves > policy_.detailed_waves)) {
    sampled_ = true;
    sm_step_ = uint32_t(div_up(sms_used_, std::max<uint32_t>(policy_.detailed_sms, 1)));
    waves_kept_ = uint32_t(std::min<uint64_t>(waves, std::max<uint32_t>(policy_.detailed_waves, 2)));
  }
}

bool KernelModel::wanted(uint32_t cta) const {
  if (!sampled_) return true;
  const uint32_t sms = std::max<uint32_t>(p_.sm_count, 1);
  const uint32_t sm = cta % sms;
  const uint64_t k = cta / sms;  // its place in that SM's queue
  return sm % sm_step_ == 0 && k < uint64_t(waves_kept_) * shape_.resident_ctas_per_sm;
}

void KernelModel::add(std::unique_ptr<CtaTrace> t) {
  std::lock_guard lock(mu_);
  traces_.push_back(std::move(t));
}

KernelModel::SmRun KernelModel::simulate(const std::vector<const CtaTrace*>& ctas, double scale) const {
  MemorySystem mem(p_, l2_share(), &shared_);
  mem.set_warm(warm_);
  SmRun r;
  r.stats = SmModel(p_, mem).run(ctas, shape_.resident_ctas_per_sm);
  r.mem = mem.stats();
  r.drain_cycles = mem.drain_floor(r.mem, scale);
  return r;
}

void KernelModel::find_shared_lines(const std::map<uint32_t, std::vector<const CtaTrace*>>& by_sm) {
  struct Seen {
    uint32_t last_sm, sms;
  };
  std::unordered_map<uint64_t, Seen> seen;
  for (const auto& [sm, list] : by_sm)
    for (const CtaTrace* t : list)
      for (const LineAccess& a : t->lines) {
        auto [it, fresh] = seen.try_emplace(a.line, Seen{sm, 1});
        if (!fresh && it->second.last_sm != sm) {
          it->second.last_sm = sm;
          ++it->second.sms;
        }
      }
  // A line k of the simulated SMs share is shared by about k x (SMs used /
  // SMs simulated) of the launch's SMs (the simulated ones are spread evenly).
  const double per_simulated = double(sms_used_) / double(std::max<size_t>(by_sm.size(), 1));
  shared_.sharers.clear();
  for (const auto& [line, s] : seen)
    if (s.sms >= 2) shared_.sharers.emplace(line, std::min(double(sms_used_), double(s.sms) * per_simulated));
  private_lines_ = seen.size() - shared_.sharers.size();
}

void KernelModel::leave_in(SectorCache& l2) const {
  if (!traces_.empty() && traces_.size() < ctas_) {
    const double sample = double(traces_.size()) / double(ctas_);
    const double footprint =
        double(shared_.sharers.size()) * kLineBytes + double(private_lines_) * kLineBytes / sample;
    if (footprint >= double(l2.capacity_bytes())) {
      l2.invalidate();
      return;
    }
  }
  for (const auto& trace : traces_) {
    const CtaTrace& t = *trace;
    for (const WarpTrace& w : t.warps)
      for (const TraceOp& o : w.ops) {
        if (o.kind != OpKind::Global && o.kind != OpKind::Atomic && o.kind != OpKind::AsyncCopy) continue;
        for (uint32_t i = 0; i < o.n_lines; ++i) {
          const LineAccess& a = t.lines[o.lines + i];
          o.kind == OpKind::AsyncCopy || (o.kind == OpKind::Global && !o.store) ? l2.read(a) : l2.write(a);
        }
      }
  }
}

KernelTiming KernelModel::finish() {
  KernelTiming k;
  k.kernel = shape_.kernel;
  k.ctas = ctas_;
  k.sms_used = sms_used_;
  k.sampled = sampled_;
  const uint32_t sms = std::max<uint32_t>(p_.sm_count, 1);
  std::map<uint32_t, std::vector<const CtaTrace*>> by_sm;
  {
    std::lock_guard lock(mu_);
    std::sort(traces_.begin(), traces_.end(), [](const auto& a, const auto& b) { return a->cta_linear < b->cta_linear; });
    for (const auto& t : traces_) by_sm[t->cta_linear % sms].push_back(t.get());
  }
  find_shared_lines(by_sm);
  double inst = 0, dram = 0, l2 = 0, res_warp_cycles = 0, sim_cycles = 0, sim_inst = 0;
  double l1_hit = 0, l1_all = 0, l2_hit = 0, l2_all = 0, l2_far = 0;
  std::array<double, size_t(WarpStall::Count_)> stalls{};
  std::array<double, size_t(program::Pipe::Count_)> busy{};
  uint64_t simulated = 0;
  const uint32_t r = shape_.resident_ctas_per_sm;
  for (const auto& [sm, list] : by_sm) {
    const uint64_t on_sm = ctas_ / sms + (sm < ctas_ % sms ? 1 : 0);
    SmRun run = simulate(list, double(on_sm) / double(list.size()));
    k.deadlock |= run.stats.deadlock;
    double cycles = double(run.stats.cycles);
    const uint64_t waves_sim = div_up(list.size(), r), waves = div_up(on_sm, r);
    if (waves > waves_sim && waves_sim >= 2) {
      // Steady state: the time per wave over the second half of the simulated waves.
      const size_t half = size_t(waves_sim / 2) * r;
      const SmRun first = simulate({list.begin(), list.begin() + long(half)});
      const double per_wave = (cycles - double(first.stats.cycles)) / double(waves_sim - waves_sim / 2);
      cycles += per_wave * double(waves - waves_sim);
    }
    // Stores leave the SM at once, so only here does a write stream pay for
    // the L2 bandwidth and the DRAM write-back it needs.
    cycles = std::max(cycles, run.drain_cycles);
    k.cycles = std::max(k.cycles, uint64_t(cycles + 0.5));
    simulated += list.size();
    sim_inst += double(run.stats.warp_instructions);
    dram += double(run.mem.dram_bytes);
    l2 += double(run.mem.l2_bytes);
    l1_hit += double(run.mem.l1_hit_sectors);
    l1_all += double(run.mem.l1_hit_sectors + run.mem.l1_miss_sectors);
    l2_hit += double(run.mem.l2_hit_sectors);
    l2_far += double(run.mem.l2_far_hit_sectors);
    l2_all += double(run.mem.l2_hit_sectors + run.mem.l2_miss_sectors);
    res_warp_cycles += double(run.stats.resident_warp_cycles);
    sim_cycles += double(run.stats.cycles);
    for (size_t i = 0; i < stalls.size(); ++i) stalls[i] += double(run.stats.stalls[i]);
    for (size_t i = 0; i < busy.size(); ++i) busy[i] += double(run.stats.pipe_busy[i]);
  }
  k.ctas_simulated = simulated;
  k.sms_simulated = uint32_t(by_sm.size());
  if (!simulated || !k.cycles) return k;
  const double scale = double(ctas_) / double(simulated);
  inst = sim_inst * scale;
  k.warp_instructions = uint64_t(inst + 0.5);
  k.dram_bytes = dram * scale;
  k.l2_bytes = l2 * scale;
  k.microseconds = double(k.cycles) / std::max(p_.clock_mhz, 1e-9);
  k.ipc = inst / (double(k.cycles) * sms_used_);
  k.achieved_occupancy = sim_cycles > 0 ? res_warp_cycles / (sim_cycles * max_warps_) : 0;
  k.l1_hit_rate = l1_all > 0 ? l1_hit / l1_all : 0;
  k.l2_hit_rate = l2_all > 0 ? l2_hit / l2_all : 0;
  k.l2_far_share = l2_hit > 0 ? l2_far / l2_hit : 0;
  k.dram_utilization = k.dram_bytes / (double(k.cycles) * std::max(p_.dram_bytes_per_cycle, 1e-9));
  const double l2_util = k.l2_bytes / (double(k.cycles) * std::max(p_.l2_bytes_per_cycle, 1e-9));
  const double slots = sim_cycles * std::max<uint32_t>(p_.sub_partitions, 1);
  k.issue_utilization = sim_inst / slots;
  for (size_t i = 0; i < busy.size(); ++i) k.pipe_utilization[i] = busy[i] / slots;
  for (size_t i = 0; i < busy.size(); ++i)
    if (busy[i] / slots > k.top_pipe_utilization) {
      k.top_pipe_utilization = busy[i] / slots;
      k.top_pipe = program::Pipe(i);
    }
  double all = 0;
  for (double s : stalls) all += s;
  for (size_t i = 0; i < stalls.size(); ++i) k.stalls[i] = all > 0 ? stalls[i] / all : 0;
  const double mem_util = std::max(k.dram_utilization, l2_util);
  const double comp_util = std::max(k.top_pipe_utilization, k.issue_utilization);
  if (std::max(mem_util, comp_util) < 0.5) k.bound = Bound::Latency;
  else k.bound = mem_util >= comp_util ? Bound::Memory : Bound::Compute;
  return k;
}

}  // namespace softgpu::timing
