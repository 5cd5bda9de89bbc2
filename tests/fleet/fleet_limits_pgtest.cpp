// Two nodes sharing one database and one Redis: the per-store rate limit is one bucket
// whichever node answers (also with Redis on TLS); a revoked key is refused by both; a cursor issued by one node
// pages on the other (the fleet's cursor secret, no STOREAPI_SECRET); without Redis each
// node falls back to its own limit (logged once per outage) and returns to the shared one
// when Redis is back; a bad STOREAPI_REDIS_URL stops the start.
#include <simdjson.h>

#include <chrono>

#include "fleet/fleet_fixture.hpp"
#include "support/poll.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

class Fleet : public FleetTest {
 protected:
  explicit Fleet(bool redis_tls = false) : FleetTest("", redis_tls) {}
  void expect_one_bucket(ServerProcess& first, ServerProcess& second);
};

// The same fleet with Redis on TLS only.
class FleetOverTls : public Fleet {
 protected:
  FleetOverTls() : Fleet(true) {}
};

std::string next_cursor(const HttpResponse& page) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string_view cursor;
  if (parser.parse(simdjson::padded_string(page.body)).get(doc) != simdjson::SUCCESS ||
      doc["next_cursor"].get(cursor) != simdjson::SUCCESS)
    return "";
  return std::string(cursor);
}

// 120 requests of a Pro store (60 a minute), alternating between nodes `first` and
// `second`: exactly the 60 of the full bucket pass (plus a refill per second the loop
// took), counted down by one bucket, and each node both serves and refuses.
void Fleet::expect_one_bucket(ServerProcess& first, ServerProcess& second) {
  auto store = db_.create_store("pro");
  auto key = create_key(store.id);
  HttpClient a(first.port(), kReplyTimeout), b(second.port(), kReplyTimeout);
  int ok = 0, refused = 0, ok_on_b = 0, refused_on_b = 0;
  long last_remaining = 60;
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 120; ++i) {
    const bool on_b = i % 2 == 1;
    HttpResponse r = (on_b ? b : a).get("/v1/store", bearer(key.key));
    expect_rate_headers(r, 60);
    if (r.status == 200) {
      ++ok;
      ok_on_b += on_b;
      // One bucket: each answer, from either node, leaves one less (refills aside).
      EXPECT_LE(header_number(r, "RateLimit-Remaining"), last_remaining);
      last_remaining = header_number(r, "RateLimit-Remaining");
    } else {
      expect_error(r, 429, "rate_limit_error", "rate_limited");
      EXPECT_GE(header_number(r, "Retry-After"), 1);
      ++refused;
      refused_on_b += on_b;
    }
  }
  // Exactly the 60 of the full bucket, plus one per second the loop took (a slow machine).
  const int refill = static_cast<int>((std::chrono::steady_clock::now() - started) / std::chrono::seconds(1));
  EXPECT_GE(ok, 60);
  EXPECT_LE(ok, 60 + refill);
  EXPECT_EQ(ok + refused, 120);
  EXPECT_GT(ok_on_b, 0);
  EXPECT_GT(refused_on_b, 0);
}

TEST_F(Fleet, RateLimitIsOneBucketWhicheverNodeAnswers) { expect_one_bucket(node_a(), node_b()); }
TEST_F(FleetOverTls, RateLimitIsOneBucketWhicheverNodeAnswers) { expect_one_bucket(node_a(), node_b()); }

// A node on Redis's host may reach it through its socket file; it shares the bucket of the
// nodes that reach the same Redis over TCP.
TEST_F(Fleet, ANodeThroughTheSocketFileSharesTheBucket) {
  auto node_c = start_node(0, {{"STOREAPI_REDIS_URL", redis_.socket_url()}});
  expect_one_bucket(node_a(), *node_c);
  EXPECT_EQ(occurrences(node_c->stderr_text(), "unreachable"), 0u) << node_c->stderr_text();
}

// Clients that hang up while their request waits for its Redis call: each request still
// counts once in the shared bucket (the request finishes, its answer is dropped), no reply
// resumes a request that is gone, and the node goes on serving the store exactly.
TEST_F(Fleet, ClientsThatHangUpMidRequestStillCountAndTheNodeServesOn) {
  auto store = db_.create_store("pro");  // 60 a minute: one request's share is 1 s
  auto key = create_key(store.id);
  constexpr int kGone = 20;
  for (int i = 0; i < kGone; ++i) {
    HttpClient c(i % 2 ? node_b().port() : node_a().port(), kReplyTimeout);
    ASSERT_TRUE(c.send("GET", "/v1/store", bearer(key.key)));
  }  // each closed at once, before its answer
  // How many seconds ahead of Redis's clock the store's bucket is: one per request counted.
  const std::string ahead =
      "EVAL \"local t = redis.call('TIME') return math.floor(((tonumber(redis.call('GET', KEYS[1])) or 0)"
      " - (t[1] * 1000000 + t[2])) / 1000000)\" 1 storeapi:{" + store.id + "}:rate";
  EXPECT_TRUE(eventually([&] {
    const std::string seconds = redis_.command(ahead);
    return seconds.size() > 1 && std::stol(seconds.substr(1)) >= kGone - 2;  // refills aside
  })) << redis_.command(ahead);
  HttpClient a(node_a().port(), kReplyTimeout);
  HttpResponse r = a.get("/v1/store", bearer(key.key));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_LE(header_number(r, "RateLimit-Remaining"), 60 - kGone - 1 + 2);
  EXPECT_EQ(node_a().stderr_text().find("fatal"), std::string::npos) << node_a().stderr_text();
  EXPECT_EQ(node_b().stderr_text().find("fatal"), std::string::npos) << node_b().stderr_text();
}

// The same headers a single node's limiter gives (auth/rate_limiter.cpp), whichever node
// answers: at 2 a minute one request's share is 30 s.
TEST_F(Fleet, HeadersAreTheSingleNodeLimitersWhicheverNodeAnswers) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "2"});
  auto key = create_key(store.id);
  // A slow machine may take a few seconds between two requests: the counts go down by that.
  auto expect_seconds = [](const HttpResponse& r, const char* header, long full) {
    EXPECT_LE(header_number(r, header), full) << header;
    EXPECT_GE(header_number(r, header), full - 5) << header;
  };
  HttpResponse first = get_on(node_a(), "/v1/store", bearer(key.key));
  EXPECT_EQ(first.status, 200);
  EXPECT_EQ(header_number(first, "RateLimit-Limit"), 2);
  EXPECT_EQ(header_number(first, "RateLimit-Remaining"), 1);
  expect_seconds(first, "RateLimit-Reset", 30);
  HttpResponse second = get_on(node_b(), "/v1/store", bearer(key.key));
  EXPECT_EQ(second.status, 200);
  EXPECT_EQ(header_number(second, "RateLimit-Remaining"), 0);
  expect_seconds(second, "RateLimit-Reset", 60);
  HttpResponse refused = get_on(node_a(), "/v1/store", bearer(key.key));
  expect_error(refused, 429, "rate_limit_error", "rate_limited");
  EXPECT_EQ(header_number(refused, "RateLimit-Remaining"), 0);
  expect_seconds(refused, "RateLimit-Reset", 60);
  expect_seconds(refused, "Retry-After", 30);
}

TEST_F(Fleet, RevokedKeyIsRefusedByBothNodesOnTheNextRequest) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  ASSERT_EQ(get_on(node_a(), "/v1/store", bearer(key.key)).status, 200);
  ASSERT_EQ(get_on(node_b(), "/v1/store", bearer(key.key)).status, 200);
  admin({"key", "revoke", "--key", key.id});
  expect_error(get_on(node_a(), "/v1/store", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
  expect_error(get_on(node_b(), "/v1/store", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
}

// The ids of a page's records, comma-separated.
std::string page_ids(const HttpResponse& page) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  std::string ids;
  if (parser.parse(simdjson::padded_string(page.body)).get(doc) != simdjson::SUCCESS) return "not JSON";
  for (simdjson::dom::element record : doc["data"].get_array()) {
    std::string_view id;
    if (record["id"].get(id) != simdjson::SUCCESS) return "a record without an id";
    if (!ids.empty()) ids += ',';
    ids += id;
  }
  return ids;
}

// Each page is exactly the next two orders of the database's sequence (newest first): a
// node that ignored the other's cursor and sent page 1 again fails.
TEST_F(Fleet, CursorFromOneNodePagesOnTheOther) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  admin({"seed", "--store", store.id, "--orders", "6", "--products", "3", "--customers", "3", "--bookings", "2"});
  auto pair_of_orders = [&](int offset) {
    return query_value("select string_agg(id::text, ',' order by created_at desc, id desc) from (select id, created_at"
                       " from orders where store_id = '" + store.id + "' order by created_at desc, id desc"
                       " offset " + std::to_string(offset) + " limit 2) page");
  };
  HttpResponse first = get_on(node_a(), "/v1/orders?limit=2", bearer(key.key));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(page_ids(first), pair_of_orders(0));
  const std::string cursor = next_cursor(first);
  ASSERT_FALSE(cursor.empty()) << first.body;
  HttpResponse second = get_on(node_b(), "/v1/orders?limit=2&cursor=" + cursor, bearer(key.key));
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_EQ(page_ids(second), pair_of_orders(2));
  const std::string cursor_b = next_cursor(second);
  ASSERT_FALSE(cursor_b.empty()) << second.body;
  HttpResponse third = get_on(node_a(), "/v1/orders?limit=2&cursor=" + cursor_b, bearer(key.key));
  ASSERT_EQ(third.status, 200) << third.body;
  EXPECT_EQ(page_ids(third), pair_of_orders(4));
}

TEST_F(Fleet, WithoutRedisEachNodeKeepsItsOwnLimitAndLogsTheOutageOnce) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "20"});
  auto key = create_key(store.id);
  redis_.kill();
  // Every request is answered, by the node's own bucket: 20 each, then 429.
  for (ServerProcess* node : {&node_a(), &node_b()}) {
    HttpClient c(node->port(), kReplyTimeout);
    int ok = 0;
    for (int i = 0; i < 40; ++i) {
      HttpResponse r = c.get("/v1/store", bearer(key.key));
      ASSERT_TRUE(r.status == 200 || r.status == 429) << r.status << " " << r.body;
      expect_rate_headers(r, 20);
      ok += r.status == 200;
    }
    EXPECT_GE(ok, 20);
    EXPECT_LE(ok, 23);  // the refill of a slow loop (one every 3 s)
  }
  EXPECT_TRUE(eventually([&] { return occurrences(node_a().stderr_text(), "unreachable") == 1; }))
      << node_a().stderr_text();

  // Back: the shared bucket again (a fresh one: this Redis kept nothing).
  redis_.start();
  // A reconnect is tried at least every 2 s (redis::ClientOptions::backoff_max), each with a
  // 200 ms connect and reply timeout that a loaded machine can miss several times over:
  // the wait is generous, as it only bounds a failure.
  EXPECT_TRUE(eventually([&] { return redis_back_lines(node_a().stderr_text()) == 1; }, std::chrono::seconds(90)))
      << node_a().stderr_text();
  EXPECT_TRUE(eventually([&] { return redis_back_lines(node_b().stderr_text()) == 1; }, std::chrono::seconds(90)))
      << node_b().stderr_text();
  // Both cores of both nodes reconnect on their own backoff; then the shared bucket counts.
  EXPECT_TRUE(eventually([&] {
    get_on(node_a(), "/v1/store", bearer(key.key));
    return redis_.command("EXISTS storeapi:{" + store.id + "}:rate") == ":1";
  }));
  EXPECT_EQ(occurrences(node_a().stderr_text(), "unreachable"), 1u) << node_a().stderr_text();
}

TEST_F(Fleet, AFrozenRedisDelaysRequestsOnlyUntilItsTimeoutThenTheNodeLimitsAlone) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  redis_.freeze();
  // Answered (not hung for the client's 30 s): the overdue reply counts as an outage. The
  // core that reports outages sees it once a request of its own waited (fresh connections
  // land on either core).
  EXPECT_TRUE(eventually([&] {
    HttpResponse r = get_on(node_a(), "/v1/store", bearer(key.key));
    EXPECT_EQ(r.status, 200);
    expect_rate_headers(r, 300);
    return occurrences(node_a().stderr_text(), "unreachable (no reply within") == 1;
  })) << node_a().stderr_text();
  redis_.thaw();
  EXPECT_TRUE(eventually([&] { return redis_back_lines(node_a().stderr_text()) == 1; }))
      << node_a().stderr_text();
}

TEST_F(Fleet, AFlushedScriptIsSentAgain) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "2"});  // one per 30 s
  auto key = create_key(store.id);
  ASSERT_EQ(header_number(get_on(node_a(), "/v1/store", bearer(key.key)), "RateLimit-Remaining"), 1);
  ASSERT_EQ(redis_.command("SCRIPT FLUSH"), "+OK");
  HttpResponse r = get_on(node_a(), "/v1/store", bearer(key.key));
  EXPECT_EQ(r.status, 200);
  // The second of the shared bucket's two (the node's own, unused, would still have 1).
  EXPECT_EQ(header_number(r, "RateLimit-Remaining"), 0);
  expect_error(get_on(node_b(), "/v1/store", bearer(key.key)), 429, "rate_limit_error", "rate_limited");
  EXPECT_EQ(occurrences(node_a().stderr_text(), "unreachable"), 0u) << node_a().stderr_text();
}

TEST_F(Fleet, ABadOrUnreachableRedisSettingStopsTheStart) {
  auto start_with = [&](const std::string& url) {
    ProcessOptions options;
    options.env = {{"STOREAPI_DATABASE_URL", api_url(db_)}, {"STOREAPI_REDIS_URL", url}};
    options.wait_for_listening = false;
    auto node = std::make_unique<ServerProcess>(options);
    auto status = node->wait_exit(std::chrono::seconds(30));
    return std::make_pair(status, node->stderr_text());
  };
  auto [malformed, malformed_log] = start_with("http://127.0.0.1:6379");
  EXPECT_EQ(malformed, 2);
  EXPECT_NE(malformed_log.find("STOREAPI_REDIS_URL"), std::string::npos) << malformed_log;
  redis_.kill();
  for (const std::string& url : {redis_.url(), redis_.socket_url()}) {
    auto [unreachable, unreachable_log] = start_with(url);
    EXPECT_EQ(unreachable, 1) << url;
    EXPECT_NE(unreachable_log.find("STOREAPI_REDIS_URL"), std::string::npos) << unreachable_log;
    // ECONNREFUSED from the port, ENOENT from the socket file kill() removed.
    EXPECT_TRUE(unreachable_log.find("refused") != std::string::npos ||
                unreachable_log.find("No such file") != std::string::npos)
        << unreachable_log;
  }
}

}  // namespace
}  // namespace storeapi::testing
