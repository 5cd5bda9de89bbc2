// docs/PITFALLS.md: a socket closed while a receive is in flight must not let that receive touch a
// later connection that gets the same descriptor number. The server closes a socket only
// after its last operation completed; these tests hammer the paths where sockets close
// (peer FIN or reset mid-request, idle timeout) while new connections keep arriving, and
// check that every new connection gets its own answers and is not closed by mistake.
#include <gtest/gtest.h>

#include <vector>

#include "healthz.hpp"
#include "support/http_client.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

// Two requests in one write, so that no pause of the test can let an idle timer fire
// between them: a healthz (200) and a keyless path (401), in that order.
void expect_own_answers(HttpClient& client) {
  ASSERT_TRUE(client.send_raw(format_request("GET", "/healthz") + format_request("GET", "/not-here")));
  std::optional<HttpResponse> first = client.read_response();
  std::optional<HttpResponse> second = client.read_response();
  ASSERT_TRUE(first && second) << "closed by mistake";
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(second->status, kKeylessPathStatus);
}

TEST(FdReuse, ConnectionsDroppedMidRequestDoNotDisturbTheirSuccessors) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_ACCESS_LOG", "off"}}});
  for (int i = 0; i < 300; ++i) {
    {
      HttpClient dropped(server.port());
      dropped.send_raw("GET /healthz HTTP/1.1\r\nHost: a\r\n");  // the server waits for more
      if (i % 2) dropped.reset();                                 // else a plain close (FIN)
    }
    HttpClient next(server.port());  // very likely the number the dropped one had
    expect_own_answers(next);
    if (::testing::Test::HasFailure()) FAIL() << "iteration " << i;
  }
}

TEST(FdReuse, IdleTimeoutsDoNotDisturbNewConnections) {
  ServerProcess server(
      {.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_IDLE_TIMEOUT_MS", "100"}, {"STOREAPI_ACCESS_LOG", "off"}}});
  std::vector<HttpClient> idle;
  for (int round = 0; round < 5; ++round) {
    // A crowd left idle: the server closes all of them on its idle timer...
    for (int i = 0; i < 50; ++i) idle.emplace_back(server.port());
    // ...while new connections keep arriving and reusing the numbers freed.
    for (int i = 0; i < 60; ++i) {
      HttpClient next(server.port());
      expect_own_answers(next);
      if (::testing::Test::HasFailure()) FAIL() << "round " << round << " connection " << i;
    }
    for (HttpClient& c : idle) EXPECT_TRUE(c.wait_closed());
    idle.clear();
  }
}

}  // namespace
}  // namespace storeapi::testing
