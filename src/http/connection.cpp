#include "http/connection.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "http/client_address.hpp"
#include "http/server.hpp"

namespace storeapi::http {
namespace {

// Answers of pipelined requests are sent together, up to this many bytes at a time.
constexpr std::size_t kFlushThreshold = 64 * 1024;

std::uint64_t micros_since(runtime::Clock::time_point t) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(runtime::Clock::now() - t).count());
}

}  // namespace

runtime::task<void> serve_connection(Server& server, int fd) {
  Connection connection(server, fd);
  co_await connection.serve();
}

Connection::Connection(Server& server, int fd)
    : server_(server), fd_(fd), reader_(server.options().limits) {
  server_.link(this);
  // Only the access log shows it: without one, no getpeername per connection.
  peer_ = server_.access_log().enabled() ? peer_address(fd_, peer_buffer_) : std::string_view("-");
}

Connection::~Connection() {
  ::close(fd_);
  server_.unlink(this);
}

runtime::task<void> Connection::serve() {
  Request req;
  for (;;) {
    for (;;) {
      RequestReader::Result r = reader_.next(req);
      if (r == RequestReader::Result::need_more) break;
      if (r == RequestReader::Result::error) co_return co_await refuse(reader_.rejection());
      deadline_armed_ = false;
      bool keep_alive = co_await answer(req);
      if (!keep_alive) {
        co_await flush();
        co_return;
      }
      if (out_.size() >= kFlushThreshold && !co_await flush()) co_return;
    }
    if (!out_.empty() && !co_await flush()) co_return;

    bool mid_request = reader_.mid_request();
    if (server_.draining() && !mid_request) co_return;
    if (reader_.take_continue_request()) {
      out_.append("HTTP/1.1 100 Continue\r\n\r\n");
      if (!co_await flush()) co_return;
    }
    std::span<char> space = reader_.recv_space();
    if (space.empty()) co_return co_await refuse(reader_.rejection());

    if (!mid_request) {
      arm(runtime::Clock::now() + server_.options().idle_timeout);
    } else {
      if (!deadline_armed_) {
        // Slowloris defence: the rest of this request must arrive within one deadline,
        // however the bytes are spread over time.
        request_deadline_ = runtime::Clock::now() + server_.options().request_timeout;
        deadline_armed_ = true;
      }
      arm(request_deadline_);
    }
    idle_ = !mid_request;
    int n = co_await runtime::recv(fd_, space.data(), space.size());
    idle_ = false;
    bool expired = disarmed_by_deadline(n);
    if (n > 0) {
      reader_.commit(static_cast<std::size_t>(n));
      continue;
    }
    // A request cut short by its deadline gets a 408; an idle timeout, the peer closing
    // or the server draining just close.
    if (expired && mid_request && !server_.draining()) co_await refuse(Rejection::request_timeout);
    co_return;
  }
}

void Connection::arm(runtime::Clock::time_point deadline) noexcept {
  deadline_ = deadline;
  timed_out_ = false;
  waiting_ = true;
}

bool Connection::disarmed_by_deadline(int result) noexcept {
  waiting_ = false;
  // A cancel that lost the race against the completion changes nothing: the bytes count.
  return result == -ECANCELED && timed_out_;
}

void Connection::expire_if_due(runtime::Clock::time_point now) {
  if (!waiting_ || timed_out_ || now < deadline_) return;
  timed_out_ = true;
  runtime::Reactor::current().cancel_fd(fd_);
}

runtime::task<bool> Connection::answer(Request& req) {
  auto started = runtime::Clock::now();
  std::string_view id = next_request_id();
  std::memcpy(request_id_, id.data(), id.size());
  request_id_len_ = id.size();
  req.request_id = {request_id_, request_id_len_};

  res_.reset();
  try {
    co_await server_.handler().handle(req, res_);
  } catch (...) {
    res_.discard();  // the headers the handler kept (rate limit) stay on the 500
    server_.handler().reject(Rejection::internal_error, req.request_id, res_);
  }
  bool keep_alive = req.keep_alive && !res_.close && !server_.draining();
  ResponseFraming framing{req.request_id, req.method == Method::head, keep_alive, req.http_minor == 0};
  std::size_t bytes = serialize(res_, framing, out_);
  // The header is looked up only when it can count: on a request from the trusted proxy.
  const std::string_view proxy = server_.options().trusted_proxy;
  const std::string_view forwarded_for = !proxy.empty() && peer_ == proxy ? req.header("X-Forwarded-For") : "";
  const std::string_view client = client_address(peer_, proxy, forwarded_for);
  server_.access_log().record(
      {req.method_text, req.path, res_.status, bytes, micros_since(started), req.request_id, client});
  co_return keep_alive;
}

runtime::task<void> Connection::refuse(Rejection why) {
  std::string_view id = next_request_id();
  res_.reset();
  server_.handler().reject(why, id, res_);
  ResponseFraming framing{id, false, false, false};
  std::size_t bytes = serialize(res_, framing, out_);
  server_.access_log().record({"-", "-", res_.status, bytes, 0, id, peer_});
  co_await flush();
}

runtime::task<bool> Connection::flush() {
  std::size_t off = 0;
  while (off < out_.size()) {
    arm(runtime::Clock::now() + server_.options().send_timeout);
    int n = co_await runtime::send(fd_, out_.data() + off, out_.size() - off);
    disarmed_by_deadline(n);
    if (n <= 0) {
      out_.clear();
      co_return false;
    }
    off += static_cast<std::size_t>(n);
  }
  out_.clear();
  co_return true;
}

}  // namespace storeapi::http
