#include "redis/client.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <vector>

#include "common/backoff.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::redis {

struct Client::Suspend {
  Waiter& waiter;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { waiter.handle = h; }
  void await_resume() const noexcept {}
};

Client::Client(ClientOptions options) : options_(std::move(options)) {}

Client::~Client() {
  if (fd_ >= 0) ::close(fd_);
}

void Client::start() { runtime::spawn(drive()); }

runtime::task<Reply> Client::eval(std::size_t script, std::span<const std::string_view> keys,
                                  std::span<const std::string_view> args) {
  char key_count[8];
  const auto count_end = std::to_chars(key_count, key_count + sizeof key_count, keys.size()).ptr;
  // Before the first connect there are no digests yet; roundtrip() answers null then.
  const std::string_view digest = script < script_digests_.size() ? script_digests_[script] : std::string_view();
  std::vector<std::string_view> command{"EVALSHA", digest, std::string_view(key_count, count_end - key_count)};
  command.insert(command.end(), keys.begin(), keys.end());
  command.insert(command.end(), args.begin(), args.end());
  Reply reply = co_await roundtrip(command);
  if (reply && is_error(*reply, "NOSCRIPT")) {
    // Someone flushed the script cache: EVAL sends it whole and caches it again.
    command[0] = "EVAL";
    command[1] = options_.scripts[script];
    reply = co_await roundtrip(command);
  }
  co_return reply;
}

runtime::task<Reply> Client::roundtrip(std::span<const std::string_view> command) {
  if (!up_) co_return nullptr;
  append_command(out_, command);
  Waiter waiter;
  waiter.sent_at = runtime::Clock::now();
  if (tail_) tail_->next = &waiter;
  else head_ = &waiter;
  tail_ = &waiter;
  if (!sending_) runtime::spawn(flush());
  co_await Suspend{waiter};
  co_return std::move(waiter.reply);
}

runtime::task<void> Client::flush() {
  const runtime::Gate::Holder sending = sends_.enter();
  if (!sending) co_return;  // the socket is closing: nothing more goes out on it
  sending_ = true;
  // On TLS a receive may leave bytes of the protocol's own to send (a key update).
  while (up_ && (!out_.empty() || (tls_ && tls_->has_output()))) {
    // Commands that arrive while this batch is being sent go out in the next one.
    sending_buf_.swap(out_);
    out_.clear();
    if (!seal(sending_buf_)) {
      // Never the commands in clear on a TLS connection: the reader sees the connection
      // end and fails what is in flight.
      ::shutdown(fd_, SHUT_RDWR);
      sending_buf_.clear();
      break;
    }
    for (std::size_t sent = 0; sent < sending_buf_.size();) {
      const auto deadline = runtime::Deadline::after(options_.timeout);
      int n = co_await runtime::send(fd_, sending_buf_.data() + sent, sending_buf_.size() - sent, &deadline);
      if (n <= 0) {
        // The reader sees the connection end and fails what is in flight.
        ::shutdown(fd_, SHUT_RDWR);
        sending_buf_.clear();
        sending_ = false;
        co_return;
      }
      sent += static_cast<std::size_t>(n);
    }
    sending_buf_.clear();
  }
  sending_ = false;
}

void Client::complete_head(Reply reply) {
  Waiter* w = head_;
  head_ = w->next;
  if (!head_) tail_ = nullptr;
  w->reply = std::move(reply);
  w->handle.resume();
}

void Client::fail_pending() {
  while (head_) complete_head(nullptr);
}

runtime::task<Status> Client::open() {
  const Endpoint& e = options_.endpoint;
  fd_ = ::socket(e.address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    co_return Status::failed(std::strerror(errno));
  }
  if (is_tcp(e)) {
    int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  }
  const auto deadline = runtime::Deadline::after(options_.timeout);
  int rc = co_await runtime::Connect(fd_, reinterpret_cast<const sockaddr*>(&e.address), e.length, &deadline);
  if (rc < 0) {
    co_return Status::failed(rc == -ECANCELED ? "connect timed out" : std::strerror(-rc));
  }
  if (e.tls) {
    Status secured = co_await tls_handshake(deadline);
    if (!secured.is_ok()) co_return secured;
  }
  co_return co_await handshake();
}

runtime::task<Status> Client::tls_handshake(const runtime::Deadline& deadline) {
  tls_ = std::make_unique<TlsSession>(*options_.endpoint.tls_context, options_.endpoint.host);
  std::string output;
  std::array<char, 4096> buffer;
  for (;;) {
    const TlsSession::Step step = tls_->handshake();
    output.clear();
    tls_->take_output(output);
    for (std::size_t sent = 0; sent < output.size();) {
      int n = co_await runtime::send(fd_, output.data() + sent, output.size() - sent, &deadline);
      if (n <= 0) co_return Status::failed("TLS: " + std::string(n == -ECANCELED ? "timed out" : std::strerror(-n)));
      sent += static_cast<std::size_t>(n);
    }
    if (step == TlsSession::Step::done) co_return Status::ok();
    if (step == TlsSession::Step::failed) co_return Status::failed("TLS: " + tls_->error());
    int n = co_await runtime::recv(fd_, buffer.data(), buffer.size(), &deadline);
    if (n <= 0)
      co_return Status::failed("TLS: " + std::string(n == 0 ? "connection closed" : n == -ECANCELED ? "no answer in time" : std::strerror(-n)));
    tls_->put_input(buffer.data(), static_cast<std::size_t>(n));
  }
}

bool Client::seal(std::string& bytes) {
  if (!tls_) return true;
  if (!tls_->encrypt(bytes)) return false;
  bytes.clear();
  tls_->take_output(bytes);
  return true;
}

runtime::task<Client::Received> Client::receive(std::span<char> buffer, const runtime::Deadline& deadline) {
  int n = co_await runtime::recv(fd_, buffer.data(), buffer.size(), &deadline);
  if (n <= 0 || !tls_) co_return Received{n, std::string_view(buffer.data(), n > 0 ? static_cast<std::size_t>(n) : 0)};
  tls_->put_input(buffer.data(), static_cast<std::size_t>(n));
  plain_.clear();
  if (!tls_->decrypt(plain_)) co_return Received{-EPROTO, {}};
  if (tls_->has_output() && !sending_) runtime::spawn(flush());
  co_return Received{n, plain_};
}

std::string Client::receive_failure(int n) const {
  if (n == 0) return "connection closed";
  if (n == -EPROTO && tls_) return "TLS: " + tls_->error();
  return std::strerror(-n);
}

runtime::task<Status> Client::handshake() {
  // AUTH and SELECT (when asked) and a SCRIPT LOAD of each script, answered before any
  // request is let through.
  const Endpoint& e = options_.endpoint;
  std::string hello;
  const std::size_t settings = append_session_setup(hello, e);
  for (const std::string& script : options_.scripts) append_command(hello, {"SCRIPT", "LOAD", script});
  const std::size_t expected = settings + options_.scripts.size();
  const auto deadline = runtime::Deadline::after(options_.timeout);
  if (!seal(hello)) co_return Status::failed("TLS: " + tls_->error());
  for (std::size_t sent = 0; sent < hello.size();) {
    int n = co_await runtime::send(fd_, hello.data() + sent, hello.size() - sent, &deadline);
    if (n <= 0) {
      co_return Status::failed(n == -ECANCELED ? "timed out" : std::strerror(-n));
    }
    sent += static_cast<std::size_t>(n);
  }
  std::vector<Reply> replies;
  std::array<char, 4096> buffer;
  while (replies.size() < expected) {
    const auto [n, data] = co_await receive(buffer, deadline);
    if (n <= 0) {
      co_return Status::failed(n == -ECANCELED ? "no answer in time" : receive_failure(n));
    }
    bool broken = !reader_.feed(data.data(), data.size());
    while (!broken)
      if (Reply r = reader_.next(broken)) replies.push_back(std::move(r));
      else break;
    if (broken) {
      co_return Status::failed("not a Redis server");
    }
  }
  for (const Reply& r : replies)
    if (r->type == REDIS_REPLY_ERROR) {
      co_return Status::failed(std::string(r->str, r->len));
    }
  script_digests_.clear();
  for (std::size_t i = settings; i < replies.size(); ++i) {
    const redisReply& digest = *replies[i];
    if (digest.type != REDIS_REPLY_STRING) {
      co_return Status::failed("SCRIPT LOAD gave no digest");
    }
    script_digests_.emplace_back(digest.str, digest.len);
  }
  co_return Status::ok();
}

runtime::task<Status> Client::read_replies() {
  std::array<char, 16384> buffer;
  for (;;) {
    // The oldest command's reply is due within the timeout; idle, the reader still wakes
    // once per timeout so that a command written meanwhile is watched.
    const auto due = (head_ ? head_->sent_at : runtime::Clock::now()) + options_.timeout;
    const auto deadline = runtime::Deadline::at(due);
    const auto [n, data] = co_await receive(buffer, deadline);
    if (n == -ECANCELED) {
      if (head_ && runtime::Clock::now() >= head_->sent_at + options_.timeout) {
        co_return Status::failed("no reply within " + std::to_string(options_.timeout.count()) + " ms");
      }
      continue;
    }
    if (n <= 0) {
      co_return Status::failed(receive_failure(n));
    }
    bool broken = !reader_.feed(data.data(), data.size());
    while (!broken) {
      Reply reply = reader_.next(broken);
      if (!reply) break;
      if (!head_) {
        broken = true;  // a reply nobody asked for: the stream is out of step
        break;
      }
      complete_head(std::move(reply));
    }
    if (broken) {
      co_return Status::failed("protocol error");
    }
  }
}

runtime::task<void> Client::close_socket() {
  ::shutdown(fd_, SHUT_RDWR);
  // A send still in flight must complete before the descriptor may be closed (docs/PITFALLS.md).
  co_await sends_.close();
  ::close(fd_);
  fd_ = -1;
  tls_.reset();
  out_.clear();
  reader_.reset();
  sends_.reopen();
}

runtime::task<void> Client::drive() {
  Backoff backoff(options_.backoff_min, options_.backoff_max);
  for (;;) {
    Status ended = co_await open();
    settled_ = true;
    changed_.broadcast();
    if (ended.is_ok()) {
      if (outage_reported_) std::fprintf(stderr, "storeapi: redis %s is back\n", options_.endpoint.text.c_str());
      outage_reported_ = false;
      backoff.reset();
      up_ = true;
      ended = co_await read_replies();
      up_ = false;
      fail_pending();
    }
    if (fd_ >= 0) co_await close_socket();
    if (options_.report_outages && !outage_reported_) {
      std::fprintf(stderr, "storeapi: redis %s unreachable (%s): rate limits are kept by each node until it is back\n",
                   options_.endpoint.text.c_str(), ended.reason().c_str());
      outage_reported_ = true;
    }
    co_await runtime::sleep_for(backoff.next());
  }
}

}  // namespace storeapi::redis
