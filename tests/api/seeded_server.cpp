#include "seeded_server.hpp"

#include <gtest/gtest.h>

#include "admin/base/json.hpp"
#include "admin/seed/seed.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

std::pair<TestStore, TestKey> seeded_store(TestDatabase& db) {
  TestStore store = db.create_store("advanced");
  auto conn = db.connect();
  pqxx::work work(*conn);
  admin::JsonWriter summary;
  admin::seed_store(summary, work, store.id, admin::seed::SeedSizes{});
  work.exec_params("update stores set rate_limit_rpm = 1000000 where id = $1", store.id);
  work.commit();
  TestKey key = db.create_key(store.id, "full");
  return {store, key};
}

}  // namespace

SeededServer::SeededServer(const std::string& cluster_url, std::map<std::string, std::string> settings)
    : db_(TestDatabase::Schema::migrated, cluster_url), settings_(std::move(settings)) {
  std::tie(store_, key_) = seeded_store(db_);
  sql_ = db_.connect();
  start_server();
}

SeededServer::~SeededServer() = default;

SeededServer* SeededServerSuite::env = nullptr;

std::pair<TestStore, TestKey> SeededServer::another_store() { return seeded_store(db_); }

std::string SeededServer::stale_documents() {
  auto conn = db_.connect();  // a connection of its own: a test may have restarted PostgreSQL
  pqxx::nontransaction work(*conn);
  return work.exec1("select coalesce(string_agg(resource || ' ' || id, ', '), '') from api.stale_documents")[0].c_str();
}

VariantRef live_variant_on(pqxx::connection& conn, int nth, const std::string& store_id) {
  pqxx::nontransaction work(conn);
  const std::string row =
      work.exec_params1(
              "select v.product_id || ' ' || v.id from variants v join products p on p.store_id = v.store_id"
              " and p.id = v.product_id where v.store_id = $1 and v.deleted_at is null and p.deleted_at is null"
              " order by v.created_at, v.id offset $2 limit 1",
              store_id, nth)[0]
          .c_str();
  return {row.substr(0, 36), row.substr(37)};
}

VariantRef SeededServer::live_variant(int nth, const std::string& store_id) {
  return live_variant_on(*sql_, nth, store_id.empty() ? store_.id : store_id);
}

long long SeededServer::events_of(const std::string& id, const std::string& type) {
  return count("select count(*) from events where payload->'data'->'object'->>'id' = $1 and ($2 = '' or type = $2)",
               id, type);
}

void SeededServer::start_server() { server_ = start_api_server(api_url(db_), "seeded-server-test-secret-of-32-bytes", settings_); }

void SeededServer::restart() {
  EXPECT_EQ(server_->terminate(), 0);
  server_.reset();
  start_server();
}

void SeededServer::kill_and_restart() {
  server_->kill();
  server_.reset();
  start_server();
}

HttpResponse SeededServer::request(std::string_view method, std::string_view path, std::string_view body,
                                   Headers headers) const {
  return request_as(key_.key, method, path, body, std::move(headers));
}

HttpResponse SeededServer::request_as(const std::string& key, std::string_view method, std::string_view path,
                                      std::string_view body, Headers headers) const {
  headers.emplace_back("Authorization", "Bearer " + key);
  HttpClient client(server_->port());
  return client.request_json(method, path, std::move(headers), body);
}

Json::Json(std::string_view text) {
  if (parser_.parse(text.data(), text.size()).get(root_) != simdjson::SUCCESS)
    throw std::runtime_error("not JSON: " + std::string(text));
}

std::string Json::get(std::string_view pointer) const {
  simdjson::dom::element e;
  if (root_.at_pointer(pointer).get(e) != simdjson::SUCCESS)
    throw std::runtime_error("no " + std::string(pointer) + " in " + simdjson::minify(root_));
  std::string_view text;
  if (e.get_string().get(text) == simdjson::SUCCESS) return std::string(text);
  return simdjson::minify(e);
}

bool Json::has(std::string_view pointer) const {
  simdjson::dom::element e;
  return root_.at_pointer(pointer).get(e) == simdjson::SUCCESS;
}

::testing::AssertionResult is_error(const HttpResponse& res, int status, std::string_view code,
                                    std::optional<std::string_view> param) {
  auto failure = [&] { return ::testing::AssertionFailure() << res.status << " " << res.body << ": "; };
  if (res.status != status) return failure() << "expected status " << status;
  Json body(res.body);
  if (body.get("/error/code") != code) return failure() << "expected code " << code;
  const std::string expected_param = param ? std::string(*param) : "null";
  if (body.get("/error/param") != expected_param) return failure() << "expected param " << expected_param;
  if (body.get("/error/request_id") != res.header("Request-Id").value_or("(none)"))
    return failure() << "request_id is not the Request-Id header";
  return ::testing::AssertionSuccess();
}

}  // namespace storeapi::testing
