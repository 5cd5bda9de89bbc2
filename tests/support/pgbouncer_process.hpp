#pragma once
// Debian's PgBouncer in front of one database of a test, on a free loopback port: the
// alias "session" pools in session mode, "transaction" in transaction mode. As the server
// needs it through a pooler: the `options` startup parameter (libpq's session settings) is
// ignored, as PgBouncer 1.18 refuses connections that carry it. As root it runs as the
// `postgres` user (PgBouncer will not run as root).
#include <cstdint>
#include <memory>
#include <string>

#include "support/server_process.hpp"

namespace storeapi::testing {

class PgBouncerProcess {
 public:
  // In front of `database_url` (postgresql://user@host:port/name, trust authentication);
  // returns once it accepts connections. Throws with its log when it does not.
  explicit PgBouncerProcess(const std::string& database_url);
  ~PgBouncerProcess();
  PgBouncerProcess(const PgBouncerProcess&) = delete;
  PgBouncerProcess& operator=(const PgBouncerProcess&) = delete;

  // The database through PgBouncer, pooled in "session" or "transaction" mode.
  std::string url(const std::string& mode) const;
  // How many client connections PgBouncer has for that alias now (SHOW CLIENTS).
  int clients(const std::string& mode) const;

 private:
  std::string dir_;
  std::string user_;
  std::uint16_t port_;
  std::unique_ptr<ServerProcess> process_;
};

}  // namespace storeapi::testing
