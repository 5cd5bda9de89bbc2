#include "db/connect.hpp"

#include <poll.h>

#include <algorithm>

namespace storeapi::db {
namespace {

// Session settings every query relies on: UTC timestamps in ISO form, and a bound on any
// one statement so a stuck query cannot hold a request forever.
std::string session_options(std::chrono::milliseconds statement_timeout) {
  return "-c TimeZone=UTC -c DateStyle=ISO -c statement_timeout=" + std::to_string(statement_timeout.count());
}

}  // namespace

std::string one_line(const char* message) {
  std::string s = message ? message : "";
  std::replace(s.begin(), s.end(), '\n', ' ');
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

runtime::task<bool> await_socket(PGconn* conn, unsigned mask, const runtime::Deadline* deadline) {
  runtime::Poll op(PQsocket(conn), mask, deadline);
  int events = co_await op;
  co_return events > 0;
}

runtime::task<Connected> connect(const std::string& url, std::chrono::milliseconds statement_timeout,
                                 const runtime::Deadline& deadline, const std::string& application_name) {
  const std::string options = session_options(statement_timeout);
  const char* keys[] = {"dbname", "options", "application_name", "client_encoding", nullptr};
  const char* values[] = {url.c_str(), options.c_str(), application_name.c_str(), "UTF8", nullptr};
  PGconn* conn = PQconnectStartParams(keys, values, 1);
  if (!conn) co_return Connected{nullptr, "out of memory"};
  PostgresPollingStatusType polling = PQstatus(conn) == CONNECTION_BAD ? PGRES_POLLING_FAILED : PGRES_POLLING_WRITING;
  while (polling != PGRES_POLLING_OK) {
    if (polling == PGRES_POLLING_FAILED) {
      Connected failed{nullptr, one_line(PQerrorMessage(conn))};
      PQfinish(conn);
      co_return failed;
    }
    if (!co_await await_socket(conn, polling == PGRES_POLLING_READING ? POLLIN : POLLOUT, &deadline)) {
      PQfinish(conn);
      co_return Connected{nullptr, "timed out connecting to the database"};
    }
    polling = PQconnectPoll(conn);
  }
  if (PQsetnonblocking(conn, 1) != 0) {
    Connected failed{nullptr, one_line(PQerrorMessage(conn))};
    PQfinish(conn);
    co_return failed;
  }
  co_return Connected{conn, {}};
}

}  // namespace storeapi::db
