// The database roles (docs/DEPLOY.md "Database roles", src/admin/migrations/roles.hpp): the runtime
// role `storeapi`, as the API nodes and dispatchers connect, owns nothing and can escalate
// to nothing (no function of its own or the owner's, no DDL, no COPY TO PROGRAM, no
// subscription's connection string, no replication role), yet reads and writes the
// store tables and uses the outbox partitions the dispatchers make; and `owner transfer`
// takes a database whose runtime role owned everything (as deployments before the roles
// ran) to the owner role in one step, the old owner left with the runtime grants; the
// admin tool reaches pods as its own role.
// Seen failing without their feature: the pod reached with its stored URL's role
// (ReachesAPodAsItsOwnRole); migrate's grants step left out (every statement of
// the runtime role is refused; the API suites fail too); the default privileges left out
// (a partition made after migrate is refused to the runtime role); the revoke on the
// directory's bookkeeping left out (the runtime role writes `pods`).
#include "admin/base/database.hpp"
#include "admin/migrations/migrations.hpp"
#include "admin_fixture.hpp"
#include "common/crypto.hpp"
#include "support/runtime_role.hpp"

#include <array>

namespace storeapi::testing {
namespace {

// The statement's error, or "" when it ran.
std::string refusal(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  try {
    pqxx::nontransaction work(conn);
    work.exec(sql);
    return "";
  } catch (const pqxx::sql_error& e) {
    return e.what();
  }
}

std::string value(const std::string& url, const std::string& sql) {
  pqxx::connection conn(url);
  pqxx::nontransaction work(conn);
  auto r = work.exec(sql);
  return r[0][0].is_null() ? "" : r[0][0].c_str();
}

TEST(RuntimeRole, CannotEscalate) {
  TestDatabase db;
  const std::string url = api_url(db);
  ASSERT_EQ(value(url, "select current_user"), "storeapi");
  for (const char* sql : {
           "create function public.mine() returns int language sql as 'select 1'",
           "create function api.mine() returns int language sql as 'select 1'",
           "create or replace function api.now_ms() returns timestamptz language sql stable as 'select now()'",
           "create or replace function api.extend_outbox_partitions(p_width interval, p_ahead interval)"
           " returns integer language sql as 'select 0'",
           "alter table stores add column taken boolean",
           "alter function api.now_ms() owner to storeapi",
           "create table public.mine (id int)",
           "create schema mine",
           "copy (select 1) to program 'true'",
           "select subconninfo from pg_subscription",
           "set session_replication_role = replica",
           "insert into pods (name, url) values ('taken', 'postgresql:///taken')",
           "update schema_migrations set checksum = 'x'",
           "truncate stores",
       })
    EXPECT_NE(refusal(url, sql), "") << "the runtime role ran: " << sql;

  EXPECT_EQ(value(url, "select rolsuper or rolreplication or rolcreaterole or rolcreatedb or rolbypassrls"
                       " from pg_roles where rolname = current_user"),
            "f");
  EXPECT_EQ(value(url, "select (select count(*) from pg_class where relowner = 'storeapi'::regrole)"
                       " + (select count(*) from pg_proc where proowner = 'storeapi'::regrole)"
                       " + (select count(*) from pg_namespace where nspowner = 'storeapi'::regrole)"),
            "0");
}

TEST(RuntimeRole, UsesWhatTheApiAndDispatchersUse) {
  TestDatabase db;
  auto store = db.create_store();
  const std::string url = api_url(db);
  EXPECT_EQ(refusal(url, "update stores set name = 'renamed' where id = '" + store.id + "'"), "");
  EXPECT_EQ(refusal(url, "select api.emit_event('" + store.id + "', 'order.created', '{}')"), "");
  EXPECT_EQ(refusal(url, "select count(*) from pods"), "");
  // Partitions made after migrate (as the dispatchers make them, through the owner's
  // function) are the runtime role's to read and write: the owner's default privileges.
  EXPECT_EQ(refusal(url, "select api.extend_outbox_partitions('1 day', '10 days')"), "");
  EXPECT_EQ(refusal(url, "select api.outbox_slot_busy(name) from outbox_partitions"), "");
  const std::string newest = value(url, "select name from outbox_partitions order by ends_at desc limit 1");
  EXPECT_EQ(refusal(url, "select count(*) from events_" + newest), "");
  EXPECT_EQ(value(url, "select count(*) from information_schema.table_privileges where grantee = 'storeapi'"
                       " and table_name = 'events_" + newest + "' and privilege_type = 'INSERT'"),
            "1");
  // And dropped through the owner's function, which drops only outbox slots.
  EXPECT_EQ(value(url, "select api.drop_outbox_slot('" + newest + "')::text"), "true");
  EXPECT_EQ(value(url, "select count(*) from pg_class where relname = 'events_" + newest + "'"), "0");
  EXPECT_EQ(value(url, "select api.drop_outbox_slot('stores')::text"), "false");
}

// The tool reaches a pod at the address the directory lists but as its own role, never
// with the stored URL's (the API nodes' role, which may not migrate): here a role that
// does not even exist, and `migrate` still migrates the pod.
TEST(AdminTool, ReachesAPodAsItsOwnRole) {
  TestDatabase directory;
  TestDatabase pod;
  {
    auto conn = directory.connect();
    pqxx::work work(*conn);
    work.exec_params("insert into pods (name, url) values ('far', $1)", admin::as_user(pod.url(), "storeapi_nobody"));
    work.commit();
  }
  CliResult migrated = run_admin({"migrate"}, directory.url());
  EXPECT_EQ(migrated.exit_code, 0) << migrated.err;
  EXPECT_NE(migrated.out.find("\"far\""), std::string::npos) << migrated.out;
}

TEST(OwnerTransfer, HandsTheRuntimeRolesObjectsToTheOwnerAndLeavesItTheGrants) {
  // A deployment from before the roles: one role owns the database and everything in it.
  std::array<std::uint8_t, 4> random{};
  crypto::random_bytes(random);
  const std::string legacy = "storeapi_legacy_" + crypto::hex(random);
  TestDatabase db(TestDatabase::Schema::empty);
  {
    auto conn = db.connect();
    pqxx::nontransaction work(*conn);
    work.exec("create role " + legacy + " login");
    work.exec("alter database " + db.name() + " owner to " + legacy);
  }
  const std::string legacy_url = admin::as_user(db.url(), legacy);
  admin::migrate(*admin::connect(legacy_url));
  ASSERT_EQ(value(db.url(), "select count(*) > 0 from pg_class where relowner = '" + legacy + "'::regrole"), "t");

  CliResult moved = run_admin({"owner", "transfer", "--from", legacy, "--to", "storeapi_owner"}, db.url());
  EXPECT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(value(db.url(), "select (select count(*) from pg_class where relowner = '" + legacy + "'::regrole)"
                            " + (select count(*) from pg_proc where proowner = '" + legacy + "'::regrole)"),
            "0");
  EXPECT_EQ(value(db.url(), "select pg_get_userbyid(proowner) from pg_proc where proname = 'fence_store_writes'"),
            "storeapi_owner");
  // The old owner serves as the runtime role: the API's statements run, escalation does not.
  EXPECT_EQ(refusal(legacy_url, "select count(*) from stores"), "");
  EXPECT_EQ(refusal(legacy_url, "select api.now_ms()"), "");
  EXPECT_NE(refusal(legacy_url, "create or replace function api.now_ms() returns timestamptz language sql stable"
                                " as 'select now()'"),
            "");
  EXPECT_NE(refusal(legacy_url, "alter table stores add column taken boolean"), "");

  // A second run finds nothing left to hand over and changes nothing.
  EXPECT_EQ(run_admin({"owner", "transfer", "--from", legacy, "--to", "storeapi_owner"}, db.url()).exit_code, 0);
  // The role is the cluster's: its grants here go, then it does.
  auto conn = db.connect();
  pqxx::nontransaction cleanup(*conn);
  cleanup.exec("drop owned by " + legacy);
  cleanup.exec("drop role " + legacy);
}

}  // namespace
}  // namespace storeapi::testing
