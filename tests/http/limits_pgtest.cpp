// Size and connection limits: 431, 413 (by Content-Length and by chunks; both before
// authentication), the connection cap (503), many concurrent connections, a client that
// never reads, and the connection cap against the open-file limit. (Running out of file
// descriptors: tests/runtime/acceptor_test.cpp.)
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "healthz.hpp"
#include "support/http_client.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kHeaderLimit = 16 * 1024;
constexpr std::size_t kBodyLimit = 64 * 1024;

// A request (GET /healthz unless `request_line` says otherwise) whose request line and
// headers (blank line included) are `size` bytes.
std::string with_header_block_of(std::size_t size, std::string_view request_line = "GET /healthz HTTP/1.1") {
  std::string head = std::string(request_line) + "\r\nHost: a\r\nX-Pad: ";
  return head + std::string(size - head.size() - 4, 'p') + "\r\n\r\n";
}

std::string chunked(std::size_t n) {
  std::string out;
  for (std::size_t sent = 0; sent < n; sent += 4096) {
    std::size_t len = std::min<std::size_t>(4096, n - sent);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", len);
    out += size + std::string(len, 'c') + "\r\n";
  }
  return out + "0\r\n\r\n";
}

// The `reason` label of storeapi_http_rejections_total for a refusal with `status`.
std::string rejection_reason(int status) {
  return status == 431 ? "headers_too_large" : status == 413 ? "payload_too_large" : "bad_request";
}

// The server refused with `status` and the error `code` and closed, counted
// it by reason, and still serves others.
void expect_refused_and_closed(ServerProcess& server, HttpClient& client, int status, std::string_view code) {
  std::optional<HttpResponse> res = client.read_response();
  ASSERT_TRUE(res) << "closed without a response";
  EXPECT_EQ(res->status, status);
  EXPECT_EQ(res->header("Content-Type"), "application/json");
  EXPECT_NE(res->body.find("\"code\":\"" + std::string(code) + "\""), std::string::npos) << res->body;
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(client.wait_closed());
  EXPECT_TRUE(serves_healthz(server.port()));
  const std::string series = R"(storeapi_http_rejections_total{reason=")" + rejection_reason(status) + R"("})";
  EXPECT_GE(metric_value(scrape_metrics(server.metrics_port()), series), 1) << series;
}

TEST(Limits, HeadersOfExactly16KiBAreServed) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw(with_header_block_of(kHeaderLimit)));
  std::optional<HttpResponse> res = client.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(Limits, OversizedHeadersGet431ThenClose) {
  ServerProcess server;
  HttpClient client(server.port());
  client.send_raw(with_header_block_of(kHeaderLimit + 1));
  expect_refused_and_closed(server, client, 431, "headers_too_large");
}

TEST(Limits, OversizedRequestLineGets431) {
  ServerProcess server;
  HttpClient client(server.port());
  client.send_raw("GET /" + std::string(kHeaderLimit, 'x') + " HTTP/1.1\r\nHost: a\r\n\r\n");
  expect_refused_and_closed(server, client, 431, "headers_too_large");
}

TEST(Limits, BodyOfExactly64KiBIsServed) {
  ServerProcess server;
  HttpClient client(server.port());
  EXPECT_EQ(client.request("POST", "/healthz", {}, std::string(kBodyLimit, 'b')).status, kPostHealthzStatus);
  EXPECT_EQ(client.request("POST", "/healthz", {{"Transfer-Encoding", "chunked"}}, chunked(kBodyLimit)).status, kPostHealthzStatus);
}

TEST(Limits, OversizedContentLengthGets413BeforeTheBody) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw("POST /healthz HTTP/1.1\r\nHost: a\r\nContent-Length: 65537\r\n\r\n"));
  expect_refused_and_closed(server, client, 413, "payload_too_large");
}

TEST(Limits, OversizedBodySentInFullGets413) {
  ServerProcess server;
  HttpClient client(server.port());
  // The server may close while the body is still coming: a failed send is expected.
  client.send("POST", "/healthz", {}, std::string(kBodyLimit + 1, 'b'));
  expect_refused_and_closed(server, client, 413, "payload_too_large");
}

TEST(Limits, OversizedChunkedBodyGets413) {
  ServerProcess server;
  HttpClient client(server.port());
  client.send("POST", "/healthz", {{"Transfer-Encoding", "chunked"}}, chunked(kBodyLimit + 1));
  expect_refused_and_closed(server, client, 413, "payload_too_large");
}

// docs/DESIGN.md: 413 and 431 are decided before authentication. Without a key, a write within
// the limits is 401; over them, 413 / 431.
TEST(Limits, OversizedBodyOnAWriteGets413BeforeAuthentication) {
  ServerProcess server;
  const std::string write = "/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6/fulfillment";
  HttpClient within(server.port());
  EXPECT_EQ(within.request("POST", write, {{"Content-Type", "application/json"}}, std::string(kBodyLimit, ' ')).status,
            kKeylessPathStatus);

  HttpClient declared(server.port());
  ASSERT_TRUE(declared.send_raw("POST " + write + " HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n" +
                                "Content-Length: " + std::to_string(kBodyLimit + 1) + "\r\n\r\n"));
  expect_refused_and_closed(server, declared, 413, "payload_too_large");

  HttpClient sent(server.port());
  sent.send("POST", write, {{"Content-Type", "application/json"}}, std::string(kBodyLimit + 1, ' '));
  expect_refused_and_closed(server, sent, 413, "payload_too_large");
}

TEST(Limits, OversizedHeadersOnAKeyedPathGet431BeforeAuthentication) {
  ServerProcess server;
  HttpClient within(server.port());
  ASSERT_TRUE(within.send_raw(with_header_block_of(kHeaderLimit, "GET /v1/store HTTP/1.1")));
  std::optional<HttpResponse> res = within.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, kKeylessPathStatus);

  HttpClient over(server.port());
  over.send_raw(with_header_block_of(kHeaderLimit + 1, "GET /v1/store HTTP/1.1"));
  expect_refused_and_closed(server, over, 431, "headers_too_large");
}

TEST(Limits, ConnectionOverTheCapGets503AndClose) {
  // The cap is per process, split over the cores: one core keeps the arithmetic exact.
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_MAX_CONNECTIONS", "2"}}});
  std::optional<HttpClient> first(server.port());
  HttpClient second(server.port());
  ASSERT_EQ(first->request("GET", "/healthz").status, 200);  // both are being served
  ASSERT_EQ(second.request("GET", "/healthz").status, 200);

  HttpClient extra(server.port());
  std::optional<HttpResponse> res = extra.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 503);
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(extra.wait_closed());
  std::string m;
  EXPECT_TRUE(eventually([&] {
    m = scrape_metrics(server.metrics_port());
    return metric_value(m, "storeapi_http_connections_open") == 2;
  })) << m;
  EXPECT_EQ(metric_value(m, "storeapi_http_connections_refused_total"), 1);
  EXPECT_GE(metric_value(m, "storeapi_http_connections_accepted_total"), 2);
  EXPECT_GT(metric_value(m, "storeapi_http_received_bytes_total"), 0);
  EXPECT_GT(metric_value(m, "storeapi_http_sent_bytes_total"), 0);

  EXPECT_EQ(second.request("GET", "/healthz").status, 200);  // the others are untouched
  first.reset();  // frees a slot once the server has seen it go
  EXPECT_TRUE(eventually([&] {
    HttpClient next(server.port());
    next.send("GET", "/healthz");
    std::optional<HttpResponse> r = next.read_response();
    return r && r->status == 200;
  }, 10s));
}

// The cap is for the whole process: split over two cores it must not become 2 + 2 = 4.
TEST(Limits, ConnectionCapHoldsForTheWholeProcess) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "2"}, {"STOREAPI_MAX_CONNECTIONS", "3"}}});
  std::vector<HttpClient> clients;
  int served = 0, refused = 0;
  for (int i = 0; i < 30; ++i) {
    clients.emplace_back(server.port());
    clients.back().send("GET", "/healthz");
    std::optional<HttpResponse> res = clients.back().read_response();
    ASSERT_TRUE(res);
    (res->status == 200 ? served : refused)++;
  }
  EXPECT_LE(served, 3);
  EXPECT_EQ(served + refused, 30);
}

TEST(Limits, AThousandConcurrentConnectionsAreAllServed) {
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  if (files.rlim_cur < 4096 && files.rlim_max > files.rlim_cur) {
    files.rlim_cur = std::min<rlim_t>(files.rlim_max, 4096);
    ::setrlimit(RLIMIT_NOFILE, &files);  // inherited by the server started next
  }
  ASSERT_GE(files.rlim_cur, 2200u) << "needs file descriptors for 1000 connections on both sides";
  ServerProcess server;
  std::vector<HttpClient> clients;
  for (int i = 0; i < 1000; ++i) clients.emplace_back(server.port());
  for (HttpClient& c : clients) ASSERT_TRUE(c.send("GET", "/healthz"));
  for (std::size_t i = 0; i < clients.size(); ++i) {
    std::optional<HttpResponse> res = clients[i].read_response();
    ASSERT_TRUE(res) << "connection " << i;
    ASSERT_EQ(res->status, 200) << "connection " << i;
  }
  // All still open and usable: none was dropped to make room.
  for (HttpClient& c : clients) ASSERT_EQ(c.request("GET", "/healthz").status, 200);
  // No completion was lost to a full completion queue on the way (docs/PITFALLS.md).
  clients.clear();
  EXPECT_EQ(server.terminate(), 0);
  EXPECT_NE(server.stderr_text().find("stopped (completion-queue overflows: 0)"), std::string::npos)
      << server.stderr_text();
}

// A client that pipelines without ever reading the answers must be throttled by TCP
// flow control, not buffered: the server stops reading once its answers cannot be sent
// (docs/PITFALLS.md: a cap on what is queued per connection).
TEST(Limits, PipeliningClientThatNeverReadsIsThrottled) {
  ServerProcess server({.env = {{"STOREAPI_ACCESS_LOG", "off"}}});
  HttpClient client(server.port());
  std::string burst;
  for (int i = 0; i < 1000; ++i) burst += format_request("GET", "/healthz");
  constexpr std::size_t kUnbounded = 256u << 20;  // far beyond every socket buffer involved
  std::size_t sent = 0;
  auto last_progress = std::chrono::steady_clock::now();
  while (sent < kUnbounded && std::chrono::steady_clock::now() - last_progress < 1s) {
    std::size_t at = sent % burst.size();
    ssize_t n = ::send(client.fd(), burst.data() + at, burst.size() - at, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
      last_progress = std::chrono::steady_clock::now();
    } else {
      ASSERT_TRUE(errno == EAGAIN || errno == EINTR) << std::strerror(errno);
      std::this_thread::sleep_for(10ms);  // the server is not reading: wait a little
    }
  }
  EXPECT_LT(sent, kUnbounded) << "the server kept reading requests it could not answer";
  EXPECT_TRUE(serves_healthz(server.port()));  // and the core is not stuck on this client
}

// "Max open files  SOFT  HARD  files" from /proc/PID/limits.
std::pair<std::string, std::string> open_file_limits(pid_t pid) {
  std::ifstream limits("/proc/" + std::to_string(pid) + "/limits");
  for (std::string line; std::getline(limits, line);) {
    if (line.rfind("Max open files", 0) != 0) continue;
    std::istringstream fields(line.substr(std::strlen("Max open files")));
    std::string soft, hard;
    fields >> soft >> hard;
    return {soft, hard};
  }
  return {};
}

TEST(Limits, TheSoftOpenFileLimitIsRaisedToTheHardOne) {
  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  if (files.rlim_max < 2048) GTEST_SKIP() << "the hard limit leaves no room below it";
  rlimit lowered{1024, files.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);  // inherited by the server started next
  std::optional<ServerProcess> server;
  try {
    server.emplace(ProcessOptions{.env = {{"STOREAPI_MAX_CONNECTIONS", "1500"}}});  // more than 1024 allows
  } catch (...) {
    ::setrlimit(RLIMIT_NOFILE, &files);
    throw;
  }
  ::setrlimit(RLIMIT_NOFILE, &files);
  auto [soft, hard] = open_file_limits(server->pid());
  EXPECT_EQ(soft, hard);
  EXPECT_EQ(hard, files.rlim_max == RLIM_INFINITY ? "unlimited" : std::to_string(files.rlim_max));
  EXPECT_TRUE(serves_healthz(server->port()));
}

TEST(Limits, ACapTheOpenFileLimitCannotHonourIsRefusedAtStart) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_MAX_CONNECTIONS", "1000"}},
                        .wait_for_listening = false,
                        .max_open_files = 200});
  EXPECT_EQ(server.wait_exit(30s), 2);
  std::string err = server.stderr_text();
  EXPECT_NE(err.find("STOREAPI_MAX_CONNECTIONS=1000 cannot be honoured: the open-file limit is 200"), std::string::npos)
      << err;
  EXPECT_EQ(err.find("listening"), std::string::npos) << err;
}

TEST(Limits, TheDefaultCapIsLoweredToWhatTheOpenFileLimitHonours) {
  ServerProcess server({.env = {{"STOREAPI_THREADS", "1"}, {"STOREAPI_ACCESS_LOG", "off"}},
                        .max_open_files = 200});
  EXPECT_NE(server.stderr_text().find("STOREAPI_MAX_CONNECTIONS lowered from its default 10000 to "),
            std::string::npos)
      << server.stderr_text();
  EXPECT_TRUE(serves_healthz(server.port()));
}

}  // namespace
}  // namespace storeapi::testing
