#include "admin/webhooks/retention.hpp"

#include "admin/base/database.hpp"

namespace storeapi::admin {

Retention applied_retention(pqxx::work& work) {
  Retention retention;
  auto row = work.exec("select extract(epoch from retention)::bigint as retention_seconds,"
                       " extract(epoch from partition_width)::bigint as partition_seconds from outbox_retention");
  if (!row.empty()) {
    retention.keep = std::chrono::seconds(row[0]["retention_seconds"].as<std::int64_t>());
    retention.partition = std::chrono::seconds(row[0]["partition_seconds"].as<std::int64_t>());
  }
  return retention;
}

std::string describe(std::chrono::seconds period) {
  const auto s = period.count();
  if (s % 86'400 == 0) return std::to_string(s / 86'400) + (s == 86'400 ? " day" : " days");
  if (s % 3'600 == 0) return std::to_string(s / 3'600) + (s == 3'600 ? " hour" : " hours");
  return std::to_string(s) + " s";
}

void write_retention(JsonWriter& json, pqxx::work& work) {
  const Retention retention = applied_retention(work);
  auto recorded = work.exec("select recorded_at from outbox_retention");
  json.begin_object()
      .field("object", "retention")
      .field("retention_seconds", static_cast<std::int64_t>(retention.keep.count()))
      .field("retention", describe(retention.keep))
      .field("partition_seconds", static_cast<std::int64_t>(retention.partition.count()))
      .field("recorded_by_dispatcher_at", recorded.empty() ? std::nullopt : timestamp(recorded[0]["recorded_at"]));
  json.key("expire").begin_array();
  for (const auto& row : work.exec("select unnest(api.outbox_tables()) as name")) json.value(row["name"].c_str());
  json.end_array();
  // Kept for good (the spec's stock history) or by a rule of their own.
  json.key("kept").begin_array().value("stock_movements").end_array();
  json.field("idempotency_keys", "24 hours");
  // Sizes from the catalogue: no row of the slots is read.
  auto slots = work.exec_params(
      "select p.name, nullif(p.starts_at, '-infinity') as starts_at, p.ends_at,"
      "       p.ends_at + make_interval(secs => $1) as expires_at, api.outbox_slot_busy(p.name) as pending_work,"
      "       (select coalesce(sum(pg_total_relation_size(to_regclass(quote_ident(t || '_' || p.name)))), 0)::bigint"
      "          from unnest(api.outbox_tables()) t) as bytes,"
      "       (select coalesce(sum(greatest(c.reltuples, 0)), 0)::bigint from pg_class c"
      "         where c.oid = to_regclass(quote_ident('events_' || p.name))) as events_estimate"
      "  from outbox_partitions p order by p.ends_at",
      static_cast<double>(retention.keep.count()));
  json.key("partitions").begin_array();
  for (const auto& s : slots)
    json.begin_object()
        .field("name", s["name"].c_str())
        .field("starts_at", timestamp(s["starts_at"]))
        .field("ends_at", timestamp(s["ends_at"]))
        .field("expires_at", timestamp(s["expires_at"]))
        .field("pending_work", s["pending_work"].as<bool>())
        .field("bytes", s["bytes"].as<std::int64_t>())
        .field("events_estimate", s["events_estimate"].as<std::int64_t>())
        .end_object();
  json.end_array().end_object();
}

}  // namespace storeapi::admin
