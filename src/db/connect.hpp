#pragma once
// Opening a libpq connection without blocking the core: PQconnectStartParams, then
// PQconnectPoll driven by io_uring polls until it is up or the deadline passed.
#include <libpq-fe.h>

#include <chrono>
#include <string>

#include "runtime/io.hpp"
#include "runtime/task.hpp"

namespace storeapi::db {

// Waits until the connection's socket is ready for `mask`; false on deadline or error.
runtime::task<bool> await_socket(PGconn* conn, unsigned mask, const runtime::Deadline* deadline);

// The application_name of the server's connections (pg_stat_activity).
inline constexpr const char* kServerApplicationName = "storeapi";

// A connection attempt's result: the connection, or nullptr and why (one line).
struct Connected {
  PGconn* conn = nullptr;
  std::string failure;
};

// The connection, ready and in UTC/ISO session settings with `statement_timeout`, named
// `application_name`. Host names are resolved by libpq synchronously: use an address or a
// socket path in STOREAPI_DATABASE_URL when that matters.
runtime::task<Connected> connect(const std::string& url, std::chrono::milliseconds statement_timeout,
                                 const runtime::Deadline& deadline,
                                 const std::string& application_name = kServerApplicationName);

// libpq's multi-line messages as one line, for logs.
std::string one_line(const char* message);

}  // namespace storeapi::db
