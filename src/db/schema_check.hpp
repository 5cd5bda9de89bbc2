#pragma once
// The start-up check that the database holds the schema this build needs: a server of a
// new release started before `storeapi-admin migrate` ran would otherwise fail request
// after request on a missing column or function. One query, once, before the cores start
// (docs/MIGRATIONS.md, "The schema a release needs").
#include <chrono>
#include <string>
#include <string_view>

namespace storeapi::db {

// The newest migration this build's SQL depends on (sql/NNN_*.sql). Raised by hand, to
// the number of a new migration, in the change that makes the server use what that
// migration adds; a migration the server does not use leaves it alone, so that a node of
// this build still starts on a database that has not taken it.
inline constexpr std::string_view kRequiredSchema = "035";

// Blocking. Throws std::runtime_error (one line, naming `storeapi-admin migrate`) when the
// database at `url` answers and its newest recorded migration is older than
// kRequiredSchema. Returns a notice ("" if none) when it cannot tell: the database cannot
// be reached within `timeout` (the server starts anyway and reconnects, the pool's rule,
// so an outage at start does not become a crash loop), or it has no schema_migrations the
// server's role can read (a database never migrated).
std::string check_schema(const std::string& url, std::chrono::seconds timeout);

}  // namespace storeapi::db
