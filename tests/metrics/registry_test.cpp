#include "metrics/registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace storeapi::metrics {
namespace {

// Runs fn on a thread bound as core `core` (kNoCore: an unbound thread).
template <class Fn>
void on_core(unsigned core, Fn fn) {
  std::thread t([&] {
    bind_this_thread(core);
    fn();
  });
  t.join();
}

TEST(Registry, ExposesCountersWithHelpTypeAndLabels) {
  Registry r(2);
  auto& requests = r.counter("app_requests_total", "Requests answered.", {"method", "status"});
  requests.with({"GET", "200"}).inc(3);
  requests.with({"POST", "201"}).inc();
  EXPECT_EQ(r.expose(),
            "# HELP app_requests_total Requests answered.\n"
            "# TYPE app_requests_total counter\n"
            "app_requests_total{method=\"GET\",status=\"200\"} 3\n"
            "app_requests_total{method=\"POST\",status=\"201\"} 1\n");
}

TEST(Registry, SumsTheCoresAndTheSharedBlock) {
  Registry r(3);
  Counter& c = r.counter("c_total", "c").with({});
  on_core(0, [&] { c.inc(5); });
  on_core(2, [&] { c.inc(7); });
  on_core(kNoCore, [&] { c.inc(1); });
  on_core(9, [&] { c.inc(2); });  // past the registry's cores: the shared block
  EXPECT_EQ(c.value(), 15u);
}

TEST(Registry, ConcurrentUnboundThreadsLoseNothing) {
  Registry r(1);
  Counter& c = r.counter("c_total", "c").with({});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 10000; ++i) c.inc();
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(c.value(), 40000u);
}

TEST(Registry, OneWriterPerCoreWhileAScrapeReads) {
  Registry r(2);
  Counter& c = r.counter("c_total", "c").with({});
  std::vector<std::thread> cores;
  for (unsigned core = 0; core < 2; ++core)
    cores.emplace_back([&, core] {
      bind_this_thread(core);
      for (int i = 0; i < 100000; ++i) c.inc();
    });
  std::uint64_t last = 0;
  for (int i = 0; i < 100; ++i) {
    std::uint64_t now = c.value();
    EXPECT_GE(now, last);  // each core's count only grows
    last = now;
  }
  for (auto& t : cores) t.join();
  EXPECT_EQ(c.value(), 200000u);
}

TEST(Registry, GaugesGoDownAcrossCores) {
  Registry r(2);
  Gauge& g = r.gauge("open", "open").with({});
  on_core(0, [&] { g.add(3); });
  on_core(1, [&] { g.dec(); });  // a core may close what another counted
  EXPECT_EQ(g.value(), 2);
  EXPECT_NE(r.expose().find("\nopen 2\n"), std::string::npos);
}

TEST(Registry, HistogramBucketsAreCumulativeWithLeInclusive) {
  Registry r(1);
  const double bounds[] = {0.25, 1};
  Histogram& h = r.histogram("d_seconds", "d", {"route"}, bounds).with({"/v1/store"});
  on_core(0, [&] {
    h.observe(0.125);
    h.observe(0.25);  // on the bound: counts in le="0.25"
    h.observe(0.5);
    h.observe(3);
  });
  EXPECT_EQ(h.count(), 4u);
  EXPECT_DOUBLE_EQ(h.sum(), 3.875);
  EXPECT_EQ(r.expose(),
            "# HELP d_seconds d\n"
            "# TYPE d_seconds histogram\n"
            "d_seconds_bucket{route=\"/v1/store\",le=\"0.25\"} 2\n"
            "d_seconds_bucket{route=\"/v1/store\",le=\"1\"} 3\n"
            "d_seconds_bucket{route=\"/v1/store\",le=\"+Inf\"} 4\n"
            "d_seconds_sum{route=\"/v1/store\"} 3.875\n"
            "d_seconds_count{route=\"/v1/store\"} 4\n");
}

TEST(Registry, UnlabelledHistogramHasOnlyLe) {
  Registry r(0);
  const double bounds[] = {1};
  r.histogram("h", "h", {}, bounds).with({}).observe(2);
  EXPECT_NE(r.expose().find("h_bucket{le=\"+Inf\"} 1\nh_sum 2\nh_count 1\n"), std::string::npos);
}

TEST(Registry, LatencyBucketsSpan50MicrosecondsTo10Seconds) {
  auto b = latency_buckets();
  EXPECT_DOUBLE_EQ(b.front(), 0.00005);
  EXPECT_DOUBLE_EQ(b.back(), 10);
  EXPECT_TRUE(std::is_sorted(b.begin(), b.end()));
}

TEST(Registry, EscapesLabelValuesAndHelp) {
  Registry r(0);
  r.counter("e_total", "line\\one\ntwo", {"v"}).with({"a\"b\\c\nd"}).inc();
  EXPECT_EQ(r.expose(),
            "# HELP e_total line\\\\one\\ntwo\n"
            "# TYPE e_total counter\n"
            "e_total{v=\"a\\\"b\\\\c\\nd\"} 1\n");
}

TEST(Registry, SameNameGivesTheSameFamilyAndSeries) {
  Registry r(0);
  auto& a = r.counter("x_total", "x", {"k"});
  auto& b = r.counter("x_total", "x", {"k"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(&a.with({"1"}), &b.with({"1"}));
  EXPECT_THROW(r.gauge("x_total", "x", {"k"}), std::logic_error);
  EXPECT_THROW(r.counter("x_total", "x", {"other"}), std::logic_error);
}

TEST(Registry, ComputedValuesAreReadWhenScraped) {
  Registry r(0);
  double v = 1;
  r.computed("rss_bytes", "rss", Kind::gauge, [&] { return v; });
  v = 42.5;
  EXPECT_EQ(r.expose(), "# HELP rss_bytes rss\n# TYPE rss_bytes gauge\nrss_bytes 42.5\n");
}

}  // namespace
}  // namespace storeapi::metrics
