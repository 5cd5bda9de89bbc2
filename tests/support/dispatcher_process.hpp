#pragma once
// build/storeapi-dispatch as a child process, for the dispatcher tests and bench/load: a
// ServerProcess that gets exactly `settings` as its STOREAPI_* environment (nothing
// inherited, no defaults but /metrics on a free port: metrics_port(), and webhooks allowed
// to loopback, where the tests' receivers listen: kLoopbackNetworks). The constructor
// returns once it has started: its "metrics on" line, printed after it blocked SIGTERM
// for its signalfd (or once it exited). A SIGTERM sent before would end it by the
// default action (exit status 143), not by its orderly stop.
// Stop it with terminate() (SIGTERM; its exit status), crash it with kill(); what it
// logged is stderr_text().
#include <map>
#include <stdexcept>
#include <string>

#include "common/ip_networks.hpp"
#include "support/poll.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {

using Settings = std::map<std::string, std::string>;

// STOREAPI_WEBHOOK_ALLOW_NETWORKS for receivers on this host (loopback is refused by default).
inline constexpr const char* kLoopbackNetworks = "127.0.0.0/8,::1/128";

// The same as the policy that admin::add_webhook takes.
inline net::DestinationPolicy loopback_destinations() { return net::DestinationPolicy::parse(kLoopbackNetworks); }

class DispatcherProcess : public ServerProcess {
 public:
  explicit DispatcherProcess(const Settings& settings) : ServerProcess(options(settings)) {
    if (!eventually([&] { return metrics_port() != 0 || !running(); }))
      throw std::runtime_error("storeapi-dispatch neither started nor exited: " + stderr_text());
  }

 private:
  static ProcessOptions options(const Settings& settings) {
    ProcessOptions o;
    o.binary = "storeapi-dispatch";
    o.env = settings;
    // Never the fixed default port: tests run side by side.
    o.env.try_emplace("STOREAPI_DISPATCH_METRICS_LISTEN", "127.0.0.1:0");
    o.env.try_emplace("STOREAPI_WEBHOOK_ALLOW_NETWORKS", kLoopbackNetworks);
    o.inherit_settings = false;
    o.wait_for_listening = false;
    return o;
  }
};

}  // namespace storeapi::testing
