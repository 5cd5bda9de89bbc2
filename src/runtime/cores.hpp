#pragma once
// Thread per core: N threads, each pinned to one CPU, each constructing and driving its
// own Reactor. Everything a core serves (listener, connections, database connections,
// caches) is created by `setup` on that core's thread and never touched by another.
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "runtime/reactor.hpp"

namespace storeapi::runtime {

class Cores {
 public:
  using Setup = std::function<void(Reactor&)>;

  // Starts the threads and returns once every reactor exists and `setup` ran on each.
  // An exception thrown by a setup is rethrown here (after the other threads stopped).
  Cores(unsigned count, Setup setup, Reactor::Options options = {});
  ~Cores();

  unsigned size() const noexcept { return static_cast<unsigned>(reactors_.size()); }

  // Runs fn(reactor) on every core's thread.
  void post_all(const std::function<void(Reactor&)>& fn);
  // Runs fn on core `index`'s thread.
  void post_to(unsigned index, std::function<void()> fn) { reactors_.at(index)->post(std::move(fn)); }

  // Waits until every reactor's run() returned.
  void join();

  // Completion-queue overflows of all rings so far (docs/PITFALLS.md: must stay 0; read it after
  // join() for a final figure).
  unsigned cq_overflows() const noexcept;

  // The CPUs this process may run on (its affinity mask: taskset, a container's cpuset).
  // Core i is pinned to the i-th of them.
  static unsigned online_cpus() noexcept;

  // On a core's thread (in `setup` and after): whether pinning it to its CPU worked. A
  // seccomp filter without sched_setaffinity, for one, leaves every core unpinned.
  static bool this_thread_pinned() noexcept { return this_thread_pinned_; }

 private:
  // Owned here (not by the threads) so that posting stays valid after a loop ended; each
  // is still constructed on its own thread.
  std::vector<std::unique_ptr<Reactor>> reactors_;
  std::vector<std::thread> threads_;
  static thread_local bool this_thread_pinned_;
};

}  // namespace storeapi::runtime
