// RequestReader refuses malformed and ambiguous requests with 400 (bad_request): every
// leniency here is a request-smuggling door (docs/PITFALLS.md).
#include <gtest/gtest.h>

#include <string>

#include "reader_driver.hpp"

namespace storeapi::http {
namespace {

using testing::feed;
using testing::ReaderOutcome;

void expect_bad_request(const std::string& bytes) {
  ReaderOutcome out = feed(bytes);
  EXPECT_EQ(out.rejection, Rejection::bad_request) << bytes;
  EXPECT_TRUE(out.requests.empty()) << bytes;
  // However the bytes arrive, the verdict is the same.
  EXPECT_EQ(feed(bytes, 1).rejection, Rejection::bad_request) << bytes;
}

TEST(RequestReaderRejects, ContentLengthWithTransferEncoding) {
  expect_bad_request(
      "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  expect_bad_request(
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
}

TEST(RequestReaderRejects, TwoContentLengths) {
  expect_bad_request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!");
  expect_bad_request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello");
  expect_bad_request("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\nhello");
}

TEST(RequestReaderRejects, MalformedContentLength) {
  for (const char* value : {"+5", "-1", "5 5", "0x5", "five", ""})
    expect_bad_request(std::string("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: ") + value + "\r\n\r\nhello");
}

TEST(RequestReaderRejects, TransferEncodingOtherThanChunked) {
  for (const char* value : {"chunked, identity", "identity", "gzip", "gzip, chunked", "chunked, chunked", "chunkedx"})
    expect_bad_request(std::string("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: ") + value +
                       "\r\n\r\n5\r\nhello\r\n0\r\n\r\n");
  expect_bad_request(
      "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n0\r\n\r\n");
}

TEST(RequestReaderRejects, BadChunkFraming) {
  const std::string head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n";
  expect_bad_request(head + "zz\r\nhello\r\n0\r\n\r\n");                   // size not hex
  expect_bad_request(head + "ffffffffffffffffff\r\nhello\r\n0\r\n\r\n");   // size overflows
  expect_bad_request(head + "5\r\nhelloXX0\r\n\r\n");                      // data longer than its size
  expect_bad_request(head + "5\nhello\r\n0\r\n\r\n");                      // bare LF after the size
  expect_bad_request(head + "5 ;ext\r\nhello\r\n0\r\n\r\n");               // space before an extension
}

TEST(RequestReaderRejects, BareLineFeeds) {
  expect_bad_request("GET / HTTP/1.1\nHost: a\n\n");
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\n\r\n");
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n");
}

// RFC 9112 §5.2: obs-fold must be refused (or replaced), never passed on with CR LF inside
// a value, where it could be echoed into a response header.
TEST(RequestReaderRejects, ObsoleteLineFolding) {
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n two\r\n\r\n");
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX-Folded: one\r\n\ttwo\r\n\r\n");
}

TEST(RequestReaderRejects, WhitespaceBeforeTheColon) {
  expect_bad_request("GET / HTTP/1.1\r\nHost : a\r\n\r\n");
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX-A\t: b\r\n\r\n");
}

TEST(RequestReaderRejects, InvalidHeaderCharacters) {
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX\x01Y: b\r\n\r\n");   // control in a name
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX(Y): b\r\n\r\n");     // separator in a name
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX: a\x01" "b\r\n\r\n");  // control in a value
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nX: a\x7f" "b\r\n\r\n");  // DEL in a value
  const char nul[] = "GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n";
  expect_bad_request(std::string(nul, sizeof nul - 1));  // NUL in a value
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\n: empty-name\r\n\r\n");
}

TEST(RequestReaderRejects, InvalidMethod) {
  expect_bad_request("FOO / HTTP/1.1\r\nHost: a\r\n\r\n");
  expect_bad_request("get / HTTP/1.1\r\nHost: a\r\n\r\n");
  expect_bad_request("GE T / HTTP/1.1\r\nHost: a\r\n\r\n");
}

TEST(RequestReaderRejects, MalformedRequestLine) {
  expect_bad_request("GET /a b HTTP/1.1\r\nHost: a\r\n\r\n");
  expect_bad_request("GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n");
  expect_bad_request("GET / HTTX/1.1\r\nHost: a\r\n\r\n");
}

TEST(RequestReaderRejects, HttpVersionsOtherThan1x) {
  expect_bad_request("GET / HTTP/2.0\r\nHost: a\r\n\r\n");
  expect_bad_request("GET / HTTP/0.9\r\n\r\n");
  expect_bad_request("GET /\r\n\r\n");  // an HTTP/0.9 simple request
  expect_bad_request("GET / HTTP/1.2\r\nHost: a\r\n\r\n");
}

TEST(RequestReaderRejects, Http11WithoutHostOrWithTwo) {
  expect_bad_request("GET / HTTP/1.1\r\n\r\n");
  expect_bad_request("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
}

TEST(RequestReaderRejects, UnknownExpectation) {
  expect_bad_request("POST / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\nx");
}

TEST(RequestReaderRejects, GarbageBytes) {
  expect_bad_request("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03");  // a TLS ClientHello
  expect_bad_request("\xff\xfe\xfd garbage\r\n\r\n");
}

TEST(RequestReaderRejects, GoodRequestFollowedByGarbageStillYieldsTheGoodOne) {
  ReaderOutcome out = feed("GET /ok HTTP/1.1\r\nHost: a\r\n\r\n\x01\x02junk\r\n\r\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].path, "/ok");
  EXPECT_EQ(out.rejection, Rejection::bad_request);
}

}  // namespace
}  // namespace storeapi::http
