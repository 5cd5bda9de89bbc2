#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/endpoints.hpp"
#include "api/statements.hpp"
#include "common/regex.hpp"

using namespace storeapi;
using namespace storeapi::api;

namespace {

// The parameter numbers a statement's SQL refers to.
std::set<int> referenced(const std::string& sql) {
  std::set<int> out;
  const std::regex param(R"(\$(\d+))");
  for (auto it = std::sregex_iterator(sql.begin(), sql.end(), param); it != std::sregex_iterator(); ++it) {
    out.insert(std::stoi((*it)[1]));
  }
  return out;
}

}  // namespace

// PostgreSQL infers every parameter's type from its use, so a statement must use each of
// $1..$param_count, and page.cpp passes exactly param_count values.
TEST(ReadStatements, UseEveryParameterTheyDeclare) {
  std::size_t reads = 0;
  for (const db::Statement& statement : statements()) {
    std::set<int> expected;
    for (int i = 1; i <= statement.param_count; ++i) expected.insert(i);
    EXPECT_EQ(referenced(statement.sql), expected) << statement.name;
    reads += std::string(statement.name).find("_get") != std::string::npos;
  }
  EXPECT_EQ(reads, 4u);
}

TEST(ReadStatements, NamesAreUniqueAndEachListHasItsPaths) {
  std::set<std::string> names;
  for (const db::Statement& statement : statements()) EXPECT_TRUE(names.insert(statement.name).second) << statement.name;
  for (const char* name : {"orders_walk_desc", "orders_walk_asc", "orders_sync_desc", "orders_sync_asc",
                           "bookings_walk_desc", "bookings_walk_asc", "products_selective_desc",
                           "products_selective_asc", "products_sync_asc", "customers_selective_asc",
                           "customers_sync_desc"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
  EXPECT_FALSE(names.count("bookings_sync_asc"));  // bookings take no updated bounds
  EXPECT_THROW(booking_reads().statement(PagePath::sync, true), std::logic_error);
}

TEST(ReadStatements, ARecordByIdRendersAsItsList) {
  const std::string by_id = order_reads().by_id().sql;
  const std::string page = order_reads().statement(PagePath::walk, false).sql;
  for (const char* piece : {"api.order_json(r, li.line_items)", "cross join lateral api.line_items_json(r.store_id, r.id) li"}) {
    EXPECT_NE(by_id.find(piece), std::string::npos) << piece;
    EXPECT_NE(page.find(piece), std::string::npos) << piece;
  }
  EXPECT_EQ(order_reads().by_id().param_count, 2);
}
