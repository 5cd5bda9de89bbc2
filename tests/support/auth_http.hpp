#pragma once
// A minimal blocking HTTP/1.1 client for integration tests against the real server: one
// keep-alive connection to 127.0.0.1:port, one request at a time, responses framed by
// Content-Length (the server always sends it). Whatever goes wrong on the wire throws.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace storeapi::testing {

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names in lower case
  std::string body;

  // The first header of that name (case-insensitive), or nullopt.
  std::optional<std::string> header(std::string_view name) const;
  bool has_header(std::string_view name) const { return header(name).has_value(); }
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// `Authorization: Bearer <key>`.
HttpHeaders bearer(std::string_view key);

class RawHttpConnection {
 public:
  explicit RawHttpConnection(std::uint16_t port);
  ~RawHttpConnection();
  RawHttpConnection(const RawHttpConnection&) = delete;
  RawHttpConnection& operator=(const RawHttpConnection&) = delete;
  RawHttpConnection(RawHttpConnection&& other) noexcept;

  // Sends one request and reads its response. A POST or PATCH with a body gets
  // Content-Type: application/json. Reconnects first when the server closed the previous one.
  HttpReply request(std::string_view method, std::string_view target, const HttpHeaders& headers = {},
                    std::string_view body = {});
  HttpReply get(std::string_view target, const HttpHeaders& headers = {}) { return request("GET", target, headers); }

 private:
  void open();
  void send_all(std::string_view bytes);
  HttpReply read_reply(bool head);

  std::uint16_t port_;
  int fd_ = -1;
  std::string buffer_;  // bytes received but not yet consumed
};

}  // namespace storeapi::testing
