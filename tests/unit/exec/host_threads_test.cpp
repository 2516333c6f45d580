// exec::HostThreads: the host threads launches run on, kept between launches.
#include "exec/host_threads.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace softgpu::exec {
namespace {

// Waits (up to 10 s) until `count` reaches n: shares that must run at the
// same time meet here, so a pool that ran them one after another would fail
// instead of hanging.
bool meet(std::atomic<unsigned>& count, unsigned n) {
  count.fetch_add(1);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (count.load() < n)
    if (std::chrono::steady_clock::now() > end) return false;
  return true;
}

TEST(HostThreads, EveryShareRunsOnceAllAtOnceShareZeroOnTheCaller) {
  HostThreads pool;
  constexpr unsigned n = 4;
  std::atomic<unsigned> met{0};
  std::vector<int> ran(n, 0);
  std::vector<std::thread::id> ids(n);
  std::vector<bool> together(n, false);
  EXPECT_EQ(pool.run(n, [&](unsigned i) {
    ++ran[i];
    ids[i] = std::this_thread::get_id();
    together[i] = meet(met, n);
  }), n);
  for (unsigned i = 0; i < n; ++i) {
    EXPECT_EQ(ran[i], 1) << i;
    EXPECT_TRUE(together[i]) << i;
  }
  EXPECT_EQ(ids[0], std::this_thread::get_id());
  EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), n);
}

TEST(HostThreads, TheThreadsAreKeptAndReused) {
  // The shares meet, so each run needs two workers at once (without that a
  // worker done with share 1 may be parked again in time to take share 2).
  HostThreads pool;
  std::mutex m;
  std::set<std::thread::id> first, later;
  std::atomic<unsigned> met{0};
  pool.run(3, [&](unsigned i) {
    EXPECT_TRUE(meet(met, 3));
    if (i == 0) return;
    std::lock_guard lk(m);
    first.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(first.size(), 2u);
  EXPECT_EQ(pool.parked(), 2u);  // parked before run() returned
  for (int k = 0; k < 50; ++k) {
    std::atomic<unsigned> again{0};
    pool.run(3, [&](unsigned i) {
      EXPECT_TRUE(meet(again, 3));
      if (i == 0) return;
      std::lock_guard lk(m);
      later.insert(std::this_thread::get_id());
    });
  }
  EXPECT_EQ(later, first);  // no thread started after the first run
  EXPECT_EQ(pool.parked(), 2u);
}

TEST(HostThreads, OneShareRunsOnTheCallerAlone) {
  HostThreads pool;
  std::thread::id id;
  EXPECT_EQ(pool.run(1, [&](unsigned) { id = std::this_thread::get_id(); }), 1u);
  EXPECT_EQ(id, std::this_thread::get_id());
  EXPECT_EQ(pool.parked(), 0u);
  EXPECT_EQ(pool.run(0, [&](unsigned) { ADD_FAILURE() << "no share to run"; }), 0u);
}

TEST(HostThreads, RunsFromSeveralCallersAtOnce) {
  HostThreads pool;
  constexpr unsigned callers = 3, n = 3;
  std::atomic<unsigned> met{0};
  std::atomic<unsigned> total{0};
  std::atomic<bool> all_together{true};
  std::vector<std::thread> ts;
  for (unsigned c = 0; c < callers; ++c)
    ts.emplace_back([&] {
      pool.run(n, [&](unsigned) {
        total.fetch_add(1);
        if (!meet(met, callers * n)) all_together = false;  // every share of every run at once
      });
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(total.load(), callers * n);
  EXPECT_TRUE(all_together.load());
  EXPECT_EQ(pool.parked(), callers * (n - 1));
}

TEST(HostThreads, AForkedChildStartsItsOwnThreads) {
  HostThreads pool;
  pool.run(2, [](unsigned) {});
  ASSERT_EQ(pool.parked(), 1u);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // The parent's parked thread does not exist here: a run must not wait for it.
    std::atomic<unsigned> sum{0};
    pool.run(3, [&](unsigned i) { sum.fetch_add(i + 1); });
    _exit(sum.load() == 6 ? 0 : 1);
  }
  int st = 0;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (waitpid(pid, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > end) {
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      FAIL() << "the forked child's run hung";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 0);
  EXPECT_EQ(pool.run(2, [](unsigned) {}), 2u);  // the parent's thread still serves it
}

}  // namespace
}  // namespace softgpu::exec
