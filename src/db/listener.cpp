#include "db/listener.hpp"

#include <libpq-fe.h>
#include <poll.h>

#include <cstdio>

#include "common/backoff.hpp"
#include "db/connect.hpp"
#include "runtime/io.hpp"
#include "runtime/spawn.hpp"

namespace storeapi::db {
namespace {

constexpr std::chrono::milliseconds kBackoffMin{50};
constexpr std::chrono::milliseconds kBackoffMax{500};  // as the pool's: back on a new primary at once
constexpr std::chrono::milliseconds kStatementTimeout{10'000};  // it runs nothing but LISTEN

}  // namespace

Listener::Listener(std::string url, std::string channel, OnNotify on_notify, ListenerOptions options)
    : url_(std::move(url)), channel_(std::move(channel)), on_notify_(std::move(on_notify)), options_(options) {}

void Listener::start() { runtime::spawn(drive()); }

runtime::task<void> Listener::drive() {
  Backoff backoff(kBackoffMin, kBackoffMax);
  for (;;) {
    if (co_await listen_once()) backoff.reset();  // it ran, then lost the connection
    co_await runtime::sleep_for(backoff.next());
  }
}

// Connects, listens and delivers until the connection fails. True when it got as far as
// listening.
runtime::task<bool> Listener::listen_once() {
  // A named object, not a temporary in the co_await's expression (GCC 12 may destroy
  // such a temporary at the suspension).
  const ConnectOptions connect_options{.statement_timeout = kStatementTimeout,
                                       .connect_timeout = options_.connect_timeout,
                                       .tcp_user_timeout = options_.tcp_user_timeout,
                                       .application_name = options_.application_name};
  PGconn* conn = (co_await connect(url_, connect_options)).conn;
  if (!conn) co_return false;
  struct Finish {
    PGconn* c;
    ~Finish() { PQfinish(c); }
  } finish{conn};

  std::string listen = "LISTEN ";
  char* quoted = PQescapeIdentifier(conn, channel_.c_str(), channel_.size());
  if (!quoted) co_return false;
  listen += quoted;
  PQfreemem(quoted);
  if (!PQsendQuery(conn, listen.c_str())) co_return false;

  bool confirmed = false;
  bool pinged = false;  // a LISTEN is out and its answer still to come
  for (;;) {
    if (PQflush(conn) < 0) break;
    // Until LISTEN is confirmed, and after a ping, the server owes an answer.
    const auto until = runtime::Clock::now() + (confirmed && !pinged ? options_.idle_before_ping : options_.ping_timeout);
    const auto deadline = runtime::Deadline::at(until);
    if (!co_await await_socket(conn, POLLIN, &deadline)) {
      if (!confirmed || pinged || runtime::Clock::now() < until) break;  // no answer, or a socket error
      if (!PQsendQuery(conn, listen.c_str())) break;
      pinged = true;
      continue;
    }
    if (!PQconsumeInput(conn)) break;
    bool refused = false;  // LISTEN failed: a connection made for nothing else is given up
    while (!refused && !PQisBusy(conn)) {
      PGresult* r = PQgetResult(conn);
      if (!r) break;
      const ExecStatusType status = PQresultStatus(r);
      PQclear(r);
      refused = status != PGRES_COMMAND_OK;
      if (refused) continue;
      pinged = false;
      if (!confirmed) {
        confirmed = true;
        listening_ = true;
        on_notify_("*");
      }
    }
    while (PGnotify* n = PQnotifies(conn)) {
      on_notify_(n->extra ? std::string_view(n->extra) : std::string_view());
      PQfreemem(n);
    }
    if (refused) break;
  }
  listening_ = false;
  co_return confirmed;
}

}  // namespace storeapi::db
