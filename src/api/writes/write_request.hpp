#pragma once
// A write's request, read once before anything runs or is answered (docs/DECISIONS.md,
// "Idempotency"), into one value that run_write hands down: the query string, the headers
// it needs in one pass, the body against the endpoint's fields, the endpoint's value rules
// with the statement they let it run, and the Idempotency-Key with the fingerprint the key
// is bound to. What the write does after, to its answer, it does with this value, so a
// write's path enters each file once (docs/ARCHITECTURE.md §2, "A write, read once").
#include <array>
#include <optional>
#include <string_view>

#include "api/routing/context.hpp"
#include "api/writes/idempotency.hpp"
#include "api/writes/write.hpp"
#include "http/query.hpp"
#include "json/body.hpp"

namespace storeapi::api {

// What a write's request is read into, owned by run_write's frame: the views of its
// WriteRequest point into it and last across the write's suspensions.
struct WriteBuffers {
  http::Query query;
  std::array<json::FieldValue, kMaxWriteFields> values;
  json::BodyTexts texts;
};

struct WriteRequest {
  // The checks in docs/DESIGN.md's order up to the endpoint's value rules, and the
  // endpoint's statement when they pass. A refused query string is read before the key
  // (which is left absent): it is not the endpoint's answer and is never stored under it.
  WriteCall call;
  IdempotencyKey key;
  // A fenced write's retry looks the caller's key up again with it.
  std::optional<std::string_view> authorization;

  bool keyed() const noexcept { return key.state == IdempotencyKey::State::valid; }
};

WriteRequest read_write(const Context& ctx, const WriteEndpoint& endpoint, WriteBuffers& buffers);

// A Content-Type header value naming JSON: `application/json` in any case, optionally
// followed by parameters (`; charset=utf-8`), with optional spaces or tabs around.
bool is_json_media_type(std::string_view content_type);

}  // namespace storeapi::api
