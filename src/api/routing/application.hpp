#pragma once
// The Store Commerce API as an http::Handler, one instance per core. It runs docs/DESIGN.md's
// checks in order — authentication, plan, rate limit, route, scope — then the endpoint.
#include <memory>
#include <string>
#include <string_view>

#include <functional>

#include "api/routing/context.hpp"
#include "api/routing/pods.hpp"
#include "api/routing/read_router.hpp"
#include "api/routing/router.hpp"
#include "api/settings.hpp"
#include "auth/authenticator.hpp"
#include "auth/key_cache.hpp"
#include "auth/key_set_coordinator.hpp"
#include "auth/known_keys.hpp"
#include "auth/rate_limiter.hpp"
#include "db/pod_addresses.hpp"
#include "db/pool.hpp"
#include "db/standbys.hpp"
#include "db/write_positions.hpp"
#include "http/handler.hpp"
#include "json/body.hpp"
#include "redis/client.hpp"

namespace storeapi::api {

class Application final : public http::Handler {
 public:
  // `reports_outages`: this core's Redis connection says when Redis goes and comes back
  // (one core per process, so an outage is logged once). `positions`: the process's
  // stores' write positions, used with standbys and without Redis (api/routing/read_router.hpp).
  // `pod_book`: the process's addresses of the pods (api/routing/pods.hpp).
  Application(const Settings& settings, auth::RateLimiter& limiter, db::WritePositions& positions,
              db::PodAddressBook& pod_book, bool reports_outages);

  // On the owning core's thread, inside its reactor: connects the database pool (and
  // reads the fleet's cursor secret unless STOREAPI_SECRET gave one).
  void start();
  // Ready to serve: the database is up and the cursor secret known; false once draining.
  // GET /readyz answers 200 exactly then.
  bool ready() const noexcept;
  // What start-up still waits for on this core, in this order: the database (ready, or
  // found unreachable on the first try: the node then serves 503 until it can, as it does
  // during an outage), Redis's first attempt, the standbys' first polls. The node opens
  // its listeners only once every core awaits nothing.
  enum class Awaiting { nothing, database, redis, standbys };
  Awaiting awaiting() const noexcept;
  // Resumes once what `part` names may have moved on (awaiting() is worth asking again).
  runtime::task<void> progress(Awaiting part);
  // Shutdown's first step: GET /readyz answers 503 from now on, so that a load balancer
  // takes the node out while it still serves everything else.
  void begin_draining() noexcept { draining_ = true; }
  // On one core only: the periodic purge of expired idempotency keys, on every pod.
  void start_idempotency_purge();
  // A NOTIFY payload from storeapi_invalidate (or "*").
  void invalidate(std::string_view payload) {
    keys_.invalidate(payload);
    known_keys_.heard(payload);
  }
  // On one core only (the LISTEN loop's): builds the set of key hashes every core shares
  // from the database, handing each new array to `publish` (which gives it to every
  // core's install_key_set).
  void coordinate_key_set(auth::KeySetCoordinator::Publish publish);
  // On that core, after the payload went to every core's invalidate().
  void key_set_heard(std::string_view payload) {
    if (key_set_coordinator_) key_set_coordinator_->heard(payload);
  }
  void install_key_set(auth::SharedKeyPrefixes shared, bool complete) {
    known_keys_.install(std::move(shared), complete);
  }
  // Tells whoever made the change that every core of this server applied `payload`
  // (called on the core that applied it last), after recording the position of a store
  // changed outside the API (api/routing/read_router.hpp), or reading the pods again
  // (`pod:<name>`, `*`).
  void confirm_invalidation(std::string payload);

  runtime::task<void> handle(const http::Request& req, http::Response& res) override;
  void reject(http::Rejection why, std::string_view request_id, http::Response& res) override;

 private:
  runtime::task<void> handle_v1(const http::Request& req, http::Response& res, const Match& match);
  runtime::task<void> apply_store_change(std::string payload);
  // The routes without a key: /healthz, /readyz and /openapi.json.
  void handle_keyless(const http::Request& req, http::Response& res, const Match& match);

  db::Pool pool_;
  std::unique_ptr<redis::Client> redis_;                // fleet mode only
  std::unique_ptr<auth::FleetBatch> fleet_;             // likewise
  std::unique_ptr<db::Standbys> standbys_;              // with replicas only
  Pods pods_;
  ReadRouter read_router_;
  auth::KeyCache keys_;
  auth::KnownKeys known_keys_;
  std::unique_ptr<auth::KeySetCoordinator> key_set_coordinator_;  // on one core only
  auth::Authenticator authenticator_;
  json::BodyParser body_parser_;
  std::function<void(std::string_view store)> forget_store_;
  std::string cursor_secret_;  // STOREAPI_SECRET, else the fleet's (loaded at start)
  runtime::Event secret_attempted_;  // broadcast after each attempt to load it
  bool draining_ = false;
  Services services_;
};

}  // namespace storeapi::api
