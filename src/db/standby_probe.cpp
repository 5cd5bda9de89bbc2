#include "db/standby_probe.hpp"

#include <libpq-fe.h>

#include <stdexcept>

#include "db/connect.hpp"

namespace storeapi::db {

void probe_standby(const std::string& url, std::chrono::seconds timeout) {
  const std::string seconds = std::to_string(timeout.count());
  const char* keys[] = {"dbname", "connect_timeout", nullptr};
  const char* values[] = {url.c_str(), seconds.c_str(), nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  std::string error;
  if (PQstatus(conn) != CONNECTION_OK) {
    error = one_line(PQerrorMessage(conn));
  } else if (PGresult* r = PQexec(conn, "select pg_is_in_recovery()"); PQresultStatus(r) != PGRES_TUPLES_OK) {
    error = one_line(PQresultErrorMessage(r));
    PQclear(r);
  } else {
    if (std::string_view(PQgetvalue(r, 0, 0)) != "t")
      error = "not a hot standby (pg_is_in_recovery() is false): reads would go to a primary";
    PQclear(r);
  }
  PQfinish(conn);
  if (!error.empty()) throw std::runtime_error(error);
}

}  // namespace storeapi::db
