#include "db/setup_hints.hpp"

#include <libpq-fe.h>

#include <string_view>

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

}  // namespace

std::vector<std::string> setup_hints(const std::string& url, std::chrono::seconds timeout) {
  const std::string seconds = std::to_string(timeout.count());
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), seconds.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::vector<std::string> hints;
  if (PQstatus(conn) == CONNECTION_OK) {
    PGresult* r = PQexec(conn, kProbe);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
      const std::string role = PQgetvalue(r, 0, 2);
      if (std::string_view(PQgetvalue(r, 0, 0)) != "t")
        hints.push_back("the database has no schema yet (requests fail until it has): run storeapi-admin migrate "
                        "(docs/DEPLOY.md, \"The database and its roles\")");
      else if (std::string_view(PQgetvalue(r, 0, 1)) != "t")
        hints.push_back("role " + role +
                        " may not read api_keys or use schema api (requests fail with permission denied): grant it "
                        "the runtime role's rights, or connect as the runtime role storeapi (docs/DEPLOY.md, \"The "
                        "database and its roles\")");
    }
    PQclear(r);
  }
  PQfinish(conn);
  return hints;
}

}  // namespace storeapi::db
