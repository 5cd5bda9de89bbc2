#include "auth/auth_fixture.hpp"

#include <simdjson.h>

#include <charconv>
#include <set>

#include "admin/admin_cli.hpp"
#include "support/poll.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {

ErrorBody error_of(const HttpResponse& reply) {
  ErrorBody out;
  EXPECT_EQ(reply.header("content-type"), "application/json");
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(simdjson::padded_string(reply.body)).get(doc) != simdjson::SUCCESS) {
    ADD_FAILURE() << "not JSON: " << reply.body;
    return out;
  }
  simdjson::dom::object root, error;
  if (doc.get(root) != simdjson::SUCCESS || root.size() != 1 || root["error"].get(error) != simdjson::SUCCESS) {
    ADD_FAILURE() << "not an error envelope: " << reply.body;
    return out;
  }
  std::set<std::string> fields;
  for (auto field : error) fields.insert(std::string(field.key));
  EXPECT_EQ(fields, (std::set<std::string>{"type", "code", "message", "param", "request_id"})) << reply.body;
  std::string_view s;
  if (error["type"].get(s) == simdjson::SUCCESS) out.type = s;
  if (error["code"].get(s) == simdjson::SUCCESS) out.code = s;
  if (error["message"].get(s) == simdjson::SUCCESS) out.message = s;
  if (error["request_id"].get(s) == simdjson::SUCCESS) out.request_id = s;
  if (error["param"].get(s) == simdjson::SUCCESS) out.param = std::string(s);
  else EXPECT_TRUE(error["param"].is_null()) << reply.body;
  EXPECT_FALSE(out.message.empty()) << reply.body;
  EXPECT_FALSE(out.request_id.empty()) << reply.body;
  EXPECT_EQ(reply.header("request-id"), out.request_id);
  return out;
}

void expect_error(const HttpResponse& reply, int status, const std::string& type, const std::string& code) {
  EXPECT_EQ(reply.status, status) << reply.body;
  ErrorBody e = error_of(reply);
  EXPECT_EQ(e.type, type) << reply.body;
  EXPECT_EQ(e.code, code) << reply.body;
  EXPECT_EQ(e.param, std::nullopt) << reply.body;
}

long header_number(const HttpResponse& reply, const std::string& name) {
  auto v = reply.header(name);
  long n = -1;
  if (!v) {
    ADD_FAILURE() << "no " << name << " header (status " << reply.status << ")";
    return n;
  }
  auto r = std::from_chars(v->data(), v->data() + v->size(), n);
  if (r.ec != std::errc{} || r.ptr != v->data() + v->size()) ADD_FAILURE() << name << " is not a number: " << *v;
  return n;
}

void expect_rate_headers(const HttpResponse& reply, std::optional<long> limit) {
  long l = header_number(reply, "RateLimit-Limit");
  if (limit) {
    EXPECT_EQ(l, *limit);
  }
  long remaining = header_number(reply, "RateLimit-Remaining");
  EXPECT_GE(remaining, 0);
  EXPECT_LE(remaining, l);
  EXPECT_GE(header_number(reply, "RateLimit-Reset"), 0);
}

void expect_no_rate_headers(const HttpResponse& reply) {
  EXPECT_FALSE(reply.has_header("RateLimit-Limit"));
  EXPECT_FALSE(reply.has_header("RateLimit-Remaining"));
  EXPECT_FALSE(reply.has_header("RateLimit-Reset"));
  EXPECT_FALSE(reply.has_header("Retry-After"));
}

void AuthTest::launch_server(unsigned threads, unsigned conns_per_thread,
                             const std::map<std::string, std::string>& settings) {
  server_.reset();  // one server per test at a time
  threads_ = threads;
  conns_per_thread_ = conns_per_thread;
  ProcessOptions options;
  options.env = {{"STOREAPI_DATABASE_URL", api_url(db_)},
                 {"STOREAPI_THREADS", std::to_string(threads)},
                 {"STOREAPI_DB_CONNS_PER_THREAD", std::to_string(conns_per_thread)},
                 {"STOREAPI_ACCESS_LOG", "off"}};
  for (const auto& [name, value] : settings) options.env[name] = value;
  server_ = std::make_unique<ServerProcess>(options);
}

void AuthTest::start_server(unsigned threads, unsigned conns_per_thread,
                            const std::map<std::string, std::string>& settings) {
  launch_server(threads, conns_per_thread, settings);
  ASSERT_TRUE(wait_connected()) << "connections: " << server_connections() << "\n" << server_->stderr_text();
}

HttpResponse AuthTest::get(const std::string& target, const Headers& headers) { return connect().get(target, headers); }

std::vector<HttpClient> AuthTest::warm_on_every_core(const std::string& key, int count) {
  std::vector<HttpClient> connections;
  for (int i = 0; i < count; ++i) {
    connections.push_back(connect());
    EXPECT_EQ(connections.back().get("/v1/store", bearer(key)).status, 200);
  }
  return connections;
}

std::string AuthTest::admin(const std::vector<std::string>& args) {
  CliResult r = run_admin(args, db_.url());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TestKey AuthTest::create_key(const std::string& store_id, const std::string& access, const std::string& scopes,
                             const std::string& expires) {
  std::vector<std::string> args{"key", "create", "--store", store_id, "--name", "test key", "--access", access,
                                "--expires", expires};
  if (!scopes.empty()) args.insert(args.end(), {"--scopes", scopes});
  std::string out = admin(args);
  simdjson::dom::parser parser;
  simdjson::dom::element key;
  TestKey created;
  std::string_view s;
  if (parser.parse(simdjson::padded_string(out)).get(key) == simdjson::SUCCESS) {
    if (key["id"].get(s) == simdjson::SUCCESS) created.id = s;
    if (key["key"].get(s) == simdjson::SUCCESS) created.key = s;
  }
  EXPECT_FALSE(created.key.empty()) << out;
  return created;
}

std::string AuthTest::query_value(const std::string& sql) {
  auto conn = db_.connect();
  pqxx::nontransaction work(*conn);
  auto field = work.exec1(sql)[0];
  return field.is_null() ? "" : field.c_str();
}

int AuthTest::server_connections() {
  return std::stoi(query_value(
      "select count(*) from pg_stat_activity where application_name = 'storeapi' and datname = current_database()"));
}

bool AuthTest::server_listening() {
  return query_value("select count(*) from pg_stat_activity where application_name = 'storeapi'"
                     " and datname = current_database() and query like 'LISTEN %'") == "1";
}

bool AuthTest::wait_connected() {
  const int expected = static_cast<int>(threads_ * conns_per_thread_) + 1;
  // A connection shows in pg_stat_activity before the server has prepared its statements
  // on it, so the server's own word (/readyz on every core) closes the gap.
  return eventually([&] { return server_connections() == expected && server_listening(); }) &&
         every_core_ready(server_->port());
}

}  // namespace storeapi::testing
