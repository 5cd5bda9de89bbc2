#pragma once
// A throwaway database for integration tests, on the cluster tools/test starts.
//
//   storeapi::testing::TestDatabase db;            // fresh, migrated
//   auto store = db.create_store();                 // advanced plan
//   auto key = db.create_key(store.id, "read");     // sk_live_... for Authorization
//   ... point the code under test at db.url() ...
//                                                   // dropped when db goes out of scope
//
// Needs STOREAPI_TEST_DATABASE_URL (set by tools/test); without it the constructor throws
// a std::runtime_error saying so, which fails the test rather than skipping it.
#include <pqxx/pqxx>

#include <memory>
#include <string>

namespace storeapi::testing {

struct TestStore {
  std::string id;
  std::string slug;
  std::string owner_email;
};

struct TestKey {
  std::string id;
  std::string key;  // the full sk_live_ key
};

class TestDatabase {
 public:
  enum class Schema { migrated, empty };

  // Creates a database with a random name on the test cluster (or on the cluster of
  // `cluster_url`, e.g. a test's own ThrowawayCluster) and applies every migration to it
  // (through the admin library), unless `schema` is empty.
  explicit TestDatabase(Schema schema = Schema::migrated, const std::string& cluster_url = "");
  // Drops the database, closing any connections still open to it.
  ~TestDatabase();
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  // A libpq URL of this database (what STOREAPI_DATABASE_URL would be).
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }

  // A new connection to this database, session time zone UTC.
  std::unique_ptr<pqxx::connection> connect() const;

  // A store with a unique slug, owned by owner@<slug>.example; currency EUR, locale en.
  TestStore create_store(const std::string& plan = "advanced");

  // A key as `storeapi-admin key create` makes it: access read | full | custom (then
  // `scopes`, e.g. "orders:read,products:write"); expires never | 30d | 90d | 1y | RFC 3339.
  // Like the command, returns once the servers listening on this database confirmed it
  // (their sets of key hashes hold it, auth/known_keys.hpp).
  TestKey create_key(const std::string& store_id, const std::string& access = "full",
                     const std::string& scopes = "", const std::string& expires = "never");

  // A digest of every row of every table: equal before and after means nothing changed.
  // `ignored_column`: a column left out of every row (e.g. the stored documents, "doc",
  // to compare a database with one of a schema before them).
  std::string fingerprint(const std::string& ignored_column = "");

 private:
  std::string cluster_url_;
  std::string name_;
  std::string url_;
};

// `url` with its database replaced by `database` (URL or key=value conninfo).
std::string with_database(const std::string& url, const std::string& database);

}  // namespace storeapi::testing
