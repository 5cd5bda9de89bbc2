// The node's set of key hashes against the real server (auth/known_keys.hpp):
//   - an unknown key is refused 401 without touching api_keys: the table is locked
//     exclusively meanwhile, and the server counts no database lookup (without the set the
//     lookup waits on the lock and the answer is 503 after the statement timeout);
//   - a key made by `storeapi-admin key create` works at once on two running servers, and
//     `key revoke` refuses it at once on both (without adding announced hashes to the set,
//     the new key is 401 on both);
//   - after the LISTEN connection is lost and made again, the set is loaded again: a key
//     whose announcement the node never heard works then (without the load on "*" it
//     stays 401).
#include "auth/auth_fixture.hpp"

#include <pqxx/pqxx>

#include "common/crypto.hpp"
#include "support/metrics_scrape.hpp"
#include "support/poll.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

constexpr unsigned kThreads = 2;
constexpr int kConnections = 16;  // spread over both cores by SO_REUSEPORT

double metric(std::uint16_t metrics_port, const std::string& series) {
  return metric_value(scrape_metrics(metrics_port), series);
}

const std::string kMisses = R"(storeapi_key_cache_lookups_total{result="miss"})";
const std::string kAbsent = R"(storeapi_key_cache_lookups_total{result="absent"})";

// Every core of the server on `metrics_port` refuses unknown keys on its own.
bool set_complete(std::uint16_t metrics_port) {
  return eventually([&] { return metric(metrics_port, "storeapi_key_set_complete_cores") == kThreads; });
}

std::string unknown_key() { return "sk_live_" + crypto::random_alnum(32); }

class KnownKeysServer : public AuthTest {
 protected:
  void SetUp() override {
    // A key lookup stuck behind a lock gives up after a second instead of ten.
    start_server(kThreads, 2, {{"STOREAPI_DB_TIMEOUT_MS", "1000"}});
  }
};

TEST_F(KnownKeysServer, UnknownKeyIsRefusedWithoutAQuery) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  ASSERT_TRUE(set_complete(server().metrics_port()));
  auto connections = warm_on_every_core(key.key, kConnections);
  const double misses = metric(server().metrics_port(), kMisses);
  const double absent = metric(server().metrics_port(), kAbsent);

  auto lock = db_.connect();
  pqxx::work locked(*lock);
  locked.exec("lock table api_keys in access exclusive mode");
  for (auto& c : connections)
    expect_error(c.get("/v1/store", bearer(unknown_key())), 401, "authentication_error", "invalid_api_key");
  // A known key still comes from the cache.
  EXPECT_EQ(connections.front().get("/v1/store", bearer(key.key)).status, 200);
  locked.abort();

  EXPECT_EQ(metric(server().metrics_port(), kMisses), misses);
  EXPECT_EQ(metric(server().metrics_port(), kAbsent), absent + kConnections);
}

TEST_F(KnownKeysServer, CreatedKeyWorksAtOnceOnTwoServersAndRevocationRefusesAtOnce) {
  auto store = db_.create_store();
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db_)},
                 {"STOREAPI_THREADS", std::to_string(kThreads)},
                 {"STOREAPI_ACCESS_LOG", "off"}};
  ServerProcess second(options);
  ASSERT_TRUE(every_core_ready(second.port()));
  ASSERT_TRUE(set_complete(server().metrics_port()));
  ASSERT_TRUE(set_complete(second.metrics_port()));
  // The admin tool waits for the servers it sees listening.
  ASSERT_TRUE(eventually([&] {
    return query_value("select count(*) from pg_stat_activity where application_name = 'storeapi'"
                       " and datname = current_database() and query like 'LISTEN %'") == "2";
  }));

  for (int round = 0; round < 3; ++round) {
    auto key = create_key(store.id);  // the real storeapi-admin
    for (std::uint16_t port : {server().port(), second.port()}) {
      for (int i = 0; i < kConnections; ++i) {
        HttpClient c(port, kReplyTimeout);
        HttpResponse r = c.get("/v1/store", bearer(key.key));
        ASSERT_EQ(r.status, 200) << "port " << port << ": " << r.body;
      }
    }
    admin({"key", "revoke", "--key", key.id});
    for (std::uint16_t port : {server().port(), second.port()}) {
      for (int i = 0; i < kConnections; ++i) {
        HttpClient c(port, kReplyTimeout);
        expect_error(c.get("/v1/store", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
      }
    }
  }
}

TEST_F(KnownKeysServer, SetIsLoadedAgainAfterTheListenConnectionComesBack) {
  auto store = db_.create_store();
  ASSERT_TRUE(set_complete(server().metrics_port()));
  const double loads = metric(server().metrics_port(), "storeapi_key_set_loads_total");
  EXPECT_GE(loads, 1);

  // A key committed without its announcement, as if made while the node was not
  // listening: the complete set refuses it without asking the database.
  const std::string missed = unknown_key();
  {
    auto conn = db_.connect();
    pqxx::work work(*conn);
    work.exec_params(
        "insert into api_keys (store_id, name, key_hash, prefix, access, scopes, created_by)"
        " select $1, 'missed', $2, $3, 'read', '{orders:read}',"
        "   (select id from staff_members where store_id = $1 and is_owner)",
        store.id, crypto::sha256_hex(missed), missed.substr(0, 12));
    work.commit();
  }
  expect_error(get("/v1/store", bearer(missed)), 401, "authentication_error", "invalid_api_key");

  query_value(
      "select count(pg_terminate_backend(pid)) from pg_stat_activity where application_name = 'storeapi'"
      " and datname = current_database() and query like 'LISTEN %'");
  ASSERT_TRUE(eventually([&] { return metric(server().metrics_port(), "storeapi_key_set_loads_total") > loads; }))
      << server().stderr_text();
  ASSERT_TRUE(set_complete(server().metrics_port()));
  for (int i = 0; i < kConnections; ++i) EXPECT_EQ(get("/v1/store", bearer(missed)).status, 200);
  // Complete again: an unknown key costs no lookup.
  const double misses = metric(server().metrics_port(), kMisses);
  for (int i = 0; i < kConnections; ++i)
    expect_error(get("/v1/store", bearer(unknown_key())), 401, "authentication_error", "invalid_api_key");
  EXPECT_EQ(metric(server().metrics_port(), kMisses), misses);
}

// Announcements past KeySetCoordinator::kCompactAfter are merged into a new shared array
// (the gauge grows by them; without the merge it stays at the loaded count), and every key
// stays known through the change.
TEST_F(KnownKeysServer, ManyAnnouncedKeysAreMergedIntoTheSharedArray) {
  auto store = db_.create_store();
  ASSERT_TRUE(set_complete(server().metrics_port()));
  const double hashes = metric(server().metrics_port(), "storeapi_key_set_hashes");
  const double invalidations = metric(server().metrics_port(), "storeapi_key_cache_invalidations_total");
  constexpr int kKeys = 1'100;
  std::vector<std::string> keys;
  {
    auto conn = db_.connect();
    pqxx::work work(*conn);
    for (int i = 0; i < kKeys; ++i) {
      keys.push_back(unknown_key());
      const std::string hash = crypto::sha256_hex(keys.back());
      work.exec_params(
          "insert into api_keys (store_id, name, key_hash, prefix, access, scopes, created_by)"
          " select $1, 'many', $2, $3, 'read', '{orders:read}',"
          "   (select id from staff_members where store_id = $1 and is_owner)",
          store.id, hash, keys.back().substr(0, 12));
      work.exec_params("select pg_notify(api.config('invalidate_channel'), 'key:' || $1)", hash);
    }
    work.commit();
  }
  ASSERT_TRUE(eventually([&] {
    return metric(server().metrics_port(), "storeapi_key_cache_invalidations_total") >= invalidations + kKeys * kThreads;
  }));
  EXPECT_EQ(metric(server().metrics_port(), "storeapi_key_set_hashes"), hashes + 1'024);
  for (const std::string& key : {keys.front(), keys[1'023], keys[1'024], keys.back()})
    EXPECT_EQ(get("/v1/store", bearer(key)).status, 200);
  expect_error(get("/v1/store", bearer(unknown_key())), 401, "authentication_error", "invalid_api_key");
}

}  // namespace
}  // namespace storeapi::testing
