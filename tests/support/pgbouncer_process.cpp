#include "support/pgbouncer_process.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <libpq-fe.h>

#include <memory>
#include <pqxx/pqxx>
#include <stdexcept>

#include "support/free_port.hpp"
#include "support/poll.hpp"

namespace storeapi::testing {

PgBouncerProcess::PgBouncerProcess(const std::string& database_url) : port_(free_port()) {
  // postgresql://user@host:port/name
  const std::size_t scheme = database_url.find("://") + 3, at = database_url.find('@', scheme),
                    colon = database_url.find(':', at), slash = database_url.find('/', colon);
  if (at == std::string::npos || colon == std::string::npos || slash == std::string::npos)
    throw std::runtime_error("PgBouncerProcess: expected postgresql://user@host:port/name, got " + database_url);
  user_ = database_url.substr(scheme, at - scheme);
  const std::string host = database_url.substr(at + 1, colon - at - 1), port = database_url.substr(colon + 1, slash - colon - 1),
                    name = database_url.substr(slash + 1);
  dir_ = (std::filesystem::temp_directory_path() / "storeapi-pgbouncer-XXXXXX").string();
  if (!::mkdtemp(dir_.data())) throw std::runtime_error("PgBouncerProcess: mkdtemp failed");
  ::chmod(dir_.c_str(), 0755);  // readable by the postgres user it runs as under root
  {
    std::ofstream users(dir_ + "/users.txt");
    users << '"' << user_ << "\" \"\"\n";
    std::ofstream ini(dir_ + "/pgbouncer.ini");
    const std::string target = "host=" + host + " port=" + port + " dbname=" + name;
    ini << "[databases]\n"
        << "session = " << target << " pool_mode=session\n"
        << "transaction = " << target << " pool_mode=transaction\n"
        << "[pgbouncer]\n"
        << "listen_addr = 127.0.0.1\nlisten_port = " << port_ << "\nunix_socket_dir =\n"
        << "auth_type = trust\nauth_file = " << dir_ << "/users.txt\nadmin_users = " << user_ << "\n"
        << "ignore_startup_parameters = options\nlogfile =\npidfile =\n";
  }
  ProcessOptions options;
  options.binary = "/usr/sbin/pgbouncer";
  if (::geteuid() == 0) options.args = {"-u", "postgres"};
  options.args.push_back(dir_ + "/pgbouncer.ini");
  options.inherit_settings = false;
  options.wait_for_listening = false;
  process_ = std::make_unique<ServerProcess>(options);
  const bool up = eventually([&] {
    try {
      pqxx::connection conn(url("session"));
      return true;
    } catch (const std::exception&) {
      return false;
    }
  });
  if (!up) throw std::runtime_error("pgbouncer did not start: " + process_->stdout_text() + process_->stderr_text());
}

PgBouncerProcess::~PgBouncerProcess() {
  process_.reset();
  std::filesystem::remove_all(dir_);
}

std::string PgBouncerProcess::url(const std::string& mode) const {
  return "postgresql://" + user_ + "@127.0.0.1:" + std::to_string(port_) + "/" + mode;
}

int PgBouncerProcess::clients(const std::string& mode) const {
  // libpq itself: libpqxx refuses the admin console's server version (PgBouncer's own).
  std::unique_ptr<PGconn, decltype(&PQfinish)> conn(PQconnectdb(url("pgbouncer").c_str()), &PQfinish);
  std::unique_ptr<PGresult, decltype(&PQclear)> result(PQexec(conn.get(), "SHOW CLIENTS"), &PQclear);
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK)
    throw std::runtime_error("SHOW CLIENTS: " + std::string(PQerrorMessage(conn.get())));
  const int database = PQfnumber(result.get(), "database");
  int n = 0;
  for (int row = 0; row < PQntuples(result.get()); ++row) n += mode == PQgetvalue(result.get(), row, database);
  return n;
}

}  // namespace storeapi::testing
