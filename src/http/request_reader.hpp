#pragma once
// Reads HTTP/1.1 requests from a connection's byte stream with llhttp (strict: no lenient
// flag is ever enabled, see docs/PITFALLS.md) and enforces the limits llhttp leaves to its user:
// request line + headers <= 16 KiB (else 431), body <= 64 KiB (else 413). Pipelined
// requests are returned one at a time, in order.
//
// The buffers (bytes received, header offsets, body) are borrowed from the core's pool
// when bytes arrive and can be given back whenever no request is half-read
// (release_buffers()): an idle keep-alive connection holds none.
#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "http/request.hpp"
#include "runtime/object_pool.hpp"

namespace storeapi::http {

// Why the HTTP layer refused a request before any handler saw it.
enum class Rejection : std::uint8_t {
  bad_request,          // 400: malformed HTTP, smuggling attempts
  headers_too_large,    // 431
  payload_too_large,    // 413
  request_timeout,      // 408: the request did not arrive in time
  too_many_connections, // 503
  internal_error,       // 500: a handler failed unexpectedly
};

struct ReaderLimits {
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 64 * 1024;
  std::size_t initial_buffer = 4 * 1024;
};

class RequestReader {
 public:
  explicit RequestReader(ReaderLimits limits = {});
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  enum class Result { need_more, request, error };

  // Parses buffered bytes. On `request`, `out` describes the next request; its views stay
  // valid until the next call to next() or recv_space(). On `error`, rejection() says why;
  // the connection must answer and close (the stream cannot be resynchronised).
  Result next(Request& out);
  Rejection rejection() const noexcept { return rejection_; }

  // Where to receive more bytes; compacts or grows the buffer as needed. Empty when the
  // current request cannot fit (next() then reports the error).
  std::span<char> recv_space();
  void commit(std::size_t n) noexcept { end_ += n; }
  // Copies received bytes in (recv_space() + commit()). False when they do not all fit;
  // next() then reports the error.
  bool append(std::span<const char> bytes);

  // Gives the buffers back to the core's pool unless a request is half-read; they are
  // borrowed again by recv_space().
  void release_buffers() noexcept;

  // Bytes of an unfinished request are buffered.
  bool mid_request() const noexcept { return end_ > start_ || in_message(); }
  // True once per request that sent `Expect: 100-continue` and whose body is still to come.
  bool take_continue_request() noexcept;

 private:
  struct Span {
    std::size_t off = 0, len = 0;
  };
  struct HeaderSpan {
    Span name, value;
  };

 public:
  // What a reader holds only while a request is on its way (pooled: object_pool.hpp).
  struct Buffers {
    std::unique_ptr<char[]> bytes;
    std::size_t capacity = 0;
    std::vector<HeaderSpan> header_spans;
    std::vector<Header> headers;
    std::string body;
    bool recycle() noexcept;
    std::size_t retained_bytes() const noexcept;
  };
  using BufferPool = runtime::Pool<Buffers>;

 private:

  static int on_message_begin(llhttp_t*);
  static int on_url(llhttp_t*, const char*, std::size_t);
  static int on_header_field(llhttp_t*, const char*, std::size_t);
  static int on_header_value(llhttp_t*, const char*, std::size_t);
  static int on_headers_complete(llhttp_t*);
  static int on_body(llhttp_t*, const char*, std::size_t);
  static int on_message_complete(llhttp_t*);
  static const llhttp_settings_t settings_;

  void extend(Span& s, const char* at, std::size_t len) noexcept;
  std::string_view view(Span s) const noexcept { return {buffers_->bytes.get() + s.off, s.len}; }
  // Checks llhttp leaves to its user; may note an expectation (100-continue).
  bool headers_acceptable(const llhttp_t* p) noexcept;
  void build(Request& out);
  void fail(Rejection r) noexcept {
    rejection_ = r;
    failed_ = true;
  }

  ReaderLimits limits_;
  std::size_t max_buffer_;
  BufferPool::Lease buffers_;
  std::size_t start_ = 0;   // first byte of the current request
  std::size_t parsed_ = 0;  // bytes handed to llhttp
  std::size_t end_ = 0;     // bytes received

  // Where llhttp is in the current message. Legal transitions (the llhttp callbacks,
  // take_continue_request() and next(); docs/ARCHITECTURE.md, "State machines"):
  //   before_first | handed_out → header_field      a message begins
  //   header_field ⇄ header_value                     a header's name, then its value
  //   header_field | header_value → body             headers complete
  //   header_field | header_value → awaiting_continue   ... with Expect: 100-continue
  //   awaiting_continue → body                       100 Continue sent (take_continue_request)
  //   awaiting_continue | body → complete            the message ended (llhttp pauses)
  //   complete → handed_out                          next() moved past the request handed out
  // handed_out differs from before_first in that the last headers were complete: a buffer
  // full there is a body too large (recv_space), as it was for the message just read.
  enum class Phase : std::uint8_t {
    before_first,
    header_field,
    header_value,
    awaiting_continue,
    body,
    complete,
    handed_out,
  };
  bool in_message() const noexcept { return phase_ >= Phase::header_field && phase_ <= Phase::body; }
  bool headers_done() const noexcept { return phase_ >= Phase::awaiting_continue; }

  llhttp_t parser_{};
  Phase phase_ = Phase::before_first;
  bool keep_alive_ = true;
  bool failed_ = false;
  Rejection rejection_ = Rejection::bad_request;

  Span url_;
};

}  // namespace storeapi::http
