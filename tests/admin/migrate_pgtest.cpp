// storeapi-admin migrate: an empty database, re-application, edited migrations, edited
// repeatable files, and a database of the earlier schema with data moving forward.
#include "admin/migrations/migrations.hpp"
#include "admin_fixture.hpp"
#include "common/crypto.hpp"
#include "support/database_exec.hpp"

#include <cstdlib>
#include <sstream>

namespace storeapi::testing {
namespace {

std::string value(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::work work(conn);
  return work.exec1(sql)[0].c_str();
}

// A database as an earlier release left it: the numbered migrations up to `last`, recorded
// as `migrate` records them, and none of today's repeatable files.
void apply_migrations_through(pqxx::work& work, std::string_view last) {
  work.exec("create table schema_migrations (version text primary key, name text not null,"
            " checksum text not null, applied_at timestamptz not null default now())");
  for (const auto& m : admin::embedded_migrations()) {
    if (std::string_view(m.version) > last) break;
    work.exec(m.sql);
    work.exec_params("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", m.version,
                     m.name, crypto::sha256_hex(m.sql));
  }
}

TEST(Migrate, AppliesEveryMigrationToAnEmptyDatabaseThenNothing) {
  TestDatabase empty(TestDatabase::Schema::empty);
  simdjson::dom::parser parser;

  CliResult first = run_admin({"migrate"}, empty.url());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  auto json = parse_json(parser, first.out);
  std::vector<std::string> applied;
  for (auto name : json["applied"].get_array()) applied.emplace_back(std::string_view(name));
  std::vector<std::string> embedded;
  for (const auto& m : admin::embedded_migrations()) embedded.emplace_back(m.name);
  std::vector<std::string> expected = embedded;
  for (const auto& f : admin::embedded_repeatable()) expected.emplace_back(std::string("functions/") + f.name);
  EXPECT_EQ(applied, expected);
  EXPECT_GE(embedded.size(), 5u);
  EXPECT_EQ(value(empty.url(), "select string_agg(name, ',' order by version) from schema_migrations"),
            [&] {
              std::string joined;
              for (const auto& n : embedded) joined += (joined.empty() ? "" : ",") + n;
              return joined;
            }());
  for (const char* table : {"staff_members", "api_keys", "customers", "categories", "products",
                            "product_translations", "variants", "orders", "order_line_items", "bookings",
                            "stock_movements", "events", "webhook_endpoints", "webhook_deliveries",
                            "notifications", "idempotency_keys"})
    EXPECT_EQ(value(empty.url(), std::string("select count(*) from information_schema.columns where table_name = '") +
                                     table + "' and column_name = 'store_id' and is_nullable = 'NO'"),
              "1")
        << table << " must carry store_id";

  std::string schema_before = value(empty.url(),
      "select md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name))"
      " from information_schema.columns where table_schema in ('public', 'api')");
  std::string recorded_before = value(empty.url(), "select string_agg(version || applied_at, ',') from schema_migrations");
  CliResult again = run_admin({"migrate"}, empty.url());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(parse_json(parser, again.out)["applied"].get_array().size(), 0u);
  EXPECT_EQ(value(empty.url(), "select string_agg(version || applied_at, ',') from schema_migrations"), recorded_before);
  EXPECT_EQ(value(empty.url(),
                  "select md5(string_agg(table_name || '.' || column_name || ':' || data_type, ',' order by table_name, column_name))"
                  " from information_schema.columns where table_schema in ('public', 'api')"),
            schema_before);
}

TEST(Migrate, RefusesADatabaseWhoseAppliedMigrationWasEdited) {
  TestDatabase db;
  exec(db, "update schema_migrations set checksum = 'edited' where version = '002'");
  CliResult r = run_admin({"migrate"}, db.url());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("002_stores_staff_keys"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(Migrate, AppliesARepeatableFileAgainOnlyWhenItsTextChanged) {
  TestDatabase db;
  const std::string recorded = "select string_agg(version || ':' || applied_at, ',' order by version) from schema_functions"
                               " where version <> '10'";
  const std::string others_before = value(db.url(), recorded);
  {
    // As if the database had an older text of 10_render: another definition, another checksum.
    auto conn = db.connect();
    pqxx::work work(*conn);
    work.exec("create or replace function api.j_int(n bigint) returns text language sql immutable as $$ select 'old' $$");
    work.exec("update schema_functions set checksum = 'older text' where version = '10'");
    work.commit();
  }
  ASSERT_EQ(value(db.url(), "select api.j_int(7)"), "old");
  simdjson::dom::parser parser;
  CliResult r = run_admin({"migrate"}, db.url());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto applied = parse_json(parser, r.out)["applied"].get_array();
  ASSERT_EQ(applied.size(), 1u) << r.out;
  EXPECT_EQ(std::string_view(applied.at(0)), "functions/10_render");
  EXPECT_EQ(value(db.url(), "select api.j_int(7)"), "7");
  EXPECT_EQ(value(db.url(), recorded), others_before);
}

// A database as a release before the one-statement writes left it (migrations 001-008,
// the write functions of 008), with data in it: migrate moves it forward and loses nothing.
TEST(Migrate, MovesADatabaseOfTheEarlierSchemaForwardWithoutLoss) {
  TestDatabase old(TestDatabase::Schema::empty);
  {
    auto conn = old.connect();
    pqxx::work work(*conn);
    apply_migrations_through(work, "008");
    // Today's seed ends by rendering the stored documents, which that schema has not: a
    // stand-in that does nothing lets it write the data (migrate replaces it).
    work.exec("create function api.render_documents(uuid) returns void language sql as ''");
    work.commit();
  }
  TestStore store = old.create_store();
  CliResult seeded = run_admin({"seed", "--store", store.id, "--orders", "150", "--products", "30", "--customers",
                                "40", "--bookings", "20"}, old.url());
  ASSERT_EQ(seeded.exit_code, 0) << seeded.err;
  // Keys as the earlier release wrote them: one completed, one still in progress.
  {
    auto conn = old.connect();
    pqxx::work work(*conn);
    work.exec_params(
      "insert into idempotency_keys (store_id, key, fingerprint, state, owner_token, started_at, response_status,"
      " response_body, completed_at) values"
      " ($1, 'done-1', 'fp-1', 'completed', gen_random_uuid(), now(), 200, '{\"id\":\"x\"}', now()),"
      " ($1, 'running-1', 'fp-2', 'in_progress', gen_random_uuid(), now(), null, null, null)",
      store.id);
    work.commit();
  }
  // Every row of every data table, and every record as the API renders it.
  const auto data = [&] {
    std::string digest;
    std::istringstream lines(old.fingerprint("doc"));
    for (std::string line; std::getline(lines, line);)
      // Not data: the migrations' own records, the fleet's cursor secret (a new table the
      // forward migration creates with its one row), the outbox's time slots, the pod
      // directory and the store moves (new tables) and stores, which gains its placement:
      // compared below by the columns it had.
      if (line.rfind("schema_", 0) != 0 && line.rfind("cursor_secret:", 0) != 0 && line.rfind("outbox_", 0) != 0 &&
          line.rfind("pods:", 0) != 0 && line.rfind("store_fences:", 0) != 0 && line.rfind("store_moves:", 0) != 0 &&
          line.rfind("stores:", 0) != 0)
        digest += line + "\n";
    digest += value(old.url(),
                    "select md5(string_agg(row(id, name, slug, url, currency, locale, plan, rate_limit_rpm, owner_email,"
                    " created_at, updated_at)::text, '|' order by id)) from stores") +
              "\n";
    for (const char* rendered : {"select md5(string_agg(api.order_json(t), '|' order by id)) from orders t",
                                 "select md5(string_agg(api.product_json(t), '|' order by id)) from products t",
                                 "select md5(string_agg(api.customer_json(t), '|' order by id)) from customers t",
                                 "select md5(string_agg(api.booking_json(t), '|' order by id)) from bookings t"})
      digest += value(old.url(), rendered) + "\n";
    return digest;
  };
  const std::string before = data();

  simdjson::dom::parser parser;
  CliResult r = run_admin({"migrate"}, old.url());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> applied;
  for (auto name : parse_json(parser, r.out)["applied"].get_array()) applied.emplace_back(std::string_view(name));
  ASSERT_FALSE(applied.empty());
  EXPECT_EQ(applied.front(), "009_one_trip_writes");
  EXPECT_EQ(applied.back(), std::string("functions/") + admin::embedded_repeatable().back().name);
  EXPECT_EQ(data(), before);
  // Every record's stored document was filled, and is what the renderer makes of it.
  EXPECT_EQ(value(old.url(), "select count(*) from orders where doc is null"), "0");
  EXPECT_EQ(value(old.url(), "select count(*) from api.stale_documents"), "0");
  EXPECT_EQ(value(old.url(), "select string_agg(doc, '|' order by id) = string_agg(api.order_json(t), '|' order by id)"
                             " from orders t"), "t");
  // The stores that were there are placed on the first pod, the directory's own.
  EXPECT_EQ(value(old.url(), "select string_agg(pod || ':' || placement_epoch, ',') from stores"), "main:1");
  // The earlier keys keep their meaning under the new functions.
  EXPECT_EQ(value(old.url(), "select (api.claim_idempotency_key('" + store.id + "', 'done-1', 'fp-1')).body"),
            "{\"id\":\"x\"}");
  EXPECT_EQ(value(old.url(), "select (api.claim_idempotency_key('" + store.id + "', 'running-1', 'fp-2')).outcome"),
            "in_progress");
  EXPECT_EQ(value(old.url(), "select count(*) from pg_proc where proname = 'take_idempotency_key'"), "0");
}

// The outbox as migration 032 left it (plain tables with foreign keys), with rows of every
// kind — old and new, delivered, pending and failed, with attempts — moves into its time
// slots (033) without losing or changing a row: every row lands in p_older, each delivery
// and attempt carries its event's time, and the tables take new rows in new slots after.
// Fails without 033's copies (the partitioned tables come out empty).
TEST(Migrate, MovesTheOutboxIntoTimeSlotsWithoutLosingARow) {
  TestDatabase old(TestDatabase::Schema::empty);
  {
    auto conn = old.connect();
    pqxx::work work(*conn);
    apply_migrations_through(work, "032");
    work.commit();
  }
  TestStore store = old.create_store();
  {
    auto conn = old.connect();
    pqxx::work work(*conn);
    work.exec_params(
        "insert into webhook_endpoints (store_id, url, secret) values ($1, 'https://a.example/h', 'whsec_YQ==')",
        store.id);
    // 60 events over the last 40 days, every third one not fanned out yet.
    work.exec_params(
        "insert into events (store_id, type, payload, created_at, fanned_out_at, trace_id)"
        " select $1, 'product.updated', json_build_object('n', i), now() - i * interval '16 hours',"
        "        case when i % 3 <> 0 then now() - i * interval '16 hours' + interval '1 second' end,"
        "        case when i % 2 = 0 then lpad(to_hex(i), 32, '0') end"
        "   from generate_series(1, 60) i",
        store.id);
    work.exec(
        "insert into webhook_deliveries (store_id, event_id, endpoint_id, status, attempts, next_attempt_at,"
        " last_status, last_response, created_at, updated_at)"
        " select e.store_id, e.id, w.id, (array['pending', 'succeeded', 'failed'])[1 + (row_number() over () % 3)],"
        "        2, e.created_at + interval '5 minutes', 500, 'boom', e.fanned_out_at, e.fanned_out_at"
        "   from events e join webhook_endpoints w on w.store_id = e.store_id where e.fanned_out_at is not null");
    work.exec(
        "insert into webhook_delivery_attempts (store_id, delivery_id, attempt, attempted_at, response_status,"
        " latency_ms, response_excerpt, error)"
        " select d.store_id, d.id, a, d.created_at + a * interval '1 second', case when a = 1 then 500 end, 7 * a,"
        "        case when a = 1 then 'boom' end, case when a = 2 then 'timed out' end"
        "   from webhook_deliveries d, generate_series(1, 2) a");
    work.exec_params(
        "insert into notifications (store_id, kind, template, recipient, locale, data, status, attempts, sent_at,"
        " last_error, created_at, updated_at, trace_id)"
        " select $1, 'customer', 'order_fulfillment_updated', 'c' || i || '@example.com', 'en',"
        "        jsonb_build_object('order_number', i), case when i % 2 = 0 then 'sent' else 'pending' end, i % 4,"
        "        case when i % 2 = 0 then now() - i * interval '1 day' end, case when i % 2 = 1 then 'later' end,"
        "        now() - i * interval '1 day', now() - i * interval '1 day', null"
        "   from generate_series(1, 35) i",
        store.id);
    work.commit();
  }
  // Every row of the four tables in the columns they had, and how many.
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"events", "store_id, id, type, payload::text, created_at, fanned_out_at, trace_id"},
      {"webhook_deliveries",
       "store_id, id, event_id, endpoint_id, status, attempts, schedule_start, next_attempt_at, last_attempt_at,"
       " last_status, last_latency_ms, last_response, created_at, updated_at"},
      {"webhook_delivery_attempts",
       "store_id, delivery_id, attempt, attempted_at, response_status, latency_ms, response_excerpt, error"},
      {"notifications",
       "store_id, id, kind, template, recipient, locale, data, status, attempts, next_attempt_at, last_error,"
       " sent_at, created_at, updated_at, trace_id"}};
  const auto rows = [&] {
    std::string digest;
    for (const auto& [table, columns] : tables)
      digest += value(old.url(), "select '" + table + ":' || count(*) || ':' || md5(string_agg(r, '|' order by r))"
                                 " from (select row(" + columns + ")::text as r from " + table + ") t") + "\n";
    return digest;
  };
  const std::string before = rows();
  EXPECT_NE(before.find("events:60:"), std::string::npos) << before;
  EXPECT_NE(before.find("webhook_delivery_attempts:80:"), std::string::npos) << before;

  CliResult r = run_admin({"migrate"}, old.url());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(rows(), before);
  for (const auto& [table, columns] : tables) {
    EXPECT_EQ(value(old.url(), "select count(*) from " + table + "_p_older"),
              value(old.url(), "select count(*) from " + table)) << table;
    EXPECT_EQ(value(old.url(), "select relkind from pg_class where relname = '" + table + "'"), "p") << table;
  }
  EXPECT_EQ(value(old.url(), "select count(*) from webhook_deliveries d join events e on e.store_id = d.store_id"
                             " and e.id = d.event_id and e.created_at = d.event_created_at"),
            "40");
  EXPECT_EQ(value(old.url(), "select count(*) from webhook_delivery_attempts a join webhook_deliveries d"
                             " on d.store_id = a.store_id and d.id = a.delivery_id"
                             " and d.event_created_at = a.event_created_at"),
            "80");
  // New rows go to the slots after p_older.
  std::string fresh;
  {
    auto conn = old.connect();
    pqxx::work work(*conn);
    fresh = work.exec_params1("select api.emit_event($1, 'product.updated', '{}')", store.id)[0].c_str();
    work.commit();
  }
  EXPECT_NE(value(old.url(), "select tableoid::regclass::text from events where id = '" + fresh + "'"),
            "events_p_older");
}

// `migrate` reads the retention settings like the dispatcher: a bad one is a usage error
// (exit 2) before anything is applied. Fails without the check in cmd_migrate.
TEST(Migrate, RefusesABadPartitionWidth) {
  TestDatabase empty(TestDatabase::Schema::empty);
  setenv("STOREAPI_PARTITION_SECONDS", "one day", 1);
  CliResult r = run_admin({"migrate"}, empty.url());
  unsetenv("STOREAPI_PARTITION_SECONDS");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("STOREAPI_PARTITION_SECONDS"), std::string::npos) << r.err;
  EXPECT_EQ(value(empty.url(), "select count(*) from pg_tables where tablename = 'schema_migrations'"), "0");
}

// The global tables (stores itself, schema_migrations, schema_functions, the fleet's
// cursor_secret, the outbox's time slots and retention, the pods) belong to no store.
TEST(Migrate, KeysEveryIndexByStoreExceptTheCrossStoreLookups) {
  TestDatabase db;
  auto conn = db.connect();
  pqxx::work work(*conn);
  auto rows = work.exec(
      "select i.indexrelid::regclass::text from pg_index i join pg_class t on t.oid = i.indrelid"
      " join pg_namespace n on n.oid = t.relnamespace"
      " where n.nspname = 'public' and t.relname not in ('stores', 'schema_migrations', 'schema_functions',"
      "                                                 'cursor_secret', 'outbox_partitions', 'outbox_retention',"
      "                                                 'pods')"
      // A partition's indexes are its parent's, made again for its rows.
      "   and not t.relispartition"
      " and (select attname from pg_attribute where attrelid = t.oid and attnum = i.indkey[0]) is distinct from 'store_id'"
      " order by 1");
  std::vector<std::string> exceptions;
  for (const auto& row : rows) exceptions.emplace_back(row[0].c_str());
  EXPECT_EQ(exceptions, (std::vector<std::string>{"api_keys_hash", "events_fanout", "idempotency_keys_purge",
                                                   "notifications_due", "webhook_deliveries_due"}));
}

// A sync poll cuts and sorts the changed records by (created_at, id) from the updated_at
// index alone, and reads only the ones its page keeps (src/api/list_sql.cpp, sync_sql).
TEST(Migrate, TheUpdatedAtIndexesCarryCreatedAt) {
  TestDatabase db;
  for (const std::string table : {"orders", "customers", "products"})
    EXPECT_EQ(value(db.url(), "select pg_get_indexdef('" + table + "_updated'::regclass)"),
              "CREATE INDEX " + table + "_updated ON public." + table +
                  " USING btree (store_id, updated_at, id) INCLUDE (created_at)");
}

}  // namespace
}  // namespace storeapi::testing
