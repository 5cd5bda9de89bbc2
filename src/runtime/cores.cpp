#include "runtime/cores.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>

namespace storeapi::runtime {
namespace {

// The CPUs this process may run on (its affinity mask, as set by taskset or a container's
// cpuset), in ascending order; every online CPU if the mask cannot be read.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  if (cpus.empty())
    for (long cpu = 0, n = ::sysconf(_SC_NPROCESSORS_ONLN); cpu < std::max(n, 1L); ++cpu)
      cpus.push_back(static_cast<int>(cpu));
  return cpus;
}

}  // namespace

thread_local bool Cores::this_thread_pinned_ = false;

unsigned Cores::online_cpus() noexcept { return static_cast<unsigned>(allowed_cpus().size()); }

Cores::Cores(unsigned count, Setup setup, Reactor::Options options) : reactors_(count) {
  std::mutex mutex;
  std::condition_variable ready_cv;
  unsigned ready = 0;
  std::exception_ptr failure;
  std::vector<int> cpus = allowed_cpus();

  for (unsigned i = 0; i < count; ++i) {
    threads_.emplace_back([&, i] {
      const int cpu = cpus[i % cpus.size()];
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      // Not fatal (the core still serves, the scheduler moves it around), but not the
      // design either: said once per core, and exported (Cores::this_thread_pinned).
      if (int e = ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set); e != 0) {
        std::fprintf(stderr,
                     "storeapi: core %u runs unpinned: pinning it to CPU %d failed: %s (a seccomp filter must "
                     "allow sched_setaffinity)\n",
                     i, cpu, std::strerror(e));
      } else {
        this_thread_pinned_ = true;
      }

      Reactor* reactor = nullptr;
      try {
        reactors_[i] = std::make_unique<Reactor>(i, options);
        reactor = reactors_[i].get();
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
      }
      // Setup runs inside the reactor's loop (as its first posted task) so that it can
      // submit operations: the ring accepts submissions only from its own thread.
      if (reactor) {
        reactor->post([&, r = reactor] {
          try {
            setup(*r);
          } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
          }
          // Notified under the lock: once `ready` reaches `count` the constructor may
          // return and destroy the condition variable, so it must not be touched after
          // the lock is released.
          std::lock_guard lock(mutex);
          ++ready;
          ready_cv.notify_all();
        });
        reactor->run();
      } else {
        std::lock_guard lock(mutex);
        ++ready;
        ready_cv.notify_all();
      }
    });
  }
  {
    std::unique_lock lock(mutex);
    ready_cv.wait(lock, [&] { return ready == count; });
  }
  if (failure) {
    post_all([](Reactor& r) { r.stop(); });
    join();
    std::rethrow_exception(failure);
  }
}

Cores::~Cores() {
  post_all([](Reactor& r) { r.stop(); });
  join();
}

void Cores::post_all(const std::function<void(Reactor&)>& fn) {
  for (auto& r : reactors_)
    if (r) r->post([r = r.get(), fn] { fn(*r); });
}

void Cores::join() {
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

unsigned Cores::cq_overflows() const noexcept {
  unsigned total = 0;
  for (const auto& r : reactors_)
    if (r) total += r->cq_overflow();
  return total;
}

}  // namespace storeapi::runtime
