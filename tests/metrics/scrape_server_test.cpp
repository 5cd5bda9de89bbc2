#include "metrics/scrape_server.hpp"

#include <gtest/gtest.h>

#include "metrics/process_metrics.hpp"
#include "support/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace storeapi::metrics {
namespace {

runtime::ListenAddress any_port() {
  runtime::ListenAddress a;
  a.port = 0;
  return a;
}

TEST(ScrapeServer, AnswersMetricsInTextFormat004) {
  Registry r(0);
  r.counter("hits_total", "hits").with({}).inc(7);
  add_process_metrics(r, "app_build_info");
  ScrapeServer server(any_port(), r);
  auto res = testing::HttpClient(server.port()).get("/metrics");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(res.body.find("\nhits_total 7\n"), std::string::npos);
  EXPECT_NE(res.body.find("app_build_info{version=\""), std::string::npos);
  EXPECT_NE(res.body.find("\nprocess_open_fds "), std::string::npos);
  EXPECT_NE(res.body.find("\nprocess_resident_memory_bytes "), std::string::npos);
}

TEST(ScrapeServer, OtherPathsAre404) {
  Registry r(0);
  ScrapeServer server(any_port(), r);
  EXPECT_EQ(testing::HttpClient(server.port()).get("/").status, 404);
}

TEST(ScrapeServer, ATakenPortIsAnError) {
  Registry r(0);
  ScrapeServer first(any_port(), r);
  runtime::ListenAddress same = any_port();
  same.port = first.port();
  EXPECT_THROW(ScrapeServer second(same, r), std::system_error);
}

// The operator's message names the setting and `off`, as the API port's does. Seen
// failing: it used to be the bind error alone ("metrics listener: bind ...: Address
// already in use"), naming no setting.
TEST(ScrapeServer, ATakenPortNamesTheSettingAndOff) {
  Registry r(0);
  ScrapeServer first(any_port(), r);
  runtime::ListenAddress same = any_port();
  same.port = first.port();
  try {
    start_scrape_server("STOREAPI_METRICS_LISTEN", same, r);
    FAIL() << "a taken port was accepted";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("STOREAPI_METRICS_LISTEN 127.0.0.1:" + std::to_string(first.port())), std::string::npos)
        << message;
    EXPECT_NE(message.find("STOREAPI_METRICS_LISTEN=off"), std::string::npos) << message;
  }
}

// A client that sends its request a byte every 100 ms and never finishes it. Seen
// failing: with one connection served at a time (the former accept-answer loop) the scrape
// beside it times out; with a per-recv timeout instead of the deadline for the whole
// request, the trickle is never cut off.
class SlowClient {
 public:
  explicit SlowClient(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~SlowClient() { ::close(fd_); }

  bool connected() const { return connected_; }
  // Sends one byte of a request head that never ends; false once the server has closed.
  bool trickle() {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {  // readable now means closed: the server never answers half a head
      char c;
      if (::recv(fd_, &c, 1, MSG_DONTWAIT) <= 0) return false;
    }
    return ::send(fd_, &kHead[sent_++ % (sizeof kHead - 1)], 1, MSG_NOSIGNAL) == 1;
  }

 private:
  static constexpr char kHead[] = "GET /metrics HTTP/1.1\r\nX-Slow: aaaaaaaa";
  int fd_;
  bool connected_ = false;
  std::size_t sent_ = 0;
};

TEST(ScrapeServer, ASlowClientNeitherBlocksAScrapeNorOutlivesTheDeadline) {
  Registry r(0);
  r.counter("hits_total", "hits").with({}).inc(3);
  ScrapeServer server(any_port(), r, std::chrono::milliseconds(3000));
  SlowClient slow(server.port());
  ASSERT_TRUE(slow.connected());
  ASSERT_TRUE(slow.trickle());
  ASSERT_TRUE(slow.trickle());

  // The scrape is served while the slow client is still connected and trickling.
  auto res = testing::HttpClient(server.port(), std::chrono::milliseconds(5000)).get("/metrics");
  EXPECT_EQ(res.status, 200);
  EXPECT_NE(res.body.find("\nhits_total 3\n"), std::string::npos);
  EXPECT_TRUE(slow.trickle()) << "the slow client was cut off before its deadline";

  // And it is cut off at its deadline, though it never stopped sending.
  int sent = 0;
  while (sent < 200 && slow.trickle()) ++sent;  // 100 ms each: up to 20 s
  EXPECT_LT(sent, 200) << "a client trickling a byte at a time was never cut off";
}

TEST(ScrapeServer, ServesConnectionsAtOnceAndClosesTheOldestWhenFull) {
  Registry r(0);
  ScrapeServer server(any_port(), r);
  std::vector<std::unique_ptr<SlowClient>> idle;
  for (std::size_t i = 0; i < ScrapeServer::kMaxConnections + 4; ++i) {
    idle.push_back(std::make_unique<SlowClient>(server.port()));
    ASSERT_TRUE(idle.back()->connected());
  }
  EXPECT_EQ(testing::HttpClient(server.port(), std::chrono::milliseconds(3000)).get("/metrics").status, 200);
  EXPECT_FALSE(idle.front()->trickle()) << "the oldest connection was kept past the limit";
}

}  // namespace
}  // namespace storeapi::metrics
