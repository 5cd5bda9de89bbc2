#pragma once
// The logical replication of one store's rows from its pod (the source) to another (the
// target), as a store move uses it: PostgreSQL's own publication with a row filter per
// table, a replication slot, and a subscription that copies the rows and then follows the
// changes. Everything is named after the store (`replication_name`), so that a move taken
// up again finds what an earlier attempt left behind.
#include "admin/move/tables.hpp"
#include "admin/base/progress.hpp"

#include <pqxx/pqxx>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace storeapi::admin {

// storeapi_move_<the store id's 32 hex digits>: the publication, the slot and the
// subscription of the store's move.
std::string replication_name(const std::string& store_id);

// On the source: the publication of the store's rows of `tables` (inserts, updates and
// deletes, never a TRUNCATE, which would empty the target's tables for every store; the
// partitioned outbox published as its roots, whose partitions differ between pods) and
// the slot the subscription reads, made here rather than by CREATE SUBSCRIPTION, which
// would wait for its own transaction when both databases share a cluster.
void publish_store(pqxx::connection& source, const std::string& store_id, const std::vector<StoreTable>& tables);

// On the target: the subscription to the source's publication (`source_conninfo`, which
// the target's server uses), copying the rows present, then applying changes in commit
// order; it stops (disables itself) at its first error rather than retrying forever.
void subscribe(pqxx::connection& target, const std::string& store_id, const std::string& source_conninfo);

// Waits until every table's initial copy is done; throws CommandError when the
// subscription stopped on an error or the move's slot is gone from `source` (a failover
// to a standby, which has no copy of it: the copy could never end), and pqxx's error when
// `source` is lost. Reports the rows copied of `rows_at_source` (per table: the tables
// done, and the COPYs in flight as pg_stat_progress_copy counts them).
void wait_copied(pqxx::connection& target, pqxx::connection& source, const std::string& store_id,
                 const std::map<std::string, std::size_t>& rows_at_source, Progress& progress);

// Waits until the slot has confirmed the source's WAL position of now (the target applied
// and flushed everything committed before it), at most `limit`; throws CommandError past
// it. The slot is polled every 10 ms: after the fence this wait is in the write pause.
void wait_caught_up(pqxx::connection& source, const std::string& store_id, std::chrono::milliseconds limit);

// Drops the subscription if it exists; DROP SUBSCRIPTION drops its slots on the source,
// or, when the source no longer has the slot (lost by a failover), lets go of it first.
void drop_subscription(pqxx::connection& target, const std::string& store_id);

// Drops the publication and a slot left on the source if they exist (an attempt killed
// between making the slot and the subscription, or whose target is gone).
void drop_publication(pqxx::connection& source, const std::string& store_id);

// A string constant of SQL, escaped for `conn` (pqxx's quote() trips g++ 12's -Wrestrict
// where the move and the restore build their statements).
std::string literal(pqxx::connection_base& conn, const std::string& text);

}  // namespace storeapi::admin
