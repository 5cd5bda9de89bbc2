#pragma once
// Runs a coroutine on a fresh runtime::Reactor driven by the calling thread, for tests of
// code that must run inside a core (the database pool, the authenticator).
#include <functional>

#include "runtime/reactor.hpp"
#include "runtime/spawn.hpp"
#include "runtime/task.hpp"

namespace storeapi::testing {

// Returns once `body` has finished. Whatever `body` started (pool connections) may still
// be suspended in the reactor: keep such objects alive beyond this call.
inline void run_on_reactor(std::function<runtime::task<void>()> body) {
  runtime::Reactor reactor(0, {});
  struct Runner {
    static runtime::task<void> run(std::function<runtime::task<void>()> body, runtime::Reactor* r) {
      co_await body();
      r->stop();
    }
  };
  reactor.post([&] { runtime::spawn(Runner::run(body, &reactor)); });
  reactor.run();
}

}  // namespace storeapi::testing
