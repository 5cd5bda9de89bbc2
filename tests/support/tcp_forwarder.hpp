#pragma once
// A TCP forwarder of the test's own on a free loopback port, in front of another loopback
// port: a node given its address reaches the server behind it until cut(), which closes
// every forwarded connection and the listener, so that this node alone loses the server
// (a partial outage) while others, connected directly, still reach it.
#include <atomic>
#include <cstdint>
#include <thread>

namespace storeapi::testing {

class TcpForwarder {
 public:
  explicit TcpForwarder(std::uint16_t target);
  ~TcpForwarder();
  TcpForwarder(const TcpForwarder&) = delete;
  TcpForwarder& operator=(const TcpForwarder&) = delete;

  std::uint16_t port() const noexcept { return port_; }
  // From now on nothing gets through: connections are closed, new ones refused.
  void cut();
  // The next `passed` connections go through; the ones after them are left unaccepted
  // (what their clients send waits in the kernel) until release().
  void hold_after(int passed);
  void release();

 private:
  void run();

  std::uint16_t target_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stopping_{false};
  std::atomic<int> passing_{-1};  // connections to accept before holding; -1: no hold
  std::thread thread_;
};

}  // namespace storeapi::testing
