#pragma once
// A redis-server of the test's own on a free loopback port and a socket file named after
// it (no persistence), for the fleet tests. It can be killed and started again on the
// same port, as an outage would.
#include <signal.h>

#include <cstdint>
#include <memory>
#include <string>

#include "support/server_process.hpp"

namespace storeapi::testing {

class RedisProcess {
 public:
  // Starts it; returns once it answers PING. Throws with its log when it does not.
  RedisProcess();
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // SIGKILL; returns once it is gone (its socket file too).
  void kill();
  // Starts it again on the same port (empty: nothing was persisted).
  void start();
  // SIGSTOP / SIGCONT: a Redis that keeps its connections but never answers.
  void freeze() { process_->signal(SIGSTOP); }
  void thaw() { process_->signal(SIGCONT); }
  bool running() const noexcept { return process_ != nullptr; }

  std::uint16_t port() const noexcept { return port_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_); }
  // The same Redis through its socket file (STOREAPI_REDIS_URL's unix:// form).
  std::string socket_url() const { return "unix://" + socket_path(); }

  // Sends one inline command and returns the first line of the answer ("" when none).
  std::string command(const std::string& line) const;

 private:
  std::string socket_path() const { return "/tmp/storeapi-test-redis-" + std::to_string(port_) + ".sock"; }

  std::uint16_t port_;
  std::unique_ptr<ServerProcess> process_;
};

}  // namespace storeapi::testing
