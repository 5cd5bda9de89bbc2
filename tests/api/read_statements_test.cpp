#include <gtest/gtest.h>

#include <set>
#include <string>

#include "api/routing/endpoints.hpp"
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
    for (int i = 1; i <= statement.param_count(); ++i) expected.insert(i);
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
  EXPECT_THROW(booking_reads().statements().statement(PagePath::sync, true), std::logic_error);
}

// Reads render nothing: by id and every page return the stored document.
TEST(ReadStatements, EveryReadReturnsTheStoredDocument) {
  for (const db::Statement& statement : statements()) {
    const std::string sql = statement.sql;
    const std::string name = statement.name;
    if (name.find("_get") == std::string::npos && name.find("_walk_") == std::string::npos &&
        name.find("_sync_") == std::string::npos && name.find("_selective_") == std::string::npos)
      continue;
    EXPECT_EQ(sql.rfind("select r.doc", 0) == 0 || sql.find(") select r.doc, ") != std::string::npos, true) << name;
    EXPECT_EQ(sql.find("_json("), std::string::npos) << name;
  }
  EXPECT_EQ(std::string(order_reads().statements().by_id().sql), "select r.doc from orders r where r.store_id = $1 and r.id = $2");
  EXPECT_EQ(order_reads().statements().by_id().param_count(), 2);
}
