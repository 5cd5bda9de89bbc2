#pragma once
// One client connection, served by one coroutine: read requests, answer them in order
// (pipelined ones too), write the answers, repeat. At most one io_uring operation is in
// flight per connection, and the object lives in the coroutine's frame until that
// operation completed, so no completion ever reaches freed memory.
//
// Deadlines are kept here, not in the kernel: before each receive or send the connection
// records until when it may wait, and the server's sweep (server.cpp) cancels the
// operation of a connection whose deadline passed. A linked timeout per receive armed a
// kernel timer on every keep-alive request and cost 10-20% of the request rate.
//
// Between requests a connection holds no buffer (many idle keep-alive connections must
// cost little memory): it waits with a receive that takes a buffer from the core's ring
// only when bytes arrive, and borrows its reader and response buffers from the core's
// pools until the answer has been sent.
#include <cstddef>
#include <cstdint>
#include <string>

#include "http/request_reader.hpp"
#include "http/response.hpp"
#include "common/trace_context.hpp"
#include "runtime/io.hpp"
#include "runtime/object_pool.hpp"
#include "runtime/task.hpp"

namespace storeapi::http {

class Server;

runtime::task<void> serve_connection(Server& server, int fd);

// What a connection holds only while answering: the response and its serialized bytes.
struct ResponseBuffers {
  Response res;
  std::string out;
  bool recycle() noexcept;
  std::size_t retained_bytes() const noexcept;
};

// Buffers the connections of the calling thread's core hold right now (reader and
// response buffers, and receive buffers not yet given back to the ring): 0 when every
// connection is idle. A deliberate test seam (tests/http/idle_buffers_test.cpp): the
// product never asks, it is how a test sees that idle connections hold no memory.
std::size_t buffers_in_use() noexcept;
// The capacity of the reader and response buffers waiting in the calling thread's pools
// for the next busy connection (a test seam, as above).
std::size_t buffers_kept() noexcept;
// Frees the buffers of the calling thread's pools that no connection borrowed since the
// previous call (runtime::Pool::trim); the server's sweep calls it once a trim period.
void trim_buffer_pools() noexcept;

class Connection {
 public:
  Connection(Server& server, int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  runtime::task<void> serve();

  int fd() const noexcept { return fd_; }
  // Waiting for the first byte of a further request: safe to close while draining. A
  // connection still waiting for its first request is not idle: its client has just
  // connected to send one, and it is answered even while the server drains.
  bool idle() const noexcept { return phase_ == Phase::idle; }
  // For the server's sweep: cancels the operation in flight if its deadline passed.
  void expire_if_due(runtime::Clock::time_point now);

  Connection* prev = nullptr;
  Connection* next = nullptr;

 private:
  // Waits for the first bytes of the next request holding no buffer; true once some were
  // taken into the reader.
  runtime::task<bool> receive_while_idle();
  runtime::task<bool> answer(Request& req);
  runtime::task<bool> flush();
  runtime::task<void> refuse(Rejection why);
  runtime::task<void> drop_unread_body();
  std::string& out() { return reply().out; }
  ResponseBuffers& reply();
  // Around each receive or send: arm() records the deadline, disarmed_by_deadline()
  // tells whether the operation ended because the sweep found it past that deadline.
  void arm(runtime::Clock::time_point deadline) noexcept;
  bool disarmed_by_deadline(int result) noexcept;
  // Around a wait for a further request: answered → idle, and back.
  void wait_idle() noexcept;
  void end_idle() noexcept;

  // Where the connection is between its requests. Legal transitions (serve() and
  // receive_while_idle(); docs/ARCHITECTURE.md, "State machines"):
  //   awaiting_first → reading      part of the first request arrived: its deadline starts
  //   awaiting_first → answered     the first request arrived whole and was answered
  //   reading        → answered     the request was completed and answered
  //   answered       → reading      part of a further request is buffered: its deadline starts
  //   answered       → answered     a further, whole request was answered
  //   answered       → idle         waiting for a further request holding no buffer
  //   idle           → answered     bytes arrived, or the wait ended (closed, timed out)
  // The connection ends from any of them. Only `idle` may be closed by a draining server;
  // `awaiting_first` is not idle: its client has just connected to send a request.
  enum class Phase : std::uint8_t { awaiting_first, reading, answered, idle };
  // The receive or send in flight, for the deadline sweep: none → waiting (arm) →
  // cancelled (the sweep found it past its deadline) → none (disarmed_by_deadline).
  enum class Wait : std::uint8_t { none, waiting, cancelled };

  Server& server_;
  int fd_;
  Phase phase_ = Phase::awaiting_first;
  Wait wait_ = Wait::none;
  runtime::Clock::time_point deadline_{};
  runtime::Clock::time_point request_deadline_{};
  RequestReader reader_;
  runtime::Pool<ResponseBuffers>::Lease reply_;
  // Stage timing (metrics/stage_timing.hpp; the epoch when off): when the last bytes came
  // in, and how many answers in the response buffers wait for the next flush.
  runtime::Clock::time_point received_at_{};
  std::size_t unsent_answers_ = 0;
  char request_id_[32];
  std::size_t request_id_len_ = 0;
  char trace_id_[trace::kTraceIdLength];
  char client_[64];  // "address:port", for the access log
  std::size_t client_len_ = 0;
};

}  // namespace storeapi::http
