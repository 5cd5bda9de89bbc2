#pragma once
// Confirmations on the invalidation channel (docs/DECISIONS.md, "Server invalidation
// channel"). NOTIFY is asynchronous: the admin tool's commit returns before the servers
// have heard of the change, so a request sent right after `key revoke` could still be
// served from a core's cache. Each server therefore answers every invalidation, once all
// of its cores have applied it, with `ack:<payload>` on the same channel, and the admin
// tool waits for those answers before it returns.
#include <string>
#include <string_view>

#include "auth/confirmation.hpp"
#include "db/pool.hpp"
#include "db/statement.hpp"
#include "runtime/task.hpp"

namespace storeapi::auth {

// The statement confirm_invalidation needs prepared on every pooled connection.
extern const db::Statement kConfirmInvalidation;

// Sends the confirmation of `payload` through `pool`. Nothing for "*" (nobody waits for it). When the
// database cannot take it, the waiting admin tool gives up after its limit.
runtime::task<void> confirm_invalidation(db::Pool& pool, std::string payload);

}  // namespace storeapi::auth
