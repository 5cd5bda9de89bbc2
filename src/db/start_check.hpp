#pragma once
// The start-up check of the database, on one connection before the cores start: that it
// holds the schema this build needs (a server of a new release started before
// `storeapi-admin migrate` ran would otherwise fail request after request on a missing
// column or function: docs/MIGRATIONS.md, "The schema a release needs"), and hints for
// the mistakes an operator makes first — a database nobody migrated (every request would
// fail on `relation "api_keys" does not exist`, for ever) and a role without the rights
// the server needs (`permission denied`), one line each naming what to run.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::db {

// The newest migration this build's SQL depends on (sql/NNN_*.sql). Raised by hand, to
// the number of a new migration, in the change that makes the server use what that
// migration adds; a migration the server does not use leaves it alone, so that a node of
// this build still starts on a database that has not taken it.
inline constexpr std::string_view kRequiredSchema = "035";

// What the check has to say when the server may start.
struct StartCheck {
  // Why the schema was not checked ("" when it was): the database cannot be reached
  // within the timeout (the server starts anyway and reconnects, the pool's rule, so an
  // outage at start does not become a crash loop), or it has no schema_migrations the
  // server's role can read (a database never migrated).
  std::string unchecked;
  // At most one: the database has no schema, or the role may not read the keys or use
  // the API's functions. The server starts anyway and recovers once it is fixed.
  std::vector<std::string> hints;
};

// Blocking: one connection to the database at `url`, bounded by `timeout`. Throws
// std::runtime_error (one line, naming `storeapi-admin migrate`) when the database
// answers and its newest recorded migration is older than kRequiredSchema.
StartCheck check_database_at_start(const std::string& url, std::chrono::seconds timeout);

}  // namespace storeapi::db
