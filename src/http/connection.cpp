#include "http/connection.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "http/client_address.hpp"
#include "http/handler_failure.hpp"
#include "http/server.hpp"
#include "runtime/buffer_ring.hpp"

namespace storeapi::http {
namespace {

// Answers of pipelined requests are sent together, up to this many bytes at a time.
constexpr std::size_t kFlushThreshold = 64 * 1024;

// A response buffer that grew past this (a long list, many pipelined answers) is freed
// rather than pooled.
constexpr std::size_t kKeptResponseBytes = 64 * 1024;
// How long, and how much, a refused request's unread body is read and dropped before the
// connection closes (drop_unread_body).
constexpr auto kLingerTime = std::chrono::seconds(1);
constexpr std::size_t kLingerBytes = 1024 * 1024;

std::uint64_t micros_of(runtime::Clock::duration d) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(d).count());
}

std::uint64_t micros_since(runtime::Clock::time_point t) { return micros_of(runtime::Clock::now() - t); }

// "address:port" of the socket's peer ("[v6]:port"), once per connection; empty if unknown.
std::size_t format_peer(int fd, char (&out)[64]) {
  sockaddr_storage peer{};
  socklen_t len = sizeof peer;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return 0;
  char host[INET6_ADDRSTRLEN];
  unsigned port = 0;
  bool v6 = peer.ss_family == AF_INET6;
  if (v6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&peer);
    if (!::inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host)) return 0;
    port = ntohs(a->sin6_port);
  } else if (peer.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&peer);
    if (!::inet_ntop(AF_INET, &a->sin_addr, host, sizeof host)) return 0;
    port = ntohs(a->sin_port);
  } else {
    return 0;
  }
  std::string_view h(host);
  char* p = out;
  if (v6) *p++ = '[';
  p = std::copy(h.begin(), h.end(), p);
  if (v6) *p++ = ']';
  *p++ = ':';
  p = std::to_chars(p, out + sizeof out, port).ptr;
  return static_cast<std::size_t>(p - out);
}

}  // namespace

bool ResponseBuffers::recycle() noexcept {
  res.reset();
  out.clear();
  return out.capacity() <= kKeptResponseBytes && res.body.capacity() <= kKeptResponseBytes;
}

std::size_t ResponseBuffers::retained_bytes() const noexcept {
  return out.capacity() + res.body.capacity() + res.extra_headers.capacity();
}

std::size_t buffers_in_use() noexcept {
  std::size_t ring = 0;
  if (runtime::Reactor* reactor = runtime::Reactor::current_or_null()) ring = reactor->recv_buffers().lent();
  return RequestReader::BufferPool::lent() + runtime::Pool<ResponseBuffers>::lent() + ring;
}

std::size_t buffers_kept() noexcept {
  return RequestReader::BufferPool::kept_bytes() + runtime::Pool<ResponseBuffers>::kept_bytes();
}

void trim_buffer_pools() noexcept {
  RequestReader::BufferPool::trim();
  runtime::Pool<ResponseBuffers>::trim();
}

runtime::task<void> serve_connection(Server& server, int fd) {
  Connection connection(server, fd);
  co_await connection.serve();
}

Connection::Connection(Server& server, int fd)
    : server_(server), fd_(fd), reader_(server.options().limits) {
  server_.link(this);
  server_.metrics().open.inc();
  if (server_.access_log().enabled()) client_len_ = format_peer(fd_, client_);
}

Connection::~Connection() {
  ::close(fd_);
  server_.metrics().open.dec();
  server_.unlink(this);
}

runtime::task<void> Connection::serve() {
  Request req;
  for (;;) {
    for (;;) {
      stage_timing::Timer parse(stage_timing::Stage::parse);
      RequestReader::Result r = reader_.next(req);
      if (r != RequestReader::Result::request) parse.cancel();  // no whole request yet
      if (r == RequestReader::Result::need_more) break;
      if (r == RequestReader::Result::error) co_return co_await refuse(reader_.rejection());
      stage_timing::record(stage_timing::Stage::read_wait, parse.started() - received_at_);
      parse.stop();
      bool keep_alive = co_await answer(req);
      phase_ = Phase::answered;
      if (!keep_alive) {
        co_await flush();
        co_return;
      }
      if (out().size() >= kFlushThreshold && !co_await flush()) co_return;
    }
    // The answers are serialized: unless a request is half-read, the reader's buffers can
    // go back before the send, which may wait on a slow reader (or on thousands of others
    // sending at once).
    reader_.release_buffers();
    if (reply_ && !reply_->out.empty() && !co_await flush()) co_return;

    bool mid_request = reader_.mid_request();
    if (server_.draining() && !mid_request && phase_ == Phase::answered) co_return;
    if (reader_.take_continue_request()) {
      out().append("HTTP/1.1 100 Continue\r\n\r\n");
      if (!co_await flush()) co_return;
    }
    if (!mid_request) {
      // An idle timeout, the peer closing or the server draining just close.
      if (co_await receive_while_idle()) continue;
      co_return;
    }
    std::span<char> space = reader_.recv_space();
    if (space.empty()) co_return co_await refuse(reader_.rejection());
    if (phase_ != Phase::reading) {
      // Slowloris defence: the rest of this request must arrive within one deadline,
      // however the bytes are spread over time.
      request_deadline_ = runtime::Clock::now() + server_.options().request_timeout;
      phase_ = Phase::reading;
    }
    arm(request_deadline_);
    int n = co_await runtime::recv(fd_, space.data(), space.size());
    received_at_ = stage_timing::now_if_enabled();
    bool expired = disarmed_by_deadline(n);
    if (n > 0) {
      server_.metrics().received_bytes.inc(static_cast<std::size_t>(n));
      reader_.commit(static_cast<std::size_t>(n));
      continue;
    }
    if (expired) server_.metrics().deadline_closed.inc();
    // A request cut short by its deadline gets a 408.
    if (expired && !server_.draining()) co_await refuse(Rejection::request_timeout);
    co_return;
  }
}

runtime::task<bool> Connection::receive_while_idle() {
  reader_.release_buffers();
  reply_.end();
  runtime::Clock::time_point deadline = runtime::Clock::now() + server_.options().idle_timeout;
  runtime::BufferRing& ring = runtime::Reactor::current().recv_buffers();
  ServerMetrics& metrics = server_.metrics();
  arm(deadline);
  wait_idle();
  runtime::Received got = co_await runtime::recv_provided(fd_, ring);
  received_at_ = stage_timing::now_if_enabled();
  end_idle();
  if (disarmed_by_deadline(got.result())) metrics.deadline_closed.inc();
  if (got.result() > 0) {
    metrics.received_bytes.inc(static_cast<std::size_t>(got.result()));
    // Copied at once, so that the ring's buffer goes straight back. (Bytes that do not fit
    // leave the reader failed: next() reports it.)
    reader_.append(got.bytes());
    co_return true;
  }
  if (got.result() != -ENOBUFS) co_return false;

  // The ring ran dry (many connections received at once): wait for bytes without a
  // buffer, then receive into the reader's own.
  arm(deadline);
  wait_idle();
  int ready = co_await runtime::poll(fd_, POLLIN);
  end_idle();
  if (disarmed_by_deadline(ready)) metrics.deadline_closed.inc();
  if (ready <= 0) co_return false;
  std::span<char> space = reader_.recv_space();
  arm(deadline);
  int n = co_await runtime::recv(fd_, space.data(), space.size());
  received_at_ = stage_timing::now_if_enabled();
  if (disarmed_by_deadline(n)) metrics.deadline_closed.inc();
  if (n <= 0) co_return false;
  metrics.received_bytes.inc(static_cast<std::size_t>(n));
  reader_.commit(static_cast<std::size_t>(n));
  co_return true;
}

ResponseBuffers& Connection::reply() {
  if (!reply_) reply_ = runtime::Pool<ResponseBuffers>::borrow();
  return *reply_;
}

void Connection::wait_idle() noexcept {
  if (phase_ == Phase::answered) phase_ = Phase::idle;
}

void Connection::end_idle() noexcept {
  if (phase_ == Phase::idle) phase_ = Phase::answered;
}

void Connection::arm(runtime::Clock::time_point deadline) noexcept {
  deadline_ = deadline;
  wait_ = Wait::waiting;
}

bool Connection::disarmed_by_deadline(int result) noexcept {
  const bool cancelled = wait_ == Wait::cancelled;
  wait_ = Wait::none;
  // A cancel that lost the race against the completion changes nothing: the bytes count.
  return result == -ECANCELED && cancelled;
}

void Connection::expire_if_due(runtime::Clock::time_point now) {
  if (wait_ != Wait::waiting || now < deadline_) return;
  wait_ = Wait::cancelled;
  runtime::Reactor::current().cancel_fd(fd_);
}

runtime::task<bool> Connection::answer(Request& req) {
  auto started = runtime::Clock::now();
  std::string_view id = next_request_id();
  std::memcpy(request_id_, id.data(), id.size());
  request_id_len_ = id.size();
  req.request_id = {request_id_, request_id_len_};
  req.trace_id = trace::trace_id_of(req.header("traceparent"));
  if (req.trace_id.empty()) {
    trace::new_trace_id(trace_id_);
    req.trace_id = {trace_id_, sizeof trace_id_};
  }

  ServerMetrics& metrics = server_.metrics();
  metrics.in_flight.inc();
  ResponseBuffers& reply = this->reply();
  Response& res = reply.res;
  res.reset();
  stage_timing::Timer render(stage_timing::Stage::render);
  try {
    co_await server_.handler().handle(req, res);
  } catch (...) {
    report_handler_failure(req.request_id, std::current_exception());
    res.discard();  // the headers the handler kept (rate limit) stay on the 500
    server_.handler().reject(Rejection::internal_error, req.request_id, res);
  }
  // The handler's own time: its auth and database units are stages of their own.
  render.stop(res.tally.auth + res.tally.db);
  if (stage_timing::enabled()) ++unsent_answers_;
  bool keep_alive = req.keep_alive && !res.close && !server_.draining();
  ResponseFraming framing{req.request_id, req.method == Method::head, keep_alive, req.http_minor == 0};
  std::size_t bytes = serialize(res, framing, reply.out);
  std::uint64_t micros = micros_since(started);
  metrics.in_flight.dec();
  metrics.request_done(req.method_text, res.notes.route, res.status, static_cast<double>(micros) / 1e6);
  // X-Forwarded-For names the client only on a request from the trusted proxy, and is
  // looked up only then.
  const std::string_view peer{client_, client_len_};
  const std::string_view proxy = server_.options().trusted_proxy;
  const std::string_view client =
      client_address(peer, proxy, from_trusted_proxy(peer, proxy) ? req.header("X-Forwarded-For") : "");
  server_.access_log().record({req.request_id, req.trace_id, client, req.method_text,
                               res.notes.route ? res.notes.route->pattern : std::string_view{}, req.path,
                               res.status, res.notes.error_code, req.body.size(), bytes, micros,
                               micros_of(res.tally.database()), res.notes.store_id, res.notes.key_prefix});
  co_return keep_alive;
}

runtime::task<void> Connection::refuse(Rejection why) {
  std::string_view id = next_request_id();
  ResponseBuffers& reply = this->reply();
  reply.res.reset();
  server_.handler().reject(why, id, reply.res);
  ResponseFraming framing{id, false, false, false};
  std::size_t bytes = serialize(reply.res, framing, reply.out);
  server_.metrics().rejected(why);
  server_.metrics().request_done("-", nullptr, reply.res.status, 0);
  char trace_id[trace::kTraceIdLength];
  trace::new_trace_id(trace_id);
  server_.access_log().record({id, {trace_id, sizeof trace_id}, {client_, client_len_}, "-", {}, "-", reply.res.status,
                               reply.res.notes.error_code, 0, bytes, 0, 0, {}, {}});
  if (co_await flush() && why == Rejection::payload_too_large) co_await drop_unread_body();
}

// The refused body may still be arriving. Closing with unread bytes makes the kernel send
// RST, which can destroy the 413 before the peer has read it (a proxy in front then answers
// 502 instead). So, as nginx's own lingering close does: stop sending (FIN after the answer),
// then read and drop what still arrives until the peer closes, within kLingerTime and
// kLingerBytes.
runtime::task<void> Connection::drop_unread_body() {
  ::shutdown(fd_, SHUT_WR);
  runtime::BufferRing& ring = runtime::Reactor::current().recv_buffers();
  const runtime::Clock::time_point deadline = runtime::Clock::now() + kLingerTime;
  for (std::size_t dropped = 0; dropped < kLingerBytes;) {
    arm(deadline);
    runtime::Received got = co_await runtime::recv_provided(fd_, ring);
    disarmed_by_deadline(got.result());
    if (got.result() <= 0) co_return;  // the peer closed, the deadline, or no buffer to spare
    dropped += static_cast<std::size_t>(got.result());
  }
}

runtime::task<bool> Connection::flush() {
  if (!reply_) co_return true;  // nothing was answered since the last flush
  std::string& out = reply_->out;
  stage_timing::Timer send_timer(stage_timing::Stage::send);
  std::size_t off = 0;
  while (off < out.size()) {
    arm(runtime::Clock::now() + server_.options().send_timeout);
    int n = co_await runtime::send(fd_, out.data() + off, out.size() - off);
    if (disarmed_by_deadline(n)) server_.metrics().deadline_closed.inc();
    if (n <= 0) {
      send_timer.cancel();
      out.clear();
      unsent_answers_ = 0;
      co_return false;
    }
    off += static_cast<std::size_t>(n);
    server_.metrics().sent_bytes.inc(static_cast<std::size_t>(n));
  }
  out.clear();
  const auto sent = send_timer.started() + send_timer.stop();
  for (; unsent_answers_ > 0; --unsent_answers_) stage_timing::record(stage_timing::Stage::total, sent - received_at_);
  co_return true;
}

}  // namespace storeapi::http
