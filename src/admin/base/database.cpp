#include "admin/base/database.hpp"

#include "admin/base/errors.hpp"
#include "common/time.hpp"
#include "db/conninfo.hpp"

#include <libpq-fe.h>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace storeapi::admin {

namespace {

using ConninfoOptions = std::unique_ptr<PQconninfoOption, void (*)(PQconninfoOption*)>;

// libpq's own parse of `conninfo` (URL or key=value form), named `flag` in the error.
ConninfoOptions parse_conninfo(const std::string& conninfo, const std::string& flag) {
  char* parse_error = nullptr;
  ConninfoOptions options(PQconninfoParse(conninfo.c_str(), &parse_error), &PQconninfoFree);
  // libpq's message may quote the text, password and all: it is not repeated.
  if (parse_error) PQfreemem(parse_error);
  if (!options) throw UsageError(flag + " is not a libpq connection string or URL");
  return options;
}

// A value of a key=value connection string, quoted.
std::string conninfo_value(std::string_view text) {
  std::string out(1, '\'');
  for (char c : text) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

// Whether libpq's own parser finds a password in `conninfo` (URL or key=value form).
bool has_password(const std::string& conninfo, const std::string& flag) {
  const std::optional<bool> password = db::conninfo_has_password(conninfo);
  if (!password) throw UsageError(flag + " is not a libpq connection string or URL");
  return *password;
}

// Variables by which libpq finds a database with no connection string at all.
bool libpq_environment_names_a_database() {
  for (const char* name : {"PGSERVICE", "PGHOST", "PGHOSTADDR", "PGDATABASE"})
    if (const char* v = std::getenv(name); v && *v) return true;
  return false;
}

}  // namespace

void refuse_password(const std::string& url, const std::string& flag, const std::string& elsewhere) {
  // A command line is readable by every local user (/proc/PID/cmdline, ps).
  if (has_password(url, flag))
    throw UsageError(flag + " must not carry a password (every local user can read a command line): put it in " +
                     elsewhere + "a password file (PGPASSFILE, ~/.pgpass) or a service file (PGSERVICE)");
}

std::string database_url(const std::optional<std::string>& flag) {
  if (flag) {
    refuse_password(*flag, "--database-url", "STOREAPI_DATABASE_URL, ");
    return *flag;
  }
  if (const char* env = std::getenv("STOREAPI_DATABASE_URL"); env && *env) return env;
  if (libpq_environment_names_a_database()) return "";
  throw UsageError("no database: set STOREAPI_DATABASE_URL (or libpq's PGSERVICE or PGHOST) or pass --database-url");
}

std::string as_user(const std::string& conninfo, const std::string& user) {
  ConninfoOptions options = parse_conninfo(conninfo, "a pod's URL");
  std::string out = "user=";
  out += conninfo_value(user);
  for (const PQconninfoOption* o = options.get(); o->keyword; ++o) {
    std::string_view keyword(o->keyword);
    if (keyword == "user" || keyword == "password" || !o->val) continue;
    out.push_back(' ');
    out.append(keyword).push_back('=');
    out += conninfo_value(o->val);
  }
  return out;
}

std::unique_ptr<pqxx::connection> connect(const std::string& url) {
  auto conn = std::make_unique<pqxx::connection>(url);
  conn->set_variable("TimeZone", "'UTC'");
  conn->set_variable("application_name", "'storeapi-admin'");
  return conn;
}

std::optional<std::string> timestamp(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  auto micros = timefmt::parse_pg_timestamptz(field.c_str());
  if (!micros) throw std::runtime_error("unexpected timestamp from the database: " +
                                        std::string(field.c_str()));
  return timefmt::format_ms_utc(*micros);
}

std::optional<std::string> optional_text(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return std::string(field.c_str());
}

std::optional<std::int64_t> optional_int(const pqxx::field& field) {
  if (field.is_null()) return std::nullopt;
  return field.as<std::int64_t>();
}

std::string text_array_literal(const std::vector<std::string>& items) {
  std::string out = "{";
  for (const auto& item : items) {
    if (out.size() > 1) out.push_back(',');
    out.push_back('"');
    for (char c : item) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

std::vector<std::string> text_array(const pqxx::field& field) {
  std::vector<std::string> out;
  auto parser = field.as_array();
  for (auto [kind, value] = parser.get_next(); kind != pqxx::array_parser::done;
       std::tie(kind, value) = parser.get_next()) {
    if (kind == pqxx::array_parser::string_value) out.push_back(value);
  }
  return out;
}

}  // namespace storeapi::admin
