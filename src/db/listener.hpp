#pragma once
// One LISTEN connection: delivers NOTIFY payloads of a channel to a callback on its core.
// After every (re)connection it first reports "*", because notifications sent while it was
// away are lost and whoever caches must start over.
#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include "runtime/task.hpp"

namespace storeapi::db {

class Listener {
 public:
  using OnNotify = std::function<void(std::string_view payload)>;

  Listener(std::string url, std::string channel, OnNotify on_notify);
  // Starts on the calling core (inside its reactor); runs until the process ends.
  void start();
  bool listening() const noexcept { return listening_; }

 private:
  runtime::task<void> drive();
  runtime::task<bool> listen_once();

  std::string url_;
  std::string channel_;
  OnNotify on_notify_;
  bool listening_ = false;
};

}  // namespace storeapi::db
