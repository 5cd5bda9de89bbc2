#pragma once
// What wakes the dispatcher: NOTIFYs on the events channel, heard by the project's one
// LISTEN loop (db::Listener), which runs here on a reactor thread of its own and hands
// each wake-up to the dispatcher's poll loop through an eventfd. The listener reports a
// wake-up for every notification and after every (re)connection, because notifications
// sent while it was away are lost: either way the dispatcher looks for work at once.
#include <string>

#include "db/listener.hpp"
#include "runtime/cores.hpp"

namespace storeapi::dispatch {

class Wakeups {
 public:
  // Starts listening on `database_url` at once, in the background.
  explicit Wakeups(const std::string& database_url);
  ~Wakeups();
  Wakeups(const Wakeups&) = delete;
  Wakeups& operator=(const Wakeups&) = delete;

  // Readable while a wake-up is pending: for the poll loop to watch.
  int fd() const noexcept { return event_fd_.fd; }
  // Consumes the pending wake-ups without blocking; true when there was one.
  bool take() noexcept;
  // Whether the listener LISTENs now (storeapi_dispatch_listening).
  bool listening() const noexcept { return listener_.listening(); }

 private:
  struct EventFd {
    EventFd();
    ~EventFd();
    int fd;
  };

  // Declared in this order so that they go in the reverse one: the reactor thread stops
  // before the listener it drives, and both before the descriptor they write.
  EventFd event_fd_;
  db::Listener listener_;
  runtime::Cores reactor_;
};

}  // namespace storeapi::dispatch
