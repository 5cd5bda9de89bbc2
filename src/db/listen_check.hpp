#pragma once
// The start-up check of the server's LISTEN URL (STOREAPI_LISTEN_DATABASE_URL, else
// STOREAPI_DATABASE_URL): a LISTEN session behind a transaction pooler (PgBouncer's
// pool_mode = transaction) is handed back to the pool after each statement, so the
// notifications meant for it — every key revocation — never reach the server. Such a
// session is told apart by what it does: it does not hear a notification sent to it.
#include <chrono>
#include <string>

namespace storeapi::db {

// Blocking (before the cores start). LISTENs on a channel of its own on one connection to
// `url`, NOTIFYs it from a second, and waits up to `wait` to hear it. True when both
// connections were made and the notification did not arrive; false when it did, or when
// the database could not be reached (the listener's own reconnecting copes with that).
bool listen_session_is_deaf(const std::string& url, std::chrono::milliseconds wait);

}  // namespace storeapi::db
