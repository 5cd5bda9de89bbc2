// The authenticator inside a core, against the real database: what it caches when an
// invalidation arrives while its key lookup is still in flight. The lookup may have read
// the row before the change committed, so its answer is good for the request that asked
// but must not be kept: a revocation would otherwise be undone for the cache TTL (60 s),
// a new key refused for the negative TTL.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <vector>

#include "auth/authenticator.hpp"
#include "common/crypto.hpp"
#include "runtime/io.hpp"
#include "support/event_wait.hpp"
#include "support/run_task.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

class AuthenticatorRace : public ::testing::Test {
 protected:
  AuthenticatorRace() : pool_(pool_options(), statements_), authenticator_(pool_, cache_, limiter_) {}

  db::PoolOptions pool_options() {
    db::PoolOptions o;
    o.url = db_.url();
    o.connections = 1;
    return o;
  }

  // Runs `body` inside a core whose pool is connected.
  void in_core(std::function<runtime::task<void>()> body) {
    run_on_reactor([&]() -> runtime::task<void> {
      pool_.start();
      const bool ready = co_await until(pool_.changed(), 10s, [&] { return pool_.ready(); });
      EXPECT_TRUE(ready);
      co_await body();
    });
  }

  // Authenticates `key` and, while its lookup is in flight, delivers `invalidation` (if
  // any) to the cache as the LISTEN fan-out would. Returns the request's own answer.
  runtime::task<auth::AuthStatus> authenticate_racing(std::string key, std::string invalidation) {
    std::string header = "Bearer " + key;
    auth::AuthStatus status = auth::AuthStatus::unavailable;
    Finished done;
    struct Call {
      static runtime::task<void> run(auth::Authenticator& a, std::string_view authorization, auth::AuthStatus& out,
                                     Finished& done) {
        out = (co_await a.authenticate(authorization)).status;
        done.one();
      }
    };
    runtime::spawn(Call::run(authenticator_, header, status, done));
    EXPECT_EQ(done.count(), 0) << "the lookup did not wait for the database";
    if (!invalidation.empty()) cache_.invalidate(invalidation);
    const bool answered = co_await done.reach(1, 30s);
    EXPECT_TRUE(answered);
    co_return status;
  }

  TestDatabase db_;
  std::vector<db::Statement> statements_{auth::kKeyByHash};
  db::Pool pool_;  // outlives the reactor loop: its driver may still be suspended in it
  auth::KeyCache cache_;
  auth::RateLimiter limiter_;
  auth::Authenticator authenticator_;
};

TEST_F(AuthenticatorRace, AKeyLoadedAcrossAnInvalidationIsNotCached) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  const crypto::Sha256 hash = crypto::sha256(key.key);
  in_core([&]() -> runtime::task<void> {
    EXPECT_EQ(co_await authenticate_racing(key.key, "key:" + crypto::hex(hash)), auth::AuthStatus::ok);
    EXPECT_EQ(cache_.find(hash, auth::KeyCache::Clock::now()), nullptr);
  });
}

TEST_F(AuthenticatorRace, AStoreChangeDuringTheLoadAlsoKeepsItOut) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  const crypto::Sha256 hash = crypto::sha256(key.key);
  in_core([&]() -> runtime::task<void> {
    EXPECT_EQ(co_await authenticate_racing(key.key, "store:" + store.id), auth::AuthStatus::ok);
    EXPECT_EQ(cache_.find(hash, auth::KeyCache::Clock::now()), nullptr);
  });
}

TEST_F(AuthenticatorRace, AnUnknownKeyLoadedAcrossAnInvalidationIsNotCachedAsUnknown) {
  const std::string key = "sk_live_" + crypto::random_alnum(32);
  const crypto::Sha256 hash = crypto::sha256(key);
  in_core([&]() -> runtime::task<void> {
    EXPECT_EQ(co_await authenticate_racing(key, "key:" + crypto::hex(hash)), auth::AuthStatus::invalid_api_key);
    EXPECT_FALSE(cache_.known_unknown(hash, auth::KeyCache::Clock::now()));
  });
}

TEST_F(AuthenticatorRace, WithoutAnInvalidationTheLoadIsCached) {
  auto store = db_.create_store();
  auto key = db_.create_key(store.id);
  const std::string unknown = "sk_live_" + crypto::random_alnum(32);
  in_core([&]() -> runtime::task<void> {
    EXPECT_EQ(co_await authenticate_racing(key.key, ""), auth::AuthStatus::ok);
    EXPECT_NE(cache_.find(crypto::sha256(key.key), auth::KeyCache::Clock::now()), nullptr);
    EXPECT_EQ(co_await authenticate_racing(unknown, ""), auth::AuthStatus::invalid_api_key);
    EXPECT_TRUE(cache_.known_unknown(crypto::sha256(unknown), auth::KeyCache::Clock::now()));
  });
}

}  // namespace
}  // namespace storeapi::testing
