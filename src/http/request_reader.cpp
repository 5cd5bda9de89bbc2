#include "http/request_reader.hpp"

#include <algorithm>
#include <cstring>

namespace storeapi::http {
namespace {

RequestReader* self(llhttp_t* p) { return static_cast<RequestReader*>(p->data); }

Method to_method(std::uint8_t m) {
  switch (static_cast<llhttp_method_t>(m)) {
    case HTTP_GET: return Method::get;
    case HTTP_HEAD: return Method::head;
    case HTTP_POST: return Method::post;
    case HTTP_PATCH: return Method::patch;
    case HTTP_OPTIONS: return Method::options;
    default: return Method::other;
  }
}

std::string_view trim_trailing_ows(std::string_view v) {
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// Chunk framing can add a few bytes per chunk on top of the body; this much slack keeps
// honest chunked uploads of a maximal body within the buffer.
constexpr std::size_t kFramingSlack = 16 * 1024;

// Pooled buffers that grew past these sizes are freed rather than pooled.
constexpr std::size_t kKeptBufferBytes = 16 * 1024;
constexpr std::size_t kKeptHeaders = 64;

}  // namespace

const llhttp_settings_t RequestReader::settings_ = [] {
  llhttp_settings_t s;
  llhttp_settings_init(&s);
  s.on_message_begin = &RequestReader::on_message_begin;
  s.on_url = &RequestReader::on_url;
  s.on_header_field = &RequestReader::on_header_field;
  s.on_header_value = &RequestReader::on_header_value;
  s.on_headers_complete = &RequestReader::on_headers_complete;
  s.on_body = &RequestReader::on_body;
  s.on_message_complete = &RequestReader::on_message_complete;
  return s;
}();

RequestReader::RequestReader(ReaderLimits limits)
    : limits_(limits),
      max_buffer_(limits.max_header_bytes + limits.max_body_bytes + kFramingSlack) {
  llhttp_init(&parser_, HTTP_REQUEST, &settings_);
  parser_.data = this;
}

bool RequestReader::Buffers::recycle() noexcept {
  header_spans.clear();
  headers.clear();
  body.clear();
  // Grown for an unusually large request: not worth keeping warm for the next borrower.
  return capacity <= kKeptBufferBytes && body.capacity() <= kKeptBufferBytes && header_spans.capacity() <= kKeptHeaders;
}

std::size_t RequestReader::Buffers::retained_bytes() const noexcept {
  return capacity + body.capacity() + header_spans.capacity() * sizeof(HeaderSpan) + headers.capacity() * sizeof(Header);
}

void RequestReader::release_buffers() noexcept {
  if (mid_request()) return;
  buffers_.end();
  start_ = parsed_ = end_ = 0;
}

void RequestReader::extend(Span& s, const char* at, std::size_t len) noexcept {
  // Pieces of one token arrive in order over a contiguous buffer: the first fixes the
  // offset, later ones only lengthen it.
  if (s.len == 0) s.off = static_cast<std::size_t>(at - buffers_->bytes.get());
  s.len += len;
}

int RequestReader::on_message_begin(llhttp_t* p) {
  RequestReader* r = self(p);
  r->phase_ = Phase::header_field;
  r->url_ = {};
  r->buffers_->header_spans.clear();
  r->buffers_->body.clear();
  return 0;
}

int RequestReader::on_url(llhttp_t* p, const char* at, std::size_t len) {
  self(p)->extend(self(p)->url_, at, len);
  return 0;
}

int RequestReader::on_header_field(llhttp_t* p, const char* at, std::size_t len) {
  RequestReader* r = self(p);
  // Trailer fields are parsed but dropped: merging them into the headers would let a
  // client add headers after the fact (RFC 9110 §6.5.1).
  if (r->headers_done()) return 0;
  if (r->buffers_->header_spans.empty() || r->phase_ == Phase::header_value) {
    r->buffers_->header_spans.push_back({});
    r->phase_ = Phase::header_field;
  }
  r->extend(r->buffers_->header_spans.back().name, at, len);
  return 0;
}

int RequestReader::on_header_value(llhttp_t* p, const char* at, std::size_t len) {
  RequestReader* r = self(p);
  if (r->headers_done()) return 0;  // a trailer
  r->phase_ = Phase::header_value;
  r->extend(r->buffers_->header_spans.back().value, at, len);
  return 0;
}

int RequestReader::on_headers_complete(llhttp_t* p) {
  RequestReader* r = self(p);
  r->phase_ = Phase::body;
  if ((p->flags & F_CONTENT_LENGTH) && p->content_length > r->limits_.max_body_bytes) {
    r->fail(Rejection::payload_too_large);
    return -1;
  }
  if (!r->headers_acceptable(p)) {
    r->fail(Rejection::bad_request);
    return -1;
  }
  r->buffers_->body.reserve(std::min<std::size_t>(p->content_length, r->limits_.max_body_bytes) + Request::kBodyPadding);
  return 0;
}

bool RequestReader::headers_acceptable(const llhttp_t* p) noexcept {
  // llhttp also takes HTTP/0.9 and HTTP/2.0 request lines; only HTTP/1.x is spoken here.
  if (p->http_major != 1) return false;
  int hosts = 0, transfer_encodings = 0;
  for (const HeaderSpan& h : buffers_->header_spans) {
    std::string_view name = view(h.name);
    std::string_view value = view(h.value);
    if (name.empty()) return false;  // RFC 9110 §5.1: a field name is a token
    // RFC 9112 §5.2: obs-fold must be refused; llhttp passes it on, CR LF and all.
    if (value.find_first_of("\r\n") != std::string_view::npos) return false;
    if (iequals(name, "host")) ++hosts;
    // Only chunked is understood: with any other coding, or chunked twice, where the body
    // ends would be a guess (RFC 9112 §6.1, §6.3).
    if (iequals(name, "transfer-encoding") &&
        (++transfer_encodings > 1 || !iequals(trim_trailing_ows(value), "chunked")))
      return false;
    if (iequals(name, "expect") && p->http_minor >= 1) {  // HTTP/1.0 must ignore it (RFC 9110 §10.1.1)
      if (!iequals(trim_trailing_ows(value), "100-continue")) return false;  // no other expectation exists
      phase_ = Phase::awaiting_continue;
    }
  }
  // RFC 9112 §3.2: an HTTP/1.1 request carries exactly one Host.
  return hosts == 1 || (hosts == 0 && p->http_minor == 0);
}

int RequestReader::on_body(llhttp_t* p, const char* at, std::size_t len) {
  RequestReader* r = self(p);
  if (r->buffers_->body.size() + len > r->limits_.max_body_bytes) {
    r->fail(Rejection::payload_too_large);
    return -1;
  }
  r->buffers_->body.append(at, len);
  return 0;
}

int RequestReader::on_message_complete(llhttp_t* p) {
  RequestReader* r = self(p);
  r->phase_ = Phase::complete;  // a body that came with its headers needs no 100 Continue
  // Protocol upgrades are not offered: such a request is answered, then the connection closes.
  r->keep_alive_ = llhttp_should_keep_alive(p) != 0 && !p->upgrade;
  return HPE_PAUSED;  // hand this request out before parsing the next one
}

bool RequestReader::take_continue_request() noexcept {
  if (phase_ != Phase::awaiting_continue) return false;
  phase_ = Phase::body;
  return true;
}

RequestReader::Result RequestReader::next(Request& out) {
  if (failed_) return Result::error;  // append() could not take every byte
  if (phase_ == Phase::complete) {
    // The previous request has been answered: its bytes can go.
    phase_ = Phase::handed_out;
    start_ = parsed_;
    llhttp_resume(&parser_);
  }
  for (;;) {
    std::size_t window_end = end_;
    if (!headers_done() || !in_message()) {
      // Never hand llhttp more header bytes than the limit allows.
      window_end = std::min(end_, start_ + limits_.max_header_bytes);
    }
    if (parsed_ == window_end) {
      if (!headers_done() && window_end - start_ >= limits_.max_header_bytes) {
        fail(Rejection::headers_too_large);
        return Result::error;
      }
      if (!mid_request()) start_ = parsed_;
      return Result::need_more;
    }
    const char* from = buffers_->bytes.get() + parsed_;
    llhttp_errno_t err = llhttp_execute(&parser_, from, window_end - parsed_);
    if (err == HPE_OK) {
      parsed_ = window_end;
      continue;
    }
    if (err == HPE_PAUSED) {
      parsed_ = static_cast<std::size_t>(llhttp_get_error_pos(&parser_) - buffers_->bytes.get());
      build(out);
      return Result::request;
    }
    if (!failed_) fail(Rejection::bad_request);  // llhttp refused the bytes themselves
    return Result::error;
  }
}

void RequestReader::build(Request& out) {
  out.method = to_method(llhttp_get_method(&parser_));
  out.method_text = llhttp_method_name(static_cast<llhttp_method_t>(llhttp_get_method(&parser_)));
  out.target = view(url_);
  std::size_t q = out.target.find('?');
  out.path = out.target.substr(0, q);
  out.query = q == std::string_view::npos ? std::string_view{} : out.target.substr(q + 1);
  std::string& body = buffers_->body;
  body.reserve(body.size() + Request::kBodyPadding);
  out.body = body;
  // Views are taken only now: the buffer may have moved while the body arrived.
  std::vector<Header>& headers = buffers_->headers;
  headers.clear();
  for (const HeaderSpan& h : buffers_->header_spans) headers.push_back({view(h.name), trim_trailing_ows(view(h.value))});
  out.headers = &headers;
  out.http_minor = llhttp_get_http_minor(&parser_);
  out.keep_alive = keep_alive_;
}

std::span<char> RequestReader::recv_space() {
  // Nothing kept from earlier requests: receive at the front again, so that the next
  // request is not cut in two by the end of the buffer and needs no compaction.
  if (!mid_request()) start_ = parsed_ = end_ = 0;
  if (!buffers_) buffers_ = BufferPool::borrow();
  Buffers& b = *buffers_;
  if (b.capacity < limits_.initial_buffer) {  // fresh from the pool (or kept by a smaller reader)
    b.bytes.reset(new char[limits_.initial_buffer]);
    b.capacity = limits_.initial_buffer;
  }
  if (end_ == b.capacity && start_ > 0) {
    // Move the unfinished request to the front; every recorded offset moves with it.
    std::size_t shift = start_;
    std::memmove(b.bytes.get(), b.bytes.get() + shift, end_ - shift);
    end_ -= shift;
    parsed_ -= shift;
    start_ = 0;
    url_.off -= std::min(url_.off, shift);
    for (HeaderSpan& h : b.header_spans) {
      h.name.off -= std::min(h.name.off, shift);
      h.value.off -= std::min(h.value.off, shift);
    }
  }
  if (end_ == b.capacity && b.capacity < max_buffer_) {
    std::size_t cap = std::min(b.capacity * 2, max_buffer_);
    std::unique_ptr<char[]> bigger(new char[cap]);
    std::memcpy(bigger.get(), b.bytes.get(), end_);
    b.bytes = std::move(bigger);
    b.capacity = cap;
  }
  if (end_ == b.capacity) fail(headers_done() ? Rejection::payload_too_large : Rejection::headers_too_large);
  return {b.bytes.get() + end_, b.capacity - end_};
}

bool RequestReader::append(std::span<const char> bytes) {
  while (!bytes.empty()) {
    std::span<char> space = recv_space();
    if (space.empty()) return false;
    std::size_t n = std::min(space.size(), bytes.size());
    std::memcpy(space.data(), bytes.data(), n);
    commit(n);
    bytes = bytes.subspan(n);
  }
  return true;
}

}  // namespace storeapi::http
