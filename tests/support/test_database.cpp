#include "support/test_database.hpp"

#include "admin/base/confirmations.hpp"
#include "admin/base/database.hpp"
#include "admin/keys/keys.hpp"
#include "admin/migrations/migrations.hpp"
#include "admin/stores/stores.hpp"
#include "common/crypto.hpp"

#include <array>
#include <cstdlib>
#include <stdexcept>

namespace storeapi::testing {
namespace {

std::string cluster_url() {
  const char* url = std::getenv("STOREAPI_TEST_DATABASE_URL");
  if (!url || !*url)
    throw std::runtime_error(
        "STOREAPI_TEST_DATABASE_URL is not set: run integration tests through tools/test, which "
        "starts the test cluster and sets it");
  return url;
}

std::string random_hex(std::size_t bytes) {
  std::array<std::uint8_t, 16> buf{};
  crypto::random_bytes(std::span(buf).first(bytes));
  return crypto::hex(std::span(buf).first(bytes));
}

}  // namespace

std::string with_database(const std::string& url, const std::string& database) {
  bool is_url = url.rfind("postgresql://", 0) == 0 || url.rfind("postgres://", 0) == 0;
  if (!is_url) return url + " dbname=" + database;  // in conninfo the last setting wins
  auto authority = url.find("://") + 3;
  auto query = url.find('?', authority);
  auto slash = url.find('/', authority);
  std::string params = query == std::string::npos ? "" : url.substr(query);
  std::string base = url.substr(0, std::min(slash, query));
  return base + "/" + database + params;
}

TestDatabase::TestDatabase(Schema schema, const std::string& cluster)
    : cluster_url_(cluster.empty() ? cluster_url() : cluster), name_("storeapi_test_" + random_hex(8)), url_(with_database(cluster_url_, name_)) {
  {
    pqxx::connection admin(cluster_url_);
    pqxx::nontransaction(admin).exec("create database " + name_);
  }
  if (schema == Schema::migrated) admin::migrate(*connect());
}

TestDatabase::~TestDatabase() {
  try {
    pqxx::connection admin(cluster_url_);
    pqxx::nontransaction(admin).exec("drop database if exists " + name_ + " with (force)");
  } catch (const std::exception&) {
    // A destructor must not throw; the name is random, so a leftover harms no other test.
  }
}

std::unique_ptr<pqxx::connection> TestDatabase::connect() const { return admin::connect(url_); }

TestStore TestDatabase::create_store(const std::string& plan) {
  std::string slug = "test-" + random_hex(6);
  std::string owner = "owner@" + slug + ".example";
  auto conn = connect();
  pqxx::work work(*conn);
  admin::NewStore store;
  store.name = "Test store " + slug;
  store.slug = slug;
  store.currency = "EUR";
  store.plan = plan;
  store.owner_email = owner;
  std::string id = admin::create_store(work, store);
  work.commit();
  return {id, slug, owner};
}

TestKey TestDatabase::create_key(const std::string& store_id, const std::string& access,
                                 const std::string& scopes, const std::string& expires) {
  auto conn = connect();
  admin::ServerConfirmations confirmations(*conn);
  pqxx::work work(*conn);
  admin::NewKey request;
  request.store_id = store_id;
  request.name = "test key";
  request.access = access;
  request.scopes = scopes;
  request.expires = expires;
  admin::CreatedKey key = admin::create_key(work, request);
  work.commit();
  confirmations.wait();
  return {key.id, key.key};
}

std::string TestDatabase::fingerprint(const std::string& ignored_column) {
  auto conn = connect();
  pqxx::work work(*conn);
  std::string digest;
  for (const auto& table : work.exec(
           "select quote_ident(table_name) from information_schema.tables"
           " where table_schema = 'public' and table_type = 'BASE TABLE'"
           // A partition's rows are its parent's: counted there once.
           "   and not (select relispartition from pg_class where oid = quote_ident(table_name)::regclass)"
           " order by table_name")) {
    std::string name = table[0].c_str();
    const std::string row_text = ignored_column.empty() ? "t::text" : "(to_jsonb(t) - " + work.quote(ignored_column) + ")::text";
    auto row = work.exec1("select '" + name + ":' || count(*) || ':' || coalesce(md5(string_agg(" + row_text + ", '|' order by " +
                          row_text + ")), '')"
                          " from " + name + " t");
    digest += row[0].c_str();
    digest += '\n';
  }
  return digest;
}

}  // namespace storeapi::testing
