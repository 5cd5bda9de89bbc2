#pragma once
// The database roles (docs/DEPLOY.md "Database roles", docs/DECISIONS.md "Roles"): the
// owner role owns every object and runs `migrate`; the runtime role of the API nodes and
// dispatchers gets the DML they issue and EXECUTE on the API functions, nothing it could
// escalate with (no CREATE, no ownership); the mover (`store move`) is given to the tool
// apart from the database and never stored in it.
#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

inline constexpr const char* kRuntimeRole = "storeapi";
inline constexpr const char* kOwnerRole = "storeapi_owner";

// Grants the runtime role `role` what it needs on every object now in the database, and
// (default privileges) on what the current role creates later: outbox partitions made
// by api.extend_outbox_partitions included. Nothing when the role does not exist or is
// the current role itself (a deployment whose runtime role still owns the schema).
void grant_runtime(pqxx::transaction_base& work, const std::string& role = kRuntimeRole);

// Hands every object `from` owns in the connection's database to `to` and gives `from`
// the runtime grants instead, in the caller's transaction (so the API nodes, connected as
// `from`, never see a moment without either). Needs a role that may act as both (a
// superuser).
void transfer_ownership(pqxx::transaction_base& work, const std::string& from, const std::string& to);

}  // namespace storeapi::admin
