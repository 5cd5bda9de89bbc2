#pragma once
// HAProxy (Debian's) of the test's own in front of storeapi nodes: round robin, health
// checks on GET /readyz every 100 ms (out after 2 failures, back after 2 successes), on
// a free loopback port, with a stats socket to see which servers it counts as up.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "support/server_process.hpp"

namespace storeapi::testing {

class HaproxyProcess {
 public:
  // Balances over 127.0.0.1:`ports`; returns once it counts every one as up.
  explicit HaproxyProcess(const std::vector<std::uint16_t>& ports);
  ~HaproxyProcess();
  HaproxyProcess(const HaproxyProcess&) = delete;
  HaproxyProcess& operator=(const HaproxyProcess&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // How many of the backend's servers HAProxy counts as UP now.
  int servers_up();

 private:
  std::string dir_;
  std::uint16_t port_;
  std::unique_ptr<ServerProcess> process_;
};

}  // namespace storeapi::testing
