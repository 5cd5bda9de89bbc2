#include "read_world.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <stdexcept>

#include "admin/admin_cli.hpp"
#include "support/readiness.hpp"
#include "support/runtime_role.hpp"

namespace storeapi::testing {
namespace {

void admin_ok(const std::vector<std::string>& args, const std::string& url) {
  const CliResult r = run_admin(args, url);
  if (r.exit_code != 0) throw std::runtime_error("storeapi-admin " + args.front() + " failed: " + r.err);
}

// The value of `name` in a query string, or empty.
std::string_view query_value(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = std::min(query.find('&'), query.size());
    const std::string_view piece = query.substr(0, amp);
    if (piece.substr(0, name.size() + 1) == std::string(name) + "=") return piece.substr(name.size() + 1);
    query.remove_prefix(std::min(amp + 1, query.size()));
  }
  return {};
}

}  // namespace

ReadWorld::ReadWorld(const std::vector<std::vector<std::string>>& seeds) {
  for (const auto& flags : seeds) {
    const TestStore store = db_.create_store("advanced");
    std::vector<std::string> seed{"seed", "--store", store.id};
    seed.insert(seed.end(), flags.begin(), flags.end());
    admin_ok(seed, db_.url());
    admin_ok({"store", "set-rate-limit", "--store", store.id, "--rpm", "100000000"}, db_.url());
    stores_.push_back({store.id, db_.create_key(store.id, "read").key});
  }
  server_ = start_api_server(api_url(db_), "read-tests-secret-at-least-32-bytes");
}

std::vector<std::vector<std::string>> ReadWorld::rows(const std::string& sql) {
  auto conn = db_.connect();
  pqxx::work work(*conn);
  const pqxx::result result = work.exec(sql);
  work.commit();
  std::vector<std::vector<std::string>> out;
  for (const auto& row : result) {
    std::vector<std::string> values;
    for (const auto& field : row) values.push_back(field.is_null() ? "" : field.c_str());
    out.push_back(std::move(values));
  }
  return out;
}

std::vector<std::string> ReadWorld::column(const std::string& sql) {
  std::vector<std::string> out;
  for (auto& row : rows(sql)) out.push_back(row.at(0));
  return out;
}

simdjson::dom::element Reply::json() const {
  if (!json_) {
    parser_ = std::make_unique<simdjson::dom::parser>();
    json_ = parser_->parse(simdjson::padded_string(body)).value();
  }
  return *json_;
}

std::string Reply::error() const {
  simdjson::dom::element error;
  if (json()["error"].get(error)) return "(no error)";
  simdjson::dom::element param = error["param"].value();
  return std::string(error["code"].get_string().value()) + " " +
         (param.is_null() ? std::string("null") : std::string(param.get_string().value()));
}

Api::Api(std::uint16_t port, std::string key) : client_(port), key_(std::move(key)) {}

Reply Api::get(std::string_view target) {
  return Reply(client_.request("GET", target, bearer(key_)));
}

Reply Api::head(std::string_view target) {
  return Reply(client_.request("HEAD", target, bearer(key_)));
}

std::vector<Api::Record> Api::walk(std::string_view path, std::string_view query, std::size_t* pages) {
  std::size_t limit = 25;
  if (const std::string_view l = query_value(query, "limit"); !l.empty()) std::from_chars(l.data(), l.data() + l.size(), limit);
  std::vector<Record> out;
  std::string cursor;
  for (std::size_t page = 1;; ++page) {
    std::string target(path);
    target += "?";
    target += query;
    if (!cursor.empty()) target += (query.empty() ? "cursor=" : "&cursor=") + cursor;
    const Reply reply = get(target);
    if (reply.status != 200) {
      ADD_FAILURE() << target << " answered " << reply.status << ": " << reply.body;
      return out;
    }
    const simdjson::dom::element list = reply.json();
    const simdjson::dom::array data = list["data"].get_array().value();
    const bool has_more = list["has_more"].get_bool().value();
    for (simdjson::dom::element record : data) {
      out.push_back({std::string(record["id"].get_string().value()), simdjson::minify(record)});
    }
    EXPECT_TRUE(has_more ? data.size() == limit : data.size() <= limit) << target << ": " << data.size() << " records";
    if (!has_more) {
      EXPECT_TRUE(list["next_cursor"].is_null()) << target;
      if (pages) *pages = page;
      return out;
    }
    cursor = std::string(list["next_cursor"].get_string().value());
    if (page > 100'000) throw std::runtime_error("a walk that never ends: " + target);
  }
}

std::vector<std::string> Api::walk_ids(std::string_view path, std::string_view query) {
  std::vector<std::string> ids;
  for (Record& r : walk(path, query)) ids.push_back(std::move(r.id));
  return ids;
}

std::string url_encode(std::string_view text) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
        c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace storeapi::testing
