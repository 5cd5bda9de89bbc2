// RequestReader limits: request line + headers <= 16 KiB (431 beyond), body <= 64 KiB
// (413 beyond), whether the body is sized by Content-Length or by chunks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "reader_driver.hpp"

namespace storeapi::http {
namespace {

using testing::feed;
using testing::ReaderOutcome;

constexpr std::size_t kHeaderLimit = 16 * 1024;
constexpr std::size_t kBodyLimit = 64 * 1024;

// A GET whose request line and headers, final blank line included, are `size` bytes.
std::string get_with_header_block_of(std::size_t size, std::string_view extra_headers = "") {
  std::string head = "GET / HTTP/1.1\r\nHost: a\r\n" + std::string(extra_headers) + "X-Pad: ";
  std::string tail = "\r\n\r\n";
  return head + std::string(size - head.size() - tail.size(), 'p') + tail;
}

std::string post_with_length(std::size_t n) {
  return "POST /b HTTP/1.1\r\nHost: a\r\nContent-Length: " + std::to_string(n) + "\r\n\r\n" + std::string(n, 'x');
}

std::string post_chunked(std::size_t n, std::size_t chunk = 1024) {
  std::string out = "POST /b HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (std::size_t sent = 0; sent < n; sent += chunk) {
    std::size_t len = std::min(chunk, n - sent);
    char size[16];
    std::snprintf(size, sizeof size, "%zx\r\n", len);
    out += size + std::string(len, 'x') + "\r\n";
  }
  return out + "0\r\n\r\n";
}

TEST(RequestReaderLimits, HeaderBlockOfExactly16KiBIsAccepted) {
  std::string req = get_with_header_block_of(kHeaderLimit);
  ASSERT_EQ(req.size(), kHeaderLimit);
  for (std::size_t piece : {std::string::npos, std::size_t{1000}, std::size_t{4096}}) {
    ReaderOutcome out = feed(req, piece);
    EXPECT_FALSE(out.rejection) << "piece " << piece;
    EXPECT_EQ(out.requests.size(), 1u);
  }
}

TEST(RequestReaderLimits, HeaderBlockOneByteOverIsTooLarge) {
  std::string req = get_with_header_block_of(kHeaderLimit + 1);
  for (std::size_t piece : {std::string::npos, std::size_t{1000}, std::size_t{4096}}) {
    ReaderOutcome out = feed(req, piece);
    EXPECT_EQ(out.rejection, Rejection::headers_too_large) << "piece " << piece;
    EXPECT_TRUE(out.requests.empty());
  }
}

TEST(RequestReaderLimits, HeadersAreRefusedBeforeTheyEnd) {
  // Endless headers never complete: the reader must stop once the limit is crossed.
  std::string endless = "GET / HTTP/1.1\r\nHost: a\r\n";
  while (endless.size() < 3 * kHeaderLimit) endless += "X-Many: header\r\n";
  EXPECT_EQ(feed(endless, 512).rejection, Rejection::headers_too_large);
}

TEST(RequestReaderLimits, OverlongRequestLineIsTooLarge) {
  std::string req = "GET /" + std::string(kHeaderLimit, 'u') + " HTTP/1.1\r\nHost: a\r\n\r\n";
  EXPECT_EQ(feed(req).rejection, Rejection::headers_too_large);
}

TEST(RequestReaderLimits, HeaderLimitAppliesToEachPipelinedRequest) {
  std::string req = get_with_header_block_of(kHeaderLimit);
  ReaderOutcome out = feed(req + req + req, 5000);
  EXPECT_FALSE(out.rejection);
  EXPECT_EQ(out.requests.size(), 3u);
}

TEST(RequestReaderLimits, ContentLengthOfExactly64KiBIsAccepted) {
  ReaderOutcome out = feed(post_with_length(kBodyLimit), 8192);
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].body.size(), kBodyLimit);
}

TEST(RequestReaderLimits, ContentLengthOneByteOverIsRefusedBeforeTheBody) {
  std::string req = post_with_length(kBodyLimit + 1);
  std::string head_only = req.substr(0, req.find("\r\n\r\n") + 4);
  EXPECT_EQ(feed(head_only).rejection, Rejection::payload_too_large);
  EXPECT_EQ(feed(req).rejection, Rejection::payload_too_large);
}

TEST(RequestReaderLimits, HugeContentLengthIsTooLarge) {
  EXPECT_EQ(feed("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999\r\n\r\n").rejection,
            Rejection::payload_too_large);
}

TEST(RequestReaderLimits, ChunkedBodyOfExactly64KiBIsAccepted) {
  for (std::size_t chunk : {std::size_t{100}, std::size_t{1024}, kBodyLimit}) {
    ReaderOutcome out = feed(post_chunked(kBodyLimit, chunk), 8192);
    ASSERT_FALSE(out.rejection) << "chunk " << chunk;
    ASSERT_EQ(out.requests.size(), 1u);
    EXPECT_EQ(out.requests[0].body, std::string(kBodyLimit, 'x'));
  }
}

TEST(RequestReaderLimits, ChunkedBodyOneByteOverIsTooLarge) {
  for (std::size_t chunk : {std::size_t{100}, std::size_t{1024}, kBodyLimit + 1}) {
    ReaderOutcome out = feed(post_chunked(kBodyLimit + 1, chunk), 8192);
    EXPECT_EQ(out.rejection, Rejection::payload_too_large) << "chunk " << chunk;
    EXPECT_TRUE(out.requests.empty());
  }
}

// Body bytes are copied out as they are parsed, so a maximal body in small chunks must
// not be refused because of its chunk framing.
TEST(RequestReaderLimits, ChunkedBodyOf64KiBInTinyChunksIsAccepted) {
  ReaderOutcome out = feed(post_chunked(kBodyLimit, 16), 8192);
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].body.size(), kBodyLimit);
}

TEST(RequestReaderLimits, MaximalHeadersWithMaximalBodyAreAccepted) {
  std::string body(kBodyLimit, 'y');
  std::string head = get_with_header_block_of(kHeaderLimit, "Content-Length: 65536\r\n");
  head.replace(0, 3, "PUT");
  ReaderOutcome out = feed(head + body + head + body, 10'000);
  ASSERT_FALSE(out.rejection);
  ASSERT_EQ(out.requests.size(), 2u);
  EXPECT_EQ(out.requests[1].body, body);
}

TEST(RequestReaderLimits, LimitsAreConfigurable) {
  ReaderLimits tight;
  tight.max_header_bytes = 100;
  tight.max_body_bytes = 10;
  tight.initial_buffer = 64;
  EXPECT_EQ(feed(get_with_header_block_of(101), std::string::npos, tight).rejection, Rejection::headers_too_large);
  EXPECT_FALSE(feed(get_with_header_block_of(100), std::string::npos, tight).rejection);
  EXPECT_EQ(feed(post_with_length(11), std::string::npos, tight).rejection, Rejection::payload_too_large);
  EXPECT_FALSE(feed(post_with_length(10), std::string::npos, tight).rejection);
}

}  // namespace
}  // namespace storeapi::http
