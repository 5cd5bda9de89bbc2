// Response serialization: exact bytes on the wire, framing rules, request ids, Date.
#include "http/response.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>

#include "common/regex.hpp"

namespace storeapi::http {
namespace {

constexpr std::string_view kId = "req_0123456789abcdef0123";

// Takes the Date value out of `wire` (checking its format) so that the rest can be
// compared byte for byte.
std::string without_date(std::string wire) {
  static const std::regex date("Date: [A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT\r\n");
  std::smatch m;
  EXPECT_TRUE(std::regex_search(wire, m, date)) << wire;
  return m.empty() ? wire : m.prefix().str() + "Date: *\r\n" + m.suffix().str();
}

std::string wire(const Response& res, ResponseFraming framing) {
  std::string out;
  serialize(res, framing, out);
  return without_date(out);
}

Response json(int status, std::string body) {
  Response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

TEST(ResponseSerialize, ExactBytesOfAKeepAliveResponse) {
  EXPECT_EQ(wire(json(200, "{\"status\":\"ok\"}"), {kId}),
            "HTTP/1.1 200 OK\r\n"
            "Content-Type: application/json\r\n"
            "Content-Length: 15\r\n"
            "Date: *\r\n"
            "Request-Id: req_0123456789abcdef0123\r\n"
            "\r\n"
            "{\"status\":\"ok\"}");
}

TEST(ResponseSerialize, ExtraHeadersComeAfterTheStandardOnes) {
  Response res = json(429, "{}");
  res.add_header("Retry-After", 7);
  res.add_header("RateLimit-Limit", "60");
  EXPECT_EQ(wire(res, {kId}),
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: *\r\n"
            "Request-Id: req_0123456789abcdef0123\r\nRetry-After: 7\r\nRateLimit-Limit: 60\r\n\r\n{}");
}

TEST(ResponseSerialize, ReturnsTheNumberOfBodyBytesWritten) {
  std::string out;
  EXPECT_EQ(serialize(json(200, "12345"), {kId}, out), 5u);
  out.clear();
  EXPECT_EQ(serialize(json(200, "12345"), {kId, true}, out), 0u);
}

TEST(ResponseSerialize, HeadHasTheGetContentLengthButNoBody) {
  EXPECT_EQ(wire(json(200, "{\"status\":\"ok\"}"), {kId, /*head=*/true}),
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\nDate: *\r\n"
            "Request-Id: req_0123456789abcdef0123\r\n\r\n");
}

TEST(ResponseSerialize, NoContentHasNeitherLengthNorBody) {
  Response res = json(204, "ignored");
  res.add_header("Allow", "GET, HEAD, OPTIONS");
  EXPECT_EQ(wire(res, {kId}),
            "HTTP/1.1 204 No Content\r\nContent-Type: application/json\r\nDate: *\r\n"
            "Request-Id: req_0123456789abcdef0123\r\nAllow: GET, HEAD, OPTIONS\r\n\r\n");
}

TEST(ResponseSerialize, ConnectionCloseWhenNotKeptAlive) {
  EXPECT_EQ(wire(json(400, "{}"), {kId, false, /*keep_alive=*/false}),
            "HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: 2\r\nDate: *\r\n"
            "Request-Id: req_0123456789abcdef0123\r\nConnection: close\r\n\r\n{}");
}

TEST(ResponseSerialize, ConnectionCloseWhenTheResponseAsksForIt) {
  Response res = json(503, "{}");
  res.close = true;
  EXPECT_NE(wire(res, {kId}).find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_NE(wire(res, {kId, false, true, /*http10=*/true}).find("\r\nConnection: close\r\n"), std::string::npos);
}

TEST(ResponseSerialize, Http10KeepAliveIsAnnounced) {
  std::string kept = wire(json(200, "{}"), {kId, false, true, /*http10=*/true});
  EXPECT_NE(kept.find("\r\nConnection: keep-alive\r\n"), std::string::npos);
  std::string closed = wire(json(200, "{}"), {kId, false, false, true});
  EXPECT_EQ(closed.find("keep-alive"), std::string::npos);
  EXPECT_NE(closed.find("\r\nConnection: close\r\n"), std::string::npos);
  // HTTP/1.1 keeps alive by default: no header needed.
  EXPECT_EQ(wire(json(200, "{}"), {kId}).find("Connection:"), std::string::npos);
}

TEST(ResponseSerialize, AppendsToWhatIsAlreadyBuffered) {
  std::string out = "previous";
  serialize(json(200, "{}"), {kId}, out);
  EXPECT_EQ(out.rfind("previousHTTP/1.1 200 OK\r\n", 0), 0u);
  EXPECT_EQ(out.substr(out.size() - 2), "{}");
}

TEST(ResponseSerialize, EveryStatusTheServerUsesHasItsReason) {
  for (int status : {100, 200, 204, 400, 401, 403, 404, 405, 408, 409, 413, 415, 422, 429, 431, 500, 503})
    EXPECT_NE(reason_phrase(status), "Unknown") << status;
  EXPECT_EQ(reason_phrase(431), "Request Header Fields Too Large");
  EXPECT_EQ(reason_phrase(413), "Content Too Large");
}

TEST(ResponseDiscard, KeepsOnlyTheHeadersAddedBeforeKeepHeaders) {
  Response res;
  res.add_header("RateLimit-Limit", 60);
  res.keep_headers();
  res.add_header("Retry-After", 1);
  res.status = 503;
  res.body = "{}";
  res.close = true;
  res.discard();
  EXPECT_EQ(res.status, 200);
  EXPECT_EQ(res.body, "");
  EXPECT_FALSE(res.close);
  EXPECT_EQ(res.extra_headers, "RateLimit-Limit: 60\r\n");
  res.discard();  // again: still kept
  EXPECT_EQ(res.extra_headers, "RateLimit-Limit: 60\r\n");
  // reset() forgets them, and what is kept with them.
  res.reset();
  EXPECT_EQ(res.extra_headers, "");
  res.add_header("Allow", "GET");
  res.discard();
  EXPECT_EQ(res.extra_headers, "");
}

TEST(RequestId, IsWellFormed) {
  std::string id(next_request_id());
  EXPECT_TRUE(std::regex_match(id, std::regex("req_[0-9a-f]{20}"))) << id;
}

TEST(RequestId, IsUniqueWithinAThread) {
  std::set<std::string> seen;
  for (int i = 0; i < 100'000; ++i) seen.emplace(next_request_id());
  EXPECT_EQ(seen.size(), 100'000u);
}

TEST(RequestId, IsUniqueAcrossThreads) {
  constexpr int kThreads = 8, kEach = 10'000;
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&ids, t] {
      for (int i = 0; i < kEach; ++i) ids[t].emplace_back(next_request_id());
    });
  for (auto& t : threads) t.join();
  std::set<std::string> seen;
  for (const auto& list : ids) seen.insert(list.begin(), list.end());
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(kThreads * kEach));
}

TEST(HttpDate, IsAnImfFixdateOfNow) {
  std::string date(http_date());
  EXPECT_TRUE(std::regex_match(
      date, std::regex("(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \\d{2} "
                       "(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \\d{4} \\d{2}:\\d{2}:\\d{2} GMT")))
      << date;
  std::time_t now = std::time(nullptr);
  std::tm tm;
  gmtime_r(&now, &tm);
  char year[8];
  std::strftime(year, sizeof year, "%Y", &tm);
  EXPECT_NE(date.find(year), std::string::npos);
}

}  // namespace
}  // namespace storeapi::http
