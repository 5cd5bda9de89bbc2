#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace id of an incoming
// `traceparent` header, or a fresh one, logged with the request so that its webhook
// deliveries and e-mails can be tied back to it.
#include <string_view>

namespace storeapi::http {

inline constexpr std::size_t kTraceIdLength = 32;  // lowercase hex

// The trace id of a valid `traceparent` value ("00-<32 hex>-<16 hex>-<2 hex>", lowercase;
// a later version may append "-..."), or empty when it is malformed: version ff, an
// all-zero trace or parent id, uppercase hex, wrong lengths (the spec says to start a new
// trace then).
std::string_view trace_id_of(std::string_view traceparent) noexcept;

// Writes a new random trace id (32 lowercase hex digits, never all zero) into `out`.
void new_trace_id(char (&out)[kTraceIdLength]) noexcept;

}  // namespace storeapi::http
