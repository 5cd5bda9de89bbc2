#include "api/writes/write_request.hpp"

#include <span>

#include "api/routing/query_refusal.hpp"

namespace storeapi::api {
namespace {

// The headers a write reads, in one pass (http::Request::first_headers).
enum HeaderIndex : std::size_t { kContentType, kIdempotencyKey, kAuthorization, kHeaderCount };
constexpr std::array<std::string_view, kHeaderCount> kHeaderNames{"content-type", "idempotency-key", "authorization"};

std::string_view trim_whitespace(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Content-Type, the body, then the endpoint's rules (docs/DESIGN.md's order).
WriteCall validate(const Context& ctx, const WriteEndpoint& endpoint, std::optional<std::string_view> content_type,
                   std::span<json::FieldValue> values, json::BodyTexts& texts) {
  // An empty body is {} whatever its type says; a body needs to say it is JSON.
  if (!ctx.req.body.empty() && !(content_type && is_json_media_type(*content_type)))
    return Checked::refused(ErrorCode::unsupported_media_type, std::nullopt);
  if (auto error = ctx.services.body_parser.parse(ctx.req.body, ctx.req.body.size() + http::Request::kBodyPadding,
                                                  endpoint.fields, values, texts)) {
    return Checked::refused(error_code(error->kind), error->param, error->message);
  }
  return endpoint.read(ctx, values);
}

}  // namespace

WriteRequest read_write(const Context& ctx, const WriteEndpoint& endpoint, WriteBuffers& buffers) {
  // First, and alone: a refused query string is not the endpoint's answer and is never
  // stored under the key.
  if (const Checked query = check_no_query_params(buffers.query, ctx.req.query); !query.ok()) return {query, {}, {}};
  std::array<std::optional<std::string_view>, kHeaderCount> headers;
  ctx.req.first_headers(kHeaderNames, headers);
  const std::span<json::FieldValue> values = std::span(buffers.values).first(endpoint.fields.size());
  WriteRequest write{
      validate(ctx, endpoint, headers[kContentType], values, buffers.texts), {}, headers[kAuthorization]};
  // Bound to the validated fields, or to the raw body of a rejected request.
  write.key = read_idempotency_key(
      headers[kIdempotencyKey], ctx.req,
      write.call.verdict().ok() ? std::optional(ValidatedBody{endpoint.fields, values}) : std::nullopt);
  return write;
}

bool is_json_media_type(std::string_view content_type) {
  return http::iequals(trim_whitespace(content_type.substr(0, content_type.find(';'))), "application/json");
}

}  // namespace storeapi::api
