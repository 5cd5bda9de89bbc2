// Cores: one pinned thread per core, each running its own reactor.
#include "runtime/cores.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

#include "support/poll.hpp"

namespace storeapi::runtime {
namespace {

struct SetupRecord {
  unsigned index;
  std::thread::id thread;
  int pinned_cpus;
  bool has_current_reactor;
};

TEST(Cores, SetupRunsOnEachPinnedThread) {
  std::mutex mutex;
  std::vector<SetupRecord> records;
  {
    Cores cores(2, [&](Reactor& r) {
      cpu_set_t set;
      CPU_ZERO(&set);
      pthread_getaffinity_np(pthread_self(), sizeof set, &set);
      std::lock_guard lock(mutex);
      records.push_back({r.index(), std::this_thread::get_id(), CPU_COUNT(&set), Reactor::current_or_null() == &r});
    });
    EXPECT_EQ(cores.size(), 2u);
    std::lock_guard lock(mutex);
    ASSERT_EQ(records.size(), 2u);  // all setups finished before the constructor returned
  }
  std::set<unsigned> indexes;
  std::set<std::thread::id> threads;
  for (const SetupRecord& r : records) {
    indexes.insert(r.index);
    threads.insert(r.thread);
    EXPECT_EQ(r.pinned_cpus, 1) << "core " << r.index;
    EXPECT_TRUE(r.has_current_reactor) << "core " << r.index;
    EXPECT_NE(r.thread, std::this_thread::get_id());
  }
  EXPECT_EQ(indexes, (std::set<unsigned>{0, 1}));
  EXPECT_EQ(threads.size(), 2u);
}

TEST(Cores, PostAllRunsOnEveryCoreThread) {
  std::mutex mutex;
  std::set<std::pair<unsigned, std::thread::id>> setup_threads, posted_threads;
  Cores cores(3, [&](Reactor& r) {
    std::lock_guard lock(mutex);
    setup_threads.insert({r.index(), std::this_thread::get_id()});
  });
  cores.post_all([&](Reactor& r) {
    std::lock_guard lock(mutex);
    posted_threads.insert({r.index(), std::this_thread::get_id()});
  });
  EXPECT_TRUE(testing::eventually([&] {
    std::lock_guard lock(mutex);
    return posted_threads.size() == 3;
  }, std::chrono::seconds(10)));
  std::lock_guard lock(mutex);
  EXPECT_EQ(posted_threads, setup_threads);
}

TEST(Cores, ReactorsStopWhenAsked) {
  std::atomic<int> stopped{0};
  Cores cores(2, [](Reactor&) {});
  cores.post_all([&](Reactor& r) {
    r.stop();
    ++stopped;
  });
  cores.join();  // returns only because every loop ended
  EXPECT_EQ(stopped.load(), 2);
}

// Runs `body` with this thread restricted to the last CPU, as under `taskset` or in a
// container whose cpuset is smaller than the machine; restores the mask afterwards.
template <class Body>
void on_last_cpu_only(Body body) {
  cpu_set_t all, last;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  int cpu = CPU_SETSIZE - 1;
  while (cpu >= 0 && !CPU_ISSET(cpu, &all)) --cpu;
  CPU_ZERO(&last);
  CPU_SET(cpu, &last);
  ASSERT_EQ(sched_setaffinity(0, sizeof last, &last), 0);
  body(cpu);
  sched_setaffinity(0, sizeof all, &all);
}

TEST(Cores, CountsOnlyTheCpusThisProcessMayUse) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  on_last_cpu_only([](int) { EXPECT_EQ(Cores::online_cpus(), 1u); });
}

TEST(Cores, PinsThreadsToCpusThisProcessMayUse) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "needs two CPUs";
  on_last_cpu_only([](int allowed) {
    std::mutex mutex;
    std::vector<int> pinned;
    Cores cores(2, [&](Reactor&) {
      cpu_set_t set;
      pthread_getaffinity_np(pthread_self(), sizeof set, &set);
      std::lock_guard lock(mutex);
      pinned.push_back(CPU_COUNT(&set) == 1 && CPU_ISSET(allowed, &set) ? allowed : -1);
    });
    EXPECT_EQ(pinned, (std::vector<int>{allowed, allowed}));
  });
}

// Start-up hands over from the core threads to the constructor; repeating it many times
// gives a race there (a notify after the constructor returned) room to show, most of all
// under ThreadSanitizer.
TEST(Cores, StartAndStopRepeatedly) {
  std::atomic<int> setups{0};
  for (int i = 0; i < 100; ++i) {
    Cores cores(2, [&](Reactor&) { ++setups; });
  }
  EXPECT_EQ(setups.load(), 200);
}

TEST(Cores, ExceptionInSetupIsRethrown) {
  std::atomic<int> setups{0};
  try {
    Cores cores(2, [&](Reactor& r) {
      ++setups;
      if (r.index() == 1) throw std::runtime_error("core 1 cannot start");
    });
    FAIL() << "the constructor should have thrown";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "core 1 cannot start");
  }
  EXPECT_EQ(setups.load(), 2);
}

}  // namespace
}  // namespace storeapi::runtime
