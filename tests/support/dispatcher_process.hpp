#pragma once
// build/storeapi-dispatch as a child process, for the dispatcher tests and bench/load: a
// ServerProcess that gets exactly `settings` as its STOREAPI_* environment (nothing
// inherited, no defaults but /metrics on a free port: metrics_port()). The constructor
// returns once it has started: its "metrics on" line, printed after it blocked SIGTERM
// for its signalfd (or once it exited). A SIGTERM sent before would end it by the
// default action (exit status 143), not by its orderly stop.
// Stop it with terminate() (SIGTERM; its exit status), crash it with kill(); what it
// logged is stderr_text().
#include <map>
#include <stdexcept>
#include <string>

#include "support/poll.hpp"
#include "support/server_process.hpp"

namespace storeapi::testing {

using Settings = std::map<std::string, std::string>;

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
    o.inherit_settings = false;
    o.wait_for_listening = false;
    return o;
  }
};

}  // namespace storeapi::testing
