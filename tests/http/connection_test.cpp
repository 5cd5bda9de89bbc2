// A Connection whose handler throws: the 500 it answers instead keeps the headers the
// handler kept (the rate-limit headers of an authenticated request) and drops the rest,
// and the connection serves its next request afresh. A real Server on a core of its own,
// with a handler of the test's, over a real socket.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "http/handler_failure.hpp"
#include "served_by_one_core.hpp"
#include "support/http_client.hpp"

namespace storeapi::http {
namespace {

using testing::HttpClient;
using testing::HttpResponse;

// /keep-then-throw: adds and keeps rate-limit headers, then adds more and throws.
// /throw: throws having kept nothing. Anything else: 200 {}.
class ThrowingHandler : public Handler {
 public:
  runtime::task<void> handle(const Request& req, Response& res) override {
    if (req.path == "/keep-then-throw") {
      res.add_header("RateLimit-Limit", 60);
      res.add_header("RateLimit-Remaining", 59);
      res.add_header("RateLimit-Reset", 1);
      res.keep_headers();
    }
    if (req.path == "/keep-then-throw" || req.path == "/throw") {
      res.add_header("Idempotent-Replayed", "true");
      res.status = 409;
      res.body = "{\"half\":";
      res.close = true;
      throw std::runtime_error("handler failed");
    }
    res.body = "{}";
    co_return;
  }
  void reject(Rejection why, std::string_view, Response& res) override {
    res.status = why == Rejection::internal_error ? 500 : 400;
    res.body = "{\"error\":\"internal\"}";
  }
};

TEST(ConnectionHandlerThrows, The500KeepsTheKeptHeadersOnly) {
  ThrowingHandler handler;
  ServedByOneCore served(handler);
  HttpClient client(served.port());

  HttpResponse failed = client.request("GET", "/keep-then-throw");
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(failed.body, "{\"error\":\"internal\"}");
  EXPECT_EQ(failed.header("RateLimit-Limit"), "60");
  EXPECT_EQ(failed.header("RateLimit-Remaining"), "59");
  EXPECT_EQ(failed.header("RateLimit-Reset"), "1");
  EXPECT_FALSE(failed.header("Idempotent-Replayed"));  // added after keep_headers()
  EXPECT_FALSE(failed.connection_close());             // the handler's close went too

  // The same connection: the next answers start from nothing, kept headers included.
  HttpResponse bare = client.request("GET", "/throw");
  EXPECT_EQ(bare.status, 500);
  EXPECT_FALSE(bare.header("RateLimit-Limit"));
  EXPECT_FALSE(bare.header("Idempotent-Replayed"));

  HttpResponse fine = client.request("GET", "/fine");
  EXPECT_EQ(fine.status, 200);
  EXPECT_EQ(fine.body, "{}");
  EXPECT_FALSE(fine.header("RateLimit-Limit"));
}

// The failure is said once, on stderr, with the id of the request the client got its 500
// for (the line is written before the 500 is sent).
TEST(ConnectionHandlerThrows, TheFailureIsLoggedOnceWithTheRequestId) {
  ThrowingHandler handler;
  ServedByOneCore served(handler);
  HttpClient client(served.port());

  ::testing::internal::CaptureStderr();
  HttpResponse failed = client.request("GET", "/throw");
  HttpResponse fine = client.request("GET", "/fine");
  const std::string logged = ::testing::internal::GetCapturedStderr();
  ASSERT_EQ(failed.status, 500);
  ASSERT_EQ(fine.status, 200);
  ASSERT_TRUE(failed.header("Request-Id"));
  EXPECT_EQ(logged, "storeapi: " + *failed.header("Request-Id") + ": handler failed: handler failed\n");
}

TEST(HandlerFailure, DescribesAnyException) {
  EXPECT_EQ(describe_handler_failure("req_1", std::make_exception_ptr(std::logic_error("broken"))),
            "storeapi: req_1: handler failed: broken\n");
  EXPECT_EQ(describe_handler_failure("req_2", std::make_exception_ptr(42)),
            "storeapi: req_2: handler failed: an exception that is not a std::exception\n");
}

}  // namespace
}  // namespace storeapi::http
