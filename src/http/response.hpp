#pragma once
// A response under construction. Its buffers belong to the connection and are reused from
// request to request, so a warm connection builds responses without heap allocation.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/stage_timing.hpp"
#include "http/route_label.hpp"

namespace storeapi::http {

// What the access log and the metrics tell about an answer besides its status; set by the
// handler as it learns it, cleared with the response.
struct ResponseNotes {
  const RouteLabel* route = nullptr;  // the matched route (its template labels metrics); null: none
  std::string_view error_code;   // docs/DESIGN.md's `code` of an error answer (static text)
  std::string store_id;          // the authenticated caller's store
  std::string key_prefix;        // and the public prefix of its key (never the key)

  void clear() noexcept {
    route = nullptr;
    error_code = {};
    store_id.clear();
    key_prefix.clear();
  }
};

struct Response {
  int status = 200;
  std::string body;              // JSON
  std::string extra_headers;     // complete "Name: value\r\n" lines
  std::size_t kept_headers = 0;  // how much of extra_headers survives discard()
  bool close = false;            // answer with Connection: close and close afterwards
  ResponseNotes notes;
  // The handler's auth (with stage timing on) and database time, kept apart from its own.
  stage_timing::Tally tally;

  void add_header(std::string_view name, std::string_view value);
  void add_header(std::string_view name, std::int64_t value);
  // The headers added so far survive discard(): those every answer must carry whatever
  // happens next (the rate-limit headers of an authenticated request).
  void keep_headers() noexcept { kept_headers = extra_headers.size(); }
  // Drops what was built, except the kept headers: before answering in the handler's
  // stead (the 500 after it threw).
  void discard() noexcept {
    status = 200;
    body.clear();
    extra_headers.resize(std::min(kept_headers, extra_headers.size()));  // shrinks: never throws
    close = false;
  }
  void reset() noexcept {
    kept_headers = 0;
    notes.clear();
    tally = {};
    discard();
  }
};

struct ResponseFraming {
  std::string_view request_id;
  bool head = false;        // HEAD: headers as for GET, no body
  bool keep_alive = true;
  bool http10 = false;      // HTTP/1.0 peers need an explicit keep-alive
};

// Appends status line, headers (Content-Type, Content-Length, Date, Request-Id, the
// response's own) and body to `out`. Returns the number of body bytes written.
std::size_t serialize(const Response& res, const ResponseFraming& framing, std::string& out);

std::string_view reason_phrase(int status) noexcept;

// "Sat, 21 Nov 2026 21:55:45 GMT", recomputed at most once a second per thread.
std::string_view http_date() noexcept;

// A fresh request id, "req_" + 20 hex digits, unique within this process and unlikely to
// repeat across processes (random per-thread prefix + counter). Valid until the next call
// on this thread.
std::string_view next_request_id() noexcept;

}  // namespace storeapi::http
