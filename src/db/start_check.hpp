#pragma once
// The start-up check of the database, on one connection before the cores start: that it
// holds the schema this build needs (a server of a new release started before
// `storeapi-admin migrate` ran would otherwise fail request after request on a missing
// column or function: docs/MIGRATIONS.md, "The schema a release needs"), and hints for
// the mistakes an operator makes first — a database nobody migrated (every request would
// fail on `relation "api_keys" does not exist`, for ever) and a role without the rights
// the server needs (`permission denied`), one line each naming what to run.
//
// And the check of the server's LISTEN URL (STOREAPI_LISTEN_DATABASE_URL, else
// STOREAPI_DATABASE_URL): a LISTEN session behind a transaction pooler (PgBouncer's
// pool_mode = transaction) is handed back to the pool after each statement, so the
// notifications meant for it — every key revocation — never reach the server. Such a
// session is told apart by what it does: it does not hear a notification sent to it from
// another session. That takes two sessions, so it cannot all run on the one connection:
// the LISTEN session is one of its own (named apart from the server's own listener,
// "storeapi", which the admin tool counts), and the notification is sent from the check's
// connection when the LISTEN URL is the database's URL. When they differ it is sent from a
// third connection to the LISTEN URL: the two URLs may lead to different servers or
// databases (the LISTEN URL is there to go around a pooler), and a notification sent
// through the other one that did not arrive would blame a pooler for what is a wrong URL.
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::db {

// The newest migration this build's SQL depends on (sql/NNN_*.sql). Raised by hand, to
// the number of a new migration, in the change that makes the server use what that
// migration adds; a migration the server does not use leaves it alone, so that a node of
// this build still starts on a database that has not taken it.
inline constexpr std::string_view kRequiredSchema = "041";

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
  // A LISTEN session at the LISTEN URL did not hear a notification sent to it within
  // kListenCheckWait: the server must not start. False too when that database could
  // not be reached (the listener's own reconnecting copes with that).
  bool listen_deaf = false;
};

// How long the LISTEN check waits for its notification.
inline constexpr std::chrono::seconds kListenCheckWait{5};

// Blocking: one connection to the database at `url`, bounded by `timeout`, and the LISTEN
// check of `listen_url` (on that connection and one more when the URLs are equal, else on
// two of its own). Throws std::runtime_error (one line, naming `storeapi-admin migrate`)
// when the database answers and its newest recorded migration is older than
// kRequiredSchema.
StartCheck check_database_at_start(const std::string& url, const std::string& listen_url,
                                   std::chrono::seconds timeout);

}  // namespace storeapi::db
