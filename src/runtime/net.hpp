#pragma once
// TCP listening sockets and multishot accept.
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/reactor.hpp"

namespace storeapi::runtime {

struct ListenAddress {
  std::string host = "127.0.0.1";
  std::uint16_t port = 8080;
  // "host:port", "[v6]:port" or ":port"; nullopt-like failure reported by ok=false.
  static bool parse(const std::string& text, ListenAddress& out);
};

// A listening socket with SO_REUSEPORT, so every core can bind its own on the same port
// and the kernel spreads connections across them (share_port=false: without it, so that
// binding a port another process holds fails). Throws std::system_error on failure.
int listen_tcp(const ListenAddress& address, int backlog = 4096, bool share_port = true);

// The port a bound socket listens on (resolves port 0).
std::uint16_t local_port(int fd);

// Multishot accept on one listening socket: `on_accept(fd)` runs on the reactor's thread
// for every new connection. Re-armed whenever the kernel ends the multishot (a completion
// without IORING_CQE_F_MORE), unless stop() was called.
class Acceptor : Completion {
 public:
  Acceptor(int listen_fd, std::function<void(int fd)> on_accept);
  void start();
  // Stops accepting: cancels the multishot; the listening socket is closed once the
  // cancellation has completed.
  void stop();

 private:
  struct RetryCompletion : Completion {
    Acceptor* acceptor;
  };
  static void on_complete_cb(Completion* self, int res, unsigned flags);
  static void on_retry(Completion* self, int res, unsigned flags);
  void arm();
  void arm_after_pause();
  void close_listener();

  int listen_fd_;
  RetryCompletion retry_{{&Acceptor::on_retry}, this};
  __kernel_timespec retry_pause_{0, 100'000'000};
  std::function<void(int)> on_accept_;
  bool stopping_ = false;
};

}  // namespace storeapi::runtime
