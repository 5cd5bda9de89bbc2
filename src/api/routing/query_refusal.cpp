#include "api/routing/query_refusal.hpp"

namespace storeapi::api {

Checked check_no_query_params(http::Query& query, std::string_view raw) {
  if (const http::QueryResult parsed = query.parse(raw); !parsed.ok())
    return Checked::refused(ErrorCode::parameter_invalid, parsed.param, parsed.message);
  if (query.params().empty()) return Checked::passed();
  return Checked::refused(ErrorCode::parameter_unknown, query.params().front().name);
}

}  // namespace storeapi::api
