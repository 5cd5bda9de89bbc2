#pragma once
// Query strings: `name=value` pairs split on `&`, percent-decoded (docs/DECISIONS.md,
// "Query strings").
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace storeapi::http {

struct Target {
  std::string_view path;
  std::string_view query;  // after the first '?', without it; empty when there is none
};

Target split_target(std::string_view target);

struct QueryParam {
  std::string_view name;
  std::string_view value;  // empty for `name=` and for a bare `name`
};

// How a query string parsed (docs/ARCHITECTURE.md §8): ok, or invalid — always a 400
// parameter_invalid — naming the parameter at fault and why.
enum class QueryStatus : std::uint8_t { ok, invalid };

struct [[nodiscard]] QueryResult {
  QueryStatus status = QueryStatus::ok;
  std::optional<std::string_view> param;  // when invalid; nullopt only for "too many parameters"
  std::string_view message;               // when invalid: static text

  static QueryResult invalid(std::optional<std::string_view> param, std::string_view message) noexcept {
    return {QueryStatus::invalid, param, message};
  }
  bool ok() const noexcept { return status == QueryStatus::ok; }
  friend bool operator==(const QueryResult&, const QueryResult&) = default;
};

// One per core or connection, reused: decoded names and values live in its scratch buffer,
// which grows to the longest query seen and then stays, so parsing allocates nothing once
// warm (and nothing at all for queries without escapes, whose views point into the input).
class Query {
 public:
  // No endpoint takes a tenth of this; more parameters is an error.
  static constexpr std::size_t max_params = 32;

  // Parses `raw` (the part after '?'). On success the views stay valid until the next
  // parse and as long as `raw`'s storage does. The first problem from the left is reported.
  QueryResult parse(std::string_view raw);

  std::span<const QueryParam> params() const { return {params_.data(), count_}; }
  // The parameter's value (possibly empty), or nullopt when it was not given.
  std::optional<std::string_view> find(std::string_view name) const;

 private:
  // `raw_is_clean`: the whole raw query is valid UTF-8 without NUL.
  QueryResult add(std::string_view raw_name, std::string_view raw_value, bool raw_is_clean);
  // Percent-decodes into the scratch buffer when there is anything to decode.
  std::optional<std::string_view> decode(std::string_view text);

  std::array<QueryParam, max_params> params_{};
  std::size_t count_ = 0;
  std::string scratch_;
};

}  // namespace storeapi::http
