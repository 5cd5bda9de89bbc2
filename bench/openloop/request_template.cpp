#include "request_template.hpp"

#include <charconv>
#include <stdexcept>

namespace storeapi::bench {

namespace {
constexpr std::string_view kPlaceholder = "{n}";
}

RequestTemplate::RequestTemplate(std::string method, std::vector<std::string> targets, std::string host,
                                 std::vector<std::string> headers, std::string body)
    : method_(std::move(method)), body_(split(body)) {
  if (targets.empty()) throw std::invalid_argument("a request needs at least one target");
  for (const auto& t : targets) targets_.push_back(split(t));
  std::string lines = " HTTP/1.1\r\nHost: " + host + "\r\n";
  for (const auto& h : headers) lines += h + "\r\n";
  headers_ = split(lines);
}

RequestTemplate::Pieces RequestTemplate::split(std::string_view text) {
  Pieces pieces;
  for (;;) {
    const auto at = text.find(kPlaceholder);
    pieces.emplace_back(text.substr(0, at));
    if (at == std::string_view::npos) return pieces;
    text.remove_prefix(at + kPlaceholder.size());
  }
}

void RequestTemplate::append(const Pieces& pieces, std::uint64_t n, std::string& out) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) out.append(digits, end);
    out += pieces[i];
  }
}

void RequestTemplate::render(std::uint64_t n, std::string& out) const {
  out.clear();
  out += method_;
  out += ' ';
  append(targets_[n % targets_.size()], n, out);
  append(headers_, n, out);
  if (body_.size() == 1 && body_[0].empty()) {
    out += "\r\n";
    return;
  }
  std::string body;
  append(body_, n, body);
  out += "Content-Length: ";
  out += std::to_string(body.size());
  out += "\r\n\r\n";
  out += body;
}

}  // namespace storeapi::bench
