// A server started against a schema older than it needs refuses to start, naming
// `storeapi-admin migrate` (db/start_check.hpp), and one on a database it cannot reach
// starts anyway. Seen failing without the check: the server started and listened.
#include "db/start_check.hpp"
#include "support/database_exec.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"

#include <gtest/gtest.h>

namespace storeapi::testing {
namespace {

using namespace std::chrono_literals;

ProcessOptions on(const std::string& url) {
  ProcessOptions options;
  options.env["STOREAPI_DATABASE_URL"] = url;
  options.wait_for_listening = false;
  return options;
}

TEST(SchemaCheck, RefusesASchemaOlderThanTheReleaseNeeds) {
  TestDatabase db;
  exec(db, "delete from schema_migrations where version >= $1", std::string(db::kRequiredSchema));
  ServerProcess server(on(db.url()));
  ASSERT_EQ(server.wait_exit(30s), 1) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("storeapi-admin migrate"), std::string::npos) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find(std::string(db::kRequiredSchema)), std::string::npos) << server.stderr_text();
}

TEST(SchemaCheck, RefusesADatabaseWhoseMigrationsWereAllRemoved) {
  TestDatabase db;
  exec(db, "delete from schema_migrations");
  ServerProcess server(on(db.url()));
  ASSERT_EQ(server.wait_exit(30s), 1) << server.stderr_text();
  EXPECT_NE(server.stderr_text().find("found none"), std::string::npos) << server.stderr_text();
}

// What it cannot tell it says, and starts: a database never migrated, one not reachable
// yet (the pool reconnects); and the schema it needs, silently.
TEST(SchemaCheck, StartsOnTheSchemaItNeedsAndWhenItCannotTell) {
  TestDatabase db;
  ServerProcess migrated(on(db.url()));
  migrated.wait_until_listening();
  EXPECT_EQ(migrated.stderr_text().find("schema not checked"), std::string::npos) << migrated.stderr_text();
  TestDatabase empty(TestDatabase::Schema::empty);
  ServerProcess never_migrated(on(empty.url()));
  never_migrated.wait_until_listening();
  EXPECT_NE(never_migrated.stderr_text().find("schema not checked"), std::string::npos)
      << never_migrated.stderr_text();
  ServerProcess unreachable(on("postgresql://127.0.0.1:1/none"));
  unreachable.wait_until_listening();
  EXPECT_NE(unreachable.stderr_text().find("schema not checked"), std::string::npos) << unreachable.stderr_text();
}

}  // namespace
}  // namespace storeapi::testing
