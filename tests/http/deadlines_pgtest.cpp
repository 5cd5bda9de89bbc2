// Deadlines against slow and idle clients: 408 when a request does not arrive in time
// (however its bytes are spread), silent close of idle keep-alive connections.
#include <gtest/gtest.h>

#include <thread>

#include "healthz.hpp"
#include "support/http_client.hpp"
#include "support/metrics_scrape.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

TEST(Deadlines, SlowHeadersGet408AndCloseWhileOthersAreServed) {
  // One thread: a slow client must not hold up the core it shares with the others.
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_REQUEST_TIMEOUT_MS", "300"}}});
  HttpClient slow(server.port());
  ASSERT_TRUE(slow.send_raw("GET /healthz HTTP/1.1\r\nHost: a\r\n"));  // and never the blank line
  HttpClient fast(server.port());
  for (int i = 0; i < 20; ++i) ASSERT_EQ(fast.request("GET", "/healthz").status, 200);

  std::optional<HttpResponse> res = slow.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 408);
  EXPECT_NE(res->body.find(R"("code":"request_timeout")"), std::string::npos) << res->body;
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(slow.wait_closed());
  EXPECT_EQ(fast.request("GET", "/healthz").status, 200);
  const std::string m = scrape_metrics(server.metrics_port());
  EXPECT_EQ(metric_value(m, "storeapi_http_connections_deadline_closed_total"), 1) << m;
  EXPECT_EQ(metric_value(m, R"(storeapi_http_rejections_total{reason="request_timeout"})"), 1) << m;
}

TEST(Deadlines, SlowBodyGets408) {
  ServerProcess server({.env = {{"STOREAPI_REQUEST_TIMEOUT_MS", "300"}}});
  HttpClient slow(server.port());
  ASSERT_TRUE(slow.send_raw("POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n12345"));
  std::optional<HttpResponse> res = slow.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 408);
  EXPECT_NE(res->body.find(R"("code":"request_timeout")"), std::string::npos) << res->body;
  EXPECT_TRUE(slow.wait_closed());
}

// Slowloris: one header byte every 100 ms keeps every single receive well inside a 1 s
// timeout. Only a deadline for the whole request cuts it off.
TEST(Deadlines, SlowlorisIsCutAtTheRequestDeadline) {
  ServerProcess server({.env = {{"STOREAPI_REQUEST_TIMEOUT_MS", "1000"}}});
  HttpClient loris(server.port());
  ASSERT_TRUE(loris.send_raw("GET /healthz HTTP/1.1\r\nHost: a\r\nX-Slow: "));
  int trickled = 0;
  // The header would take 30 s to finish; the server must answer long before.
  for (; trickled < 300 && !loris.readable(100ms); ++trickled)
    if (!loris.send_raw("a")) break;
  ASSERT_LT(trickled, 300) << "the server let the trickle go on";
  std::optional<HttpResponse> res = loris.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 408);
  EXPECT_NE(res->body.find(R"("code":"request_timeout")"), std::string::npos) << res->body;
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(loris.wait_closed());
  EXPECT_TRUE(serves_healthz(server.port()));
}

TEST(Deadlines, IdleKeepAliveConnectionIsClosed) {
  ServerProcess server({.env = {{"STOREAPI_IDLE_TIMEOUT_MS", "300"}}});
  HttpClient client(server.port());
  EXPECT_EQ(client.request("GET", "/healthz").status, 200);
  EXPECT_TRUE(client.wait_closed());  // without a response: an idle close says nothing
}

TEST(Deadlines, ConnectionThatNeverSendsIsClosedWhenIdle) {
  ServerProcess server({.env = {{"STOREAPI_IDLE_TIMEOUT_MS", "300"}}});
  HttpClient client(server.port());
  EXPECT_TRUE(client.wait_closed());
}

TEST(Deadlines, IdleConnectionIsNotCutByTheShorterRequestDeadline) {
  ServerProcess server({.env = {{"STOREAPI_REQUEST_TIMEOUT_MS", "200"}, {"STOREAPI_IDLE_TIMEOUT_MS", "60000"}}});
  HttpClient client(server.port());
  EXPECT_EQ(client.request("GET", "/healthz").status, 200);
  EXPECT_FALSE(client.wait_closed(800ms));  // idle for 4 request deadlines: still open
  EXPECT_EQ(client.request("GET", "/healthz").status, 200);
}

TEST(Deadlines, EachRequestGetsAFreshDeadline) {
  ServerProcess server({.env = {{"STOREAPI_REQUEST_TIMEOUT_MS", "1000"}}});
  HttpClient client(server.port());
  // Every request is complete well within its own deadline; together they take longer.
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(client.send_raw("GET /healthz HTTP/1.1\r\n"));
    std::this_thread::sleep_for(300ms);
    ASSERT_TRUE(client.send_raw("Host: a\r\n\r\n"));
    std::optional<HttpResponse> res = client.read_response();
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 200) << "request " << i;
  }
}

}  // namespace
}  // namespace storeapi::testing
