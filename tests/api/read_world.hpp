#pragma once
// What the read-endpoint tests run against: a fresh migrated database with seeded stores
// (storeapi-admin seed), a read key for each (rate limit lifted, so walks are never
// throttled), and a real storeapi server over it; plus a small HTTP client that speaks
// for one key and walks lists.
#include <simdjson.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "support/http_client.hpp"
#include "support/server_process.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {

struct SeededStore {
  std::string id;
  std::string key;  // read access to everything
};

class ReadWorld {
 public:
  // One store per entry, each seeded with those `storeapi-admin seed` flags, e.g.
  // {"--orders", "150"} (empty: the seed's defaults).
  explicit ReadWorld(const std::vector<std::vector<std::string>>& seeds);

  TestDatabase& db() { return db_; }
  const SeededStore& store(std::size_t i) const { return stores_.at(i); }
  std::uint16_t port() const { return server_->port(); }

  // Runs `sql` (committed) and returns its rows, every value as text ("" for NULL).
  std::vector<std::vector<std::string>> rows(const std::string& sql);
  // The first column of every row.
  std::vector<std::string> column(const std::string& sql);

 private:
  TestDatabase db_;
  std::vector<SeededStore> stores_;
  std::unique_ptr<ServerProcess> server_;
};

struct Reply {
  explicit Reply(HttpResponse response) : status(response.status), body(response.body), raw(std::move(response)) {}

  int status;
  std::string body;
  HttpResponse raw;

  // The body as JSON (parsed once; valid as long as this Reply).
  simdjson::dom::element json() const;
  // error.code and error.param of an error body ("null" for a null param).
  std::string error() const;

 private:
  mutable std::unique_ptr<simdjson::dom::parser> parser_;
  mutable std::optional<simdjson::dom::element> json_;
};

class Api {
 public:
  Api(std::uint16_t port, std::string key);

  Reply get(std::string_view target);
  Reply head(std::string_view target);

  // Every record of the list `path?query`, page after page, as (id, record JSON). Checks
  // each page on the way (status, envelope, page size = limit unless last, next_cursor
  // null exactly on the last page) and fails the test if one is wrong.
  struct Record {
    std::string id;
    std::string json;
  };
  std::vector<Record> walk(std::string_view path, std::string_view query = "", std::size_t* pages = nullptr);
  std::vector<std::string> walk_ids(std::string_view path, std::string_view query = "");

 private:
  HttpClient client_;
  std::string key_;
};

// `text` percent-encoded for a query string value.
std::string url_encode(std::string_view text);

}  // namespace storeapi::testing
