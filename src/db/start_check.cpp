#include "db/start_check.hpp"

#include <libpq-fe.h>

#include <memory>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "db/connect.hpp"

namespace storeapi::db {
namespace {

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

}  // namespace

StartCheck check_database_at_start(const std::string& url, std::chrono::seconds timeout) {
  const std::string seconds = std::to_string(timeout.count());
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), seconds.c_str(), nullptr};
  const std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectdbParams(keys, values, /*expand_dbname=*/1),
                                                        &PQfinish);
  // No hints then: the pools say themselves that the database does not answer.
  if (PQstatus(conn.get()) != CONNECTION_OK)
    return {"schema not checked, the database is unreachable: " + one_line(PQerrorMessage(conn.get())), {}};
  std::vector<std::string> found = hints(conn.get());
  return {check_schema(conn.get()), std::move(found)};
}

}  // namespace storeapi::db
