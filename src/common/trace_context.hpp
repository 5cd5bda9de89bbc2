#pragma once
// W3C Trace Context (https://www.w3.org/TR/trace-context/): the trace id of an incoming
// `traceparent` header, or a fresh one, logged with the request and stored with the
// events its write emits, so that their webhook deliveries (which send it on in a
// `traceparent` of their own) and e-mails can be tied back to it. In common: the server
// reads and makes trace ids, the dispatcher makes the deliveries' span ids.
#include <cstddef>
#include <string>
#include <string_view>

namespace storeapi::trace {

inline constexpr std::size_t kTraceIdLength = 32;  // lowercase hex
inline constexpr std::size_t kSpanIdLength = 16;   // lowercase hex

// The trace id of a valid `traceparent` value ("00-<32 hex>-<16 hex>-<2 hex>", lowercase;
// a later version may append "-..."), or empty when it is malformed: version ff, an
// all-zero trace or parent id, uppercase hex, wrong lengths (the spec says to start a new
// trace then).
std::string_view trace_id_of(std::string_view traceparent) noexcept;

// Whether `s` is a trace id as trace_id_of returns them: 32 lowercase hex digits, not all zero.
bool is_trace_id(std::string_view s) noexcept;

// Writes a new random trace id (32 lowercase hex digits, never all zero) into `out`.
void new_trace_id(char (&out)[kTraceIdLength]) noexcept;

// A version-00 `traceparent` value continuing the trace `trace_id` (as trace_id_of
// accepts it) with a new random span id, flagged sampled: a receiver that traces
// records its span under the request's trace.
std::string child_traceparent(std::string_view trace_id);

}  // namespace storeapi::trace
