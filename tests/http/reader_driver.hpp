#pragma once
// Feeds bytes to a RequestReader the way a connection does (recv_space, commit, next until
// need_more) and records what comes out as owned values that tests can compare.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/request_reader.hpp"

namespace storeapi::testing {

struct ParsedRequest {
  http::Method method = http::Method::other;
  std::string method_text, target, path, query, body;
  std::vector<std::pair<std::string, std::string>> headers;
  int http_minor = 1;
  bool keep_alive = true;
  bool body_padded = false;  // kBodyPadding readable bytes follow the body

  friend bool operator==(const ParsedRequest&, const ParsedRequest&) = default;
};

struct ReaderOutcome {
  std::vector<ParsedRequest> requests;
  std::optional<http::Rejection> rejection;  // the reader reported an error
  bool mid_request = false;                  // bytes of an unfinished request remain
  int continue_requests = 0;                 // times take_continue_request() said yes

  friend bool operator==(const ReaderOutcome&, const ReaderOutcome&) = default;
};

std::ostream& operator<<(std::ostream& out, const ParsedRequest& r);
std::ostream& operator<<(std::ostream& out, const ReaderOutcome& o);

// Feeds `pieces` one after the other, as separate receives.
ReaderOutcome feed_pieces(const std::vector<std::string_view>& pieces, http::ReaderLimits limits = {});
// Feeds `bytes` in receives of at most `piece` bytes.
ReaderOutcome feed(std::string_view bytes, std::size_t piece = std::string_view::npos, http::ReaderLimits limits = {});

}  // namespace storeapi::testing
