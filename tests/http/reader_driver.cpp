#include "reader_driver.hpp"

#include <algorithm>
#include <cstring>

namespace storeapi::testing {
namespace {

ParsedRequest copy(const http::Request& req) {
  ParsedRequest p;
  p.method = req.method;
  p.method_text = std::string(req.method_text);
  p.target = std::string(req.target);
  p.path = std::string(req.path);
  p.query = std::string(req.query);
  p.body = std::string(req.body);
  for (const http::Header& h : *req.headers) p.headers.emplace_back(std::string(h.name), std::string(h.value));
  p.http_minor = req.http_minor;
  p.keep_alive = req.keep_alive;
  // Reading the padding must be valid memory; its content does not matter. (Under
  // AddressSanitizer a short reservation fails here.)
  volatile char sink = 0;
  for (std::size_t i = 0; i < http::Request::kBodyPadding; ++i) sink = sink + req.body.data()[req.body.size() + i];
  p.body_padded = true;
  return p;
}

// Calls next() until it needs more bytes; false once the reader failed.
bool drain(http::RequestReader& reader, ReaderOutcome& out) {
  http::Request req;
  for (;;) {
    switch (reader.next(req)) {
      case http::RequestReader::Result::request: out.requests.push_back(copy(req)); break;
      case http::RequestReader::Result::need_more:
        if (reader.take_continue_request()) ++out.continue_requests;
        return true;
      case http::RequestReader::Result::error: out.rejection = reader.rejection(); return false;
    }
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const ParsedRequest& r) {
  out << "{" << r.method_text << " " << r.target << " HTTP/1." << r.http_minor << (r.keep_alive ? " keep-alive" : " close")
      << " headers[";
  for (const auto& [n, v] : r.headers) out << n << "=" << v << "; ";
  return out << "] body(" << r.body.size() << ")=" << r.body.substr(0, 80) << "}";
}

std::ostream& operator<<(std::ostream& out, const ReaderOutcome& o) {
  out << "requests:";
  for (const ParsedRequest& r : o.requests) out << "\n  " << r;
  if (o.rejection) out << "\nrejection: " << static_cast<int>(*o.rejection);
  return out << "\nmid_request: " << o.mid_request << " continues: " << o.continue_requests;
}

ReaderOutcome feed_pieces(const std::vector<std::string_view>& pieces, http::ReaderLimits limits) {
  http::RequestReader reader(limits);
  ReaderOutcome out;
  for (std::string_view piece : pieces) {
    while (!piece.empty()) {
      if (!drain(reader, out)) return out;
      std::span<char> space = reader.recv_space();
      if (space.empty()) {
        out.rejection = reader.rejection();
        return out;
      }
      std::size_t n = std::min(space.size(), piece.size());
      std::memcpy(space.data(), piece.data(), n);
      reader.commit(n);
      piece.remove_prefix(n);
    }
  }
  if (drain(reader, out)) out.mid_request = reader.mid_request();
  return out;
}

ReaderOutcome feed(std::string_view bytes, std::size_t piece, http::ReaderLimits limits) {
  std::vector<std::string_view> pieces;
  for (std::size_t at = 0; at < bytes.size(); at += piece) pieces.push_back(bytes.substr(at, piece));
  return feed_pieces(pieces, limits);
}

}  // namespace storeapi::testing
