#include "admin_fixture.hpp"

#include <algorithm>
#include <chrono>

namespace storeapi::testing {

simdjson::dom::element AdminTest::ok(const std::vector<std::string>& args) {
  CliResult r = run_admin(args, db().url());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  return parse_json(parser_, r.out);
}

std::string AdminTest::fails(const std::vector<std::string>& args, int code) {
  std::string before = db().fingerprint();
  CliResult r = run_admin(args, db().url());
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("storeapi-admin: ", 0), 0u) << r.err;
  EXPECT_EQ(db().fingerprint(), before) << "a failed command changed the database";
  return r.err;
}

std::string AdminTest::query_value(const std::string& sql) {
  auto conn = db().connect();
  pqxx::work work(*conn);
  auto field = work.exec1(sql)[0];
  std::string value = field.is_null() ? "" : field.c_str();
  work.commit();
  return value;
}

std::string str(simdjson::dom::element object, const char* key) {
  return std::string(std::string_view(object[key]));
}

std::int64_t num(simdjson::dom::element object, const char* key) { return object[key].get_int64().value(); }

bool flag(simdjson::dom::element object, const char* key) { return object[key].get_bool().value(); }

bool Listener::wait_for(const std::string& payload) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::find(payloads.begin(), payloads.end(), payload) == payloads.end()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    conn().await_notification(0, 200'000);
  }
  return true;
}

}  // namespace storeapi::testing
