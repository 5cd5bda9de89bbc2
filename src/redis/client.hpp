#pragma once
// The Redis connection of one core: one TCP (or TLS, redis/tls.hpp) connection, pipelined (commands are written as
// they come, replies matched to them in order), driven by the core's io_uring and parsed
// by hiredis. It holds a few Lua scripts, loaded at every connect (SCRIPT LOAD) and run by
// their digests (EVALSHA; NOSCRIPT, after a SCRIPT FLUSH, is answered by sending the script
// whole once). With a password it signs in (AUTH) first, on every connection.
// A lost connection, or a reply overdue by `timeout`, fails every command in flight at
// once (the caller falls back); it reconnects with backoff.
#include <chrono>
#include <coroutine>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.hpp"
#include "redis/endpoint.hpp"
#include "redis/protocol.hpp"
#include "runtime/event.hpp"
#include "runtime/gate.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::redis {

struct ClientOptions {
  Endpoint endpoint;
  std::vector<std::string> scripts;         // what eval() runs, by index
  std::chrono::milliseconds timeout{200};   // to connect, and for each reply
  std::chrono::milliseconds backoff_min{50};
  std::chrono::milliseconds backoff_max{2'000};
  bool report_outages = false;              // one core per process says when Redis goes and comes back
};

class Client {
 public:
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Starts connecting; on the owning core's thread, inside its reactor.
  void start();
  bool up() const noexcept { return up_; }
  // The first connection attempt has ended, either way.
  bool settled() const noexcept { return settled_; }
  // Broadcast when a connection attempt has ended (settled() holds from the first on).
  runtime::Event& changed() noexcept { return changed_; }

  // Runs scripts[script] with these KEYS and ARGV. Null when Redis is down, the
  // connection was lost or the reply was overdue.
  runtime::task<Reply> eval(std::size_t script, std::span<const std::string_view> keys,
                            std::span<const std::string_view> args);

 private:
  struct Waiter {
    std::coroutine_handle<> handle;
    Reply reply;
    runtime::Clock::time_point sent_at;
    Waiter* next = nullptr;
  };
  struct Suspend;

  runtime::task<Reply> roundtrip(std::span<const std::string_view> command);
  runtime::task<void> drive();
  runtime::task<Status> open();
  runtime::task<Status> tls_handshake(const runtime::Deadline& deadline);
  runtime::task<Status> handshake();
  // Encrypts `bytes` in place on TLS (they become what goes on the wire).
  bool seal(std::string& bytes);
  // What one receive gave: recv's result (or -EPROTO when TLS failed) and the bytes that
  // arrived in clear (maybe none yet on TLS), in the buffer or in plain_.
  struct Received {
    int n;
    std::string_view data;
  };
  // Receives into `buffer`; on TLS decrypts too.
  runtime::task<Received> receive(std::span<char> buffer, const runtime::Deadline& deadline);
  // Why a receive that gave `n` <= 0 ended the connection, for the log.
  std::string receive_failure(int n) const;
  // Reads until the connection ends, which it always does with a reason.
  runtime::task<Status> read_replies();
  runtime::task<void> flush();
  runtime::task<void> close_socket();
  void complete_head(Reply reply);
  void fail_pending();

  ClientOptions options_;
  int fd_ = -1;
  bool up_ = false;
  bool settled_ = false;
  bool sending_ = false;
  runtime::Gate sends_;     // held by flush() while it sends: the socket closes after it
  runtime::Event changed_;
  bool outage_reported_ = false;
  std::vector<std::string> script_digests_;
  std::unique_ptr<TlsSession> tls_;  // on rediss:// only, one per connection
  std::string plain_;                // what the last TLS receive decrypted to
  std::string out_;        // commands not yet handed to send
  std::string sending_buf_;
  ReplyReader reader_;
  Waiter* head_ = nullptr;  // commands written or queued, oldest first
  Waiter* tail_ = nullptr;
};

}  // namespace storeapi::redis
