// RequestReader: connection semantics (keep-alive by version), Expect: 100-continue,
// header values as the application sees them.
#include <gtest/gtest.h>

#include <string>

#include "reader_driver.hpp"

namespace storeapi::http {
namespace {

using testing::feed;
using testing::ReaderOutcome;

bool keep_alive_of(const std::string& request) {
  ReaderOutcome out = feed(request);
  EXPECT_EQ(out.requests.size(), 1u) << request;
  return !out.requests.empty() && out.requests[0].keep_alive;
}

TEST(RequestReaderSemantics, Http11KeepsAliveUnlessClosed) {
  EXPECT_TRUE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\n\r\n"));
  EXPECT_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"));
  EXPECT_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: CLOSE\r\n\r\n"));
  EXPECT_TRUE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n"));
}

TEST(RequestReaderSemantics, Http10ClosesUnlessAskedToKeepAlive) {
  ReaderOutcome plain = feed("GET / HTTP/1.0\r\n\r\n");  // no Host needed in 1.0
  ASSERT_EQ(plain.requests.size(), 1u);
  EXPECT_EQ(plain.requests[0].http_minor, 0);
  EXPECT_FALSE(plain.requests[0].keep_alive);
  EXPECT_TRUE(keep_alive_of("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  EXPECT_TRUE(keep_alive_of("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n"));
}

TEST(RequestReaderSemantics, UpgradeRequestsAreAnsweredThenClosed) {
  EXPECT_FALSE(keep_alive_of("GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n"));
}

TEST(RequestReaderSemantics, ExpectContinueIsOfferedOnceWhileTheBodyIsMissing) {
  std::string head = "POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n";
  ReaderOutcome waiting = feed(head);
  EXPECT_TRUE(waiting.requests.empty());
  EXPECT_EQ(waiting.continue_requests, 1);
  EXPECT_TRUE(waiting.mid_request);

  ReaderOutcome later = testing::feed_pieces({head, "he", "llo"});
  EXPECT_EQ(later.continue_requests, 1);  // not repeated for every piece of the body
  ASSERT_EQ(later.requests.size(), 1u);
  EXPECT_EQ(later.requests[0].body, "hello");
}

TEST(RequestReaderSemantics, ExpectContinueIsNotOfferedWhenTheBodyIsAlreadyThere) {
  ReaderOutcome out = feed("POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 5\r\n\r\nhello");
  EXPECT_EQ(out.continue_requests, 0);
  ASSERT_EQ(out.requests.size(), 1u);
}

// RFC 9110 §10.1.1: an HTTP/1.0 client may not understand a 1xx; its Expect is ignored.
TEST(RequestReaderSemantics, Http10ExpectationsAreIgnored) {
  ReaderOutcome out = feed("POST /x HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n");
  EXPECT_FALSE(out.rejection);
  EXPECT_EQ(out.continue_requests, 0);
  EXPECT_TRUE(out.mid_request);
  EXPECT_FALSE(feed("GET / HTTP/1.0\r\nExpect: 200-ok\r\n\r\n").rejection);
}

TEST(RequestReaderSemantics, ExpectContinueWithAnOversizedBodyIsRefusedInstead) {
  ReaderOutcome out = feed("POST /x HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 70000\r\n\r\n");
  EXPECT_EQ(out.rejection, Rejection::payload_too_large);
  EXPECT_EQ(out.continue_requests, 0);
}

TEST(RequestReaderSemantics, HeaderValuesAreTrimmed) {
  ReaderOutcome out = feed("GET / HTTP/1.1\r\nHost:a\r\nX-Both:  \t value with  inner space \t \r\nX-Empty:\r\n"
                           "X-Blank:   \r\nX-Last: z\r\n\r\n");
  ASSERT_EQ(out.requests.size(), 1u);
  EXPECT_EQ(out.requests[0].headers, (decltype(out.requests[0].headers){{"Host", "a"},
                                                                         {"X-Both", "value with  inner space"},
                                                                         {"X-Empty", ""},
                                                                         {"X-Blank", ""},
                                                                         {"X-Last", "z"}}));
}

TEST(RequestReaderSemantics, HeaderLookupIsCaseInsensitive) {
  RequestReader reader;
  std::string bytes = "GET / HTTP/1.1\r\nhOsT: a\r\nX-Api-Key: k\r\n\r\n";
  auto space = reader.recv_space();
  std::copy(bytes.begin(), bytes.end(), space.begin());
  reader.commit(bytes.size());
  Request req;
  ASSERT_EQ(reader.next(req), RequestReader::Result::request);
  EXPECT_EQ(req.header("host"), "a");
  EXPECT_EQ(req.header("x-api-key"), "k");
  bool found = true;
  EXPECT_EQ(req.header("Authorization", &found), "");
  EXPECT_FALSE(found);
}

}  // namespace
}  // namespace storeapi::http
