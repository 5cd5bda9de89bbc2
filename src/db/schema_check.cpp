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
  std::string found;
  std::string error;
  PGresult* r = PQexec(conn, "select coalesce(max(version), '') as version from schema_migrations");
  if (PQresultStatus(r) == PGRES_TUPLES_OK)
    found = PQgetvalue(r, 0, 0);
  else
    error = one_line(PQresultErrorMessage(r));
  PQclear(r);
  PQfinish(conn);
  // Versions are zero-padded numbers of one width: text order is their order.
  if (!error.empty() || found < kRequiredSchema)
    throw std::runtime_error("the database's schema is older than this release needs (migration " +
                             std::string(kRequiredSchema) + ", found " +
                             (error.empty() ? (found.empty() ? std::string("none") : found) : error) +
                             "): run `storeapi-admin migrate` with this release first (docs/DEPLOY.md, \"Upgrading\")");
  return "";
}

}  // namespace storeapi::db
