// Every statement the server prepares declares the parameter count its SQL uses; the
// server would refuse to start otherwise (db::Pool checks at construction).
#include "api/statements.hpp"
#include "db/statement.hpp"

#include <gtest/gtest.h>

namespace storeapi::api {
namespace {

TEST(Statements, EveryParameterCountMatchesItsSql) {
  ASSERT_FALSE(statements().empty());
  for (const db::Statement& s : statements()) EXPECT_EQ(db::parameter_mismatch(s), std::nullopt) << s.name;
}

}  // namespace
}  // namespace storeapi::api
