// storeapi-dispatch: delivers the outboxes (signed webhooks, e-mail notifications).
// Configuration from the environment (README "Dispatcher"); logs to stderr; SIGTERM or
// SIGINT stops it after the transfers in flight (exit 0).
#include "common/build_version.hpp"
#include "common/env.hpp"
#include "dispatch/config.hpp"
#include "dispatch/dispatcher.hpp"
#include "metrics/process_metrics.hpp"
#include "metrics/scrape_server.hpp"
#include "runtime/uring_support.hpp"

#include <curl/curl.h>
#include <signal.h>
#include <sys/signalfd.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  using namespace storeapi::dispatch;
  if (storeapi::build::print_version_if_asked(argc, argv, "storeapi-dispatch")) return 0;
  std::optional<Config> config;
  try {
    config = Config::from_env();
  } catch (const storeapi::env::SettingError& e) {
    std::fprintf(stderr, "storeapi-dispatch: %s\n", e.what());
    return 2;
  }
  std::fprintf(stderr, "%s starting\n", storeapi::build::describe("storeapi-dispatch").c_str());
  // Its LISTEN connection runs on io_uring (dispatch/wakeups.hpp): a kernel or seccomp
  // filter without it is named here rather than surfacing as a bare EPERM.
  try {
    storeapi::runtime::check_uring_support();
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "storeapi-dispatch: cannot start: %s\n", e.what());
    return 1;
  }
  // A receiver closing its socket mid-request must not kill the process.
  signal(SIGPIPE, SIG_IGN);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  int stop_fd = signalfd(-1, &stop_signals, SFD_CLOEXEC | SFD_NONBLOCK);
  if (stop_fd < 0 || curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    std::perror("storeapi-dispatch: start-up");
    return 1;
  }
  try {
    storeapi::metrics::Registry& registry = storeapi::metrics::Registry::process();
    storeapi::metrics::add_process_metrics(registry, "storeapi_dispatch_build_info");
    const auto metrics_listen = config->metrics_listen;
    Dispatcher dispatcher(std::move(*config));
    registry.computed("storeapi_dispatch_listening",
                      "1 while the dispatcher LISTENs for wake-ups; 0: new work waits for its poll interval.",
                      storeapi::metrics::Kind::gauge, [&dispatcher] { return dispatcher.listening() ? 1.0 : 0.0; });
    // Declared after the dispatcher, so it stops first: a scrape reads it.
    std::unique_ptr<storeapi::metrics::ScrapeServer> scrape_server;
    if (metrics_listen) {
      scrape_server =
          storeapi::metrics::start_scrape_server("STOREAPI_DISPATCH_METRICS_LISTEN", *metrics_listen, registry);
      storeapi::runtime::ListenAddress bound{metrics_listen->host, scrape_server->port()};
      std::fprintf(stderr, "storeapi-dispatch: metrics on %s\n", bound.text().c_str());
    }
    dispatcher.run(stop_fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "storeapi-dispatch: fatal: %s\n", e.what());
    return 1;
  }
  curl_global_cleanup();
  return 0;
}
