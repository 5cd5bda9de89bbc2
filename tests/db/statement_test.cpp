// The parameter count a statement declares against the $N its SQL uses, and the pool
// refusing to start with a statement whose count is wrong.
#include "db/pool.hpp"
#include "db/statement.hpp"

#include <gtest/gtest.h>

#include "support/statement_params.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace storeapi::db {
namespace {

TEST(StatementParameters, MatchingCountsPass) {
  EXPECT_EQ(parameter_mismatch({"none", "select 1", testing::untyped_params(0), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"two", "select $1::int + $2::int", testing::untyped_params(2), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"repeated", "select $2::text, $1::text, $2", testing::untyped_params(2), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"ten", "select $1,$2,$3,$4,$5,$6,$7,$8,$9,$10", testing::untyped_params(10), {}}), std::nullopt);
}

TEST(StatementParameters, WrongCountsAreNamed) {
  EXPECT_EQ(parameter_mismatch({"more_declared", "select $1::int", testing::untyped_params(2), {}}),
            "more_declared: declares 2 parameters, its SQL uses up to $1");
  EXPECT_EQ(parameter_mismatch({"fewer_declared", "select $1::int, $2::int", testing::untyped_params(1), {}}),
            "fewer_declared: declares 1 parameters, its SQL uses up to $2");
  EXPECT_EQ(parameter_mismatch({"gap", "select $1::int, $3::int", testing::untyped_params(3), {}}), "gap: $2 is never used");
}

// Text that only looks like a placeholder is not one.
TEST(StatementParameters, QuotedTextAndCommentsDoNotCount) {
  EXPECT_EQ(parameter_mismatch({"literal", "select '$2', $1::text", testing::untyped_params(1), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"doubled_quote", "select 'it''s $3', $1::text", testing::untyped_params(1), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"identifier", "select 1 as \"$4\", $1::text", testing::untyped_params(1), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"comment", "select $1::text -- $5 was here\n", testing::untyped_params(1), {}}), std::nullopt);
  EXPECT_EQ(parameter_mismatch({"dollar_alone", "select '$' || $1::text", testing::untyped_params(1), {}}), std::nullopt);
}

TEST(StatementParameters, CheckNamesEveryMismatch) {
  const std::vector<Statement> statements{
      {"fine", "select $1::int", testing::untyped_params(1), {}},
      {"first_bad", "select $1::int", testing::untyped_params(0), {}},
      {"second_bad", "select 1", testing::untyped_params(1), {}}};
  try {
    check_parameters(statements);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("first_bad"), std::string::npos) << what;
    EXPECT_NE(what.find("second_bad"), std::string::npos) << what;
    EXPECT_EQ(what.find("fine"), std::string::npos) << what;
  }
}

// Start-up: the pool is built on each core before anything connects; a wrong count stops
// the server there (app/main.cpp reports "start failed") instead of at the first request.
TEST(StatementParameters, APoolWithAMismatchDoesNotStart) {
  const std::vector<Statement> statements{{"wrong", "select $1::int, $2::int", testing::untyped_params(1), {}}};
  EXPECT_THROW(Pool(PoolOptions{}, statements), std::invalid_argument);
  const std::vector<Statement> right{{"right", "select $1::int, $2::int", testing::untyped_params(2), {}}};
  EXPECT_NO_THROW(Pool(PoolOptions{}, right));
}

}  // namespace
}  // namespace storeapi::db
