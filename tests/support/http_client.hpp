#pragma once
// A blocking HTTP/1.1 client over one TCP connection to 127.0.0.1, for integration tests.
// It sends exactly the bytes it is given (raw, or a request it formats), reads one
// response at a time (pipelined responses stay buffered for the next read), and can tell
// whether the server has closed the connection. Responses are framed by Content-Length,
// or by the connection's end; chunked responses are not supported (storeapi sends none).
#include <chrono>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storeapi::testing {

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpResponse {
  int status = 0;
  int http_minor = 1;
  std::string reason;
  Headers headers;         // in the order received
  std::string body;
  std::vector<int> interim;  // statuses of the 1xx responses that came before this one

  // First header of that name (ASCII case-insensitive).
  std::optional<std::string> header(std::string_view name) const;
  std::size_t header_count(std::string_view name) const;
  bool has_header(std::string_view name) const { return header_count(name) > 0; }
  // The server announced it closes the connection after this response.
  bool connection_close() const;
};

struct ReadOptions {
  bool head = false;            // the request was a HEAD: no body follows the headers
  bool return_interim = false;  // return a 1xx response instead of skipping it
};

// "METHOD target HTTP/1.1", Host (unless given), the headers, and Content-Length when
// there is a body and neither Content-Length nor Transfer-Encoding is among `headers`.
std::string format_request(std::string_view method, std::string_view target, const Headers& headers = {},
                           std::string_view body = {});

// Authorization: Bearer <key>, how a Store API key is sent.
Headers bearer(std::string_view key);

class HttpClient {
 public:
  static constexpr std::chrono::milliseconds kDefaultTimeout{10'000};

  // Connects to 127.0.0.1:port. `timeout` bounds every wait for the server; running into
  // it throws (a test failure), since a healthy server always answers well within it.
  explicit HttpClient(std::uint16_t port, std::chrono::milliseconds timeout = kDefaultTimeout);
  ~HttpClient();
  HttpClient(HttpClient&& other) noexcept;
  HttpClient& operator=(HttpClient&& other) noexcept;
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // False if the server closed or reset the connection (what it sent stays readable).
  bool send_raw(std::string_view bytes);
  bool send(std::string_view method, std::string_view target, const Headers& headers = {},
            std::string_view body = {});

  // The next response, or nullopt if the connection ended before a complete one.
  // Throws std::runtime_error on timeout or on bytes that are not an HTTP response.
  // Each final response is recorded for the OpenAPI check when recording is on
  // (support/exchange_recorder.hpp), with the request it answers: the oldest request line
  // sent and not yet answered, whether by send() or in raw bytes (a request line at their
  // start, and after each request's head and Content-Length body); "(unparsed)" when none
  // was recognised, which the check holds to the answers any path may get.
  std::optional<HttpResponse> read_response(ReadOptions options = {});

  // send() then read_response(); throws if no response arrives.
  HttpResponse request(std::string_view method, std::string_view target, const Headers& headers = {},
                       std::string_view body = {});
  HttpResponse get(std::string_view target, const Headers& headers = {}) { return request("GET", target, headers); }
  // request() with `body` sent as JSON: Content-Type: application/json is added when
  // there is a body and `headers` name no Content-Type.
  HttpResponse request_json(std::string_view method, std::string_view target, Headers headers,
                            std::string_view body);

  // True if the next thing on the connection is its end (EOF or reset) within `timeout`;
  // false if bytes arrive first (they stay buffered) or the time runs out.
  bool wait_closed(std::chrono::milliseconds timeout = kDefaultTimeout);

  // True if a response (or the connection's end) is there to read without waiting past
  // `wait`.
  bool readable(std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  // This connection's answers are not recorded: it talks to something other than the
  // API (the metrics listener, Prometheus).
  void not_the_api() noexcept { recorded_ = false; }

  void shutdown_write();
  // Closes with a reset instead of a FIN (SO_LINGER 0), as a crashing client would.
  void reset();
  int fd() const noexcept { return fd_; }

 private:
  enum class Fill { data, closed, timeout };
  // Notes the method and target of each request that `bytes` start (unanswered_).
  void note_requests(std::string_view bytes);
  // Appends what the socket has to buf_, waiting up to `timeout`.
  Fill fill(std::chrono::steady_clock::time_point deadline);
  std::optional<HttpResponse> read_one(ReadOptions options, std::chrono::steady_clock::time_point deadline);

  int fd_ = -1;
  std::chrono::milliseconds timeout_;
  std::string buf_;
  bool eof_ = false;
  bool recorded_ = true;
  std::deque<std::pair<std::string, std::string>> unanswered_;  // method and target of each request sent
};

}  // namespace storeapi::testing
