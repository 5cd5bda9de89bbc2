// The server's stage timings (metrics/stage_timing.hpp) on /metrics: with
// STOREAPI_STAGE_TIMING=on every stage's series of storeapi_request_stage_seconds counts
// the requests that went through it; off (the default) the family is absent. Either way
// the old GET /debug/stages is gone. Counts only: durations depend on the machine.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "support/http_client.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"
#include "support/readiness.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

constexpr const char* kStages[] = {"read_wait", "parse", "auth", "db_queue", "db_pipeline",
                                   "db",        "render", "send", "total"};

std::unique_ptr<ServerProcess> start_server(const TestDatabase& db, const std::string& stage_timing) {
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db)}, {"STOREAPI_SECRET", "stage-timing-test-secret-of-32-bytes"},
                 {"STOREAPI_ACCESS_LOG", "off"}, {"STOREAPI_THREADS", "2"}};
  if (!stage_timing.empty()) options.env["STOREAPI_STAGE_TIMING"] = stage_timing;
  auto server = std::make_unique<ServerProcess>(options);
  if (!every_core_ready(server->port())) throw std::runtime_error("storeapi did not become ready");
  if (server->metrics_port() == 0) throw std::runtime_error("no metrics listener: " + server->stderr_text());
  return server;
}

// Stage name -> observations counted (-1 when the series is absent).
std::map<std::string, double> stage_counts(const std::string& exposition) {
  std::map<std::string, double> counts;
  for (const char* stage : kStages)
    counts[stage] =
        metric_value(exposition, std::string("storeapi_request_stage_seconds_count{stage=\"") + stage + "\"}");
  return counts;
}

// The old JSON endpoint is gone: with a valid key, no such route (without one, 401 first).
void expect_no_debug_route(std::uint16_t port, const TestKey& key) {
  HttpResponse r = HttpClient(port).request("GET", "/debug/stages", bearer(key.key));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("\"route_not_found\""), std::string::npos) << r.body;
}

TEST(StageTiming, OnEveryStageCountsTheRequestsThroughIt) {
  TestDatabase db;
  const TestStore store = db.create_store();
  const TestKey key = db.create_key(store.id, "read");
  auto server = start_server(db, "on");

  const std::string first = scrape_metrics(server->metrics_port());
  const auto before = stage_counts(first);
  for (const char* stage : kStages) ASSERT_GE(before.at(stage), 0) << stage << " absent:\n" << first;
  EXPECT_EQ(promtool_check_metrics(first), "");

  constexpr double kRequests = 20;
  HttpClient client(server->port());
  for (int i = 0; i < kRequests; ++i) ASSERT_EQ(client.request("GET", "/v1/orders?limit=5", bearer(key.key)).status, 200);

  // send and total are recorded once the kernel took the answer: wait for them.
  std::map<std::string, double> after;
  const bool grew = eventually([&] {
    after = stage_counts(scrape_metrics(server->metrics_port()));
    for (const char* stage : kStages)
      if (after.at(stage) - before.at(stage) < kRequests) return false;
    return true;
  });
  // read_wait, parse, auth, render, send, total: once per request; db_queue, db_pipeline,
  // db: one unit per page (and the key's lookup, the first time).
  for (const char* stage : kStages) EXPECT_GE(after.at(stage) - before.at(stage), kRequests) << stage;
  EXPECT_TRUE(grew);
  expect_no_debug_route(server->port(), key);
}

TEST(StageTiming, OffByDefaultRecordsNothing) {
  TestDatabase db;
  const TestStore store = db.create_store();
  const TestKey key = db.create_key(store.id, "read");
  auto server = start_server(db, "");
  HttpClient client(server->port());
  for (int i = 0; i < 5; ++i) ASSERT_EQ(client.request("GET", "/v1/orders?limit=5", bearer(key.key)).status, 200);
  // The request duration histogram saw them; the stage family does not exist.
  EXPECT_TRUE(eventually([&] {
    return metric_value(scrape_metrics(server->metrics_port()),
                        R"(storeapi_http_request_duration_seconds_count{route="/v1/orders"})") >= 5;
  }));
  const std::string m = scrape_metrics(server->metrics_port());
  EXPECT_EQ(m.find("storeapi_request_stage_seconds"), std::string::npos) << m;
  expect_no_debug_route(server->port(), key);
}

TEST(StageTiming, ASettingOtherThanOnOrOffStopsTheStart) {
  TestDatabase db;
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db)}, {"STOREAPI_STAGE_TIMING", "yes"}};
  options.wait_for_listening = false;
  ServerProcess server(options);
  const auto status = server.wait_exit(std::chrono::seconds(30));
  ASSERT_TRUE(status);
  EXPECT_NE(*status, 0);
  EXPECT_NE(server.stderr_text().find("STOREAPI_STAGE_TIMING: expected on or off, got 'yes'"), std::string::npos)
      << server.stderr_text();
}

}  // namespace
}  // namespace storeapi::testing
