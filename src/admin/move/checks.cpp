#include "admin/move/checks.hpp"

#include "admin/base/errors.hpp"

namespace storeapi::admin {
namespace {

std::string schema_of(pqxx::connection& conn) {
  pqxx::nontransaction work(conn);
  return work.exec1(
      "select coalesce((select string_agg(version || ':' || checksum, ',' order by version) from schema_migrations), '')"
      " || '/' || coalesce((select string_agg(version || ':' || checksum, ',' order by version)"
      "                      from schema_functions), '') as schema")["schema"]
      .c_str();
}

}  // namespace

void check_logical_wal(pqxx::connection& source, const std::string& source_name) {
  pqxx::nontransaction work(source);
  std::string level = work.exec1("show wal_level")["wal_level"].c_str();
  if (level != "logical")
    throw CommandError("pod '" + source_name + "' has wal_level = " + level + "; " + kLogicalWalFix);
}

void check_same_schema(pqxx::connection& source, pqxx::connection& target, const std::string& target_name) {
  if (schema_of(source) != schema_of(target))
    throw CommandError("pod '" + target_name +
                       "' is not migrated like the store's pod: run storeapi-admin migrate against both");
}

void cover_outbox(pqxx::connection& source, pqxx::connection& target, const std::string& store_id,
                  const std::string& target_name) {
  pqxx::nontransaction from(source);
  auto s = from.exec_params1(
      "select (select min(t)::text from (select min(created_at) t from events where store_id = $1"
      "        union all select min(created_at) from notifications where store_id = $1) o) as oldest_row,"
      "       (select max(ends_at)::text from outbox_partitions) as slots_end,"
      "       (select extract(epoch from ends_at - starts_at) from outbox_partitions"
      "         where starts_at > '-infinity' order by ends_at desc limit 1) as slot_seconds",
      store_id);
  pqxx::nontransaction to(target);
  if (!s["slots_end"].is_null() && !s["slot_seconds"].is_null())
    to.exec_params(
        "select api.extend_outbox_partitions(make_interval(secs => $1), $2::timestamptz - now())"
        " where (select max(ends_at) from outbox_partitions) < $2::timestamptz",
        s["slot_seconds"].as<double>(), s["slots_end"].c_str());
  // Deliveries and attempts lie in their event's slot: the oldest event stands for them.
  if (!s["oldest_row"].is_null() &&
      to.exec_params("select 1 from outbox_partitions where starts_at <= $1::timestamptz and $1::timestamptz < ends_at",
                     s["oldest_row"].c_str())
          .empty())
    throw CommandError("pod '" + target_name + "' has no outbox partition for the store's rows of " +
                       s["oldest_row"].c_str() + " (its retention dropped them): the store cannot move there");
}

}  // namespace storeapi::admin
