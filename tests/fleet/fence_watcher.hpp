#pragma once
// The write fence of a store move as a test sees it, on the writers' clock (steady_clock,
// WriteLedger's): from the source pod's fence (it refuses the store's writes) to the target
// pod's lift (it takes them), polled every 2 ms on a connection to each pod, for the
// acknowledged writes a test asks to have been in flight across it.
//   FenceWatcher watcher(source_url, target_url, store_id);  // watching
//   run the move ...
//   watcher.stop();                                          // fenced(), lifted()
#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

namespace storeapi::testing {

class FenceWatcher {
 public:
  using Clock = std::chrono::steady_clock;

  FenceWatcher(std::string source_url, std::string target_url, std::string store_id)
      : thread_([this, source_url = std::move(source_url), target_url = std::move(target_url),
                 store_id = std::move(store_id)] { watch(source_url, target_url, store_id); }) {}
  ~FenceWatcher() { stop(); }
  FenceWatcher(const FenceWatcher&) = delete;
  FenceWatcher& operator=(const FenceWatcher&) = delete;

  // Ends the watch (it ends by itself once the lift was seen, or after 120 s).
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // After stop(): when the fence and the lift were first seen, and why the watch ended
  // early (empty when it did not): a lost pod connection ends it, not the test binary.
  std::optional<Clock::time_point> fenced() const { return fenced_; }
  std::optional<Clock::time_point> lifted() const { return lifted_; }
  const std::string& error() const { return error_; }

 private:
  void watch(const std::string& source_url, const std::string& target_url, const std::string& store_id) {
    try {
      poll(source_url, target_url, store_id);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }

  void poll(const std::string& source_url, const std::string& target_url, const std::string& store_id) {
    pqxx::connection source(source_url), target(target_url);
    pqxx::nontransaction on_source(source), on_target(target);
    const auto bound = Clock::now() + std::chrono::seconds(120);
    while (!lifted_ && !stop_ && Clock::now() < bound) {
      if (!fenced_ && on_source.exec_params1("select coalesce((select writes_fenced from store_fences"
                                             " where store_id = $1), false)", store_id)[0].as<bool>())
        fenced_ = Clock::now();
      if (fenced_ && on_target.exec_params1("select coalesce((select not writes_fenced from store_fences"
                                            " where store_id = $1), false)", store_id)[0].as<bool>())
        lifted_ = Clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }

  std::atomic<bool> stop_{false};
  std::optional<Clock::time_point> fenced_, lifted_;
  std::string error_;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace storeapi::testing
