// The small parsers of request input: RFC 3339 date-times, uuids, API keys and the
// Authorization header, the Content-Type check. Beyond not crashing, each result is
// re-encoded and read back: a date-time through the API's output format and through
// PostgreSQL's input format, a uuid through its canonical text; what is accepted has the
// documented shape.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "api/writes/write_request.hpp"
#include "auth/api_key.hpp"
#include "common/time.hpp"
#include "common/uuid.hpp"

using namespace storeapi;

namespace {

void require(bool ok, const char* what, std::string_view text) {
  if (ok) return;
  std::fprintf(stderr, "invariant broken: %s\ninput: %.*s\n", what, static_cast<int>(text.size()), text.data());
  std::abort();
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

timefmt::Micros floor_to_ms(timefmt::Micros t) { return (t >= 0 ? t / 1000 : (t - 999) / 1000) * 1000; }

void date_time(std::string_view text) {
  const auto t = timefmt::parse_rfc3339(text);
  if (!t) return;
  // Offsets can carry a year-0000 or year-9999 instant one day across; the output formats
  // write four-digit years from 0001.
  static const timefmt::Micros first = *timefmt::parse_rfc3339("0001-01-01T00:00:00Z");
  static const timefmt::Micros last = *timefmt::parse_rfc3339("9999-12-31T23:59:59.999999Z");
  if (*t < first || *t > last) return;
  require(timefmt::parse_rfc3339(timefmt::format_ms_utc(*t)) == floor_to_ms(*t), "the API's format reads back", text);
  char pg[timefmt::kPgTimestampMax];
  const std::size_t n = timefmt::format_pg_utc(*t, pg);
  require(timefmt::parse_pg_timestamptz(std::string_view(pg, n)) == t, "PostgreSQL's format reads back", text);
}

void uuid(std::string_view text) {
  const auto u = Uuid::parse(text);
  require(u.has_value() == is_uuid(text), "is_uuid agrees with parse", text);
  if (u) require(u->str() == lower(text), "the canonical text is the input in lower case", text);
}

void api_key(std::string_view text) {
  if (auth::is_well_formed_key(text)) {
    require(text.size() == auth::kKeyLength && text.starts_with(auth::kLiveKeyPrefix), "a key's shape", text);
    require(std::all_of(text.begin() + auth::kLiveKeyPrefix.size(), text.end(),
                        [](unsigned char c) { return std::isalnum(c); }),
            "a key's secret is alphanumeric", text);
  }
  std::string_view token;
  if (auth::bearer_token(text, true, token) == auth::BearerStatus::present)
    require(token.empty() || (token.data() >= text.data() && token.data() + token.size() <= text.data() + text.size()),
            "the token is part of the header", text);
  require(auth::bearer_token(text, false, token) == auth::BearerStatus::missing, "no header, no token", text);
}

void content_type(std::string_view text) {
  if (api::is_json_media_type(text))
    require(lower(text).find("application/json") != std::string::npos, "JSON media types name it", text);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const std::string text = input.ConsumeRemainingBytesAsString();
  date_time(text);
  uuid(text);
  api_key(text);
  content_type(text);
  return 0;
}
