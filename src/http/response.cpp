#include "http/response.hpp"

#include <charconv>
#include <cstdio>
#include <ctime>

#include "common/crypto.hpp"

namespace storeapi::http {

void Response::add_header(std::string_view name, std::string_view value) {
  extra_headers.append(name);
  extra_headers.append(": ");
  extra_headers.append(value);
  extra_headers.append("\r\n");
}

void Response::add_header(std::string_view name, std::int64_t value) {
  char digits[24];
  auto r = std::to_chars(digits, digits + sizeof digits, value);
  add_header(name, std::string_view(digits, static_cast<std::size_t>(r.ptr - digits)));
}

std::string_view reason_phrase(int status) noexcept {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Content";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string_view http_date() noexcept {
  thread_local std::time_t cached_second = -1;
  thread_local char text[32];
  thread_local std::size_t len = 0;
  std::timespec now;
  std::timespec_get(&now, TIME_UTC);
  if (now.tv_sec != cached_second) {
    std::tm tm;
    gmtime_r(&now.tv_sec, &tm);
    len = std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    cached_second = now.tv_sec;
  }
  return {text, len};
}

std::string_view next_request_id() noexcept {
  thread_local std::uint32_t prefix = [] {
    std::uint32_t p;
    crypto::random_bytes({reinterpret_cast<std::uint8_t*>(&p), sizeof p});
    return p;
  }();
  thread_local std::uint64_t counter = 0;
  thread_local char id[4 + 20];
  static constexpr char digits[] = "0123456789abcdef";
  std::uint64_t n = ++counter;
  id[0] = 'r', id[1] = 'e', id[2] = 'q', id[3] = '_';
  for (int i = 0; i < 8; ++i) id[4 + i] = digits[(prefix >> (28 - 4 * i)) & 0xf];
  for (int i = 0; i < 12; ++i) id[12 + i] = digits[(n >> (44 - 4 * i)) & 0xf];
  return {id, sizeof id};
}

std::size_t serialize(const Response& res, const ResponseFraming& framing, std::string& out) {
  char num[24];
  out.append("HTTP/1.1 ");
  auto r = std::to_chars(num, num + sizeof num, res.status);
  out.append(num, static_cast<std::size_t>(r.ptr - num));
  out.push_back(' ');
  out.append(reason_phrase(res.status));
  out.append("\r\nContent-Type: application/json\r\n");
  // RFC 9110 §8.6: no Content-Length on a 204.
  if (res.status != 204) {
    out.append("Content-Length: ");
    r = std::to_chars(num, num + sizeof num, res.body.size());
    out.append(num, static_cast<std::size_t>(r.ptr - num));
    out.append("\r\n");
  }
  out.append("Date: ");
  out.append(http_date());
  out.append("\r\nRequest-Id: ");
  out.append(framing.request_id);
  out.append("\r\n");
  out.append(res.extra_headers);
  if (!framing.keep_alive || res.close) {
    out.append("Connection: close\r\n");
  } else if (framing.http10) {
    out.append("Connection: keep-alive\r\n");
  }
  out.append("\r\n");
  if (framing.head || res.status == 204) return 0;
  out.append(res.body);
  return res.body.size();
}

}  // namespace storeapi::http
