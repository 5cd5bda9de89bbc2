#pragma once
// Opening a libpq connection without blocking the core: PQconnectStartParams, then
// PQconnectPoll driven by io_uring polls until it is up or the deadline passed. A URL with
// several hosts is tried host by host, each with its own deadline (db/hosts.hpp).
#include <libpq-fe.h>

#include <chrono>
#include <string>

#include "db/hosts.hpp"
#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

// Waits until the connection's socket is ready for `mask`; false on deadline or error.
runtime::task<bool> await_socket(PGconn* conn, unsigned mask, const runtime::Deadline* deadline);

// The application_name of the server's connections (pg_stat_activity).
inline constexpr const char* kServerApplicationName = "storeapi";

// How the connections notice a database that is gone (docs/DECISIONS.md, "Failure
// detection"); each setting of the URL of the same meaning wins over these.
struct ConnectOptions {
  // The session's statement_timeout.
  std::chrono::milliseconds statement_timeout{10'000};
  // Each host's own connect deadline, unless the URL gives connect_timeout (seconds, as
  // libpq reads it: at least 2).
  std::chrono::milliseconds connect_timeout{1'000};
  // The socket's TCP_USER_TIMEOUT (sent data unacknowledged this long ends the connection),
  // with keepalives every second once idle for one, so that an idle connection to a host
  // that vanished ends too; libpq's tcp_user_timeout and keepalives* of the URL win. 0:
  // the kernel's (minutes).
  std::chrono::milliseconds tcp_user_timeout{2'000};
  std::string application_name = kServerApplicationName;
};

// A connection attempt's result: the connection and the host it reached, or nullptr and
// why (one line, every host's reason).
struct Connected {
  PGconn* conn = nullptr;
  std::string failure;
  HostTarget host;
};

// The connection, ready and in UTC/ISO session settings with `statement_timeout`, named
// `application_name`, on the first host of the URL (in HostDemotions' order) that gives
// a session of its target_session_attrs. Host names are resolved by libpq synchronously:
// use addresses or a socket path in STOREAPI_DATABASE_URL when that matters.
runtime::task<Connected> connect(const std::string& url, const ConnectOptions& options);

// Whether `host` of the URL completes a new connection within the connect timeout (any
// session, or a refusal from the server: it answers). A connection silent while it owes
// an answer is either running a long statement (the host answers) or talking to a
// frozen or vanished server (it does not).
runtime::task<bool> host_answers(const std::string& url, const HostTarget& host, const ConnectOptions& options);

// libpq's multi-line messages as one line, for logs.
std::string one_line(const char* message);

}  // namespace storeapi::db
