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

#include "api/application.hpp"
#include "app/config.hpp"
#include "app/open_files.hpp"
#include "common/service_notify.hpp"
#include "auth/invalidation.hpp"
#include "auth/rate_limiter.hpp"
#include "metrics/stage_timing.hpp"
#include "db/channels.hpp"
#include "db/listener.hpp"
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
runtime::task<void> listen_once_settled(CoreState& state, std::latch& listening) {
  while (!state.application->settled()) co_await runtime::sleep_for(std::chrono::milliseconds(2));
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

}  // namespace

int main() {
  std::string error;
  auto config = app::Config::from_env(error);
  if (!config) {
    std::fprintf(stderr, "storeapi: %s\n", error.c_str());
    return 2;
  }
  std::string notice;
  if (auto refused = app::fit_open_file_limit(*config, notice)) {
    std::fprintf(stderr, "storeapi: %s\n", refused->c_str());
    return 2;
  }
  if (!notice.empty()) std::fprintf(stderr, "storeapi: %s\n", notice.c_str());
  // Before anything starts: a kernel or seccomp filter without io_uring would otherwise
  // surface as a bare "Operation not permitted" from the first core.
  if (std::optional<std::string> problem = runtime::check_uring_support()) {
    std::fprintf(stderr, "storeapi: cannot start: %s\n", problem->c_str());
    return 1;
  }
  if (config->redis && !redis::probe(*config->redis, std::chrono::seconds(2), error)) {
    std::fprintf(stderr, "storeapi: STOREAPI_REDIS_URL: %s\n", error.c_str());
    return 1;
  }
  for (std::size_t i = 0; i < config->replica_urls.size(); ++i) {
    if (!db::probe_standby(config->replica_urls[i], std::chrono::seconds(2), error)) {
      std::fprintf(stderr, "storeapi: STOREAPI_REPLICA_URLS (standby %zu): %s\n", i + 1, error.c_str());
      return 1;
    }
  }
  // Signals are taken by sigwait() on the main thread only; every core inherits the mask.
  sigset_t signals = shutdown_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  int first_listener = -1;
  try {
    // Every core's listener shares the port (SO_REUSEPORT), which would also let a second
    // server started by mistake on a busy port take half of its connections: only a
    // takeover asked for joins a port another process listens on.
    if (!config->takeover && runtime::port_taken(config->listen)) {
      std::fprintf(stderr,
                   "storeapi: STOREAPI_LISTEN %s:%u is in use (another storeapi, or a second tools/run?): choose "
                   "another port, or set STOREAPI_TAKEOVER=on to start beside the running server and replace it "
                   "(README \"Running several nodes\")\n",
                   config->listen.host.c_str(), config->listen.port);
      return 1;
    }
    first_listener = runtime::bind_tcp(config->listen);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storeapi: %s\n", e.what());
    return 1;
  }
  runtime::ListenAddress bound = config->listen;
  bound.port = runtime::local_port(first_listener);  // port 0 resolves once, for every core

  http::ServerOptions server_options;
  server_options.routes = api::route_labels();
  server_options.request_timeout = config->request_timeout;
  server_options.idle_timeout = config->idle_timeout;
  server_options.access_log = config->access_log;
  server_options.trusted_proxy = config->trusted_proxy;
  metrics::Registry& registry = metrics::Registry::process();
  registry.set_cores(config->threads);
  // Before the cores start (they only read it); registers storeapi_request_stage_seconds when on.
  stage_timing::enable(config->stage_timing, registry);
  metrics::add_process_metrics(registry, "storeapi_build_info");

  const api::Settings api_settings{
      .database_url = config->database_url,
      .db_conns_per_thread = config->db_conns_per_thread,
      .db_timeout = config->db_timeout,
      .cursor_secret = config->secret,
      .redis = config->redis,
      .redis_timeout = config->redis_timeout,
      .replica_urls = config->replica_urls,
      .replica_poll = config->replica_poll,
  };
  auth::RateLimiter rate_limiter;  // shared by every core: the limit is per store, exact
  db::WritePositions write_positions;  // likewise: a write on one core, a read on another
  std::vector<CoreState> cores_state(config->threads);
  std::unique_ptr<runtime::Cores> cores;
  // Published once the cores run; read by the scraping thread.
  std::atomic<const runtime::Cores*> scraped_cores{nullptr};
  registry.computed("storeapi_io_uring_cq_overflows_total",
                    "Completions the kernel could not queue on a core's ring (must stay 0).", metrics::Kind::counter,
                    [&scraped_cores] {
                      const runtime::Cores* c = scraped_cores.load(std::memory_order_acquire);
                      return c ? static_cast<double>(c->cq_overflows()) : 0.0;
                    });
  // One LISTEN connection, on core 0, fans invalidations out to every core's key cache;
  // the core that applies one last confirms it (auth/invalidation.hpp). Started once the
  // cores run.
  db::Listener listener(config->database_url, db::kInvalidateChannel, [&](std::string_view payload) {
    if (auth::is_confirmation(payload)) return;
    auto pending = std::make_shared<std::atomic<unsigned>>(config->threads);
    cores->post_all([&cores_state, p = std::string(payload), pending](runtime::Reactor& r) {
      api::Application& application = *cores_state[r.index()].application;
      application.invalidate(p);
      if (pending->fetch_sub(1) == 1) application.confirm_invalidation(p);
    });
  });
  registry.computed("storeapi_invalidations_listening",
                    "1 while the server LISTENs for key and store invalidations; 0: revocations reach it only "
                    "through the key cache's TTL.",
                    metrics::Kind::gauge, [&listener] { return listener.listening() ? 1.0 : 0.0; });
  // Declared after `cores` and `listener`, so it stops before them: a scrape reads them.
  std::unique_ptr<metrics::ScrapeServer> scrape_server;
  if (config->metrics_listen) {
    try {
      scrape_server = std::make_unique<metrics::ScrapeServer>(*config->metrics_listen, registry);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "storeapi: metrics listener: %s\n", e.what());
      return 1;
    }
    std::fprintf(stderr, "storeapi: metrics on %s:%u\n", config->metrics_listen->host.c_str(), scrape_server->port());
  }

  metrics::Family<metrics::Gauge>& pinned =
      registry.gauge("storeapi_core_pinned", "1 when the core's thread is pinned to its CPU, 0 when pinning failed.",
                     {"core"});
  try {
    cores = std::make_unique<runtime::Cores>(config->threads, [&](runtime::Reactor& reactor) {
      metrics::bind_this_thread(reactor.index());
      metrics::Gauge& core_pinned = pinned.with({std::to_string(reactor.index())});  // present at 0 if not
      if (runtime::Cores::this_thread_pinned()) core_pinned.inc();
      CoreState& state = cores_state[reactor.index()];
      state.listen_fd = reactor.index() == 0 ? first_listener : runtime::bind_tcp(bound);
      state.application = std::make_unique<api::Application>(api_settings, rate_limiter, write_positions,
                                                            reactor.index() == 0);
      state.application->start();
      http::ServerOptions options = server_options;
      // The cap is for the whole process: cores share it out exactly (the first ones take
      // the remainder), so that the shares never add up to more than was configured.
      options.max_connections = config->max_connections / config->threads +
                                (reactor.index() < config->max_connections % config->threads ? 1 : 0);
      state.server = std::make_unique<http::Server>(state.listen_fd, *state.application, options);
    });
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storeapi: start failed: %s\n", e.what());
    return 1;
  }
  scraped_cores.store(cores.get(), std::memory_order_release);
  cores->post_to(0, [&] {
    listener.start();
    runtime::spawn(evict_idle_buckets(rate_limiter));
    cores_state[0].application->start_idempotency_purge();
  });

  std::latch listening(config->threads);
  cores->post_all([&](runtime::Reactor& reactor) {
    runtime::spawn(listen_once_settled(cores_state[reactor.index()], listening));
  });
  listening.wait();
  std::fprintf(stderr, "storeapi: listening on %s:%u with %u threads\n", bound.host.c_str(), bound.port,
               config->threads);
  notify_service_manager("READY=1");  // systemd Type=notify: every core listens, ready to serve

  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "storeapi: %s received, draining\n", sig == SIGTERM ? "SIGTERM" : "SIGINT");
  notify_service_manager("STOPPING=1");
  // Not ready any more, still serving: the load balancer's health checks see 503 and
  // send new requests elsewhere before the listeners close.
  cores->post_all([&](runtime::Reactor& reactor) { cores_state[reactor.index()].application->begin_draining(); });
  std::this_thread::sleep_for(config->drain);
  cores->post_all([&](runtime::Reactor& reactor) {
    cores_state[reactor.index()].server->drain([&reactor] { reactor.stop(); });
  });
  // In-flight requests get a grace period; past it the cores stop regardless, still
  // exiting 0 since the shutdown was asked for.
  auto joined = std::async(std::launch::async, [&] { cores->join(); });
  if (joined.wait_for(config->shutdown_grace) == std::future_status::timeout) {
    std::fprintf(stderr, "storeapi: grace period over, stopping with requests in flight\n");
    cores->post_all([](runtime::Reactor& reactor) { reactor.stop(); });
    joined.wait();
  }
  // Reported on every exit so that load tests can hold it to 0 (docs/PITFALLS.md: an overflowed
  // completion queue loses completions, and with them requests).
  std::fprintf(stderr, "storeapi: stopped (completion-queue overflows: %u)\n", cores->cq_overflows());
  return 0;
}
