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
  // "ip:port", "[v6]:port" or ":port" (every address); false for anything else, a host
  // name included.
  static bool parse(const std::string& text, ListenAddress& out);
  // "ip:port", or "[v6]:port": the form parse takes, so a printed address can be pasted
  // back into the setting.
  std::string text() const;
};

// A listening socket with SO_REUSEPORT, so every core can bind its own on the same port
// and the kernel spreads connections across them (share_port=false: without it, so that
// binding a port another process holds fails). Throws std::system_error on failure.
int listen_tcp(const ListenAddress& address, int backlog = 4096, bool share_port = true);

// listen_tcp in two steps. A socket that is bound but not yet listening holds the port
// (port 0 resolves at bind) and joins the SO_REUSEPORT group only at start_listening, so
// the kernel hands it no connection before its core is ready to serve one.
int bind_tcp(const ListenAddress& address, bool share_port = true);
void start_listening(int fd, int backlog = 4096);

// True when another socket holds `address` (bind without SO_REUSEPORT fails with
// EADDRINUSE): a listener of another process, SO_REUSEPORT or not. Port 0 is never taken.
bool port_taken(const ListenAddress& address);

// The port a bound socket listens on (resolves port 0).
std::uint16_t local_port(int fd);

// Multishot accept on one listening socket: `on_accept(fd)` runs on the reactor's thread
// for every new connection. Re-armed whenever the kernel ends the multishot (a completion
// without IORING_CQE_F_MORE), unless stop() was called.
class Acceptor : Completion {
 public:
  Acceptor(int listen_fd, std::function<void(int fd)> on_accept);
  void start();
  // Stops accepting: cancels the multishot; once the cancellation has completed, the
  // connections still queued are taken, the listening socket is closed and `on_closed`
  // runs (at once if it was never started).
  void stop(std::function<void()> on_closed = nullptr);

 private:
  struct RetryCompletion : Completion {
    Acceptor* acceptor;
  };
  static void on_complete_cb(Completion* self, int res, unsigned flags);
  static void on_retry(Completion* self, int res, unsigned flags);
  void arm();
  void arm_after_pause();
  void close_listener();
  void take(int fd);

  int listen_fd_;
  RetryCompletion retry_{{&Acceptor::on_retry}, this};
  __kernel_timespec retry_pause_{0, 100'000'000};
  std::function<void(int)> on_accept_;
  std::function<void()> on_closed_;
  bool started_ = false;
  bool stopping_ = false;
};

}  // namespace storeapi::runtime
