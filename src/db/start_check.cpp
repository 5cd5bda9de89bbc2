#include "db/start_check.hpp"

#include <libpq-fe.h>
#include <poll.h>
#include <unistd.h>

#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "db/connect.hpp"

namespace storeapi::db {
namespace {

using Conn = std::unique_ptr<PGconn, void (*)(PGconn*)>;

// One row: whether the schema is there, and whether the session's role may read the
// keys and use the API's functions (true where the object is missing: the first hint
// covers that).
constexpr const char* kProbe =
    "select to_regclass('public.schema_migrations') is not null and to_regclass('public.api_keys') is not null,"
    " coalesce(has_table_privilege(to_regclass('public.api_keys'), 'SELECT'), true)"
    "   and coalesce(has_schema_privilege(to_regnamespace('api'), 'USAGE'), true),"
    " current_user";

std::vector<std::string> hints(PGconn* conn) {
  PGresult* r = PQexec(conn, kProbe);
  std::vector<std::string> found;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
    const std::string role = PQgetvalue(r, 0, 2);
    if (std::string_view(PQgetvalue(r, 0, 0)) != "t")
      found.push_back("the database has no schema yet (requests fail until it has): run storeapi-admin migrate "
                      "(docs/DEPLOY.md, \"The database and its roles\")");
    else if (std::string_view(PQgetvalue(r, 0, 1)) != "t")
      found.push_back("role " + role +
                      " may not read api_keys or use schema api (requests fail with permission denied): grant it "
                      "the runtime role's rights, or connect as the runtime role storeapi (docs/DEPLOY.md, \"The "
                      "database and its roles\")");
  }
  PQclear(r);
  return found;
}

// "" when the schema is new enough; why it was not checked when it cannot tell. Throws
// when it is older than kRequiredSchema.
std::string check_schema(PGconn* conn) {
  PGresult* r = PQexec(conn, "select coalesce(max(version), '') as version from schema_migrations");
  const bool answered = PQresultStatus(r) == PGRES_TUPLES_OK;
  const std::string found = answered ? PQgetvalue(r, 0, 0) : "";
  const std::string error = answered ? "" : one_line(PQresultErrorMessage(r));
  PQclear(r);
  // No schema_migrations (a database never migrated) or none readable by this role: not a
  // schema of an older release, said and let through, as an unreachable database is.
  if (!answered) return "schema not checked: " + error + " (run `storeapi-admin migrate` if the database is new)";
  // Versions are zero-padded numbers of one width: text order is their order.
  if (found < kRequiredSchema)
    throw std::runtime_error("the database's schema is older than this release needs (migration " +
                             std::string(kRequiredSchema) + ", found " + (found.empty() ? "none" : found) +
                             "): run `storeapi-admin migrate` with this release first (docs/DEPLOY.md, \"Upgrading\")");
  return "";
}

// A session of the LISTEN check, named apart from the server's own listener ("storeapi"),
// which the admin tool counts; nullptr when it could not be opened.
Conn open_for_listen_check(const std::string& url) {
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

// LISTENs on a channel of its own on a session of its own at `url`, NOTIFYs it from
// `sender` (a session at `url` too; nullptr: one of its own), and waits up to `wait` to
// hear it. True when both sessions were there and the notification did not arrive; false
// when it did, or when the database could not be reached.
bool listen_session_is_deaf(const std::string& url, PGconn* sender, std::chrono::milliseconds wait) {
  const std::string channel = "storeapi_listen_check_" + std::to_string(::getpid());
  Conn listener = open_for_listen_check(url);
  if (!listener || !command_ok(listener.get(), "listen " + channel)) return false;
  Conn own_sender(nullptr, &PQfinish);
  if (!sender) {
    own_sender = open_for_listen_check(url);
    sender = own_sender.get();
  }
  if (!sender || !command_ok(sender, "select pg_notify('" + channel + "', '')")) return false;
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

}  // namespace

StartCheck check_database_at_start(const std::string& url, const std::string& listen_url,
                                   std::chrono::seconds timeout) {
  const std::string seconds = std::to_string(timeout.count());
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), seconds.c_str(), nullptr};
  const Conn conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1), &PQfinish);
  // The LISTEN check's notification goes out on this connection when it is to the same URL.
  const bool same_url = listen_url == url;
  // No hints then: the pools say themselves that the database does not answer. Nor is the
  // same URL listened at: unreachable, it is no pooler's doing (StartCheck::listen_deaf).
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return {"schema not checked, the database is unreachable: " + one_line(PQerrorMessage(conn.get())), {},
            !same_url && listen_session_is_deaf(listen_url, nullptr, kListenCheckWait)};
  std::vector<std::string> found = hints(conn.get());
  std::string unchecked = check_schema(conn.get());
  const bool deaf = listen_session_is_deaf(listen_url, same_url ? conn.get() : nullptr, kListenCheckWait);
  return {std::move(unchecked), std::move(found), deaf};
}

}  // namespace storeapi::db
