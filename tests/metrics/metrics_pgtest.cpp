// /metrics and the JSON access log of the real server (two cores): requests counted by
// route template (never a raw id) and status, 429s by plan, database and key-cache
// figures, the exposition accepted by `promtool check metrics`; and one whole JSON line
// per request with the trace id of its traceparent, never the key.
#include <gtest/gtest.h>

#include <simdjson.h>

#include "common/regex.hpp"
#include "auth/auth_fixture.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {
namespace {

using Observability = AuthTest;

std::string scrape(std::uint16_t port) { return scrape_metrics(port); }
double value_of(const std::string& exposition, const std::string& series) { return metric_value(exposition, series); }

// The access-log line (on the server's stdout) of the request `request_id`, once written.
std::string access_line(const ServerProcess& server, const std::string& request_id) {
  std::string line;
  EXPECT_TRUE(eventually([&] {
    const std::string out = server.stdout_text();
    const std::size_t at = out.find(request_id);
    if (at == std::string::npos) return false;
    std::size_t begin = out.rfind('\n', at);
    begin = begin == std::string::npos ? 0 : begin + 1;
    line = out.substr(begin, out.find('\n', at) - begin);
    return true;
  })) << server.stdout_text();
  return line;
}

std::int64_t db_us_of(const std::string& line) {
  simdjson::dom::parser parser;
  std::int64_t v = -1;
  EXPECT_EQ(parser.parse(line)["db_us"].get(v), simdjson::SUCCESS) << line;
  return v;
}

TEST_F(Observability, MetricsCountRequestsByRouteTemplateAndThrottlingByPlan) {
  auto store = db_.create_store("pro");
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "3"});
  TestKey key = create_key(store.id, "read");
  ASSERT_NE(server().metrics_port(), 0) << server().stderr_text();

  int ok = 0, throttled = 0;
  for (int i = 0; i < 5; ++i) {
    int status = get("/v1/store", bearer(key.key)).status;
    ok += status == 200;
    throttled += status == 429;
  }
  ASSERT_EQ(ok + throttled, 5);
  ASSERT_GE(throttled, 1);
  const std::string raw_id = "0b6f2c9e-5d1a-4c3b-8e7f-9a0b1c2d3e4f";
  get("/v1/orders/" + raw_id, bearer(key.key));  // 404 or 429: either way one request on the template
  get("/nowhere", bearer(key.key));

  std::string m = scrape(server().metrics_port());
  EXPECT_EQ(value_of(m, R"(storeapi_http_requests_total{method="GET",route="/v1/store",status="200"})"), ok) << m;
  EXPECT_EQ(value_of(m, R"(storeapi_http_requests_total{method="GET",route="/v1/store",status="429"})"), throttled);
  EXPECT_GE(value_of(m, R"(storeapi_rate_limited_requests_total{plan="pro"})"), throttled);
  EXPECT_NE(m.find(R"(route="/v1/orders/{id}")"), std::string::npos);
  EXPECT_NE(m.find(R"(route="unmatched")"), std::string::npos);
  EXPECT_EQ(m.find(raw_id), std::string::npos) << "a raw id became a label";
  EXPECT_EQ(m.find("/nowhere"), std::string::npos) << "a raw path became a label";
  EXPECT_GE(value_of(m, R"(storeapi_http_request_duration_seconds_count{route="/v1/store"})"), 5);
  EXPECT_GE(value_of(m, R"(storeapi_key_cache_lookups_total{result="hit"})"), 1);
  EXPECT_GE(value_of(m, R"(storeapi_key_cache_lookups_total{result="miss"})"), 1);
  EXPECT_EQ(value_of(m, R"(storeapi_db_connections_up{core="0"})"), 2);
  EXPECT_EQ(value_of(m, R"(storeapi_db_connections_up{core="1"})"), 2);
  EXPECT_GE(value_of(m, "storeapi_http_connections_accepted_total"), 7);
  EXPECT_EQ(value_of(m, "storeapi_http_requests_in_flight"), 0);
  EXPECT_EQ(value_of(m, "storeapi_io_uring_cq_overflows_total"), 0);
  // Set as the LISTEN is confirmed, just after pg_stat_activity (wait_connected) shows it.
  EXPECT_TRUE(eventually([&] {
    return value_of(scrape(server().metrics_port()), "storeapi_invalidations_listening") == 1;
  }));
  EXPECT_GT(value_of(m, "process_resident_memory_bytes"), 0);
  EXPECT_GT(value_of(m, "process_open_fds"), 0);
  EXPECT_GT(value_of(m, "process_cpu_seconds_total"), 0);
  EXPECT_GT(value_of(m, "process_start_time_seconds"), 1.7e9);  // since 2023: a Unix time, not uptime
  EXPECT_NE(m.find("storeapi_build_info{version=\""), std::string::npos);
  EXPECT_EQ(promtool_check_metrics(m), "");
}

TEST_F(Observability, RejectionsAreCountedByReason) {
  HttpClient c = connect();
  c.send_raw("GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n");
  auto reply = c.read_response();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 400);
  EXPECT_TRUE(eventually([&] {
    return value_of(scrape(server().metrics_port()), R"(storeapi_http_rejections_total{reason="bad_request"})") == 1;
  }));
}

TEST_F(Observability, JsonAccessLogLineCarriesTraceRouteStoreAndKeyPrefixOnly) {
  start_server(2, 2, {{"STOREAPI_ACCESS_LOG", "json"}});
  auto store = db_.create_store();
  TestKey key = create_key(store.id, "read");
  const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  HttpResponse r = get("/v1/orders/0b6f2c9e-5d1a-4c3b-8e7f-9a0b1c2d3e4f",
                       {{"Authorization", "Bearer " + key.key},
                        {"traceparent", "00-" + trace + "-00f067aa0ba902b7-01"}});
  std::string line = access_line(server(), r.header("request-id").value_or("?"));
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  ASSERT_EQ(parser.parse(line).get(doc), simdjson::SUCCESS) << line;
  EXPECT_EQ(std::string_view(doc["trace_id"]), trace);
  EXPECT_EQ(std::string_view(doc["route"]), "/v1/orders/{id}");
  EXPECT_EQ(std::string_view(doc["method"]), "GET");
  EXPECT_EQ(int64_t(doc["status"]), r.status);
  EXPECT_EQ(std::string_view(doc["store_id"]), store.id);
  EXPECT_EQ(std::string_view(doc["key_prefix"]), key.key.substr(0, 12));
  EXPECT_TRUE(std::string_view(doc["client"]).starts_with("127.0.0.1:"));
  EXPECT_EQ(server().stdout_text().find(key.key), std::string::npos) << "the key was logged";
  // A new key: its lookup and the order's read both went to the database.
  EXPECT_GT(int64_t(doc["db_us"]), 0) << line;
  EXPECT_LE(int64_t(doc["db_us"]), int64_t(doc["total_us"])) << line;

  // Without a traceparent (or with a malformed one) the request gets a new trace id.
  HttpResponse fresh = get("/healthz", {{"traceparent", "garbage"}});
  std::string fresh_line = access_line(server(), fresh.header("request-id").value_or("?"));
  EXPECT_TRUE(std::regex_search(fresh_line, std::regex(R"("trace_id":"[0-9a-f]{32}")"))) << fresh_line;
  EXPECT_EQ(fresh_line.find("garbage"), std::string::npos);
  EXPECT_NE(fresh_line.find(R"("db_us":0,)"), std::string::npos) << "no database unit: " << fresh_line;
}

TEST_F(Observability, AccessLogDatabaseTimeIsTheRequestsOwnUnits) {
  start_server(1, 2, {{"STOREAPI_ACCESS_LOG", "json"}});  // one core: one key cache
  auto store = db_.create_store();
  TestKey key = create_key(store.id, "read");
  auto db_us = [&](const std::string& path) {
    HttpResponse r = get(path, bearer(key.key));
    return db_us_of(access_line(server(), r.header("request-id").value_or("?")));
  };
  // GET /v1/store answers from the key cache: its only unit is the first lookup of the key.
  EXPECT_GT(db_us("/v1/store"), 0);
  EXPECT_EQ(db_us("/v1/store"), 0);
  // A read with a warm key: its own unit.
  EXPECT_GT(db_us("/v1/orders/0b6f2c9e-5d1a-4c3b-8e7f-9a0b1c2d3e4f"), 0);
  EXPECT_GT(db_us("/v1/products"), 0);
}

// /metrics asked on the API port: a 404 that says where metrics are, with no key needed
// (it used to be 401 missing_api_key, as if metrics needed a key).
TEST_F(Observability, MetricsOnTheApiPortIsNotFoundWithAHint) {
  for (const Headers& headers : {Headers{}, bearer("sk_live_" + std::string(32, 'x'))}) {
    auto r = get("/metrics", headers);
    EXPECT_EQ(r.status, 404) << r.body;
    EXPECT_NE(r.body.find(R"("code":"route_not_found")"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find("STOREAPI_METRICS_LISTEN"), std::string::npos) << r.body;
    EXPECT_NE(r.body.find(R"("request_id":")" + r.header("request-id").value_or("?") + '"'), std::string::npos) << r.body;
  }
}

// Each core says on /metrics whether its thread is pinned to its CPU (here, where nothing
// forbids it: all of them; tests/unit_syscalls_pgtest.sh shows 0 and the log line when
// sched_setaffinity is refused).
TEST_F(Observability, EachCoreReportsWhetherItIsPinned) {
  const std::string exposition = scrape(server().metrics_port());
  EXPECT_EQ(value_of(exposition, R"(storeapi_core_pinned{core="0"})"), 1) << exposition;
  EXPECT_EQ(value_of(exposition, R"(storeapi_core_pinned{core="1"})"), 1) << exposition;
  EXPECT_EQ(server().stderr_text().find("runs unpinned"), std::string::npos) << server().stderr_text();
}

}  // namespace
}  // namespace storeapi::testing
