// Facts written once in SQL and once in C++, held together: a change on one side that the
// other does not follow fails here, not at run time on some request.
//   - the value sets of the SQL domains and api/value_sets.hpp (and the scope names);
//   - the error codes SQL write functions refuse with (api.rejection) and the catalogue
//     of api/errors.cpp: every code known, with the same status;
//   - the API key prefix of api.config('key_prefix') and auth/api_key.hpp;
//   - the NOTIFY channels of api.config and db/channels.hpp.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>

#include "api/errors.hpp"
#include "api/value_sets.hpp"
#include "auth/api_key.hpp"
#include "auth/scopes.hpp"
#include "common/regex.hpp"
#include "db/channels.hpp"
#include "support/test_database.hpp"

namespace storeapi::testing {
namespace {

class SqlAgreement : public ::testing::Test {
 protected:
  // The values a domain's `check (value in (...))` allows, in any order.
  std::set<std::string> domain_values(const std::string& domain) {
    const std::string definition = query_one(
        "select pg_get_constraintdef(c.oid) from pg_constraint c join pg_type t on t.oid = c.contypid"
        " where t.typname = '" + domain + "'");
    std::set<std::string> values;
    const std::regex quoted("'([^']*)'");
    for (auto it = std::sregex_iterator(definition.begin(), definition.end(), quoted); it != std::sregex_iterator();
         ++it)
      values.insert((*it)[1].str());
    return values;
  }

  std::string query_one(const std::string& sql) {
    auto conn = db_.connect();
    pqxx::nontransaction tx(*conn);
    return tx.exec1(sql)[0].as<std::string>();
  }

  TestDatabase db_;
};

template <class Values>
std::set<std::string> as_set(const Values& values) {
  return {values.begin(), values.end()};
}

TEST_F(SqlAgreement, ValueSetsAreTheDomains) {
  EXPECT_EQ(domain_values("order_status"), as_set(api::kOrderStatuses));
  EXPECT_EQ(domain_values("fulfillment_status"), as_set(api::kFulfillmentStatuses));
  EXPECT_EQ(domain_values("order_channel"), as_set(api::kOrderChannels));
  EXPECT_EQ(domain_values("booking_status"), as_set(api::kBookingStatuses));
  EXPECT_EQ(domain_values("product_type"), as_set(api::kProductTypes));
  EXPECT_EQ(domain_values("product_status"), as_set(api::kProductStatuses));
  EXPECT_EQ(domain_values("discount_type"), as_set(api::kDiscountTypes));
  EXPECT_EQ(domain_values("stock_mode"), as_set(api::kStockModes));
  std::set<std::string> scopes;
  for (auth::Scope scope : auth::all_scopes) scopes.insert(std::string(auth::scope_name(scope)));
  EXPECT_EQ(domain_values("api_scope"), scopes);
}

// Every code literal passed to api.rejection in the database's functions, as migrated.
TEST_F(SqlAgreement, RejectionCodesAreTheCataloguesWithItsStatus) {
  auto conn = db_.connect();
  pqxx::nontransaction tx(*conn);
  std::set<std::string> codes;
  const std::regex call(R"(api\.rejection\(\s*'([a-z_]+)')");
  for (const auto& row : tx.exec("select p.prosrc from pg_proc p join pg_namespace n on n.oid = p.pronamespace"
                                 " where n.nspname = 'api'")) {
    const std::string source = row[0].as<std::string>();
    for (auto it = std::sregex_iterator(source.begin(), source.end(), call); it != std::sregex_iterator(); ++it)
      codes.insert((*it)[1].str());
  }
  ASSERT_FALSE(codes.empty()) << "no api.rejection call found: the pattern no longer matches the SQL";
  for (const std::string& code : codes) {
    const std::optional<api::ErrorCode> known = api::parse_error_code(code);
    ASSERT_TRUE(known.has_value()) << code << " is not in api/errors.cpp's catalogue";
    const int sql_status = tx.exec_params1("select (api.rejection($1)).status", code)[0].as<int>();
    EXPECT_EQ(sql_status, api::error_info(*known).status) << code;
  }
}

TEST_F(SqlAgreement, KeyPrefixIsAuths) {
  EXPECT_EQ(query_one("select api.config('key_prefix')"), auth::kLiveKeyPrefix);
}

TEST_F(SqlAgreement, ChannelsAreTheListenersOwn) {
  EXPECT_EQ(query_one("select api.config('invalidate_channel')"), db::kInvalidateChannel);
  EXPECT_EQ(query_one("select api.config('events_channel')"), db::kEventsChannel);
}

}  // namespace
}  // namespace storeapi::testing
