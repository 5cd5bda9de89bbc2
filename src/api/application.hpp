#pragma once
// The Store Commerce API as an http::Handler, one instance per core. It runs DESIGN's
// checks in order — authentication, plan, rate limit, route, scope — then the endpoint.
#include <string_view>

#include "api/context.hpp"
#include "app/config.hpp"
#include "auth/authenticator.hpp"
#include "auth/key_cache.hpp"
#include "auth/rate_limiter.hpp"
#include "db/pool.hpp"
#include "http/handler.hpp"
#include "json/body.hpp"

namespace storeapi::api {

class Application final : public http::Handler {
 public:
  Application(const app::Config& config, auth::RateLimiter& limiter);

  // On the owning core's thread, inside its reactor: connects the database pool.
  void start();
  // On one core only: the periodic purge of expired idempotency keys.
  void start_idempotency_purge();
  // A NOTIFY payload from storeapi_invalidate (or "*").
  void invalidate(std::string_view payload) { keys_.invalidate(payload); }
  // Tells whoever made the change that every core of this server applied `payload`
  // (called on the core that applied it last).
  void confirm_invalidation(std::string payload);

  runtime::task<void> handle(const http::Request& req, http::Response& res) override;
  void reject(http::Rejection why, std::string_view request_id, http::Response& res) override;

 private:
  runtime::task<void> handle_v1(const http::Request& req, http::Response& res, const http::Match& match);
  // The routes without a key: /healthz, /readyz and /openapi.json.
  void handle_keyless(const http::Request& req, http::Response& res, const http::Match& match);

  const app::Config& config_;
  db::Pool pool_;
  auth::KeyCache keys_;
  auth::Authenticator authenticator_;
  json::BodyParser body_parser_;
  DispatcherWake dispatcher_wake_;
  http::Query query_;
  Services services_;
};

}  // namespace storeapi::api
