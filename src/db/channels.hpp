#pragma once
// The NOTIFY channels, as api.config names them (sql/001_foundation.sql). The programs
// LISTEN before they have asked the database anything, so they know the names
// themselves; tests/api/sql_agreement_pgtest.cpp holds these to api.config.
namespace storeapi::db {

// api.config('invalidate_channel'): key and store changes the server's caches must drop,
// and the servers' confirmations of them (auth/invalidation.hpp).
inline constexpr const char* kInvalidateChannel = "storeapi_invalidate";
// api.config('events_channel'): outbox rows committed; wakes the dispatchers.
inline constexpr const char* kEventsChannel = "storeapi_events";

}  // namespace storeapi::db
