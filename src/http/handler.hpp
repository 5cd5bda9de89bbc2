#pragma once
// What the HTTP layer asks of the application.
#include <string_view>

#include "http/request.hpp"
#include "http/request_reader.hpp"
#include "http/response.hpp"
#include "runtime/task.hpp"

namespace storeapi::http {

class Handler {
 public:
  virtual ~Handler() = default;
  // Answers one request; `res` arrives reset. Runs on the connection's core.
  virtual runtime::task<void> handle(const Request& req, Response& res) = 0;
  // Fills `res` for a request the HTTP layer refused before handle() (or that handle()
  // failed on with an exception: `res` then holds only the headers handle() kept, see
  // Response::keep_headers).
  virtual void reject(Rejection why, std::string_view request_id, Response& res) = 0;
};

}  // namespace storeapi::http
