#pragma once
// What a store move checks on both pods before it starts, each failure a CommandError
// naming the fix.
#include <pqxx/pqxx>

#include <string>

namespace storeapi::admin {

// What a pod that stores cannot move off needs, naming the commands (docs/DEPLOY.md,
// "Moving stores between pods").
inline constexpr const char* kLogicalWalFix =
    "moving a store off it needs wal_level = logical: ALTER SYSTEM SET wal_level = logical on its primary and "
    "restart it (under Patroni: patronictl edit-config, then patronictl restart; docs/DEPLOY.md, \"Moving stores "
    "between pods\")";

// The source writes logical WAL (wal_level = logical), which its publication needs.
void check_logical_wal(pqxx::connection& source, const std::string& source_name);

// Both pods ran the same migrations and repeatable files: the rows keep their shape.
void check_same_schema(pqxx::connection& source, pqxx::connection& target, const std::string& target_name);

// The target's outbox partitions take the store's outbox rows: its slots reach as far
// ahead as the source's (extended when they do not: rows written during the move need
// them) and one holds the store's oldest row.
void cover_outbox(pqxx::connection& source, pqxx::connection& target, const std::string& store_id,
                  const std::string& target_name);

}  // namespace storeapi::admin
