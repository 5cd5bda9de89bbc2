#include "common/url_parts.hpp"

#include <curl/curl.h>

#include <memory>

namespace storeapi::url {
namespace {

using Parsed = std::unique_ptr<CURLU, void (*)(CURLU*)>;

Parsed parse(const std::string& url) {
  Parsed parsed(curl_url(), &curl_url_cleanup);
  if (parsed && curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) parsed.reset();
  return parsed;
}

std::optional<std::string> part(const Parsed& parsed, CURLUPart which) {
  char* text = nullptr;
  if (curl_url_get(parsed.get(), which, &text, 0) != CURLUE_OK) return std::nullopt;
  std::string out(text);
  curl_free(text);
  return out;
}

}  // namespace

std::optional<std::string> host(const std::string& url) {
  Parsed parsed = parse(url);
  if (!parsed) return std::nullopt;
  auto out = part(parsed, CURLUPART_HOST);
  if (out && out->size() > 2 && out->front() == '[' && out->back() == ']') *out = out->substr(1, out->size() - 2);
  return out;
}

std::string without_secrets(const std::string& url) {
  Parsed parsed = parse(url);
  if (!parsed) return "(unparsable URL)";
  for (CURLUPart secret : {CURLUPART_USER, CURLUPART_PASSWORD, CURLUPART_OPTIONS, CURLUPART_QUERY, CURLUPART_FRAGMENT})
    curl_url_set(parsed.get(), secret, nullptr, 0);
  return part(parsed, CURLUPART_URL).value_or("(unparsable URL)");
}

}  // namespace storeapi::url
