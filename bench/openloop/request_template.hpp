#pragma once
// The requests a load run sends: one method, one or more targets taken in turn, extra
// header lines and a body. "{n}" anywhere in a target, header or body becomes a number
// unique within the run (a fresh Idempotency-Key per request, for example). Rendering is
// a concatenation of pre-split pieces: no parsing on the hot path.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace storeapi::bench {

class RequestTemplate {
 public:
  // `headers`: complete "Name: value" lines without CRLF. Host and Content-Length (when
  // there is a body) are added here.
  RequestTemplate(std::string method, std::vector<std::string> targets, std::string host,
                  std::vector<std::string> headers, std::string body);

  // Appends request number `n` to `out` (cleared first); target `n % targets` is used.
  void render(std::uint64_t n, std::string& out) const;

 private:
  // Literal text, with the number to be inserted between consecutive pieces.
  using Pieces = std::vector<std::string>;
  static Pieces split(std::string_view text);
  static void append(const Pieces& pieces, std::uint64_t n, std::string& out);

  std::string method_;
  std::vector<Pieces> targets_;
  Pieces headers_;  // everything between the request line and the Content-Length
  Pieces body_;
};

}  // namespace storeapi::bench
