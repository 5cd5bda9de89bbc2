#pragma once
// The body of GET /v1/store for one key: the store and the calling key's summary (never
// the key itself). Rendered once per key on a cache miss.
#include <optional>
#include <string>
#include <string_view>

#include "common/time.hpp"
#include "auth/scopes.hpp"

namespace storeapi::auth {

struct StoreBodyFields {
  std::string_view store_id, name, slug, url, currency, locale, plan;
  std::string_view key_id, key_name, key_prefix;
  ScopeSet scopes;
  std::optional<timefmt::Micros> expires_at;
};

std::string render_store_body(const StoreBodyFields& f);

}  // namespace storeapi::auth
