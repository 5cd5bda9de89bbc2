#include "metrics/scrape_server.hpp"

#include <gtest/gtest.h>

#include "metrics/process_metrics.hpp"
#include "support/http_client.hpp"

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

}  // namespace
}  // namespace storeapi::metrics
