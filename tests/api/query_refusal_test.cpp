// check_no_query_params (api/routing/query_refusal.hpp): the verdict on the query string of
// an endpoint that takes no parameters, as reads answer it and writes read it.
#include "api/routing/query_refusal.hpp"

#include <gtest/gtest.h>

namespace storeapi::api {
namespace {

TEST(NoQueryParams, NoneOrAnEmptyQueryStringPasses) {
  http::Query query;
  EXPECT_TRUE(check_no_query_params(query, "").ok());
}

TEST(NoQueryParams, AnyParameterIsUnknownTheFirstNamed) {
  http::Query query;
  EXPECT_EQ(check_no_query_params(query, "x=1&y=2"), Checked::refused(ErrorCode::parameter_unknown, "x"));
  EXPECT_EQ(check_no_query_params(query, "flag"), Checked::refused(ErrorCode::parameter_unknown, "flag"));
  // Decoded, as every parameter's name is reported.
  EXPECT_EQ(check_no_query_params(query, "a%20b=1").param(), "a b");
}

TEST(NoQueryParams, AQueryStringThatDoesNotParseIsInvalid) {
  http::Query query;
  const Checked checked = check_no_query_params(query, "a=%zz");
  EXPECT_FALSE(checked.ok());
  EXPECT_EQ(checked.code(), ErrorCode::parameter_invalid);
  EXPECT_FALSE(checked.message().empty());
}

}  // namespace
}  // namespace storeapi::api
