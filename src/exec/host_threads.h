// Host threads that run a launch's CTAs, kept between launches.
//
// Starting and joining a std::thread costs about 0.1 ms on the machines
// softgpu runs on (docs/performance.md), which a sub-millisecond kernel
// notices at every launch. A HostThreads keeps the threads it has started
// parked on a condition variable and hands them the next launch's shares.
// Owned by whoever issues launches (the runtime, a benchmark); a launch
// without one starts and joins its own threads as before.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace softgpu::exec {

class HostThreads {
 public:
  HostThreads();
  ~HostThreads();  // joins the parked threads (none may be running a share)
  HostThreads(const HostThreads&) = delete;
  HostThreads& operator=(const HostThreads&) = delete;

  // Runs share(0) on the calling thread and share(1) .. share(n-1) on other
  // host threads, all at once (a cooperative launch's shares wait for each
  // other), and returns when every share has returned. Parked threads are
  // reused; more are started when none is parked (several launches may run
  // at once from different host threads). When the system refuses to start
  // a thread, short_of(k) is called on the calling thread before share(0)
  // and shares k .. n-1 do not run. Returns the number of shares that ran.
  // A share must not throw (launch.cpp turns exceptions into faults).
  unsigned run(unsigned n, const std::function<void(unsigned)>& share,
               const std::function<void(unsigned)>& short_of = {});

  size_t parked() const;  // threads waiting for work (tests)

 private:
  struct Worker;
  struct Done;
  static void loop(HostThreads* self, Worker* w);
  // Hands share(index) to a parked worker or a new one; false when the
  // system refuses another thread.
  bool hand(const std::function<void(unsigned)>* share, unsigned index, Done* done);

  mutable std::mutex m_;
  std::vector<std::unique_ptr<Worker>> all_;  // every worker started, for joining
  std::vector<Worker*> idle_;
  int pid_;  // the process that started the workers (a forked child has none)
};

}  // namespace softgpu::exec
