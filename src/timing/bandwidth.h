// A bandwidth-limited server with a fixed latency: DRAM, the L2's slices,
// the host link. Requests are served in arrival order; one arriving while
// the server is busy waits (queueing delay). Times are in cycles of the
// clock the rate is given in; fractions of a cycle carry over, so a stream
// of small requests gets exactly the configured bandwidth.
#pragma once
#include <algorithm>
#include <cstdint>

namespace softgpu::timing {

class BandwidthQueue {
 public:
  BandwidthQueue(double bytes_per_cycle, double latency_cycles)
      : bytes_per_cycle_(bytes_per_cycle), latency_(latency_cycles) {}

  // A request of `bytes` arriving at `arrival`: returns when its data is
  // back (transfer done + latency).
  double request(double arrival, double bytes) {
    const double start = std::max(arrival, busy_until_);
    queued_ += start - arrival;
    busy_until_ = start + bytes / bytes_per_cycle_;
    bytes_ += bytes;
    ++requests_;
    return busy_until_ + latency_;
  }

  double busy_until() const { return busy_until_; }
  double bytes() const { return bytes_; }
  uint64_t requests() const { return requests_; }
  double queueing_cycles() const { return queued_; }  // summed over requests
  double bytes_per_cycle() const { return bytes_per_cycle_; }
  double latency() const { return latency_; }

 private:
  double bytes_per_cycle_, latency_;
  double busy_until_ = 0, queued_ = 0;
  double bytes_ = 0;
  uint64_t requests_ = 0;
};

}  // namespace softgpu::timing
