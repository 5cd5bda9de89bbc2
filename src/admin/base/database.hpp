#pragma once
// Connecting to PostgreSQL and reading values back in the API's output formats.
#include <pqxx/pqxx>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace storeapi::admin {

// The database URL: the --database-url flag if given (UsageError when it carries a
// password), else STOREAPI_DATABASE_URL, else "" when libpq's own variables name a
// database (PGSERVICE, PGHOST, ...: libpq then reads them and its service and password
// files). Throws UsageError when none of these is set.
std::string database_url(const std::optional<std::string>& flag);

// UsageError when the libpq URL or connection string `url`, given as `flag`, carries a
// password (or is not one); the message names where a password goes instead: `elsewhere`
// (e.g. "STOREAPI_DATABASE_URL, "), then the password and service files.
void refuse_password(const std::string& url, const std::string& flag, const std::string& elsewhere = "");

// `conninfo` (URL or key=value form) as user `user` with no password, in key=value form:
// how the tool reaches a pod whose URL the directory lists (the API nodes' URL) as its own
// role or as the mover's, the password then coming from a password file (PGPASSFILE,
// ~/.pgpass) or a certificate, never from the database. UsageError when it does not parse.
std::string as_user(const std::string& conninfo, const std::string& user);

// A connection whose session time zone is UTC, so timestamps read back as "...+00".
// (pqxx 6 connections cannot be moved, hence the pointer.)
std::unique_ptr<pqxx::connection> connect(const std::string& url);

// A timestamptz field as RFC 3339 UTC with milliseconds; nullopt for NULL.
std::optional<std::string> timestamp(const pqxx::field& field);

// Nullable fields (pqxx 6's optional support does not reach field::as).
std::optional<std::string> optional_text(const pqxx::field& field);
std::optional<std::int64_t> optional_int(const pqxx::field& field);

// A PostgreSQL text[] literal, {"a","b"}, with quotes and backslashes escaped.
std::string text_array_literal(const std::vector<std::string>& items);

// A PostgreSQL one-dimensional text array field (e.g. scopes) as strings.
std::vector<std::string> text_array(const pqxx::field& field);

}  // namespace storeapi::admin
