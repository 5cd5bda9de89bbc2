// storeapi: the Store Commerce API server. Configuration comes from the environment
// (see app/config.hpp and README). One pinned thread per core, each with its own
// io_uring, listener (SO_REUSEPORT), connections and database connections.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <future>
#include <latch>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/routing/application.hpp"
#include "app/config.hpp"
#include "app/open_files.hpp"
#include "common/build_version.hpp"
#include "common/env.hpp"
#include "common/service_notify.hpp"
#include "auth/invalidation.hpp"
#include "auth/rate_limiter.hpp"
#include "metrics/stage_timing.hpp"
#include "db/channels.hpp"
#include "db/listener.hpp"
#include "db/pod_addresses.hpp"
#include "db/start_check.hpp"
#include "db/standby_probe.hpp"
#include "db/write_positions.hpp"
#include "redis/probe.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"
#include "http/server.hpp"
#include "metrics/process_metrics.hpp"
#include "metrics/scrape_server.hpp"
#include "runtime/cores.hpp"
#include "runtime/net.hpp"
#include "runtime/uring_support.hpp"

using namespace storeapi;

namespace {

struct CoreState {
  int listen_fd = -1;  // bound; listening once the core has settled
  std::unique_ptr<api::Application> application;
  std::unique_ptr<http::Server> server;
};

// Buckets of stores no core caches any more are dropped once full again.
runtime::task<void> evict_idle_buckets(auth::RateLimiter& limiter) {
  for (;;) {
    co_await runtime::sleep_for(std::chrono::seconds(60));
    limiter.evict_idle(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count());
  }
}

// A core takes connections only once it can serve them (its database connections up and
// the cursor secret read, or the database found unreachable): a node joining a fleet
// never answers 503 for want of a connection it was still opening.
// Said once when only the standbys' first polls hold a core back: a slow standby then
// delays the start by up to a second or so (db/standbys.hpp, settled()).
runtime::task<void> listen_once_settled(CoreState& state, std::latch& listening, unsigned core) {
  using Awaiting = api::Application::Awaiting;
  bool said = false;
  for (Awaiting part; (part = state.application->awaiting()) != Awaiting::nothing;) {
    if (part == Awaiting::standbys && !said) {
      std::fprintf(stderr, "storeapi: core %u waits for its standbys' first poll before it listens\n", core);
      said = true;
    }
    co_await state.application->progress(part);
  }
  runtime::start_listening(state.listen_fd);
  state.server->start();
  listening.count_down();
}

sigset_t shutdown_signals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  return set;
}

// --- start-up steps, in the order main() runs them. Each throws on failure
// (docs/ARCHITECTURE.md, "Errors"): env::SettingError for a setting (exit 2), another
// exception for anything else (exit 1), its message one line. ---

// The configuration from the environment, the connection cap fitted to the open-file limit.
app::Config configure() {
  app::Config config = app::Config::from_env();
  const std::string notice = app::fit_open_file_limit(config);
  if (!notice.empty()) std::fprintf(stderr, "storeapi: %s\n", notice.c_str());
  return config;
}

// What must be there before anything starts: io_uring (a kernel or seccomp filter without
// it would otherwise surface as a bare "Operation not permitted" from the first core),
// the schema this release needs (with hints for a database not set up yet), a LISTEN URL
// that hears its notifications, Redis and the standbys when configured.
void check_surroundings(const app::Config& config) {
  try {
    runtime::check_uring_support();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("cannot start: ") + e.what());
  }
  const db::StartCheck database =
      db::check_database_at_start(config.database_url, config.listen_database_url, std::chrono::seconds(2));
  if (!database.unchecked.empty()) std::fprintf(stderr, "storeapi: %s\n", database.unchecked.c_str());
  for (const std::string& hint : database.hints) std::fprintf(stderr, "storeapi: hint: %s\n", hint.c_str());
  try {
    if (config.redis) redis::probe(*config.redis, std::chrono::seconds(2));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("STOREAPI_REDIS_URL: ") + e.what());
  }
  // The LISTEN URL was checked with the database (db/start_check.hpp).
  if (database.listen_deaf)
    throw std::runtime_error(
        std::string(config.listen_database_url == config.database_url
                        ? "STOREAPI_LISTEN_DATABASE_URL is unset, so LISTEN uses STOREAPI_DATABASE_URL, and"
                        : "STOREAPI_LISTEN_DATABASE_URL:") +
        " a LISTEN session there does not hear a notification sent to it: a transaction pooler (PgBouncer's "
        "pool_mode = transaction) is in the way, and key revocations would never reach this server; set "
        "STOREAPI_LISTEN_DATABASE_URL to the database itself or a session pooler (docs/SCALING.md \"Poolers\")");
  for (std::size_t i = 0; i < config.replica_urls.size(); ++i) {
    try {
      db::probe_standby(config.replica_urls[i], std::chrono::seconds(2));
    } catch (const std::runtime_error& e) {
      throw std::runtime_error("STOREAPI_REPLICA_URLS (standby " + std::to_string(i + 1) + "): " + e.what());
    }
  }
}

// The first core's listener. Every core's listener shares the port (SO_REUSEPORT), which
// would also let a second server started by mistake on a busy port take half of its
// connections: only a takeover asked for joins a port another process listens on.
int bind_first_listener(const app::Config& config) {
  if (!config.takeover && runtime::port_taken(config.listen))
    throw std::runtime_error("STOREAPI_LISTEN " + config.listen.text() +
                             " is in use (another storeapi, or a second tools/run?): choose another port, or set "
                             "STOREAPI_TAKEOVER=on to start beside the running server and replace it (README "
                             "\"Running several nodes\")");
  return runtime::bind_tcp(config.listen);
}

http::ServerOptions server_options_of(const app::Config& config) {
  http::ServerOptions options;
  options.routes = api::route_labels();
  options.request_timeout = config.request_timeout;
  options.idle_timeout = config.idle_timeout;
  options.access_log = config.access_log;
  options.trusted_proxy = config.trusted_proxy;
  return options;
}

api::Settings api_settings_of(const app::Config& config) {
  return api::Settings{
      .database_url = config.database_url,
      .db_conns_per_thread = config.db_conns_per_thread,
      .db_timeout = config.db_timeout,
      .db_connect_timeout = config.db_connect_timeout,
      .tcp_user_timeout = config.tcp_user_timeout,
      .db_silence = config.db_silence,
      .cursor_secret = config.secret,
      .redis = config.redis,
      .redis_timeout = config.redis_timeout,
      .replica_urls = config.replica_urls,
      .replica_poll = config.replica_poll,
      .key_cache_size = config.key_cache_size,
      .invalidations_listening = {},
      .invalidate_cores = {},
  };
}

// The metrics every process has, and stage timing when on: before the cores start (they
// only read them).
metrics::Registry& register_metrics(const app::Config& config) {
  metrics::Registry& registry = metrics::Registry::process();
  registry.set_cores(config.threads);
  // Registers storeapi_request_stage_seconds when on.
  stage_timing::enable(config.stage_timing, registry);
  metrics::add_process_metrics(registry, "storeapi_build_info");
  return registry;
}

// Waits for SIGTERM or SIGINT (blocked on every thread: taken here only).
int wait_for_shutdown_signal(const sigset_t& signals) {
  int sig = 0;
  sigwait(&signals, &sig);
  return sig;
}

// Not ready any more, still serving: the load balancer's health checks see 503 and send
// new requests elsewhere before the listeners close; then each core drains its
// connections. In-flight requests get a grace period; past it the cores stop regardless,
// still exiting 0 since the shutdown was asked for.
void drain_and_stop(runtime::Cores& cores, std::vector<CoreState>& cores_state, const app::Config& config) {
  cores.post_all([&](runtime::Reactor& reactor) { cores_state[reactor.index()].application->begin_draining(); });
  std::this_thread::sleep_for(config.drain);
  cores.post_all([&](runtime::Reactor& reactor) {
    cores_state[reactor.index()].server->drain([&reactor] { reactor.stop(); });
  });
  auto joined = std::async(std::launch::async, [&] { cores.join(); });
  if (joined.wait_for(config.shutdown_grace) == std::future_status::timeout) {
    std::fprintf(stderr, "storeapi: grace period over, stopping with requests in flight\n");
    cores.post_all([](runtime::Reactor& reactor) { reactor.stop(); });
    joined.wait();
  }
}

// The server from its configuration to its exit: the cores, the LISTEN loop and the
// metrics listener started, serving until a shutdown signal, then drained.
int serve(const app::Config& config) {
  std::fprintf(stderr, "%s starting\n", build::describe("storeapi").c_str());
  check_surroundings(config);
  // Signals are taken by sigwait() on the main thread only; every core inherits the mask.
  sigset_t signals = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  const int first_listener = bind_first_listener(config);
  runtime::ListenAddress bound = config.listen;
  bound.port = runtime::local_port(first_listener);  // port 0 resolves once, for every core

  const http::ServerOptions server_options = server_options_of(config);
  metrics::Registry& registry = register_metrics(config);
  // invalidations_listening and invalidate_cores: set below, with the listener and the cores
  api::Settings api_settings = api_settings_of(config);
  auth::RateLimiter rate_limiter;  // shared by every core: the limit is per store, exact
  db::WritePositions write_positions;  // likewise: a write on one core, a read on another
  db::PodAddressBook pod_book;         // the directory's pods: read by one core, used by all
  std::vector<CoreState> cores_state(config.threads);
  std::unique_ptr<runtime::Cores> cores;
  // Published once the cores run; read by the scraping thread.
  std::atomic<const runtime::Cores*> scraped_cores{nullptr};
  registry.computed("storeapi_io_uring_cq_overflows_total",
                    "Completions the kernel could not queue on a core's ring (must stay 0).", metrics::Kind::counter,
                    [&scraped_cores] {
                      const runtime::Cores* c = scraped_cores.load(std::memory_order_acquire);
                      return c ? static_cast<double>(c->cq_overflows()) : 0.0;
                    });
  // One LISTEN connection, on core 0, fans invalidations out to every core's key cache
  // and set of key hashes; the core that applies one last confirms it
  // (auth/invalidation.hpp). Core 0 then hands it to the set's coordinator, whose new
  // arrays reach each core after the payloads before them (auth/key_set_coordinator.hpp).
  // Started once the cores run.
  db::Listener listener(config.listen_database_url, db::kInvalidateChannel, [&](std::string_view payload) {
    if (auth::is_confirmation(payload)) return;
    auto pending = std::make_shared<std::atomic<unsigned>>(config.threads);
    cores->post_all([&cores_state, p = std::string(payload), pending](runtime::Reactor& r) {
      api::Application& application = *cores_state[r.index()].application;
      application.invalidate(p);
      if (pending->fetch_sub(1) == 1) application.confirm_invalidation(p);
    });
    cores_state[0].application->key_set_heard(payload);
  }, db::ListenerOptions{.connect_timeout = config.db_connect_timeout, .tcp_user_timeout = config.tcp_user_timeout});
  api_settings.invalidations_listening = [&listener] { return listener.listening(); };
  api_settings.invalidate_cores = [&cores, &cores_state](std::string_view payload) {
    cores->post_all([&cores_state, p = std::string(payload)](runtime::Reactor& r) {
      cores_state[r.index()].application->invalidate(p);
    });
  };
  const auth::KeySetCoordinator::Publish publish_key_set = [&cores, &cores_state](auth::SharedKeyPrefixes shared,
                                                                                   bool complete) {
    cores->post_all([&cores_state, shared = std::move(shared), complete](runtime::Reactor& r) {
      cores_state[r.index()].application->install_key_set(shared, complete);
    });
  };
  registry.computed("storeapi_invalidations_listening",
                    "1 while the server LISTENs for key and store invalidations; 0: revocations reach it only "
                    "through the key cache's TTL.",
                    metrics::Kind::gauge, [&listener] { return listener.listening() ? 1.0 : 0.0; });
  // Declared after `cores` and `listener`, so it stops before them: a scrape reads them.
  std::unique_ptr<metrics::ScrapeServer> scrape_server;
  if (config.metrics_listen) {
    scrape_server = metrics::start_scrape_server("STOREAPI_METRICS_LISTEN", *config.metrics_listen, registry);
    runtime::ListenAddress bound_metrics{config.metrics_listen->host, scrape_server->port()};
    std::fprintf(stderr, "storeapi: metrics on %s\n", bound_metrics.text().c_str());
  }

  metrics::Family<metrics::Gauge>& pinned =
      registry.gauge("storeapi_core_pinned", "1 when the core's thread is pinned to its CPU, 0 when pinning failed.",
                     {"core"});
  try {
    cores = std::make_unique<runtime::Cores>(config.threads, [&](runtime::Reactor& reactor) {
      metrics::bind_this_thread(reactor.index());
      metrics::Gauge& core_pinned = pinned.with({std::to_string(reactor.index())});  // present at 0 if not
      if (runtime::Cores::this_thread_pinned()) core_pinned.inc();
      CoreState& state = cores_state[reactor.index()];
      state.listen_fd = reactor.index() == 0 ? first_listener : runtime::bind_tcp(bound);
      state.application = std::make_unique<api::Application>(api_settings, rate_limiter, write_positions,
                                                            pod_book, reactor.index() == 0);
      if (reactor.index() == 0) state.application->coordinate_key_set(publish_key_set);
      state.application->start();
      http::ServerOptions options = server_options;
      // The cap is for the whole process: cores share it out exactly (the first ones take
      // the remainder), so that the shares never add up to more than was configured.
      options.max_connections = config.max_connections / config.threads +
                                (reactor.index() < config.max_connections % config.threads ? 1 : 0);
      state.server = std::make_unique<http::Server>(state.listen_fd, *state.application, options);
    });
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("start failed: ") + e.what());
  }
  scraped_cores.store(cores.get(), std::memory_order_release);
  cores->post_to(0, [&] {
    listener.start();
    runtime::spawn(evict_idle_buckets(rate_limiter));
    cores_state[0].application->start_idempotency_purge();
  });

  std::latch listening(config.threads);
  cores->post_all([&](runtime::Reactor& reactor) {
    runtime::spawn(listen_once_settled(cores_state[reactor.index()], listening, reactor.index()));
  });
  listening.wait();
  std::fprintf(stderr, "storeapi: listening on %s with %u threads\n", bound.text().c_str(), config.threads);
  notify_service_manager("READY=1");  // systemd Type=notify: every core listens, ready to serve

  const int sig = wait_for_shutdown_signal(signals);
  std::fprintf(stderr, "storeapi: %s received, draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  notify_service_manager("STOPPING=1");
  drain_and_stop(*cores, cores_state, config);
  // Reported on every exit so that load tests can hold it to 0 (docs/PITFALLS.md: an overflowed
  // completion queue loses completions, and with them requests).
  std::fprintf(stderr, "storeapi: stopped (completion-queue overflows: %u)\n", cores->cq_overflows());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (build::print_version_if_asked(argc, argv, "storeapi")) return 0;
  try {
    return serve(configure());
  } catch (const env::SettingError& e) {
    std::fprintf(stderr, "storeapi: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storeapi: %s\n", e.what());
    return 1;
  }
}
