// The open-loop generator's pure pieces: the histogram's percentiles and .hgrm file, the
// schedule of intended send times, request rendering and response framing.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "generator.hpp"
#include "histogram.hpp"
#include "request_template.hpp"
#include "response_reader.hpp"

namespace storeapi::bench {
namespace {

TEST(LatencyHistogram, ValuesBeyondTheTopKeepAnExactMaximum) {
  LatencyHistogram h;
  const std::uint64_t huge = std::uint64_t{1} << 50;
  h.record(huge);
  EXPECT_EQ(h.max(), huge);
  EXPECT_EQ(h.percentile(100), huge);
}

TEST(LatencyHistogram, PercentilesOfAUniformDistribution) {
  LatencyHistogram h;
  for (std::uint64_t us = 1; us <= 10000; ++us) h.record(us * 1000);
  EXPECT_EQ(h.count(), 10000u);
  for (double p : {50.0, 90.0, 99.0, 99.9, 99.99}) {
    const double expected = p / 100 * 10000 * 1000;
    EXPECT_GE(static_cast<double>(h.percentile(p)), expected) << p;
    EXPECT_LE(static_cast<double>(h.percentile(p)), expected * (1 + 1.0 / 128)) << p;
  }
  EXPECT_EQ(h.percentile(100), 10'000'000u);
  EXPECT_EQ(h.min(), 1000u);
  EXPECT_NEAR(h.mean(), 5'000'500.0, 1.0);
  EXPECT_NEAR(h.stddev(), 2'886'751.3, 100.0);
}

TEST(LatencyHistogram, MergingEqualsRecordingIntoOne) {
  LatencyHistogram a, b, both;
  for (std::uint64_t v = 1; v < 100000; v += 7) (v % 2 ? a : b).record(v), both.record(v);
  a.merge(b);
  EXPECT_EQ(a.count(), both.count());
  EXPECT_EQ(a.max(), both.max());
  EXPECT_EQ(a.min(), both.min());
  for (double p : {1.0, 50.0, 99.0, 99.99}) EXPECT_EQ(a.percentile(p), both.percentile(p));
}

TEST(LatencyHistogram, HgrmListsTheCumulativeDistributionInMicroseconds) {
  LatencyHistogram h;
  h.record(100);    // 0.1 µs
  h.record(100);
  h.record(3000);   // 3 µs
  h.record(5000);   // 5 µs
  std::ostringstream out;
  h.write_hgrm(out);
  EXPECT_EQ(out.str(),
            "       Value     Percentile TotalCount 1/(1-Percentile)\n\n"
            "       0.100 0.500000000000          2           2.00\n"
            "       3.007 0.750000000000          3           4.00\n"
            "       5.000 1.000000000000          4\n"
            "#[Mean    =        2.050, StdDeviation   =        2.074]\n"
            "#[Max     =        5.000, Total count    =            4]\n");
}

TEST(Schedule, ConnectionsTakeTurnsAtTheRate) {
  LoadPlan plan;
  plan.rate = 1000;  // one request per ms over all connections
  plan.connections = 4;
  EXPECT_EQ(intended_offset(plan, 0, 0).count(), 0);
  EXPECT_EQ(intended_offset(plan, 3, 0).count(), 3'000'000);
  EXPECT_EQ(intended_offset(plan, 0, 1).count(), 4'000'000);  // each connection every 4 ms
  EXPECT_EQ(intended_offset(plan, 2, 250).count(), 1'002'000'000);
}

TEST(RequestTemplate, AGetWithHeaders) {
  RequestTemplate t("GET", {"/v1/store"}, "127.0.0.1:8080", {"Authorization: Bearer k"}, "");
  std::string out;
  t.render(7, out);
  EXPECT_EQ(out, "GET /v1/store HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer k\r\n\r\n");
}

TEST(RequestTemplate, TheNumberFillsEveryPlaceholderAndTheTargetsTakeTurns) {
  RequestTemplate t("POST", {"/a/{n}", "/b"}, "h", {"Idempotency-Key: run-{n}"}, "{\"q\":{n}}");
  std::string out;
  t.render(12, out);
  EXPECT_EQ(out, "POST /a/12 HTTP/1.1\r\nHost: h\r\nIdempotency-Key: run-12\r\nContent-Length: 8\r\n\r\n{\"q\":12}");
  t.render(3, out);
  EXPECT_EQ(out, "POST /b HTTP/1.1\r\nHost: h\r\nIdempotency-Key: run-3\r\nContent-Length: 7\r\n\r\n{\"q\":3}");
}

TEST(ResponseReader, FramesResponsesSplitAnywhereAndOneAfterAnother) {
  ResponseReader r;
  const std::string first = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
  for (std::size_t i = 0; i + 1 < first.size(); ++i)
    ASSERT_EQ(r.feed(first.data() + i, 1), ResponseReader::Progress::need_more) << i;
  ASSERT_EQ(r.feed(first.data() + first.size() - 1, 1), ResponseReader::Progress::complete);
  EXPECT_EQ(r.status(), 200);

  const std::string chunked = "HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
  ASSERT_EQ(r.feed(chunked.data(), chunked.size()), ResponseReader::Progress::complete);
  EXPECT_EQ(r.status(), 404);
}

TEST(ResponseReader, GarbageIsMalformed) {
  ResponseReader r;
  const std::string garbage = "SPDY/9 what\r\n\r\n";
  EXPECT_EQ(r.feed(garbage.data(), garbage.size()), ResponseReader::Progress::malformed);
}

}  // namespace
}  // namespace storeapi::bench
