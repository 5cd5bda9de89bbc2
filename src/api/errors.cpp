#include "api/errors.hpp"

#include "json/writer.hpp"

#include <array>

namespace storeapi::api {
namespace {

using enum ErrorCode;
using enum ErrorType;

constexpr std::array catalogue{
    ErrorInfo{missing_api_key, "missing_api_key", 401, authentication_error,
              "No API key provided. Send it as `Authorization: Bearer <API_KEY>`."},
    ErrorInfo{invalid_api_key, "invalid_api_key", 401, authentication_error, "The API key is not valid."},
    ErrorInfo{revoked_api_key, "revoked_api_key", 401, authentication_error, "The API key has been revoked."},
    ErrorInfo{expired_api_key, "expired_api_key", 401, authentication_error, "The API key has expired."},
    ErrorInfo{insufficient_scope, "insufficient_scope", 403, permission_error,
              "The API key does not have the scope this endpoint needs."},
    ErrorInfo{plan_required, "plan_required", 403, permission_error,
              "API access requires the Pro plan or above."},
    ErrorInfo{invalid_json, "invalid_json", 400, invalid_request_error, "The request body must be a JSON object."},
    ErrorInfo{parameter_missing, "parameter_missing", 400, invalid_request_error, "A required parameter is missing."},
    ErrorInfo{parameter_invalid, "parameter_invalid", 400, invalid_request_error, "A parameter has an invalid value."},
    ErrorInfo{parameter_unknown, "parameter_unknown", 400, invalid_request_error,
              "This endpoint does not take this parameter."},
    ErrorInfo{invalid_cursor, "invalid_cursor", 400, invalid_request_error,
              "The cursor is invalid, or was made for another query."},
    ErrorInfo{resource_not_found, "resource_not_found", 404, invalid_request_error, "No such resource."},
    ErrorInfo{route_not_found, "route_not_found", 404, invalid_request_error, "No such endpoint."},
    ErrorInfo{method_not_allowed, "method_not_allowed", 405, invalid_request_error,
              "This endpoint does not support this method; see the Allow header."},
    ErrorInfo{invalid_state_transition, "invalid_state_transition", 409, invalid_request_error,
              "The resource's current state does not allow this change."},
    ErrorInfo{insufficient_stock, "insufficient_stock", 409, invalid_request_error,
              "Stock cannot go below zero."},
    ErrorInfo{stock_not_tracked, "stock_not_tracked", 409, invalid_request_error,
              "This variant does not track stock; use mode `set` to start tracking it."},
    ErrorInfo{discount_exceeds_price, "discount_exceeds_price", 422, invalid_request_error,
              "The discount would leave a price of zero or less."},
    ErrorInfo{idempotency_mismatch, "idempotency_mismatch", 409, idempotency_error,
              "This Idempotency-Key was already used with a different request."},
    ErrorInfo{idempotency_in_progress, "idempotency_in_progress", 409, idempotency_error,
              "A request with this Idempotency-Key is still in progress; retry later."},
    ErrorInfo{payload_too_large, "payload_too_large", 413, invalid_request_error,
              "The request body is larger than 64 KiB."},
    ErrorInfo{unsupported_media_type, "unsupported_media_type", 415, invalid_request_error,
              "The request body must be sent as application/json."},
    ErrorInfo{headers_too_large, "headers_too_large", 431, invalid_request_error,
              "The request line and headers are larger than 16 KiB."},
    ErrorInfo{bad_request, "bad_request", 400, invalid_request_error, "The HTTP request is malformed."},
    ErrorInfo{request_timeout, "request_timeout", 408, invalid_request_error,
              "The request headers did not arrive in time."},
    ErrorInfo{rate_limited, "rate_limited", 429, rate_limit_error,
              "Too many requests; retry after the number of seconds in the Retry-After header."},
    ErrorInfo{internal_error, "internal_error", 500, api_error, "An internal error occurred."},
    ErrorInfo{service_unavailable, "service_unavailable", 503, api_error,
              "The service is temporarily unavailable; retry after the Retry-After delay."},
};

static_assert([] {
  for (std::size_t i = 0; i < catalogue.size(); ++i) {
    if (catalogue[i].code != static_cast<ErrorCode>(i)) return false;
  }
  return catalogue.size() == static_cast<std::size_t>(service_unavailable) + 1;
}());

// Indexed by ErrorType.
constexpr std::array<std::string_view, 6> type_names{
    "invalid_request_error", "authentication_error", "permission_error",
    "idempotency_error",     "rate_limit_error",     "api_error",
};

}  // namespace

std::span<const ErrorInfo> error_catalogue() { return catalogue; }

const ErrorInfo& error_info(ErrorCode code) { return catalogue[static_cast<std::size_t>(code)]; }

std::string_view error_type_name(ErrorType type) { return type_names[static_cast<std::size_t>(type)]; }

std::optional<ErrorCode> parse_error_code(std::string_view name) {
  for (const ErrorInfo& info : catalogue) {
    if (info.name == name) return info.code;
  }
  return std::nullopt;
}

ErrorCode error_code(json::BodyStatus status) {
  // Indexed by BodyStatus; ok is never answered as an error.
  static constexpr std::array body_codes{internal_error, invalid_json, parameter_unknown, parameter_missing,
                                         parameter_invalid};
  return body_codes[static_cast<std::size_t>(status)];
}

const ErrorInfo& render_error(std::string& out, ErrorCode code, std::optional<std::string_view> param,
                              std::string_view message, std::string_view request_id) {
  const ErrorInfo& info = error_info(code);
  json::Writer w(out);
  w.begin_object().key("error").begin_object();
  w.key("type").string(error_type_name(info.type));
  w.key("code").string(info.name);
  w.key("message").string(message.empty() ? info.message : message);
  w.key("param");
  if (param) {
    w.string(*param);
  } else {
    w.null();
  }
  w.key("request_id").string(request_id);
  w.end_object().end_object();
  return info;
}

const ErrorInfo* render_error(std::string& out, std::string_view code_name, std::optional<std::string_view> param,
                              std::string_view message, std::string_view request_id) {
  const std::optional<ErrorCode> code = parse_error_code(code_name);
  if (!code) return nullptr;
  return &render_error(out, *code, param, message, request_id);
}

}  // namespace storeapi::api
