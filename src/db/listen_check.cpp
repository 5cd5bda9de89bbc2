#include "db/listen_check.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <memory>
#include <string_view>

namespace storeapi::db {
namespace {

using Conn = std::unique_ptr<PGconn, void (*)(PGconn*)>;

// Named apart from the server's own listener ("storeapi"), which the admin tool counts.
Conn open(const std::string& url) {
  const char* keys[] = {"dbname", "connect_timeout", "application_name", nullptr};
  const char* values[] = {url.c_str(), "5", "storeapi-listen-check", nullptr};
  Conn conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1), &PQfinish);
  if (PQstatus(conn.get()) != CONNECTION_OK) conn.reset();
  return conn;
}

bool command_ok(PGconn* conn, const std::string& sql) {
  PGresult* r = PQexec(conn, sql.c_str());
  const ExecStatusType status = PQresultStatus(r);
  PQclear(r);
  return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

bool heard(PGconn* conn, std::string_view channel) {
  bool found = false;
  while (PGnotify* n = PQnotifies(conn)) {
    found = found || channel == n->relname;
    PQfreemem(n);
  }
  return found;
}

}  // namespace

bool listen_session_is_deaf(const std::string& url, std::chrono::milliseconds wait) {
  const std::string channel = "storeapi_listen_check_" + std::to_string(::getpid());
  Conn listener = open(url);
  if (!listener || !command_ok(listener.get(), "listen " + channel)) return false;
  Conn sender = open(url);
  if (!sender || !command_ok(sender.get(), "select pg_notify('" + channel + "', '')")) return false;
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    if (!PQconsumeInput(listener.get())) return false;  // the connection broke: not the pooler's doing
    if (heard(listener.get(), channel)) return false;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    pollfd fd{PQsocket(listener.get()), POLLIN, 0};
    ::poll(&fd, 1, static_cast<int>(left.count()));
  }
}

}  // namespace storeapi::db
