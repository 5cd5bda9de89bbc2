// SIGTERM: stop accepting, close idle connections, let requests in flight finish, flush
// the access log, exit 0 within the grace period (or at its end, still 0).
#include <gtest/gtest.h>
#include <signal.h>

#include <sstream>

#include "healthz.hpp"
#include "support/http_client.hpp"
#include "support/poll.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

// Sends the head of a POST that announces a body, and waits for the 100 Continue: proof
// that the server has read the head and holds a request in flight.
void start_request_with_pending_body(HttpClient& client, std::size_t body_size) {
  ASSERT_TRUE(client.send_raw("POST /healthz HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: " +
                              std::to_string(body_size) + "\r\n\r\n"));
  std::optional<HttpResponse> interim = client.read_response({.return_interim = true});
  ASSERT_TRUE(interim);
  ASSERT_EQ(interim->status, 100);
}

TEST(Shutdown, DrainsInFlightRequestsClosesIdleOnesAndExitsZero) {
  // One core, so that the idle connection closing proves the drain reached the core
  // that holds the unfinished request too.
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_SHUTDOWN_GRACE_MS", "20000"}}});
  HttpClient idle(server.port());
  ASSERT_EQ(idle.request("GET", "/healthz").status, 200);
  HttpClient busy(server.port());
  start_request_with_pending_body(busy, 2);

  server.signal(SIGTERM);
  EXPECT_TRUE(idle.wait_closed());   // idle keep-alive connections go at once
  ASSERT_TRUE(busy.send_raw("{}"));  // the body arrives after the drain started
  std::optional<HttpResponse> res = busy.read_response();
  ASSERT_TRUE(res) << "the request in flight was dropped";
  EXPECT_EQ(res->status, kPostHealthzStatus);
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(busy.wait_closed());

  EXPECT_EQ(server.wait_exit(15s), 0);
  std::string err = server.stderr_text();
  EXPECT_NE(err.find("SIGTERM received, draining"), std::string::npos) << err;
  EXPECT_EQ(err.find("grace period over"), std::string::npos) << err;
}

TEST(Shutdown, StopsAcceptingWhileDraining) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}}});
  HttpClient busy(server.port());
  start_request_with_pending_body(busy, 2);
  server.signal(SIGTERM);
  // Once the listener is closed, a new connection is refused (or, if it raced into the
  // backlog, closed unanswered).
  EXPECT_TRUE(eventually([&] {
    try {
      HttpClient late(server.port(), 2s);
      late.send("GET", "/healthz");
      return !late.read_response();
    } catch (const std::runtime_error&) {
      return true;  // connection refused
    }
  }, 10s));
  ASSERT_TRUE(busy.send_raw("{}"));
  std::optional<HttpResponse> res = busy.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, kPostHealthzStatus);
  EXPECT_EQ(server.wait_exit(15s), 0);
}

TEST(Shutdown, ExitsZeroWithoutConnections) {
  ServerProcess server;
  ASSERT_TRUE(serves_healthz(server.port()));
  EXPECT_EQ(server.terminate(), 0);
  EXPECT_NE(server.stderr_text().find("stopped"), std::string::npos);
}

TEST(Shutdown, SigintDrainsLikeSigterm) {
  ServerProcess server;
  HttpClient idle(server.port());
  ASSERT_EQ(idle.request("GET", "/healthz").status, 200);
  server.signal(SIGINT);
  EXPECT_TRUE(idle.wait_closed());
  EXPECT_EQ(server.wait_exit(15s), 0);
}

TEST(Shutdown, GracePeriodEndsAStuckRequestAndStillExitsZero) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"},
                                {"STOREAPI_SHUTDOWN_GRACE_MS", "300"},
                                {"STOREAPI_REQUEST_TIMEOUT_MS", "60000"}}});
  HttpClient stuck(server.port());
  start_request_with_pending_body(stuck, 100);  // and the body never comes
  EXPECT_EQ(server.terminate(), 0);
  EXPECT_NE(server.stderr_text().find("grace period over"), std::string::npos) << server.stderr_text();
}

// Every answered request has its access-log line once the process is gone, including the
// request that finished during the drain, just before the process stopped.
TEST(Shutdown, AccessLogIsCompleteAtExit) {
  ServerProcess server({.env = {{"STOREAPI_ACCESS_LOG", "on"}, {"STOREAPI_THREADS", "1"}}});
  constexpr int kRequests = 50;
  HttpClient busy(server.port());
  for (int i = 0; i < kRequests - 1; ++i) ASSERT_EQ(busy.request("GET", "/healthz").status, 200);
  start_request_with_pending_body(busy, 2);
  server.signal(SIGTERM);
  ASSERT_TRUE(busy.send_raw("{}"));
  ASSERT_TRUE(busy.read_response());
  EXPECT_EQ(server.wait_exit(15s), 0);

  std::istringstream log(server.stdout_text());
  int lines = 0;
  for (std::string line; std::getline(log, line); ++lines)
    EXPECT_TRUE(line.find(" GET /healthz 200 ") != std::string::npos ||
                line.find(" POST /healthz 405 ") != std::string::npos)
        << line;
  EXPECT_EQ(lines, kRequests);
}

}  // namespace
}  // namespace storeapi::testing
