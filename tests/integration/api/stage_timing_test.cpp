// The server's stage timings (common/stage_timing.hpp) through GET /debug/stages: with
// STOREAPI_STAGE_TIMING=on every stage counts the requests that went through it; off (the
// default) the route does not exist. Counts only: durations depend on the machine.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <map>
#include <memory>
#include <string>

#include "support/http_client.hpp"
#include "support/readiness.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {
namespace {

std::unique_ptr<ServerProcess> start_server(const TestDatabase& db, const std::string& stage_timing) {
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", db.url()}, {"STOREAPI_SECRET", "stage-timing-test"},
                 {"STOREAPI_ACCESS_LOG", "off"}, {"STOREAPI_THREADS", "2"}};
  if (!stage_timing.empty()) options.env["STOREAPI_STAGE_TIMING"] = stage_timing;
  auto server = std::make_unique<ServerProcess>(options);
  if (!every_core_ready(server->port())) throw std::runtime_error("storeapi did not become ready");
  return server;
}

// Stage name -> requests counted, from GET /debug/stages; checks the buckets ascend.
std::map<std::string, std::uint64_t> stage_counts(std::uint16_t port) {
  HttpResponse r = HttpClient(port).request("GET", "/debug/stages");
  EXPECT_EQ(r.status, 200) << r.body;
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.parse(r.body);
  std::map<std::string, std::uint64_t> counts;
  for (auto [stage, buckets] : simdjson::dom::object(doc["stages"])) {
    std::uint64_t total = 0, previous = 0;
    for (simdjson::dom::element bucket : simdjson::dom::array(buckets)) {
      const auto highest = std::uint64_t(bucket.at(0));
      EXPECT_TRUE(total == 0 || highest > previous) << stage;
      previous = highest;
      total += std::uint64_t(bucket.at(1));
    }
    counts[std::string(stage)] = total;
  }
  return counts;
}

TEST(StageTiming, OnEveryStageCountsTheRequestsThroughIt) {
  TestDatabase db;
  const TestStore store = db.create_store();
  const TestKey key = db.create_key(store.id, "read");
  auto server = start_server(db, "on");

  const auto before = stage_counts(server->port());
  constexpr std::uint64_t kRequests = 20;
  HttpClient client(server->port());
  for (std::uint64_t i = 0; i < kRequests; ++i)
    ASSERT_EQ(client.request("GET", "/v1/orders?limit=5", bearer(key.key)).status, 200);
  const auto after = stage_counts(server->port());

  for (const char* stage : {"read_wait", "parse", "auth", "render", "send", "total"})
    EXPECT_GE(after.at(stage) - before.at(stage), kRequests) << stage;
  // One unit per page (and the key's lookup, the first time), each queued, in line and answered.
  EXPECT_GE(after.at("db") - before.at("db"), kRequests);
  EXPECT_GE(after.at("db_queue") - before.at("db_queue"), kRequests);
  EXPECT_GE(after.at("db_pipeline") - before.at("db_pipeline"), kRequests);
  EXPECT_EQ(after.size(), 9u);
}

TEST(StageTiming, OffByDefaultAndThenNoSuchRoute) {
  TestDatabase db;
  auto server = start_server(db, "");
  HttpResponse r = HttpClient(server->port()).request("GET", "/debug/stages");
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("\"route_not_found\""), std::string::npos) << r.body;
}

TEST(StageTiming, ASettingOtherThanOnOrOffStopsTheStart) {
  TestDatabase db;
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", db.url()}, {"STOREAPI_STAGE_TIMING", "yes"}};
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
