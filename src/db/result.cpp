#include "db/result.hpp"

#include <charconv>

namespace storeapi::db {

std::int64_t Result::int64(int row, int col) const noexcept {
  std::string_view t = text(row, col);
  std::int64_t v = 0;
  std::from_chars(t.data(), t.data() + t.size(), v);
  return v;
}

std::string_view Result::sqlstate() const noexcept {
  if (!r_) return {};
  const char* s = PQresultErrorField(r_.get(), PG_DIAG_SQLSTATE);
  return s ? std::string_view(s) : std::string_view();
}

std::string_view Result::error_message() const noexcept {
  if (!r_) return "no result";
  const char* s = PQresultErrorField(r_.get(), PG_DIAG_MESSAGE_PRIMARY);
  return s ? std::string_view(s) : std::string_view(PQresultErrorMessage(r_.get()));
}

}  // namespace storeapi::db
