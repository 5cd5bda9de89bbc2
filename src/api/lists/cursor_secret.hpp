#pragma once
// The fleet's cursor-signing secret (sql/020_cursor_secret.sql): one per database, so a
// cursor issued by any node of a fleet pages on every other. STOREAPI_SECRET overrides it.
#include <string>

#include "db/pool.hpp"
#include "db/row.hpp"
#include "db/statement.hpp"
#include "runtime/event.hpp"
#include "runtime/task.hpp"

namespace storeapi::api {

#define STOREAPI_CURSOR_SECRET_COLUMNS(X) X(secret, text)
STOREAPI_DB_ROW(CursorSecret, STOREAPI_CURSOR_SECRET_COLUMNS);
extern const db::Statement kCursorSecret;

// Reads the secret into `out` as soon as the pool can (again once the pool changes while
// the database is unreachable, with backoff while it answers without the secret), then
// ends. `out` stays empty until then; `attempted` is broadcast after every attempt.
runtime::task<void> load_cursor_secret(db::Pool& pool, std::string& out, runtime::Event& attempted);

}  // namespace storeapi::api
