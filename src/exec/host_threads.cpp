#include "exec/host_threads.h"

#include <system_error>
#include <thread>
#include <utility>

#include <unistd.h>

namespace softgpu::exec {

// A run's shares still out on workers.
struct HostThreads::Done {
  std::mutex m;
  std::condition_variable cv;
  unsigned running = 0;
};

struct HostThreads::Worker {
  std::thread thread;
  std::mutex m;
  std::condition_variable cv;
  const std::function<void(unsigned)>* share = nullptr;  // null while parked
  unsigned index = 0;
  Done* done = nullptr;
  bool stop = false;
};

HostThreads::HostThreads() : pid_(int(getpid())) {}

HostThreads::~HostThreads() {
  std::vector<std::unique_ptr<Worker>> all;
  {
    std::lock_guard lk(m_);
    if (pid_ != int(getpid())) {
      // A forked child: the workers are the parent's threads, not ours.
      for (auto& w : all_) (void)w.release();
      return;
    }
    all.swap(all_);
    idle_.clear();
  }
  for (auto& w : all) {
    {
      std::lock_guard lk(w->m);
      w->stop = true;
    }
    w->cv.notify_one();
  }
  for (auto& w : all) w->thread.join();
}

void HostThreads::loop(HostThreads* self, Worker* w) {
  for (;;) {
    const std::function<void(unsigned)>* share;
    unsigned index;
    Done* done;
    {
      std::unique_lock lk(w->m);
      w->cv.wait(lk, [&] { return w->share || w->stop; });
      if (!w->share) return;  // stopped while parked
      share = std::exchange(w->share, nullptr);
      index = w->index;
      done = w->done;
    }
    (*share)(index);
    {
      // Parked again before the run hears of it, so that the next launch
      // finds this thread instead of starting another.
      std::lock_guard lk(self->m_);
      self->idle_.push_back(w);
    }
    // Notified under the lock: run() may return (destroying `done`) as soon
    // as it can take the lock after the last share.
    std::lock_guard lk(done->m);
    if (--done->running == 0) done->cv.notify_one();
  }
}

bool HostThreads::hand(const std::function<void(unsigned)>* share, unsigned index, Done* done) {
  Worker* w = nullptr;
  {
    std::lock_guard lk(m_);
    if (pid_ != int(getpid())) {
      // Forked since the workers started: they do not exist in this process.
      for (auto& x : all_) (void)x.release();
      all_.clear();
      idle_.clear();
      pid_ = int(getpid());
    }
    if (!idle_.empty()) {
      w = idle_.back();
      idle_.pop_back();
    } else {
      auto fresh = std::make_unique<Worker>();
      try {
        fresh->thread = std::thread(loop, this, fresh.get());
      } catch (const std::system_error&) {
        return false;
      }
      w = fresh.get();
      all_.push_back(std::move(fresh));
    }
  }
  {
    std::lock_guard lk(w->m);
    w->share = share;
    w->index = index;
    w->done = done;
  }
  w->cv.notify_one();
  return true;
}

unsigned HostThreads::run(unsigned n, const std::function<void(unsigned)>& share,
                          const std::function<void(unsigned)>& short_of) {
  if (n == 0) return 0;
  Done done;
  unsigned started = 1;
  for (; started < n; ++started) {
    {
      std::lock_guard lk(done.m);
      ++done.running;
    }
    if (!hand(&share, started, &done)) {
      std::lock_guard lk(done.m);
      --done.running;
      break;
    }
  }
  if (started < n && short_of) short_of(started);
  share(0);
  std::unique_lock lk(done.m);
  done.cv.wait(lk, [&] { return done.running == 0; });
  return started;
}

size_t HostThreads::parked() const {
  std::lock_guard lk(m_);
  return idle_.size();
}

}  // namespace softgpu::exec
