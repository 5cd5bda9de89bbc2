#include "db/schema_check.hpp"

#include <libpq-fe.h>

#include <stdexcept>

#include "db/connect.hpp"

namespace storeapi::db {

std::string check_schema(const std::string& url, std::chrono::seconds timeout) {
  const std::string seconds = std::to_string(timeout.count());
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), seconds.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string notice = "schema not checked, the database is unreachable: " + one_line(PQerrorMessage(conn));
    PQfinish(conn);
    return notice;
  }
  PGresult* r = PQexec(conn, "select coalesce(max(version), '') as version from schema_migrations");
  const bool answered = PQresultStatus(r) == PGRES_TUPLES_OK;
  const std::string found = answered ? PQgetvalue(r, 0, 0) : "";
  const std::string error = answered ? "" : one_line(PQresultErrorMessage(r));
  PQclear(r);
  PQfinish(conn);
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

}  // namespace storeapi::db
