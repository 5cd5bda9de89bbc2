#include "admin/migrations/roles.hpp"

#include "admin/base/errors.hpp"

namespace storeapi::admin {
namespace {

// The directory's bookkeeping, which only `migrate`, `pod add` and `store move` write: the
// runtime role reads it (the pods' addresses, the schema version) and writes none of it.
constexpr const char* kReadOnly = "schema_migrations, schema_functions, pods, store_moves";

bool role_exists(pqxx::transaction_base& work, const std::string& role) {
  return !work.exec_params("select 1 from pg_roles where rolname = $1", role).empty();
}

}  // namespace

void grant_runtime(pqxx::transaction_base& work, const std::string& role) {
  if (!role_exists(work, role)) return;
  if (work.exec_params1("select current_user = $1 as same", role)["same"].as<bool>()) return;
  const std::string r = work.quote_name(role);
  work.exec("grant usage on schema api to " + r);
  work.exec("revoke create on schema public, api from " + r);
  work.exec("grant select, insert, update, delete on all tables in schema public to " + r);
  work.exec("revoke insert, update, delete on " + std::string(kReadOnly) + " from " + r);
  work.exec("grant usage, select on all sequences in schema public to " + r);
  work.exec("grant execute on all functions in schema api to " + r);
  work.exec("alter default privileges in schema public grant select, insert, update, delete on tables to " + r);
  work.exec("alter default privileges in schema public grant usage, select on sequences to " + r);
  work.exec("alter default privileges in schema api grant execute on functions to " + r);
}

void transfer_ownership(pqxx::transaction_base& work, const std::string& from, const std::string& to) {
  for (const std::string& role : {from, to})
    if (!role_exists(work, role)) throw CommandError("no role named '" + role + "' (docs/DEPLOY.md \"Database roles\")");
  if (from == to) throw UsageError("--from and --to name the same role");
  work.exec("reassign owned by " + work.quote_name(from) + " to " + work.quote_name(to));
  work.exec("set local role " + work.quote_name(to));
  grant_runtime(work, from);
  work.exec("reset role");
}

}  // namespace storeapi::admin
