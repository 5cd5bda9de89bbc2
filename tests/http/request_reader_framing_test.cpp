// RequestReader: how bytes become requests, however they are cut into receives.
#include <gtest/gtest.h>

#include <string>

#include "reader_driver.hpp"

namespace storeapi::http {
namespace {

using testing::feed;
using testing::feed_pieces;
using testing::ParsedRequest;
using testing::ReaderOutcome;

const std::string kGet = "GET /v1/orders?limit=2&order=asc HTTP/1.1\r\nHost: api.example\r\nUser-Agent: t/1\r\n\r\n";
const std::string kPost =
    "POST /v1/bookings/7/accept HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 11\r\n\r\n"
    "{\"a\":\"b c\"}";
const std::string kChunked =
    "PATCH /p HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"
    "5;name=value\r\nhello\r\n6;quoted=\"x y\"\r\n world\r\n0\r\nX-Checksum: abc\r\n\r\n";

TEST(RequestReaderFraming, ParsesATypicalGet) {
  ReaderOutcome out = feed(kGet);
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 1u);
  const ParsedRequest& r = out.requests[0];
  EXPECT_EQ(r.method, Method::get);
  EXPECT_EQ(r.method_text, "GET");
  EXPECT_EQ(r.target, "/v1/orders?limit=2&order=asc");
  EXPECT_EQ(r.path, "/v1/orders");
  EXPECT_EQ(r.query, "limit=2&order=asc");
  EXPECT_EQ(r.body, "");
  EXPECT_EQ(r.headers, (decltype(r.headers){{"Host", "api.example"}, {"User-Agent", "t/1"}}));
  EXPECT_EQ(r.http_minor, 1);
  EXPECT_TRUE(r.keep_alive);
  EXPECT_FALSE(out.mid_request);
}

TEST(RequestReaderFraming, PathWithoutQueryHasAnEmptyQuery) {
  ReaderOutcome out = feed("GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].path, "/healthz");
  EXPECT_EQ(out.requests[0].query, "");
}

TEST(RequestReaderFraming, ContentLengthBody) {
  ReaderOutcome out = feed(kPost);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].method, Method::post);
  EXPECT_EQ(out.requests[0].body, "{\"a\":\"b c\"}");
  EXPECT_TRUE(out.requests[0].body_padded);
}

TEST(RequestReaderFraming, ChunkedBodyWithExtensionsAndTrailers) {
  ReaderOutcome out = feed(kChunked);
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].method, Method::patch);
  EXPECT_EQ(out.requests[0].body, "hello world");
  EXPECT_TRUE(out.requests[0].body_padded);
}

// RFC 9110 §6.5.1: trailer fields must not be merged into the header section, or a
// client could add headers (authorization, content type) after the fact.
TEST(RequestReaderFraming, TrailersAreNotMergedIntoTheHeaders) {
  ReaderOutcome out = feed(kChunked);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].headers,
            (decltype(out.requests[0].headers){{"Host", "a"}, {"Transfer-Encoding", "chunked"}}));
}

TEST(RequestReaderFraming, EveryMethodIsRecognised) {
  const std::pair<const char*, Method> cases[] = {
      {"GET", Method::get},         {"HEAD", Method::head},     {"POST", Method::post},
      {"PUT", Method::other},         {"PATCH", Method::patch},   {"DELETE", Method::other},
      {"OPTIONS", Method::options}, {"PROPFIND", Method::other}};
  for (const auto& [text, method] : cases) {
    ReaderOutcome out = feed(std::string(text) + " / HTTP/1.1\r\nHost: a\r\n\r\n");
    ASSERT_EQ(out.requests.size(), 1u) << text;
    EXPECT_EQ(out.requests[0].method, method) << text;
    EXPECT_EQ(out.requests[0].method_text, text);
  }
}

TEST(RequestReaderFraming, PipelinedRequestsComeOutInOrder) {
  ReaderOutcome out = feed(kGet + kPost + kChunked + "DELETE /last HTTP/1.1\r\nHost: a\r\n\r\n");
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 4u);
  EXPECT_EQ(out.requests[0].path, "/v1/orders");
  EXPECT_EQ(out.requests[1].body, "{\"a\":\"b c\"}");
  EXPECT_EQ(out.requests[2].body, "hello world");
  EXPECT_EQ(out.requests[3].method, Method::other);
  EXPECT_EQ(out.requests[3].path, "/last");
  EXPECT_FALSE(out.mid_request);
}

TEST(RequestReaderFraming, UnfinishedRequestWaitsForMoreBytes) {
  ReaderOutcome out = feed(kPost.substr(0, kPost.size() - 3));
  EXPECT_TRUE(out.requests.empty());
  EXPECT_FALSE(out.rejection);
  EXPECT_TRUE(out.mid_request);
}

TEST(RequestReaderFraming, LeadingEmptyLinesBetweenRequestsAreIgnored) {
  ReaderOutcome out = feed(kGet + "\r\n" + kGet);
  ASSERT_FALSE(out.rejection);
  EXPECT_EQ(out.requests.size(), 2u);
}

// The same stream cut in two at every possible place, and fed one byte at a time, must
// give exactly what it gives in one piece.
TEST(RequestReaderFraming, SplitAtEveryByteBoundaryGivesTheSameResult) {
  const std::string streams[] = {kGet, kPost, kChunked, kGet + kPost + kChunked,
                                 "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\nok"};
  for (const std::string& stream : streams) {
    ReaderOutcome whole = feed(stream);
    ASSERT_FALSE(whole.rejection) << stream;
    ASSERT_FALSE(whole.requests.empty());
    for (std::size_t cut = 1; cut < stream.size(); ++cut) {
      ReaderOutcome split = feed_pieces({std::string_view(stream).substr(0, cut), std::string_view(stream).substr(cut)});
      // A 100-continue is due only if the headers arrived without the whole body.
      split.continue_requests = whole.continue_requests;
      ASSERT_EQ(split, whole) << "cut at " << cut << " of:\n" << stream;
    }
    ReaderOutcome bytewise = feed(stream, 1);
    bytewise.continue_requests = whole.continue_requests;
    EXPECT_EQ(bytewise, whole) << stream;
  }
}

// A small buffer forces compaction: a request that straddles the end of the buffer is
// moved to the front, and every view into it must still be right.
TEST(RequestReaderFraming, RequestStraddlingTheEndOfTheBufferSurvivesCompaction) {
  ReaderLimits small;
  small.initial_buffer = 256;
  std::string first = "GET /first HTTP/1.1\r\nHost: a\r\nX-Fill: " + std::string(180, 'f') + "\r\n\r\n";
  std::string second =
      "POST /second?q=1 HTTP/1.1\r\nHost: b\r\nX-Long: " + std::string(120, 's') + "\r\nContent-Length: 4\r\n\r\nbody";
  std::string stream = first + second + first;
  ReaderOutcome whole = feed(stream);
  ASSERT_EQ(whole.requests.size(), 3u);
  for (std::size_t piece : {7, 32, 100, 255, 256, 300}) {
    for (std::size_t cut = first.size() - 5; cut < first.size() + 60; ++cut) {
      std::string_view s(stream);
      ReaderOutcome out = feed_pieces({s.substr(0, cut), s.substr(cut, piece), s.substr(cut + piece)}, small);
      ASSERT_EQ(out, whole) << "cut " << cut << " piece " << piece;
    }
  }
  EXPECT_EQ(whole.requests[1].target, "/second?q=1");
  EXPECT_EQ(whole.requests[1].headers[1], (std::pair<std::string, std::string>{"X-Long", std::string(120, 's')}));
  EXPECT_EQ(whole.requests[1].body, "body");
}

TEST(RequestReaderFraming, BufferGrowsForALargeRequestAndStillServesPipelinedOnes) {
  std::string big = "POST /big HTTP/1.1\r\nHost: a\r\nContent-Length: 50000\r\n\r\n" + std::string(50'000, 'b');
  ReaderOutcome out = feed(kGet + big + kGet, 1000);
  ASSERT_EQ(out.requests.size(), 3u);
  EXPECT_EQ(out.requests[1].body, std::string(50'000, 'b'));
  EXPECT_EQ(out.requests[2].path, "/v1/orders");
}

}  // namespace
}  // namespace storeapi::http
