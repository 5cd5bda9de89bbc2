#pragma once
// One client connection, served by one coroutine: read requests, answer them in order
// (pipelined ones too), write the answers, repeat. At most one io_uring operation is in
// flight per connection, and the object lives in the coroutine's frame until that
// operation completed, so no completion ever reaches freed memory.
#include <string>

#include "http/request_reader.hpp"
#include "http/response.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::http {

class Server;

runtime::task<void> serve_connection(Server& server, int fd);

class Connection {
 public:
  Connection(Server& server, int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  runtime::task<void> serve();

  int fd() const noexcept { return fd_; }
  // Waiting for the first byte of a request: safe to close while draining.
  bool idle() const noexcept { return idle_; }

  Connection* prev = nullptr;
  Connection* next = nullptr;

 private:
  runtime::task<bool> answer(Request& req);
  runtime::task<bool> flush();
  runtime::task<void> refuse(Rejection why);

  Server& server_;
  int fd_;
  bool idle_ = false;
  bool deadline_armed_ = false;
  runtime::Deadline request_deadline_;
  RequestReader reader_;
  Response res_;
  std::string out_;
  char request_id_[32];
  std::size_t request_id_len_ = 0;
};

}  // namespace storeapi::http
