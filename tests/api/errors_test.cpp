#include "api/errors.hpp"

#include "support/allocations.hpp"

#include <simdjson.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace storeapi::api;

namespace {

struct Expected {
  int status;
  std::string_view type;
};

// docs/DESIGN.md §2's error table, written out independently of the catalogue.
const std::map<std::string_view, Expected> design_table{
    {"missing_api_key", {401, "authentication_error"}},
    {"invalid_api_key", {401, "authentication_error"}},
    {"revoked_api_key", {401, "authentication_error"}},
    {"expired_api_key", {401, "authentication_error"}},
    {"insufficient_scope", {403, "permission_error"}},
    {"plan_required", {403, "permission_error"}},
    {"invalid_json", {400, "invalid_request_error"}},
    {"parameter_missing", {400, "invalid_request_error"}},
    {"parameter_invalid", {400, "invalid_request_error"}},
    {"parameter_unknown", {400, "invalid_request_error"}},
    {"invalid_cursor", {400, "invalid_request_error"}},
    {"resource_not_found", {404, "invalid_request_error"}},
    {"route_not_found", {404, "invalid_request_error"}},
    {"method_not_allowed", {405, "invalid_request_error"}},
    {"invalid_state_transition", {409, "invalid_request_error"}},
    {"insufficient_stock", {409, "invalid_request_error"}},
    {"stock_not_tracked", {409, "invalid_request_error"}},
    {"discount_exceeds_price", {422, "invalid_request_error"}},
    {"idempotency_mismatch", {409, "idempotency_error"}},
    {"idempotency_in_progress", {409, "idempotency_error"}},
    {"payload_too_large", {413, "invalid_request_error"}},
    {"unsupported_media_type", {415, "invalid_request_error"}},
    {"headers_too_large", {431, "invalid_request_error"}},
    {"bad_request", {400, "invalid_request_error"}},
    {"request_timeout", {408, "invalid_request_error"}},
    {"rate_limited", {429, "rate_limit_error"}},
    {"internal_error", {500, "api_error"}},
    {"service_unavailable", {503, "api_error"}},
};

std::string render(ErrorCode code, std::optional<std::string_view> param, std::string_view message = {},
                   std::string_view request_id = "req_1") {
  std::string out;
  render_error(out, code, param, message, request_id);
  return out;
}

}  // namespace

TEST(Errors, CatalogueMatchesDesignTable) {
  ASSERT_EQ(error_catalogue().size(), design_table.size());
  for (const ErrorInfo& info : error_catalogue()) {
    const auto expected = design_table.find(info.name);
    ASSERT_NE(expected, design_table.end()) << info.name;
    EXPECT_EQ(info.status, expected->second.status) << info.name;
    EXPECT_EQ(error_type_name(info.type), expected->second.type) << info.name;
    EXPECT_FALSE(info.message.empty()) << info.name;
    EXPECT_EQ(&error_info(info.code), &info);
  }
}

TEST(Errors, CodesParseFromTheirNames) {
  for (const ErrorInfo& info : error_catalogue()) EXPECT_EQ(parse_error_code(info.name), info.code);
  for (const char* bad : {"", "Parameter_invalid", "parameter_invalid ", "not_found", "error"}) {
    EXPECT_EQ(parse_error_code(bad), std::nullopt) << bad;
  }
}

TEST(Errors, EnvelopeIsExact) {
  EXPECT_EQ(render(ErrorCode::parameter_invalid, "limit", "limit must be between 1 and 100.", "req_abc"),
            R"({"error":{"type":"invalid_request_error","code":"parameter_invalid",)"
            R"("message":"limit must be between 1 and 100.","param":"limit","request_id":"req_abc"}})");
}

TEST(Errors, NullParamAndDefaultMessage) {
  EXPECT_EQ(render(ErrorCode::route_not_found, std::nullopt, {}, "r"),
            R"({"error":{"type":"invalid_request_error","code":"route_not_found",)"
            R"("message":"No such endpoint.","param":null,"request_id":"r"}})");
  EXPECT_EQ(render(ErrorCode::plan_required, std::nullopt, {}, "r"),
            R"({"error":{"type":"permission_error","code":"plan_required",)"
            R"("message":"API access requires the Pro plan or above.","param":null,"request_id":"r"}})");
  // An empty param is a param, not null.
  EXPECT_NE(render(ErrorCode::parameter_unknown, "").find(R"("param":"",)"), std::string::npos);
}

TEST(Errors, EveryCodeRendersValidJsonWithItsFields) {
  simdjson::dom::parser parser;
  for (const ErrorInfo& info : error_catalogue()) {
    const std::string out = render(info.code, "we\"ird\xFF", "line\nbreak", "req_\x01");
    simdjson::dom::element error;
    ASSERT_EQ(parser.parse(out).at_key("error").get(error), simdjson::SUCCESS) << out;
    EXPECT_EQ(std::string_view(error["type"]), error_type_name(info.type));
    EXPECT_EQ(std::string_view(error["code"]), info.name);
    EXPECT_EQ(std::string_view(error["message"]), "line\nbreak");
    EXPECT_EQ(std::string_view(error["param"]), "we\"ird\xEF\xBF\xBD");
    EXPECT_EQ(std::string_view(error["request_id"]), "req_\x01");
    EXPECT_EQ(simdjson::dom::object(error).size(), 5u);
  }
}

TEST(Errors, AppendsToTheBuffer) {
  std::string out = "x";
  render_error(out, ErrorCode::internal_error, std::nullopt, {}, "r");
  EXPECT_EQ(out.substr(0, 11), R"(x{"error":{)");
}

TEST(Errors, BodyStatusesMapToTheirCodes) {
  using storeapi::json::BodyStatus;
  EXPECT_EQ(error_code(BodyStatus::invalid_json), ErrorCode::invalid_json);
  EXPECT_EQ(error_code(BodyStatus::parameter_unknown), ErrorCode::parameter_unknown);
  EXPECT_EQ(error_code(BodyStatus::parameter_missing), ErrorCode::parameter_missing);
  EXPECT_EQ(error_code(BodyStatus::parameter_invalid), ErrorCode::parameter_invalid);
}

TEST(Errors, RenderingAllocatesNothingOnceTheBufferIsWarm) {
  if (!storeapi::testing::allocations_counted()) GTEST_SKIP() << "allocations are not counted here";
  std::string out;
  const auto render_some = [&] {
    out.clear();
    render_error(out, ErrorCode::parameter_invalid, "limit", {}, "req_7f3e2d1c0b9a48879e8d7c6b");
    render_error(out, ErrorCode::internal_error, std::nullopt, "Something \"odd\" happened.", "req_1");
  };
  EXPECT_GT(storeapi::testing::allocations_during(render_some), 0u);  // cold: the buffers grow
  EXPECT_EQ(storeapi::testing::allocations_during(render_some), 0u);
}

TEST(Checked, PassedOrRefusedWithWhatTheAnswerNeeds) {
  EXPECT_TRUE(Checked::passed().ok());
  const Checked refused = Checked::refused(ErrorCode::parameter_invalid, "limit", "Expected an integer.");
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(refused.code(), ErrorCode::parameter_invalid);
  EXPECT_EQ(refused.param(), "limit");
  EXPECT_EQ(refused.message(), "Expected an integer.");
  EXPECT_EQ(Checked::refused(ErrorCode::invalid_json, std::nullopt).param(), std::nullopt);
  EXPECT_EQ(Checked::refused(ErrorCode::invalid_json, std::nullopt).message(), "");  // the catalogue's
  EXPECT_EQ(refused, Checked::refused(ErrorCode::parameter_invalid, "limit", "Expected an integer."));
  EXPECT_NE(refused, Checked::refused(ErrorCode::parameter_unknown, "limit", "Expected an integer."));
}
