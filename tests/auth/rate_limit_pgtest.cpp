// The per-store rate limit (docs/DESIGN.md §2) against the real server with two cores: exact
// across cores, connections and keys of one store; a 429 carries rate_limited, Retry-After
// and the RateLimit headers and consumes nothing; unauthenticated requests are not
// counted; two stores have two buckets; RateLimit-Reset counts the seconds until full.
#include <chrono>
#include <mutex>
#include <utility>

#include "auth/auth_fixture.hpp"
#include "support/poll.hpp"
#include "support/run_together.hpp"

namespace storeapi::testing {
namespace {

using RateLimit = AuthTest;

struct Burst {
  std::vector<HttpResponse> replies;
  std::chrono::steady_clock::duration elapsed{};
};

// Sends `total` GET /v1/store at once over `connections` connections (one thread each,
// all released together), cycling through `keys`.
Burst fire(std::uint16_t port, const std::vector<std::string>& keys, int total, int connections) {
  std::vector<HttpClient> conns;
  for (int i = 0; i < connections; ++i) conns.emplace_back(port, kReplyTimeout);
  Burst out;
  std::mutex mutex;
  out.elapsed = run_together(connections, [&](int t) {
    for (int i = t; i < total; i += connections) {
      HttpResponse r = conns[static_cast<std::size_t>(t)].get("/v1/store", bearer(keys[static_cast<std::size_t>(i) % keys.size()]));
      std::lock_guard lock(mutex);
      out.replies.push_back(std::move(r));
    }
  });
  return out;
}

int count_status(const Burst& b, int status) {
  int n = 0;
  for (const auto& r : b.replies) n += r.status == status;
  return n;
}

TEST_F(RateLimit, ExactAcrossCoresConnectionsAndKeysOfOneStore) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "30"});
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) keys.push_back(create_key(store.id).key);

  Burst b = fire(server().port(), keys, 100, 10);
  ASSERT_EQ(b.replies.size(), 100u);
  // 30 per minute is one request every 2 s: a burst shorter than that gets exactly the
  // 30 of the full bucket; a slower one (a very busy machine) may get one more per 2 s.
  const int refill = static_cast<int>(b.elapsed / std::chrono::seconds(2));
  EXPECT_GE(count_status(b, 200), 30);
  EXPECT_LE(count_status(b, 200), 30 + refill);
  EXPECT_EQ(count_status(b, 200) + count_status(b, 429), 100);
  for (const HttpResponse& r : b.replies) {
    expect_rate_headers(r, 30);
    if (r.status == 429) {
      expect_error(r, 429, "rate_limit_error", "rate_limited");
      EXPECT_GE(header_number(r, "Retry-After"), 1);
      EXPECT_EQ(header_number(r, "RateLimit-Remaining"), 0);
    } else {
      EXPECT_FALSE(r.has_header("Retry-After"));
    }
  }
}

TEST_F(RateLimit, RefusedRequestsConsumeNothing) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "60"});  // one per second
  auto key = create_key(store.id).key;
  auto c = connect();
  int ok = 0;
  while (c.get("/v1/store", bearer(key)).status == 200) ++ok;
  EXPECT_GE(ok, 60);
  // Many refusals: if each cost a token, the bucket would owe 200 s. Only the steady
  // refill (one a second) gets through meanwhile.
  auto start = std::chrono::steady_clock::now();
  int refused = 0;
  for (int i = 0; i < 200; ++i) refused += c.get("/v1/store", bearer(key)).status == 429;
  const int refilled = static_cast<int>((std::chrono::steady_clock::now() - start) / std::chrono::seconds(1)) + 1;
  EXPECT_GE(refused, 200 - refilled);
  // So the next token is about a second away, not minutes.
  EXPECT_TRUE(eventually([&] { return c.get("/v1/store", bearer(key)).status == 200; }, std::chrono::seconds(10),
                         std::chrono::milliseconds(100)));
}

TEST_F(RateLimit, ResetIsTheSecondsUntilTheBucketIsFullAgain) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "6"});  // one token per 10 s
  auto key = create_key(store.id).key;
  auto c = connect();
  const auto start = std::chrono::steady_clock::now();
  for (long spent = 1; spent <= 6; ++spent) {
    HttpResponse r = c.get("/v1/store", bearer(key));
    ASSERT_EQ(r.status, 200) << spent;
    EXPECT_EQ(header_number(r, "RateLimit-Remaining"), 6 - spent);
    // `spent` tokens owed, 10 s each, less what refilled meanwhile (whole seconds up).
    const long elapsed = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - start).count();
    const long reset = header_number(r, "RateLimit-Reset");
    EXPECT_LE(reset, spent * 10) << spent;
    EXPECT_GE(reset, spent * 10 - elapsed - 1) << spent;
  }
  HttpResponse refused = c.get("/v1/store", bearer(key));
  ASSERT_EQ(refused.status, 429);
  EXPECT_EQ(header_number(refused, "RateLimit-Remaining"), 0);
  EXPECT_LE(header_number(refused, "RateLimit-Reset"), 60);
  EXPECT_GE(header_number(refused, "RateLimit-Reset"), 50);
  // The next token is at most 10 s away.
  EXPECT_GE(header_number(refused, "Retry-After"), 1);
  EXPECT_LE(header_number(refused, "Retry-After"), 10);
}

TEST_F(RateLimit, UnauthenticatedRequestsAreNotCounted) {
  auto store = db_.create_store();
  admin({"store", "set-rate-limit", "--store", store.id, "--rpm", "5"});
  auto revoked = create_key(store.id);
  auto key = create_key(store.id).key;
  admin({"key", "revoke", "--key", revoked.id});
  auto c = connect();
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(c.get("/v1/store", bearer(revoked.key)).status, 401);
    EXPECT_EQ(c.get("/v1/store").status, 401);
    EXPECT_EQ(c.get("/v1/store", bearer("sk_live_nope")).status, 401);
  }
  for (int i = 0; i < 5; ++i) {
    HttpResponse r = c.get("/v1/store", bearer(key));
    EXPECT_EQ(r.status, 200) << i;
    EXPECT_EQ(header_number(r, "RateLimit-Remaining"), 4 - i);
  }
  EXPECT_EQ(c.get("/v1/store", bearer(key)).status, 429);
}

TEST_F(RateLimit, TwoStoresDoNotShareABucket) {
  auto first = db_.create_store();
  auto second = db_.create_store();
  admin({"store", "set-rate-limit", "--store", first.id, "--rpm", "5"});
  admin({"store", "set-rate-limit", "--store", second.id, "--rpm", "5"});
  auto first_key = create_key(first.id).key;
  auto second_key = create_key(second.id).key;
  Burst b = fire(server().port(), {first_key}, 20, 4);
  EXPECT_EQ(count_status(b, 200), 5);
  Burst other = fire(server().port(), {second_key}, 20, 4);
  EXPECT_EQ(count_status(other, 200), 5);
}

// Enforced, not only announced: a burst past the plan's rate is refused beyond it. A
// burst slower than a second may get the plan's steady refill on top (one per 60/rpm s).
TEST_F(RateLimit, PlanRatesApplyWithoutAnOverride) {
  for (auto [plan, rpm] : {std::pair{"pro", 60}, std::pair{"advanced", 300}}) {
    auto store = db_.create_store(plan);
    const std::string key = create_key(store.id).key;
    const auto start = std::chrono::steady_clock::now();
    expect_rate_headers(get("/v1/store", bearer(key)), rpm);
    Burst b = fire(server().port(), {key}, rpm + 40, 4);
    const int refill = static_cast<int>((std::chrono::steady_clock::now() - start) * rpm / std::chrono::minutes(1));
    EXPECT_GE(count_status(b, 200), rpm - 1) << plan;  // the request above took one
    EXPECT_LE(count_status(b, 200), rpm - 1 + refill) << plan;
    EXPECT_EQ(count_status(b, 200) + count_status(b, 429), rpm + 40) << plan;
  }
}

}  // namespace
}  // namespace storeapi::testing
