#include "api/routing/application.hpp"

#include <cstdio>

#include "api/lists/cursor_secret.hpp"
#include "api/routing/endpoints.hpp"
#include "api/writes/idempotency.hpp"
#include "api/openapi_document.hpp"
#include "api/statements.hpp"
#include "auth/api_key.hpp"
#include "auth/invalidation.hpp"
#include "common/build_version.hpp"
#include "metrics/stage_timing.hpp"

#include "runtime/spawn.hpp"

namespace storeapi::api {
namespace {

// Invalidation payloads about placement (docs/DECISIONS.md, "Pods").
constexpr std::string_view kStorePrefix = "store:";
constexpr std::string_view kPodPrefix = "pod:";

db::PoolOptions pool_options(const Settings& settings) {
  db::PoolOptions o;
  o.url = settings.database_url;
  o.connections = settings.db_conns_per_thread;
  o.statement_timeout = settings.db_timeout;
  o.connect_timeout = settings.db_connect_timeout;
  o.tcp_user_timeout = settings.tcp_user_timeout;
  o.silence = settings.db_silence;
  return o;
}

auth::KeyCacheOptions key_cache_options(const Settings& settings) {
  auth::KeyCacheOptions o;
  o.max_entries = settings.key_cache_size;
  return o;
}

// The scripts of the core's Redis connection, by index.
enum RedisScript : std::size_t { fleet_batch };

std::unique_ptr<redis::Client> redis_client(const Settings& settings, bool reports_outages) {
  if (!settings.redis) return nullptr;
  return std::make_unique<redis::Client>(redis::ClientOptions{
      .endpoint = *settings.redis,
      .scripts = {auth::kFleetBatchScript},
      .timeout = settings.redis_timeout,
      .tcp_user_timeout = settings.tcp_user_timeout,
      .report_outages = reports_outages,
  });
}

std::unique_ptr<db::Standbys> standbys(const Settings& settings) {
  if (settings.replica_urls.empty()) return nullptr;
  return std::make_unique<db::Standbys>(
      db::StandbyOptions{.urls = settings.replica_urls, .poll = settings.replica_poll, .pool = pool_options(settings)},
      statements());
}

// The Authorization header, nullopt when the request has none.
std::optional<std::string_view> authorization(const http::Request& req) {
  bool present = false;
  std::string_view value = req.header("authorization", &present);
  return present ? std::optional(value) : std::nullopt;
}

std::optional<ErrorCode> auth_error(auth::AuthStatus status) {
  switch (status) {
    case auth::AuthStatus::ok: return std::nullopt;
    case auth::AuthStatus::missing_api_key: return ErrorCode::missing_api_key;
    case auth::AuthStatus::invalid_api_key: return ErrorCode::invalid_api_key;
    case auth::AuthStatus::revoked_api_key: return ErrorCode::revoked_api_key;
    case auth::AuthStatus::expired_api_key: return ErrorCode::expired_api_key;
    case auth::AuthStatus::plan_required: return ErrorCode::plan_required;
    case auth::AuthStatus::rate_limited: return ErrorCode::rate_limited;
    case auth::AuthStatus::unavailable: return ErrorCode::service_unavailable;
  }
  return ErrorCode::internal_error;
}

void add_rate_headers(http::Response& res, const auth::RateDecision& rate) {
  res.add_header("RateLimit-Limit", rate.limit);
  res.add_header("RateLimit-Remaining", rate.remaining);
  res.add_header("RateLimit-Reset", rate.reset_s);
  res.keep_headers();  // docs/DESIGN.md: on every answer to an authenticated request, a 500 too
  if (!rate.allowed) res.add_header("Retry-After", rate.retry_after_s);
}

// `res` takes the answer of the error whose envelope its body holds: the code's status, its
// name for the access log, and Retry-After where the code calls for one (503).
void answer_error(http::Response& res, const ErrorInfo& info) {
  res.status = info.status;
  res.notes.error_code = info.name;
  if (info.code == ErrorCode::service_unavailable) res.add_header("Retry-After", std::int64_t{1});
}

// The liveness answer names the release the node runs, so that an operator (and the
// rolling upgrade) sees which nodes run which version (docs/DEPLOY.md, "Upgrading").
const std::string& healthz_body() {
  static const std::string body = R"({"status":"ok","version":")" + std::string(build::version()) + "\"}";
  return body;
}

}  // namespace

void fail(http::Response& res, std::string_view request_id, ErrorCode code, std::optional<std::string_view> param,
          std::string_view message) {
  res.body.clear();
  answer_error(res, render_error(res.body, code, param, message, request_id));
}

void fail_named(http::Response& res, std::string_view request_id, std::string_view code_name,
                std::optional<std::string_view> param, std::string_view message, std::string_view answered) {
  res.body.clear();
  if (const ErrorInfo* info = render_error(res.body, code_name, param, message, request_id)) {
    answer_error(res, *info);
    return;
  }
  std::fprintf(stderr, "storeapi: %.*s: unreadable stored error: %.*s\n", static_cast<int>(request_id.size()),
               request_id.data(), static_cast<int>(answered.size()), answered.data());
  fail(res, request_id, ErrorCode::internal_error);
}

Application::Application(const Settings& settings, auth::RateLimiter& limiter, db::WritePositions& positions,
                         db::PodAddressBook& pod_book, bool reports_outages)
    : pool_(pool_options(settings), statements()),
      redis_(redis_client(settings, reports_outages)),
      fleet_(redis_ ? std::make_unique<auth::FleetBatch>(*redis_, RedisScript::fleet_batch,
                                                          !settings.replica_urls.empty())
                    : nullptr),
      standbys_(standbys(settings)),
      pods_(pool_, standbys_.get(), pod_book, settings.replica_poll),
      read_router_(pods_, fleet_.get(), &positions),
      keys_(key_cache_options(settings)),
      known_keys_(settings.invalidations_listening),
      authenticator_(pool_, keys_, limiter, fleet_.get(), &known_keys_),
      forget_store_([this, invalidate_cores = settings.invalidate_cores](std::string_view store) {
        const std::string payload = std::string(kStorePrefix).append(store);
        if (invalidate_cores) {
          invalidate_cores(payload);
        } else {
          invalidate(payload);
        }
      }),
      cursor_secret_(settings.cursor_secret),
      services_{pods_, read_router_, body_parser_, authenticator_, forget_store_, cursor_secret_} {}

void Application::start() {
  pool_.start();
  if (redis_) redis_->start();
  if (standbys_) standbys_->start();
  if (cursor_secret_.empty()) runtime::spawn(load_cursor_secret(pool_, cursor_secret_, secret_attempted_));
}

bool Application::ready() const noexcept { return !draining_ && pool_.ready() && !cursor_secret_.empty(); }

Application::Awaiting Application::awaiting() const noexcept {
  if (!ready() && !(pool_.settled() && !pool_.ready())) return Awaiting::database;
  // Redis is not needed to serve (the node's own limits stand in), but its first attempt
  // is waited for, so that a node that can reach it starts with the fleet's limits.
  if (redis_ && !redis_->settled()) return Awaiting::redis;
  // The standbys' first polls too: a write before them would not know which standbys it
  // must wait for (api/routing/read_router.hpp), and another node may read from one of them.
  if (standbys_ && !standbys_->settled()) return Awaiting::standbys;
  return Awaiting::nothing;
}

runtime::task<void> Application::progress(Awaiting part) {
  switch (part) {
    case Awaiting::nothing:
      co_return;
    case Awaiting::database:
      // Its connections' first attempts, then the cursor secret's read (which reports a
      // pool that went down meanwhile too: its attempt fails).
      if (pool_.ready()) co_await secret_attempted_.wait();
      else co_await pool_.changed().wait();
      co_return;
    case Awaiting::redis:
      co_await redis_->changed().wait();
      co_return;
    case Awaiting::standbys:
      co_await standbys_->settle(runtime::Clock::time_point::max());
      co_return;
  }
}

runtime::task<void> Application::apply_store_change(std::string payload) {
  // "store:<id>": changed outside the API (or moved). Its new position is recorded before
  // the admin tool hears that this node applied the change. "pod:<name>": a pod added or
  // changed; "*": notices may have been missed. The book of pods is the process's, so it
  // is read once, here, before the confirmation.
  if (payload.starts_with(kStorePrefix)) co_await read_router_.written_elsewhere(payload.substr(kStorePrefix.size()));
  if (payload.starts_with(kPodPrefix) || payload == "*") co_await pods_.reload();
  co_await auth::confirm_invalidation(pool_, std::move(payload));
}

void Application::confirm_invalidation(std::string payload) { runtime::spawn(apply_store_change(std::move(payload))); }

void Application::coordinate_key_set(auth::KeySetCoordinator::Publish publish) {
  key_set_coordinator_ = std::make_unique<auth::KeySetCoordinator>(pool_, std::move(publish));
}

void Application::start_idempotency_purge() { runtime::spawn(purge_idempotency_keys(pods_)); }

runtime::task<void> Application::handle(const http::Request& req, http::Response& res) {
  Match match = api::match(req.method, req.path);
  if (match.kind == MatchKind::found) res.notes.route = &route_label(match.route);
  if (!match.needs_key) {
    handle_keyless(req, res, match);
    co_return;
  }
  // Metrics have a port of their own; asked here, a 401 missing_api_key would read as if
  // they needed a key. Nothing to hide about this path, so no key first.
  if (match.kind == MatchKind::not_found && req.path == "/metrics") {
    fail(res, req.request_id, ErrorCode::route_not_found, std::nullopt,
         "No such endpoint: /metrics is served on the metrics listener (STOREAPI_METRICS_LISTEN, default "
         "127.0.0.1:9464), not on the API's port.");
    co_return;
  }
  co_await handle_v1(req, res, match);
}

void Application::handle_keyless(const http::Request& req, http::Response& res, const Match& match) {
  if (match.kind == MatchKind::method_not_allowed || match.kind == MatchKind::options) {
    res.add_header("Allow", match.allow);
    if (match.kind == MatchKind::options) {
      res.status = 204;
      return;
    }
    return fail(res, req.request_id, ErrorCode::method_not_allowed);
  }
  switch (match.route) {
    case RouteId::healthz: res.body.assign(healthz_body()); return;
    case RouteId::readyz:
      if (!ready()) return fail(res, req.request_id, ErrorCode::service_unavailable);
      res.body.assign(R"({"status":"ok"})");
      return;
    case RouteId::openapi_document: res.body.assign(openapi_document()); return;
    default: break;
  }
  // A route marked as needing no key with no answer above: never a health check's "ok"
  // by default, but the error a missing endpoint is (tests/api/router_test.cpp holds
  // the table's keyless routes to these three).
  fail(res, req.request_id, ErrorCode::route_not_found);
}

runtime::task<void> Application::handle_v1(const http::Request& req, http::Response& res, const Match& match) {
  stage_timing::Timer auth_timer(stage_timing::Stage::auth);
  auth::AuthResult auth = co_await authenticator_.authenticate(authorization(req));
  res.tally.key_lookup = auth.lookup_time;
  res.tally.auth = auth_timer.stop();
  if (auth.status != auth::AuthStatus::ok && auth.status != auth::AuthStatus::rate_limited) {
    fail(res, req.request_id, *auth_error(auth.status));
    co_return;
  }
  res.notes.store_id.assign(auth.caller.store());
  res.notes.key_prefix.assign(auth::display_prefix(req.header("authorization")));
  add_rate_headers(res, auth.caller.rate);
  if (auth.status == auth::AuthStatus::rate_limited) {
    fail(res, req.request_id, ErrorCode::rate_limited);
    co_return;
  }
  switch (match.kind) {
    case MatchKind::not_found:
      fail(res, req.request_id, ErrorCode::route_not_found);
      co_return;
    case MatchKind::method_not_allowed:
      res.add_header("Allow", match.allow);
      fail(res, req.request_id, ErrorCode::method_not_allowed);
      co_return;
    case MatchKind::options:
      res.add_header("Allow", match.allow);
      res.status = 204;
      co_return;
    case MatchKind::found: break;
  }
  if (!auth::scope_allows(auth.caller.scopes, route(match.route).scope)) {
    fail(res, req.request_id, ErrorCode::insufficient_scope);
    co_return;
  }
  if (!match.malformed_param.empty()) {
    fail(res, req.request_id, ErrorCode::parameter_invalid, match.malformed_param);
    co_return;
  }
  Context ctx{req, res, auth.caller, match, services_};
  switch (match.route) {
    case RouteId::store_get: co_await get_store(ctx); break;
    case RouteId::orders_fulfillment: co_await post_order_fulfillment(ctx); break;
    case RouteId::bookings_accept: co_await post_booking_accept(ctx); break;
    case RouteId::bookings_cancel: co_await post_booking_cancel(ctx); break;
    case RouteId::variant_update: co_await patch_variant(ctx); break;
    case RouteId::variant_stock: co_await post_variant_stock(ctx); break;
    case RouteId::orders_list: co_await order_reads().list(ctx); break;
    case RouteId::orders_get: co_await order_reads().get(ctx); break;
    case RouteId::bookings_list: co_await booking_reads().list(ctx); break;
    case RouteId::bookings_get: co_await booking_reads().get(ctx); break;
    case RouteId::products_list: co_await product_reads().list(ctx); break;
    case RouteId::products_get: co_await product_reads().get(ctx); break;
    case RouteId::customers_list: co_await customer_reads().list(ctx); break;
    case RouteId::customers_get: co_await customer_reads().get(ctx); break;
    // Answered before authentication (handle_keyless); listed so that a new route without
    // its endpoint here fails the build (-Wswitch).
    case RouteId::healthz:
    case RouteId::readyz:
    case RouteId::openapi_document: fail(ctx, ErrorCode::route_not_found); break;
  }
}

void Application::reject(http::Rejection why, std::string_view request_id, http::Response& res) {
  ErrorCode code = ErrorCode::bad_request;
  switch (why) {
    case http::Rejection::bad_request: code = ErrorCode::bad_request; break;
    case http::Rejection::headers_too_large: code = ErrorCode::headers_too_large; break;
    case http::Rejection::payload_too_large: code = ErrorCode::payload_too_large; break;
    case http::Rejection::request_timeout: code = ErrorCode::request_timeout; break;
    case http::Rejection::too_many_connections: code = ErrorCode::service_unavailable; break;
    case http::Rejection::internal_error: code = ErrorCode::internal_error; break;
  }
  fail(res, request_id, code);
}

}  // namespace storeapi::api
