// Changes made with the admin tool reach every core's key cache at once (LISTEN/NOTIFY):
// a revoked key, a plan downgrade or upgrade and a new rate limit apply to the very next
// request, with no sleep, on connections served by both cores; a key created after its
// hash was cached as unknown works at once.
#include "auth/auth_fixture.hpp"

#include <chrono>

#include "admin/admin_cli.hpp"
#include "admin/base/confirmations.hpp"
#include "common/crypto.hpp"
#include "support/metrics_scrape.hpp"

namespace storeapi::testing {
namespace {

using Invalidation = AuthTest;

// SO_REUSEPORT spreads connections over the two cores by a hash of the client port: with
// 16 of them, all land on one core with probability 2^-15.
constexpr int kConnections = 16;

TEST_F(Invalidation, RevocationIsRefusedOnTheVeryNextRequestOnEveryCore) {
  auto store = db_.create_store();
  auto key = create_key(store.id);
  auto other = create_key(store.id);
  auto connections = warm_on_every_core(key.key, kConnections);
  auto invalidations = [&] {
    return metric_value(scrape_metrics(server().metrics_port()), "storeapi_key_cache_invalidations_total");
  };
  const double invalidations_before = invalidations();

  admin({"key", "revoke", "--key", key.id});
  for (auto& c : connections) {
    expect_error(c.get("/v1/store", bearer(key.key)), 401, "authentication_error", "revoked_api_key");
    // Only that key: the store's other key is untouched.
    EXPECT_EQ(c.get("/v1/store", bearer(other.key)).status, 200);
  }
  EXPECT_EQ(invalidations() - invalidations_before, 2) << "one per core";
}

TEST_F(Invalidation, PlanDowngradeRefusesAtOnceAndUpgradeServesAtOnce) {
  auto store = db_.create_store("advanced");
  auto key = create_key(store.id);
  auto connections = warm_on_every_core(key.key, kConnections);

  admin({"store", "set-plan", "--store", store.id, "--plan", "free"});
  for (auto& c : connections) {
    HttpResponse r = c.get("/v1/store", bearer(key.key));
    expect_error(r, 403, "permission_error", "plan_required");
    expect_no_rate_headers(r);
  }

  admin({"store", "set-plan", "--store", store.id, "--plan", "pro"});
  for (auto& c : connections) {
    HttpResponse r = c.get("/v1/store", bearer(key.key));
    EXPECT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find(R"("plan":"pro")"), std::string::npos) << r.body;
    expect_rate_headers(r, 60);
  }
}

TEST_F(Invalidation, NewRateLimitAppliesAtOnce) {
  auto store = db_.create_store("advanced");
  auto key = create_key(store.id);
  auto connections = warm_on_every_core(key.key, kConnections);
  for (auto& c : connections) expect_rate_headers(c.get("/v1/store", bearer(key.key)), 300);

  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "1000"});
  for (auto& c : connections) expect_rate_headers(c.get("/v1/store", bearer(key.key)), 1000);

  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "default"});
  for (auto& c : connections) expect_rate_headers(c.get("/v1/store", bearer(key.key)), 300);
}

// The admin tool never lets anyone choose a key, so the key whose hash is first cached as
// unknown is inserted here the way `key create` does it: the row and NOTIFY key:<hash> in
// one transaction, then waiting for the servers' confirmations.
TEST_F(Invalidation, KeyCreatedAfterItsHashWasCachedAsUnknownWorksAtOnce) {
  auto store = db_.create_store();
  const std::string key = "sk_live_" + crypto::random_alnum(32);
  auto connections = warm_on_every_core(db_.create_key(store.id).key, kConnections);
  for (auto& c : connections)
    expect_error(c.get("/v1/store", bearer(key)), 401, "authentication_error", "invalid_api_key");

  {
    auto conn = db_.connect();
    admin::ServerConfirmations confirmations(*conn);
    pqxx::work work(*conn);
    std::string hash = crypto::sha256_hex(key);
    work.exec_params(
        "insert into api_keys (store_id, name, key_hash, prefix, access, scopes, created_by)"
        " select $1, 'late key', $2, $3, 'read', '{orders:read}',"
        "   (select id from staff_members where store_id = $1 and is_owner)",
        store.id, hash, key.substr(0, 12));
    work.exec_params("select pg_notify(api.config('invalidate_channel'), 'key:' || $1)", hash);
    work.commit();
    EXPECT_EQ(confirmations.wait(), 0u);
  }
  for (auto& c : connections) {
    HttpResponse r = c.get("/v1/store", bearer(key));
    EXPECT_EQ(r.status, 200) << r.body;
  }
}

// A server whose confirmation never comes (here a bare session that listens like one) does
// not make the admin tool hang or fail: it waits its 2 s, says so, and succeeds.
TEST_F(Invalidation, AdminWarnsAboutAServerThatDoesNotConfirm) {
  auto store = db_.create_store();
  auto silent = db_.connect();
  pqxx::nontransaction(*silent).exec("set application_name = 'storeapi'");
  pqxx::nontransaction(*silent).exec("LISTEN storeapi_invalidate");

  auto started = std::chrono::steady_clock::now();
  CliResult r = run_admin({"store", "set-plan", "--store", store.id, "--plan", "pro"}, db_.url());
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(R"("plan":"pro")"), std::string::npos) << r.out;
  EXPECT_EQ(r.err,
            "storeapi-admin: warning: 1 server confirmation(s) missing after 2 s; the change reaches those servers "
            "within 60 s\n");
  // The real server confirmed and applied it.
  expect_rate_headers(get("/v1/store", bearer(db_.create_key(store.id).key)), 60);
}

}  // namespace
}  // namespace storeapi::testing
