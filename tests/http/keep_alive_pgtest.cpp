// The real server over real sockets: keep-alive, pipelining, HTTP/1.0, HEAD, framing.
#include <gtest/gtest.h>

#include <set>

#include "common/regex.hpp"
#include "healthz.hpp"
#include "support/http_client.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {
namespace {

TEST(KeepAlive, HealthzAnswersWithJsonAndTheStandardHeaders) {
  ServerProcess server;
  HttpClient client(server.port());
  HttpResponse res = client.request("GET", "/healthz");
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.reason, "OK");
  EXPECT_EQ(res.body, kHealthzBody);
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.header("Content-Length"), std::to_string(kHealthzBody.size()));
  EXPECT_TRUE(std::regex_match(res.header("Request-Id").value_or(""), std::regex("req_[0-9a-f]{20}")));
  EXPECT_TRUE(res.header("Date"));
  EXPECT_FALSE(res.header("Connection"));  // HTTP/1.1 keeps alive without saying so
}

TEST(KeepAlive, AThousandRequestsOnOneConnection) {
  ServerProcess server;
  HttpClient client(server.port());
  std::set<std::string> ids;
  for (int i = 0; i < 1000; ++i) {
    HttpResponse res = client.request("GET", i % 2 ? "/healthz" : "/missing");
    ASSERT_EQ(res.status, i % 2 ? 200 : kKeylessPathStatus) << "request " << i;
    ASSERT_FALSE(res.connection_close());
    ids.insert(res.header("Request-Id").value_or(""));
  }
  EXPECT_EQ(ids.size(), 1000u);  // every response has its own id
}

TEST(KeepAlive, PipelinedRequestsInOneWriteAreAnsweredInOrder) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw(format_request("GET", "/healthz") + format_request("GET", "/first-missing") +
                              format_request("HEAD", "/healthz")));
  std::optional<HttpResponse> a = client.read_response();
  std::optional<HttpResponse> b = client.read_response();
  std::optional<HttpResponse> c = client.read_response({.head = true});
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(a->status, 200);
  EXPECT_EQ(a->body, kHealthzBody);
  EXPECT_EQ(b->status, kKeylessPathStatus);
  EXPECT_EQ(c->status, 200);
  EXPECT_EQ(c->body, "");
  EXPECT_FALSE(client.readable(std::chrono::milliseconds(50)));  // nothing more was sent
  EXPECT_EQ(client.request("GET", "/healthz").status, 200);      // and the connection lives on
}

TEST(KeepAlive, ManyPipelinedRequestsAreAllAnswered) {
  ServerProcess server;
  HttpClient client(server.port());
  std::string burst;
  for (int i = 0; i < 500; ++i) burst += format_request("GET", i % 3 ? "/healthz" : "/nope");
  ASSERT_TRUE(client.send_raw(burst));
  for (int i = 0; i < 500; ++i) {
    std::optional<HttpResponse> res = client.read_response();
    ASSERT_TRUE(res) << "response " << i;
    ASSERT_EQ(res->status, i % 3 ? 200 : kKeylessPathStatus) << "response " << i;
  }
}

TEST(KeepAlive, HeadHasTheLengthOfGetButNoBody) {
  ServerProcess server;
  HttpClient client(server.port());
  HttpResponse head = client.request("HEAD", "/healthz");
  EXPECT_EQ(head.status, 200);
  EXPECT_EQ(head.header("Content-Length"), std::to_string(kHealthzBody.size()));
  EXPECT_EQ(head.body, "");
  // Had a body followed, it would be read as the start of this response.
  EXPECT_EQ(client.request("GET", "/healthz").body, kHealthzBody);
}

TEST(KeepAlive, ConnectionCloseIsHonoured) {
  ServerProcess server;
  HttpClient client(server.port());
  HttpResponse res = client.request("GET", "/healthz", {{"Connection", "close"}});
  EXPECT_EQ(res.status, 200);
  EXPECT_TRUE(res.connection_close());
  EXPECT_TRUE(client.wait_closed());
}

TEST(KeepAlive, Http10ClosesAfterTheResponse) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw("GET /healthz HTTP/1.0\r\n\r\n"));
  std::optional<HttpResponse> res = client.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_TRUE(res->connection_close());
  EXPECT_TRUE(client.wait_closed());
}

TEST(KeepAlive, Http10KeepAliveStaysOpenAndSaysSo) {
  ServerProcess server;
  HttpClient client(server.port());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(client.send_raw("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
    std::optional<HttpResponse> res = client.read_response();
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    EXPECT_EQ(res->header("Connection"), "keep-alive");
  }
}

TEST(KeepAlive, ExpectContinueGetsAnInterimResponseBeforeTheBody) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw(
      "POST /healthz HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"));
  std::optional<HttpResponse> interim = client.read_response({.return_interim = true});
  ASSERT_TRUE(interim);
  EXPECT_EQ(interim->status, 100);
  ASSERT_TRUE(client.send_raw("{}"));
  std::optional<HttpResponse> res = client.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, kPostHealthzStatus);
  EXPECT_TRUE(res->interim.empty());
}

// A client that sends the body with its Expect header gets no 100: not before the final
// response, and above all not after it, where it would be taken for the next answer's.
TEST(KeepAlive, ExpectContinueWithTheBodyAlreadySentGetsOnlyTheFinalResponse) {
  ServerProcess server;
  HttpClient client(server.port());
  ASSERT_TRUE(client.send_raw("POST /healthz HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"));
  std::optional<HttpResponse> res = client.read_response({.return_interim = true});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, kPostHealthzStatus);
  HttpResponse next = client.request("GET", "/missing");
  EXPECT_EQ(next.status, kKeylessPathStatus);
  EXPECT_TRUE(next.interim.empty()) << "a stray 100 Continue came after the response";
}

TEST(KeepAlive, RequestsSpreadOverManyWritesAreAnswered) {
  ServerProcess server;
  HttpClient client(server.port());
  std::string request = format_request("POST", "/healthz", {{"X-Trace", "abc"}}, "{\"k\":\"v\"}");
  for (char byte : request) ASSERT_TRUE(client.send_raw(std::string_view(&byte, 1)));
  std::optional<HttpResponse> res = client.read_response();
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, kPostHealthzStatus);
}

}  // namespace
}  // namespace storeapi::testing
