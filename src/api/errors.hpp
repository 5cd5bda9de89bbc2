#pragma once
// The error catalogue of docs/DESIGN.md §2 — code, HTTP status, type, default message — and the
// error envelope every error response carries.
#include "json/body.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace storeapi::api {

enum class ErrorType : std::uint8_t {
  invalid_request_error,
  authentication_error,
  permission_error,
  idempotency_error,
  rate_limit_error,
  api_error,
};

enum class ErrorCode : std::uint8_t {
  missing_api_key,
  invalid_api_key,
  revoked_api_key,
  expired_api_key,
  insufficient_scope,
  plan_required,
  invalid_json,
  parameter_missing,
  parameter_invalid,
  parameter_unknown,
  invalid_cursor,
  resource_not_found,
  route_not_found,
  method_not_allowed,
  invalid_state_transition,
  insufficient_stock,
  stock_not_tracked,
  discount_exceeds_price,
  idempotency_mismatch,
  idempotency_in_progress,
  payload_too_large,
  unsupported_media_type,
  headers_too_large,
  bad_request,
  request_timeout,
  rate_limited,
  internal_error,
  service_unavailable,
};

struct ErrorInfo {
  ErrorCode code;
  std::string_view name;  // the `code` field, e.g. "parameter_invalid"
  int status;
  ErrorType type;
  std::string_view message;  // used when the caller gives none
};

// The whole catalogue, indexed by ErrorCode. A deliberate test seam: the product looks
// codes up one at a time; tests/api/errors_test.cpp holds the whole table to the design's.
std::span<const ErrorInfo> error_catalogue();
const ErrorInfo& error_info(ErrorCode code);
std::string_view error_type_name(ErrorType type);
// For errors stored by code (idempotency replays); nullopt for an unknown name.
std::optional<ErrorCode> parse_error_code(std::string_view name);

// How a check of a request came out: passed, or refused with the catalogue's code, the
// parameter at fault and a message (static text; empty for the catalogue's). The API
// layer's result struct for its checks (docs/ARCHITECTURE.md §8): callers branch on
// ok() and answer a refusal as it is (`fail(ctx, checked)`).
class [[nodiscard]] Checked {
 public:
  static constexpr Checked passed() noexcept { return Checked(); }
  static constexpr Checked refused(ErrorCode code, std::optional<std::string_view> param,
                                   std::string_view message = {}) noexcept {
    Checked c;
    c.refused_ = true;
    c.code_ = code;
    c.param_ = param;
    c.message_ = message;
    return c;
  }

  constexpr bool ok() const noexcept { return !refused_; }
  // Only when refused.
  constexpr ErrorCode code() const noexcept { return code_; }
  constexpr std::optional<std::string_view> param() const noexcept { return param_; }
  constexpr std::string_view message() const noexcept { return message_; }
  friend constexpr bool operator==(const Checked&, const Checked&) = default;

 private:
  constexpr Checked() noexcept = default;
  bool refused_ = false;
  ErrorCode code_ = ErrorCode::internal_error;
  std::optional<std::string_view> param_;
  std::string_view message_;
};

// The code a request body's validation failure (not ok) is answered with.
ErrorCode error_code(json::BodyStatus status);

// Appends {"error":{"type","code","message","param","request_id"}} to `out` and returns
// the code's entry (the status and name its answer takes). `param` nullopt renders null;
// an empty `message` means the catalogue's default.
const ErrorInfo& render_error(std::string& out, ErrorCode code, std::optional<std::string_view> param,
                              std::string_view message, std::string_view request_id);
// The same for a code given by its name (an error the database answered: a SQL write's
// refusal, or one stored under an Idempotency-Key); nullptr, nothing appended, for a name
// the catalogue does not hold.
const ErrorInfo* render_error(std::string& out, std::string_view code_name, std::optional<std::string_view> param,
                              std::string_view message, std::string_view request_id);

}  // namespace storeapi::api
