#include "runtime/cores.hpp"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <condition_variable>
#include <exception>
#include <mutex>

namespace storeapi::runtime {

unsigned Cores::online_cpus() noexcept {
  long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

Cores::Cores(unsigned count, Setup setup, Reactor::Options options) : reactors_(count) {
  std::mutex mutex;
  std::condition_variable ready_cv;
  unsigned ready = 0;
  std::exception_ptr failure;
  unsigned cpus = online_cpus();

  for (unsigned i = 0; i < count; ++i) {
    threads_.emplace_back([&, i] {
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(i % cpus, &set);
      ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);

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

}  // namespace storeapi::runtime
